"""Writes the "geometry", "potEncodings" and "receiveAuthorizations" sections of tests/vectors.json
from the Python rules (challenges/geometry.py, challenges/commitments.py, chain/pot/encoding.py) and
eth_account, leaving the other sections as they are (and removing the treasury design's). Run after a
change of those rules: `.venv/bin/python -m tests.pot_vectors`.

The values are the Python's; they are pinned to the contract's own answers by
tests/test_pot_vectors_on_chain.py (GeopoemPot and GeoMath on anvil) and to the TypeScript by
frontend/src/lib/protocol/*.test.ts, so the three agree bit for bit. The random cases come from a fixed
seed: the file is the same on every run. Integers that may exceed 2^53 (what a JSON number holds exactly
in JavaScript) are decimal strings."""

from __future__ import annotations

import json
import math
import random
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

from chain.pot.encoding import Terms, stake_hash, stake_nonce, terms_digest
from challenges.commitments import guess_commitment, solution_commitment
from challenges.coordinates import micro_degrees, text_from_micro
from challenges.geometry import (
    HALF_CIRCUMFERENCE_M,
    MICRO_90,
    MICRO_180,
    chord_sq,
    cos_micro,
    in_range,
    is_correct,
    sin_micro,
    threshold_chord_sq,
    unit_vector,
)
from devtools.geodesy import destination, exact_m, pair_near, random_point

VECTORS_PATH = Path(__file__).resolve().parent / "vectors.json"
SEED = 20260412
RANDOM_PAIRS = 300
LARGEST_THRESHOLD_M = HALF_CIRCUMFERENCE_M - 1
# anvil's first deployment from its account #0 (nonce 0): where tests/test_pot_vectors_on_chain.py
# deploys the pot, so the nonces and stake hashes made for it can be read back from the contract.
ANVIL_POT = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
ANVIL_CHAIN_ID = 31337
SEPOLIA_CHAIN_ID = 11155111
PAYERS = (
    "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
)
OTHER_POT = "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238"


def _hex32(rng: random.Random) -> str:
    return rng.getrandbits(256).to_bytes(32, "big").hex()


def _six(value: Decimal) -> str:
    return str(value.quantize(Decimal("0.000001"), rounding=ROUND_HALF_EVEN))


# ---------------------------------------------------------------------------------------------------
# geometry


def _sin_cases(rng: random.Random) -> list[dict]:
    angles = [0, 1, -1, 30_000_000, 45_000_000, 60_000_000, -45_000_000, 1_000_000, 123_456_789, -123_456_789]
    # The folding points: 90° and 180° themselves and one micro-degree either side.
    angles += [MICRO_90, -MICRO_90, MICRO_90 - 1, MICRO_90 + 1, -(MICRO_90 - 1), -(MICRO_90 + 1)]
    angles += [MICRO_180, -MICRO_180, MICRO_180 - 1, -(MICRO_180 - 1)]
    angles += [rng.randint(-MICRO_180, MICRO_180) for _ in range(30)]
    return [{"microDegrees": a, "sin": str(sin_micro(a)), "cos": str(cos_micro(a))} for a in angles]


def _unit_cases(rng: random.Random) -> list[dict]:
    points = [
        (0, 0),
        (MICRO_90, 0),
        (-MICRO_90, 0),
        (MICRO_90, 123_456_789),  # the pole: every longitude is the same point
        (0, MICRO_180),
        (0, -MICRO_180),
        (MICRO_90 - 1, MICRO_180 - 1),
        (-(MICRO_90 - 1), -1),
        (48_858_400, 2_294_500),
        (-33_856_784, 151_215_296),
        (-45_000_000, -135_000_000),  # negative products: truncated toward zero, not floored
        (1, -1),
    ]
    points += [(rng.randint(-MICRO_90, MICRO_90), rng.randint(-MICRO_180, MICRO_180)) for _ in range(30)]
    cases = []
    for lat, lon in points:
        x, y, z = unit_vector(lat, lon)
        cases.append({"latE6": lat, "lonE6": lon, "x": str(x), "y": str(y), "z": str(z)})
    return cases


THRESHOLDS = [0, 1, 2, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 20_000_000, LARGEST_THRESHOLD_M]


def _threshold_cases(rng: random.Random) -> list[dict]:
    thresholds = THRESHOLDS + [rng.randint(0, LARGEST_THRESHOLD_M) for _ in range(10)]
    return [{"thresholdM": t, "chordSq": str(threshold_chord_sq(t))} for t in thresholds]


def _range_cases() -> list[dict]:
    points = [
        (MICRO_90, MICRO_180),
        (-MICRO_90, -MICRO_180),
        (MICRO_90 + 1, 0),
        (-MICRO_90 - 1, 0),
        (0, MICRO_180 + 1),
        (0, -MICRO_180 - 1),
        (MICRO_180, 0),
    ]
    return [{"latE6": lat, "lonE6": lon, "inRange": in_range(lat, lon)} for lat, lon in points]


def _micro_cases() -> list[dict]:
    texts = ["48.8584, 2.2945", "-0.000001, 180", "0, 0", "90, -180", "-90, 180", "29.979175, 31.134258"]
    texts += ["-33.856784, 151.215296", "0.5, -0.05", "89.999999, -179.999999", "-12.000001, 100.1"]
    cases = []
    for text in texts:
        lat, lon = micro_degrees(text)
        assert text_from_micro(lat, lon) == text
        cases.append({"text": text, "latE6": lat, "lonE6": lon})
    return cases


def correct_case(about: str, guess: tuple[int, int], solution: tuple[int, int], threshold_m: int) -> dict:
    return {
        "about": about,
        "guess": text_from_micro(*guess),
        "solution": text_from_micro(*solution),
        "thresholdM": threshold_m,
        "chordSq": str(chord_sq(unit_vector(*guess), unit_vector(*solution))),
        "thresholdChordSq": str(threshold_chord_sq(threshold_m)),
        "correct": is_correct(guess, solution, threshold_m),
        "haversineM": _six(exact_m(guess, solution)),
    }


def _correct_cases(rng: random.Random) -> list[dict]:
    m = 1_000_000
    paris = (48_858_400, 2_294_500)
    cases = [
        correct_case("the same point, threshold 0", paris, paris, 0),
        correct_case("one micro-degree of longitude, threshold 0", paris, (48_858_400, 2_294_501), 0),
        correct_case("one micro-degree of longitude (7 cm here), threshold 1 m", paris, (48_858_400, 2_294_501), 1),
        correct_case("9 micro-degrees of latitude (1.0008 m), threshold 1 m", paris, (48_858_409, 2_294_500), 1),
        correct_case("8 micro-degrees of latitude (0.89 m), threshold 1 m", paris, (48_858_408, 2_294_500), 1),
        correct_case("90 micro-degrees of latitude (10.008 m), threshold 10 m", paris, (48_858_490, 2_294_500), 10),
        correct_case("89 micro-degrees of latitude (9.9 m), threshold 10 m", paris, (48_858_489, 2_294_500), 10),
        correct_case("the pole at two longitudes is one point", (90 * m, 0), (90 * m, 123_456_789), 0),
        correct_case("across the pole", (89_999_999, 0), (89_999_999, 180 * m), 1),
        correct_case("the south pole, from 1.0008 m, threshold 1 m", (-90 * m, 0), (-89_999_991, 45 * m), 1),
        correct_case("180 and -180 are one meridian", (10 * m, 180 * m), (10 * m, -180 * m), 0),
        correct_case("across the antimeridian", (0, 179_999_999), (0, -179_999_999), 1),
        correct_case("across the antimeridian, 10 km", (-16_500_000, 179_950_000), (-16_500_000, -179_956_000), 10_000),
        correct_case("antipodes, the largest threshold", (0, 0), (0, 180 * m), LARGEST_THRESHOLD_M),
        correct_case("pole to pole, the largest threshold", (90 * m, 0), (-90 * m, 0), LARGEST_THRESHOLD_M),
        correct_case(
            "2.2 m short of the antipode: within the largest threshold", (0, 0), (0, 179_999_980), LARGEST_THRESHOLD_M
        ),
        correct_case(
            "1.1 m short of the antipode: beyond the largest threshold", (0, 0), (0, 179_999_990), LARGEST_THRESHOLD_M
        ),
        correct_case("Paris to London, 340.5 km", paris, (51_500_729, -124_625), 340_543),
        correct_case("Paris to London, a threshold 0.57 m short", paris, (51_500_729, -124_625), 340_542),
        correct_case("negative coordinates", (-33_856_784, 151_215_296), (-33_856_800, 151_215_300), 2),
        correct_case(
            "near the pole, half the world apart in longitude", (89_999_000, -90 * m), (89_999_000, 90 * m), 223
        ),
        correct_case("near the pole, a threshold 0.39 m short", (89_999_000, -90 * m), (89_999_000, 90 * m), 222),
        correct_case(
            "across the antimeridian near the south pole",
            (-89_000_000, 179_000_000),
            (-89_000_000, -179_000_000),
            3_882,
        ),
        correct_case(
            "across the antimeridian near the south pole, a threshold 0.04 m short",
            (-89_000_000, 179_000_000),
            (-89_000_000, -179_000_000),
            3_881,
        ),
    ]
    # A millimetre either side of each threshold: within it and beyond it.
    for threshold in [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, LARGEST_THRESHOLD_M]:
        for side, label in ((-1, "inside"), (1, "outside")):
            guess, solution = pair_near(rng, Decimal(threshold) + side * Decimal("0.001"), Decimal("0.0005"))
            cases.append(correct_case(f"{label} {threshold} m by a millimetre", guess, solution, threshold))
    for _ in range(RANDOM_PAIRS):
        guess = random_point(rng)
        if rng.random() < 0.1:
            threshold = rng.randint(0, LARGEST_THRESHOLD_M)
            solution = random_point(rng)
        else:
            threshold = round(10 ** rng.uniform(0, 6.3))
            solution = destination(guess, rng.uniform(0, 2 * math.pi), threshold * rng.uniform(0.8, 1.2))
        cases.append(correct_case("random", guess, solution, threshold))
    return cases


def geometry(rng: random.Random) -> dict:
    return {
        "_about": (
            "docs/protocol.md section 4: the pot's integer rule (contracts/GeoMath.sol), in Python "
            "(challenges/geometry.py) and TypeScript (frontend/src/lib/protocol/geometry.ts). ONE = 10^18; "
            "big integers are decimal strings. `microDegrees`: canonical text to micro-degrees and back. "
            "`correct`: the pot's verdict on a guess (in range and chordSq <= thresholdChordSq); haversineM "
            "is the exact haversine (50 digits, rounded to 6 decimals), for reference. Written by "
            "tests/pot_vectors.py (fixed seed); checked against the contract by "
            "tests/test_pot_vectors_on_chain.py."
        ),
        "microDegrees": _micro_cases(),
        "sinMicro": _sin_cases(rng),
        "unitVector": _unit_cases(rng),
        "inRange": _range_cases(),
        "thresholdChordSq": _threshold_cases(rng),
        "correct": _correct_cases(rng),
    }


# ---------------------------------------------------------------------------------------------------
# potEncodings


# A commitment case's keys, and the keyword arguments of guess_commitment and solution_commitment they are
# (the server's and verify_challenge.py's alike).
_COMMITMENT_ARGUMENTS = {"chainId": "chain_id", "pot": "pot", "challengeId": "challenge_id", "payer": "payer",
                         "latE6": "lat_e6", "lonE6": "lon_e6", "salt": "salt"}  # fmt: skip


def commitment_inputs(case: dict) -> dict:
    """A guessCommitments or solutionCommitments case's inputs, as guess_commitment's or
    solution_commitment's keyword arguments."""
    return {_COMMITMENT_ARGUMENTS[key]: value for key, value in case.items() if key in _COMMITMENT_ARGUMENTS}


def _guess_cases(rng: random.Random) -> list[dict]:
    rows = [
        (ANVIL_CHAIN_ID, ANVIL_POT, 1, PAYERS[0], 29_979_175, 31_134_258, "00" * 32),
        (ANVIL_CHAIN_ID, ANVIL_POT, 1, PAYERS[0].lower(), 29_979_175, 31_134_258, "00" * 32),  # case: same bytes
        (ANVIL_CHAIN_ID, ANVIL_POT, 1, PAYERS[1], 29_979_175, 31_134_258, "00" * 32),  # another payer
        (SEPOLIA_CHAIN_ID, ANVIL_POT, 1, PAYERS[0], 29_979_175, 31_134_258, "00" * 32),  # another chain
        (ANVIL_CHAIN_ID, OTHER_POT, 1, PAYERS[0], 29_979_175, 31_134_258, "00" * 32),  # another pot
        (ANVIL_CHAIN_ID, ANVIL_POT, 2, PAYERS[0], 29_979_175, 31_134_258, "00" * 32),  # another challenge
        (ANVIL_CHAIN_ID, ANVIL_POT, 7, PAYERS[2], -1, MICRO_180, "ff" * 32),  # int256 -1: all ones
        (ANVIL_CHAIN_ID, ANVIL_POT, 7, PAYERS[2], -MICRO_90, -MICRO_180, _hex32(rng)),
        (ANVIL_CHAIN_ID, ANVIL_POT, 7, PAYERS[2], MICRO_90 + 1, 0, _hex32(rng)),  # out of range: still a hash
    ]
    for _ in range(6):
        rows.append(
            (
                rng.choice((ANVIL_CHAIN_ID, SEPOLIA_CHAIN_ID, 1)),
                rng.choice((ANVIL_POT, OTHER_POT)),
                rng.randint(1, 10**6),
                rng.choice(PAYERS),
                rng.randint(-MICRO_90, MICRO_90),
                rng.randint(-MICRO_180, MICRO_180),
                _hex32(rng),
            )
        )
    keys = ("chainId", "pot", "challengeId", "payer", "latE6", "lonE6", "salt")
    cases = []
    for row in rows:
        case = dict(zip(keys, row, strict=True))
        case["commitment"] = guess_commitment(**commitment_inputs(case))
        cases.append(case)
    return cases


def _solution_cases(rng: random.Random) -> list[dict]:
    rows = [
        (ANVIL_CHAIN_ID, ANVIL_POT, 1, 29_979_175, 31_134_258, "00" * 32),
        (SEPOLIA_CHAIN_ID, ANVIL_POT, 1, 29_979_175, 31_134_258, "00" * 32),
        (ANVIL_CHAIN_ID, OTHER_POT, 1, 29_979_175, 31_134_258, "00" * 32),
        (ANVIL_CHAIN_ID, ANVIL_POT, 2, -33_856_784, -151_215_296, "ff" * 32),
        (ANVIL_CHAIN_ID, ANVIL_POT, 3, MICRO_90, -MICRO_180, _hex32(rng)),
    ]
    for _ in range(5):
        rows.append(
            (
                rng.choice((ANVIL_CHAIN_ID, SEPOLIA_CHAIN_ID, 1)),
                rng.choice((ANVIL_POT, OTHER_POT)),
                rng.randint(1, 10**6),
                rng.randint(-MICRO_90, MICRO_90),
                rng.randint(-MICRO_180, MICRO_180),
                _hex32(rng),
            )
        )
    keys = ("chainId", "pot", "challengeId", "latE6", "lonE6", "salt")
    cases = []
    for row in rows:
        case = dict(zip(keys, row, strict=True))
        case["commitment"] = solution_commitment(**commitment_inputs(case))
        cases.append(case)
    return cases


# Opened for real in tests/test_pot_vectors_on_chain.py: valid terms (GeopoemPot._checkTerms) with a close
# far in the future, no bond (so no token is needed to open them).
OPENS_AT = 1_900_000_000
CLOSES_AT = OPENS_AT + 7 * 86_400


def _terms_rows(rng: random.Random) -> list[tuple[int, Terms, bool]]:
    """(challenge id, terms, whether the pot can open them)."""
    openable = [
        Terms(_hex32(rng), _hex32(rng), 100, OPENS_AT, CLOSES_AT, CLOSES_AT + 86_400, 86_400, 1_000_000, 0),
        Terms(_hex32(rng), _hex32(rng), 0, OPENS_AT, CLOSES_AT, CLOSES_AT + 3_600, 3_600, 2_500_000, 0),
        Terms(_hex32(rng), _hex32(rng), LARGEST_THRESHOLD_M, OPENS_AT, CLOSES_AT, CLOSES_AT + 1, 3_600, 10**6, 0),
    ]
    # termsDigestOf is pure: any values its types hold, the largest of each included.
    limits = Terms("ff" * 32, "ff" * 32, 2**32 - 1, 2**32 - 1, 2**32 - 1, 2**32 - 1, 2**32 - 1, 2**64 - 1, 2**96 - 1)
    zeros = Terms("00" * 32, "00" * 32, 0, 0, 0, 0, 0, 0, 0)
    rows = [(10 + i, terms, True) for i, terms in enumerate(openable)]
    return rows + [(2**256 - 1, limits, False), (0, zeros, False)]


def _terms_json(terms: Terms) -> dict:
    return {
        "solutionCommitment": terms.solution_commitment,
        "termsHash": terms.terms_hash,
        "thresholdM": terms.threshold_m,
        "opensAt": terms.opens_at,
        "closesAt": terms.closes_at,
        "solutionDeadline": terms.solution_deadline,
        "guessWindow": terms.guess_window,
        "minStake": str(terms.min_stake),
        "bond": str(terms.bond),
    }


def pot_encodings(rng: random.Random) -> dict:
    terms_rows = _terms_rows(rng)
    digests = [
        {"challengeId": str(cid), "terms": _terms_json(t), "openable": ok, "digest": terms_digest(cid, t)}
        for cid, t, ok in terms_rows
    ]
    nonces = []
    for case in (d for d in digests if d["openable"]):
        for chain_id in (ANVIL_CHAIN_ID, SEPOLIA_CHAIN_ID):
            for amount in (1_000_000, 2**64 - 1, 2**256 - 1):
                commitment = _hex32(rng)
                inputs = {"chainId": chain_id, "pot": ANVIL_POT, "challengeId": int(case["challengeId"])}
                inputs |= {"termsDigest": case["digest"], "commitment": commitment, "amount": str(amount)}
                nonce = stake_nonce(
                    chain_id=chain_id,
                    pot=ANVIL_POT,
                    challenge_id=inputs["challengeId"],
                    terms_digest=case["digest"],
                    commitment=commitment,
                    amount=amount,
                )
                nonces.append(inputs | {"nonce": nonce})
    hashes = []
    for payer, amount in [(PAYERS[0], 1_000_000), (PAYERS[1], 2_500_000), (PAYERS[2], 2**64 - 1)]:
        commitment = _hex32(rng)
        hashes.append(
            {
                "payer": payer,
                "amount": str(amount),
                "commitment": commitment,
                "hash": stake_hash(payer=payer, amount=amount, commitment=commitment),
            }
        )
    hashes.append(
        {
            "payer": PAYERS[0].lower(),
            "amount": str(2**256 - 1),
            "commitment": "ff" * 32,
            "hash": stake_hash(payer=PAYERS[0], amount=2**256 - 1, commitment="ff" * 32),
        }
    )
    return {
        "_about": (
            "docs/protocol.md section 1: the pot's encodings (contracts/GeopoemPot.sol). Hashes are lowercase "
            "hex without 0x; amounts and the challenge ids of termsDigests are decimal strings (uint256). "
            "guess and solution commitments: sha256 of abi.encode (challenges/commitments.py); terms digest, "
            "stake nonce and stake hash: keccak256 of abi.encode (chain/pot/encoding.py). `openable` terms are "
            "opened on anvil by tests/test_pot_vectors_on_chain.py, which reads every nonce back from the pot "
            f"deployed at {ANVIL_POT}."
        ),
        "guessCommitments": _guess_cases(rng),
        "solutionCommitments": _solution_cases(rng),
        "termsDigests": digests,
        "stakeNonces": nonces,
        "stakeHashes": hashes,
    }


# anvil's well-known accounts #1 and #2: the vectors' signers (test keys, public by design).
SIGNER_KEYS = (
    "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
    "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdfc02a2",
)
# Circle's USDC on Sepolia as its contract names itself, and the local test token behind its proxy.
TOKEN_DOMAINS = (
    {"name": "USDC", "version": "2", "chainId": SEPOLIA_CHAIN_ID,
     "verifyingContract": "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238"},
    {"name": "USD Coin", "version": "2", "chainId": ANVIL_CHAIN_ID,
     "verifyingContract": "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"},
)  # fmt: skip


def receive_authorizations(nonces: list[dict]) -> dict:
    """The EIP-712 typed data a player signs to stake (docs/protocol.md section 2, "What the player
    signs"), its digest and a signature, made with eth_account: an implementation neither the server
    (chain/token/authorization.py) nor the page (frontend/src/lib/authorization.ts) shares."""
    from eth_account import Account
    from eth_account.messages import _hash_eip191_message, encode_typed_data

    cases = []
    for domain, key in zip(TOKEN_DOMAINS, SIGNER_KEYS, strict=True):
        stake = next(n for n in nonces if n["chainId"] == domain["chainId"])
        message = {
            "from": Account.from_key(key).address,
            "to": stake["pot"],
            "value": int(stake["amount"]),
            "validAfter": 0,
            "validBefore": 1_767_227_400,
            "nonce": "0x" + stake["nonce"],
        }
        document = {
            "types": {
                "EIP712Domain": [
                    {"name": "name", "type": "string"},
                    {"name": "version", "type": "string"},
                    {"name": "chainId", "type": "uint256"},
                    {"name": "verifyingContract", "type": "address"},
                ],
                "ReceiveWithAuthorization": [
                    {"name": name, "type": kind}
                    for name, kind in (
                        ("from", "address"),
                        ("to", "address"),
                        ("value", "uint256"),
                        ("validAfter", "uint256"),
                        ("validBefore", "uint256"),
                        ("nonce", "bytes32"),
                    )
                ],  # fmt: skip
            },
            "primaryType": "ReceiveWithAuthorization",
            "domain": domain,
            "message": message,
        }
        signable = encode_typed_data(full_message=document)
        cases.append(
            {
                "domain": domain,
                "message": message | {"value": str(message["value"])},
                "domainSeparator": "0x" + bytes(signable.header).hex(),
                "digest": "0x" + bytes(_hash_eip191_message(signable)).hex(),
                "signerKey": key,
                "signature": "0x" + bytes(Account.sign_message(signable, key).signature).hex(),
            }
        )
    return {
        "_about": (
            'docs/protocol.md section 2, "What the player signs": EIP-3009\'s ReceiveWithAuthorization from the '
            "player to the pot, for the stake's amount, with the stake nonce of potEncodings.stakeNonces, under the "
            "token's EIP-712 domain. `value` is a decimal string; the digest and signature are eth_account's "
            "(RFC 6979, so the same on every run)."
        ),
        "cases": cases,
    }


def build() -> dict:
    rng = random.Random(SEED)
    shapes = geometry(rng)  # first: the seed's draws are taken in this order
    encodings = pot_encodings(rng)
    return {
        "geometry": shapes,
        "potEncodings": encodings,
        "receiveAuthorizations": receive_authorizations(encodings["stakeNonces"]),
    }


# The treasury design's sections, gone with it: main() removes them from the file.
RETIRED = ("guessCommitments", "solutionCommitments", "calldata", "prizeSplits", "distances", "exceptions",
           "transferAuthorizations")  # fmt: skip


def main() -> None:
    vectors = json.loads(VECTORS_PATH.read_text())
    for name in RETIRED:
        vectors.pop(name, None)
    vectors.update(build())
    VECTORS_PATH.write_text(json.dumps(vectors, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote geometry, potEncodings and receiveAuthorizations to {VECTORS_PATH}")


if __name__ == "__main__":
    main()
