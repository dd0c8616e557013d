"""`make bench`: every benchmark, then docs/performance.md from their results.
`python -m bench.run [api|scale|verify|verifier|live|page|burst|relay_burst|admin_budget|report ...]` runs a
subset (admin_budget, the admin's 30-second budget on 200,000 responses, only when named); the report always
uses the latest result of each benchmark in bench/results/."""

import sys

from . import report
from .common import DATABASE, log, recreate_database


def main(argv: list[str]) -> int:
    # The longest (scale, ~15 min) last.
    names = argv or ["page", "api", "verify", "verifier", "live", "burst", "relay_burst", "scale"]
    failed = []
    for name in names:
        if name == "report":
            continue
        log(f"--- {name}")
        try:
            module = __import__(f"bench.{name}", fromlist=["run"])
            module.run()
        except Exception as exc:  # one broken benchmark must not hide the others' figures
            log(f"{name} failed: {exc!r}")
            failed.append(name)
    report.write()
    # The million rows are not kept: the database is emptied (it is created afresh by each benchmark).
    recreate_database(DATABASE)
    if failed:
        log(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
