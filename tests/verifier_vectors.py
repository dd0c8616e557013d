"""Writes the "verifier" section of tests/vectors.json: the rules both verifiers compute when they
replay a pot (verify_challenge.py and frontend/src/lib/verify/), leaving every other section as it is.
Run after a change of those rules: `.venv/bin/python -m tests.verifier_vectors`.

- `winners`: stakes (sequence, amount) and the reveals of their guesses in the order they reached the
  chain, duplicates and incorrect ones included; the winners the pot keeps (docs/protocol.md section 4:
  the lowest correct sequence; the highest correct stake, ties to the lower sequence). The expected
  winners are computed here from that definition over the set of correct reveals, not by replaying.
- `verdicts`: a revealed point (micro-degrees, out of range too: the pot scores it incorrect) or a
  published text, the solution and the threshold; the verdict is challenges/geometry.py's, which
  tests/test_pot_vectors_on_chain.py pins to the contract.
- `splits`: a pot in token units; each prize (40 %, rounded down) and the share (the remainder).
- `bondShares`: after an abort, the refunds in the order they are made and the bond's share of each
  (bondLeft x stake / potLeft, rounded down: the last takes what remains), as GeopoemPot.refund.
- `beats`: the winners so far and a correct guess not revealed: the prizes it would take (a record's
  check, and a guess the site held back).
- `amounts`: the site's USDC amounts read as token units (null: not an amount), and units written back.
- `quoted`: a value of the site's JSON as a difference quotes it (the script's `!r`: Python's repr).
- `replay`: a challenge's raw logs and what the replay of them gives: every rule broken, in the order
  found, the winners, the refunds' order and stateOf (tests/replay_vectors.py).

The site computes two of these too, held to the same cases: the winners (chain/pot/projection.py,
tests/test_chain_order.py) and the split (challenges/scoring.py, tests/test_vectors.py).

Fixed seed: the file is the same on every run. Amounts are decimal strings (a uint64 exceeds 2^53)."""

from __future__ import annotations

import json
import random
from decimal import Decimal
from pathlib import Path

from challenges.coordinates import micro_degrees, text_from_micro
from challenges.geometry import HALF_CIRCUMFERENCE_M, in_range, is_correct

from .replay_vectors import replay_cases

VECTORS_PATH = Path(__file__).resolve().parent / "vectors.json"
SEED = 20261128
GIZA = micro_degrees("29.979175, 31.134258")
NEAR = micro_degrees("29.979, 31.134")

ABOUT = (
    "docs/protocol.md sections 2 and 4: what both verifiers compute when they replay the pot "
    "(verify_challenge.py; frontend/src/lib/verify/). `winners`: the reveals in chain order, duplicates and "
    "incorrect ones included, and the winners the pot keeps (null: none). `verdicts`: a revealed point, out of "
    "range too, or a published text, against the solution and threshold. `splits`: each prize and the share, "
    "token units. `bondShares`: an abort's refunds in the order made and the bond's share of each. `beats`: the "
    "prizes a correct guess not revealed would take from the winners so far. `amounts`: USDC text to token units "
    "(null: not an amount) and back. `quoted`: a value of the site's JSON as a difference quotes it (Python's "
    "repr). `replay`: a challenge's raw logs; the rules they break as (stake, sentence) in the order found, the "
    "winners, the refunds' order and the stateOf the head must answer. Written by tests/verifier_vectors.py "
    "(fixed seed)."
)


def expected_winners(amounts: dict[int, int], reveals: list[dict]) -> tuple[int | None, int | None]:
    correct = {r["seq"] for r in reveals if r["correct"]}
    if not correct:
        return None, None
    return min(correct), min(correct, key=lambda seq: (-amounts[seq], seq))


def winners_case(about: str, amounts: dict[int, int], reveals: list[dict]) -> dict:
    earliest, highest = expected_winners(amounts, reveals)
    return {
        "about": about,
        "stakes": [{"seq": seq, "amount": str(amount)} for seq, amount in sorted(amounts.items())],
        "reveals": reveals,
        "earliest": earliest,
        "highest": highest,
    }


def _reveals(pairs: list[tuple[int, bool]]) -> list[dict]:
    return [{"seq": seq, "correct": correct} for seq, correct in pairs]


def _random_winners(rng: random.Random, index: int) -> dict:
    count = rng.randint(5, 40)
    amounts = {seq: rng.choice([1_000_000, 2_500_000, 5_000_000, 7_000_000]) for seq in range(1, count + 1)}
    verdicts = {seq: rng.random() < 0.4 for seq in amounts}
    revealed = rng.sample(sorted(amounts), rng.randint(1, count))
    revealed += rng.choices(revealed, k=rng.randint(0, 10))  # duplicates, anywhere
    rng.shuffle(revealed)
    return winners_case(
        f"random {index}: {count} stakes, {len(revealed)} reveals in any order, duplicates included",
        amounts,
        _reveals([(seq, verdicts[seq]) for seq in revealed]),
    )


def winners(rng: random.Random) -> list[dict]:
    five, three, seven = 5_000_000, 3_000_000, 7_000_000
    cases = [
        winners_case("no reveal: no winner", {1: five, 2: three}, []),
        winners_case("only incorrect reveals: no winner", {1: five, 2: three}, _reveals([(2, False), (1, False)])),
        winners_case("one correct guess wins both", {1: five, 2: three}, _reveals([(2, True)])),
        winners_case(
            "the earliest is the lowest sequence, the highest the largest stake",
            {1: five, 2: three, 3: seven},
            _reveals([(1, False), (2, True), (3, True)]),
        ),
        winners_case(
            "revealed in reverse order: the same winners",
            {1: five, 2: three, 3: seven},
            _reveals([(3, True), (2, True), (1, False)]),
        ),
        winners_case(
            "equal stakes: the highest goes to the lower sequence, whatever the order",
            {1: five, 2: five, 3: five},
            _reveals([(3, True), (2, True)]),
        ),
        winners_case(
            "a larger stake that is incorrect does not count",
            {1: seven * 10, 2: three, 3: five},
            _reveals([(1, False), (3, True), (2, True)]),
        ),
        winners_case(
            "a guess revealed again changes nothing",
            {1: three, 2: seven},
            _reveals([(2, True), (1, True), (2, True), (1, True), (2, True)]),
        ),
        winners_case(
            "a later, larger correct stake takes the highest only",
            {1: three, 2: three, 3: seven * 100},
            _reveals([(1, True), (2, True), (3, True)]),
        ),
    ]
    return cases + [_random_winners(rng, i) for i in range(1, 9)]


def verdict_case(about: str, guess: tuple[int, int], solution: tuple[int, int], threshold_m: int) -> dict:
    return {
        "about": about,
        "guess": {"latE6": guess[0], "lonE6": guess[1]},
        "text": text_from_micro(*guess) if in_range(*guess) else None,
        "solution": {"latE6": solution[0], "lonE6": solution[1]},
        "thresholdM": threshold_m,
        "correct": is_correct(guess, solution, threshold_m),
    }


def smallest_threshold(guess: tuple[int, int], solution: tuple[int, int]) -> int:
    """The smallest threshold at which the pot calls the guess correct (the verdict rises with it)."""
    low, high = 0, HALF_CIRCUMFERENCE_M - 1
    while low < high:
        middle = (low + high) // 2
        if is_correct(guess, solution, middle):
            high = middle
        else:
            low = middle + 1
    return low


def verdicts(rng: random.Random) -> list[dict]:
    cases = [
        verdict_case("about 30 m from the solution, threshold 150 m", NEAR, GIZA, 150),
        verdict_case("about 30 m from the solution, threshold 10 m", NEAR, GIZA, 10),
        verdict_case("the very point, threshold 0", GIZA, GIZA, 0),
        verdict_case("one micro-degree away, threshold 0", (GIZA[0], GIZA[1] + 1), GIZA, 0),
        verdict_case("a latitude out of range is incorrect, never an error", (90_000_001, 0), GIZA, 150),
        verdict_case("a longitude out of range is incorrect", (0, -180_000_001), (0, 179_999_999), 1_000_000),
        verdict_case("two spellings of the north pole", (90_000_000, 0), (90_000_000, 123_456_789), 0),
        verdict_case("the antimeridian from both sides", (0, 180_000_000), (0, -180_000_000), 0),
        verdict_case("near the antipode, the largest threshold", (1, 2), (-1, -179_999_998), HALF_CIRCUMFERENCE_M - 1),
        verdict_case("southern and western, 10,000 km", (-33_856_784, -151_215_297), (51_507_351, -127_754), 10**7),
        verdict_case("western, within 10,000 km", (40_712_776, -74_005_974), (51_507_351, -127_754), 10**7),
    ]
    for index in range(8):
        guess = (rng.randint(-90_000_000, 90_000_000), rng.randint(-180_000_000, 180_000_000))
        solution = (
            max(-90_000_000, min(90_000_000, guess[0] + rng.randint(-20_000, 20_000))),
            max(-180_000_000, min(180_000_000, guess[1] + rng.randint(-20_000, 20_000))),
        )
        edge = smallest_threshold(guess, solution)
        cases.append(verdict_case(f"random {index}: at the smallest threshold that takes it", guess, solution, edge))
        cases.append(verdict_case(f"random {index}: a metre below it", guess, solution, edge - 1))
    return cases


def splits() -> list[dict]:
    pots = [0, 1, 2, 3, 5, 1_000_000, 12_345_678, 15_000_000, 10**18 + 7, 2**96 - 1]
    out = []
    for pot in pots:
        prize = pot * 40 // 100
        out.append({"pot": str(pot), "prize": str(prize), "share": str(pot - 2 * prize)})
    return out


def bond_case(about: str, refunds: list[int], bond: int) -> dict:
    pot = sum(refunds)
    shares, bond_left, pot_left = [], bond, pot
    for amount in refunds:
        share = bond_left * amount // pot_left
        shares.append(share)
        bond_left, pot_left = bond_left - share, pot_left - amount
    assert sum(shares) == bond
    return {
        "about": about,
        "pot": str(pot),
        "bond": str(bond),
        "refunds": [str(r) for r in refunds],
        "shares": [str(s) for s in shares],
    }


def bond_shares() -> list[dict]:
    return [
        bond_case("no bond", [5_000_000, 3_000_000, 7_000_000], 0),
        bond_case("a bond that divides evenly", [5_000_000, 5_000_000], 2_000_000),
        bond_case(
            "a bond that does not: the last refund takes what remains", [5_000_000, 3_000_000, 7_000_000], 1_000_000
        ),
        bond_case("the same stakes refunded in another order", [7_000_000, 5_000_000, 3_000_000], 1_000_000),
        bond_case("one stake takes the whole bond", [1_000_000], 999_999),
        bond_case("a bond larger than the pot", [1_000_000, 2_000_000, 1_000_001], 10_000_000_007),
    ]


def beats_case(best: tuple[int | None, int | None, int], seq: int, amount: int) -> dict:
    """A correct guess takes the earliest prize from a higher sequence or nobody, the highest from a
    smaller stake, an equal stake of a higher sequence, or nobody."""
    earliest, highest, highest_amount = best
    won = []
    if earliest is None or seq < earliest:
        won.append("earliest")
    if highest is None or amount > highest_amount or (amount == highest_amount and seq < highest):
        won.append("highest")
    return {
        "best": {"earliest": earliest, "highest": highest, "highestAmount": str(highest_amount)},
        "seq": seq,
        "amount": str(amount),
        "won": won,
    }


def beats(rng: random.Random) -> list[dict]:
    best = (2, 3, 7_000_000)
    cases = [
        beats_case((None, None, 0), 9, 1),
        beats_case(best, 1, 1_000_000),
        beats_case(best, 4, 8_000_000),
        beats_case(best, 1, 7_000_000),
        beats_case(best, 4, 7_000_000),
        beats_case(best, 2, 3_000_000),
        beats_case(best, 3, 7_000_000),
        beats_case((5, 5, 2_000_000), 5, 2_000_000),
    ]
    for _ in range(8):
        earliest = rng.randint(1, 30)
        highest = rng.randint(earliest, 40)
        amount = rng.choice([1_000_000, 3_000_000, 7_000_000])
        seq = rng.randint(1, 45)
        cases.append(beats_case((earliest, highest, amount), seq, rng.choice([1_000_000, 3_000_000, 7_000_000])))
    return cases


def amounts() -> dict:
    """The amounts as the site writes them (6 decimals) and what neither verifier takes for one."""
    valid = ["15.000000", "0.000001", "1.00", "0", "12.5", "7", "-3.000000", "123456789012.345678"]
    invalid = ["1.0000001", "abc", "", "NaN", "Infinity", "1.2.3", "0x10", "1,5", None]
    units = [0, 1, 999_999, 1_000_000, 6_000_000, 12_345_678, 10**18 + 7]
    return {
        "read": [{"text": text, "units": str(int(Decimal(text) * 10**6))} for text in valid]
        + [{"text": text, "units": None} for text in invalid],
        "written": [{"units": str(u), "text": f"{u // 10**6}.{u % 10**6:06d}"} for u in units],
    }


def quoted() -> list[dict]:
    values = [
        "29.979, 31.134",
        "it's",
        'a "quoted" poem',
        "both ' and \"",
        "a\\b",
        "tab\there\nand a line",
        "\x07",
        "",
        "café",
        None,
        5000,
        True,
        False,
    ]
    return [{"value": value, "text": repr(value)} for value in values]


def build() -> dict:
    rng = random.Random(SEED)
    return {
        "_about": ABOUT,
        "winners": winners(rng),
        "verdicts": verdicts(rng),
        "splits": splits(),
        "bondShares": bond_shares(),
        "beats": beats(rng),
        "amounts": amounts(),
        "quoted": quoted(),
        "replay": replay_cases(),
    }


def main() -> None:
    vectors = json.loads(VECTORS_PATH.read_text())
    vectors["verifier"] = build()
    VECTORS_PATH.write_text(json.dumps(vectors, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
