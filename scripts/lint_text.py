"""Text checks `make lint` and the pre-commit hook run on every tracked source file (git ls-files):

1. No "issue N" or "issue #N" (any case): a comment, docstring or test name must state its reason or
   point to a file in the repository, not to a tracker a reader of the code may not have.
2. No Python module in challenges/, responses/, chain/ or config/ (tests included, migrations aside)
   over 350 lines: a module that long does more than one job, and a newcomer cannot hold it in mind.
3. Every pointer into docs/ holds: the file exists; a quoted title after the path of decisions.md
   names a row of its table (the first cell), one after architecture.md, chain.md or reliability.md
   names a heading; "section N" after protocol.md or performance.md names a numbered heading.

Usage: python scripts/lint_text.py [--root DIR]. Prints each finding as `path:line: what`, exits 1 if
there is any, 0 otherwise. Markdown files are prose and history and are not checked; the lock file
is generated."""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SOURCE_SUFFIXES = {
    ".py", ".pyi", ".ts", ".tsx", ".js", ".mjs", ".mts", ".cjs", ".sol", ".html", ".css",
    ".yaml", ".yml", ".sh", ".toml", ".ini", ".in", ".json", ".example",
}  # fmt: skip
SOURCE_NAMES = {"Makefile", "Procfile", "Procfile.dev"}
SKIPPED = {"package-lock.json"}

ISSUE_NUMBER = re.compile(r"(?<![a-z])issues?[ \t_#-]*\d+", re.IGNORECASE)

SIZED_APPS = ("challenges", "responses", "chain", "config")
MAX_MODULE_LINES = 350

DOCS_PATH = re.compile(r"(?<![\w/.-])docs/[\w./-]*\w\.md")
# After a path: an optional comma or colon and "section", then a quoted title (a row or a heading)
# that starts with a letter, a digit or a backtick (so the closing quote of a string is not one).
QUOTED_TITLE = re.compile(r'[,:]?[ ]?(?:section[ ])?"([\w`][^"]*(?:"[^"]+")*?)"(?=[^\w"]|$)')
SECTION_NUMBER = re.compile(r",?[ ]sections?[ ](\d+(?:\.\d+)?[a-z]?)")
HEADED_DOCS = {"docs/architecture.md", "docs/reliability.md", "docs/deploy.md", "docs/settings.md"}
NUMBERED_DOCS = {"docs/protocol.md", "docs/performance.md"}
# A comment or string that goes on over a line break: the break, the next line's comment marker, and
# a string literal closed and reopened (implicit concatenation) read as one space or nothing.
CONTINUATION = re.compile(r"""\s*\n\s*(?:(?:#+|/{2,3}|\*)(?!/)[ \t]*)?""")
STRING_BREAK = re.compile(r"""(["'])\s*\n\s*(["'])""")


def tracked_files(*, root: Path) -> list[str]:
    git = shutil.which("git") or "/usr/bin/git"
    # git's own file list, no input from outside: the command is fixed.
    listed = subprocess.run([git, "ls-files", "-z"], cwd=root, capture_output=True, text=True, check=True)  # noqa: S603
    return sorted(name for name in listed.stdout.split("\0") if name and (root / name).is_file())


def is_source(*, name: str) -> bool:
    path = Path(name)
    if path.name in SKIPPED or path.suffix == ".md" or path.parts[0] == "docs":
        return False
    return path.suffix in SOURCE_SUFFIXES or path.name in SOURCE_NAMES or name.startswith(".ci/")


def issue_findings(*, name: str, text: str) -> list[str]:
    return [
        f"{name}:{number}: names an issue number ({match.group(0)!r}): state the reason or point to a file"
        for number, line in enumerate(text.splitlines(), start=1)
        for match in [ISSUE_NUMBER.search(line)]
        if match
    ]


def size_findings(*, name: str, text: str) -> list[str]:
    path = Path(name)
    if path.suffix != ".py" or path.parts[0] not in SIZED_APPS or "migrations" in path.parts:
        return []
    lines = len(text.splitlines())
    if lines <= MAX_MODULE_LINES:
        return []
    return [f"{name}:1: {lines} lines, over {MAX_MODULE_LINES}: split it by job"]


def doc_titles(*, root: Path) -> dict[str, set[str]]:
    """Each doc's headings (without the #s), and for docs/decisions.md its rows' first cells."""
    titles: dict[str, set[str]] = {}
    for path in sorted((root / "docs").glob("*.md")):
        lines = path.read_text(encoding="utf-8").splitlines()
        titles[f"docs/{path.name}"] = {line.lstrip("#").strip() for line in lines if line.startswith("#")}
    rows = titles.setdefault("docs/decisions.md", set())
    if (root / "docs" / "decisions.md").is_file():
        for line in (root / "docs" / "decisions.md").read_text(encoding="utf-8").splitlines():
            if match := re.match(r"\|\s*([^|]+?)\s*\|", line):
                rows.add(match.group(1))
    return titles


def section_numbers(*, headings: set[str]) -> set[str]:
    return {match.group(1) for heading in headings if (match := re.match(r"(\d+(?:\.\d+)?[a-z]?)\.? ", heading))}


def pointer_findings(*, name: str, text: str, root: Path, titles: dict[str, set[str]]) -> list[str]:
    findings = []
    for match in DOCS_PATH.finditer(text):
        path, number = match.group(0), text.count("\n", 0, match.start()) + 1
        if not (root / path).is_file():
            findings.append(f"{name}:{number}: {path} does not exist")
            continue
        after = STRING_BREAK.sub("", text[match.end() : match.end() + 300])
        after = CONTINUATION.sub(" ", after)
        quoted = QUOTED_TITLE.match(after)
        if quoted and path == "docs/decisions.md" and quoted.group(1) not in titles[path]:
            findings.append(f'{name}:{number}: docs/decisions.md has no row "{quoted.group(1)}"')
        elif quoted and path in HEADED_DOCS and quoted.group(1) not in titles[path]:
            findings.append(f'{name}:{number}: {path} has no heading "{quoted.group(1)}"')
        section = SECTION_NUMBER.match(after)
        if section and path in NUMBERED_DOCS and section.group(1) not in section_numbers(headings=titles[path]):
            findings.append(f"{name}:{number}: {path} has no section {section.group(1)}")
    return findings


def findings_of(*, root: Path) -> list[str]:
    titles = doc_titles(root=root)
    findings = []
    for name in tracked_files(root=root):
        if not is_source(name=name):
            continue
        try:
            text = (root / name).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # not text
        findings += issue_findings(name=name, text=text)
        findings += size_findings(name=name, text=text)
        findings += pointer_findings(name=name, text=text, root=root, titles=titles)
    return findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository to check (default: this one)")
    findings = findings_of(root=parser.parse_args().root.resolve())
    for finding in findings:
        print(finding)
    if findings:
        print(f"lint_text: {len(findings)} finding(s)", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
