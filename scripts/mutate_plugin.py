"""The pytest side of scripts/mutate.py: collect the module's tests once, run them on the original
code (all must pass), then for each mutant swap the mutated function's code object in, run the tests
until the first failure, and swap the original back. Results go to --mutate-result as JSON.

Which tests a mutant runs: the baseline run records, per test, which of the module's functions it
called (a profile hook on the module's own code objects, in every thread), so a mutant runs only the
tests that reach its function: a test that never calls it cannot kill it. They run in this order:
the tests that killed earlier mutants of the same function first (most recent first), then the rest
fastest first. A mutant whose function no test calls survives without a run ("not reached")."""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from _pytest.runner import runtestprotocol

from scripts.mutate import ROOT, mutants_of


def pytest_addoption(parser):
    parser.addoption("--mutate-module", required=True)
    parser.addoption("--mutate-result", required=True)
    parser.addoption("--mutate-max-seconds", type=float, default=120.0)
    parser.addoption("--mutate-from", type=int, default=1)


class MutantTimeout(Exception):
    pass


class _Scopes:
    """Stands for "the collectors every test shares" (the session, and the folders that hold them
    all) where pytest asks for the next item: tearing down to it leaves no test function or module
    set up, so any test may run next (a mutant runs a subset of the tests, in its own order), while
    session fixtures such as the database and anvil stay up."""

    def __init__(self, items):
        chains = [item.listchain()[:-1] for item in items]
        shared = []
        for collectors in zip(*chains, strict=False):
            if any(collector is not collectors[0] for collector in collectors):
                break
            shared.append(collectors[0])
        self.chain = [collector for collector in shared if not isinstance(collector, pytest.Module)]

    def listchain(self):
        return self.chain


def _live_function(module, qualname: str):
    """The function object behind a qualified name, unwrapped from decorators and descriptors."""
    owner, _, name = qualname.rpartition(".")
    container = getattr(module, owner) if owner else module
    target = container.__dict__[name] if owner else getattr(module, name)
    while True:
        if isinstance(target, staticmethod | classmethod):
            target = target.__func__
        elif isinstance(target, property):
            target = target.fget
        elif hasattr(target, "__wrapped__"):
            target = target.__wrapped__
        else:
            return target


def _code_by_qualname(code) -> dict[str, object]:
    found = {}
    for const in code.co_consts:
        if hasattr(const, "co_qualname"):
            found[const.co_qualname] = const
            found.update(_code_by_qualname(const))
    return found


def _run_items(session, items, deadline: float) -> tuple[bool, str]:
    """True and the first failing test's id when a test fails (the mutant is killed). However the
    run ends, fixtures are torn down back to the first collected test's scope, so the next run
    starts from the same state (session fixtures such as the database and anvil stay up)."""
    home = _Scopes(session.items)

    def on_alarm(signum, frame):
        raise MutantTimeout

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, max(deadline - time.monotonic(), 1))
    try:
        for index, item in enumerate(items):
            nextitem = items[index + 1] if index + 1 < len(items) else home
            reports = runtestprotocol(item, nextitem=nextitem, log=False)
            failed = [report for report in reports if report.failed]
            if failed:
                if os.environ.get("MUTATE_DEBUG"):
                    print(failed[0].longreprtext[-1500:])
                return True, item.nodeid
        return False, ""
    except MutantTimeout:
        return True, "timeout"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        session._setupstate.teardown_exact(home)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    config = session.config
    module_path = config.getoption("--mutate-module")
    result_path = Path(config.getoption("--mutate-result"))
    max_seconds = config.getoption("--mutate-max-seconds")
    items = list(session.items)
    module = importlib.import_module(module_path.removesuffix(".py").replace("/", "."))
    source_file = str(ROOT / module_path)

    started = time.monotonic()
    failed, which, reached, durations = _baseline(session, items, source_file)
    baseline = time.monotonic() - started
    if failed:
        print(f"\nmutate: the tests fail on the original code ({which}); no mutants run")
        session.testsfailed = 1
        return True
    print(f"\nmutate: {module_path}: {len(items)} tests pass on the original code in {baseline:.1f} s")

    results = []
    killers: dict[str, list[str]] = {}  # function -> nodeids of the tests that killed its mutants
    first = config.getoption("--mutate-from")
    for mutant in mutants_of(Path(source_file).read_text())[first - 1 :]:
        chosen = _tests_for(mutant.function, items, reached, durations, killers.get(mutant.function, []))
        if not chosen:
            results.append({**_describe(mutant), "killed": False, "by": "not reached by any test", "seconds": 0})
            _write(result_path, module_path, baseline, results)
            print(f"mutate: #{mutant.number} line {mutant.line} {mutant.function}: {mutant.change}: NOT REACHED")
            continue
        budget = sum(durations[item.nodeid] for item in chosen)
        compiled = compile(mutant.tree, source_file, "exec")
        new_code = _code_by_qualname(compiled).get(mutant.function)
        function = _live_function(module, mutant.function)
        original = function.__code__
        try:
            function.__code__ = new_code
        except (ValueError, TypeError) as exc:  # e.g. a different closure: not applicable
            results.append({**_describe(mutant), "killed": True, "by": f"not applicable ({exc})"})
            continue
        mutant_started = time.monotonic()
        try:
            killed, by = _run_items(session, chosen, time.monotonic() + max(max_seconds, 3 * budget))
        finally:
            function.__code__ = original
        # A kill counts only if the killing test passes again on the original code: a mutant can
        # leave rows behind (tests with committed transactions) that would fail the next tests.
        if killed and by != "timeout":
            killer = next(item for item in items if item.nodeid == by)
            still_failing, _ = _run_items(session, [killer], time.monotonic() + max(max_seconds, 3 * budget))
            if still_failing:
                by = f"{by} (UNSURE: it fails on the original code too; state left behind)"
            else:
                killers.setdefault(mutant.function, []).insert(0, killer.nodeid)
        results.append(
            {
                **_describe(mutant),
                "killed": killed,
                "by": by,
                "tests": len(chosen),
                "seconds": time.monotonic() - mutant_started,
            }
        )
        # Written after every mutant, so that a run stopped part way still reports what it ran.
        _write(result_path, module_path, baseline, results)
        state = f"killed by {by}" if killed else "SURVIVED"
        print(f"mutate: #{mutant.number} line {mutant.line} {mutant.function}: {mutant.change}: {state}", flush=True)
    _write(result_path, module_path, baseline, results)
    return True


def _write(result_path: Path, module_path: str, baseline: float, results: list[dict]) -> None:
    result_path.write_text(json.dumps({"module": module_path, "baseline_seconds": baseline, "mutants": results}))


def _describe(mutant) -> dict:
    return {"number": mutant.number, "function": mutant.function, "line": mutant.line, "change": mutant.change}


def _reached_function(code) -> str:
    """The mutants' name for where a code object sits: its top-level function or method (a nested
    function, lambda or comprehension counts as the function that holds it)."""
    return code.co_qualname.split(".<locals>")[0]


def _baseline(session, items, source_file: str):
    """Runs every test once on the original code, one at a time, recording the functions of the
    module each test called and how long it took. Returns (failed, first failing test, reached,
    durations): reached maps a test's nodeid to the set of function names it called."""
    reached: dict[str, set[str]] = {}
    durations: dict[str, float] = {}
    current: set[str] = set()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == source_file:
            current.add(_reached_function(frame.f_code))

    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        for item in items:
            current.clear()
            started = time.monotonic()
            failed, which = _run_items(session, [item], time.monotonic() + 3600)
            durations[item.nodeid] = time.monotonic() - started
            reached[item.nodeid] = set(current)
            if failed:
                return True, which, reached, durations
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return False, "", reached, durations


def _tests_for(function: str, items, reached, durations, killers: list[str]) -> list:
    """The tests that call `function`, earlier killers of its mutants first, then fastest first."""
    calling = [item for item in items if function in reached[item.nodeid]]
    rank = {nodeid: index for index, nodeid in enumerate(dict.fromkeys(killers))}
    return sorted(calling, key=lambda item: (rank.get(item.nodeid, len(rank)), durations[item.nodeid]))
