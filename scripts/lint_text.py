"""Text checks `make lint` and the pre-commit hook run on every tracked source file (git ls-files):

1. No "issue N" or "issue #N" (any case): a comment, docstring or test name must state its reason or
   point to a file in the repository, not to a tracker a reader of the code may not have.
2. No Python module in challenges/, responses/, chain/ or config/ (tests included, migrations aside)
   over 350 lines: a module that long does more than one job, and a newcomer cannot hold it in mind.
3. Every pointer into docs/ holds: the file exists; a quoted title after the path of decisions.md
   names a row of its table (the first cell), one after architecture.md, chain.md or reliability.md
   names a heading; "section N" after protocol.md or performance.md names a numbered heading.
4. Every path the docs (docs/*.md, README.md) name holds: a path under one of the repository's
   folders is a tracked file or folder (a `*` or an all-capitals part such as NAME stands for any
   name; a path git ignores is a build's output and is not looked for), and `file.py::test_name`
   names a test of that file. Under a heading that names a folder (### `chain/`), a file name in
   backticks is that folder's, or that of the folder its table row names first.

Usage: python scripts/lint_text.py [--root DIR]. Prints each finding as `path:line: what`, exits 1 if
there is any, 0 otherwise. Markdown files are not checked by rules 1 to 3 (they are prose and
history); the lock file is generated."""

from __future__ import annotations

import argparse
import fnmatch
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
# A repository path in a doc, with an optional pytest node id after it.
DOC_PATH = re.compile(r"(?<![\w/.:-])((?:[\w.-]+/)+[\w.*-]*[\w*/])(?:::(\w+))?")
BARE_TEST = re.compile(r"`::(\w+)`")
# A file or folder name in backticks, to be read under a heading's folder.
NAMED_FILE = re.compile(r"`([\w*-]+(?:/[\w*.-]+)*(?:\.[a-z]+|/))`")
FOLDER_HEADING = re.compile(r"#+ `([\w/-]+/)`")
# An all-capitals word in a path stands for any name (bench/results/NAME.json).
PLACEHOLDER = re.compile(r"(?<![A-Za-z])[A-Z]{2,}(?![a-z])")
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


def _holds(path: str, *, tracked: list[str], folders: set[str]) -> bool:
    pattern = PLACEHOLDER.sub("*", path.rstrip("/"))
    if "*" not in pattern:
        return pattern in folders or (not path.endswith("/") and path in tracked)
    return any(fnmatch.fnmatchcase(name, pattern) for name in [*tracked, *folders])


def _ignored(path: str, *, root: Path) -> bool:
    """A path git ignores (a build's output): asked as a file and as a folder."""
    git = shutil.which("git") or "/usr/bin/git"
    # A fixed command on a path read from the repository's own docs.
    return any(
        subprocess.run([git, "check-ignore", "-q", name], cwd=root, check=False).returncode == 0  # noqa: S603
        for name in (path, path.rstrip("/") + "/")
    )


def _paths_and_tests(line: str) -> list[tuple[str | None, str | None]]:
    """(path, test name or None) for each path a line of a doc names, in order, and (None, name) for a
    bare `::test_name` that goes on naming tests of the path before it."""
    found = [(m.start(), m.group(1), m.group(2)) for m in DOC_PATH.finditer(line)]
    found += [(m.start(), None, m.group(1)) for m in BARE_TEST.finditer(line)]
    return [(path, test) for _, path, test in sorted(found, key=lambda m: m[0])]


def _has_test(path: Path, test: str) -> bool:
    defined = re.compile(rf"^\s*(?:async )?def {test}\(", re.MULTILINE)
    return path.suffix == ".py" and defined.search(path.read_text(encoding="utf-8")) is not None


def doc_path_findings(*, name: str, text: str, root: Path, tracked: list[str], folders: set[str]) -> list[str]:
    """Rule 4 for the paths a doc names from the repository's root."""
    tops = {folder for folder in folders if "/" not in folder}
    findings = []
    for number, line in enumerate(text.splitlines(), start=1):
        last = ""  # the path a bare `::test_name` after it belongs to
        for path, test in _paths_and_tests(line):
            if path is not None:
                last = path if path.split("/")[0] in tops else ""
                if last and not _holds(last, tracked=tracked, folders=folders):
                    if not _ignored(last, root=root):
                        findings.append(f"{name}:{number}: {last} is not in the repository")
                    last = ""
            if test and last and not _has_test(root / last, test):
                findings.append(f"{name}:{number}: {last} has no test {test}")
    return findings


def folder_name_findings(*, name: str, text: str, folders: set[str], tracked: list[str]) -> list[str]:
    """Rule 4 for the file names in backticks under a heading that names a folder."""
    tops = {folder for folder in folders if "/" not in folder}
    findings, folder = [], ""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("#"):
            heading = FOLDER_HEADING.match(line)
            folder = heading.group(1) if heading else ""
            continue
        names = NAMED_FILE.findall(line) if folder else []
        row = [n for n in names[:1] if line.startswith("| `") and n.endswith("/")]
        for named in (n for n in names if n.split("/")[0] not in tops):
            places = [folder] + [folder + row[0] for _ in row if named != row[0]]
            if not any(_holds(place + named, tracked=tracked, folders=folders) for place in places):
                findings.append(f"{name}:{number}: {named} is not in {' or '.join(places)}")
    return findings


def findings_of(*, root: Path) -> list[str]:
    titles = doc_titles(root=root)
    tracked = tracked_files(root=root)
    findings = []
    folders = {str(parent) for file in tracked for parent in Path(file).parents if str(parent) != "."}
    for name in tracked:
        if name == "README.md" or (name.startswith("docs/") and name.endswith(".md")):
            text = (root / name).read_text(encoding="utf-8")
            findings += doc_path_findings(name=name, text=text, root=root, tracked=tracked, folders=folders)
            findings += folder_name_findings(name=name, text=text, folders=folders, tracked=tracked)
    for name in tracked:
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
