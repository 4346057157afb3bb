"""``quiz export anki`` (an .apkg read back as Anki would: a zip holding an SQLite collection)
and ``quiz export markdown`` (the printable review sheet)."""

from __future__ import annotations

import json
import re
import sqlite3
import zipfile
from contextlib import closing
from pathlib import Path

import genanki
import numpy as np
import pytest
from typer.testing import CliRunner

from quizzer.cli import app

runner = CliRunner()

DECK = r"""id: mini
title: Mini 卡组
language: zh
source: {file: course.txt, sections: "1"}
cards:
  - id: q-one
    kind: qa
    source: "1.1"
    tags: [attention, bert]
    question: 为什么 $\sqrt{d_k}$ 缩放 <b>点积</b> & 分数？
    answer: |
      方差随 $d_k$ 增大：

      $$\mathrm{Var}(q \cdot k) = d_k$$
    points: [方差变大, softmax 饱和]
  - {id: c-one, kind: choice, source: "1.2", tags: [mask], question: 选哪个？, options: [甲, 乙, 丙], answer: B, explanation: 乙对。}
  - {id: m-one, kind: mistake, source: "1.3", claim: 错误说法, correction: 正确说法, why: 原因}
  - {id: z-one, kind: cloze, source: "1.4", text: "BERT Base 有 {{c1::12}} 层、{{c2::768::维度}} 维，共 {{c1::12}} 层。", note: 见 8.2。}
  - id: n-one
    kind: numeric
    source: "1.5"
    tags: [softmax]
    checker: masked_softmax
    params: {variant: padding, decimals: 4}
"""

# Anki's contract: these ids must never change (a new id is a new note type to Anki).
MODEL_IDS = {"qa": 1_733_100_001, "choice": 1_733_100_002, "mistake": 1_733_100_003,
             "numeric": 1_733_100_004, "cloze": 1_733_100_005}
SEEDS = (1, 2, 3)  # the documented variant seeds of a numeric card


def export(deck_dir: Path, target: Path, *args: str, now: str = "2026-01-05T10:00") -> None:
    result = runner.invoke(app, ["export", "anki", str(target), "--decks", str(deck_dir), *args], env={"QUIZ_NOW": now})
    assert result.exit_code == 0, result.output
    # 5 cards, the numeric one as 3 variants
    assert result.output.strip() == f"exported 5 cards as 7 Anki notes to {target}"


def read_package(path: Path) -> tuple[dict[str, dict], dict, dict]:
    """Notes by the card id in their Card field (fields by name, tags, guid, model), the models
    and the decks, read straight from the collection's SQLite file."""
    with zipfile.ZipFile(path) as package:
        assert "collection.anki2" in package.namelist()
        collection = path.with_suffix(".anki2")
        collection.write_bytes(package.read("collection.anki2"))
    connection = sqlite3.connect(collection)
    models_json, decks_json = connection.execute("SELECT models, decks FROM col").fetchone()
    models = json.loads(models_json)
    notes = {}
    for guid, mid, flds, tags in connection.execute("SELECT guid, mid, flds, tags FROM notes"):
        names = [field["name"] for field in models[str(mid)]["flds"]]
        fields = dict(zip(names, flds.split("\x1f")))
        notes[fields["Card"]] = dict(fields=fields, tags=tags.split(), guid=guid, model=mid)
    connection.close()
    return notes, models, json.loads(decks_json)


@pytest.fixture
def deck_dir(deck_folder) -> Path:
    return deck_folder(DECK)


@pytest.fixture
def package(deck_dir, tmp_path):
    target = tmp_path / "mini.apkg"
    export(deck_dir, target)
    return read_package(target)


def test_every_card_is_a_note_of_its_kinds_note_type_with_a_guid_from_its_id(package):
    notes, models, decks = package
    variants = [f"n-one (seed {seed})" for seed in SEEDS]
    assert sorted(notes) == sorted(["q-one", "c-one", "m-one", "z-one", *variants])
    for card_id, kind in [("q-one", "qa"), ("c-one", "choice"), ("m-one", "mistake"), ("z-one", "cloze")]:
        assert notes[card_id]["guid"] == genanki.guid_for(card_id)
        assert notes[card_id]["model"] == MODEL_IDS[kind]
    for seed, label in zip(SEEDS, variants):
        assert notes[label]["guid"] == genanki.guid_for("n-one", seed)
        assert notes[label]["model"] == MODEL_IDS["numeric"]
    assert {models[str(i)]["name"]: models[str(i)]["type"] for i in MODEL_IDS.values()} == {
        "quizzer qa": 0, "quizzer choice": 0, "quizzer mistake": 0, "quizzer numeric": 0, "quizzer cloze": 1}
    assert "Mini 卡组" in [deck["name"] for deck in decks.values()]


def test_fields_are_html_with_mathjax_math_escaped_markup_tags_and_section(package):
    notes, _, _ = package
    qa = notes["q-one"]
    assert qa["fields"]["Question"] == r"<p>为什么 \(\sqrt{d_k}\) 缩放 &lt;b&gt;点积&lt;/b&gt; &amp; 分数？</p>"
    assert qa["fields"]["Answer"] == (
        r"<p>方差随 \(d_k\) 增大：</p>" "\n" r"<p>\[\mathrm{Var}(q \cdot k) = d_k\]</p>" "\n"
        "<p><strong>Key points</strong></p>\n<ul>\n<li>方差变大</li>\n<li>softmax 饱和</li>\n</ul>")
    assert (qa["fields"]["Section"], qa["fields"]["Deck"], qa["tags"]) == ("1.1", "mini", ["attention", "bert"])
    choice = notes["c-one"]["fields"]
    assert "<li><strong>B.</strong> 乙</li>" in choice["Question"]
    assert (choice["Answer"], choice["Solution"]) == ("<p>B</p>", "<p>乙对。</p>")
    assert notes["c-one"]["tags"] == ["mask"]
    assert "正确说法" in notes["m-one"]["fields"]["Answer"] and "错误说法" in notes["m-one"]["fields"]["Question"]


def test_a_cloze_card_keeps_its_blanks_numbered_with_hints_for_ankis_cloze_type(package):
    notes, _, _ = package
    fields = notes["z-one"]["fields"]
    assert fields["Text"] == "<p>BERT Base 有 {{c1::12}} 层、{{c2::768::维度}} 维，共 {{c1::12}} 层。</p>"
    assert (fields["Extra"], fields["Section"]) == ("<p>见 8.2。</p>", "1.4")


def test_numeric_variants_are_different_questions_each_with_its_right_answer_and_solution(package):
    notes, _, _ = package
    prompts = set()
    for seed in SEEDS:
        fields = notes[f"n-one (seed {seed})"]["fields"]
        vectors = re.findall(r"<code>\[([^\]]*)\]</code>", fields["Question"])
        scores, mask = (np.array([float(x) for x in v.split(",")]) for v in vectors[:2])
        weights = np.where(mask == 1, np.exp(scores), 0.0)  # masked softmax, written out
        expected = weights / weights.sum()
        given = np.array([float(x) for x in re.search(r"\[([^\]]*)\]", fields["Answer"])[1].split(",")])
        assert given == pytest.approx(expected, abs=5e-5)  # 4 decimals asked
        assert fields["Solution"]  # the worked solution comes along
        prompts.add(fields["Question"])
    assert len(prompts) == len(SEEDS)


def test_the_package_is_compressed_as_ankis_own_are(deck_dir, tmp_path):
    """genanki stores the collection uncompressed: the bundled decks made a 650 KB package."""
    target = tmp_path / "mini.apkg"
    export(deck_dir, target)
    with zipfile.ZipFile(target) as package:
        entries = package.infolist()
        assert {entry.filename for entry in entries} == {"collection.anki2", "media"}
        assert all(entry.compress_type == zipfile.ZIP_DEFLATED for entry in entries)
        collection = next(entry for entry in entries if entry.filename == "collection.anki2")
        assert collection.compress_size < collection.file_size / 3


def test_every_kind_has_its_own_note_type_with_the_fixed_id():
    from quizzer.kinds import KINDS
    from quizzer.transfer.anki import NOTE_TYPES

    assert {name: note_type.model_id for name, note_type in NOTE_TYPES.items()} == MODEL_IDS
    assert set(MODEL_IDS) == set(KINDS)  # a new kind needs a note type (and a new fixed id) here


def test_exporting_again_later_or_after_an_edit_keeps_every_guid(deck_dir, tmp_path, package):
    notes, _, _ = package
    (deck_dir / "mini.yaml").write_text(DECK.replace("选哪个？", "到底选哪个？"), "utf-8")
    again = tmp_path / "again.apkg"
    export(deck_dir, again, now="2026-03-01T08:00")
    notes_again, _, _ = read_package(again)
    assert {k: v["guid"] for k, v in notes_again.items()} == {k: v["guid"] for k, v in notes.items()}
    assert "到底选哪个？" in notes_again["c-one"]["fields"]["Question"]  # an update, not a copy


def test_export_of_one_deck_an_unknown_deck_and_an_unwritable_file(deck_dir, tmp_path):
    result = runner.invoke(app, ["export", "anki", str(tmp_path / "x.apkg"), "--decks", str(deck_dir), "--deck", "nope"])
    assert result.exit_code == 2 and "no deck 'nope'" in result.output
    missing = tmp_path / "no-such-folder" / "x.apkg"
    result = runner.invoke(app, ["export", "anki", str(missing), "--decks", str(deck_dir)])
    assert result.exit_code == 1 and f"{missing}: cannot be written" in result.output
    assert not (tmp_path / "no-such-folder").exists()
    result = runner.invoke(app, ["export", "anki", str(tmp_path / "x.txt"), "--decks", str(deck_dir)])
    assert result.exit_code == 2 and "Anki imports a package named .apkg (e.g. x.apkg)" in result.output
    assert not (tmp_path / "x.txt").exists()  # it wrote a package Anki's import would not offer


@pytest.mark.parametrize("command", [["export", "anki"], ["history", "export"], ["export", "markdown", "--out"]])
def test_no_export_writes_over_the_database_or_a_nameless_file(deck_dir, command, tmp_path):
    """Exporting onto the database replaced the collection with the export (exit 0); an empty
    name was a traceback."""
    import os

    assert runner.invoke(app, ["--decks", str(deck_dir)]).exit_code == 0  # the database exists
    database = Path(os.environ["QUIZ_DB"])

    def rows() -> list[str]:  # its content, WAL included (the bytes move whenever a checkpoint runs)
        with closing(sqlite3.connect(database)) as conn:
            return list(conn.iterdump())

    before = rows()
    for target in (database, Path(f"{database}-wal"), database.parent / "elsewhere" / ".." / database.name):
        result = runner.invoke(app, [*command, str(target), "--decks", str(deck_dir)])
        assert result.exit_code == 2 and "is your database" in result.output, result.output
    assert rows() == before
    for target in ("", str(tmp_path)):
        result = runner.invoke(app, [*command, target, "--decks", str(deck_dir)])
        said = "is not a file name" if target or command[0] == "export" and command[1] == "anki" else "the name is empty"
        assert result.exit_code == 2 and said in result.output, result.output  # '' was named '.', the working folder
    assert runner.invoke(app, ["--decks", str(deck_dir)]).exit_code == 0


WRITERS = [["export", "anki"], ["history", "export"], ["export", "markdown", "--out"], ["db", "copy", "--to"],
           ["import", "chapter", str(Path(__file__).resolve().parent / "fixtures" / "chapter-small.md"), "--out"]]


@pytest.mark.parametrize("command", WRITERS, ids=lambda command: " ".join(command[:2]))
def test_no_writer_overwrites_a_deck_the_settings_or_a_backup(deck_dir, command, tmp_path):
    """A deck file just read, the settings file in use and a backup were overwritten by an
    export (exit 0), and the next command failed on what was left; a folder was exit 1 in db copy."""
    import os

    assert runner.invoke(app, ["--decks", str(deck_dir)]).exit_code == 0  # the database exists
    assert runner.invoke(app, ["backup", "create"]).exit_code == 0
    database = Path(os.environ["QUIZ_DB"])
    backup = min((database.parent / "backups").iterdir())
    settings = Path(os.environ["QUIZ_CONFIG"])
    settings.write_text("new_per_day = 7\n", "utf-8")
    precious = [deck_dir / "mini.yaml", settings, backup]
    before = [path.read_bytes() for path in precious]
    expected = {deck_dir / "mini.yaml": "the deck folder in use", deck_dir / "new.yml": "the deck folder in use",
                settings: "is your settings file", backup: "the backups of your database",
                backup.with_name("another.db"): "the backups of your database"}
    if command[0] == "import":  # adding a chapter to a deck is its purpose
        del expected[deck_dir / "mini.yaml"], expected[deck_dir / "new.yml"]
    for target, message in expected.items():
        result = runner.invoke(app, ["--decks", str(deck_dir), *command, str(target)])
        assert result.exit_code == 2 and f"Error: {target} " in result.output and message in result.output, result.output
    assert [path.read_bytes() for path in precious] == before and not (deck_dir / "new.yml").exists()
    assert not backup.with_name("another.db").exists()
    result = runner.invoke(app, ["--decks", str(deck_dir), *command, str(tmp_path)])
    assert result.exit_code == 2 and "is not a file name" in result.output, result.output
    shown = runner.invoke(app, ["--decks", str(deck_dir), "config", "--json"])
    assert shown.exit_code == 0 and json.loads(shown.stdout)["settings"]["new_per_day"]["value"] == 7, shown.output


def test_an_export_may_write_over_an_earlier_export(deck_dir, tmp_path):
    for command, name in (["history", "export"], "log.csv"), (["export", "markdown", "--out"], "sheet.md"), \
            (["export", "anki"], "mini.apkg"):
        for _again in range(2):
            result = runner.invoke(app, ["--decks", str(deck_dir), *command, str(tmp_path / name)])
            assert result.exit_code == 0, result.output


@pytest.mark.parametrize("command", [["export", "anki"], ["export", "markdown", "--out"], ["export", "markdown", "--weak", "--out"]])
def test_an_empty_deck_folder_exports_nothing(command, tmp_path):
    """An empty folder exported 0 cards as 0 Anki notes, or an empty sheet (exit 0)."""
    (tmp_path / "empty").mkdir()
    target = tmp_path / "out.apkg"
    result = runner.invoke(app, ["--decks", str(tmp_path / "empty"), *command, str(target)])
    assert result.exit_code == 1 and "no decks: the deck folders hold no deck files" in result.output, result.output
    assert not target.exists()


def test_the_shipped_decks_export_with_one_note_per_card_and_three_per_numeric_card(tmp_path):
    from quizzer.decks import deck_dirs, load_decks

    cards = [card for loaded in load_decks(deck_dirs()) for card in loaded.deck.cards]
    numeric = sum(card.kind == "numeric" for card in cards)
    target = tmp_path / "all.apkg"
    result = runner.invoke(app, ["export", "anki", str(target)])
    assert result.exit_code == 0, result.output
    notes, _, _ = read_package(target)
    assert len(notes) == len(cards) - numeric + 3 * numeric
    cloze = [n for n in notes.values() if n["model"] == MODEL_IDS["cloze"]]
    assert cloze and all("{{c1::" in n["fields"]["Text"] and "［" not in n["fields"]["Text"] for n in cloze)


# --- the review sheet -------------------------------------------------------------------------

def sheet(deck_dir: Path, *args: str, now: str = "2026-01-05T10:00") -> str:
    result = runner.invoke(app, ["export", "markdown", "--decks", str(deck_dir), *args], env={"QUIZ_NOW": now})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_sheet_lists_every_question_then_every_answer_in_the_same_order(deck_dir):
    text = sheet(deck_dir)
    questions, answers = text.split("\n## Answers\n")
    assert text.startswith("# Mini 卡组\n\n## Questions\n")
    headings = ["1. [1.1] `q-one`", "2. [1.2] `c-one`", "3. [1.3] `m-one`", "4. [1.4] `z-one`", "5. [1.5] `n-one` (seed 1)"]
    assert re.findall(r"^### (.*)$", questions, re.M) == headings
    assert re.findall(r"^### (.*)$", answers, re.M) == headings
    assert r"为什么 $\sqrt{d_k}$ 缩放" in questions and "- 方差变大" in answers and "方差变大" not in questions
    assert "- **B.** 乙" in questions and "乙对。" in answers and "乙对。" not in questions
    assert "［2：维度］" in questions and "`768`" in answers and "`768`" not in questions
    assert "**In fact**: 正确说法" in answers
    assert sheet(deck_dir) == text  # the numeric question is drawn from a fixed seed
    from quizzer.base import i18n

    i18n.use("zh")
    try:
        chinese = sheet(deck_dir)
    finally:
        i18n.use("en")
    assert "\n## 答案\n" in chinese and "Answers" not in chinese  # its heading was left in English


def test_the_sheet_goes_to_a_file_with_out_and_one_deck_with_deck(deck_dir, deck_folder, tmp_path):
    other = DECK.replace("id: mini", "id: other").replace("Mini 卡组", "Other").replace("-one", "-two")
    deck_folder(other, name="other.yaml")
    out = tmp_path / "sheet.md"
    result = runner.invoke(app, ["export", "markdown", "--decks", str(deck_dir), "--deck", "other", "--out", str(out)])
    assert result.exit_code == 0 and result.output.strip() == f"wrote 5 cards to {out}"
    assert out.read_text("utf-8").startswith("# Other\n") and "`q-two`" in out.read_text("utf-8")
    assert "`q-one`" not in out.read_text("utf-8")


def test_weak_keeps_the_reviewed_cards_under_the_desired_recall(deck_dir):
    assert sheet(deck_dir, "--weak") == ""  # nothing reviewed yet: no sheet (the reason goes to stderr)
    result = runner.invoke(app, ["study", "--decks", str(deck_dir), "--kind", "qa", "--kind", "mistake"],
                           input="\n1\n\n4\nq\n", env={"QUIZ_NOW": "2026-01-05T10:00"})
    assert result.exit_code == 0, result.output
    rated = dict(re.findall(r"^saved (\S+) → (\w+)", result.stdout, re.M))
    assert sorted(rated.values()) == ["Again", "Easy"]
    # FSRS: a first Again leaves far less stability than a first Easy: a day later its recall is
    # under the desired 90%, and the Easy card's (over 90%) shows no weakness
    expected = [card_id for card_id in rated if rated[card_id] == "Again"]
    text = sheet(deck_dir, "--weak", now="2026-01-06T10:00")
    assert text.startswith("# Mini 卡组: the weakest cards\n")
    assert [h.split("`")[1] for h in re.findall(r"^### (.*)$", text.split("## Answers")[0], re.M)] == expected


@pytest.mark.slow
def test_a_written_file_keeps_its_symlink_and_a_pipe_or_dash_is_standard_output(deck_dir, tmp_path):
    """--out through a symlink replaced the link with a file (the file it named kept the old text),
    and `--out /dev/stdout` made a file of that name instead of writing to the pipe."""
    import os
    import subprocess
    import sys

    target, link = tmp_path / "target.md", tmp_path / "link.md"
    target.write_text("old", "utf-8")
    link.symlink_to(target.name)
    wrote = runner.invoke(app, ["export", "markdown", "--decks", str(deck_dir), "--out", str(link)])
    assert wrote.exit_code == 0, wrote.output
    assert link.is_symlink() and target.read_text("utf-8").startswith("# Mini")
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []
    dash = runner.invoke(app, ["export", "markdown", "--decks", str(deck_dir), "--out", "-"])
    assert dash.exit_code == 0 and dash.stdout == target.read_text("utf-8") and not Path("-").exists()
    piped = subprocess.run([sys.executable, "-m", "quizzer", "export", "markdown", "--decks", str(deck_dir),
                            "--out", "/dev/stdout"], capture_output=True, text=True, cwd=tmp_path,
                           env={**os.environ, "QUIZ_LANG": "en"})
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.startswith(target.read_text("utf-8")) and "wrote 5 cards to /dev/stdout" in piped.stdout


def test_a_block_s_line_breaks_are_joined_as_the_terminal_joins_them():
    """Every line of a `|` block became a `<br />` in Anki (`因果注意力、<br />next token`), while
    the terminal shows one paragraph: the breaks are the YAML's, not the author's."""
    from quizzer.transfer.anki import to_html

    text = "GPT 是 Decoder-only、因果注意力、\nnext token prediction 训练，\n适合生成。\nIt is\ncausal.\n\n- 一\n- 二"
    assert to_html(text) == ("<p>GPT 是 Decoder-only、因果注意力、next token prediction 训练，适合生成。It is\ncausal.</p>\n"
                             "<ul>\n<li>一</li>\n<li>二</li>\n</ul>")


def test_a_file_name_in_a_success_message_cannot_steer_the_terminal(deck_dir, tmp_path):
    """`quiz export anki $'\\e]0;pwned\\a.apkg'` printed the name raw: the escape set the terminal's
    title (errors already showed such a name as \\x1b)."""
    name = tmp_path / "\x1b]0;pwned\x07x.md"
    result = runner.invoke(app, ["export", "markdown", "--decks", str(deck_dir), "--out", str(name)])
    assert result.exit_code == 0 and name.exists()
    assert "\x1b" not in result.output and "\x07" not in result.output and "\\x1b]0;pwned\\x07x.md" in result.output
    package = tmp_path / "\x1b[31mred.apkg"
    exported = runner.invoke(app, ["export", "anki", str(package), "--decks", str(deck_dir)])
    assert exported.exit_code == 0 and "\x1b" not in exported.output and "\\x1b[31mred.apkg" in exported.output


@pytest.mark.slow
def test_out_dev_stdout_redirected_to_a_file_appends_in_place(deck_dir, tmp_path):
    """`quiz export markdown --out /dev/stdout >> app.md` replaced app.md (its first line gone), and
    `( echo FIRST; quiz …; echo LAST ) > out.md` lost both lines: the shell's file was cut off."""
    import os
    import subprocess
    import sys

    target = tmp_path / "app.md"
    target.write_text("HEADER\n", "utf-8")
    with open(target, "a", encoding="utf-8") as appended:
        done = subprocess.run([sys.executable, "-m", "quizzer", "export", "markdown", "--decks", str(deck_dir),
                               "--out", "/dev/stdout"], stdout=appended, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "QUIZ_LANG": "en"})
        appended.write("LAST\n")
    assert done.returncode == 0, done.stderr
    text = target.read_text("utf-8")
    assert text.startswith("HEADER\n# Mini") and text.endswith("wrote 5 cards to /dev/stdout\nLAST\n")


@pytest.mark.parametrize("text, html", [
    ("代码：\n\n    缩进代码\n    第二行", "<p>代码：</p>\n<pre><code>缩进代码\n第二行\n</code></pre>"),
    ("中文\\\n下一行", "<p>中文<br />\n下一行</p>"),  # a trailing backslash: a hard break
    ("中文  \n硬换行", "<p>中文<br />\n硬换行</p>"),  # two trailing spaces: a hard break
])
def test_joining_leaves_hard_breaks_and_indented_code_alone(text, html):
    """Joining Chinese lines merged an indented code block's lines and ate the author's hard breaks
    (a backslash was left standing in the text)."""
    from quizzer.transfer.anki import to_html

    assert to_html(text) == html
