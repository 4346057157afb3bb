"""The documentation keeps up with the code: every command, option and argument of `quiz` has
help text and a place in docs/cli.md, the README stays an entry page, every page of docs/ is
listed in its index and starts with a line saying what it is, links between pages lead
somewhere, and docs/architecture.md quotes the import contracts pyproject.toml declares.

The command tree is walked through click's public interface (``list_commands`` and
``get_command`` on each group), so commands that are loaded only when asked for are found too."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
INDEX = DOCS / "README.md"
README_MOST_LINES = 250
FIRST_SCREEN_LINES = 40  # where a learner who knows Anki looks first


@dataclass(frozen=True)
class Command:
    """One command of the tree, by the words that call it (``quiz backup restore``)."""

    path: str
    command: Any  # a click (or typer's vendored click) Command
    context: Any  # its Context, to ask for its parameters as --help shows them


def command_tree() -> list[Command]:
    """Every command and group of ``quiz``, the root first."""
    import typer.main

    from quizzer.cli import app

    root = typer.main.get_command(app)
    found: list[Command] = []

    def visit(command: Any, path: str, context: Any) -> None:
        found.append(Command(path, command, context))
        if hasattr(command, "list_commands"):  # a group
            for name in command.list_commands(context):
                sub = command.get_command(context, name)
                visit(sub, f"{path} {name}", sub.make_context(name, [], parent=context, resilient_parsing=True))

    visit(root, "quiz", root.make_context("quiz", [], resilient_parsing=True))
    return found


def parameters(entry: Command) -> Iterator[Any]:
    """The options and arguments a command's --help lists, its help option aside (documented
    once, for every command)."""
    help_option = entry.command.get_help_option(entry.context)
    for param in entry.command.get_params(entry.context):
        if param is not help_option and not getattr(param, "hidden", False):
            yield param


def names(param: Any) -> list[str]:
    """What a reader finds a parameter by: an option's every spelling (``--limit``, ``-n``), an
    argument's name as --help shows it (``ID``, ``PATH``)."""
    if param.param_type_name == "argument":
        return [re.sub(r"[\[\]]|\.\.\.$", "", param.metavar or param.name.upper())]
    return [*param.opts, *param.secondary_opts]


SECTION_HEADING = re.compile(r"^#{2,4} `(quiz(?: [a-z][a-z-]*)*)`\s*$", re.MULTILINE)


def cli_sections(text: str) -> dict[str, str]:
    """docs/cli.md's text under each command's heading (``## `quiz study` ``), up to the next
    heading of any level: a group's section is its own, not its subcommands'."""
    headings = list(SECTION_HEADING.finditer(text))
    sections: dict[str, str] = {}
    for match in headings:
        rest = text[match.end():]
        following = re.search(r"^#", rest, re.MULTILINE)
        sections[match.group(1)] = rest[:following.start()] if following else rest
    return sections


def mentions(text: str, word: str) -> bool:
    """Whether ``word`` stands in ``text`` on its own (``--deck`` is not in ``--decks``)."""
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def undocumented(tree: list[Command], page: str) -> list[str]:
    """The commands without a section in ``page``, and the options and arguments missing from
    their command's section."""
    sections = cli_sections(page)
    missing = []
    for entry in tree:
        if entry.path not in sections:
            missing.append(f"{entry.path}: no section")
            continue
        missing += [f"{entry.path} {name}" for param in parameters(entry) for name in names(param)
                    if not mentions(sections[entry.path], name)]
    return missing


def test_every_command_option_and_argument_is_in_docs_cli_md():
    assert undocumented(command_tree(), (DOCS / "cli.md").read_text("utf-8")) == []


def test_a_missing_option_or_command_is_found():
    """The check above can fail: an option taken out of its section, or a command's heading."""
    page = (DOCS / "cli.md").read_text("utf-8")
    tree = command_tree()
    without_option = page.replace("- `--ahead`:", "- (gone):")
    assert without_option != page
    assert undocumented(tree, without_option) == ["quiz study --ahead"]
    without_command = page.replace("### `quiz backup restore`", "### Restoring")
    assert "quiz backup restore: no section" in undocumented(tree, without_command)


def without_help(tree: list[Command]) -> list[str]:
    """The commands, options and arguments whose --help line would be empty."""
    return [entry.path for entry in tree if not (entry.command.help or "").strip()] + [
        f"{entry.path} {names(param)[0]}" for entry in tree for param in parameters(entry)
        if not (getattr(param, "help", None) or "").strip()]


def test_every_command_option_and_argument_has_help():
    assert without_help(command_tree()) == []


def test_a_command_or_option_without_help_is_found():
    import typer
    import typer.main

    app = typer.Typer()

    @app.command()
    def silent(count: int = typer.Option(1, "--count"), name: str = typer.Option("a", help="A name.")) -> None:
        pass

    command = typer.main.get_command(app)
    tree = [Command("quiz silent", command, command.make_context("silent", [], resilient_parsing=True))]
    assert without_help(tree) == ["quiz silent", "quiz silent --count"]


def test_every_section_of_docs_cli_md_is_a_command():
    """A section left behind for a command that was removed or renamed misleads."""
    commands = {entry.path for entry in command_tree()}
    assert sorted(set(cli_sections((DOCS / "cli.md").read_text("utf-8"))) - commands) == []


def test_the_readme_is_an_entry_page():
    """Short, with the first day's walkthrough on the first screen, its steps in order."""
    readme = (ROOT / "README.md").read_text("utf-8")
    lines = readme.splitlines()
    assert len(lines) <= README_MOST_LINES
    assert "## Your first day" in lines[:FIRST_SCREEN_LINES]
    walkthrough = readme.split("## Your first day", 1)[1].split("\n## ", 1)[0]
    steps = ["\n    quiz\n", "\n    quiz plan --date", "\n    quiz study\n", "\n    quiz exam\n"]
    assert [walkthrough.find(step) for step in steps] == sorted(walkthrough.find(step) for step in steps)
    assert all(step in walkthrough for step in steps)


def pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def test_every_page_says_what_it_is_and_is_in_the_index():
    index = INDEX.read_text("utf-8")
    for page in pages():
        title, blank, summary = page.read_text("utf-8").splitlines()[:3]
        assert title.startswith("# ") and blank == "" and summary.strip(), page.name
        if page != INDEX:
            assert f"]({page.name})" in index, page.name


LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_links_between_the_pages_lead_somewhere():
    """Relative links of the README, CONTRIBUTING.md, bench/RESULTS.md and the pages (the index
    aside: it also lists pages that other work adds) name files that exist, and anchors name
    headings there."""
    sources = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "bench" / "RESULTS.md",
               *(page for page in pages() if page != INDEX)]
    broken = []
    for source in sources:
        for target in LINK.findall(source.read_text("utf-8")):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            path = (source.parent / file).resolve() if file else source
            if not path.is_file():
                broken.append(f"{source.name}: {target}")
            elif anchor and anchor not in anchors(path.read_text("utf-8")):
                broken.append(f"{source.name}: {target}")
    assert broken == []


def anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings of a page: lower case, punctuation dropped, spaces
    as hyphens."""
    prose = re.sub(r"^```.*?^```", "", markdown, flags=re.MULTILINE | re.DOTALL)  # a `# comment` is no heading
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            for heading in re.findall(r"^#+ (.+)$", prose, re.MULTILINE)}


def test_the_architecture_page_quotes_the_import_contracts():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]
    page = (DOCS / "architecture.md").read_text("utf-8")
    quoted = re.search(r"```toml\n(.*?)```", page, re.DOTALL)
    assert quoted, "no toml block in docs/architecture.md"
    assert tomllib.loads(quoted.group(1))["tool"]["importlinter"] == declared
