"""Reads of stakes as the API shows them (docs/protocol.md 3.4 and 3.5): a stake in the pot (from its
Staked event), or a signed stake still on its way to it, with the guess the site holds (secret until
the solution is on chain) and, once the challenge is final, what it won, was paid or refunded."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from functools import cached_property

from django.conf import settings
from django.db.models import QuerySet

from challenges.models import Challenge, PotState
from challenges.scoring import prize_split
from challenges.selectors import Phase, chain_clock, chain_now, challenge_phase

from .models import Guess, PaymentKind, PotPayment, RelayStatus, SignedStake, Stake

RELAYING = (RelayStatus.QUEUED, RelayStatus.SENT, RelayStatus.NOT_NEEDED)


def usdc(units: int | Decimal | None) -> str:
    """Token units as USDC with the token's 6 decimals, exactly."""
    return f"{Decimal(units or 0).scaleb(-settings.TOKEN_DECIMALS):.6f}"


def _state(challenge: Challenge) -> PotState | None:
    try:
        return challenge.pot
    except PotState.DoesNotExist:
        return None


class _Context:
    """What every stake of one challenge needs, read once, when first needed: a signed stake on its
    way, without a guess, needs none of it."""

    def __init__(self, challenge: Challenge, *, confirmed_block: int) -> None:
        self.challenge = challenge
        self.confirmed_block = confirmed_block

    @cached_property
    def state(self) -> PotState | None:
        return _state(self.challenge)

    @cached_property
    def revealed(self) -> bool:
        return self.state is not None and self.state.solution_block is not None

    @cached_property
    def phase(self) -> str:
        return challenge_phase(self.challenge, now=chain_now())

    @cached_property
    def final(self) -> bool:
        return self.phase in (Phase.FINAL, Phase.PAID, Phase.ABORTED)

    @cached_property
    def payments(self) -> list[PotPayment]:
        return list(PotPayment.objects.filter(challenge_id=self.challenge.pk)) if self.final else []

    def outcome(self, stake: Stake | None) -> dict | None:
        if stake is None or not self.final or self.state is None:
            return None
        won = []
        if self.phase != Phase.ABORTED:
            if self.state.earliest_seq == stake.seq:
                won.append(PaymentKind.EARLIEST.value)
            if self.state.highest_seq == stake.seq:
                won.append(PaymentKind.HIGHEST.value)
        paid_kinds = {p.kind for p in self.payments}
        prize = sum(int(p.amount_units) for p in self.payments if p.kind in won)
        refund = next((p for p in self.payments if p.kind == PaymentKind.REFUND and p.seq == stake.seq), None)
        return {
            "prize": usdc(prize),
            "prizes": won,
            "paid": all(kind in paid_kinds for kind in won),
            "refund": usdc(int(refund.amount_units) + int(refund.bond_units)) if refund else None,
        }


def stake_view(context: _Context, *, stake: Stake | None, signed: SignedStake | None, guess: Guess | None) -> dict:
    """One stake's API shape; `stake` (on chain) or `signed` (on its way) or both."""
    source = stake if stake is not None else signed
    assert source is not None
    if stake is not None:
        status = "confirmed" if stake.block_number <= context.confirmed_block else "pending"
    else:
        assert signed is not None
        status = {"refused": "refused", "failed": "failed"}.get(str(signed.relay_status), "relaying")
    shown = guess is not None and context.revealed
    if shown and guess is not None:
        correct: bool | None = guess.is_correct
        distance = f"{guess.distance_m:.2f}" if guess.distance_m is not None else None
    else:
        correct = stake.revealed_correct if stake is not None and context.revealed else None
        distance = None
    return {
        "id": stake.seq if stake is not None else None,
        "challengeId": context.challenge.pk,
        "submitterAddress": source.payer,
        "submissionStake": usdc(source.amount_units),
        "commitment": source.commitment,
        "status": status,
        "transactionHash": stake.transaction_hash if stake else None,
        "blockNumber": stake.block_number if stake else None,
        "logIndex": stake.log_index if stake else None,
        "submissionTimestamp": int(stake.block_time.timestamp()) if stake else None,
        "paymentMethod": "authorization" if signed is not None else "approval",
        "authorization": (
            {
                "validBefore": signed.valid_before,
                "relayStatus": signed.relay_status,
                "relayCode": signed.relay_code,
                "relayReason": signed.relay_reason,
                "relayTransactionHash": signed.relay_transaction_hash or None,
            }
            if signed is not None
            else None
        ),
        "guessReceived": guess is not None,
        "submissionText": guess.text if shown and guess else None,
        "submissionSalt": guess.salt if shown and guess else None,
        "revealed": stake is not None and stake.revealed_correct is not None,
        "isCorrect": correct,
        "distanceMeters": distance,
        "outcome": context.outcome(stake),
    }


def _confirmed_block() -> int:
    clock = chain_clock()
    return clock.confirmed_block if clock is not None else -1


def _guesses(challenge_id: int, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], Guess]:
    keys = list(keys)
    if not keys:
        return {}
    commitments = {c for _, c in keys}
    rows = Guess.objects.filter(challenge_id=challenge_id, commitment__in=commitments)
    return {(g.payer, g.commitment): g for g in rows}


def _signed_for(challenge_id: int, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], SignedStake]:
    commitments = {c for _, c in keys}
    rows = SignedStake.objects.filter(challenge_id=challenge_id, commitment__in=commitments)
    return {(s.payer, s.commitment): s for s in rows}


def stake_by_commitment(*, commitment: str) -> dict | None:
    """The stake with this commitment (the lowest sequence when several share it), or the signed stake
    with it still on its way."""
    stake = (
        Stake.objects.filter(commitment=commitment).select_related("challenge").order_by("challenge_id", "seq").first()
    )
    signed: SignedStake | None
    if stake is not None:
        challenge = stake.challenge
        key = (stake.payer, stake.commitment)
        signed = _signed_for(challenge.pk, [key]).get(key)
    else:
        signed = SignedStake.objects.filter(commitment=commitment).select_related("challenge").order_by("id").first()
        if signed is None:
            return None
        challenge = signed.challenge
        key = (signed.payer, signed.commitment)
    context = _Context(challenge, confirmed_block=_confirmed_block())
    return stake_view(context, stake=stake, signed=signed, guess=_guesses(challenge.pk, [key]).get(key))


def stake_just_signed(*, signed: SignedStake, challenge: Challenge) -> dict:
    """The view of a signed stake just stored when nothing else carries its commitment (no stake in
    the pot, no other signed stake, no guess): what stake_by_commitment would read back, from the row
    in hand (the POST's answer, docs/protocol.md 3.1)."""
    return stake_view(_Context(challenge, confirmed_block=-1), stake=None, signed=signed, guess=None)


def stakes_by_address(*, address: str, challenge_id: int | None = None, after_id: int | None, limit: int) -> list[dict]:
    """A payer's stakes, newest first: first the signed stakes not in the pot (yet), then a page of the
    stakes in the pot (keyset on the row id, newest first)."""
    confirmed = _confirmed_block()
    stakes: QuerySet[Stake] = Stake.objects.filter(payer=address).select_related("challenge")
    signed_rows: QuerySet[SignedStake] = SignedStake.objects.filter(payer=address).select_related("challenge")
    if challenge_id is not None:
        stakes = stakes.filter(challenge_id=challenge_id)
        signed_rows = signed_rows.filter(challenge_id=challenge_id)
    if after_id is not None:
        stakes = stakes.filter(pk__lt=after_id)
    page = list(stakes.order_by("-pk")[: limit + 1])
    out: list[dict] = []
    contexts: dict[int, _Context] = {}

    def context_of(challenge: Challenge) -> _Context:
        if challenge.pk not in contexts:
            contexts[challenge.pk] = _Context(challenge, confirmed_block=confirmed)
        return contexts[challenge.pk]

    if after_id is None:
        in_pot = set(Stake.objects.filter(payer=address).values_list("challenge_id", "payer", "commitment"))
        for signed in signed_rows.order_by("-pk")[:limit]:
            if (signed.challenge_id, signed.payer, signed.commitment) not in in_pot:
                guess = _guesses(signed.challenge_id, [(signed.payer, signed.commitment)]).get(
                    (signed.payer, signed.commitment)
                )
                out.append(stake_view(context_of(signed.challenge), stake=None, signed=signed, guess=guess))
    for stake in page:
        key = (stake.payer, stake.commitment)
        view = stake_view(
            context_of(stake.challenge),
            stake=stake,
            signed=_signed_for(stake.challenge_id, [key]).get(key),
            guess=_guesses(stake.challenge_id, [key]).get(key),
        )
        view["_row"] = stake.pk
        out.append(view)
    return out


def stakes_public(*, challenge_id: int | None, after_id: int, limit: int) -> list[dict]:
    """Every stake of the challenges whose solution is on chain, with the guesses the site holds, in
    order (row id ascending, which is sequence order within a challenge)."""
    stakes = Stake.objects.filter(challenge__pot__solution_block__isnull=False, pk__gt=after_id).order_by("pk")
    if challenge_id is not None:
        stakes = stakes.filter(challenge_id=challenge_id)
    rows = list(stakes[: limit + 1])
    # Each challenge once, not joined into every stake's row (its texts and times a thousand times over).
    challenges = Challenge.objects.select_related("pot", "opening").in_bulk({stake.challenge_id for stake in rows})
    confirmed = _confirmed_block()
    contexts: dict[int, _Context] = {}
    by_challenge: dict[int, list[Stake]] = {}
    for stake in rows:
        by_challenge.setdefault(stake.challenge_id, []).append(stake)
    guesses: dict[tuple[int, str, str], Guess] = {}
    signed: dict[tuple[int, str, str], SignedStake] = {}
    for cid, group in by_challenge.items():
        keys = [(s.payer, s.commitment) for s in group]
        guesses.update({(cid, *k): g for k, g in _guesses(cid, keys).items()})
        signed.update({(cid, *k): s for k, s in _signed_for(cid, keys).items()})
    out = []
    for stake in rows:
        if stake.challenge_id not in contexts:
            contexts[stake.challenge_id] = _Context(challenges[stake.challenge_id], confirmed_block=confirmed)
        key = (stake.challenge_id, stake.payer, stake.commitment)
        view = stake_view(contexts[stake.challenge_id], stake=stake, signed=signed.get(key), guess=guesses.get(key))
        view["_row"] = stake.pk
        out.append(view)
    return out


def challenge_winners(*, challenge: Challenge) -> dict:
    """The winners as the pot holds them (the best correct reveals so far; fixed once final), the
    prizes, and every payment and refund the pot made (docs/protocol.md 3.5)."""
    context = _Context(challenge, confirmed_block=_confirmed_block())
    state = context.state
    stakes = (
        {
            s.seq: s
            for s in Stake.objects.filter(
                challenge_id=challenge.pk, seq__in=[x for x in (state.earliest_seq, state.highest_seq) if state and x]
            )
        }
        if state is not None
        else {}
    )

    def view(seq: int | None) -> dict | None:
        stake = stakes.get(seq) if seq else None
        if stake is None:
            return None
        key = (stake.payer, stake.commitment)
        return stake_view(
            context,
            stake=stake,
            signed=_signed_for(challenge.pk, [key]).get(key),
            guess=_guesses(challenge.pk, [key]).get(key),
        )

    pot = int(state.staked_units) if state is not None else 0
    prize, share = prize_split(pot)
    has_winner = state is not None and state.earliest_seq is not None and context.phase != Phase.ABORTED
    payments = PotPayment.objects.filter(challenge_id=challenge.pk)
    return {
        "challengeId": challenge.pk,
        "phase": context.phase,
        "final": context.final,
        "guessDeadline": int(state.guess_deadline.timestamp()) if state is not None and state.guess_deadline else None,
        "earliest": view(state.earliest_seq) if has_winner and state else None,
        "highest": view(state.highest_seq) if has_winner and state else None,
        "prizes": {
            "earliest": usdc(prize if has_winner else 0),
            "highest": usdc(prize if has_winner else 0),
            "share": usdc(share if has_winner else 0),
        },
        "payments": [
            {
                "kind": p.kind,
                "seq": p.seq,
                "to": p.to,
                "amount": usdc(int(p.amount_units) + int(p.bond_units)),
                "transactionHash": p.transaction_hash,
            }
            for p in payments
        ],
    }
