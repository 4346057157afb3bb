"""The activation-memory and BPE checkers against computations written here: Korthikanti et al.
2022's closed form, and a BPE learner written as Sennrich et al. 2016 print theirs (regular
expressions over space-separated symbols), anchored on the paper's low/lower/newest/widest example
worked by hand; never the reference."""

from __future__ import annotations

import collections
import re

import pytest
from pydantic import ValidationError

from checkers import registry
from checkers.grading import grade

SEEDS = range(150)


def questions(name: str, params: dict | None = None, seeds=SEEDS):
    checker = registry.get(name)
    for seed in seeds:
        yield checker.generate(seed, params)


# ---------------------------------------------------------------- activation memory


def korthikanti_gb(i: dict) -> float:
    """Korthikanti et al. 2022: per layer s·b·h·(34 + 5·a·s/h) bytes (§4.1, Eq. 1), or 2·s·b·h with
    full recomputation (§4.2); L layers; GB = 1e9 bytes."""
    s, b, h, a, layers = i["seq"], i["batch"], i["hidden"], i["heads"], i["layers"]
    per_layer = 2 * s * b * h if i["checkpointing"] == "full" else s * b * h * (34 + 5 * a * s / h)
    return layers * per_layer / 1e9


def test_activation_memory_is_the_papers_closed_form():
    kinds = collections.Counter()
    for q in questions("activation_memory"):
        assert q.answer == pytest.approx(korthikanti_gb(q.inputs), rel=1e-12), q.inputs
        assert q.answer >= 0.1  # big enough that GB and GiB differ at the asked two places
        gib = q.answer * 1e9 / 2**30
        assert grade(q.tolerance.format(gib), q).outcome != "correct", q.seed
        kinds[q.inputs["checkpointing"]] += 1
    assert kinds["none"] > 30 and kinds["full"] > 30


def test_activation_memory_of_gpt3_by_hand():
    """GPT-3 175B (96 layers, h 12288, 96 heads, s 2048), b = 1: sbh = 25,165,824 and 5as/h = 80, so
    114 × 25,165,824 × 96 = 275,414,777,856 bytes; with full recomputation 2 × 25,165,824 × 96."""
    checker = registry.get("activation_memory")
    gpt3 = {"layers": 96, "hidden": 12288, "heads": 96, "seq": 2048, "batch": 1}
    assert checker.solve(checker.Inputs.model_validate({**gpt3, "checkpointing": "none"})) == pytest.approx(275.414777856)
    assert checker.solve(checker.Inputs.model_validate({**gpt3, "checkpointing": "full"})) == pytest.approx(4.831838208)


def test_activation_memory_cards_stay_on_their_recomputation():
    for checkpointing in ("none", "full"):
        assert {q.inputs["checkpointing"] for q in questions("activation_memory", {"checkpointing": checkpointing})} == {checkpointing}
    with pytest.raises(ValidationError):
        registry.get("activation_memory").Params.model_validate({"models": ["GPT-5"]})
    with pytest.raises(ValidationError):
        registry.get("activation_memory").Inputs.model_validate({"layers": 2, "hidden": 10, "heads": 4, "seq": 8, "batch": 1})


# ---------------------------------------------------------------- BPE


def learn_bpe(words: list[str], counts: list[int], merges: int) -> tuple[list[tuple[str, str]], dict[str, int]]:
    """Sennrich et al. 2016, Algorithm 1, as printed: the vocabulary as space-separated symbols, pairs
    counted into a dict (first occurrence first), the best pair replaced by a regular expression."""
    vocab = {" ".join([*word, "</w>"]): count for word, count in zip(words, counts)}
    learned = []
    for _ in range(merges):
        pairs: dict[tuple[str, str], int] = collections.defaultdict(int)
        for word, freq in vocab.items():
            symbols = word.split()
            for i in range(len(symbols) - 1):
                pairs[symbols[i], symbols[i + 1]] += freq
        if not pairs:
            break
        best = max(pairs, key=pairs.get)
        pattern = re.compile(r"(?<!\S)" + re.escape(" ".join(best)) + r"(?!\S)")
        vocab = {pattern.sub("".join(best), word): freq for word, freq in vocab.items()}
        learned.append(best)
    return learned, vocab


def segment(word: str, learned: list[tuple[str, str]]) -> list[str]:
    text = " ".join([*word, "</w>"])
    for pair in learned:
        text = re.sub(r"(?<!\S)" + re.escape(" ".join(pair)) + r"(?!\S)", "".join(pair), text)
    return text.split()


SENNRICH = (["low", "lower", "newest", "widest"], [5, 2, 6, 3])


def test_the_papers_example_worked_by_hand():
    """low 5, lower 2, newest 6, widest 3 (95 symbols with </w>). Counted on paper: e s, es t and
    est </w> (9 each), l o and lo w (7), n e, ne w, new est</w> (6), low </w> (5), w i (3, first of
    the three-way tie); then low</w> 5 + low e r </w> 8 + newest</w> 6 + wi d est</w> 9 = 28, and
    the unseen lowest splits into low + est</w>."""
    hand = [("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w"), ("n", "e"), ("ne", "w"),
            ("new", "est</w>"), ("low", "</w>"), ("w", "i")]
    assert learn_bpe(*SENNRICH, 10)[0] == hand  # the test's own learner agrees with the hand count
    checker = registry.get("bpe_tokens")
    corpus = checker.Inputs.model_validate({"words": SENNRICH[0], "counts": SENNRICH[1], "merges": 10, "target": "corpus"})
    assert checker.solve(corpus) == 28
    unseen = checker.Inputs.model_validate({**corpus.model_dump(), "target": "word", "word": "lowest"})
    assert checker.solve(unseen) == 2
    no_merge = checker.Inputs.model_validate({**corpus.model_dump(), "merges": 0})
    assert checker.solve(no_merge) == 4 * 5 + 6 * 2 + 7 * 6 + 7 * 3


def test_bpe_counts_agree_with_the_papers_algorithm():
    targets = collections.Counter()
    for q in questions("bpe_tokens"):
        i = q.inputs
        learned, vocab = learn_bpe(i["words"], i["counts"], i["merges"])
        if i["target"] == "corpus":
            expected = sum(len(word.split()) * freq for word, freq in vocab.items())
        else:
            expected = len(segment(i["word"], learned))
            assert i["word"] not in i["words"]
        assert q.answer == expected, q.inputs
        assert q.answer_text == str(expected)
        targets[i["target"]] += 1
    assert targets["corpus"] > 30 and targets["word"] > 30


def test_bpe_refuses_what_it_cannot_split():
    inputs = registry.get("bpe_tokens").Inputs
    for bad in ({"words": ["low", "low"], "counts": [1, 2], "merges": 1},
                {"words": ["Low"], "counts": [1], "merges": 1},
                {"words": ["low"], "counts": [0], "merges": 1},
                {"words": ["low"], "counts": [1], "merges": 1, "target": "word"}):
        with pytest.raises(ValidationError):
            inputs.model_validate(bad)


# ---------------------------------------------------------------- WordPiece


def hugging_face_pieces(words: list[str], vocab: set[str]) -> list[list[str]]:
    """Hugging Face tokenizers' WordPiece model (Rust), another implementation of BERT's splitter."""
    tokenizers = pytest.importorskip("tokenizers")
    model = tokenizers.models.WordPiece({token: i for i, token in enumerate(sorted(vocab | {"[UNK]"}))}, unk_token="[UNK]")
    return [[token.value for token in model.tokenize(word)] for word in words]


def test_wordpiece_counts_agree_with_hugging_face_tokenizers():
    letters = collections.Counter()
    for q in questions("wordpiece_tokens"):
        inputs = registry.get("wordpiece_tokens").Inputs.model_validate(q.inputs)
        expected = sum(len(pieces) for pieces in hugging_face_pieces(inputs.words, inputs.known()))
        assert q.answer == expected, q.inputs
        letters[inputs.letters] += 1
    assert letters[True] > 30 and letters[False] > 30


def test_wordpiece_by_hand():
    """Google BERT's tokenization.py: unaffable -> un ##aff ##able. Greedy takes the longest piece at
    each step (tok, then letters, where token ##s would be shorter), and one place with no piece
    makes the whole word [UNK], its matched prefix dropped."""
    checker = registry.get("wordpiece_tokens")

    def count(vocab: list[str], words: list[str], letters: bool) -> int:
        return checker.solve(checker.Inputs.model_validate({"vocab": vocab, "words": words, "letters": letters}))

    assert count(["un", "##aff", "##able"], ["unaffable"], True) == 3
    assert count(["tok", "token", "##s"], ["tokens"], True) == 2  # token ##s: the longest prefix wins
    assert count(["tok", "##en", "##s"], ["tokens"], False) == 3  # tok ##en ##s
    assert count(["tok", "##s"], ["tokens"], False) == 1  # tok, then nothing matches e: one [UNK]
    assert count(["tok", "##s"], ["tokens"], True) == 4  # tok ##e ##n ##s
