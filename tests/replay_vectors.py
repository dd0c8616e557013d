"""The "replay" cases of tests/vectors.json's "verifier" section (written by tests/verifier_vectors.py):
a challenge's logs as a node returns them, raw (topics, data, block, time), and what both verifiers'
replay of them must give (verify_challenge.py's `replay` and `replay_state`, frontend/src/lib/verify/
replay.ts and pot.ts): every rule the pot's events break, as (stake or null, sentence) in the order
they are found (events in chain order; within one event the rules in a fixed order, and a rule that
makes the event meaningless ends its checks), the winners kept, the order of the refunds, and what
the pot's stateOf must answer at the head.

Each case states what its events break, by hand, from docs/protocol.md section 2; the logs are
encoded here with eth_abi against the pot's event signatures (chain/pot/abi.py's TOPICS)."""

from __future__ import annotations

from dataclasses import dataclass, field

from eth_abi import encode

from chain.pot.abi import TERMS_TUPLE, TOPICS
from challenges.commitments import solution_commitment
from challenges.coordinates import micro_degrees
from challenges.geometry import threshold_chord_sq

CHAIN_ID = 31337
POT = "0x5fbdb2315678afecb367f032d93f642f64180aa3"
CHALLENGE_ID = 7
SALT = "5a" * 32
GIZA = micro_degrees("29.979175, 31.134258")
NEAR = micro_degrees("29.979, 31.134")  # about 30 m from GIZA: correct within 150 m
FAR = micro_degrees("48.8584, 2.2945")
A, B, C = "0x" + "a1" * 20, "0x" + "b2" * 20, "0x" + "c3" * 20
OPENS, HOUR, DAY = 1_800_000_000, 3_600, 86_400
CLOSES = OPENS + HOUR
DEADLINE = CLOSES + DAY  # the solution's
WINDOW = HOUR  # the guess window
MIN_STAKE, BOND = 1_000_000, 2_000_000
EARLIEST, HIGHEST, SHARE = 0, 1, 2


def usdc(units: int) -> str:
    return f"{units // 10**6}.{units % 10**6:06d}"


def _uint(value: int) -> str:
    return "0x" + f"{value:064x}"


def _address(value: str) -> str:
    return "0x" + "0" * 24 + value[2:]


@dataclass
class Game:
    """A challenge's logs, appended one event a block, and the facts of them stateOf counts."""

    logs: list[dict] = field(default_factory=list)
    stakes: dict[int, int] = field(default_factory=dict)  # seq -> amount
    guess_deadline: int = 0
    finalized: bool = False
    paid: set[int] = field(default_factory=set)
    refunded: list[tuple[int, int]] = field(default_factory=list)  # (stake, bond share)

    def _log(self, name: str, topics: list[str], types: list[str], values: list, time: int) -> int:
        block = 100 + len(self.logs)
        self.logs.append(
            {
                "topics": [TOPICS[name], _uint(CHALLENGE_ID), *topics],
                "data": "0x" + encode(types, values).hex(),
                "blockNumber": hex(block),
                "logIndex": "0x0",
                "transactionHash": "0x" + f"{block:064x}",
                "blockTimestamp": hex(time),
            }
        )
        return block

    def opened(self, *, solution: tuple[int, int] = GIZA, time: int = OPENS - 60) -> int:
        commitment = solution_commitment(
            chain_id=CHAIN_ID, pot=POT, challenge_id=CHALLENGE_ID, lat_e6=solution[0], lon_e6=solution[1], salt=SALT
        )
        terms = (bytes.fromhex(commitment), b"\x22" * 32, 150, OPENS, CLOSES, DEADLINE, WINDOW, MIN_STAKE, BOND)
        return self._log("Opened", [], [TERMS_TUPLE, "bytes32"], [terms, b"\xd1" * 32], time)

    def staked(self, seq: int, payer: str, amount: int, *, time: int = OPENS + 60, counted: bool = True) -> int:
        if counted:
            self.stakes[seq] = amount
        values = [seq, amount, bytes([seq]) * 32]
        return self._log("Staked", [_address(payer)], ["uint256", "uint256", "bytes32"], values, time)

    def solution(self, *, point: tuple[int, int] = GIZA, time: int = CLOSES + 60, deadline: int | None = None) -> int:
        self.guess_deadline = self.guess_deadline or (deadline if deadline is not None else time + WINDOW)
        values = [point[0], point[1], bytes.fromhex(SALT), deadline if deadline is not None else time + WINDOW]
        return self._log("SolutionRevealed", [], ["int256", "int256", "bytes32", "uint256"], values, time)

    def guess(self, seq: int, payer: str, point: tuple[int, int], correct: bool, *, time: int = CLOSES + 120) -> int:
        values = [seq, point[0], point[1], correct]
        return self._log("GuessRevealed", [_address(payer)], ["uint256", "int256", "int256", "bool"], values, time)

    def finalize(self, earliest: int, highest: int, prize: int, share: int, *, time: int, prizes=None) -> int:
        self.finalized = True
        first, second = prizes or (prize, prize)
        return self._log("Finalized", [], ["uint256"] * 5, [earliest, highest, first, second, share], time)

    def pay(self, kind: int, to: str, amount: int, *, time: int) -> int:
        self.paid.add(kind)
        return self._log("Paid", [_uint(kind), _address(to)], ["uint256"], [amount], time)

    def refund(self, seq: int, payer: str, stake: int, bond: int, *, time: int, counted: bool = True) -> int:
        if counted:
            self.refunded.append((stake, bond))
        return self._log("Refunded", [_address(payer)], ["uint256"] * 3, [seq, stake, bond], time)

    def case(
        self,
        about: str,
        *,
        problems: list[tuple[int | None, str]],
        winners: tuple[int | None, int | None],
        refund_order: list[int],
        head_time: int,
        aborted: bool = False,
    ) -> dict:
        earliest, highest = winners
        state = {
            "stakeCount": len(self.stakes),
            "pot": sum(self.stakes.values()),
            "guessDeadline": self.guess_deadline,
            "earliestSeq": earliest or 0,
            "highestSeq": highest or 0,
            "highestAmount": self.stakes[highest] if highest else 0,
            "finalized": int(self.finalized),
            "earliestPaid": int(EARLIEST in self.paid),
            "highestPaid": int(HIGHEST in self.paid),
            "sharePaid": int(SHARE in self.paid),
            "aborted": int(aborted),
            "refundedStake": sum(stake for stake, _ in self.refunded),
            "refundedBond": sum(bond for _, bond in self.refunded),
            "thresholdChordSq": threshold_chord_sq(150),
        }
        return {
            "about": about,
            "chainId": CHAIN_ID,
            "pot": POT,
            "challengeId": CHALLENGE_ID,
            "headTime": head_time,
            "logs": self.logs,
            "problems": [{"seq": seq, "text": text} for seq, text in problems],
            "earliest": earliest,
            "highest": highest,
            "refundOrder": refund_order,
            "state": {key: str(value) for key, value in state.items()},
        }


FIVE, THREE, SEVEN = 5_000_000, 3_000_000, 7_000_000
POT_UNITS = FIVE + THREE + SEVEN
PRIZE, SHARE_UNITS = POT_UNITS * 40 // 100, POT_UNITS - 2 * (POT_UNITS * 40 // 100)
AFTER_WINDOW = CLOSES + 60 + WINDOW


def staked_three(g: Game) -> None:
    g.opened()
    g.staked(1, A, FIVE)
    g.staked(2, B, THREE)
    g.staked(3, C, SEVEN)


def honest_game() -> dict:
    g = Game()
    staked_three(g)
    g.solution()
    g.guess(3, C, NEAR, True)
    g.guess(2, B, NEAR, True)
    g.guess(1, A, FAR, False)
    g.finalize(2, 3, PRIZE, SHARE_UNITS, time=AFTER_WINDOW)
    for kind, to, amount in ((EARLIEST, B, PRIZE), (HIGHEST, C, PRIZE), (SHARE, C, SHARE_UNITS + BOND)):
        g.pay(kind, to, amount, time=AFTER_WINDOW + 60)
    return g.case(
        "an honest game: the highest revealed first, finalized and paid; nothing broken",
        problems=[],
        winners=(2, 3),
        refund_order=[],
        head_time=AFTER_WINDOW + 120,
    )


def no_winner() -> dict:
    g = Game()
    staked_three(g)
    g.solution()
    g.guess(2, B, FAR, False)
    g.finalize(0, 0, 0, 0, time=AFTER_WINDOW)
    g.pay(SHARE, C, BOND, time=AFTER_WINDOW + 60)
    for seq, payer, amount in ((3, C, SEVEN), (1, A, FIVE), (2, B, THREE)):
        g.refund(seq, payer, amount, 0, time=AFTER_WINDOW + 120)
    return g.case(
        "no correct guess: finalized with no winner, the bond back through the share, each stake refunded",
        problems=[],
        winners=(None, None),
        refund_order=[3, 1, 2],
        head_time=AFTER_WINDOW + 180,
    )


def aborted() -> dict:
    g = Game()
    staked_three(g)
    # 2 USDC of bond over 15 USDC of stakes, refunded 2, 3, 1: bondLeft x stake / potLeft, rounded down.
    for seq, payer, amount, bond in ((2, B, THREE, 400_000), (3, C, SEVEN, 933_333), (1, A, FIVE, 666_667)):
        g.refund(seq, payer, amount, bond, time=DEADLINE + 60)
    return g.case(
        "an abort: the solution never revealed, every stake refunded after its deadline with a share of the bond",
        problems=[],
        winners=(None, None),
        refund_order=[2, 3, 1],
        head_time=DEADLINE + 120,
        aborted=True,
    )


def before_opened() -> dict:
    g = Game()
    early = g.staked(1, A, FIVE, counted=False)
    g.opened()
    second = g.opened()
    g.staked(1, A, FIVE)
    return g.case(
        "an event before the Opened event, and a second Opened: each a problem, neither counted",
        problems=[
            (None, f"a Staked event in block {early} before the challenge was opened"),
            (None, f"a second Opened event in block {second}: the pot opens an id once"),
        ],
        winners=(None, None),
        refund_order=[],
        head_time=OPENS + 120,
    )


def stake_rules() -> dict:
    g = Game()
    g.opened()
    g.staked(1, A, FIVE)
    g.solution()
    late = CLOSES + 90
    g.staked(3, B, 500_000, time=late)
    return g.case(
        "a stake that breaks every stake rule at once, in their order: sequence, window, minimum, solution",
        problems=[
            (3, "stake 3 follows stake 1: sequences go 1, 2, 3, ..."),
            (3, f"staked at {late}, outside the open window [{OPENS}, {CLOSES})"),
            (3, "a stake of 0.500000 USDC, below the minimum of 1.000000"),
            (3, "staked after the solution's reveal"),
        ],
        winners=(None, None),
        refund_order=[],
        head_time=late + 60,
    )


def solution_rules() -> dict:
    g = Game()
    staked_three(g)
    early = CLOSES - 60
    g.solution(point=NEAR, time=early, deadline=early + 10)
    second = g.solution()
    return g.case(
        "a solution that does not open the terms' commitment, revealed before the close with a wrong guess "
        "deadline, then a second one: the rules in their order, the second ignored",
        problems=[
            (None, "the revealed solution does not open the solution commitment of the terms"),
            (None, f"the solution was revealed at {early}, outside [close, solution deadline)"),
            (None, f"the guess window ends at {early + 10}, not the reveal's time + {WINDOW} s"),
            (None, f"a second SolutionRevealed event in block {second}"),
        ],
        winners=(None, None),
        refund_order=[],
        head_time=CLOSES + 120,
    )


def guess_rules() -> dict:
    g = Game()
    staked_three(g)
    before = g.guess(1, A, NEAR, True, time=CLOSES + 30)
    g.solution()
    stranger = g.guess(2, C, NEAR, True)
    nobody = g.guess(9, A, NEAR, True)
    late = CLOSES + 60 + WINDOW
    g.guess(1, A, FAR, True, time=late)
    g.guess(3, C, NEAR, False)
    g.guess(2, B, NEAR, True)
    g.guess(2, B, NEAR, True)
    return g.case(
        "guesses: before the solution, of another payer, of no stake (each ends its checks), then one late and "
        "scored correct though it is not (both rules, in order), one scored incorrect though it is (the "
        "integer rule's verdict counts), and one revealed twice",
        problems=[
            (1, f"a guess revealed in block {before} for no stake of this payer, or before the solution"),
            (2, f"a guess revealed in block {stranger} for no stake of this payer, or before the solution"),
            (9, f"a guess revealed in block {nobody} for no stake of this payer, or before the solution"),
            (1, f"its guess was revealed at {late}, after the guess window ({late})"),
            (1, "the pot scored its guess correct; the integer rule says incorrect"),
            (3, "the pot scored its guess incorrect; the integer rule says correct"),
        ],
        winners=(2, 3),
        refund_order=[],
        head_time=late + 60,
    )


def finalize_rules() -> dict:
    g = Game()
    staked_three(g)
    g.solution()
    g.guess(2, B, NEAR, True)
    early = CLOSES + 120
    g.finalize(3, 3, PRIZE, SHARE_UNITS, time=early, prizes=(PRIZE, PRIZE + 1))
    second = g.finalize(2, 2, PRIZE, SHARE_UNITS, time=AFTER_WINDOW)
    return g.case(
        "Finalized before the window's end with winners and prizes not the replay's, then a second Finalized",
        problems=[
            (None, f"finalized at {early}, before the guess window's end ({CLOSES + 60 + WINDOW})"),
            (
                None,
                f"Finalized says winners (3, 3) and prizes ({PRIZE}, {PRIZE + 1}, {SHARE_UNITS}); the replay gives "
                f"(2, 2, {PRIZE}, {PRIZE}, {SHARE_UNITS})",
            ),
            (None, f"a Finalized event in block {second} twice, or with no solution revealed"),
        ],
        winners=(2, 2),
        refund_order=[],
        head_time=AFTER_WINDOW + 60,
    )


def payment_rules() -> dict:
    g = Game()
    staked_three(g)
    g.solution()
    g.guess(2, B, NEAR, True)
    early_share = g.pay(SHARE, C, BOND, time=CLOSES + 180)
    g.finalize(2, 2, PRIZE, SHARE_UNITS, time=AFTER_WINDOW)
    g.pay(EARLIEST, A, PRIZE, time=AFTER_WINDOW + 60)
    twice = g.pay(EARLIEST, B, PRIZE, time=AFTER_WINDOW + 60)
    g.pay(HIGHEST, B, PRIZE - 1, time=AFTER_WINDOW + 60)
    unknown = g.pay(7, B, 1, time=AFTER_WINDOW + 60)
    g.refund(1, A, FIVE, 0, time=AFTER_WINDOW + 120)
    return g.case(
        "payments: the share before the finalize, a prize to another payer, a prize paid twice, a prize short of "
        "its amount, a payment of an unknown kind, and a refund although there is a winner",
        problems=[
            (None, f"the share was paid in block {early_share} before the challenge was finalized"),
            (2, f"the earliest prize paid {usdc(PRIZE)} USDC to {A}; by the rules {usdc(PRIZE)} USDC to {B}"),
            (None, f"the earliest payment was made twice (block {twice})"),
            (2, f"the highest prize paid {usdc(PRIZE - 1)} USDC to {B}; by the rules {usdc(PRIZE)} USDC to {B}"),
            (None, f"a payment of unknown kind 7 in block {unknown}"),
            (1, "refunded although the challenge has a winner, or before it was finalized or aborted"),
        ],
        winners=(2, 2),
        refund_order=[1],
        head_time=AFTER_WINDOW + 180,
    )


def refund_rules() -> dict:
    g = Game()
    staked_three(g)
    g.refund(1, A, FIVE, 0, time=CLOSES + 60)
    g.refund(1, A, FIVE, 0, time=DEADLINE + 60, counted=False)
    g.refund(2, C, THREE, 0, time=DEADLINE + 60, counted=False)
    g.refund(3, C, SEVEN - 1, 0, time=DEADLINE + 60, counted=False)
    return g.case(
        "refunds: one before the challenge was finalized or aborted (counted), then a second one of the same "
        "stake, one to another payer and one of another amount (none counted)",
        problems=[
            (1, "refunded although the challenge has a winner, or before it was finalized or aborted"),
            (1, f"a refund of {usdc(FIVE)} USDC to {A} that is not this stake's, or a second one"),
            (2, f"a refund of {usdc(THREE)} USDC to {C} that is not this stake's, or a second one"),
            (3, f"a refund of {usdc(SEVEN - 1)} USDC to {C} that is not this stake's, or a second one"),
        ],
        winners=(None, None),
        refund_order=[1],
        head_time=DEADLINE + 120,
        aborted=True,
    )


def replay_cases() -> list[dict]:
    return [
        honest_game(),
        no_winner(),
        aborted(),
        before_opened(),
        stake_rules(),
        solution_rules(),
        guess_rules(),
        finalize_rules(),
        payment_rules(),
        refund_rules(),
    ]
