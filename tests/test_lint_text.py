"""scripts/lint_text.py, the text checks of `make lint`: clean on this repository, and on a small
git tree of its own it fails naming each offending file (an issue number in code, an app module of
351 lines, a pointer to a row or heading that does not exist, a doc naming a file or a test that is
not there) and passes once they are gone."""

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
ARCHITECTURE = (
    "# Architecture\n\nBuilt into `frontend/build/`, results in `bench/results/NAME.json`.\n\n"
    "### `chain/`: the chain\n\n| package | job |\n|---|---|\n| `node/` | the client (`client.py`) |\n"
    "| `models.py` | the rows |\n\nTested by `chain/tests/test_follow.py::test_reads`, `::test_skips`.\n"
)


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
            # Every path the architecture names is there, or ignored as a build's output.
            f"{DOCS}/architecture.md": ARCHITECTURE,
            ".gitignore": "frontend/build/\n",
            "chain/node/client.py": "x = 1\n",
            "chain/models.py": "x = 1\n",
            "chain/tests/test_follow.py": "def test_reads():\n    pass\n\n\ndef test_skips():\n    pass\n",
            "bench/results/api.json": "{}\n",
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
            f"{DOCS}/deploy.md": "# Deploy\n\nSee `chain/node/clients.py` and chain/tests/test_follow.py::test_gone.\n",
            f"{DOCS}/architecture.md": ARCHITECTURE.replace("(`client.py`)", "(`clients.py`)"),
            "README.md": "Read `chain/tests/test_follow.py::test_reads`, `::test_missing`.\n",
        },
    )
    result = lint_text(tree)
    assert result.returncode == 1
    found = sorted(line.split(": ", 1)[0] for line in result.stdout.splitlines())
    assert found == [
        "Makefile:1",
        "README.md:1",
        "chain/tests/test_big.py:1",
        "config/settings/extra.py:1",
        "config/settings/extra.py:2",
        f"{DOCS}/architecture.md:9",
        f"{DOCS}/deploy.md:3",
        f"{DOCS}/deploy.md:3",
        "frontend/src/app.tsx:1",
        "responses/parsers.py:1",
        "responses/views.py:3",
    ], result.stdout
    assert "351 lines, over 350" in result.stdout
    assert f'{DOCS}/decisions.md has no row "Stake precision"' in result.stdout
    assert f"{DOCS}/missing.md does not exist" in result.stdout
    assert f'{DOCS}/reliability.md has no heading "Issue numbers"' in result.stdout
    assert "chain/node/clients.py is not in the repository" in result.stdout
    assert "chain/tests/test_follow.py has no test test_gone" in result.stdout
    assert "chain/tests/test_follow.py has no test test_missing" in result.stdout
    assert "clients.py is not in chain/ or chain/node/" in result.stdout


def test_a_file_that_is_not_tracked_is_not_read(tree: Path) -> None:
    (tree / "var").mkdir()
    (tree / "var" / "notes.py").write_text(f"# {ISSUE} 9\n")
    assert lint_text(tree).returncode == 0
