"""The benchmarks' preparations, run under Django with the site's own code (`python -m bench.site
COMMAND ...`, by bench/common.py's in_django); each prints its answer as JSON on its last line.

    seed                           the API's and the page's data, the pot's events recorded without a
                                   chain (devtools/pot_records.py): five paid challenges of 10 stakes
                                   and an open one of 10
    open RPC [CLOSE_SECONDS]       a challenge published by the services and opened in the pot for real
                                   (the worker's opening step, then the follower until it is confirmed)
    sign CHALLENGE FIRST COUNT OUT payers FIRST.. of bench/node.py each sign one stake of the challenge as
                                   a player's page does (a fresh salt, the v2 commitment, the stake nonce
                                   over the pot's terms digest, EIP-712 ReceiveWithAuthorization): the
                                   POST bodies, written to OUT"""

from __future__ import annotations

import json
import sys
import time
from decimal import Decimal
from typing import TYPE_CHECKING

from .common import django_main, rpc

if TYPE_CHECKING:
    from chain.token.authorization import TokenDomain

POEM = "<p>Iron lace above the river,<br>a thousand stairs to count the wind.</p>"
INSTRUCTIONS = "<p>Give the place as latitude, longitude.</p>"
SOLUTION = "48.85837, 2.294481"
THRESHOLD_M = 1000
# Guesses far from the solution, for the stakes that must not win.
FAR_TEXTS = [f"{-33.8568 + n / 1000:.6f}, 151.2153" for n in range(8)]


def _challenge(title: str, **terms):
    from challenges.services import challenge_create_published

    return challenge_create_published(
        poem_title=title,
        poem_text=POEM,
        instructions_text=INSTRUCTIONS,
        proximity_threshold_m=THRESHOLD_M,
        solution=SOLUTION,
        **terms,
    )


def _guess_text(n: int) -> str:
    """Every 4th guess within the threshold, the others far from it; all distinct."""
    if n % 4 == 0:
        return f"{48.85837 + n / 1_000_000:.6f}, 2.294481"
    return f"{-33 + n / 10_000:.6f}, {151 + n / 10_000:.6f}"


def seed() -> dict:
    """Five challenges paid out and one open, ten stakes each with their guesses: what a live page
    and its public answers show (the API and page benchmarks)."""
    from datetime import timedelta

    from challenges.commitments import guess_commitment, new_salt
    from challenges.coordinates import micro_degrees
    from challenges.geometry import is_correct
    from devtools.pot_records import PotRecorder
    from django.conf import settings
    from django.utils import timezone
    from responses.models import Guess

    recorder = PotRecorder()
    hour = timedelta(hours=1)
    paid = [_challenge(f"Resolved poem {i + 1}", closes_at=timezone.now() + hour) for i in range(5)]
    stakes: dict[int, list[tuple[int, str, int, tuple[int, int]]]] = {}
    for challenge in paid:
        recorder.open(challenge)
        stakes[challenge.pk] = _stakes(recorder, challenge, settings, guess_commitment, new_salt, micro_degrees, Guess)
    recorder.advance(int(hour.total_seconds()) + 60)
    for challenge in paid:
        recorder.reveal_solution(challenge)
        solution = micro_degrees(challenge.solution)
        correct = [s for s in stakes[challenge.pk] if is_correct(s[3], solution, THRESHOLD_M)]
        for seq, payer, _, point in correct[:2]:
            recorder.reveal_guess(challenge, seq=seq, payer=payer, lat_e6=point[0], lon_e6=point[1], correct=True)
    recorder.advance(settings.POT_GUESS_WINDOW_SECONDS + 60)
    for challenge in paid:
        state = challenge.pot
        state.refresh_from_db()
        pot = sum(s[2] for s in stakes[challenge.pk])
        prize = pot * 40 // 100
        share = pot - 2 * prize
        recorder.finalize(challenge, earliest=state.earliest_seq, highest=state.highest_seq, prize=prize, share=share)
        by_seq = {s[0]: s[1] for s in stakes[challenge.pk]}
        recorder.paid(challenge, kind=0, to=by_seq[state.earliest_seq], amount=prize)
        recorder.paid(challenge, kind=1, to=by_seq[state.highest_seq], amount=prize)
        recorder.paid(challenge, kind=2, to="0x" + "ab" * 20, amount=share)
    active = _challenge("The active poem", closes_at=timezone.now() + timedelta(days=30))
    recorder.open(active)
    _stakes(recorder, active, settings, guess_commitment, new_salt, micro_degrees, Guess)
    return {"resolved": [c.pk for c in paid], "active": active.pk}


def _stakes(recorder, challenge, settings, guess_commitment, new_salt, micro_degrees, Guess) -> list:
    out = []
    for n in range(10):
        payer = "0x" + f"{challenge.pk:08x}{n:032x}"
        text, salt = _guess_text(n), new_salt()
        point = micro_degrees(text)
        commitment = guess_commitment(chain_id=settings.CHAIN_ID, pot=settings.POT_ADDRESS, challenge_id=challenge.pk,
                                      payer=payer, lat_e6=point[0], lon_e6=point[1], salt=salt)  # fmt: skip
        amount = (n + 1) * 1_250_000
        seq = recorder.stake(challenge, payer=payer, amount=amount, commitment=commitment)
        Guess.objects.create(challenge=challenge, payer=payer, commitment=commitment, text=text, salt=salt,
                             lat_e6=point[0], lon_e6=point[1])  # fmt: skip
        out.append((seq, payer, amount, point))
    return out


def follow() -> None:
    """One round of the follower, then the game's next steps queued (the beat's task)."""
    from chain.pot.follow import pot_follow
    from chain.pot.steps import pot_steps

    pot_follow()
    pot_steps()


def open_for_real(url: str, challenge) -> None:
    """The worker's opening step, a block mined, the follower, until the opening is confirmed."""
    from chain.pot.opening import OpeningPending, opening_advance
    from challenges.models import OpeningStatus, PotOpening

    for _ in range(10):
        try:
            opening_advance(challenge_id=challenge.pk)
        except OpeningPending:
            pass
        rpc(url, "evm_mine")
        follow()
        if PotOpening.objects.get(challenge=challenge).status == OpeningStatus.CONFIRMED:
            return
    opening = PotOpening.objects.get(challenge=challenge)
    raise RuntimeError(f"the opening of {challenge} was not confirmed: {opening.status} {opening.last_error}")


def open_challenge(url: str, close_seconds: str = "1800") -> dict:
    from datetime import timedelta

    from django.utils import timezone

    challenge = _challenge("The benchmark's poem", closes_at=timezone.now() + timedelta(seconds=int(close_seconds)))
    open_for_real(url, challenge)
    challenge.pot.refresh_from_db()
    return {"challenge": challenge.pk, "termsDigest": challenge.pot.terms_digest}


def signed_stake(*, challenge_id: int, key: str, text: str, amount: int, domain: TokenDomain, digest: str) -> dict:
    """One stake as the player's page makes it: what it posts (`body`) and what it keeps."""
    from chain.pot.encoding import stake_nonce
    from chain.token.authorization import ReceiveAuthorization, typed_data
    from challenges.commitments import guess_commitment, new_salt
    from challenges.coordinates import micro_degrees
    from django.conf import settings
    from eth_account import Account
    from eth_account.messages import encode_typed_data

    payer = Account.from_key(key).address
    salt = new_salt()
    lat, lon = micro_degrees(text)
    commitment = guess_commitment(chain_id=settings.CHAIN_ID, pot=settings.POT_ADDRESS, challenge_id=challenge_id,
                                  payer=payer, lat_e6=lat, lon_e6=lon, salt=salt)  # fmt: skip
    nonce = stake_nonce(chain_id=settings.CHAIN_ID, pot=settings.POT_ADDRESS, challenge_id=challenge_id,
                        terms_digest=digest, commitment=commitment, amount=amount)  # fmt: skip
    valid_before = int(time.time()) + settings.RELAY_AUTHORIZATION_SECONDS
    authorization = ReceiveAuthorization(payer, settings.POT_ADDRESS, amount, 0, valid_before, nonce)
    typed = typed_data(authorization, domain)
    signature = Account.sign_message(encode_typed_data(full_message=typed), key).signature.hex()
    body = {
        "challengeId": challenge_id,
        "submitterAddress": payer,
        "submissionStake": f"{Decimal(amount).scaleb(-6):.2f}",
        "commitment": commitment,
        "authorization": {
            "validAfter": 0,
            "validBefore": valid_before,
            "signature": "0x" + signature.removeprefix("0x"),
        },
    }
    return {"payer": payer.lower(), "commitment": commitment, "amount": amount, "text": text, "salt": salt,
            "lat": lat, "lon": lon, "body": body}  # fmt: skip


def wallet_domain() -> TokenDomain:
    """The token's EIP-712 domain, read from the chain as the page reads it."""
    from chain.node.client import get_client
    from chain.token.domain import token_domain

    domain = token_domain(client=get_client())
    assert domain is not None, "the token has no EIP-712 domain"
    return domain


def sign(challenge_id: str, first: str, count: str, out: str) -> dict:
    """Stakes of 1.01 to 1.99 USDC by payers FIRST.. (bench/node.py), each its own guess."""
    from challenges.models import PotState

    from .node import payers

    digest = PotState.objects.get(challenge_id=int(challenge_id)).terms_digest
    domain = wallet_domain()
    signed = [
        signed_stake(challenge_id=int(challenge_id), key=p.key, text=_guess_text(int(first) + i + 1),
                     amount=1_000_000 + (1 + (int(first) + i) % 99) * 10_000, domain=domain, digest=digest)
        for i, p in enumerate(payers(int(count), start=int(first)))
    ]  # fmt: skip
    with open(out, "w") as f:
        json.dump(signed, f)
    return {"signed": len(signed)}


if __name__ == "__main__":
    django_main({"seed": seed, "open": open_challenge, "sign": sign}, sys.argv[1:])
