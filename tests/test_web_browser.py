"""``quiz serve`` in a real browser (Debian's chromium and chromium-driver through Selenium) at a
phone's 375×812 viewport: today, then a card of each kind studied with the keys and the
buttons, no page wider than the screen, a screenshot of each in ``test-artifacts/web/``."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from conftest import MINI_DECK

pytestmark = pytest.mark.slow

selenium = pytest.importorskip("selenium")
uvicorn = pytest.importorskip("uvicorn")
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts" / "web"
T0 = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync")

DECK = MINI_DECK + """\
  - id: q-one
    kind: qa
    source: "1.1"
    question: 缩放点积注意力为什么要除以 $\\sqrt{d_k}$？一个很长的不换行的词 supercalifragilisticexpialidocious_and_more_and_more
    answer: "点积的方差随 $d_k$ 增大：$$\\\\mathrm{softmax}\\\\left(\\\\frac{QK^T}{\\\\sqrt{d_k}}\\\\right)V$$"
    points: [方差, softmax 饱和]
  - {id: m-one, kind: mistake, source: "1.2", claim: BERT 是自回归模型, correction: BERT 是双向编码器, why: 它用 MLM 训练}
  - id: c-one
    kind: choice
    source: "1.3"
    question: BERT 预训练的任务是？
    options: [MLM 和 NSP, 只有 CLM, 翻译]
    answer: A
    explanation: "| 任务 | 说明 |\\n| --- | --- |\\n| MLM | 遮盖 15% 的 token |\\n| NSP | 下一句预测 |"
  - id: z-one
    kind: cloze
    source: "1.4"
    text: BERT 随机选 {{c1::15%}} 的 token，其中 {{c2::80%}} 换成 [MASK]。
  - {id: n-one, kind: numeric, source: "1.5", checker: mlm_loss, params: {}, prompt: 算一算 MLM loss。}
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def served(deck_folder, monkeypatch, tmp_path):
    from quizzer.app.collection import open_collection
    from quizzer.settings import DEFAULTS
    from quizzer.web.server import create_app

    monkeypatch.setenv("QUIZ_NOW", T0.isoformat())
    monkeypatch.setenv("QUIZ_LANG", "zh")
    opened = open_collection(deck_folder(DECK), tmp_path / "web.db")
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(opened, DEFAULTS), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture
def browser():
    if CHROMIUM is None or DRIVER is None:
        pytest.skip("needs chromium and chromium-driver (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": 375, "height": 812, "pixelRatio": 2}})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def check(driver, name: str) -> None:
    """The page fits the phone's width; its screenshot is kept."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(ARTIFACTS / f"{name}.png"))
    width, inner = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert inner == 375 and width <= inner, f"{name}: {width} px wide on a {inner} px screen"
    # a table heading of one word is on one line: no "ne / w" or "学习 / 中" at 375 px
    split = driver.execute_script(
        "return [...document.querySelectorAll('th')].filter(th => th.textContent.trim() && !/\\s/.test(th.textContent.trim()))"
        ".filter(th => { const r = document.createRange(); r.selectNodeContents(th);"
        " return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size > 1; })"
        ".map(th => th.textContent.trim())")
    assert split == [], f"{name}: headings split over lines: {split}"


def next_page(driver, act) -> None:
    """``act``, then wait until the page it sends the browser to has loaded: the old page's
    window carries a mark the new one has not (asking chromium whether the old page's element
    went stale races with the navigation on a loaded machine)."""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    driver.execute_script("window.quizzerOldPage = true")
    act()
    WebDriverWait(driver, 30, ignored_exceptions=(WebDriverException,)).until(lambda d: d.execute_script(
        "return window.quizzerOldPage === undefined && document.readyState === 'complete'"))


def press(driver, keys: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    next_page(driver, lambda: ActionChains(driver).send_keys(keys).perform())


def click(driver, selector: str) -> None:
    from selenium.webdriver.common.by import By

    next_page(driver, lambda: driver.find_element(By.CSS_SELECTOR, selector).click())


def answer(driver, text: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    next_page(driver, lambda: driver.find_element(By.NAME, "answer").send_keys(text + Keys.ENTER))


def test_a_first_day_on_a_phone(served, browser):
    from selenium.webdriver.common.by import By

    browser.get(served + "/")
    assert "Mini" in browser.page_source
    check(browser, "1-today")
    click(browser, 'a[href="/study?deck=mini"]')
    assert "缩放点积注意力" in browser.page_source and browser.find_elements(By.TAG_NAME, "math")
    check(browser, "2-qa-front")
    press(browser, " ")  # Space reveals
    assert "softmax" in browser.find_element(By.CSS_SELECTOR, ".back").get_attribute("innerHTML")
    check(browser, "3-qa-back")
    sizes = [b.size for b in browser.find_elements(By.CSS_SELECTOR, "button.rating")]
    assert len(sizes) == 4 and all(s["height"] >= 44 and s["width"] >= 44 for s in sizes)
    press(browser, "3")  # Good
    assert "BERT 是自回归模型" in browser.page_source
    check(browser, "4-mistake-front")
    click(browser, '[data-key="reveal"]')  # the button, as a thumb would
    assert "BERT 是双向编码器" in browser.page_source
    press(browser, "3")
    assert "BERT 预训练的任务是" in browser.page_source
    check(browser, "5-choice-front")
    click(browser, 'button[name="pick"][value="A"]')  # a thumb on the letter
    assert "遮盖 15% 的 token" in browser.page_source  # the explanation's table
    check(browser, "6-choice-verdict")
    press(browser, " ")  # Space goes on after a verdict
    assert "［1］" in browser.page_source
    answer(browser, "15%; 80%")
    check(browser, "7-cloze-verdict")
    press(browser, " ")
    assert "算一算 MLM loss" in browser.page_source
    check(browser, "8-numeric-front")
    answer(browser, "9.999")
    assert browser.find_elements(By.CSS_SELECTOR, ".verdict.wrong .solution")
    assert "Wrong" not in browser.find_element(By.CSS_SELECTOR, ".verdict").text  # the checker's verdict, in Chinese
    check(browser, "9-numeric-solution")
    press(browser, "u")  # undo: the same question again
    assert "算一算 MLM loss" in browser.page_source and browser.find_elements(By.NAME, "answer")


def test_an_exam_and_the_notebook_on_a_phone(served, browser):
    from selenium.webdriver.common.by import By

    browser.get(served + "/exam")
    check(browser, "10-exam-start")
    count = browser.find_element(By.NAME, "count")
    count.clear()
    count.send_keys("5")
    click(browser, 'button[value="start"]')
    assert "第 1/5 题" in browser.page_source and browser.find_element(By.CSS_SELECTOR, ".clock").text == "30:00"
    check(browser, "11-exam-question")
    answer(browser, "")  # skipped
    assert "第 2/5 题" in browser.page_source
    click(browser, 'button[value="handin"]')
    if browser.find_elements(By.CSS_SELECTOR, 'button[value="report"]'):
        click(browser, 'button[value="report"]')
    assert browser.find_element(By.CSS_SELECTOR, "h1").text.endswith("0%")  # nothing answered
    check(browser, "12-exam-report")
    browser.get(served + "/mistakes")
    check(browser, "13-mistakes")
    browser.get(served + "/stats")
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.chart")) == 2
    check(browser, "14-stats")
    browser.get(served + "/cards?q=BERT")
    assert len(browser.find_elements(By.CSS_SELECTOR, ".notebook li")) == 3  # m-one, c-one, z-one name BERT
    check(browser, "15-cards")
    browser.get(served + "/cards?q=注意力")
    click(browser, 'a[href="/cards/q-one"]')
    check(browser, "16-card")
    browser.get(served + "/plan")
    check(browser, "17-plan")


def test_the_plan_form_and_the_study_filter_on_a_phone(served, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(served + "/plan")
    browser.execute_script("document.querySelector('input[name=day]').value = '2026-01-15'")  # the picker's pick
    click(browser, 'button[value="set"]')
    assert "2026-01-15 · 还剩 10 天" in browser.find_element(By.TAG_NAME, "td").text
    check(browser, "18-plan-set")
    browser.get(served + "/")
    Select(browser.find_element(By.NAME, "kind")).select_by_value("choice")
    check(browser, "19-today-choose")
    sizes = [s.size for s in browser.find_elements(By.CSS_SELECTOR, "select")]
    assert sizes and all(s["height"] >= 44 for s in sizes)
    click(browser, "form.choose button")
    assert "BERT 预训练的任务是" in browser.page_source  # the one choice card
    check(browser, "20-study-chosen")
    browser.get(served + "/link/not-a-token")
    check(browser, "21-link-spent")


def test_an_answer_that_waits_for_the_database_says_so_on_the_page(served, browser, monkeypatch):
    """A second after a rating is sent with no page back (the server waiting for the database),
    the page says the answer is being saved; the next page does not. (The browser runs no script
    while its page loads: the old page notes the notice shown in the tab's sessionStorage.)"""
    from quizzer.app import study

    browser.get(served + "/study?deck=mini")
    press(browser, " ")  # the back, with the rating buttons
    answer_now = study.answering.answer

    def slow_database(*args: object, **kwargs: object) -> object:
        time.sleep(3)  # the write lock or the server, had at last
        return answer_now(*args, **kwargs)

    monkeypatch.setattr(study.answering, "answer", slow_database)
    shown = "return !document.getElementById('waiting').hidden"
    assert browser.execute_script(shown) is False
    browser.execute_script("const notice = document.getElementById('waiting');"
                           "new MutationObserver(() => { if (!notice.hidden) sessionStorage.setItem('waited', 'yes'); })"
                           ".observe(notice, {attributes: true});")
    press(browser, "3")
    assert browser.execute_script("return sessionStorage.getItem('waited')") == "yes"
    assert "BERT 是自回归模型" in browser.page_source and browser.execute_script(shown) is False
