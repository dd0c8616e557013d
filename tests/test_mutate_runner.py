"""The Python mutation runner (scripts/mutate.py and its plugin) on a small module of its own: a
mutant runs only the tests that call its function, a function no test calls is reported as not
reached (a survivor, never a kill), and a weak test leaves its mutants alive."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.mutate import ROOT

TARGET = """
def double(x):
    return x * 2


def never_called(x):
    return x + 1


def positive(x):
    return x > 0
"""

TESTS = """
from {package}.target import double, positive


def test_double():
    assert double(3) == 6


def test_positive_is_weak():
    assert positive(5)
"""

# A second test module: a mutant's tests then cross modules (each run starts from the shared scope).
OTHER_TESTS = """
from {package}.target import positive


def test_zero_is_not_positive():
    assert not positive(0)
"""


@pytest.fixture
def package():
    # Under the repository (var/ is not tracked) so that the plugin imports it by its dotted path.
    folder = ROOT / "var" / f"mutate_selftest_{os.getpid()}"
    folder.mkdir(parents=True)
    (folder / "target.py").write_text(TARGET)
    (folder / "test_target.py").write_text(TESTS.format(package=f"var.{folder.name}"))
    (folder / "test_other.py").write_text(OTHER_TESTS.format(package=f"var.{folder.name}"))
    (folder / "pytest.ini").write_text("[pytest]\n")
    yield folder
    shutil.rmtree(folder)


def run_mutants(package: Path, *extra: str) -> dict:
    """The plugin's results on the package's module, by (function, change)."""
    result = package / "result.json"
    result.unlink(missing_ok=True)
    module = package.relative_to(ROOT) / "target.py"
    command = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:django",
        "-p", "scripts.mutate_plugin", f"--mutate-module={module}", f"--mutate-result={result}",
        f"--rootdir={package}", f"--confcutdir={package}", "-c", str(package / "pytest.ini"),
        str(package / "test_target.py"), str(package / "test_other.py"), *extra,
    ]  # fmt: skip
    done = subprocess.run(
        command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120
    )
    assert result.exists(), done.stdout + done.stderr
    return {(m["function"], m["change"]): m for m in json.loads(result.read_text())["mutants"]}


def test_each_mutant_runs_only_the_tests_that_call_its_function(package: Path):
    mutants = run_mutants(package)

    assert mutants[("double", "Mult -> Div")]["killed"]
    assert mutants[("double", "Mult -> Div")]["by"].endswith("test_double")
    assert mutants[("double", "return None")]["tests"] == 1
    for change in ("Add -> Sub", "1 -> 2", "return None"):
        assert mutants[("never_called", change)] == {
            **mutants[("never_called", change)],
            "killed": False,
            "by": "not reached by any test",
        }
    # `0 -> 1` holds for 5 and for 0: the two tests that call positive() ran, neither in the other module.
    assert not mutants[("positive", "0 -> 1")]["killed"]
    assert mutants[("positive", "0 -> 1")]["tests"] == 2
    # `x >= 0` is caught only by the second module's test, after the weak one of the first ran.
    assert mutants[("positive", "Gt -> GtE")]["by"].endswith("test_other.py::test_zero_is_not_positive")


def test_a_run_resumes_at_a_mutant_number(package: Path):
    everything = run_mutants(package)
    numbers = sorted(m["number"] for m in everything.values())
    resumed = run_mutants(package, "--mutate-from=4")
    assert sorted(m["number"] for m in resumed.values()) == numbers[3:]
