"""``quiz serve``'s pages, in process through Starlette's TestClient: today, study of every card
kind, a reload, the exam, the notebook, stats, the plan and the card browser (the security rules
are ``test_web_security.py``'s)."""

from __future__ import annotations

import re
import threading
from datetime import datetime, timezone

import pytest

from conftest import MINI_DECK
from test_app import DECK as APP_DECK

from quizzer.app.collection import open_collection
from quizzer.base import i18n
from quizzer.app.queue import Planned, plan_session
from quizzer.settings import DEFAULTS
from quizzer.store.filter import EVERYTHING

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from quizzer.web.server import create_app  # noqa: E402

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)

DECK = APP_DECK + """\
  - {id: n-one, kind: numeric, source: "1.5", checker: mlm_loss, params: {}, prompt: 算一算 MLM loss。}
  - {id: x-math, kind: qa, source: "1.6", question: '为什么除以 $\\sqrt{d_k}$', answer: 方差, points: [方差]}
"""
HOSTILE = MINI_DECK + """\
  - {id: evil, kind: qa, source: "1.1", question: "<script>alert(1)</script> <img src=x onerror=alert(2)>",
     answer: "<b onmouseover=alert(3)>x</b>", points: [p]}
"""


@pytest.fixture
def make_client(deck_folder, monkeypatch, tmp_path):
    monkeypatch.setenv("QUIZ_NOW", T0.isoformat())

    def make(deck: str = DECK, login: bool = False, kinds: tuple[str, ...] = ()) -> TestClient:
        opened = open_collection(deck_folder(deck), tmp_path / "web.db")
        client = TestClient(create_app(opened, DEFAULTS, login=login), follow_redirects=True)
        client.opened = opened  # type: ignore[attr-defined]
        return client

    return make


def csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, html
    return found[1]


def post(client: TestClient, page: str, **fields: str):
    return client.post("/study", data={"csrf": csrf(page), **fields})


def study_of(client: TestClient, kind: str) -> str:
    """The study page of a session over the cards of ``kind`` only (a deck per test would do too)."""
    page = client.get("/study?deck=mini").text
    for _ in range(6):  # self-rated cards are rated Good and graded ones given up until ``kind`` is on screen
        if f"· {kind}-" in page or f">{kind}-" in page:
            return page
        page = post(client, page, action="reveal").text if 'value="reveal"' in page else page
        if 'value="rate"' in page:
            page = post(client, page, action="rate", rating="3").text
        elif 'name="answer"' in page:
            page = post(client, page, action="answer", answer="").text
            page = post(client, page, action="next").text
    raise AssertionError(page)


def test_today_lists_each_deck_with_new_learning_and_due(make_client):
    client = make_client()
    page = client.get("/", headers={"accept-language": "en"}).text
    row = re.search(r'<a href="/study\?deck=mini">Mini</a></td>\s*<td class="n new">(\d+)</td>'
                    r'<td class="n learning">(\d+)</td><td class="n due">(\d+)</td>', page)
    assert row and row.groups() == ("6", "0", "0")  # six new cards, none seen


def test_the_pages_speak_the_browsers_language_unless_the_learner_chose(make_client, monkeypatch):
    client = make_client()
    monkeypatch.delenv("QUIZ_LANG")
    assert "<h1>今天</h1>" in client.get("/", headers={"accept-language": "zh-CN,zh;q=0.9,en;q=0.8"}).text
    assert "<h1>Today</h1>" in client.get("/", headers={"accept-language": "fr, en;q=0.5, zh;q=0.1"}).text
    monkeypatch.setenv("QUIZ_LANG", "zh")
    assert "<h1>今天</h1>" in client.get("/", headers={"accept-language": "en"}).text


def test_two_requests_at_once_are_each_wholly_in_their_own_language(make_client, monkeypatch):
    """An English and a Chinese request served at the same time (each in its own thread, both
    past choosing their language before either draws: their bodies wait on one barrier) each get
    a page in their own language only."""
    monkeypatch.delenv("QUIZ_LANG")
    app = make_client().app
    clients = {code: TestClient(app, headers={"accept-language": code}) for code in ("en", "zh")}
    tokens = {code: csrf(client.get("/exam").text) for code, client in clients.items()}
    before = i18n.current()
    for _ in range(5):
        barrier = threading.Barrier(2, timeout=10)
        pages: dict[str, str] = {}

        def sent_slowly(code: str):
            yield f"csrf={tokens[code]}&action=start".encode()
            barrier.wait()  # the other request has chosen its language too
            yield b"&minutes=nan"

        def refused(code: str) -> None:
            pages[code] = clients[code].post("/exam", content=sent_slowly(code), headers={
                "content-type": "application/x-www-form-urlencoded"}).text

        threads = [threading.Thread(target=refused, args=(code,)) for code in clients]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        english, chinese = pages["en"], pages["zh"]
        assert '<html lang="en">' in english and "minutes must be from" in english, english
        assert not re.search("[\u4e00-\u9fff]", english), english
        assert '<html lang="zh">' in chinese and "分钟数 必须在" in chinese and ">今天<" in chinese, chinese
        assert not re.search(r">(Today|Exam|Statistics)<|minutes must be", chinese), chinese
    assert i18n.current() == before  # the process's language, which the terminal speaks, is as it was


def test_a_qa_card_reveals_its_back_with_four_ratings_and_their_waits(make_client):
    client = make_client()
    page = client.get("/study?deck=mini").text
    assert "问题一" in page
    assert "答案一" not in page
    page = post(client, page, action="reveal").text
    assert "答案一" in page
    buttons = re.findall(r'data-key="(\d)" class="rating r\d">\s*<span>\d (\w+)</span><small>([^<]+)</small>', page)
    assert [(key, name) for key, name, _wait in buttons] == [("1", "Again"), ("2", "Hard"), ("3", "Good"), ("4", "Easy")]
    assert buttons[0][2] == "1m"  # Again: the first learning step (the settings' default, one minute)
    page = post(client, page, action="rate", rating="3").text
    assert "Saved: q-one" in page and "问题一" not in page


def test_an_answer_is_saved_before_the_next_card_and_a_reload_shows_the_same_card(make_client):
    client = make_client()
    page = client.get("/study?deck=mini").text
    page = post(client, page, action="reveal").text
    page = post(client, page, action="rate", rating="4").text
    again = client.get("/study").text
    assert again.count("m-one") and re.sub(r'value="[^"]{20,}"', "", again) == re.sub(r'value="[^"]{20,}"', "", page)
    planned = plan_session(client.opened, EVERYTHING, DEFAULTS, T0)  # the store, read afresh
    assert isinstance(planned, Planned) and "q-one" not in planned.queue


def test_a_choice_card_is_graded_with_its_explanation_and_another_rating_offered(make_client):
    client = make_client()
    page = study_of(client, "c")
    assert "选哪个" in page and 'placeholder="a letter"' in page
    page = post(client, page, action="answer", answer="x").text  # not an option: asked again, with why
    assert 'role="alert"' in page and "选哪个" in page
    page = post(client, page, action="answer", answer="b").text
    assert 'class="verdict right"' in page and "乙对。" in page
    assert 'value="next"' in page and page.count('class="rating r') == 4


def test_a_choice_card_takes_a_letter_picked_with_a_button(make_client):
    client = make_client()
    page = study_of(client, "c")
    assert re.findall(r'<button type="submit" name="pick" value="(\w)"', page) == ["A", "B", "C"]
    page = client.post("/study", data={"csrf": csrf(page), "action": "answer", "pick": "B"}).text
    assert 'class="verdict right"' in page


def test_a_cloze_card_takes_its_blanks_typed(make_client):
    client = make_client()
    page = study_of(client, "z")
    assert "［1］" in page and "15%" not in page
    page = post(client, page, action="answer", answer="15%; 70%; MASK").text
    assert 'class="verdict wrong"' in page


def test_math_is_typeset_as_mathml(make_client):
    page = study_of(make_client(), "x")
    assert re.search(r"为什么除以 <math [^>]*><mrow><msqrt><mrow><msub><mi>d</mi><mi>k</mi></msub>", page)


def test_a_mistake_card_reveals_the_correction(make_client):
    client = make_client()
    page = study_of(client, "m")
    assert "错误说法" in page and "正确说法" not in page
    assert "正确说法" in post(client, page, action="reveal").text


def test_a_numeric_card_is_drawn_fresh_and_graded_on_the_server_with_its_solution(make_client):
    client = make_client()
    page = study_of(client, "n")
    assert "算一算 MLM loss。" in page and 'placeholder="number / vector"' in page
    page = post(client, page, action="answer", answer="-12345").text
    assert 'class="verdict wrong"' in page and '<div class="solution">' in page


def test_bury_and_undo_through_the_buttons(make_client):
    client = make_client()
    page = client.get("/study?deck=mini").text
    page = post(client, page, action="bury").text
    assert "Buried until tomorrow: q-one" in page and "问题一" not in page
    page = post(client, page, action="undo").text
    assert "Undone: q-one" in page and "问题一" in page


def test_with_nothing_due_the_page_says_why(make_client, deck_folder, tmp_path):
    from quizzer.web.server import create_app

    opened = open_collection(deck_folder(DECK), tmp_path / "none.db")
    client = TestClient(create_app(opened, DEFAULTS.with_options(new_per_day=0)), follow_redirects=True)
    page = client.get("/study?deck=mini").text
    assert "Today&#39;s new cards are done (0 a day), and 6 more wait." in page


def test_finishing_shows_the_sessions_summary(make_client):
    client = make_client()
    page = client.get("/study?deck=mini").text
    page = post(client, page, action="reveal").text
    page = post(client, page, action="rate", rating="1").text
    page = post(client, page, action="quit").text
    assert "Session done" in page and "Reviewed 1, correct 0" in page


def test_an_unknown_deck_is_a_page_that_names_the_known_ones(make_client):
    shown = make_client().get("/study?deck=nope")
    assert shown.status_code == 400 and "nope" in shown.text and "mini" in shown.text


def test_the_mistakes_notebook_lists_an_exams_wrong_answer_and_drills_it(make_client):
    from test_app import Clock, answer_all, exam_of

    from quizzer.app import exam_views as exams

    client = make_client()
    assert "The mistakes notebook is empty." in client.get("/mistakes").text
    clock = Clock()
    machine = exam_of(client.opened, clock)
    views = answer_all(machine, {"q-one": "要点一", "m-one": "说反了", "c-one": "a", "z-one": "15%; 80%; [MASK]",
                                 "n-one": "0", "x-math": "方差"}, clock)
    while isinstance(views[-1], exams.MarkView):  # every point of a self-marked answer covered
        views = machine.handle(exams.Mark(",".join(str(n) for n in range(1, len(views[-1].points) + 1))))
    report = views[-1]
    assert isinstance(report, exams.Report)
    wrong = sorted(row.card_id for row in report.rows if row.score < 0.5)  # the report's own account
    page = client.get("/mistakes").text
    assert wrong and sorted(re.findall(r'<p class="meta"><code>([\w-]+)</code>', page)) == wrong
    drill = client.post("/mistakes", data={"csrf": csrf(page)}).text
    shown = re.search(r"<code>([\w-]+)</code></p>", drill)
    assert shown and shown[1] in wrong and 'name="answer"' in drill  # a notebook card, to answer again


def exam_post(client: TestClient, page: str, **fields) -> str:
    return client.post("/exam", data={"csrf": csrf(page), **fields}).text


def test_an_exam_is_answered_marked_and_reported(make_client):
    client = make_client()
    page = client.get("/exam").text
    assert 'value="start"' in page and 'value="resume"' not in page
    page = exam_post(client, page, action="start", count="6", minutes="30")
    asked = []
    while 'name="answer"' in page:
        number = re.search(r"Question (\d+) of 6", page)
        assert number and 'data-seconds="1800"' in page  # the clock stands still (QUIZ_NOW)
        asked.append(number[1])
        hint = re.search(r'placeholder="([^"]*)"', page)
        typed = {"a letter": "a", "3 blanks, separated by ;": "a; b; c", "number / vector": "1"}.get(hint[1], "x")
        page = exam_post(client, page, action="skip" if len(asked) == 1 else "answer", answer=typed)
        if len(asked) > 12:
            break
    assert asked[:6] == ["1", "2", "3", "4", "5", "6"] and asked[6:] == ["1"]  # the skipped one came round again
    while 'value="mark"' in page:  # the self-marked answers: no point ticked
        assert "Tick the key points" in page
        page = exam_post(client, page, action="mark")
    if 'value="report"' in page:
        page = exam_post(client, page, action="report")
    assert re.search(r"<h1>Exam \d+: \d+%</h1>", page) and page.count('<section class="card">') == 6


def test_an_exam_keeps_the_servers_time_across_a_lost_sitting(make_client, monkeypatch):
    from datetime import timedelta

    client = make_client()
    page = exam_post(client, client.get("/exam").text, action="start", count="3", minutes="10")
    assert "Question 1 of 3" in page
    client.cookies.clear()  # a new browser session: the sitting is found in the store
    page = client.get("/exam").text
    assert re.search(r'value="resume">Resume exam \d+', page)
    monkeypatch.setenv("QUIZ_NOW", (T0 + timedelta(minutes=11)).isoformat())  # the time ran out meanwhile
    page = exam_post(client, page, action="resume")
    assert "Time is up" in page and 'name="answer"' not in page


def test_an_exam_of_an_impossible_size_is_refused_on_the_page(make_client):
    client = make_client()
    shown = client.post("/exam", data={"csrf": csrf(client.get("/exam").text), "action": "start", "minutes": "nan"})
    assert shown.status_code == 400 and "minutes must be from" in shown.text


def test_bars_are_as_high_as_their_value_against_the_highest():
    from datetime import date

    from quizzer.web.charts import HEIGHT, bars

    chart = bars([(date(2026, 1, 5), 0), (date(2026, 1, 6), 5), (date(2026, 1, 7), 10)], width=30)
    assert [bar.height for bar in chart.bars] == [0, HEIGHT / 2, HEIGHT]
    assert [bar.y + bar.height for bar in chart.bars] == [HEIGHT] * 3  # standing on the same line
    assert [bar.x for bar in chart.bars] == [1, 11, 21] and chart.bars[1].label == "2026-01-06: 5"


def test_the_calendar_puts_each_day_under_its_weekday_and_shades_it_by_its_reviews():
    from datetime import date

    from quizzer.web.charts import CELL, calendar

    today = date(2026, 1, 7)  # a Wednesday
    days = calendar({today: 8, date(2026, 1, 5): 1, date(2026, 1, 4): 3}, today, weeks=2)
    assert len(days) == 7 + 3  # last week whole, this one to Wednesday
    assert (days[0].label, days[0].x, days[0].y) == ("2025-12-29: 0", 0, 0)  # a Monday, top left
    by_label = {day.label: day for day in days}
    assert (by_label["2026-01-07: 8"].x, by_label["2026-01-07: 8"].y, by_label["2026-01-07: 8"].level) == (CELL, 2 * CELL, 4)
    assert by_label["2026-01-05: 1"].level == 1 and by_label["2026-01-04: 3"].level == 2  # 3 of 8: above a quarter


def test_the_stats_page_draws_todays_reviews_and_the_forecast(make_client):
    client = make_client()
    page = client.get("/study?deck=mini").text
    for _ in range(2):
        page = post(client, page, action="reveal").text
        page = post(client, page, action="rate", rating="4").text
    stats = client.get("/stats").text
    assert re.search(r'<rect class="l4" [^>]*><title>2026-01-05: 2</title>', stats)
    assert '<td class="n">2</td><td class="n">6</td>' in stats  # mini: 2 in review of 6


def test_the_card_browser_finds_cards_by_their_words_and_shows_one(make_client):
    client = make_client()
    found = client.get("/cards", params={"q": "选哪个"}).text
    assert re.findall(r'<a href="/cards/([\w-]+)">', found) == ["c-one"] and "1 card" in found
    every = client.get("/cards").text
    assert len(re.findall(r'<a href="/cards/([\w-]+)">', every)) == 6  # test_app's four and the two added
    card = client.get("/cards/c-one").text
    assert "选哪个？" in card and "乙对。" in card and "<strong>B.</strong>" in card
    missing = client.get("/cards/no-such-card")
    assert missing.status_code == 400 and "no-such-card" in missing.text
    import hashlib

    short = hashlib.sha1(b"c-one").hexdigest()[:8]  # a short id, as `quiz cards` shows it, names the card too
    assert "选哪个？" in client.get(f"/cards/{short}").text


def test_the_plan_page_shows_the_interview_and_what_following_the_plan_gives(make_client):
    from datetime import date

    from quizzer.store import learner

    client = make_client()
    assert "No interview set" in client.get("/plan").text
    learner.save_interview(client.opened.store, learner.InterviewRecord(date(2026, 1, 15), 0.9, None))
    page = client.get("/plan").text
    assert "2026-01-15 · 10 days left" in page and "<td>90%</td>" in page
    assert re.search(r"<th>Cards at the target</th><td>\d+%</td>", page)
    assert "<th>Cards seen</th><td>0/6</td>" in page  # none seen yet, of six


def test_a_numeric_card_speaks_each_requests_language(make_client, monkeypatch):
    """In English the question's frame, its worked solution and the verdict hold no Chinese but the
    card's own prompt; the same server answers a Chinese request in Chinese at the same time."""
    monkeypatch.delenv("QUIZ_LANG")
    monkeypatch.setattr("quizzer.kinds.numeric.secrets.randbelow", lambda _: 0)  # seed 0: a question asking one position's loss
    client = make_client()
    client.headers["accept-language"] = "en"
    page = post(client, study_of(client, "n"), action="answer", answer="-12345").text
    shown = re.sub(r"<[^>]+>", " ", page.split('<main', 1)[-1]).replace("算一算 MLM loss。", "")
    assert "(natural logarithm)" in shown and not re.search("[\u4e00-\u9fff]", shown), shown
    assert "Answer:" in shown or 'class="solution"' not in page  # the worked solution, where the page shows it
    chinese = TestClient(client.app, follow_redirects=True, headers={"accept-language": "zh"})
    page = post(chinese, study_of(chinese, "n"), action="answer", answer="-12345").text
    assert "算一算 MLM loss。" in page and "（自然对数）" in page and "natural logarithm" not in page
    assert "答案：" in page or 'class="solution"' not in page
