"""verify_challenge.py's own edges that need no site and no chain: what it does with a command
line or a record it cannot use (exit 2, nothing decided, never a traceback), its progress line on
a terminal and into a file, and the 1 mm tie on which the site's verdict stands. Each was a
survivor of the script's mutation run (docs/reliability.md, the run of verify_challenge.py)."""

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest

import verify_challenge as v

# Nothing listens on the discard port: a verifier that got as far as the site would say so and exit 2.
NO_SITE = "http://127.0.0.1:9"


def run_main(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        code = v.main([*argv, "--quiet"])
    return code, err.getvalue()


@pytest.mark.parametrize(
    ("record", "args"),
    [([], []), ({"transactionHash": "0x" + "ab" * 32}, []), ({"challengeId": "7"}, []), ({}, ["--challenge", "7"])],
    ids=["a-list", "no-challenge-id", "a-text-challenge-id", "no-challenge-id-with-challenge"],
)
def test_a_record_that_is_not_a_geopoem_record_is_refused_before_anything_is_read(tmp_path, record, args):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    code, err = run_main("--site", NO_SITE, "--record", str(path), *args)
    assert code == 2
    assert f"could not verify: the record {path} is not a Geopoem record (no challengeId)" in err


def test_the_site_is_needed():
    with redirect_stderr(io.StringIO()) as err, pytest.raises(SystemExit) as exited:
        v.main(["--challenge", "7"])
    assert exited.value.code == 2
    assert "the following arguments are required: --site" in err.getvalue()


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_line_is_rewritten_in_place_on_a_terminal():
    terminal = Terminal()
    show = v.progress_printer(terminal)
    show("read 100 of 200 chain records")
    show("read 200 of 200 chain records")
    assert terminal.getvalue() == "\rread 100 of 200 chain records\x1b[K\rread 200 of 200 chain records\x1b[K"


def test_into_a_file_the_progress_is_at_most_a_line_a_second():
    """The first message is written at once; the next ones, microseconds later, are not."""
    log = io.StringIO()
    show = v.progress_printer(log)
    for n in range(3):
        show(f"read {n} of 3")
    assert log.getvalue() == "read 0 of 3\n"


def test_a_guess_within_1_mm_of_the_threshold_keeps_the_sites_verdict():
    """68.0004 m from the solution, threshold 68 m: not correct by the sums, but two
    implementations' floating point may differ there, so the site's verdict stands either way;
    2 mm further out it does not."""
    solution, guess = "29.979175, 31.134258", "29.979175, 31.134964"
    distance = v.distance_between(guess, solution)
    assert 68 < distance < 68.001
    terms = v.Terms(challenge_id=1, solution=solution, threshold_m=68, start=None, closed=None, anchor=None)
    row = {"submissionText": guess, "distanceMeters": distance, "submissionSalt": "ab" * 32}
    for shown in (True, False):
        outcome = v.Outcome({**row, "isCorrect": shown})
        v.check_offchain(outcome, terms=terms, chain_id=1)
        assert (outcome.correct, outcome.problems) == (shown, [])
    terms.threshold_m = 67
    outcome = v.Outcome({**row, "isCorrect": True})
    v.check_offchain(outcome, terms=terms, chain_id=1)
    assert outcome.problems == ["correct is False, the site shows True"]
