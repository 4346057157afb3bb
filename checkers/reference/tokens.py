"""Byte-pair encoding (Sennrich et al. 2016, §3.2 and its Algorithm 1): merges learned from a
word-frequency list, and a word split by applying them in the order learned. Plain Python: a
tokenizer counts symbols, it needs no tensors."""

from __future__ import annotations

END = "</w>"  # the end-of-word symbol, so that a merge knows where words end
Pair = tuple[str, str]


def split_word(word: str) -> list[str]:
    return [*word, END]


def pair_counts(words: list[list[str]], counts: list[int]) -> dict[Pair, int]:
    """How often each adjacent pair occurs, weighted by word frequency, in order of first occurrence."""
    found: dict[Pair, int] = {}
    for symbols, count in zip(words, counts):
        for pair in zip(symbols, symbols[1:]):
            found[pair] = found.get(pair, 0) + count
    return found


def merged(symbols: list[str], pair: Pair) -> list[str]:
    """``symbols`` with every occurrence of ``pair``, left to right, made one symbol."""
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def bpe_learn(words: list[str], counts: list[int], merges: int) -> list[tuple[Pair, int, list[list[str]]]]:
    """Each merge learned: the most frequent pair (a tie goes to the pair met first, reading the
    words in order, each from left to right, as the paper's reference code picks it), its count,
    and every word's symbols after it. Stops early when no pair is left."""
    symbols = [split_word(word) for word in words]
    steps: list[tuple[Pair, int, list[list[str]]]] = []
    for _ in range(merges):
        found = pair_counts(symbols, counts)
        if not found:
            break
        best = max(found, key=lambda pair: found[pair])  # max keeps the first of equal counts
        symbols = [merged(word, best) for word in symbols]
        steps.append((best, found[best], symbols))
    return steps


def bpe_apply(word: str, learned: list[Pair]) -> list[str]:
    """A word (seen or not) split by the learned merges, applied in the order they were learned."""
    symbols = split_word(word)
    for pair in learned:
        symbols = merged(symbols, pair)
    return symbols


UNKNOWN = "[UNK]"


def wordpiece(word: str, vocab: set[str]) -> list[str]:
    """A word split as BERT's WordPiece tokenizer splits it (Google's tokenization.py,
    WordpieceTokenizer): greedy longest match first, pieces after the first written ``##...``; a
    word with a place where no piece matches is one [UNK] as a whole."""
    pieces: list[str] = []
    start = 0
    while start < len(word):
        piece = next((candidate for end in range(len(word), start, -1)
                      if (candidate := ("##" if start else "") + word[start:end]) in vocab), None)
        if piece is None:
            return [UNKNOWN]
        pieces.append(piece)
        start += len(piece) - (2 if start else 0)
    return pieces
