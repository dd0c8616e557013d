"""The chain side of the relay benchmark (bench/relay_burst.py): payers with keys of their own,
given test USDC and no ETH at all, each signing one EIP-3009 authorization of its stake to the
treasury whose nonce is its guess commitment (docs/protocol.md section 2a), as the page's wallet
signs it; the token's domain read from the chain; and what the chain holds afterwards (the
token's logs, the receipts, balances at given blocks) for the reconciliation.

Raw JSON-RPC on our own loopback anvil (bench/data.py's _rpc_batch), no Django: the signing is the
pure code of chain/authorization.py, the commitment challenges/commitments.py's."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from decimal import Decimal

from .data import _rpc_batch

PAYER_SEED = b"geopoem bench relay payer"
# Transfer(address,address,uint256)
TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
MINT_SELECTOR = "0x40c10f19"  # mint(address,uint256)
BALANCE_OF = "0x70a08231"  # balanceOf(address)
NAME, VERSION, DOMAIN_SEPARATOR = "0x06fdde03", "0x54fd4d50", "0x3644e515"
PAYER_USDC_UNITS = 10 * 10**6  # each payer's test USDC: enough for its one stake (at most 1.97 USDC)
MINTS_PER_BLOCK = 200


@dataclass(frozen=True)
class Payer:
    key: str
    address: str


def payers(count: int, *, start: int = 0) -> list[Payer]:
    """`count` payers with keys of their own (derived from PAYER_SEED, so a run is reproducible and
    never one of anvil's funded accounts): they hold no ETH until someone sends them some."""
    from eth_account import Account
    from eth_utils import keccak

    out = []
    for n in range(start, start + count):
        key = "0x" + keccak(PAYER_SEED + n.to_bytes(4, "big")).hex()
        out.append(Payer(key=key, address=Account.from_key(key).address))
    return out


def word(value: int | str) -> str:
    if isinstance(value, str):
        return value.lower().removeprefix("0x").rjust(64, "0")
    return f"{value:064x}"


def fund(rpc_url: str, info: dict, payers: list[Payer], units: int = PAYER_USDC_UNITS) -> None:
    """Mint `units` of test USDC to each payer (the deployer's mints, a few blocks), and check that
    every payer holds exactly that and not a wei of ETH."""
    deployer = _rpc_batch(rpc_url, [("eth_accounts", [])])[0][0]
    token = info["usdcAddress"]
    nonce = int(_rpc_batch(rpc_url, [("eth_getTransactionCount", [deployer, "pending"])])[0], 16)
    hashes: list[str] = []
    _rpc_batch(rpc_url, [("evm_setAutomine", [False])])
    try:
        for start in range(0, len(payers), MINTS_PER_BLOCK):
            sends = []
            for payer in payers[start : start + MINTS_PER_BLOCK]:
                data = MINT_SELECTOR + word(payer.address) + word(units)
                sends.append(("eth_sendTransaction", [{"from": deployer, "to": token, "data": data,
                                                       "gas": hex(100_000), "nonce": hex(nonce)}]))  # fmt: skip
                nonce += 1
            hashes += _rpc_batch(rpc_url, sends)
            _rpc_batch(rpc_url, [("evm_mine", [])])
    finally:
        _rpc_batch(rpc_url, [("evm_setAutomine", [True])])
    receipts = _rpc_batch(rpc_url, [("eth_getTransactionReceipt", [h]) for h in hashes])
    if any(r is None or r["status"] != "0x1" for r in receipts):
        raise RuntimeError("a mint to a payer was not mined")
    usdc = balances_of(rpc_url, token, [p.address for p in payers])
    eth = _rpc_batch(rpc_url, [("eth_getBalance", [p.address, "latest"]) for p in payers])
    if any(b != units for b in usdc) or any(int(e, 16) != 0 for e in eth):
        raise RuntimeError("a payer does not hold exactly its USDC and no ETH")


def balances_of(rpc_url: str, token: str, owners: list[str], block: int | str = "latest") -> list[int]:
    tag = hex(block) if isinstance(block, int) else block
    calls = [("eth_call", [{"to": token, "data": BALANCE_OF + word(owner)}, tag]) for owner in owners]
    return [int(answer, 16) for answer in _rpc_batch(rpc_url, calls)]


def eth_balance(rpc_url: str, address: str, block: int) -> int:
    return int(_rpc_batch(rpc_url, [("eth_getBalance", [address, hex(block)])])[0], 16)


def _string(answer: str) -> str:
    raw = bytes.fromhex(answer.removeprefix("0x"))
    offset = int.from_bytes(raw[:32], "big")
    length = int.from_bytes(raw[offset : offset + 32], "big")
    return raw[offset + 32 : offset + 32 + length].decode()


def token_domain(rpc_url: str, info: dict):
    """The token's EIP-712 domain as the server reads it (chain/token_domain.py): name() and
    version() of the contract, checked against its DOMAIN_SEPARATOR()."""
    from chain.authorization import TokenDomain

    token = info["usdcAddress"]
    calls = [("eth_call", [{"to": token, "data": s}, "latest"]) for s in (NAME, VERSION, DOMAIN_SEPARATOR)]
    name, version, separator = _rpc_batch(rpc_url, calls)
    domain = TokenDomain(_string(name), _string(version), int(info["chainId"]), token)
    if "0x" + domain.separator().hex() != separator.lower():
        raise RuntimeError(f"the token's DOMAIN_SEPARATOR is not that of {domain}")
    return domain


@dataclass(frozen=True)
class SignedClaim:
    """One payer's claim paid by authorization, as the page posts it (docs/protocol.md 3.3a)."""

    payer: str
    commitment: str
    stake_units: int
    body: dict
    address: str  # the address the router reports the player from (X-Forwarded-For)


def signed_claim(*, domain, info: dict, challenge_id: int, payer: Payer, n: int) -> SignedClaim:
    """The n-th payer's guess (distinct coordinates), a stake of 1.01 to 1.97 USDC, and its
    authorization valid for 30 minutes (what the page asks for), signed with the payer's key."""
    from chain.authorization import Signature, TransferAuthorization
    from challenges.commitments import guess_commitment_v1
    from challenges.coordinates import parse_coordinates
    from eth_account import Account

    text = parse_coordinates(f"{-33 + n / 10_000:.6f}, {151 + n / 10_000:.6f}").text
    stake = Decimal(1) + Decimal(1 + n % 97) / 100
    salt = secrets.token_hex(32)
    commitment = guess_commitment_v1(
        chain_id=int(info["chainId"]), challenge_id=challenge_id, submitter_address=payer.address, text=text, salt=salt
    )
    valid_before = int(time.time()) + 1800
    authorization = TransferAuthorization(
        from_address=payer.address,
        to_address=info["treasuryAddress"],
        value=int(stake * 10**6),
        valid_after=0,
        valid_before=valid_before,
        nonce=commitment,
    )
    signed = Account.unsafe_sign_hash(authorization.digest(domain), payer.key)
    body = {
        "challengeId": challenge_id,
        "submissionText": text,
        "submissionStake": str(stake),
        "authorization": {
            "validAfter": 0,
            "validBefore": valid_before,
            "signature": Signature(v=signed.v, r=signed.r, s=signed.s).hex(),
        },
        "submitterAddress": payer.address,
        "submissionSalt": salt,
    }
    address = f"10.{n // 62500 + 1}.{n // 250 % 250}.{n % 250 + 1}"
    return SignedClaim(payer.address, commitment, authorization.value, body, address)


def token_logs(rpc_url: str, info: dict, *, from_block: int, to_block: int) -> dict[str, list[dict]]:
    """The token's AuthorizationUsed logs and its Transfer logs to the treasury in the blocks."""
    from chain.authorization import AUTHORIZATION_USED_TOPIC, address_topic

    bounds = {"address": info["usdcAddress"], "fromBlock": hex(from_block), "toBlock": hex(to_block)}
    used, transfers = _rpc_batch(
        rpc_url,
        [
            ("eth_getLogs", [{**bounds, "topics": [AUTHORIZATION_USED_TOPIC]}]),
            ("eth_getLogs", [{**bounds, "topics": [TRANSFER_TOPIC, None, address_topic(info["treasuryAddress"])]}]),
        ],
    )
    return {"used": used, "transfers": transfers}


def receipts(rpc_url: str, hashes: list[str]) -> dict[str, dict | None]:
    found = _rpc_batch(rpc_url, [("eth_getTransactionReceipt", [h]) for h in hashes]) if hashes else []
    return dict(zip(hashes, found, strict=True))


def direct_transfer_gas(rpc_url: str, info: dict, challenge_id: int, count: int) -> list[int]:
    """The gas of `count` direct stake transfers (docs/protocol.md section 2: the player's own
    transaction, 164 bytes of calldata), sent by anvil's funded players to the same treasury on the
    same chain: what a player with ETH pays instead of the relayer."""
    from .data import stake_payment

    players = info["players"][:count]
    counts = _rpc_batch(rpc_url, [("eth_getTransactionCount", [p, "pending"]) for p in players])
    nonces = {p: int(c, 16) for p, c in zip(players, counts, strict=True)}
    hashes = []
    for n in range(count):
        player = players[n % len(players)]
        _, _, _, data = stake_payment(info, challenge_id, player, 10_000 + n)
        hashes.append(("eth_sendTransaction", [{"from": player, "to": info["usdcAddress"], "data": data,
                                                "gas": hex(200_000), "nonce": hex(nonces[player])}]))  # fmt: skip
        nonces[player] += 1
    # One request each, in nonce order: a node may take a batch's calls out of order, and an automining
    # anvil leaves a transaction that arrived before its predecessor queued.
    sent = [_rpc_batch(rpc_url, [call])[0] for call in hashes]
    deadline = time.monotonic() + 60
    while True:
        found = list(receipts(rpc_url, sent).values())
        if all(r is not None for r in found):
            break
        if time.monotonic() > deadline:
            raise RuntimeError("direct stake transfers not mined within 60 s")
        time.sleep(0.2)
    if any(r["status"] != "0x1" for r in found):
        raise RuntimeError("a direct stake transfer reverted")
    return [int(r["gasUsed"], 16) for r in found]
