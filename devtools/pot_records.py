"""The pot's events recorded without a chain: data for the tests and benchmarks that run no node
(conftest.py's make_challenge and make_stake, bench/site.py, load/run.py). The events are written as
the follower writes what it reads (chain/models.py, PotEvent) and projected by the follower's own code
(chain/pot/projection.py), so everything the site shows is built the real way; only the chain is
made up (block numbers, hashes and times no node holds). The chain tests use anvil instead.

No app is imported at module level (docs/architecture.md: devtools depends on no app layer)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta

BLOCK_SECONDS = 12


def _hash(*parts: object) -> str:
    return "0x" + hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()


@dataclass
class PotRecorder:
    """A made-up chain for one test: each event in a block of its own, CONFIRMATIONS blocks of depth
    added after it (so what is recorded is confirmed unless `deep=False`)."""

    block: int = 100
    time: datetime | None = None
    log_index: int = 0
    depth: int = 2
    seqs: dict[int, int] = field(default_factory=dict)

    def now(self) -> datetime:
        from django.utils import timezone

        if self.time is None:
            self.time = timezone.now().replace(microsecond=0)
        return self.time

    def _event(self, name: str, challenge_id: int | None, args: dict, *, deep: bool = True) -> None:
        from chain.models import PotEvent

        self.block += 1
        self.time = self.now() + timedelta(seconds=BLOCK_SECONDS)
        PotEvent.objects.create(
            block_number=self.block,
            block_hash=_hash("block", self.block),
            block_time=self.time,
            transaction_hash=_hash("tx", self.block, name),
            log_index=0,
            name=name,
            challenge_id=challenge_id,
            args=args,
        )
        self.project(touched={challenge_id} if challenge_id is not None else set(), deep=deep)

    def project(self, *, touched: set[int] = frozenset(), deep: bool = True) -> None:  # type: ignore[assignment]
        """The follower's projection at the current made-up head."""
        from chain.pot.projection import Head, project_challenges
        from challenges.services import chain_clock_set

        head = self.block + (self.depth if deep else 0)
        confirmed = head - self.depth + 1
        chain_clock_set(
            block_number=head, block_hash=_hash("block", head), block_time=self.now(), confirmed_block=confirmed
        )
        project_challenges(touched=set(touched), start=0, head=Head(number=head, time=self.now(), confirmed=confirmed))

    def advance(self, seconds: int) -> None:
        """Move the made-up chain's clock (a block mined `seconds` later)."""
        self.time = self.now() + timedelta(seconds=seconds)
        self.block += 1
        self.project()

    def open(self, challenge) -> None:
        """The pot's Opened event with the terms the opening holds (challenges.models.PotOpening)."""
        terms = challenge.opening.terms
        digest = challenge.opening.terms_digest
        self._event(
            "Opened",
            challenge.pk,
            {
                "terms": {
                    "solutionCommitment": terms["solution_commitment"],
                    "termsHash": terms["terms_hash"],
                    "thresholdM": terms["threshold_m"],
                    "opensAt": terms["opens_at"],
                    "closesAt": terms["closes_at"],
                    "solutionDeadline": terms["solution_deadline"],
                    "guessWindow": terms["guess_window"],
                    "minStake": terms["min_stake"],
                    "bond": terms["bond"],
                },
                "termsDigest": digest,
            },
        )

    def stake(self, challenge, *, payer: str, amount: int, commitment: str, deep: bool = True) -> int:
        seq = self.seqs.get(challenge.pk, 0) + 1
        self.seqs[challenge.pk] = seq
        self._event(
            "Staked",
            challenge.pk,
            {"payer": payer.lower(), "seq": seq, "amount": amount, "commitment": commitment},
            deep=deep,
        )
        return seq

    def reveal_solution(self, challenge) -> None:
        from challenges.coordinates import micro_degrees

        lat, lon = micro_degrees(challenge.solution)
        deadline = int((self.now() + timedelta(seconds=BLOCK_SECONDS + challenge.guess_window_seconds)).timestamp())
        self._event(
            "SolutionRevealed",
            challenge.pk,
            {"latE6": lat, "lonE6": lon, "salt": challenge.solution_salt, "guessDeadline": deadline},
        )

    def reveal_guess(self, challenge, *, seq: int, payer: str, lat_e6: int, lon_e6: int, correct: bool) -> None:
        self._event(
            "GuessRevealed",
            challenge.pk,
            {"payer": payer.lower(), "seq": seq, "latE6": lat_e6, "lonE6": lon_e6, "correct": correct},
        )

    def finalize(self, challenge, *, earliest: int = 0, highest: int = 0, prize: int = 0, share: int = 0) -> None:
        args = {"earliestSeq": earliest, "highestSeq": highest, "earliestPrize": prize, "highestPrize": prize}
        self._event("Finalized", challenge.pk, {**args, "share": share})

    def paid(self, challenge, *, kind: int, to: str, amount: int) -> None:
        self._event("Paid", challenge.pk, {"kind": kind, "to": to.lower(), "amount": amount})

    def refunded(self, challenge, *, seq: int, payer: str, stake: int, bond_share: int = 0) -> None:
        self._event(
            "Refunded", challenge.pk, {"payer": payer.lower(), "seq": seq, "stake": stake, "bondShare": bond_share}
        )
