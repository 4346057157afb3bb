"""``quiz serve``'s plan page sets and clears the interview (as ``quiz plan --date/--clear``), and
the today page's form studies the cards of a deck, tag and kind (as ``quiz study --deck --tag
--kind``)."""

from __future__ import annotations

import re
from datetime import date

import test_web
from test_web import T0, csrf, post

from conftest import MINI_DECK
from quizzer.app import plan as plans
from quizzer.settings import DEFAULTS

make_client = test_web.make_client  # the fixture: a client of the web drill over a fresh collection

TAGGED = MINI_DECK + """\
  - {id: a-qa, kind: qa, source: "1.1", question: 注意力问答, answer: a, points: [p], tags: [attention]}
  - {id: b-qa, kind: qa, source: "1.1", question: 其他问答, answer: b, points: [p]}
  - {id: a-choice, kind: choice, source: "1.1", question: 注意力选择, options: [甲, 乙], answer: A, explanation: 甲。,
     tags: [attention]}
  - {id: a-qa2, kind: qa, source: "1.1", question: 注意力问答二, answer: c, points: [p], tags: [attention]}
"""


def plan_post(client, **fields: str | list[str]):
    return client.post("/plan", data={"csrf": csrf(client.get("/plan").text), **fields})


def test_the_interview_is_set_from_the_plan_page(make_client):
    client = make_client()
    assert "No interview set." in client.get("/plan").text
    page = plan_post(client, action="set", day="2026-01-15", retention="0.9", deck="mini").text
    assert "2026-01-15 · 10 days left" in page and "<td>90%</td>" in page  # T0 is 2026-01-05
    shown = plans.status(client.opened, DEFAULTS, T0)  # the store, as `quiz plan` reads it
    assert shown is not None and shown.interview.day == date(2026, 1, 15)
    assert shown.interview.retention == 0.9 and shown.interview.decks == ("mini",)
    assert "Interview on 2026-01-15: 10 days left." in client.get("/").text


def test_an_empty_target_and_no_deck_ticked_are_the_defaults(make_client):
    client = make_client()
    plan_post(client, action="set", day="2026-02-01", retention="")
    shown = plans.status(client.opened, DEFAULTS, T0)
    assert shown is not None and shown.interview.retention == 0.95 and shown.interview.decks is None


def test_the_interview_is_cleared_from_the_plan_page(make_client):
    client = make_client()
    plan_post(client, action="set", day="2026-01-15")
    page = plan_post(client, action="clear").text
    assert "No interview set." in page and plans.status(client.opened, DEFAULTS, T0) is None


def test_a_bad_plan_is_refused_with_the_field_named_and_nothing_set(make_client):
    client = make_client()
    for fields, said in [({"day": "2026-01-05"}, "The interview&#39;s day: 2026-01-05 is not after today (2026-01-05)"),
                         ({"day": "15.1."}, "The interview&#39;s day &#39;15.1.&#39; is not a date"),
                         ({"day": "2040-01-15"}, "2040-01-15 is more than 10 years away"),
                         ({"day": "2026-01-15", "retention": "1.5"}, "The target recall must be a number from 0.70"),
                         ({"day": "2026-01-15", "deck": "nope"}, "nope")]:
        refused = plan_post(client, action="set", **fields)
        assert refused.status_code == 400 and said in refused.text, refused.text
    assert plans.status(client.opened, DEFAULTS, T0) is None


def test_the_today_page_offers_each_deck_tag_and_kind_to_study(make_client):
    page = make_client(TAGGED).get("/").text
    form = page[page.index('action="/study"'):]
    assert re.findall(r'<select name="(\w+)">', form) == ["deck", "tag", "kind"]
    assert '<option value="attention">attention</option>' in form and '<option value="mini">Mini</option>' in form
    assert '<option value="choice">' in form and '<option value="numeric">' in form


def test_study_takes_only_the_cards_of_the_tag_and_kind_chosen(make_client):
    client = make_client(TAGGED)
    page = client.get("/study", params={"deck": "", "tag": "attention", "kind": "qa"}).text
    shown = []
    while 'value="reveal"' in page:
        shown += re.findall(r"<code>([\w-]+)</code>", page)
        page = post(client, page, action="reveal").text
        page = post(client, page, action="rate", rating="4").text
    assert shown == ["a-qa", "a-qa2"]  # tagged attention and qa: not b-qa (no tag), not a-choice (a choice)


def test_an_unknown_tag_is_a_page_that_names_the_known_ones(make_client):
    shown = make_client(TAGGED).get("/study", params={"tag": "nope"})
    assert shown.status_code == 400 and "nope" in shown.text and "attention" in shown.text


def test_the_plan_page_says_first_when_the_target_is_out_of_reach(make_client):
    """The page said the reviews a day were more than the limit, never that the target was out of
    reach at it, nor what limit would reach it: the same words as `quiz plan`, above the figures."""
    client = make_client()
    page = plan_post(client, action="set", day="2026-01-06", retention="0.99").text  # tomorrow: no time to be stable
    shown = plans.status(client.opened, DEFAULTS, T0)
    said = shown and plans.out_of_reach(shown)
    assert said and "however many reviews are done" in said
    assert page.index("The target is out of reach however many reviews") < page.index("Recalled on the day")
    assert "out of reach" not in plan_post(client, action="set", day="2026-03-01", retention="0.9").text


def test_the_plan_page_names_the_strength_read_off_the_learners_reviews(make_client):
    """With 1,200 reviews on later days, all forgotten, the plan page says how long the learner's
    memories last against the model's (a strength well under it) and from how many reviews, the
    count grouped; with no review it says nothing of it."""
    from datetime import timedelta

    from quizzer.app.review_history import import_reviews
    from quizzer.store.history import LoggedReview

    client = make_client()
    plan_post(client, action="set", day="2026-01-15")
    assert "Your memories last" not in client.get("/plan").text
    reviews = [LoggedReview(f"old-{card}", 3 if day == 0 else 1, T0 - timedelta(days=60 - 3 * day, minutes=card), 4000)
               for card in range(300) for day in range(5)]
    import_reviews(client.opened, reviews, DEFAULTS)
    page = client.get("/plan").text
    found = re.search(r"Your memories last</th><td>(\d+)% of the model&#39;s, from ([\d,]+) reviews", page)
    assert found is not None, page
    assert int(found.group(1)) < 50 and found.group(2) == "1,200"  # each card's four later-day reviews
