"""Looking at the collection: `quiz cards` (search, filters, states, sorts), `quiz show` for each
kind, `--json` on every listing, the overview's capped new count, the clean lint line and
empty listings. Everything through the CLI; each test has its own database (conftest)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone

import pytest
from typer.testing import CliRunner

from conftest import recall_now, run_in_terminal

from quizzer import kinds
from quizzer.app import browse
from quizzer.cli import app
from quizzer.cli.cards import Sort, State
from quizzer.base.clock import next_day_start
from quizzer.decks import load_decks
from quizzer.scheduling.answer import answer, bury, suspend
from quizzer.store import open_store

runner = CliRunner()
T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)

DECK = """\
id: mini
title: Mini 牌组
language: zh
source: {file: course.txt, sections: "1"}
cards:
  - {id: qa-bert, kind: qa, source: "1.1", tags: [pretraining], question: BERT 的预训练任务有哪些？, answer: MLM 和 NSP。, points: [Masked LM, Next Sentence Prediction]}
  - {id: ch-mask, kind: choice, source: "1.2", tags: [mask], question: padding 掩码加在哪里？, options: [softmax 之后, softmax 之前的分数上, 输出层], answer: B, explanation: 在 softmax 之前加负无穷。}
  - {id: mis-gpt, kind: mistake, source: "1.3", tags: [gpt], claim: GPT 是 Encoder-only, correction: GPT 是 Decoder-only, why: 它用 causal mask}
  - {id: num-loss, kind: numeric, source: "1.4", tags: [loss], checker: mlm_loss, params: {}, prompt: 算一算 MLM loss。}
  - {id: cz-mask, kind: cloze, source: "1.5", tags: [mask, pretraining], text: "BERT 随机选 {{c1::15%}} 的 token 做 {{c2::MLM}}。", note: 其余 85% 不算 loss。}
  - {id: qa-ffn, kind: qa, source: "2.1", tags: [ffn], question: FFN 的隐藏维度是多少？, answer: 4d, points: [四倍]}
"""
OTHER = """\
id: other
title: Other
language: en
source: {file: notes.txt, sections: "1"}
cards:
  - {id: o-attention, kind: qa, source: "9.1", tags: [attention], question: Why scale by sqrt(d_k)?, answer: To keep the softmax from saturating., points: [variance]}
"""
IDS = {"qa-bert", "ch-mask", "mis-gpt", "num-loss", "cz-mask", "qa-ffn", "o-attention"}


@pytest.fixture
def deck_dir(deck_folder):
    deck_folder(OTHER, "other.yaml")
    return deck_folder(DECK)


def quiz(deck_dir, *args: str, input: str = "", when: datetime = T0, code: int = 0):
    result = runner.invoke(app, [*args, "--decks", str(deck_dir)], input=input,
                           env={"QUIZ_NOW": when.isoformat(), "COLUMNS": "200"})
    assert result.exit_code == code, result.output
    return result


def as_json(deck_dir, *args: str, when: datetime = T0):
    return json.loads(quiz(deck_dir, *args, "--json", when=when).stdout)


@pytest.fixture
def studied(deck_dir):
    """The mini deck with one card in each state:

    qa-bert   review, overdue (Easy 40 days ago)       ch-mask   review, not due; in the mistakes notebook
    mis-gpt   learning, due in minutes                 cz-mask   relearning, due, a leech (8 lapses; in the notebook)
    num-loss  new, suspended                           qa-ffn    new, buried until tomorrow
    o-attention (deck other) new
    """
    # a wrong exam answer three days ago puts ch-mask into the notebook
    quiz(deck_dir, "exam", "--kind", "choice", "--deck", "mini", "--count", "1", input="A\n!f\n",
         when=T0 - timedelta(days=3))
    store = open_store()
    answer(store, "ch-mask", 4, now=T0 - timedelta(hours=1), duration_ms=1000)
    answer(store, "qa-bert", 4, now=T0 - timedelta(days=40), duration_ms=1000)
    answer(store, "mis-gpt", 3, now=T0 - timedelta(minutes=1), duration_ms=1000)
    moment = T0 - timedelta(days=100)
    answer(store, "cz-mask", 4, now=moment, duration_ms=1000)
    for _ in range(8):  # lapse eight times: a leech
        moment += timedelta(days=5)
        answer(store, "cz-mask", 1, now=moment, duration_ms=1000, ahead_rule=False)
        if _ < 7:
            moment += timedelta(minutes=15)
            answer(store, "cz-mask", 3, now=moment, duration_ms=1000, ahead_rule=False)
    suspend(store, "num-loss")
    bury(store, "qa-ffn", next_day_start(T0))
    return deck_dir


def ids(rows) -> list[str]:
    return [row["id"] for row in rows]


# ------------------------------------------------------------------ the browser


def test_every_card_is_a_row_with_its_columns(deck_dir):
    result = quiz(deck_dir, "cards")
    for card_id in IDS:
        assert card_id in result.stdout
    assert "BERT 的预训练任务有哪些？" in result.stdout and "7 cards" in result.stdout
    header = next(line for line in result.stdout.splitlines() if line.startswith("card "))
    assert header.split() == ["card", "kind", "deck", "§", "front", "state", "due", "stability", "recall"]


@pytest.mark.parametrize("columns", [60, 80])
def test_a_long_id_gives_way_to_short_ids_that_every_command_takes(deck_folder, columns):
    """At 80 columns ids folded over lines (3-4 a card at 60): below the whole ids' width the table
    shows each card's short id on one line, with the kind and deck at 80, and `quiz show` takes it."""
    import hashlib

    long_id = "a-" + "very-long-card-id-" * 3 + "end"
    folder = deck_folder(DECK.replace("qa-ffn", long_id))
    out = runner.invoke(app, ["cards", "--decks", str(folder)], env={"COLUMNS": str(columns)}).stdout
    assert long_id not in out and "a-very" not in out, out
    sha1 = {card_id: hashlib.sha1(card_id.encode()).hexdigest() for card_id in IDS - {"qa-ffn", "o-attention"} | {long_id}}
    rows = [line.split()[0] for line in out.splitlines() if re.match(r"[0-9a-f]{4,} ", line)]
    assert len(rows) == 6, out
    for card_id, hexed in sha1.items():
        short = next(row for row in rows if hexed.startswith(row))  # one line each: the whole short id
        shown = runner.invoke(app, ["show", short, "--decks", str(folder)], env={"COLUMNS": "100"})
        assert shown.exit_code == 0 and shown.stdout.startswith(card_id), shown.output
    if columns == 80:
        assert "mini" in out and "numeric" in out, out  # the deck and kind stay at 80 columns


def test_a_wide_terminal_shows_whole_ids(deck_dir):
    out = runner.invoke(app, ["cards", "--decks", str(deck_dir)], env={"COLUMNS": "120"}).stdout
    assert IDS <= {line.split()[0] for line in out.splitlines() if line[:1].strip()}, out


def test_the_start_of_an_id_names_the_card_it_alone_starts(deck_dir):
    assert quiz(deck_dir, "show", "o-att").stdout.startswith("o-attention")
    ambiguous = quiz(deck_dir, "show", "qa-", code=1)
    assert ambiguous.output.count("\n") == 1 and "qa-bert" in ambiguous.output and "qa-ffn" in ambiguous.output, \
        ambiguous.output


def test_short_ids_are_the_shortest_unique_starts_of_the_ids_sha1():
    import hashlib

    from quizzer.app.short_ids import ShortIds, resolve

    ids = [f"card-{n}" for n in range(3000)] + ["beef", "beef-stew"]  # beef-stew's start is an id: a short id must not be one
    shortened = dict(ShortIds(ids))
    digests = {card_id: hashlib.sha1(card_id.encode()).hexdigest() for card_id in ids}
    assert len(set(shortened.values())) == len(ids)
    for card_id, short in shortened.items():
        assert digests[card_id].startswith(short) and len(short) >= 4
        assert [other for other in ids if other != card_id and
                (digests[other].startswith(short) or other.startswith(short))] == []
        assert len(short) == 4 or any(digests[other].startswith(short[:-1]) or other.startswith(short[:-1])
                                      for other in ids if other != card_id)  # a digit fewer is not unique
        assert resolve(short, ids) == card_id
    assert resolve("beef", ids) == "beef"  # a whole id is itself, though another starts with it


@pytest.mark.parametrize("option, value, expected", [
    ("--deck", "other", {"o-attention"}),
    ("--deck", "mini", IDS - {"o-attention"}),
    ("--tag", "mask", {"ch-mask", "cz-mask"}),
    ("--kind", "qa", {"qa-bert", "qa-ffn", "o-attention"}),
    ("--kind", "numeric", {"num-loss"}),
])
def test_filters(deck_dir, option, value, expected):
    assert set(ids(as_json(deck_dir, "cards", option, value))) == expected


def test_filters_combine_and_repeat(deck_dir):
    rows = as_json(deck_dir, "cards", "--tag", "mask", "--tag", "ffn", "--kind", "qa")
    assert ids(rows) == ["qa-ffn"]


@pytest.mark.parametrize("option", ["--deck", "--tag"])
def test_an_unknown_deck_or_tag_is_a_usage_error(deck_dir, option):
    result = quiz(deck_dir, "cards", option, "nope", code=2)
    assert f"Error: no {option[2:]} 'nope'" in result.stderr


def test_an_unknown_kind_state_or_sort_is_a_usage_error(deck_dir):
    for args in (["--kind", "essay"], ["--state", "nope"], ["--sort", "nope"]):
        assert quiz(deck_dir, "cards", *args, code=2).exit_code == 2


@pytest.mark.parametrize("query, expected", [
    ("掩码", {"ch-mask"}),  # Chinese, in a question
    ("负无穷", {"ch-mask"}),  # in the explanation
    ("bert", {"qa-bert", "cz-mask"}),  # Latin, any case
    ("ＢＥＲＴ", {"qa-bert", "cz-mask"}),  # full width
    ("next sentence", {"qa-bert"}),  # every word, in a key point
    ("DECODER-ONLY", {"mis-gpt"}),  # in a correction
    ("85%", {"cz-mask"}),  # a cloze note
    ("算一算", {"num-loss"}),  # a numeric card's prompt
    ("MLM loss", {"num-loss", "cz-mask"}),  # words anywhere in the card: cz-mask's note says loss
    ("ffn", {"qa-ffn"}),  # an id and a tag
    ("SQRT", {"o-attention"}),
    ("mask 15%", {"cz-mask"}),  # a tag and the text
    ("BERT预训练", {"qa-bert"}),  # Chinese beside Latin without a space: two terms (the text has one)
    ("「掩码」，softmax", {"ch-mask"}),  # punctuation typed around terms
    ("(", {"o-attention"}),  # punctuation alone is searched as typed: stripped, it matched every card
])
def test_search(deck_dir, query, expected):
    assert set(ids(as_json(deck_dir, "cards", "--search", query))) == expected


def test_search_goes_with_the_filters(deck_dir):
    assert ids(as_json(deck_dir, "cards", "--search", "bert", "--kind", "cloze")) == ["cz-mask"]


@pytest.mark.parametrize("state, expected", [
    ("new", {"num-loss", "qa-ffn", "o-attention"}),
    ("learning", {"mis-gpt", "cz-mask"}),
    ("review", {"qa-bert", "ch-mask"}),
    ("due", {"qa-bert", "mis-gpt", "cz-mask"}),
    ("suspended", {"num-loss"}),
    ("buried", {"qa-ffn"}),
    ("leech", {"cz-mask"}),
    ("mistake", {"ch-mask", "cz-mask"}),  # cz-mask: failed in study every 5 days
])
def test_states(studied, state, expected):
    assert set(ids(as_json(studied, "cards", "--state", state))) == expected


def test_the_state_column_names_the_state_and_its_flags(studied):
    rows = {row["id"]: row for row in as_json(studied, "cards")}
    assert rows["cz-mask"]["state"] == "relearning" and rows["cz-mask"]["leech"] and rows["cz-mask"]["lapses"] == 8
    assert rows["qa-bert"]["due_today"] and rows["qa-bert"]["recall"] < 0.9 and rows["qa-bert"]["stability"] > 1
    assert rows["o-attention"]["due"] is None and rows["o-attention"]["recall"] is None
    out = quiz(studied, "cards").stdout
    line = next(line for line in out.splitlines() if line.startswith("cz-mask"))
    assert "relearning, due, leech" in line and "%" in line
    line = next(line for line in out.splitlines() if line.startswith("ch-mask"))
    assert "review, mistake" in line



def test_the_rows_shown_say_whether_their_cards_are_in_the_notebook(studied, monkeypatch):
    """The notebook is read for the rows shown alone (all of it read every review of every card that
    lapsed twice: seconds at a million reviews), a statement's worth of cards at a time."""
    from quizzer.app import notebook
    from quizzer.store import models

    whole = {row["id"]: row["mistake"] for row in as_json(studied, "cards")}
    assert {card for card, noted in whole.items() if noted} == {"ch-mask", "cz-mask"}
    monkeypatch.setattr(models, "IDS_A_STATEMENT", 1)  # a statement per card: the parts join up
    for sort in ("lapses", "id", "due"):
        limited = as_json(studied, "cards", "--sort", sort, "--limit", "3")
        assert {row["id"]: row["mistake"] for row in limited} == {row["id"]: whole[row["id"]] for row in limited}
    everything = notebook.entries(open_store())
    some = ["cz-mask", "qa-bert", "ch-mask"]
    assert notebook.entries(open_store(), card_ids=some) == [entry for entry in everything if entry.card_id in some]
    assert notebook.entries(open_store(), card_ids=[]) == []


def test_limit_shows_the_first_cards_in_the_chosen_order_and_says_how_many_match(studied, monkeypatch):
    """The table shows TABLE_LIMIT cards unless --limit says otherwise (50,000 rows took 40 s to
    draw); the order is decided over every match first; --json lists them all by default."""
    from quizzer.cli import cards as command

    by_recall = ids(as_json(studied, "cards", "--sort", "recall"))
    assert len(by_recall) == len(IDS)
    assert ids(as_json(studied, "cards", "--sort", "recall", "--limit", "2")) == by_recall[:2]
    assert ids(as_json(studied, "cards", "--sort", "recall", "--limit", "0")) == by_recall

    out = quiz(studied, "cards", "--sort", "recall", "--limit", "2").stdout.splitlines()
    listed = [line.split()[0] for line in out[2:-1] if line.split() and line.split()[0] in IDS]
    assert listed == by_recall[:2] and out[-1] == f"the first 2 of {len(IDS)} cards; --limit 0 shows all"
    monkeypatch.setattr(command, "TABLE_LIMIT", 3)
    assert quiz(studied, "cards").stdout.splitlines()[-1] == f"the first 3 of {len(IDS)} cards; --limit 0 shows all"
    assert quiz(studied, "cards", "--limit", "0").stdout.splitlines()[-1] == f"{len(IDS)} cards"
    assert len(as_json(studied, "cards")) == len(IDS)  # a program gets every card
    assert quiz(studied, "cards", "--limit", "-1", code=2).exit_code == 2


WHOLE_IDS_FROM = 100  # columns: ch08-bert's ids (up to 40 characters) whole, the kind under the deck; narrower, short ids


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_listing_fits_the_terminal_with_every_recall_whole(language):
    """The bundled chapter 8 deck (ids up to 40 characters, questions in Chinese), three cards in
    learning: kind, deck, section and stability come in only where the rest stays whole beside
    them, and at any width every row ends in its recall and the header in the recall's name
    (rich, left to squeeze, pushed that last column past the edge at 60-65 and 110-128). Ids stay
    whole before those columns come in: from 100 columns every one of them (they folded at 24
    until 140 columns)."""
    from rich.cells import cell_len

    from quizzer.base import i18n

    assert runner.invoke(app, [], env={"QUIZ_NOW": T0.isoformat()}).exit_code == 0  # the bundled decks' cards
    store = open_store()
    for card_id in ("bert-vs-gpt-core", "bert-mlm-bidirectional-why", "bert-params-encoder-12-layers"):
        answer(store, card_id, 3, now=T0 - timedelta(minutes=5), duration_ms=5000)
    store.close()
    listed = json.loads(runner.invoke(app, ["cards", "--deck", "ch08-bert", "--json"]).stdout)
    for columns in (60, 65, 80, 100, 110, 120, 125, 140):
        i18n.use(language)
        try:
            out = runner.invoke(app, ["cards", "--deck", "ch08-bert", "--sort", "recall"],
                                env={"QUIZ_NOW": T0.isoformat(), "COLUMNS": str(columns)}).stdout.splitlines()
            recall = i18n._("recall")
        finally:
            i18n.use("en")
        assert all(cell_len(line) <= columns for line in out), columns
        assert out[0].rstrip().endswith(recall), columns
        shown = {line.split()[0] for line in out[2:] if line[:1].strip()}
        assert {row["id" if columns >= WHOLE_IDS_FROM else "short_id"] for row in listed} < shown, columns  # whole
        ends = [line.split()[-1] for line in out[2:] if line.rstrip().endswith(("%", " -"))]
        assert len(ends) >= len(listed) and ends[:3] == ["100%"] * 3, columns  # every row keeps its recall whole


def _by_column(line: str) -> list[str]:
    """The line's characters by terminal column: a wide character, then "" for its second column."""
    from rich.cells import cell_len

    return [part for char in line for part in (char, *[""] * (cell_len(char) - 1))]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_question_takes_two_lines_at_most_cut_with_an_ellipsis(language):
    """A row of the browser is a row: a long question stops at the end of its column's second
    line with "…" (it ran on for three at 60 columns, the last line one character and "…")."""
    from quizzer.base import i18n

    i18n.use(language)
    try:
        fronts = [row["front"] for row in json.loads(runner.invoke(app, ["cards", "--deck", "ch08-bert", "--json"]).stdout)]
        shown_at = {columns: runner.invoke(app, ["cards", "--deck", "ch08-bert", "-n", "0"],
                                           env={"COLUMNS": str(columns)}).stdout.splitlines() for columns in (60, 80, 120)}
        names = i18n._("front"), i18n._("state")
    finally:
        i18n.use("en")
    for columns, shown in shown_at.items():
        start, end = (len(_by_column(shown[0][:shown[0].index(name)])) for name in names)
        rows: list[list[str]] = []
        for line in shown[2:-1]:
            cells = _by_column(line) + [" "] * columns
            if "".join(cells[end:end + 4]).strip():  # a row's first line: its state
                rows.append([])
            if part := "".join(cells[start:end]).strip():
                rows[-1].append(part)
        assert len(rows) == len(fronts) > 100, columns
        cut = 0
        for lines, front in zip(rows, fronts):
            assert 1 <= len(lines) <= 2, (columns, lines)
            seen, whole = "".join(lines).replace(" ", ""), front.replace(" ", "")
            if seen != whole:
                cut += 1
                assert seen.endswith("…") and whole.startswith(seen[:-1]), (columns, lines, front)
        assert cut > 10, columns


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_narrow_listing_puts_a_card_s_states_one_a_line_never_splitting_one(studied, language):
    """At 60 columns `学习中、到期` wrapped as `学习中、到` / `期`."""
    from quizzer.base import i18n

    i18n.use(language)
    try:
        out = runner.invoke(app, ["cards", "--decks", str(studied)], env={"QUIZ_NOW": T0.isoformat(), "COLUMNS": "60"}).stdout
        words = {i18n._(name) for row in as_json(studied, "cards") for name in [row["state"]]
                 + [flag for flag in ("suspended", "buried", "leech", "mistake") if row[flag]] + (["due"] if row["due_today"] else [])}
    finally:
        i18n.use("en")
    cells = {part for line in out.splitlines() for part in line.split()}
    assert len(words) >= 5 and words <= cells, (words - cells, out)


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("widths", [range(61, 200, 6), pytest.param(range(60, 200), marks=pytest.mark.slow)],
                         ids=["every-6th", "every"])  # 103 among the fast suite's
def test_the_question_keeps_its_room_at_any_width_whatever_the_states(studied, language, widths):
    """The wide layout was judged by a card's longest single state, but draws its states on one
    line (`relearning, due, leech`): at 103 columns it came in and left the question 8 columns
    (`BERT 随` / `机选…`, `paddin` / `g 掩…`). (A whole command per width: the slow suite tries
    every one.)"""
    from quizzer.base import i18n
    from quizzer.terminal.tables import PREVIEW_AT_LEAST

    i18n.use(language)
    try:
        front, state = i18n._("front"), i18n._("state")
        narrowest, wide = {}, {}
        for columns in widths:
            header = runner.invoke(app, ["cards", "--decks", str(studied)],
                                   env={"QUIZ_NOW": T0.isoformat(), "COLUMNS": str(columns)}).stdout.splitlines()[0]
            cells = _by_column(header)
            start, end = cells.index(front[0]), cells.index(state[0])
            narrowest[columns] = end - start - 2  # the front column, less the two spaces before the state
            wide[columns] = "§" in header
    finally:
        i18n.use("en")
    squeezed = {c: w for c, w in narrowest.items() if w < PREVIEW_AT_LEAST}
    assert not {c for c in squeezed if wide[c] or c >= 80}, squeezed  # below, the ids' 12 columns come first


def test_sorts(studied):
    by_id = as_json(studied, "cards", "--sort", "id")
    assert ids(by_id) == sorted(IDS)
    by_due = as_json(studied, "cards", "--sort", "due")
    seen = [row for row in by_due if row["due"] is not None]
    assert [row["due"] for row in seen] == sorted(row["due"] for row in seen)
    assert all(row["due"] is None for row in by_due[len(seen):])  # new cards last
    assert ids(by_due)[len(seen):] == ["num-loss", "qa-ffn", "o-attention"]  # in deck order
    by_recall = as_json(studied, "cards", "--sort", "recall")
    recalls = [row["recall"] for row in by_recall if row["recall"] is not None]
    assert recalls == sorted(recalls) and len(recalls) == 4 and by_recall[-1]["recall"] is None
    assert ids(as_json(studied, "cards", "--sort", "lapses"))[0] == "cz-mask"
    assert ids(as_json(studied, "cards")) == ids(by_due)  # due is the default


@pytest.mark.parametrize("columns", [60, 200])
def test_sorted_by_lapses_the_table_shows_them(studied, columns):
    """`--sort lapses` put the rows in that order with no lapses column: the reason was unseen."""
    result = runner.invoke(app, ["cards", "--sort", "lapses", "--decks", str(studied)],
                           env={"QUIZ_NOW": T0.isoformat(), "COLUMNS": str(columns)})
    lines = result.stdout.splitlines()
    assert "lapses" in next(line for line in lines if line.startswith("card "))
    import hashlib

    hexed = hashlib.sha1(b"cz-mask").hexdigest()  # its short id is where the whole one does not fit
    first = next(line for line in lines if line[:1].strip() and line.split()[0] in ("cz-mask", hexed[:len(line.split()[0])]))
    assert re.search(r" 8 +\d+% *$", first), first  # its 8 lapses beside its recall
    assert "lapses" not in runner.invoke(app, ["cards", "--decks", str(studied)], env={"QUIZ_NOW": T0.isoformat()}).stdout


def test_the_option_choices_are_the_app_s():
    assert tuple(s.value for s in State) == browse.STATES
    assert tuple(s.value for s in Sort) == browse.SORTS


def test_the_front_is_one_line_whole_in_json_and_cut_at_two_lines_in_the_table(deck_folder):
    """--json gave the table's 40 columns too (`quiz mistakes --json`: "80/10/10 策略的根本目的是？ A. 加快预训…")."""
    folder = deck_folder(DECK.replace("FFN 的隐藏维度是多少？", "很长的问题" * 20 + "\\n第二行"))
    rows = {row["id"]: row for row in as_json(folder, "cards")}
    assert rows["qa-ffn"]["front"] == "很长的问题" * 20 + "\\n第二行"  # whole
    assert rows["mis-gpt"]["front"] == "A common claim: GPT 是 Encoder-only What is wrong with it, and why?"
    assert rows["cz-mask"]["front"].startswith("BERT 随机选 ［1］ 的 token")  # blanks hidden, as study asks
    table = runner.invoke(app, ["cards", "--decks", str(folder)], env={"COLUMNS": "100"}).stdout
    lines = table.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("qa-ffn"))
    assert lines[row + 1].rstrip().endswith("的…") and "第二行" not in table  # two lines of its column, cut marked
    assert "What is wrong with it, and why?" in table  # the other fits its two lines: whole


def test_no_card_matches(deck_dir):
    result = quiz(deck_dir, "cards", "--search", "zzz")
    assert result.stdout.strip() == "No cards match."
    assert as_json(deck_dir, "cards", "--search", "zzz") == []


# ------------------------------------------------------------------ show


def deck_card(deck_dir, card_id):
    return next(c for d in load_decks([deck_dir]) for c in d.deck.cards if c.id == card_id)


@pytest.mark.parametrize("card_id, front, back", [
    ("qa-bert", ["BERT 的预训练任务有哪些？"], ["MLM 和 NSP。", "Key points", "Next Sentence Prediction"]),
    ("ch-mask", ["padding 掩码加在哪里？", "A. softmax 之后", "C. 输出层"], ["在 softmax 之前加负无穷。"]),
    ("mis-gpt", ["A common claim", "GPT 是 Encoder-only"], ["In fact", "GPT 是 Decoder-only", "它用 causal mask"]),
    ("cz-mask", ["［1］", "［2］"], ["15%", "其余 85% 不算 loss。"]),
])
def test_show_gives_front_and_back_as_study_does(deck_dir, card_id, front, back):
    out = quiz(deck_dir, "show", card_id).stdout
    for text in front + back:
        assert text in out, text
    assert max(out.index(text) for text in front) < min(out.index(text) for text in back)  # front, then back
    assert "§1." in out and "Mini 牌组" in out and "No reviews yet." in out
    assert "due none yet (a new card) ·" in out  # it said "due new", and in Chinese "到期 新"


def test_a_choice_cards_explanation_is_headed_as_one(deck_dir):
    """Headed "Worked solution" (解题过程), like a numeric card's steps."""
    shown = quiz(deck_dir, "show", "ch-mask").stdout
    assert "在 softmax 之前加负无穷。" in shown and "Explanation" in shown and "Worked solution" not in shown
    wrong = quiz(deck_dir, "study", "--kind", "choice", input="a\n\nq\n").stdout  # answered wrong: the explanation
    assert "Explanation" in wrong and "Worked solution" not in wrong


def test_show_a_numeric_card_with_a_seed(deck_dir):
    first = quiz(deck_dir, "show", "num-loss", "--seed", "7").stdout
    again = quiz(deck_dir, "show", "num-loss", "--seed", "7").stdout
    assert first == again and "seed 7" in first
    asked = kinds.of(card := deck_card(deck_dir, "num-loss")).ask(card, 7)
    assert "算一算 MLM loss。" in first and asked.drawn.answer_text in first and "Worked solution" in first
    other = quiz(deck_dir, "show", "num-loss", "--seed", "8").stdout
    assert other != first
    shown = as_json(deck_dir, "show", "num-loss", "--seed", "7")
    assert shown["seed"] == 7 and shown["back"] == asked.drawn.answer_text and shown["solution"] == asked.drawn.solution
    refused = quiz(deck_dir, "show", "qa-bert", "--seed", "7", code=2)  # a card with no question to draw: passed over
    assert refused.stderr.startswith("Error: --seed picks a numeric card's question: qa-bert is a Q&A card")


def test_show_draws_a_numeric_question_before_its_solution_is_worked_out(deck_dir, monkeypatch):
    """`quiz show` of a numeric card worked its solution out (importing torch) before drawing
    anything: the question is printed first, and the checker's solve runs after it."""
    from checkers import registry

    checker = registry.get("mlm_loss")
    events: list[str] = []
    solve = checker.finish
    monkeypatch.setattr(checker, "finish", lambda draft: (events.append("solved"), solve(draft))[1])
    import quizzer.cli.card as card_command

    draw_question = card_command._draw_question

    def drawn(*args):
        draw_question(*args)
        events.append("question drawn")

    monkeypatch.setattr(card_command, "_draw_question", drawn)
    out = quiz(deck_dir, "show", "num-loss", "--seed", "7").stdout
    assert events == ["question drawn", "solved"], events
    assert out.index("算一算 MLM loss。") < out.index("Worked solution")


def test_show_has_memory_state_and_history(studied):
    out = quiz(studied, "show", "cz-mask").stdout
    assert "stability" in out and "recall now" in out and "lapses 8" in out and "leech" in out
    assert out.count(" study ") == 16  # one history row per review
    shown = as_json(studied, "show", "cz-mask")
    assert shown["lapses"] == 8 and shown["leech"] and len(shown["reviews"]) == 16
    assert {"reviewed_at", "mode", "rating", "correct", "answer", "seed", "duration_ms", "scheduled"} == set(shown["reviews"][0])


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_show_wraps_a_long_answer_in_its_history_without_cutting_a_word(deck_dir, columns):
    """At 80 columns rich cut `ELECTRA` to `ELECTR…` mid-answer, then went on with the next line."""
    typed = "RoBERTa 改训练，ALBERT 压参数，DistilBERT 蒸馏，ELECTRA 改目标"
    quiz(deck_dir, "cards")  # the collection, synced
    answer(open_store(), "qa-bert", 3, now=T0 - timedelta(hours=1), duration_ms=2800, mode="exam", answer_text=typed)
    result = runner.invoke(app, ["show", "qa-bert", "--decks", str(deck_dir)],
                           env={"QUIZ_NOW": T0.isoformat(), "COLUMNS": str(columns)})
    assert result.exit_code == 0 and "…" not in result.stdout, result.stdout
    lines = result.stdout.splitlines()
    header = next(line for line in lines if line.startswith("┃") and " answer " in line)
    at = [part.strip() for part in header.split("┃")].index("answer")  # at 60 columns a column or two gave way
    rows = [line.split("│") for line in lines[lines.index(header):] if line.count("│") == header.count("┃")]
    assert "".join(row[at].strip() for row in rows).replace(" ", "") == typed.replace(" ", ""), result.stdout
    assert all(re.fullmatch(r"(\d{4}-\d\d-\d\d)? ?(\d\d:\d\d)?", row[1].strip()) for row in rows), result.stdout  # dates whole


def test_show_unknown_card_is_one_error_line(deck_dir):
    for command in ("show", "card"):
        result = quiz(deck_dir, command, "nope", code=1)
        assert result.stderr.strip().splitlines() == [
            "Error: no card 'nope' (`quiz cards` lists the cards; card ids are in the deck files)"]


def test_an_unknown_card_names_the_ids_closest_to_it(deck_dir):
    """`quiz show bert-no-mas` said only that there was no such card, as git or Anki's search would
    not: a typo, or an id typed in part, is named with the ids it is closest to."""
    typo = quiz(deck_dir, "show", "qa-bret", code=1).stderr
    assert "Error: no card 'qa-bret' (did you mean qa-bert" in typo and "`quiz cards` lists the cards" in typo
    start = quiz(deck_dir, "generate", "--card", "num-l", "--seed", "1").stdout  # the start of one card's id names it
    assert start == quiz(deck_dir, "generate", "--card", "num-loss", "--seed", "1").stdout


def test_unbury_puts_a_buried_card_back_into_todays_drill(studied):
    """A card buried by mistake stayed out until tomorrow: only --unsuspend was there."""
    def new_today() -> int:
        return json.loads(quiz(studied, "--json").stdout)["total"]["new"]

    before = new_today()
    unburied = quiz(studied, "show", "qa-ffn", "--unbury").stdout
    assert unburied.rstrip().endswith("Unburied qa-ffn: it is back in today's drill.")
    assert as_json(studied, "show", "qa-ffn")["buried_until"] is None and new_today() == before + 1
    again = quiz(studied, "show", "qa-ffn", "--unbury").stdout
    assert again.rstrip().endswith("qa-ffn was not buried: nothing changed.")


def test_card_is_a_hidden_alias_of_show_with_unsuspend(studied):
    assert quiz(studied, "card", "qa-bert").stdout == quiz(studied, "show", "qa-bert").stdout
    assert as_json(studied, "card", "num-loss", "--seed", "1") == as_json(studied, "show", "num-loss", "--seed", "1")
    help_text = runner.invoke(app, ["--help"], env={"COLUMNS": "200"}).stdout
    listed = {line.split()[0] for line in help_text.splitlines() if line.startswith("  ") and line.strip()}
    assert "show" in listed and "card" not in listed
    assert as_json(studied, "show", "num-loss", "--seed", "1")["suspended"]
    unsuspended = quiz(studied, "show", "num-loss", "--seed", "1", "--unsuspend").stdout  # it said nothing of it
    assert unsuspended.rstrip().endswith("Unsuspended num-loss: it is back in the drill.")
    assert as_json(studied, "show", "num-loss", "--seed", "1")["status"] == "active"
    again = quiz(studied, "card", "num-loss", "--seed", "1", "--unsuspend")  # the old spelling
    assert again.exit_code == 0 and again.stdout.rstrip().endswith("num-loss was not suspended: nothing changed.")


# ------------------------------------------------------------------ mistakes


def test_mistakes_show_the_question(studied):
    out = quiz(studied, "mistakes").stdout
    assert "ch-mask" in out and "padding 掩码加在哪里？" in out
    row, lapser = as_json(studied, "mistakes")  # the exam's, then study's own lapses (8, every 5 days)
    assert (lapser["id"], lapser["times_wrong"], lapser["sources"]) == ("cz-mask", 8, ["study"])
    assert row["id"] == "ch-mask" and row["front"].startswith("padding 掩码加在哪里？")
    assert row["times_wrong"] == 1 and row["last_wrong_answer"] == "A" and row["right_days_needed"] == 2
    narrow = runner.invoke(app, ["mistakes", "--decks", str(studied)], env={"QUIZ_NOW": T0.isoformat(), "COLUMNS": "80"})
    header = " ".join(narrow.stdout.split("──")[0].split())  # a header may take two lines
    assert header.count("wrong") == 2 and "answer" in header, narrow.stdout  # "answer" alone read as the right one
    # 0/2 stayed 0/2 after a right drill on the day of the mistake, with nothing saying why
    assert "right on 2 study days after its last mistake (the day of the mistake does not count)" in " ".join(out.split())


def test_the_notebook_keeps_a_numeric_cards_question_as_it_was_got_wrong(deck_dir):
    """A numeric card's row read "(drawn afresh by `mlm_loss` every time)" beside the answer got
    wrong, and `quiz show` drew another question: both now give the one asked."""
    exam = quiz(deck_dir, "exam", "--kind", "numeric", "--count", "1", input="999\n").stdout
    [review] = as_json(deck_dir, "show", "num-loss", "--seed", "1")["reviews"]
    card = deck_card(deck_dir, "num-loss")
    asked = kinds.of(card).ask(card, review["seed"])
    assert f"The answer is {asked.drawn.answer_text}" in " ".join(exam.split())  # the seed is the question marked
    [row] = as_json(deck_dir, "mistakes")
    assert row["last_wrong_answer"] == "999" and row["seed"] == review["seed"]
    assert row["front"] == browse.one_line("算一算 MLM loss。\n\n" + asked.drawn.prompt)
    assert "quiz show CARD` works it out" in quiz(deck_dir, "mistakes").stdout
    shown = as_json(deck_dir, "show", "num-loss")
    assert shown["seed"] == review["seed"] and shown["back"] == asked.drawn.answer_text
    assert "The question you got wrong" in quiz(deck_dir, "show", "num-loss").stdout
    other = quiz(deck_dir, "show", "num-loss", "--seed", str(review["seed"] + 1)).stdout
    assert "The question you got wrong" not in other and f"seed {review['seed'] + 1}" in other


def test_a_later_wrong_answer_is_the_question_the_notebook_keeps(deck_dir):
    """Wrong again in the drill: the notebook's question is that one (its answer beside it)."""
    quiz(deck_dir, "exam", "--kind", "numeric", "--count", "1", input="999\n")
    first = as_json(deck_dir, "mistakes")[0]["seed"]
    quiz(deck_dir, "mistakes", "--drill", input="998\n", when=T0 + timedelta(days=1))
    [exam, drill] = as_json(deck_dir, "show", "num-loss", "--seed", "1")["reviews"]
    assert exam["seed"] == first and drill["seed"] != first and drill["answer"] == "998"
    [row] = as_json(deck_dir, "mistakes", when=T0 + timedelta(days=1))
    assert row["seed"] == drill["seed"] and row["last_wrong_answer"] == "998" and row["times_wrong"] == 2


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("columns", [60, 80, 100, 120])
def test_a_long_card_id_in_the_notebook_folds_and_leaves_the_question_its_room(language, columns):
    """With `d12-batch-inference-needs-attention-mask` in the notebook the id was held whole and
    the question had 2 to 5 columns (`深度` / `学习…`) at every width up to 100."""
    import os
    import sqlite3

    from rich.cells import cell_len

    from quizzer.base import i18n
    from quizzer.terminal.tables import PREVIEW_AT_LEAST

    assert runner.invoke(app, [], env={"QUIZ_NOW": T0.isoformat()}).exit_code == 0  # the bundled decks' cards
    with sqlite3.connect(os.environ["QUIZ_DB"]) as db:
        db.executemany("INSERT INTO mistakes VALUES (?, 1, '2025-12-01 10:00:00.000000', 'x')",
                       [("d12-batch-inference-needs-attention-mask",), ("bert-vs-gpt-core",)])
    i18n.use(language)
    try:
        out = runner.invoke(app, ["mistakes"], env={"QUIZ_NOW": T0.isoformat(), "COLUMNS": str(columns)}).stdout
        question = i18n._("question")
    finally:
        i18n.use("en")
    lines = out.splitlines()
    header = next(line for line in lines if question in line)
    start = cell_len(header[:header.index(question)])
    after = header[header.index(question) + len(question):]
    width = cell_len(after) - cell_len(after.lstrip()) + cell_len(question)  # to the next header
    assert width >= PREVIEW_AT_LEAST + 2, out
    assert all(cell_len(line) <= columns for line in lines)
    assert start <= columns - PREVIEW_AT_LEAST


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("columns", [60, 80, 100, 120])
def test_an_id_the_notebook_has_room_for_is_never_folded(language, columns):
    """`d12-cloze-gpt2-pad-eos` (22 columns) was folded as `d12-cloze-gpt2-` / `pad-eos` at 80
    and 100 columns, where a column fewer (the wrong answer, the date) leaves it whole: an id is
    what `quiz show` takes, and a folded one cannot be copied."""
    import os
    import sqlite3

    from quizzer.base import i18n

    assert runner.invoke(app, [], env={"QUIZ_NOW": T0.isoformat()}).exit_code == 0  # the bundled decks' cards
    with sqlite3.connect(os.environ["QUIZ_DB"]) as db:
        db.executemany("INSERT INTO mistakes VALUES (?, 1, '2025-12-01 10:00:00.000000', ?)",
                       [("d12-cloze-gpt2-pad-eos", "eos_token; <|endoftext|>; attention_mask"), ("bert-vs-gpt-core", "x")])
    i18n.use(language)
    try:
        out = runner.invoke(app, ["mistakes"], env={"QUIZ_NOW": T0.isoformat(), "COLUMNS": str(columns)}).stdout
        answer_headers = (i18n._("last wrong answer"), i18n._("wrong answer"))
    finally:
        i18n.use("en")
    assert any(line.startswith("d12-cloze-gpt2-pad-eos ") for line in out.splitlines()), out
    if columns >= 80:  # and the wrong answer keeps its column where the id leaves it room
        assert any(header in out.split("──")[0] for header in answer_headers), out


def test_mistakes_json_does_not_go_with_drill(deck_dir):
    assert quiz(deck_dir, "mistakes", "--drill", "--json", code=2).exit_code == 2


# ------------------------------------------------------------------ the overview


def test_overview_new_is_capped_by_the_day_s_limit_with_a_total(deck_folder):
    many = "\n".join(f"  - {{id: n{i}, kind: qa, source: '1', question: Q{i}, answer: A, points: [p]}}"
                     for i in range(25))
    deck_folder(OTHER.replace("id: other", "id: many").replace("  - {id: o-attention", many + "\n  - {id: o-attention"),
                "many.yaml")
    folder = deck_folder(DECK)
    quiz(folder, "cards")  # sync
    store = open_store()
    answer(store, "n0", 3, now=T0 - timedelta(hours=1), duration_ms=1000)  # two new cards done today
    answer(store, "n1", 3, now=T0 - timedelta(hours=1), duration_ms=1000)
    result = runner.invoke(app, ["--decks", str(folder), "--json"], env={"QUIZ_NOW": T0.isoformat()})
    data = json.loads(result.stdout)
    decks = {row["deck"]: row for row in data["decks"]}
    assert decks["many"]["new_waiting"] == 24 and decks["many"]["new"] == 18  # 20 a day, 2 done
    assert decks["mini"]["new_waiting"] == decks["mini"]["new"] == 6
    assert data["total"] == {"new": 18, "new_waiting": 30, "learning": 2, "due": 0, "due_waiting": 0}
    assert set(data["decks"][0]) == {"deck", "title", "new", "new_waiting", "learning", "due", "due_waiting"}
    table = runner.invoke(app, ["--decks", str(folder)], env={"QUIZ_NOW": T0.isoformat(), "COLUMNS": "120"}).stdout
    assert re.search(r"^total\s+18\s+2\s+0$", table, re.MULTILINE), table  # new, learning, due
    assert re.search(r"^many\s.*\s18\s+\d+\s+\d+$", table, re.MULTILINE), table
    assert "(20 new cards a day; 30 not seen yet)" in table  # "30 waiting" read as 30 besides today's 18


def test_json_before_a_command_is_a_usage_error(deck_dir):
    result = runner.invoke(app, ["--json", "decks", "--decks", str(deck_dir)])
    assert result.exit_code == 2 and "quiz decks --json" in result.stderr


# ------------------------------------------------------------------ --json everywhere


def test_every_listing_has_json_with_its_documented_fields(studied):
    overview = json.loads(runner.invoke(app, ["--decks", str(studied), "--json"],
                                        env={"QUIZ_NOW": T0.isoformat()}).stdout)
    assert set(overview) == {"decks", "total", "new_per_day", "new_per_day_setting", "reviews_per_day", "interview", "practice",
                             "unfinished_exam"}
    decks = as_json(studied, "decks")
    assert {d["deck"] for d in decks} == {"mini", "other"}
    assert set(decks[0]) == {"deck", "title", "path", "kinds", "total"} and set(decks[0]["kinds"]) == set(kinds.KINDS)
    mini = next(d for d in decks if d["deck"] == "mini")
    assert mini["title"] == "Mini 牌组" and mini["total"] == 6 and mini["kinds"]["qa"] == 2
    cards = as_json(studied, "cards")
    assert set(cards[0]) == {"id", "short_id", "kind", "deck", "section", "front", "state", "due", "stability", "recall",
                             "lapses", "tags", "due_today", "suspended", "buried", "leech", "mistake"}
    shown = as_json(studied, "show", "qa-bert")
    assert set(shown) == {"id", "deck", "deck_title", "kind", "section", "tags", "status", "state", "due",
                          "stability", "difficulty", "recall", "lapses", "leech", "suspended", "buried_until",
                          "mistake", "seed", "front", "back", "solution", "reviews"}
    assert shown["front"] == "BERT 的预训练任务有哪些？" and shown["state"] == "review"
    mistakes = as_json(studied, "mistakes")
    assert set(mistakes[0]) == {"id", "short_id", "front", "times_wrong", "last_wrong_at", "last_wrong_answer", "seed",
                                "right_days", "right_days_needed", "sources"}
    assert mistakes[0]["sources"] == ["exam"]
    [exam] = as_json(studied, "exam", "--history")
    assert set(exam) == {"id", "seed", "started_at", "finished_at", "minutes", "questions", "answered", "score",
                         "unfinished", "resumable", "filters"}
    assert exam["questions"] == exam["answered"] == 1 and exam["score"] == 0 and exam["filters"]["kinds"] == ["choice"]
    backups = json.loads(runner.invoke(app, ["backup", "list", "--json"]).stdout)
    assert backups and set(backups[0]) == {"path", "taken_at", "before_restore"}
    checkers = json.loads(runner.invoke(app, ["checkers", "--json"]).stdout)
    assert {"name", "description"} == set(checkers[0]) and "mlm_loss" in {c["name"] for c in checkers}


def test_json_is_utf8_unescaped(deck_dir):
    out = quiz(deck_dir, "cards", "--search", "掩码", "--json").stdout
    assert "掩码" in out and "\\u" not in out


def test_a_typed_control_character_reaches_json_escaped(deck_dir):
    """A typed exam answer holding U+009B (a CSI, as ESC [) went out raw in `quiz mistakes --json`
    (the table strips it): the JSON encoder escapes only U+0000-U+001F."""
    quiz(deck_dir, "exam", "--kind", "qa", "--deck", "mini", "--count", "1", input="\u009b31m答\n\n")  # no point covered
    out = quiz(deck_dir, "mistakes", "--json").stdout
    assert "\x9b" not in out and "\\u009b" in out
    assert json.loads(out)[0]["last_wrong_answer"].startswith("\x9b")


@pytest.mark.slow
def test_json_is_indented_at_a_terminal_and_one_line_in_a_pipe(deck_dir):
    piped = quiz(deck_dir, "decks", "--json").stdout
    assert piped.count("\n") == 1 and json.loads(piped)[0]["deck"] == "mini"
    code, screen = run_in_terminal(["decks", "--json", "--decks", str(deck_dir)], {}, [])
    assert code == 0 and json.loads(screen) == json.loads(piped)
    assert '\n  {\n    "deck": "mini",' in screen


def test_exam_json_goes_with_history(deck_dir):
    assert quiz(deck_dir, "exam", "--json", code=2).exit_code == 2


# ------------------------------------------------------------------ lint and empty listings


def test_a_clean_lint_says_what_it_checked(deck_dir):
    result = runner.invoke(app, ["lint", str(deck_dir)])
    assert result.exit_code == 0 and result.stdout == "2 decks, 7 cards: no problems\n"
    one = runner.invoke(app, ["lint", str(deck_dir / "other.yaml"), str(deck_dir / "other.yaml")])
    assert one.stdout == "1 deck, 1 card: no problems\n"


def test_empty_listings_say_so(deck_dir, tmp_path):
    assert runner.invoke(app, ["backup", "list"]).stdout.strip().startswith("No backups yet")
    assert as_json(deck_dir, "mistakes") == [] and as_json(deck_dir, "exam", "--history") == []
    assert "The mistakes notebook is empty." in quiz(deck_dir, "mistakes").stdout
    assert "No exams yet" in quiz(deck_dir, "exam", "--history").stdout
    assert as_json(deck_dir, "cards", "--state", "leech") == []
    assert quiz(deck_dir, "cards", "--state", "leech").stdout.strip() == "No cards match."
    empty = tmp_path / "empty"
    empty.mkdir()
    assert quiz(empty, "decks").stdout.startswith("No decks")
    assert as_json(empty, "decks") == []
    # study said nothing was due and suggested --ahead, the browser that no card matched, the exam
    # that the filters were too narrow: there are no decks
    for args in (["study"], ["cards"], ["cards", "--search", "x"]):
        assert quiz(empty, *args).stdout.startswith("No decks: the deck folders hold no deck files"), args
    refused = quiz(empty, "exam", code=1)
    assert refused.stderr.startswith("Error: no decks: the deck folders hold no deck files")


def test_a_card_failed_hours_ago_is_not_recalled_for_sure(deck_dir):
    """Recall now counted whole days elapsed (as py-fsrs's own figure does): a card failed at
    10:00 was "100%" until 10:00 the next day, and came last among the weakest. It is the
    forgetting curve on the time elapsed, in the browser, `quiz show` and the weakest cards."""
    import fsrs

    quiz(deck_dir, "cards")  # the decks' cards into the store
    store = open_store()
    answer(store, "qa-bert", 1, now=T0, duration_ms=1000)
    store.close()
    later = T0 + timedelta(hours=23, minutes=59)
    shown = as_json(deck_dir, "show", "qa-bert", when=later)
    card = fsrs.Card(state=fsrs.State.Learning, stability=shown["stability"], last_review=T0)
    expected = recall_now(fsrs.Scheduler(), card, later)
    assert expected < 0.9 and shown["recall"] == pytest.approx(expected, rel=1e-9)
    row = next(r for r in as_json(deck_dir, "cards", when=later) if r["id"] == "qa-bert")
    [weakest] = [w for w in as_json(deck_dir, "stats", when=later)["weakest_cards"] if w["card_id"] == "qa-bert"]
    assert row["recall"] == pytest.approx(expected, rel=1e-9) and weakest["recall"] == pytest.approx(expected, rel=1e-9)


def test_recall_follows_the_fitted_parameters(studied):
    """After `quiz optimize` stored parameters, the browser and `quiz show` give recall on the
    learner's own forgetting curve (fsrs's, with those parameters), not the defaults'."""
    import os

    import fsrs

    from quizzer.store import learner

    fitted = (0.2, 1.2, 3.1, 15.7, 7.2, 0.5, 1.5, 0.005, 1.5, 0.12, 1.0, 1.9, 0.1, 0.3, 2.3, 0.2, 2.9, 0.5, 0.3,
              0.05, 0.6)  # a decay (the last) far from the default 0.1542
    shown = as_json(studied, "show", "qa-bert")
    card = fsrs.Card(state=fsrs.State.Review, stability=shown["stability"],
                     last_review=datetime.fromisoformat(shown["reviews"][-1]["reviewed_at"]))
    assert shown["recall"] == pytest.approx(fsrs.Scheduler().get_card_retrievability(card, T0))
    store = open_store(os.environ["QUIZ_DB"])
    learner.save_parameters(store, fitted, T0)
    store.close()
    expected = fsrs.Scheduler(parameters=fitted).get_card_retrievability(card, T0)
    assert expected < shown["recall"] - 0.01  # the two curves differ here
    assert as_json(studied, "show", "qa-bert")["recall"] == pytest.approx(expected)
    row = next(r for r in as_json(studied, "cards") if r["id"] == "qa-bert")
    assert row["recall"] == pytest.approx(expected)


def test_show_puts_the_tags_on_a_line_of_their_own(deck_dir):
    """At 60 columns the header ended `正常  标` and the next line began `签：attention、…`."""
    shown = runner.invoke(app, ["show", "qa-bert", "--decks", str(deck_dir)], env={"COLUMNS": "60"})
    lines = shown.stdout.splitlines()
    assert lines[1] == "tags: pretraining", lines[:3]


def test_show_names_the_kind_in_the_interface_language(deck_dir):
    """The Chinese header said `· qa ·` above a panel titled 问答题."""
    from quizzer.base import i18n

    i18n.use("zh")
    try:
        shown = runner.invoke(app, ["show", "qa-bert", "--decks", str(deck_dir)])
    finally:
        i18n.use("en")
    assert shown.exit_code == 0 and " · 问答题 · " in shown.stdout.splitlines()[0], shown.stdout


def test_undo_asks_a_numeric_card_the_same_question_again(deck_dir):
    """Undo drew a fresh question: a learner taking back a typo had another problem to solve."""
    out = quiz(deck_dir, "study", "--kind", "numeric", input="999\n!u\n998\n1\n").stdout  # after undo: the learner rates
    reviews = as_json(deck_dir, "show", "num-loss", "--seed", "1")["reviews"]
    assert [r["answer"] for r in reviews] == ["998"]  # the first answer taken back
    card = deck_card(deck_dir, "num-loss")
    answer = kinds.of(card).ask(card, reviews[0]["seed"]).drawn.answer_text
    assert re.findall(r"The answer is (\S+)", out) == [answer, answer]  # before the undo and after it


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("columns", [80, 100, 120, 125])
def test_the_bundled_decks_longest_id_is_whole_from_120_columns_beside_a_due_time(language, columns):
    """`d12-bert-bidirectional-not-two-unidirectional` (45 characters) folded below 106 columns
    once a card was due at a time of day (`2026-01-05 10:05` kept 16 columns): the time now goes
    under the date there, as docs/cli.md says (whole, beside its deck, from 120 columns; its short
    id below)."""
    import hashlib

    from quizzer.base import i18n

    card_id = "d12-bert-bidirectional-not-two-unidirectional"
    assert runner.invoke(app, [], env={"QUIZ_NOW": T0.isoformat()}).exit_code == 0  # the bundled decks' cards
    store = open_store()
    answer(store, card_id, 3, now=T0 - timedelta(minutes=5), duration_ms=5000)  # learning: due in minutes
    store.close()
    i18n.use(language)
    try:
        out = runner.invoke(app, ["cards", "--search", "bidirectional"],
                            env={"QUIZ_NOW": T0.isoformat(), "COLUMNS": str(columns)}).stdout
    finally:
        i18n.use("en")
    hexed = hashlib.sha1(card_id.encode()).hexdigest()
    shown = card_id if columns >= 120 else next(hexed[:n] for n in range(4, 41) if f"\n{hexed[:n]} " in out)
    assert f"\n{shown} " in out and "day12-bert-gpt" in out and max(map(len, out.splitlines())) <= columns, out


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("columns", [60, 80, 100, 120, 160])
def test_the_tables_name_each_kind_as_study_and_exam_do(language, columns):
    """`quiz decks` headed its columns `qa choice mistake numeric cloze`, and `quiz cards` (from
    150 columns) said `numeric` under 题型, where study and exam say 计算题: the kind ids in a
    Chinese interface. --json keeps the ids."""
    from rich.cells import cell_len

    from quizzer.base import i18n

    i18n.use(language)
    try:
        decks = runner.invoke(app, ["decks"], env={"COLUMNS": str(columns)}).stdout
        cards = runner.invoke(app, ["cards", "--kind", "numeric", "-n", "3"], env={"COLUMNS": str(columns)}).stdout
        titles = [kinds.title(kind) for kind in kinds.KINDS]
    finally:
        i18n.use("en")
    header = decks.split("────")[0].split()  # "common mistake" may take two lines
    assert titles[0] in header and titles[3] in header and not {"qa", "mistake"} & set(header) - set(titles[2].split()), decks
    assert "day12-bert-gpt " in decks and max(map(cell_len, decks.splitlines())) <= columns, decks  # ids whole as before
    if columns >= 150:
        assert f" {titles[3]} " in cards and (language == "en") == (" numeric " in cards), cards
    assert set(json.loads(runner.invoke(app, ["decks", "--json"]).stdout)[0]["kinds"]) == set(kinds.KINDS)
