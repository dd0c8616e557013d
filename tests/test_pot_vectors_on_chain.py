"""The shared vectors ("geometry", "potEncodings" of tests/vectors.json) against the contract itself:
GeopoemPot and GeoMath (through tests/solidity/GeoMathHarness.sol) compiled here with the project's
solc (contracts/tools/solc.mjs, the compiler forge uses) and run on anvil. Python and TypeScript are
checked against the same file (tests/test_pot_vectors.py, frontend/src/lib/protocol/*.test.ts), so the
three agree bit for bit.

The pot is deployed first from anvil's account #0, at the address the vectors name (tests/pot_vectors.py,
ANVIL_POT); the vectors of another chain are read after anvil_setChainId, and those of another pot from
a copy of its code at that address (the encodings read only `block.chainid` and `address(this)`)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from web3 import HTTPProvider, Web3
from web3.contract import Contract

from challenges.commitments import guess_commitment, new_salt, solution_commitment
from challenges.coordinates import micro_degrees
from devtools.processes import ANVIL_CHAIN_ID, anvil
from tests.pot_vectors import ANVIL_POT

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("contracts/GeopoemPot.sol", "tests/solidity/GeoMathHarness.sol", "contracts/TestUSDC.sol")
DAY = 86_400


def compile_contracts() -> dict[str, dict]:
    """{name: {abi, bytecode}} as contracts/tools/solc.mjs compiles them (Cancun: the pot's reentrancy
    guard uses transient storage), without touching contracts/build."""
    standard_input = {
        "language": "Solidity",
        "sources": {path: {"content": (ROOT / path).read_text()} for path in SOURCES},
        "settings": {
            "optimizer": {"enabled": True, "runs": 200},
            "evmVersion": "cancun",
            "outputSelection": {"*": {"*": ["abi", "evm.bytecode.object"]}},
        },
    }
    result = subprocess.run(
        ["node", "contracts/tools/solc.mjs", "--standard-json", "--base-path", ".", "--include-path", "node_modules"],
        input=json.dumps(standard_input),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=True,
    )
    output = json.loads(result.stdout)
    errors = [e["formattedMessage"] for e in output.get("errors", []) if e["severity"] == "error"]
    assert not errors, "\n".join(errors)
    return {
        name: {"abi": contract["abi"], "bytecode": "0x" + contract["evm"]["bytecode"]["object"]}
        for path in SOURCES
        for name, contract in output["contracts"][path].items()
    }


@dataclass
class Node:
    w3: Web3
    pot: Contract
    geomath: Contract
    usdc: Contract
    accounts: list[str]

    def rpc(self, method: str, *params) -> object:
        answer = self.w3.provider.make_request(method, list(params))  # type: ignore[arg-type]
        assert "error" not in answer, answer
        return answer["result"]

    def send(self, call, sender: str) -> dict:
        receipt = self.w3.eth.wait_for_transaction_receipt(call.transact({"from": sender}), timeout=30)
        assert receipt["status"] == 1, receipt
        return receipt

    def at(self, address: str) -> Contract:
        """A copy of the pot's code at `address` (its storage empty): for the views that read only the
        chain id and the contract's own address."""
        code = self.w3.eth.get_code(self.pot.address)
        self.rpc("anvil_setCode", Web3.to_checksum_address(address), "0x" + bytes(code).hex())
        return self.w3.eth.contract(address=Web3.to_checksum_address(address), abi=self.pot.abi)

    def on_chain(self, chain_id: int) -> None:
        self.rpc("anvil_setChainId", chain_id)

    def warp(self, timestamp: int) -> None:
        self.rpc("evm_setNextBlockTimestamp", timestamp)
        self.rpc("evm_mine")

    def now(self) -> int:
        return self.w3.eth.get_block("latest")["timestamp"]


def _deploy(w3: Web3, artifact: dict, *args, sender: str) -> Contract:
    factory = w3.eth.contract(abi=artifact["abi"], bytecode=artifact["bytecode"])
    receipt = w3.eth.wait_for_transaction_receipt(factory.constructor(*args).transact({"from": sender}), timeout=30)
    assert receipt["status"] == 1
    return w3.eth.contract(address=receipt["contractAddress"], abi=artifact["abi"])


@pytest.fixture(scope="module")
def node() -> Iterator[Node]:
    artifacts = compile_contracts()
    with anvil() as (url, _process):
        w3 = Web3(HTTPProvider(url, request_kwargs={"timeout": 30}))
        accounts = list(w3.eth.accounts)
        operator, token_deployer, share, sweep = accounts[0], accounts[9], accounts[8], accounts[7]
        usdc = _deploy(w3, artifacts["TestUSDC"], sender=token_deployer)
        pot = _deploy(w3, artifacts["GeopoemPot"], usdc.address, operator, share, sweep, sender=operator)
        assert pot.address == ANVIL_POT  # account #0's first deployment: the vectors' pot
        geomath = _deploy(w3, artifacts["GeoMathHarness"], sender=operator)
        yield Node(w3, pot, geomath, usdc, accounts)


@pytest.fixture
def chain(node: Node) -> Iterator[Node]:
    """The module's node, put back as it was after the test (its blocks, and its chain id)."""
    snapshot = node.rpc("evm_snapshot")
    try:
        yield node
    finally:
        node.on_chain(ANVIL_CHAIN_ID)
        node.rpc("evm_revert", snapshot)


def _b32(hex_text: str) -> bytes:
    return bytes.fromhex(hex_text.removeprefix("0x"))


def test_geomath_gives_every_geometry_vector(node: Node, vectors):
    geometry, library = vectors["geometry"], node.geomath.functions
    for case in geometry["sinMicro"]:
        angle = case["microDegrees"]
        assert library.sinMicro(angle).call() == int(case["sin"]), case
        assert library.cosMicro(angle).call() == int(case["cos"]), case
    for case in geometry["unitVector"]:
        expected = [int(case["x"]), int(case["y"]), int(case["z"])]
        assert library.unitVector(case["latE6"], case["lonE6"]).call() == expected, case
    for case in geometry["inRange"]:
        assert library.inRange(case["latE6"], case["lonE6"]).call() is case["inRange"], case
    for case in geometry["thresholdChordSq"]:
        assert library.thresholdChordSq(case["thresholdM"]).call() == int(case["chordSq"]), case
    for case in geometry["correct"]:
        guess, solution = micro_degrees(case["guess"]), micro_degrees(case["solution"])
        chord, threshold, correct = library.verdict(*guess, *solution, case["thresholdM"]).call()
        assert [str(chord), str(threshold), correct] == [case["chordSq"], case["thresholdChordSq"], case["correct"]]


def test_the_pot_scores_revealed_guesses_as_the_vectors_say(chain: Node, vectors):
    """A sample of the verdicts through the pot's own path: open with the solution's commitment and the
    threshold, stake the guess's commitment, reveal the solution after the close, then the guess."""
    cases = vectors["geometry"]["correct"]
    sample = [c for c in cases if c["about"] != "random"] + [c for c in cases if c["about"] == "random"][::10]
    operator, payer = chain.accounts[0], chain.accounts[3]
    pot, amount = chain.pot.functions, 1_000_000
    chain.send(chain.usdc.functions.mint(payer, amount * len(sample)), payer)
    chain.send(chain.usdc.functions.approve(pot.address, amount * len(sample)), payer)
    opens_at = chain.now() + 10
    closes_at = opens_at + DAY
    reveals = []
    for index, case in enumerate(sample):
        challenge_id = 1_000 + index
        solution, guess = micro_degrees(case["solution"]), micro_degrees(case["guess"])
        solution_salt, guess_salt = new_salt(), new_salt()
        sealed = solution_commitment(
            chain_id=ANVIL_CHAIN_ID, pot=pot.address, challenge_id=challenge_id, lat_e6=solution[0],
            lon_e6=solution[1], salt=solution_salt,
        )  # fmt: skip
        terms = (_b32(sealed), b"\x01" * 32, case["thresholdM"], opens_at, closes_at, closes_at + DAY, DAY, amount, 0)
        chain.send(pot.open(challenge_id, terms), operator)
        assert chain.pot.functions.stateOf(challenge_id).call()[-1] == int(case["thresholdChordSq"]), case
        reveals.append((challenge_id, solution, solution_salt, guess, guess_salt))
    chain.warp(opens_at)
    for challenge_id, _solution, _salt, guess, guess_salt in reveals:
        commitment = guess_commitment(
            chain_id=ANVIL_CHAIN_ID, pot=pot.address, challenge_id=challenge_id, payer=payer, lat_e6=guess[0],
            lon_e6=guess[1], salt=guess_salt,
        )  # fmt: skip
        chain.send(pot.stake(challenge_id, _b32(commitment), amount), payer)
    chain.warp(closes_at)
    for (challenge_id, solution, salt, guess, guess_salt), case in zip(reveals, sample, strict=True):
        chain.send(pot.revealSolution(challenge_id, *solution, _b32(salt)), operator)
        reveal = pot.revealGuess(challenge_id, 1, payer, amount, *guess, _b32(guess_salt))
        assert reveal.call() is case["correct"], case
        chain.send(reveal, operator)
        assert chain.pot.functions.stateOf(challenge_id).call()[3] == (1 if case["correct"] else 0), case


def test_the_pot_recomputes_every_commitment(chain: Node, vectors):
    section = vectors["potEncodings"]
    for case in section["guessCommitments"]:
        chain.on_chain(case["chainId"])
        pot = chain.at(case["pot"]).functions
        answer = pot.guessCommitment(
            case["challengeId"], Web3.to_checksum_address(case["payer"]), case["latE6"], case["lonE6"],
            _b32(case["salt"]),
        ).call()  # fmt: skip
        assert answer.hex() == case["commitment"], case
    for case in section["solutionCommitments"]:
        chain.on_chain(case["chainId"])
        pot = chain.at(case["pot"]).functions
        answer = pot.solutionCommitment(case["challengeId"], case["latE6"], case["lonE6"], _b32(case["salt"])).call()
        assert answer.hex() == case["commitment"], case


def _terms(case: dict) -> tuple:
    t = case["terms"]
    return (
        _b32(t["solutionCommitment"]), _b32(t["termsHash"]), t["thresholdM"], t["opensAt"], t["closesAt"],
        t["solutionDeadline"], t["guessWindow"], int(t["minStake"]), int(t["bond"]),
    )  # fmt: skip


def test_the_pot_digests_terms_and_makes_stake_nonces_as_the_vectors_say(chain: Node, vectors):
    section, pot = vectors["potEncodings"], chain.pot.functions
    for case in section["termsDigests"]:
        assert pot.termsDigestOf(int(case["challengeId"]), _terms(case)).call().hex() == case["digest"], case
    opened = {}
    for case in (c for c in section["termsDigests"] if c["openable"]):
        receipt = chain.send(pot.open(int(case["challengeId"]), _terms(case)), chain.accounts[0])
        (event,) = chain.pot.events.Opened().process_receipt(receipt)
        assert event["args"]["termsDigest"].hex() == case["digest"]
        opened[int(case["challengeId"])] = case["digest"]
    assert len(opened) >= 3
    for case in section["stakeNonces"]:
        assert case["pot"] == ANVIL_POT and opened[case["challengeId"]] == case["termsDigest"], case
        chain.on_chain(case["chainId"])
        nonce = pot.stakeNonce(case["challengeId"], _b32(case["commitment"]), int(case["amount"])).call()
        assert nonce.hex() == case["nonce"], case


def test_the_pot_stores_the_stake_hashes_the_vectors_say(chain: Node, vectors):
    """Each stake a uint64 holds, staked for real by its payer (an anvil account): the slot the pot
    writes is the vector's hash."""
    pot, operator = chain.pot.functions, chain.accounts[0]
    opens_at = chain.now() + 10
    terms = (b"\x02" * 32, b"\x03" * 32, 10, opens_at, opens_at + DAY, opens_at + 2 * DAY, DAY, 1_000_000, 0)
    chain.send(pot.open(77, terms), operator)
    chain.warp(opens_at)
    stakable = [c for c in vectors["potEncodings"]["stakeHashes"] if int(c["amount"]) < 2**64]
    assert len(stakable) >= 3
    for seq, case in enumerate(stakable, start=1):
        payer, amount = Web3.to_checksum_address(case["payer"]), int(case["amount"])
        chain.send(chain.usdc.functions.mint(payer, amount), payer)
        chain.send(chain.usdc.functions.approve(pot.address, amount), payer)
        chain.send(pot.stake(77, _b32(case["commitment"]), amount), payer)
        assert pot.stakeHash(77, seq).call().hex() == case["hash"], case
