"""Reliability tests: report the fuzzing figures at the end of the run."""


def pytest_terminal_summary(terminalreporter):
    from .test_fuzz_api import FUZZ_COUNTS, FUZZ_STATUSES

    if FUZZ_COUNTS:
        total = sum(FUZZ_COUNTS.values())
        terminalreporter.write_line(f"schemathesis: {total} generated cases, 0 server errors allowed")
        for operation, count in sorted(FUZZ_COUNTS.items()):
            terminalreporter.write_line(f"  {operation}: {count}")
        statuses = ", ".join(f"{code}: {n}" for code, n in sorted(FUZZ_STATUSES.items()))
        terminalreporter.write_line(f"  answers by status: {statuses}")
