"""Tokenization counts. Byte-pair encoding (Sennrich et al. 2016, §3.2): merges learned from a small
word-frequency list, then how many tokens the corpus has after k merges, or how many pieces a word
the list does not hold splits into when the merges are applied in the order learned. WordPiece as
BERT splits words (greedy longest match first, ``##`` pieces, a word with no match is one [UNK]):
how many tokens a few words make with a small vocabulary."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Literal

from checkers.base import BaseChecker, Tolerance
from checkers.said import Said
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
    description = "BPE 分词计数：在小词表上学 k 次合并后语料的 token 数，或按学到的顺序切一个新词得几个 token（Sennrich 2016）"
    Params = BpeTokensParams
    Inputs = BpeTokensInputs

    def compose(self, rng: random.Random, params: BpeTokensParams) -> tuple[BpeTokensInputs, str]:
        target: Target = rng.choice(["corpus", "word"]) if params.target == "any" else params.target
        chosen = rng.sample(WORDS, 5)
        words, word = chosen[:4], chosen[4] if target == "word" else None
        inputs = BpeTokensInputs(words=words, counts=[rng.randint(1, 9) for _ in words],
                                 merges=rng.randint(params.merges_min, params.merges_max), target=target, word=word)
        rows = "\n".join(f"| {w} | {c} | `{_symbols([*w, END])}` |" for w, c in zip(inputs.words, inputs.counts))
        ask = (f"学完后语料（按词频计）一共有多少个 token（`{END}` 单独成符号时也算一个）？" if target == "corpus"
               else f"学完后按学到的先后顺序把这些合并用在新词 **{word}** 上，它被切成几个 token（`{END}` 单独成符号时也算一个）？")
        prompt = (
            f"用 BPE（Sennrich et al. 2016, §3.2）在下面的词频表上学 **{inputs.merges}** 次合并。每个词先拆成字符，"
            f"末尾加词尾符号 `{END}`；每次把语料里（按词频加权）出现次数最多的相邻符号对合成一个新符号；"
            "次数并列时取最先出现的一对（按表中从上到下、每个词从左到右读）。\n\n"
            f"| 词 | 词频 | 初始符号 |\n| --- | --- | --- |\n{rows}\n\n{ask}"
        )
        return inputs, prompt

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
        rows = ["| 第几次 | 合并的符号对 | 次数 |", "| --- | --- | --- |"]
        rows += [f"| {n} | `{a}` + `{b}` → `{a + b}` | {count} |" for n, ((a, b), count, _words) in enumerate(steps, 1)]
        if inputs.word is None:
            lines = [f"| {w} | {c} | `{_symbols(s)}` | {c} × {len(s)} = {c * len(s)} |"
                     for w, c, s in zip(inputs.words, inputs.counts, final)]
            result = ("| 词 | 词频 | 合并后 | token 数 |\n| --- | --- | --- | --- |\n" + "\n".join(lines)
                      + f"\n\n合计：{' + '.join(str(c * len(s)) for c, s in zip(inputs.counts, final))} = {answer}")
        else:
            pieces = _pieces(inputs, steps)
            result = (f"把 {inputs.word} 拆成 `{_symbols([*inputs.word, END])}`，按上表的顺序逐条套用合并（用不上的跳过），"
                      f"得到 `{_symbols(pieces)}`，共 {answer} 个 token。")
        learned = "\n".join(rows) if steps else "（没有可合并的符号对）"
        return f"{learned}\n\n{result}\n\n答案：`{tolerance.format(answer)}`"


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
    description = "WordPiece 分词计数：BERT 的贪心最长匹配（## 续接，整词匹配不上记一个 [UNK]），几个词共切成几个 token"
    Params = WordPieceParams
    Inputs = WordPieceInputs

    def compose(self, rng: random.Random, params: WordPieceParams) -> tuple[WordPieceInputs, str]:
        letters = rng.random() < 0.6 if params.letters == "any" else params.letters == "yes"
        vocab = [piece for piece in (*WORD_STARTS, *CONTINUATIONS) if rng.random() < 0.6]
        inputs = WordPieceInputs(vocab=vocab or ["un"], words=rng.sample(PIECE_WORDS, params.words), letters=letters)
        listed = "、".join(f"`{piece}`" for piece in inputs.vocab)
        also = "此外，26 个单字母 a–z 及其续接形式 ##a–##z 也都在词表里。" if letters else "词表里没有别的 token（没有单字母）。"
        prompt = (
            "BERT 用 WordPiece 切词（Devlin et al. 2019, §3；切法见 Google BERT 的 tokenization.py）：对每个词从词首起取词表里"
            "**最长**的前缀，剩下的部分加 `##` 前缀后继续找最长匹配；若某处一个都匹配不上，**整个词**记为一个 `[UNK]`。\n\n"
            f"词表：{listed}。{also}\n\n把 {'、'.join(f'**{w}**' for w in inputs.words)} 逐词切开，一共多少个 token？"
            "（`[UNK]` 记 1 个，不加 [CLS]、[SEP]）"
        )
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
        rows = ["| 词 | 切分 | token 数 |", "| --- | --- | --- |"]
        rows += [f"| {word} | {' '.join(f'`{piece}`' for piece in pieces)} | {len(pieces)} |" for word, pieces in zip(inputs.words, split)]
        return (
            "每步取从当前位置起在词表里最长的一段（不是最短，也不是切得最少的整体方案）；一处匹配不上，整个词就是 `[UNK]`。\n\n"
            + "\n".join(rows)
            + f"\n\n合计：{' + '.join(str(len(pieces)) for pieces in split)} = {answer}\n\n答案：`{tolerance.format(answer)}`"
        )
