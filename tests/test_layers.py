"""The apps depend one way (docs/architecture.md, "Layers"): chain above responses above challenges,
and inside chain its entry points above the pot's steps, above the relayer and the projections, above
the encodings and the token, above the node.

The contracts are import-linter's, configured in pyproject.toml; `make lint` runs them as
`lint-imports`. Here they run on the tree, and on a copy of the apps with an upward import added, to
show that the check catches one, even hidden inside a function body or in an app's tests."""

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("challenges", "responses", "chain", "config")
CONTRACTS = len(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"])


def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    """Run the contract of pyproject.toml on the packages under `cwd`, as `make lint` does."""
    return subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports"), "--config", str(cwd / "pyproject.toml"), "--no-cache"],
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(cwd), "LANG": "C.UTF-8"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_apps_depend_one_way():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert CONTRACTS == 2 and f"Contracts: {CONTRACTS} kept, 0 broken." in result.stdout


@pytest.fixture
def copy_of_the_apps(tmp_path: Path) -> Path:
    for name in APPS:
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    assert lint_imports(tmp_path).returncode == 0  # the copy keeps the contract before the change
    return tmp_path


@pytest.mark.parametrize(
    ("module", "added", "broken"),
    [
        # Inside a function body: the kind of import that hid the loops before.
        (
            "challenges/scoring.py",
            "def f():\n    from chain import verification\n",
            "challenges is not allowed to import chain",
        ),
        ("challenges/models.py", "import responses.models\n", "challenges is not allowed to import responses"),
        ("responses/services.py", "def g():\n    import chain.pot.steps\n", "responses is not allowed to import chain"),
        # Tests keep the layers too: a test that needs a higher app belongs in that app's tests.
        (
            "challenges/tests/test_api.py",
            "import responses.selectors\n",
            "challenges is not allowed to import responses",
        ),
        # Inside chain: the node knows nothing of the pot, the encodings nothing of the relayer.
        (
            "chain/node/calls.py",
            "def h():\n    from chain.pot import abi\n",
            "chain.node is not allowed to import chain.pot.abi",
        ),
        (
            "chain/pot/encoding.py",
            "import chain.relayer.outbox\n",
            "chain.pot.encoding is not allowed to import chain.relayer",
        ),
    ],
)
def test_an_upward_import_breaks_the_contract(copy_of_the_apps: Path, module: str, added: str, broken: str):
    path = copy_of_the_apps / module
    path.write_text(path.read_text() + "\n\n" + added)
    result = lint_imports(copy_of_the_apps)
    print(result.stdout)
    assert result.returncode == 1, result.stdout + result.stderr
    # One contract broken, or both when the import also leads back up through chain's layers.
    assert re.search(rf"Contracts: \d+ kept, [1-{CONTRACTS}] broken\.", result.stdout), result.stdout
    assert broken in result.stdout
