"""A whole game on anvil through the site's own code, for the gas benchmark (bench/gas.py), run in one
Django process: what chain/tests/pot/test_game.py plays, with every kind of transaction the pot has,
each named so that its receipt becomes a row of docs/performance.md section 1.

The worker's tasks are called in this process (the follower, the game's steps, the relayer and its
watcher), anvil mines each transaction at once, and the chain's clock is moved past the close and the
guess window. The players are bench/node.py's payers: test USDC minted to them, ETH only to those who
send their own transactions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from eth_utils import keccak

from . import node
from .common import rpc, rpc_batch
from .site import FAR_TEXTS, follow, open_challenge, signed_stake, wallet_domain

if TYPE_CHECKING:
    from chain.token.authorization import TokenDomain

APPROVE = "0x" + keccak(text="approve(address,uint256)")[:4].hex()
PLAYERS_FROM = 50_000  # payers of bench/node.py no other benchmark uses
USDC = 10**6
NEAR = "48.8584, 2.2945"  # within the threshold of bench/site.py's solution


class Worker:
    """The worker's tasks, called in this process, on a chain that mines each transaction at once."""

    def __init__(self, url: str) -> None:
        self.url = url

    def mine(self, blocks: int = 1) -> None:
        rpc(self.url, "anvil_mine", [hex(blocks)])

    def relay(self) -> None:
        from chain.relayer.sender import relay_send
        from chain.relayer.watch import relay_watch

        relay_send()
        relay_watch()

    def settle(self, rounds: int = 8) -> None:
        """Follow, relay and mine until nothing more is queued: the worker's loop to a standstill."""
        for _ in range(rounds):
            follow()
            self.relay()
            self.mine(2)
        follow()

    def warp(self, seconds: int) -> None:
        rpc(self.url, "evm_increaseTime", [seconds])
        self.mine()


class Play(Worker):
    def __init__(self, url: str, info: dict) -> None:
        from django.test import Client

        super().__init__(url)
        self.info = info
        self.api = Client()
        self.hashes: dict[str, str] = {}
        self.signed: dict[str, dict] = {}
        self.players = node.payers(8, start=PLAYERS_FROM)
        self.domain: TokenDomain | None = None  # read from the chain once the token is deployed

    # --- the players ---------------------------------------------------------------------------

    def stake_relayed(self, name: str, challenge_id: int, player: int, text: str, usdc: int) -> dict:
        """Signed as the page signs it and POSTed; the relayer sends it."""
        from challenges.models import PotState

        digest = PotState.objects.get(challenge_id=challenge_id).terms_digest
        signed = signed_stake(challenge_id=challenge_id, key=self.players[player].key, text=text, amount=usdc * USDC,
                              domain=self.domain, digest=digest)  # fmt: skip
        answer = self.api.post("/api/responses", signed["body"], content_type="application/json")
        assert answer.status_code == 201, answer.content
        self.signed[name] = {**signed, "challengeId": challenge_id}
        return signed

    def send_own(self, player: int, to: str, data: str, gas: int = 300_000) -> str:
        """A transaction the player signs and sends with its own ETH; mined at once."""
        from django.conf import settings
        from eth_account import Account

        payer = self.players[player]
        nonce = int(rpc(self.url, "eth_getTransactionCount", [payer.address, "pending"]), 16)
        price = int(rpc(self.url, "eth_gasPrice"), 16)
        tx = {"to": to, "data": data, "gas": gas, "nonce": nonce, "chainId": settings.CHAIN_ID, "value": 0,
              "maxFeePerGas": 2 * price + 10**9, "maxPriorityFeePerGas": 10**9}  # fmt: skip
        raw = Account.sign_transaction(tx, payer.key).raw_transaction
        tx_hash = rpc(self.url, "eth_sendRawTransaction", ["0x" + raw.hex().removeprefix("0x")])
        receipt = rpc(self.url, "eth_getTransactionReceipt", [tx_hash])
        assert receipt is not None and receipt["status"] == "0x1", f"the player's transaction failed: {receipt}"
        return tx_hash

    def stake_own(self, name: str, challenge_id: int, player: int, text: str, usdc: int) -> None:
        """stakeWithAuthorization sent by the player itself (the page's "Send it yourself")."""
        from chain.pot import abi
        from challenges.models import PotState

        digest = PotState.objects.get(challenge_id=challenge_id).terms_digest
        signed = signed_stake(challenge_id=challenge_id, key=self.players[player].key, text=text, amount=usdc * USDC,
                              domain=self.domain, digest=digest)  # fmt: skip
        auth = signed["body"]["authorization"]
        call = abi.SignedStakeCall(challenge_id=challenge_id, commitment=signed["commitment"], payer=signed["payer"],
                                   amount=signed["amount"], valid_after=auth["validAfter"],
                                   valid_before=auth["validBefore"], signature=auth["signature"])  # fmt: skip
        self.hashes[name] = self.send_own(player, self.info["potAddress"], abi.stake_with_authorization_data(call))
        self.signed[name] = {**signed, "challengeId": challenge_id}

    def stake_approved(self, name: str, challenge_id: int, player: int, text: str, usdc: int) -> None:
        """approve(pot, amount), then stake(challengeId, commitment, amount): both the player's."""
        from chain.pot import abi

        signed = signed_stake(challenge_id=challenge_id, key=self.players[player].key, text=text, amount=usdc * USDC,
                              domain=self.domain, digest="00" * 32)  # fmt: skip
        pot = self.info["potAddress"]
        approve = APPROVE + node.word(pot) + node.word(signed["amount"])
        self.hashes["approve (the player's)"] = self.send_own(player, self.info["usdcAddress"], approve)
        data = abi.stake_data(challenge_id=challenge_id, commitment=signed["commitment"], amount=signed["amount"])
        self.hashes[name] = self.send_own(player, pot, data)
        self.signed[name] = {**signed, "challengeId": challenge_id}

    def post_guesses(self) -> None:
        for signed in self.signed.values():
            body = {"challengeId": signed["challengeId"], "submitterAddress": signed["payer"],
                    "commitment": signed["commitment"], "submissionText": signed["text"],
                    "submissionSalt": signed["salt"]}  # fmt: skip
            answer = self.api.post("/api/responses/guess", body, content_type="application/json")
            assert answer.status_code == 201, answer.content

    # --- the game ------------------------------------------------------------------------------

    def run(self) -> dict:
        from chain.models import PotCall
        from challenges.models import PotOpening, PotState
        from django.conf import settings

        winners = open_challenge(self.url, "900")["challenge"]
        refunded = open_challenge(self.url, "900")["challenge"]
        opening = PotOpening.objects.get(challenge_id=winners)
        self.hashes["open (the operator's, by the worker)"] = opening.transaction_hash
        node.fund(self.url, self.info, [p.address for p in self.players], 100 * USDC)
        for payer in self.players[5:7]:  # the two who send their own transactions
            rpc(self.url, "anvil_setBalance", [payer.address, hex(10**18)])
        self.domain = wallet_domain()

        relayed = "stakeWithAuthorization by the relayer: "
        self.stake_relayed(relayed + "the pot's very first stake", winners, 0, FAR_TEXTS[0], 5)
        self.stake_relayed(relayed + "a later stake", winners, 1, NEAR, 3)  # the earliest correct
        self.stake_relayed("a correct stake, the highest", winners, 2, NEAR, 7)
        self.stake_relayed(relayed + "the same payer again", winners, 1, FAR_TEXTS[1], 2)
        self.stake_relayed(relayed + "a later challenge's first", refunded, 3, FAR_TEXTS[2], 4)
        self.stake_relayed("a second stake without a correct guess", refunded, 4, FAR_TEXTS[3], 6)
        self.relay()
        self.stake_own("stakeWithAuthorization sent by its player", winners, 5, FAR_TEXTS[4], 2)
        self.stake_approved("stake by approval (the player's)", winners, 6, FAR_TEXTS[5], 3)
        self.mine(2)
        follow()
        self.post_guesses()

        self.warp(900 + 60)  # past both closes: the worker reveals the solutions, then the winners
        self.settle()
        self.warp(settings.POT_GUESS_WINDOW_SECONDS + 60)  # past the guess windows: finalize, pay, refund
        self.settle()
        for challenge_id in (winners, refunded):
            state = PotState.objects.get(challenge_id=challenge_id)
            assert state.settled, f"challenge {challenge_id} not settled: {state.__dict__}"

        calls = {call.key: call for call in PotCall.objects.filter(status="done")}
        for name, signed in self.signed.items():
            found = [c for c in calls.values() if c.signed_stake and c.signed_stake.commitment == signed["commitment"]]
            if found:
                self.hashes[name] = found[0].transaction_hash
        steps = {
            "revealSolution": f"reveal_solution:{winners}",
            "revealGuess: the earliest correct": f"reveal_guess:{winners}:2",
            "revealGuess: a correct one that beats the best": f"reveal_guess:{winners}:3",
            "finalize": f"finalize:{winners}",
            "payPrize: the earliest": f"pay_prize:{winners}:0",
            "payPrize: the highest": f"pay_prize:{winners}:1",
            "payShare": f"pay_share:{winners}",
            "finalize, no correct guess": f"finalize:{refunded}",
            "refund, no correct guess": f"refund:{refunded}:1",
            "refund, no correct guess, the second": f"refund:{refunded}:2",
        }
        for name, key in steps.items():
            self.hashes[name] = calls[key].transaction_hash
        names = list(self.hashes)
        found = rpc_batch(self.url, [("eth_getTransactionReceipt", [self.hashes[n]]) for n in names])
        gas = {}
        for name, receipt in zip(names, found, strict=True):
            assert receipt["status"] == "0x1", f"{name} reverted"
            gas[name] = int(receipt["gasUsed"], 16)
        return {
            "challenges": {"withWinners": winners, "withoutCorrectGuess": refunded},
            "gas": gas,
            "transactions": self.hashes,
            "relayer": self.info["relayerAddress"],
            "calls": sorted(calls),
            "owedAfter": node.owed(self.url, self.info["potAddress"]),
        }
