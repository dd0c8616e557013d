"""scripts/lint_text.py, the text checks of `make lint`: clean on this repository, and on a small
git tree of its own it fails naming each offending file (an issue number in code, an app module of
351 lines, a pointer to a row or heading that does not exist) and passes once they are gone."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "lint_text.py"
# Written in parts so that this file does not hold what the checks look for.
ISSUE = "issue"
DOCS = "docs"

DECISIONS = "# Decisions\n\n| topic | decision | why |\n|---|---|---|\n| Stake step | 0.01 | cents |\n"
RELIABILITY = "# Reliability\n\n## Known limits\n\nNone.\n"


def lint_text(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(root)], capture_output=True, text=True, timeout=60
    )


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A git work tree whose tracked files pass every check."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    write(
        tmp_path,
        {
            f"{DOCS}/decisions.md": DECISIONS,
            f"{DOCS}/reliability.md": RELIABILITY,
            # History and generated files may name issues; a migration may be long.
            f"{DOCS}/history.md": f"Done in {ISSUE} 13.\n",
            "package-lock.json": f'{{"note": "{ISSUE} #4"}}\n',
            "challenges/migrations/0001_initial.py": "x = 1\n" * 400,
            # 350 lines is allowed; a module outside the four apps may be longer.
            "challenges/services.py": f'"""Stakes ({DOCS}/decisions.md, "Stake step")."""\n' + "x = 1\n" * 349,
            "bench/report.py": "x = 1\n" * 400,
            "config/limits.py": f'# See {DOCS}/reliability.md, "Known\n# limits".\nTISSUE_5 = 1\n',
        },
    )
    return tmp_path


def test_this_repository_passes() -> None:
    result = lint_text(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_a_clean_tree_passes(tree: Path) -> None:
    result = lint_text(tree)
    assert (result.returncode, result.stdout) == (0, ""), result.stdout + result.stderr


def test_each_offence_is_named_with_its_file_and_line(tree: Path) -> None:
    write(
        tree,
        {
            "responses/views.py": f'"""The views."""\n\n# See {ISSUE} 13, part 2.\n',
            "frontend/src/app.tsx": f"// Fixed in {ISSUE.title()} #7\nexport {{}};\n",
            "Makefile": f"# {ISSUE.upper()} 22\nall:\n",
            "chain/tests/test_big.py": "x = 1\n" * 351,
            "config/settings/extra.py": f'# ({DOCS}/decisions.md, "Stake precision")\n# {DOCS}/missing.md\n',
            "responses/parsers.py": f'"""Its tests: {DOCS}/reliability.md, section\n"Issue numbers"."""\n',
        },
    )
    result = lint_text(tree)
    assert result.returncode == 1
    found = sorted(line.split(": ", 1)[0] for line in result.stdout.splitlines())
    assert found == [
        "Makefile:1",
        "chain/tests/test_big.py:1",
        "config/settings/extra.py:1",
        "config/settings/extra.py:2",
        "frontend/src/app.tsx:1",
        "responses/parsers.py:1",
        "responses/views.py:3",
    ], result.stdout
    assert "351 lines, over 350" in result.stdout
    assert f'{DOCS}/decisions.md has no row "Stake precision"' in result.stdout
    assert f"{DOCS}/missing.md does not exist" in result.stdout
    assert f'{DOCS}/reliability.md has no heading "Issue numbers"' in result.stdout


def test_a_file_that_is_not_tracked_is_not_read(tree: Path) -> None:
    (tree / "var").mkdir()
    (tree / "var" / "notes.py").write_text(f"# {ISSUE} 9\n")
    assert lint_text(tree).returncode == 0
