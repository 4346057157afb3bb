"""One language per screen where the checkers speak: in the English interface a numeric question's
frame, worked solution, verdicts and hints hold no Chinese but the deck's own text; the Chinese
interface reads as it always did; a web server speaks each request's language, and a question
drawn in one language is solved in it whatever the thread that solves it."""

from __future__ import annotations

import re
import threading

import pytest

from checkers import registry, said
from checkers.grading import grade
from quizzer.base import i18n
from quizzer.kinds import get as kind
from quizzer.kinds.pydantic_models import validate

CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
SEEDS = (0, 1, 2, 5)
DECK_TEXT = "按课程的记号作答。"  # a card's own prompt, in its deck's language


def words_of(question, typed: tuple[str, ...]) -> list[str]:
    """Everything a learner reads of ``question``: prompt, precision, solution, the answer, and the
    verdict on each of ``typed``."""
    verdicts = [i18n.translate_checker_message(grade(text, question).message) for text in typed]
    return [question.prompt, question.tolerance.phrase(), question.solution, question.answer_text, *verdicts]


def unreadable_and_wrong(question) -> tuple[str, ...]:
    """A right answer, a wrong one (of the right shape), unreadable ones, a stray unit, an empty one."""
    truth = question.answer
    wrong = "[" + ", ".join("12345" for _ in truth) + "]" if isinstance(truth, list) else "-12345"
    return question.answer_text, wrong, "abc", "1 2 3 4 5 6 7 8 9 10 11 12 13", "5 MB", ""


@pytest.mark.parametrize("name", registry.names())
def test_in_english_a_checker_says_nothing_in_chinese(name):
    i18n.use("en")
    checker = registry.get(name)
    assert not CJK.search(i18n.translate_checker_message(checker.description))
    for seed in SEEDS:
        question = checker.generate(seed)
        for text in words_of(question, unreadable_and_wrong(question)):
            assert not CJK.search(text), (name, seed, text)


def test_in_english_a_numeric_card_shows_only_its_deck_text_in_chinese():
    i18n.use("en")
    numeric = kind("numeric")
    card = validate(numeric.model, {"id": "n-voice", "kind": "numeric", "source": "1.1", "checker": "kv_cache",
                                    "prompt": DECK_TEXT})
    asked = numeric.ask(card, seed=3)
    front = numeric.front(asked)
    assert front.startswith(DECK_TEXT) and not CJK.search(front.replace(DECK_TEXT, ""))
    assert not CJK.search(numeric.solution(asked) + numeric.back(asked) + numeric.hint(asked))
    verdict = numeric.score(asked, "-1")
    assert verdict.outcome == "wrong" and not CJK.search(i18n.translate_checker_message(verdict.message))


@pytest.mark.parametrize("language", ["zh", "en"])
def test_a_numeric_cards_row_describes_its_checker_in_the_interface_language(language):
    """What a browser's row shows of a numeric card, no question drawn: its checker's description."""
    i18n.use(language)
    numeric = kind("numeric")
    card = validate(numeric.model, {"id": "n-row", "kind": "numeric", "source": "1.1", "checker": "activation_memory",
                                    "params": {"checkpointing": "full"}})
    row = numeric.asks(card)
    if language == "zh":
        assert row == ("activation_memory (checkpointing=full): 训练时的激活显存：每层 sbh(34 + 5as/h) 字节，"
                       "完全重计算时每层只存 2sbh（Korthikanti 2022），单位 GB")
    else:
        assert row.startswith("activation_memory (checkpointing=full): Activation memory") and not CJK.search(row)


def test_the_chinese_interface_reads_as_before():
    """Today's words, copied from the output before the checkers had a catalogue of their own."""
    i18n.use("zh")
    nsp = registry.get("nsp_loss").generate(0)
    assert nsp.prompt == ("NSP 头对句对 (A, B) 输出 P(IsNext) = 0.84。真实标签是 **IsNext**（B 确实是 A 的下一句）。\n\n"
                          "求这条样本的 NSP loss（自然对数）。\n\n（保留 3 位小数）")
    assert nsp.solution == "loss = −ln P(IsNext) = −ln(0.84) = 0.1744\n\n答案：`0.174`"
    assert [i18n.translate_checker_message(grade(typed, nsp).message) for typed in ("0.174", "0.2", "5 MB")] == [
        "✓ 正确：0.174", "不对：位数太少，看不出对错（题目要求保留 3 位小数）。答案 0.174", "题目要的是不带单位的数：去掉 'MB'。"]
    kv = registry.get("kv_cache").generate(0)
    assert kv.solution == (
        "每个 token 每层存一个 K 和一个 V，各 h_kv × d_head = 25 × 64 个数：\n\n"
        "每 token = 2（K、V）× L × h_kv × d_head × 字节 = 2 × 48 × 25 × 64 × 4 = 614,400 字节\n\n"
        "总计 = 每 token × B × S = 614,400 × 4 × 4096 = 10,066,329,600 字节 = 10,066,329,600 / 2^30 GiB = 9.3750 GiB\n\n"
        "答案：`9.38`")
    assert i18n.translate_checker_message(grade("5 MB", kv).message) == "题目以 GiB 为单位：请用 GiB 写这个数（'MB' 是另一个单位）。"
    embedding = registry.get("embedding_sum").generate(1)
    assert embedding.prompt.startswith("3 维示意：某 token 在位置 15、属于句子 B。\n\n| 分量 | 向量 |\n")


def test_a_question_is_solved_in_the_language_it_was_drawn_in_on_any_thread():
    checker = registry.get("nsp_loss")
    with said.speaking("zh"):
        draft = checker.draw(0)
    solved: list[str] = []
    said.speak("en")  # the process's language now, which a thread with no context of its own reads
    thread = threading.Thread(target=lambda: solved.append(checker.finish(draft).solution))
    thread.start()
    thread.join()
    assert solved[0].endswith("答案：`0.174`") and said.language() == "en"
    assert checker.finish(checker.draw(0)).solution.endswith("Answer: `0.174`")


def test_two_contexts_speak_two_languages_at_once():
    """A web server answers a Chinese and an English request side by side: each context its own."""
    import contextvars

    def drawn(language: str) -> str:
        said.speak(language)
        return registry.get("nsp_loss").draw(0).prompt

    chinese = contextvars.copy_context().run(drawn, "zh")
    english = contextvars.copy_context().run(drawn, "en")
    assert "求这条样本" in chinese and english.startswith("The NSP head") and not CJK.search(english)


@pytest.mark.parametrize("language, front, points", [
    ("en", "**A common claim**: 错误说法\n\nWhat is wrong with it, and why?",
     ["Names and corrects it: 正确说法", "Says why: 因为如此"]),
    ("zh", None, None),
])
def test_a_mistake_cards_frame_words_follow_the_interface(language, front, points):
    i18n.use(language)
    mistake = kind("mistake")
    card = validate(mistake.model, {"id": "m-voice", "kind": "mistake", "source": "1.1", "claim": "错误说法",
                                    "correction": "正确说法", "why": "因为如此"})
    asked = mistake.ask(card)
    deck_words = ("错误说法", "正确说法", "因为如此")
    if language == "en":
        assert mistake.front(asked) == front and mistake.key_points(card) == points
        frame = mistake.front(asked) + mistake.back(asked) + "".join(mistake.point_names(card))
        for words in deck_words:
            frame = frame.replace(words, "")
        assert not CJK.search(frame)
    else:
        assert "错误说法" in mistake.front(asked) and "In fact" not in mistake.back(asked)
        assert mistake.point_names(card) == ["指出错误并纠正", i18n._("Says why")] and not re.search(
            r"[A-Za-z]", "".join(mistake.point_names(card)))


@pytest.mark.parametrize("language, asked, verdict", [
    ("en", "(give exact integers, separated by commas or spaces, with or without the brackets)",
     "the question asks for exact integers;"),
    ("zh", "（给出精确整数，用逗号或空格隔开，方括号可加可不加）", "题目要求每个数都是精确整数，"),
])
def test_a_shape_is_asked_for_as_integers_typed_the_ways_the_grader_reads(language, asked, verdict):
    """A tensor's shape is a vector: its precision line asks for integers (not "the exact integer")
    written as the line says, each of which grades right; a dimension right to its tens only is
    imprecise, and the verdict names integers too."""
    checker = registry.get("attention_shapes")
    with said.speaking(language):
        for seed in SEEDS:
            question = checker.generate(seed)
            assert question.prompt.endswith(asked), question.prompt
            dimensions = [str(int(n)) for n in question.answer]
            for typed in (", ".join(dimensions), " ".join(dimensions), "[" + ", ".join(dimensions) + "]",
                          "，".join(dimensions)):
                assert grade(typed, question).outcome == "correct", typed
            largest = max(range(len(dimensions)), key=lambda i: question.answer[i])
            tens = [f"{round(question.answer[largest] / 10)}e1" if i == largest else n for i, n in enumerate(dimensions)]
            rough = grade(" ".join(tens), question)
            assert rough.outcome == "imprecise" and verdict in said.text(rough.message), (tens, said.text(rough.message))


@pytest.mark.parametrize("name", registry.names())
def test_no_question_with_a_vector_answer_asks_for_one_integer(name):
    i18n.use("en")
    checker = registry.get(name)
    for seed in SEEDS[:2]:
        question = checker.generate(seed)
        if isinstance(question.answer, list):
            assert "the exact integer" not in question.prompt, (name, seed)
