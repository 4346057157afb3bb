"""Tokenization counts. Byte-pair encoding (Sennrich et al. 2016, §3.2): merges learned from a small
word-frequency list, then how many tokens the corpus has after k merges, or how many pieces a word
the list does not hold splits into when the merges are applied in the order learned. WordPiece as
BERT splits words (greedy longest match first, ``##`` pieces, a word with no match is one [UNK]):
how many tokens a few words make with a small vocabulary."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal

from checkers.base import BaseChecker, Tolerance, answer_line
from checkers.said import Said, _, join
from checkers.shapes import Strict

if TYPE_CHECKING:  # Field(...) in an annotation is read by pydantic only to validate (checkers.validating)
    from pydantic import Field

Target = Literal["corpus", "word"]
# families of words sharing stems and endings, so that merges have something to share
WORDS = ("low", "lower", "lowest", "slow", "slower", "new", "newer", "newest", "wide", "wider", "widest",
         "old", "older", "oldest", "bold", "bolder", "fast", "faster", "fastest", "last", "vast")
WORD_MAX = 12
END = "</w>"


@dataclass(frozen=True, kw_only=True)
class BpeTokensParams(Strict):
    target: Literal["corpus", "word", "any"] = "any"
    merges_min: Annotated[int, Field(ge=1, le=12)] = 3
    merges_max: Annotated[int, Field(ge=1, le=12)] = 8

    def check(self) -> None:
        if self.merges_min > self.merges_max:
            raise ValueError(Said("merges_min must not exceed merges_max"))


@dataclass(frozen=True, kw_only=True)
class BpeTokensInputs(Strict):
    words: Annotated[list[str], Field(min_length=1, max_length=8)]
    counts: Annotated[list[int], Field(min_length=1, max_length=8)]
    merges: Annotated[int, Field(ge=0, le=50)]
    target: Target = "corpus"
    word: str | None = None  # the word to split, for target word

    def check(self) -> None:
        if len(self.words) != len(self.counts) or len(set(self.words)) != len(self.words):
            raise ValueError(Said("words must be distinct, one count each"))
        if any(count < 1 for count in self.counts):
            raise ValueError(Said("each count must be at least 1"))
        if any(not w.isascii() or not w.isalpha() or not w.islower() or len(w) > WORD_MAX for w in [*self.words, self.word or "a"]):
            raise ValueError(Said("words are lowercase letters a-z, at most {max} each", max=WORD_MAX))
        if (self.target == "word") != (self.word is not None):
            raise ValueError(Said("a word is given exactly when the target is word"))


def _symbols(symbols: list[str]) -> str:
    return " ".join(symbols)


def _total(counts: list[int], answer: int) -> str:
    """A worked solution's sum of the tokens counted."""
    return _("Total: {terms} = {answer}").format(terms=" + ".join(map(str, counts)), answer=answer)


def _learned(inputs: BpeTokensInputs) -> tuple[list[tuple[tuple[str, str], int, list[list[str]]]], list[list[str]]]:
    """The reference's merges, and every word's symbols after the last of them."""
    from checkers import reference

    steps = reference.bpe_learn(inputs.words, inputs.counts, inputs.merges)
    return steps, steps[-1][2] if steps else [[*word, END] for word in inputs.words]


def _pieces(inputs: BpeTokensInputs, steps: list[tuple[tuple[str, str], int, list[list[str]]]]) -> list[str]:
    """The asked word split by the learned merges in their order."""
    from checkers import reference

    return reference.bpe_apply(inputs.word or "", [pair for pair, _count, _words in steps])


class BpeTokens(BaseChecker[BpeTokensParams, BpeTokensInputs, int]):
    name = "bpe_tokens"
    description = Said("BPE token counts: the corpus's tokens after learning k merges on a small word list, or how many tokens "
                       "a new word splits into with the merges applied in the order learned (Sennrich 2016)")
    Params = BpeTokensParams
    Inputs = BpeTokensInputs

    def compose(self, rng: random.Random, params: BpeTokensParams) -> tuple[BpeTokensInputs, str]:
        target: Target = rng.choice(["corpus", "word"]) if params.target == "any" else params.target
        chosen = rng.sample(WORDS, 5)
        words, word = chosen[:4], chosen[4] if target == "word" else None
        inputs = BpeTokensInputs(words=words, counts=[rng.randint(1, 9) for _ in words],
                                 merges=rng.randint(params.merges_min, params.merges_max), target=target, word=word)
        rows = "\n".join(f"| {w} | {c} | `{_symbols([*w, END])}` |" for w, c in zip(inputs.words, inputs.counts))
        ask = (_("After learning them, how many tokens does the corpus hold in all (counted by frequency; an {end} standing "
                 "alone as a symbol counts as one too)?") if target == "corpus" else
               _("After learning them, apply the merges in the order learned to the new word **{word}**: how many tokens "
                 "does it split into (an {end} standing alone as a symbol counts as one too)?"))
        rules = _(
            "Learn **{merges}** BPE merges (Sennrich et al. 2016, §3.2) on the word-frequency table below. Each word is first "
            "split into characters, with the end-of-word symbol {end} appended; each merge joins the adjacent symbol pair that "
            "occurs most often in the corpus (weighted by frequency) into a new symbol; on a tie, take the pair that occurs "
            "first (reading the table top to bottom, each word left to right)."
        ).format(merges=inputs.merges, end=f"`{END}`")
        header = _("| Word | Frequency | Initial symbols |")
        return inputs, f"{rules}\n\n{header}\n| --- | --- | --- |\n{rows}\n\n{ask.format(end=f'`{END}`', word=word)}"

    def why_out_of_range(self, params: BpeTokensParams, inputs: BpeTokensInputs) -> str | None:
        if params.target != "any" and inputs.target != params.target:
            return Said("target {got}, the card wants {wanted}", got=inputs.target, wanted=params.target)
        if not params.merges_min <= inputs.merges <= params.merges_max:
            return Said("{merges} merges, the card wants {low} to {high}", merges=inputs.merges, low=params.merges_min,
                        high=params.merges_max)
        return None

    def tolerance(self, params: BpeTokensParams, inputs: BpeTokensInputs) -> Tolerance:
        return Tolerance("exact")

    def solve(self, inputs: BpeTokensInputs) -> int:
        steps, final = _learned(inputs)
        if inputs.word is not None:
            return len(_pieces(inputs, steps))
        return sum(count * len(symbols) for symbols, count in zip(final, inputs.counts))

    def explain(self, inputs: BpeTokensInputs, answer: int, tolerance: Tolerance) -> str:
        steps, final = _learned(inputs)
        rows = [_("| Merge | Symbol pair merged | Count |"), "| --- | --- | --- |"]
        rows += [f"| {n} | `{a}` + `{b}` → `{a + b}` | {count} |" for n, ((a, b), count, _words) in enumerate(steps, 1)]
        if inputs.word is None:
            lines = [f"| {w} | {c} | `{_symbols(s)}` | {c} × {len(s)} = {c * len(s)} |"
                     for w, c, s in zip(inputs.words, inputs.counts, final)]
            result = "\n".join((_("| Word | Frequency | After the merges | Tokens |"), "| --- | --- | --- | --- |", *lines, "",
                                _total([c * len(s) for c, s in zip(inputs.counts, final)], answer)))
        else:
            pieces = _pieces(inputs, steps)
            result = _("Split {word} into {symbols}, apply the merges one by one in the table's order (skipping those that do "
                       "not apply), and get {pieces}. Tokens: {count}.").format(
                word=inputs.word, symbols=f"`{_symbols([*inputs.word, END])}`", pieces=f"`{_symbols(pieces)}`", count=answer)
        learned = "\n".join(rows) if steps else _("(no symbol pair to merge)")
        return f"{learned}\n\n{result}\n\n" + answer_line(tolerance.format(answer))


# ------------------------------------------------------------------------------------ WordPiece

WORD_STARTS = ("un", "re", "play", "work", "learn", "token", "walk", "read", "train", "tok")
CONTINUATIONS = ("##able", "##ing", "##ed", "##er", "##ers", "##s", "##ize", "##ization", "##ation", "##ly", "##play",
                 "##work", "##learn", "##train", "##aff", "##en", "##iz", "##ab", "##le", "##ning", "##ained")
PIECE_WORDS = ("unplayable", "retraining", "tokenization", "walkers", "readable", "unaffable", "relearned", "workable",
               "players", "learners", "untrained", "rework", "tokens", "walking", "unhappy", "tokenize")
LETTERS = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True, kw_only=True)
class WordPieceParams(Strict):
    letters: Literal["yes", "no", "any"] = "any"  # whether every letter is a piece, so no word is [UNK]
    words: Annotated[int, Field(ge=1, le=4)] = 3


@dataclass(frozen=True, kw_only=True)
class WordPieceInputs(Strict):
    vocab: Annotated[list[str], Field(min_length=1, max_length=60)]  # besides the single letters, when letters
    words: Annotated[list[str], Field(min_length=1, max_length=6)]
    letters: bool = True  # every letter a-z and ##a-##z is in the vocabulary too

    def check(self) -> None:
        pieces = [piece.removeprefix("##") for piece in self.vocab]
        if any(not p.isascii() or not p.isalpha() or not p.islower() or len(p) > WORD_MAX for p in [*pieces, *self.words]):
            raise ValueError(Said("words are lowercase letters a-z, at most {max} each", max=WORD_MAX))

    def known(self) -> set[str]:
        """The whole vocabulary: the pieces given, and the letters when they are in it."""
        return {*self.vocab, *((*LETTERS, *(f"##{c}" for c in LETTERS)) if self.letters else ())}


class WordPieceTokens(BaseChecker[WordPieceParams, WordPieceInputs, int]):
    name = "wordpiece_tokens"
    description = Said("WordPiece token counts: BERT's greedy longest match (## pieces continue a word; a word with no match is "
                       "one [UNK] whole), how many tokens a few words split into")
    Params = WordPieceParams
    Inputs = WordPieceInputs

    def compose(self, rng: random.Random, params: WordPieceParams) -> tuple[WordPieceInputs, str]:
        letters = rng.random() < 0.6 if params.letters == "any" else params.letters == "yes"
        vocab = [piece for piece in (*WORD_STARTS, *CONTINUATIONS) if rng.random() < 0.6]
        inputs = WordPieceInputs(vocab=vocab or ["un"], words=rng.sample(PIECE_WORDS, params.words), letters=letters)
        also = (_("Besides, the 26 single letters a–z and their continuations ##a–##z are all in the vocabulary too.") if letters
                else _("The vocabulary holds no other token (no single letters)."))
        prompt = "\n\n".join((
            _("BERT splits words with WordPiece (Devlin et al. 2019, §3; the split as Google BERT's tokenization.py makes it): from "
              "the start of each word take the **longest** prefix in the vocabulary, then put `##` before the rest and keep "
              "looking for the longest match; where nothing matches at all, the **whole word** is one `[UNK]`."),
            _("Vocabulary: {vocab}. {also}").format(vocab=join(f"`{piece}`" for piece in inputs.vocab), also=also),
            _("Split {words} word by word: how many tokens in all? (`[UNK]` counts as 1; no [CLS] or [SEP] added)").format(
                words=join(f"**{w}**" for w in inputs.words)),
        ))
        return inputs, prompt

    def why_out_of_range(self, params: WordPieceParams, inputs: WordPieceInputs) -> str | None:
        if params.letters != "any" and inputs.letters != (params.letters == "yes"):
            return Said("letters {got}, the card wants {wanted}", got=inputs.letters, wanted=params.letters)
        return None

    def tolerance(self, params: WordPieceParams, inputs: WordPieceInputs) -> Tolerance:
        return Tolerance("exact")

    def solve(self, inputs: WordPieceInputs) -> int:
        from checkers import reference

        return sum(len(reference.wordpiece(word, inputs.known())) for word in inputs.words)

    def explain(self, inputs: WordPieceInputs, answer: int, tolerance: Tolerance) -> str:
        from checkers import reference

        split = [reference.wordpiece(word, inputs.known()) for word in inputs.words]
        rows = [_("| Word | Pieces | Tokens |"), "| --- | --- | --- |"]
        rows += [f"| {word} | {' '.join(f'`{piece}`' for piece in pieces)} | {len(pieces)} |" for word, pieces in zip(inputs.words, split)]
        return "\n\n".join((
            _("Each step takes the longest piece in the vocabulary from where it stands (not the shortest, nor the split with the "
              "fewest pieces overall); where nothing matches, the whole word is `[UNK]`."),
            "\n".join(rows), _total([len(pieces) for pieces in split], answer), answer_line(tolerance.format(answer)),
        ))
