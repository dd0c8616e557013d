"""`make bench`: every benchmark, one after another, each writing its raw results to
bench/results/NAME.json and its tables between their markers in docs/performance.md (bench/tables.py).
The prose around the tables is written by hand.

    .venv/bin/python -m bench.run                 every benchmark (about 30 minutes)
    .venv/bin/python -m bench.run gas post        those named
    .venv/bin/python -m bench.run --tables        the tables again from the results kept, nothing run

Each benchmark module has run() (measures, writes its JSON, returns it) and render(result) (its
tables, by marker name)."""

from __future__ import annotations

import importlib
import sys

from . import tables
from .common import log, read_result, recreate_database

# The order of `make bench`: the quick ones first, so a failure late does not hide them.
BENCHMARKS = ["gas", "post", "relay", "live", "verifier", "api", "page"]


def render(name: str) -> None:
    result = read_result(name)
    if result is None:
        log(f"{name}: no result in bench/results/ yet")
        return
    module = importlib.import_module(f"bench.{name}")
    tables.write(module.render(result))
    log(f"{name}: tables written to docs/performance.md")


def main(argv: list[str]) -> int:
    if argv == ["--tables"]:
        for name in BENCHMARKS:
            render(name)
        return 0
    names = argv or BENCHMARKS
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        raise SystemExit(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
    failed = []
    for name in names:
        log(f"--- {name}")
        try:
            importlib.import_module(f"bench.{name}").run()
            render(name)
        except Exception as exc:  # one broken benchmark must not hide the others' figures
            log(f"{name} failed: {exc!r}")
            failed.append(name)
    recreate_database()  # nothing of a benchmark's data is kept
    if failed:
        log(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
