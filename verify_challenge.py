#!/usr/bin/env python3
"""Re-check every outcome of a resolved Geopoem challenge from public data alone.

    python verify_challenge.py --site https://geopoem.example --rpc https://rpc.example --challenge 7
    python verify_challenge.py --site https://geopoem.example --rpc https://rpc.example --record my-guess.json

One file, the Python standard library only (3.10 or newer): nothing of the project needs to be
installed, and nothing here has to be trusted beyond what it prints. It reads the challenge, its
claims, its unclaimed payments and its payouts through the site's public API, and the chain through
any JSON-RPC node you choose, and recomputes (the rules: the site's docs/protocol.md, sections 2 to 6):

- the terms: the challenge's first TermsAnchored log in the registry (`--registry`, default the
  site's), whose solution commitment the revealed solution must open, whose threshold scores the
  guesses, and whose opening time and terms hash the site's challenge must show;
- for each counted response: its payment on chain (a successful direct call of the USDC contract,
  value 0, from the response's address, deep enough in a block that is still canonical, mined after
  the anchor's block while the challenge was open), the calldata (treasury, exact amount, the
  commitment of this guess's text and salt, this challenge), the USDC Transfer log that moved the
  money, and the chain position (block, transaction index, log index) the site ranks by;
- the distance to the solution, correctness against the threshold, the total staked, both winners
  and the 40/40/20 prize split to the token unit;
- completeness: every USDC transfer to the treasury naming the challenge, from the anchor's block to
  the head, is a counted response, a rejected claim whose reason code is the first rule the payment
  fails, or a listed unclaimed payment;
- the payouts: each prize to the address the rules give, of the exact amount, paid (a USDC Transfer
  from the treasury after resolution), due, or different;
- with `--record`, a player's downloaded record: the anchor they saw, whether their payment had to
  count, and how the site accounted for it.

It prints what it checked, every difference, and ends with "N of N outcomes reproduced" only when
nothing differs; otherwise with "DIFFERENCES FOUND: ...".
Exit status: 0 every outcome reproduced, 1 a difference, 2 could not run (network, arguments)."""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import math
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

# keccak256("Transfer(address,address,uint256)") and the selector of transfer(address,uint256): fixed
# constants of ERC-20, written out so that no keccak implementation is needed.
TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
TRANSFER_SELECTOR = "a9059cbb"
# keccak256("TermsAnchored(uint256,bytes32,bytes32,uint64,uint32)"): the registry's event
# (docs/protocol.md section 6; tests/vectors.json, "anchor").
TERMS_ANCHORED_TOPIC = "0x2afc2b3441c70212f84379948f78279cc697f578030cb391f6115fd5e3a603e5"
STAKE_CALLDATA_BYTES = 164
PLAIN_CALLDATA_BYTES = 68
# EIP-3009, a stake paid by a signed authorization (docs/protocol.md section 2a; tests/vectors.json,
# "authorization"): keccak256("AuthorizationUsed(address,bytes32)") and
# keccak256("AuthorizationCanceled(address,bytes32)"), the events the USDC contract emits when an
# authorization is used or voided, and the selector of
# transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32).
AUTHORIZATION_USED_TOPIC = "0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5"
AUTHORIZATION_CANCELED_TOPIC = "0x1cdd46ff242716cdaa72d159d339a485b3438398348d68f09d7c8c0a59353d81"
TRANSFER_WITH_AUTHORIZATION_SELECTOR = "e3ee160e"
RELAYED_CALL_BYTES = 292  # the selector and the nine ABI words
RELAYED_STAKE_BYTES = 324  # and Geopoem's challenge word after them
AUTHORIZATION = "authorization"  # a claim's paymentMethod when its stake is paid by authorization
# Reasons that say a claim is not the payer's own (a stranger's claim on someone else's payment):
# such a claim does not account for the payment (docs/protocol.md sections 3.2 and 6).
NOT_THE_PAYERS_CLAIM = ("wrong_sender", "commitment_mismatch")
# A claim whose payment passes every rule but that reached the site after the challenge's resolution
# had started: rejected with this code, not counted in the pot, and published in the winners answer
# as an exception, as is a counted stake whose block left the chain after resolution (kind
# "reorged"; docs/protocol.md section 5, "Exceptions").
AFTER_RESOLUTION = "after_resolution"
EXCEPTION_KINDS = (AFTER_RESOLUTION, "reorged")
# An exception's `recordedAt` is Unix seconds, a whole number; the last second of the year 9999 is
# the largest that is still a date (tests/vectors.json, "exceptions", "recordedAt").
LAST_UNIX_SECOND = 253_402_300_799
# Blocks per eth_getLogs request of the completeness scan (a node that refuses gets smaller ones).
LOG_RANGE = 10_000
EARTH_RADIUS_M = 6_371_000
# The site scores in its database, this script in Python: the same formula in two floating-point
# implementations. A distance agrees when within a millimetre; a guess that close to the threshold
# is a floating-point tie, and the site's verdict on it stands (docs/protocol.md section 4).
DISTANCE_TOLERANCE_M = 0.001
PAGE_SIZE = 1000
USER_AGENT = "geopoem-verify/1"


class Unavailable(Exception):
    """The site or the RPC node could not be read: nothing was decided."""


# --- Canonical forms and commitments (docs/protocol.md section 1) ------------------------------

_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_COORDINATES = re.compile(rf"^\s*({_NUMBER})\s*,\s*({_NUMBER})\s*$", re.ASCII)
_DECIMAL = re.compile(r"^[0-9]+(?:\.[0-9]+)?$", re.ASCII)


def truncate_number(number: str) -> str:
    """Truncate a decimal string toward zero to 6 places, written canonically."""
    sign = ""
    if number[0] in "+-":
        sign, number = ("-" if number[0] == "-" else ""), number[1:]
    whole, _, fraction = number.partition(".")
    whole = whole.lstrip("0") or "0"
    fraction = fraction[:6].rstrip("0")
    text = f"{whole}.{fraction}" if fraction else whole
    return "0" if text == "0" else sign + text


def canonical_coordinates(text: str) -> str | None:
    """The canonical "lat, lon" of player input, or None when it is not a pair in range."""
    match = _COORDINATES.match(text) if len(text) <= 100 else None
    if match is None:
        return None
    lat, lon = (truncate_number(part) for part in match.groups())
    if not (_within(match.group(1), 90) and _within(match.group(2), 180)):
        return None
    return f"{lat}, {lon}"


def _within(number: str, limit: int) -> bool:
    """|number| <= limit, exactly, on the decimal string."""
    whole, _, fraction = number.lstrip("+-").partition(".")
    value = int(whole or "0")
    return value < limit or (value == limit and not fraction.strip("0"))


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def guess_commitment(*, chain_id: int, challenge_id: int, submitter_address: str, text: str, salt: str) -> str:
    return sha256_hex(f"geopoem:guess:v1|{chain_id}|{challenge_id}|{submitter_address.lower()}|{text}|{salt}")


def solution_commitment(*, challenge_id: int, text: str, salt: str) -> str:
    return sha256_hex(f"geopoem:solution:v1|{challenge_id}|{text}|{salt}")


def terms_hash(*, challenge_id: int, title: str, poem: str, instructions: str) -> str:
    """What players read, bound by the anchor (docs/protocol.md section 6): each text as the API
    serves it, hashed on its own first so the joined text is unambiguous."""
    parts = "|".join(sha256_hex(text) for text in (title, poem, instructions))
    return sha256_hex(f"geopoem:terms:v1|{challenge_id}|{parts}")


def to_units(amount: str, decimals: int = 6) -> int:
    """A decimal string of USDC as integer token units, exactly (no floats)."""
    if not _DECIMAL.match(amount):
        raise ValueError(f"not a decimal amount: {amount!r}")
    whole, _, fraction = amount.partition(".")
    if fraction[decimals:].strip("0"):
        raise ValueError(f"more than {decimals} decimals: {amount!r}")
    return int(whole + fraction[:decimals].ljust(decimals, "0"))


def from_units(units: int, decimals: int = 6) -> str:
    return f"{units // 10**decimals}.{units % 10**decimals:0{decimals}d}"


# --- The calldata (docs/protocol.md section 2) -----------------------------------------------


@dataclass(frozen=True)
class StakeCalldata:
    recipient: str  # lowercase 0x address
    amount_units: int
    commitment: str  # 64 lowercase hex
    challenge_id: int
    timestamp: int


def decode_stake_calldata(data: str) -> StakeCalldata | None:
    """transfer(treasury, amount) followed by bytes32 commitment, uint256 challenge id and uint256
    unix seconds: 164 bytes. None for anything else."""
    decoded = decode_transfer_calldata(data)
    return decoded if decoded is not None and decoded.commitment else None


def decode_transfer_calldata(data: str) -> StakeCalldata | None:
    """A `transfer` call of 68 bytes (commitment "" and challenge id None: it carries neither) or of
    the 164 bytes of a stake; None for anything else (docs/protocol.md section 2, rule 5)."""
    raw = data[2:] if data.startswith("0x") else data
    if len(raw) not in (2 * PLAIN_CALLDATA_BYTES, 2 * STAKE_CALLDATA_BYTES) or raw[:8].lower() != TRANSFER_SELECTOR:
        return None
    try:
        words = [raw[8 + 64 * i : 8 + 64 * (i + 1)].lower() for i in range((len(raw) - 8) // 64)]
        if words[0][:24].strip("0"):
            return None
        plain = len(words) == 2
        return StakeCalldata(
            recipient="0x" + words[0][24:],
            amount_units=int(words[1], 16),
            commitment="" if plain else words[2],
            challenge_id=None if plain else int(words[3], 16),  # type: ignore[arg-type]
            timestamp=None if plain else int(words[4], 16),  # type: ignore[arg-type]
        )
    except ValueError:
        return None


@dataclass(frozen=True)
class RelayedCall:
    """A `transferWithAuthorization` call read from a transaction's input (docs/protocol.md section
    2a, "The relayed transaction"): whose authorization it uses, and the challenge it names."""

    authorizer: str  # lowercase 0x address: the payer, the authorization's `from`
    recipient: str  # lowercase 0x address
    amount_units: int
    valid_after: int
    valid_before: int
    nonce: str  # 64 lowercase hex: Geopoem's guess commitment
    challenge_id: int | None  # the word after the nine ABI words; None in a bare 292-byte call


_HEX = re.compile(r"^[0-9a-f]*$")


def decode_relayed_call(data: str) -> RelayedCall | None:
    """A transferWithAuthorization call of 292 bytes (no challenge word) or 324 (with it); None for
    another function, another length, an address or `v` word that is not zero-padded (the token's
    ABI decoder reverts on those), or anything that is not hex."""
    raw = data[2:] if data.startswith("0x") else data
    if len(raw) not in (2 * RELAYED_CALL_BYTES, 2 * RELAYED_STAKE_BYTES):
        return None
    raw = raw.lower()
    if not _HEX.match(raw):
        return None
    if raw[:8] != TRANSFER_WITH_AUTHORIZATION_SELECTOR:
        return None
    words = [raw[8 + 64 * i : 8 + 64 * (i + 1)] for i in range((len(raw) - 8) // 64)]
    if words[0][:24].strip("0") or words[1][:24].strip("0") or words[6][:62].strip("0"):
        return None
    return RelayedCall(
        authorizer="0x" + words[0][24:],
        recipient="0x" + words[1][24:],
        amount_units=int(words[2], 16),
        valid_after=int(words[3], 16),
        valid_before=int(words[4], 16),
        nonce=words[5],
        challenge_id=int(words[9], 16) if len(words) == 10 else None,
    )


# --- Scoring (docs/protocol.md section 4) ----------------------------------------------------


def haversine_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in metres on a sphere of radius 6,371,000 m."""
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    dphi = math.radians(lat2 - lat1)
    dlambda = math.radians(lon2 - lon1)
    a = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlambda / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(math.sqrt(min(1.0, a)))


def distance_between(guess: str, solution: str) -> float:
    (lat1, lon1), (lat2, lon2) = ([float(part) for part in text.split(", ")] for text in (guess, solution))
    return haversine_m(lat1, lon1, lat2, lon2)


@dataclass(frozen=True)
class Split:
    total: int
    earliest: int
    highest: int
    operations: int


def prize_split(total_units: int) -> Split:
    """40 % / 40 % / 20 % of the pot, each rounded down to a whole token unit."""
    return Split(total_units, total_units * 40 // 100, total_units * 40 // 100, total_units * 20 // 100)


@dataclass
class Outcome:
    """One response as published, and what re-checking it found."""

    row: dict
    problems: list[str] = field(default_factory=list)
    distance: float | None = None
    correct: bool | None = None
    chain_position: tuple[int, int, int] | None = None  # as read from the chain
    unpaid_demo: bool = False  # a seeded claim of a demonstration challenge: no payment to check

    @property
    def id(self) -> int:
        return self.row["id"]

    @property
    def name(self) -> str:
        return f"response {self.row['id']} ({self.row['transactionHash']})"

    @property
    def position(self) -> tuple[int, int, int]:
        """Chain order as the chain shows it; as the site shows it only where there is no chain to read
        (a demonstration challenge)."""
        if self.chain_position is not None:
            return self.chain_position
        return (self.row.get("blockNumber") or 0, self.row.get("transactionIndex") or 0, self.row.get("logIndex") or 0)


def pick_winners(outcomes: list[Outcome], decimals: int) -> tuple[Outcome | None, Outcome | None]:
    """Earliest: the first correct response in chain order. Highest: the largest stake, equal
    stakes going to the earliest in chain order."""
    correct = [o for o in outcomes if o.correct]
    if not correct:
        return None, None
    earliest = min(correct, key=lambda o: o.position)
    highest = min(correct, key=lambda o: (-to_units(o.row["submissionStake"], decimals), *o.position))
    return earliest, highest


def would_win(
    *,
    correct: bool,
    stake_units: int,
    position: tuple[int, int, int],
    earliest: tuple[int, int, int] | None,
    highest: tuple[int, tuple[int, int, int]] | None,
) -> list[str]:
    """Which prizes a claim left out of the pot would have taken had it been counted: "earliest"
    when it is correct and before the earliest winner in chain order (or there is none), "highest"
    when it is correct and stakes more than the highest winner, or as much and earlier. `earliest`
    is that winner's chain position, `highest` its (stake units, position); None: no winner."""
    if not correct:
        return []
    won = []
    if earliest is None or position < earliest:
        won.append("earliest")
    if highest is None or (-stake_units, position) < (-highest[0], highest[1]):
        won.append("highest")
    return won


# --- Reading the site and the chain ------------------------------------------------------------


def http_request(url: str, *, data: bytes | None = None, headers: dict[str, str]) -> urllib.request.Request:
    """Only http(s): urllib would also open file: and ftp: URLs."""
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise Unavailable(f"{url} is not an http(s) URL")
    return urllib.request.Request(url, data=data, headers={"User-Agent": USER_AGENT, **headers})  # noqa: S310


def http_get(url: str, *, timeout: float) -> tuple[bytes, dict[str, str]]:
    request = http_request(url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:  # noqa: S310 - the user's URL
            return answer.read(), {k.lower(): v for k, v in answer.headers.items()}
    except (urllib.error.URLError, OSError) as exc:
        raise Unavailable(f"GET {url}: {exc}") from exc


def get_json(url: str, *, timeout: float) -> tuple[object, dict[str, str]]:
    body, headers = http_get(url, timeout=timeout)
    try:
        return json.loads(body), headers
    except ValueError as exc:
        raise Unavailable(f"GET {url}: the answer is not JSON") from exc


def next_link(headers: dict[str, str]) -> str | None:
    for part in headers.get("link", "").split(","):
        match = re.match(r'\s*<([^>]+)>\s*;\s*rel="?next"?', part)
        if match:
            return match.group(1)
    return None


class Site:
    def __init__(self, url: str, *, timeout: float, page_size: int = PAGE_SIZE) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.page_size = page_size

    def on_site(self, link: str) -> str:
        """A link the site gave, kept on the address the player named: behind a proxy the site may
        spell its own origin differently (an internal host, http for https)."""
        parts = urllib.parse.urlsplit(urllib.parse.urljoin(self.url + "/", link))
        return self.url + parts.path + (f"?{parts.query}" if parts.query else "")

    def public_config(self) -> dict:
        """The public settings the page embeds (chain id, USDC, treasury, token decimals)."""
        body, _ = http_get(self.url + "/", timeout=self.timeout)
        match = re.search(rb'<script id="geopoem-config" type="application/json">(.*?)</script>', body, re.S)
        if match is None:
            raise Unavailable(f"{self.url}/ does not embed the public configuration")
        return json.loads(match.group(1))

    def challenge(self, challenge_id: int) -> dict | None:
        resolved, _ = get_json(f"{self.url}/api/challenges/resolved", timeout=self.timeout)
        return next((c for c in resolved if c.get("id") == challenge_id), None)  # type: ignore[union-attr]

    def winners(self, challenge_id: int) -> dict:
        data, _ = get_json(f"{self.url}/api/challenges/{challenge_id}/winners", timeout=self.timeout)
        return data  # type: ignore[return-value]

    def responses(self, challenge_id: int, progress, *, status: str = "confirmed") -> list[dict]:
        """Every public claim of the challenge of this status (confirmed: the counted responses;
        rejected: the rejected claims), following the Link header page by page."""
        query = f"challengeId={challenge_id}&limit={self.page_size}" + (
            "&status=rejected" if status != "confirmed" else ""
        )
        return self._pages(f"{self.url}/api/responses?{query}", progress, f"{status} claims")

    def unclaimed(self, challenge_id: int, progress) -> list[dict]:
        """The payments naming the challenge that no claim of the payer reached the site for."""
        url = f"{self.url}/api/challenges/{challenge_id}/unclaimed?limit={self.page_size}"
        return self._pages(url, progress, "unclaimed payments")

    def _pages(self, url: str | None, progress, what: str) -> list[dict]:
        rows: list[dict] = []
        while url:
            page, headers = get_json(url, timeout=self.timeout)
            if not isinstance(page, list):
                raise Unavailable(f"GET {url}: not a list")
            rows.extend(page)
            progress(f"read {len(rows)} {what} from the site")
            link = next_link(headers)
            url = self.on_site(link) if link else None
        return rows


class Rpc:
    """JSON-RPC over HTTP, many calls per request (a JSON-RPC batch). A node that refuses a batch
    of this size gets smaller ones."""

    def __init__(self, url: str, *, timeout: float, batch: int) -> None:
        self.url = url
        self.timeout = timeout
        self.batch = max(1, batch)

    def _post(self, payload: object) -> object:
        request = http_request(
            self.url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:  # noqa: S310 - the user's URL
                return json.loads(answer.read())
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise Unavailable(f"RPC {self.url}: {exc}") from exc

    def call(self, method: str, *params: object) -> object:
        return self.many([(method, list(params))])[0]

    def many(self, calls: list[tuple[str, list]], progress=None) -> list[object]:
        results: list[object] = []
        start = 0
        while start < len(calls):
            chunk = calls[start : start + self.batch]
            payload = [{"jsonrpc": "2.0", "id": i, "method": m, "params": p} for i, (m, p) in enumerate(chunk)]
            answer = self._post(payload)
            if not isinstance(answer, list) or len(answer) != len(chunk):
                if self.batch > 1:
                    self.batch = max(1, self.batch // 2)
                    continue
                raise Unavailable(f"RPC {self.url}: unexpected answer {str(answer)[:200]}")
            by_id = {item.get("id"): item for item in answer if isinstance(item, dict)}
            for i, (method, _) in enumerate(chunk):
                item = by_id.get(i)
                if item is None or "error" in item:
                    raise Unavailable(f"RPC {self.url}: {method} failed: {item and item.get('error')}")
                results.append(item.get("result"))
            start += len(chunk)
            if progress:
                progress(f"read {start} of {len(calls)} chain records")
        return results


# --- Reading the chain once, in batches ----------------------------------------------------------


def _int(value: object) -> int:
    return int(str(value), 16) if isinstance(value, str) else int(value)  # type: ignore[arg-type]


def _lower(value: object) -> str:
    return str(value or "").lower()


def _word(number: int) -> str:
    return "0x" + f"{number:064x}"


def _topic0(log: dict) -> str:
    return _lower((log.get("topics") or [""])[0])


def _address_word(address: str) -> str:
    return "0x" + "0" * 24 + address.lower()[2:]


@dataclass(frozen=True)
class Anchor:
    """The challenge's first TermsAnchored log in the registry (docs/protocol.md section 6)."""

    registry: str
    transaction_hash: str
    block_number: int
    log_index: int
    solution_commitment: str  # 64 lowercase hex
    terms_hash: str  # 64 lowercase hex
    opens_at: int
    threshold_m: int


def parse_anchor(log: dict) -> Anchor | None:
    data = _lower(log.get("data"))[2:]
    if len(data) != 4 * 64:
        return None
    words = [data[64 * i : 64 * (i + 1)] for i in range(4)]
    return Anchor(
        registry=_lower(log.get("address")),
        transaction_hash=_lower(log.get("transactionHash")),
        block_number=_int(log["blockNumber"]),
        log_index=_int(log["logIndex"]),
        solution_commitment=words[0],
        terms_hash=words[1],
        opens_at=int(words[2], 16),
        threshold_m=int(words[3], 16),
    )


@dataclass(frozen=True)
class TransferLog:
    transaction_hash: str
    block_number: int
    block_hash: str
    transaction_index: int
    log_index: int
    sender: str
    recipient: str
    amount_units: int


def transfer_log(entry: dict, usdc: str) -> TransferLog | None:
    """An ERC-20 Transfer emitted by the USDC contract itself (any contract can emit the event)."""
    topics = [_lower(t) for t in entry.get("topics") or []]
    if entry.get("removed") or _lower(entry.get("address")) != usdc or len(topics) != 3 or topics[0] != TRANSFER_TOPIC:
        return None
    return TransferLog(
        transaction_hash=_lower(entry.get("transactionHash")),
        block_number=_int(entry["blockNumber"]),
        block_hash=_lower(entry.get("blockHash")),
        transaction_index=_int(entry["transactionIndex"]),
        log_index=_int(entry["logIndex"]),
        sender="0x" + topics[1][-40:],
        recipient="0x" + topics[2][-40:],
        amount_units=_int(entry.get("data") or "0x0"),
    )


@dataclass(frozen=True)
class AuthorizationUse:
    """An AuthorizationUsed log the USDC contract emitted in a transaction, and the log right after
    it: FiatToken emits the `Transfer` that moved the money at the next log index (docs/protocol.md
    section 2a, rule 3)."""

    transaction_hash: str
    block_number: int
    block_hash: str
    transaction_index: int
    log_index: int  # the AuthorizationUsed log's
    status: int  # the receipt's
    transfer: TransferLog | None  # the USDC Transfer at log_index + 1, whatever it moves; None: none there


def authorization_use(receipt: object, *, usdc: str, authorizer: str, nonce: str) -> AuthorizationUse | None:
    """In a receipt, the AuthorizationUsed(authorizer, nonce) log emitted by the USDC contract itself
    (any contract can emit the event), paired with the USDC Transfer at its log index + 1; None when
    the receipt holds no such log. Each authorization pairs with its own next log, so a transaction
    that uses several is read right (tests/vectors.json, "authorization", "pairing")."""
    if not isinstance(receipt, dict):
        return None
    logs = [e for e in receipt.get("logs") or [] if isinstance(e, dict) and e.get("logIndex") is not None]
    wanted = [AUTHORIZATION_USED_TOPIC, _address_word(authorizer), "0x" + nonce.lower().removeprefix("0x")]
    used = next(
        (
            e
            for e in logs
            if not e.get("removed")
            and _lower(e.get("address")) == usdc
            and [_lower(t) for t in e.get("topics") or []] == wanted
        ),
        None,
    )
    if used is None:
        return None
    index = _int(used["logIndex"])
    after = next((e for e in logs if _int(e["logIndex"]) == index + 1), None)
    return AuthorizationUse(
        transaction_hash=_lower(used.get("transactionHash")),
        block_number=_int(used["blockNumber"]),
        block_hash=_lower(used.get("blockHash")),
        transaction_index=_int(used["transactionIndex"]),
        log_index=index,
        status=_int(receipt.get("status", "0x0")),
        transfer=transfer_log(after, usdc) if after is not None else None,
    )


def authorizations_used(receipt: object, *, usdc: str) -> list[tuple[str, str]]:
    """(authorizer, nonce) of every AuthorizationUsed log the USDC contract emitted in a receipt."""
    found = []
    for e in (receipt.get("logs") or []) if isinstance(receipt, dict) else []:
        topics = [_lower(t) for t in e.get("topics") or []]
        if not e.get("removed") and _lower(e.get("address")) == usdc and topics[:1] == [AUTHORIZATION_USED_TOPIC]:
            if len(topics) == 3:
                found.append(("0x" + topics[1][-40:], topics[2][2:]))
    return found


class ChainData:
    """What the verifier reads from the chain, each item once, in JSON-RPC batches: transactions,
    receipts (where the completeness scan did not already show the transaction's transfers, and of
    every transaction that paid by authorization: its AuthorizationUsed log), blocks, the scan of
    every USDC Transfer to the treasury, and the token's AuthorizationUsed and AuthorizationCanceled
    logs of each authorization whose claim names no transaction the verifier can rely on."""

    def __init__(self, rpc: Rpc, *, usdc: str, treasury: str, progress) -> None:
        self.rpc, self.usdc, self.treasury, self.progress = rpc, usdc, treasury, progress
        self.head = _int(rpc.call("eth_blockNumber"))
        self.txs: dict[str, dict | None] = {}
        self.receipts: dict[str, dict | None] = {}
        self.blocks: dict[int, dict | None] = {}
        self.scan: dict[str, list[TransferLog]] = {}  # transaction -> its USDC Transfers to the treasury
        self.scanned: tuple[int, int] | None = None
        # (authorizer, nonce) -> the token's AuthorizationUsed and AuthorizationCanceled logs of it
        # (the first of each; the token emits at most one of the two, once).
        self.authorizations: dict[tuple[str, str], dict[str, dict | None]] = {}

    def anchors(self, registry: str, challenge_id: int) -> list[Anchor]:
        logs = self.rpc.call(
            "eth_getLogs",
            {
                "address": registry,
                "topics": [TERMS_ANCHORED_TOPIC, _word(challenge_id)],
                "fromBlock": "0x0",
                "toBlock": hex(self.head),
            },
        )
        found = [parse_anchor(log) for log in logs or [] if not log.get("removed")]  # type: ignore[union-attr]
        return sorted((a for a in found if a is not None), key=lambda a: (a.block_number, a.log_index))

    def read_transactions(self, hashes) -> None:
        wanted = sorted({h.lower() for h in hashes} - set(self.txs))
        found = self.rpc.many([("eth_getTransactionByHash", [h]) for h in wanted], self.progress)
        self.txs.update(zip(wanted, found, strict=True))  # type: ignore[arg-type]

    def read_receipts(self, hashes) -> None:
        wanted = sorted({h.lower() for h in hashes} - set(self.receipts))
        found = self.rpc.many([("eth_getTransactionReceipt", [h]) for h in wanted], self.progress)
        self.receipts.update(zip(wanted, found, strict=True))  # type: ignore[arg-type]

    def read_blocks(self, numbers) -> None:
        wanted = sorted(set(numbers) - set(self.blocks))
        found = self.rpc.many([("eth_getBlockByNumber", [hex(n), False]) for n in wanted], self.progress)
        self.blocks.update(zip(wanted, found, strict=True))  # type: ignore[arg-type]

    def search_authorizations(self, keys) -> None:
        """The token's AuthorizationUsed and AuthorizationCanceled logs of each (authorizer, nonce),
        one eth_getLogs per authorization (both events at once), from block 0 as for the anchor:
        the topics name one authorization, which the token uses or voids once."""
        wanted = sorted({(a.lower(), n.lower()) for a, n in keys} - set(self.authorizations))
        calls = [
            (
                "eth_getLogs",
                [
                    {
                        "address": self.usdc,
                        "topics": [
                            [AUTHORIZATION_USED_TOPIC, AUTHORIZATION_CANCELED_TOPIC],
                            _address_word(authorizer),
                            "0x" + nonce,
                        ],
                        "fromBlock": "0x0",
                        "toBlock": hex(self.head),
                    }
                ],
            )
            for authorizer, nonce in wanted
        ]
        found = self.rpc.many(calls, self.progress)
        for key, logs in zip(wanted, found, strict=True):
            ours = [
                e
                for e in logs or []  # type: ignore[attr-defined]
                if isinstance(e, dict) and not e.get("removed") and _lower(e.get("address")) == self.usdc
            ]
            self.authorizations[key] = {
                "used": next((e for e in ours if _topic0(e) == AUTHORIZATION_USED_TOPIC), None),
                "cancelled": next((e for e in ours if _topic0(e) == AUTHORIZATION_CANCELED_TOPIC), None),
            }

    def used_in(self, authorizer: str, nonce: str) -> str | None:
        """The transaction whose AuthorizationUsed log the search found for this authorization."""
        found = self.authorizations.get((authorizer.lower(), nonce.lower()))
        used = found and found["used"]
        return _lower(used.get("transactionHash")) if used else None

    def cancelled(self, authorizer: str, nonce: str) -> bool:
        found = self.authorizations.get((authorizer.lower(), nonce.lower()))
        return bool(found and found["cancelled"])

    def use(self, tx_hash: str | None, *, authorizer: str, nonce: str) -> AuthorizationUse | None:
        """The authorization's use in this transaction's receipt (read beforehand), paired."""
        if not tx_hash:
            return None
        return authorization_use(self.receipts.get(tx_hash.lower()), usdc=self.usdc, authorizer=authorizer, nonce=nonce)

    def head_time(self) -> int | None:
        return self.block_time(self.head)

    def scan_transfers(self, from_block: int, *, step: int) -> None:
        """Every USDC Transfer to the treasury from `from_block` to the head, in block ranges; a node
        that refuses a range (too many results) gets halves of it."""
        topics = [TRANSFER_TOPIC, None, _address_word(self.treasury)]
        start, step = from_block, max(1, step)
        while start <= self.head:
            end = min(self.head, start + step - 1)
            try:
                logs = self.rpc.call(
                    "eth_getLogs",
                    {"address": self.usdc, "topics": topics, "fromBlock": hex(start), "toBlock": hex(end)},
                )
            except Unavailable:
                if step == 1:
                    raise
                step = max(1, step // 2)
                continue
            for entry in logs or []:  # type: ignore[union-attr]
                log = transfer_log(entry, self.usdc)
                if log is not None and log.recipient == self.treasury:
                    self.scan.setdefault(log.transaction_hash, []).append(log)
            self.progress(f"scanned the treasury's transfers to block {end} of {self.head}")
            start = end + 1
        self.scanned = (from_block, self.head)

    def mined(self, tx_hash: str) -> dict | None:
        """The transaction when the chain holds it in a block; None when unknown or not mined."""
        tx = self.txs.get(tx_hash.lower())
        return tx if isinstance(tx, dict) and tx.get("blockNumber") is not None else None

    def needs_receipt(self, tx_hash: str) -> bool:
        """A mined transaction whose transfers to the treasury the scan did not show: its receipt
        says whether it failed and what it moved (a transaction with a Transfer log succeeded)."""
        return self.mined(tx_hash) is not None and tx_hash.lower() not in self.scan

    def status(self, tx_hash: str) -> int:
        if tx_hash.lower() in self.scan:
            return 1
        receipt = self.receipts.get(tx_hash.lower())
        return _int(receipt.get("status", "0x0")) if isinstance(receipt, dict) else 0

    def transfers(self, tx_hash: str) -> list[TransferLog]:
        """The transaction's USDC Transfers to the treasury, in log order."""
        h = tx_hash.lower()
        if h in self.scan:
            return sorted(self.scan[h], key=lambda log: log.log_index)
        receipt = self.receipts.get(h)
        logs = (
            [transfer_log(e, self.usdc) for e in (receipt or {}).get("logs") or []] if isinstance(receipt, dict) else []
        )
        return [log for log in logs if log is not None and log.recipient == self.treasury]

    def block_time(self, number: int) -> int | None:
        block = self.blocks.get(number)
        return _int(block["timestamp"]) if isinstance(block, dict) else None


# --- The rules (docs/protocol.md sections 2 and 6) ---------------------------------------------


@dataclass
class Terms:
    """What the payments and the scores are judged by: the anchor's values when there is one."""

    challenge_id: int
    solution: str
    threshold_m: int
    start: int | None  # the opening second (a block of that second counts)
    closed: int | None
    anchor: Anchor | None
    demo: bool = False  # an unanchored demonstration challenge: open without an anchor


def first_failing_rule(
    *,
    chain: ChainData,
    tx_hash: str,
    sender: str,
    stake_units: int | None,
    commitment: str,
    challenge_id: int,
    terms: Terms,
) -> str | None:
    """The reason code of the first rule of docs/protocol.md section 2 (and section 6, `early`) that
    this payment fails for this claim, or None when it passes every rule and had to count."""
    tx = chain.mined(tx_hash)
    if tx is None:
        return "not_found"
    if chain.status(tx_hash) != 1:
        return "tx_failed"
    data = str(tx.get("input") or tx.get("data") or "")
    if _lower(tx.get("to")) != chain.usdc:
        ours = data.lower().startswith("0x" + TRANSFER_SELECTOR) and _int(tx.get("value", "0x0")) == 0
        return "wrong_token" if ours else "unsupported_transaction"
    if _int(tx.get("value", "0x0")) != 0:
        return "unsupported_transaction"
    if _lower(tx.get("from")) != sender.lower():
        return "wrong_sender"
    calldata = decode_transfer_calldata(data)
    if calldata is None:
        return "unsupported_transaction"
    if calldata.recipient != chain.treasury:
        return "wrong_recipient"
    if stake_units is None or calldata.amount_units != stake_units:
        return "amount_mismatch"
    if not calldata.commitment or calldata.commitment != commitment:
        return "commitment_mismatch"
    if calldata.challenge_id != challenge_id:
        return "challenge_mismatch"
    paid = [t for t in chain.transfers(tx_hash) if t.sender == sender.lower() and t.amount_units == stake_units]
    if not paid:
        return "no_transfer_log"
    block_number = _int(tx["blockNumber"])
    return window_rule(block_number=block_number, mined=chain.block_time(block_number), terms=terms)


def window_rule(*, block_number: int, mined: int | None, terms: Terms) -> str | None:
    """`early` or `late` for a payment in this block, mined at this time (docs/protocol.md section 2,
    rule 7, and section 6), else None. The same for a transfer and an authorization."""
    anchor = terms.anchor
    if anchor is None and not terms.demo:
        return "early"  # a challenge whose terms are not on chain was never open: no stake counts
    if anchor is not None and (block_number <= anchor.block_number or mined is None or mined < anchor.opens_at):
        return "early"
    if (
        mined is None
        or terms.start is None
        or mined < terms.start
        or (terms.closed is not None and mined > terms.closed)
    ):
        return "late"
    return None


def authorization_rule(
    *,
    use: AuthorizationUse | None,
    cancelled: bool,
    valid_before: int | None,
    head_time: int | None,
    address: str,
    stake_units: int | None,
    treasury: str,
    mined: int | None,
    terms: Terms,
) -> str | None:
    """The reason code of the first rule of docs/protocol.md section 2a that a stake paid by
    authorization fails, or None when it passes every rule and had to count (tests/vectors.json,
    "authorization", "rules"). `use`: its AuthorizationUsed(address, commitment) log on chain, paired
    with the log after it; `mined`: that block's time. Whoever sent the transaction, whatever else
    it called, does not matter: the payer's signature binds the guess.

    No use on chain: `authorization_cancelled` when the token emitted AuthorizationCanceled for it,
    `authorization_expired` when the head's time is at or after `validBefore` (the token accepts it
    only strictly before), else `not_found` (it could still be used: no rejection is right yet)."""
    if use is None:
        if cancelled:
            return "authorization_cancelled"
        if valid_before is not None and head_time is not None and head_time >= valid_before:
            return "authorization_expired"
        return "not_found"
    if use.status != 1:
        return "tx_failed"
    transfer = use.transfer
    if transfer is None or transfer.sender != address.lower():
        return "no_transfer_log"
    if transfer.recipient != treasury:
        return "wrong_recipient"
    if stake_units is None or transfer.amount_units != stake_units:
        return "amount_mismatch"
    return window_rule(block_number=use.block_number, mined=mined, terms=terms)


def is_authorization(row: dict) -> bool:
    """Whether a claim says its stake was paid by authorization (a claim of a server from before
    authorizations shows no paymentMethod: a transfer)."""
    return row.get("paymentMethod") == AUTHORIZATION


def valid_before_of(row: dict) -> int | None:
    """The claim's `authorization.validBefore`, when it shows a whole number of seconds."""
    value = (row.get("authorization") or {}).get("validBefore")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def judge_authorization(
    chain: ChainData, *, address: str, commitment: str, stake_units: int | None, valid_before: int | None,
    tx_hash: str | None, terms: Terms,
) -> tuple[str | None, AuthorizationUse | None]:  # fmt: skip
    """A claim paid by authorization against the chain: its use, found by the token's logs (the
    search) or in the transaction it names, and the first rule it fails (authorization_rule)."""
    use = chain.use(chain.used_in(address, commitment) or tx_hash, authorizer=address, nonce=commitment)
    mined = chain.block_time(use.block_number) if use else None
    code = authorization_rule(
        use=use,
        cancelled=chain.cancelled(address, commitment),
        valid_before=valid_before,
        head_time=chain.head_time(),
        address=address,
        stake_units=stake_units,
        treasury=chain.treasury,
        mined=mined,
        terms=terms,
    )
    return code, use


def check_offchain(outcome: Outcome, *, terms: Terms, chain_id: int) -> None:
    """The response's own data: canonical text, its distance and correctness (with the anchored
    threshold when there is an anchor)."""
    row, problems = outcome.row, outcome.problems
    text = row.get("submissionText") or ""
    if canonical_coordinates(text) != text:
        problems.append(f"guess {text!r} is not canonical coordinates")
        return
    outcome.distance = distance_between(text, terms.solution)
    published = row.get("distanceMeters")
    if published is None or abs(published - outcome.distance) > DISTANCE_TOLERANCE_M:
        problems.append(f"distance is {outcome.distance:.3f} m, the site shows {published}")
    threshold = terms.threshold_m
    outcome.correct = outcome.distance <= threshold
    if row.get("isCorrect") is not outcome.correct:
        if abs(outcome.distance - threshold) <= DISTANCE_TOLERANCE_M:
            outcome.correct = bool(row.get("isCorrect"))  # a floating-point tie: the site's verdict stands
        else:
            problems.append(f"correct is {outcome.correct}, the site shows {row.get('isCorrect')}")
    if not row.get("submissionSalt"):
        problems.append("the site gives no salt")


def check_onchain(
    outcome: Outcome, *, chain: ChainData, confirmations: int, terms: Terms, chain_id: int, decimals: int
) -> None:
    """The payment against the rules the site claims to have applied (docs/protocol.md sections 2,
    2a and 6), and the chain position it ranks by. A response paid by authorization is held to
    section 2a's rules instead of the sender's and the calldata's."""
    row, problems = outcome.row, outcome.problems
    tx_hash = row.get("transactionHash") or ""
    tx = chain.mined(tx_hash)
    if tx is None:
        problems.append("the transaction is not on this chain")
        return
    if chain.status(tx_hash) != 1:
        problems.append("the transaction failed (status 0)")
    block_number, tx_index = _int(tx["blockNumber"]), _int(tx["transactionIndex"])
    block = chain.blocks.get(block_number)
    if block is None or _lower(block.get("hash")) != _lower(tx.get("blockHash")):
        problems.append(f"block {block_number} of the transaction is not on the canonical chain")
    if chain.head - block_number + 1 < confirmations:
        depth = chain.head - block_number + 1
        problems.append(f"only {depth} confirmation{'' if depth == 1 else 's'}, fewer than {confirmations}")
    stake_units = to_units(row["submissionStake"], decimals)
    commitment = guess_commitment(
        chain_id=chain_id,
        challenge_id=terms.challenge_id,
        submitter_address=row["submitterAddress"],
        text=row.get("submissionText") or "",
        salt=row.get("submissionSalt") or "",
    )
    paid = dict(chain=chain, commitment=commitment, stake_units=stake_units, decimals=decimals, problems=problems)
    if is_authorization(row):
        log = _check_authorization_payment(row, tx, **paid)  # type: ignore[arg-type]
    else:
        log = _check_transfer_payment(row, tx, terms=terms, **paid)  # type: ignore[arg-type]
    outcome.chain_position = (block_number, tx_index, log.log_index if log else row.get("logIndex") or 0)
    shown = (row.get("blockNumber"), row.get("transactionIndex"), row.get("logIndex"))
    if log is not None and shown != outcome.chain_position:
        problems.append(
            "chain position is block {} index {} log {}, the site shows block {} index {} log {}".format(
                *outcome.chain_position, *shown
            )
        )
    mined = chain.block_time(block_number)
    if mined is not None:
        if row.get("submissionTimestamp") != mined:
            problems.append(f"mined at {mined}, the site shows {row.get('submissionTimestamp')}")
        if terms.start is None or mined < terms.start or (terms.closed is not None and mined > terms.closed):
            problems.append(f"mined at {mined}, outside the open window {terms.start} to {terms.closed}")
    anchor = terms.anchor
    if anchor is not None:
        if block_number <= anchor.block_number:
            problems.append(f"paid in block {block_number}, not after the anchor's block {anchor.block_number}")
        if mined is not None and mined < anchor.opens_at:
            problems.append(f"mined at {mined}, before the anchored opening time {anchor.opens_at}")


def _check_transfer_payment(
    row: dict, tx: dict, *, chain: ChainData, terms: Terms, commitment: str, stake_units: int, decimals: int,
    problems: list[str],
) -> TransferLog | None:  # fmt: skip
    """Section 2's rules on a direct transfer: the USDC contract called by the response's address,
    value 0, the 164-byte stake calldata, and the first Transfer(sender, treasury, stake) it emitted."""
    tx_hash = row["transactionHash"]
    sender = _lower(tx.get("from"))
    data = str(tx.get("input") or tx.get("data") or "")
    if _lower(tx.get("to")) != chain.usdc:
        problems.append(f"paid to contract {tx.get('to')}, not the USDC contract")
    if _int(tx.get("value", "0x0")) != 0:
        problems.append("the transaction sent ether as well")
    if sender != _lower(row["submitterAddress"]):
        problems.append(f"sent from {tx.get('from')}, the site shows {row['submitterAddress']}")
    calldata = decode_stake_calldata(data)
    if calldata is None:
        problems.append("the calldata is not a 164-byte Geopoem stake transfer")
    else:
        if calldata.recipient != chain.treasury:
            problems.append(f"the calldata pays {calldata.recipient}, not the treasury")
        if calldata.amount_units != stake_units:
            problems.append(
                f"the calldata pays {from_units(calldata.amount_units, decimals)} USDC, "
                f"the site shows a stake of {row['submissionStake']}"
            )
        if calldata.commitment != commitment:
            problems.append("the calldata's commitment is not the commitment of this guess, address and salt")
        if calldata.challenge_id != terms.challenge_id:
            problems.append(f"the calldata names challenge {calldata.challenge_id}")
    relayed = decode_relayed_call(data)
    if relayed is not None and (relayed.authorizer, relayed.nonce) == (_lower(row["submitterAddress"]), commitment):
        problems.append(
            "the site shows it paid by transfer, but its transaction uses this guess's authorization: it was paid "
            "by authorization"
        )
    # The money: the first Transfer(sender, treasury, stake) the USDC contract emitted in the transaction.
    log = next((t for t in chain.transfers(tx_hash) if t.sender == sender and t.amount_units == stake_units), None)
    if log is None:
        problems.append(f"no USDC Transfer of {row['submissionStake']} from the sender to the treasury")
    return log


def _check_authorization_payment(
    row: dict, tx: dict, *, chain: ChainData, commitment: str, stake_units: int, decimals: int, problems: list[str]
) -> TransferLog | None:
    """Section 2a's rules on a stake paid by authorization: the transaction holds the USDC
    contract's AuthorizationUsed(address, commitment), and at the next log index the USDC Transfer
    from that address to the treasury of exactly the stake. Who sent it, and its calldata, do not
    matter. Returns that Transfer (the published logIndex must be its), else None."""
    tx_hash = row["transactionHash"]
    address = _lower(row["submitterAddress"])
    use = chain.use(tx_hash, authorizer=address, nonce=commitment)
    if use is None:
        problem = (
            f"its transaction holds no AuthorizationUsed of {address} for the commitment of this guess, address "
            "and salt"
        )
        others = sorted(
            {authorizer for authorizer, _ in authorizations_used(chain.receipts.get(tx_hash), usdc=chain.usdc)}
        )
        if others:
            problem += f" (it uses the authorization of {', '.join(others)})"
        calldata = decode_stake_calldata(str(tx.get("input") or tx.get("data") or ""))
        if calldata is not None and (_lower(tx.get("from")), calldata.commitment) == (address, commitment):
            problem += "; the site shows it paid by authorization, but it was paid by a direct transfer"
        problems.append(problem)
        return None
    transfer = use.transfer
    if transfer is None or transfer.sender != address:
        problems.append(
            f"the log after its AuthorizationUsed (log {use.log_index}) is not a USDC Transfer from {address}"
        )
        return None
    if transfer.recipient != chain.treasury:
        problems.append(f"its Transfer pays {transfer.recipient}, not the treasury")
    if transfer.amount_units != stake_units:
        problems.append(
            f"its Transfer moves {from_units(transfer.amount_units, decimals)} USDC, the site shows a stake of "
            f"{row['submissionStake']}"
        )
    return transfer


# --- The report ----------------------------------------------------------------------------------


@dataclass
class Report:
    outcomes: list[Outcome]
    differences: list[str]  # about the challenge as a whole (terms, totals, winners, claims, payouts)
    demo: bool
    lines: list[str] = field(default_factory=list)  # what was checked besides the responses' table
    exceptions: list[str] = field(default_factory=list)  # one EXCEPTION line per exception, as checked
    published_exceptions: int = 0  # how many exceptions the winners answer lists

    @property
    def reproduced(self) -> int:
        return sum(1 for o in self.outcomes if not o.problems)

    @property
    def ok(self) -> bool:
        return self.reproduced == len(self.outcomes) and not self.differences


def check_terms(
    *, challenge: dict, anchor: Anchor | None, anchors: list[Anchor], registry: str | None, report: Report
) -> None:
    """The site's challenge against its anchor (docs/protocol.md section 6, check 1)."""
    cid, differences = challenge["id"], report.differences
    shown = challenge.get("anchor")
    if anchor is None:
        if report.demo:
            report.lines.append(
                "This is a demonstration challenge: its terms were never committed on chain, so nothing about "
                "it is guaranteed."
            )
        elif registry is None:
            differences.append("the site names no terms registry: the terms of this challenge are not on chain")
        else:
            differences.append(f"challenge {cid} has no anchor in the registry {registry}: its terms are not on chain")
        if shown:
            differences.append(
                f"the site shows an anchor in transaction {shown.get('transactionHash')}; the chain has none"
            )
        return
    report.lines.append(
        f"Terms anchored in block {anchor.block_number} (transaction {anchor.transaction_hash}, registry "
        f"{anchor.registry}): opens at {anchor.opens_at}, threshold {anchor.threshold_m} m"
    )
    if len(anchors) > 1:
        report.lines.append(f"(the registry holds {len(anchors)} anchors of this challenge; the first one counts)")
    if _lower(challenge.get("solutionSha256")) != anchor.solution_commitment:
        differences.append(
            f"the site's solution SHA-256 {challenge.get('solutionSha256')} is not the anchored "
            f"{anchor.solution_commitment}"
        )
    reveal = solution_commitment(
        challenge_id=cid, text=challenge.get("solutionReveal") or "", salt=challenge.get("solutionSalt") or ""
    )
    if reveal != anchor.solution_commitment:
        differences.append("the revealed solution and salt do not open the anchored solution commitment")
    threshold = challenge.get("proximityThreshold") or 0
    if threshold != anchor.threshold_m:
        differences.append(f"the site's threshold is {threshold} m, the anchored threshold {anchor.threshold_m} m")
    if challenge.get("startTimestamp") != anchor.opens_at:
        differences.append(
            f"the site's opening time is {challenge.get('startTimestamp')}, the anchored {anchor.opens_at}"
        )
    texts = terms_hash(
        challenge_id=cid,
        title=challenge.get("poemTitle") or "",
        poem=challenge.get("poemText") or "",
        instructions=challenge.get("instructionsText") or "",
    )
    if texts != anchor.terms_hash:
        differences.append("the title, poem and instructions the site shows are not the anchored terms (terms hash)")
    if shown:
        seen = (_lower(shown.get("transactionHash")), shown.get("blockNumber"), _lower(shown.get("termsSha256")))
        if seen != (anchor.transaction_hash, anchor.block_number, anchor.terms_hash):
            differences.append("the anchor the site shows is not the first anchor on chain")
    else:
        differences.append("the site shows no anchor for an anchored challenge")


def claim_name(row: dict) -> str:
    """A rejected claim as the report names it: by its transaction, or, for an authorization whose
    use the site shows no transaction of, by its commitment."""
    tx = row.get("transactionHash")
    return f"rejected claim {row['id']} ({tx or 'authorization ' + _lower(row.get('commitment'))})"


def check_rejected(
    rows: list[dict], *, chain: ChainData | None, terms: Terms, chain_id: int, decimals: int, report: Report
) -> list[dict]:
    """Each rejected claim's code must be the first rule its payment fails (docs/protocol.md
    section 6, check 3; section 2a for a claim paid by authorization); a claim rejected
    `after_resolution` must be a payment that passes every rule. Returns those (the exceptions
    check_exceptions accounts for). Without a chain (a demonstration challenge): not checked, and
    said so."""
    if chain is None:
        if rows:
            report.lines.append(f"{len(rows)} rejected claims: not re-checked (no chain to read)")
        return []
    agreed = 0
    late: list[dict] = []
    for row in rows:
        name = claim_name(row)
        text = row.get("submissionText") or ""
        commitment = guess_commitment(
            chain_id=chain_id,
            challenge_id=terms.challenge_id,
            submitter_address=row["submitterAddress"],
            text=text,
            salt=row.get("submissionSalt") or "",
        )
        if commitment != _lower(row.get("commitment")):
            report.differences.append(f"{name}: its commitment is not that of its text, address and salt")
        try:
            units: int | None = to_units(row["submissionStake"], decimals)
        except ValueError:
            units = None
        unused = False  # an authorization the chain shows no use of: `reorged` is right too
        if is_authorization(row):
            expected, use = judge_authorization(
                chain,
                address=row["submitterAddress"],
                commitment=commitment,
                stake_units=units,
                valid_before=valid_before_of(row),
                tx_hash=row.get("transactionHash"),
                terms=terms,
            )
            unused = use is None
            shown = _lower(row.get("transactionHash"))
            if use is not None and shown and shown != use.transaction_hash:
                report.differences.append(
                    f"{name}: its authorization was used in transaction {use.transaction_hash}, the site shows {shown}"
                )
        else:
            expected = first_failing_rule(
                chain=chain,
                tx_hash=row.get("transactionHash") or "",
                sender=row["submitterAddress"],
                stake_units=units,
                commitment=commitment,
                challenge_id=terms.challenge_id,
                terms=terms,
            )
        code = row.get("rejectionCode")
        if code == AFTER_RESOLUTION:
            if expected is None:
                late.append(row)
                agreed += 1
            else:
                report.differences.append(
                    f"{name}: rejected {code} (paid in time, reached the site after resolution), but the first "
                    f"rule its payment fails is {expected}: the site mislabelled it"
                )
        elif expected is None:
            report.differences.append(f"{name}: rejected {code}, but its payment passes every rule and had to count")
        elif code != expected and not (code == "reorged" and (expected == "not_found" or unused)):
            report.differences.append(f"{name}: rejected {code}, the first rule its payment fails is {expected}")
        else:
            agreed += 1
    if rows:
        report.lines.append(f"{agreed} of {len(rows)} rejected claims: reason code re-checked")
    return late


# What check_onchain says of a counted response whose payment the chain does not hold (any more).
_PAYMENT_MISSING = ("the transaction is not on this chain", "of the transaction is not on the canonical chain")


def check_exceptions(
    *,
    published: list[dict],
    late: list[dict],
    rejected: list[dict],
    outcomes: list[Outcome],
    chain: ChainData,
    terms: Terms,
    decimals: int,
    earliest: Outcome | None,
    highest: Outcome | None,
    report: Report,
) -> None:
    """The winners answer's `exceptions` (docs/protocol.md section 5, "Exceptions") against the
    claims and the chain. An `after_resolution` one is a claim rejected with that code whose payment
    passes every rule (`late`, from check_rejected): reported, not counted. A `reorged` one is a
    counted response whose block left the chain after resolution: its stake stays in the pot and its
    missing payment stays a difference, which cites the exception. Anything else an exception names,
    a `recordedAt` that is not Unix seconds (printed in UTC when it is), and a late claim with no
    exception, is a difference; so is a late claim that would have won."""
    differ = report.differences.append
    report.published_exceptions = len(published)
    rejected_by_id = {row.get("id"): row for row in rejected}
    counted = {o.id: o for o in outcomes}
    late_ids = {row["id"] for row in late}
    listed: set[int] = set()
    for item in published:
        rid, kind = item.get("responseId"), item.get("kind")
        seconds = recorded_at_seconds(item.get("recordedAt"))
        recorded = utc_iso(seconds) if seconds is not None else "at an unknown time"
        what = f"the site's exception for response {rid} ({_lower(item.get('transactionHash'))})"
        if kind not in EXCEPTION_KINDS:
            differ(f"{what}: {kind!r} is no kind of exception")
            continue
        row = rejected_by_id.get(rid) if kind == AFTER_RESOLUTION else getattr(counted.get(rid), "row", None)
        if row is None or (kind == AFTER_RESOLUTION and row.get("rejectionCode") != AFTER_RESOLUTION):
            named = "claim rejected after_resolution" if kind == AFTER_RESOLUTION else "counted response"
            differ(f"{what}: it is of kind {kind}, but names no {named}")
            continue
        stake = _units_or_none(item.get("submissionStake"), decimals)
        same_stake = stake is not None and stake == _units_or_none(row.get("submissionStake"), decimals)
        shown = (_lower(item.get("transactionHash")), _lower(item.get("submitterAddress")))
        if shown != (_lower(row["transactionHash"]), _lower(row["submitterAddress"])) or not same_stake:
            differ(
                f"{what}: it shows {item.get('submissionStake')} USDC from {item.get('submitterAddress')}, the claim "
                f"{row['submissionStake']} from {row['submitterAddress']} in {row['transactionHash']}"
            )
        if seconds is None:
            differ(f"{what}: its recordedAt {item.get('recordedAt')!r} is not a time in Unix seconds")
        if kind == AFTER_RESOLUTION:
            listed.add(rid)
            if rid in late_ids:
                paid = f"{row['submissionStake']} USDC from {row['submitterAddress']}, recorded {recorded}"
                report.exceptions.append(
                    f"EXCEPTION rejected claim {rid} ({row['transactionHash']}): paid in time, reached the site after "
                    f"resolution; not counted in the pot ({paid})"
                )
            continue
        outcome = counted[rid]
        cited = (
            " (the site published this as an exception: its block left the chain after resolution, "
            f"recorded {recorded})"
        )
        missing = [i for i, p in enumerate(outcome.problems) if any(m in p for m in _PAYMENT_MISSING)]
        for i in missing:
            outcome.problems[i] += cited
        report.exceptions.append(
            f"EXCEPTION {outcome.name}: its block left the chain after resolution (reorged, recorded {recorded}); "
            + (
                "its stake still counts in the pot, and its payment is missing"
                if missing
                else "its payment is on chain as counted"
            )
        )
    for row in late:
        name = f"rejected claim {row['id']} ({row['transactionHash']})"
        if row["id"] not in listed:
            differ(f"{name}: rejected after_resolution, but the site's winners answer lists no exception for it")
        _would_have_won(
            row,
            name=name,
            chain=chain,
            terms=terms,
            decimals=decimals,
            earliest=earliest,
            highest=highest,
            report=report,
        )


def recorded_at_seconds(value: object) -> int | None:
    """An exception's `recordedAt` (docs/protocol.md section 5, "Exceptions"): Unix seconds, a whole
    JSON number from 0 to LAST_UNIX_SECOND. Anything else (a date string, a fraction, null, true) is
    None: the site did not say when in the form the protocol fixes, which check_exceptions reports
    as a difference rather than guess at what the site meant."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    seconds = int(value)
    return seconds if 0 <= seconds <= LAST_UNIX_SECOND else None


def utc_iso(seconds: int) -> str:
    """Unix seconds as an ISO 8601 UTC time: 1795000000 -> "2026-11-18T11:06:40Z"."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _units_or_none(amount: object, decimals: int) -> int | None:
    try:
        return to_units(str(amount), decimals)
    except ValueError:
        return None


def _would_have_won(
    row: dict, *, name: str, chain: ChainData, terms: Terms, decimals: int,
    earliest: Outcome | None, highest: Outcome | None, report: Report,
) -> None:  # fmt: skip
    """A claim left out after resolution whose payment was made in the open window (it passes every
    rule) and that would have won: the site may say the truth (the claim came after resolution) or
    have held a winner back until resolution. The chain cannot tell which: a difference."""
    text = row.get("submissionText") or ""
    if canonical_coordinates(text) != text:
        return
    distance = distance_between(text, terms.solution)
    units = to_units(row["submissionStake"], decimals)
    if is_authorization(row):
        # Its payment passes section 2a's rules (check_rejected): the Transfer right after its use.
        use = chain.use(
            chain.used_in(row["submitterAddress"], _lower(row.get("commitment"))) or row.get("transactionHash"),
            authorizer=row["submitterAddress"],
            nonce=_lower(row.get("commitment")),
        )
        if use is None or use.transfer is None:
            return
        position = (use.block_number, use.transaction_index, use.transfer.log_index)
    else:
        tx = chain.mined(row["transactionHash"])
        if tx is None:
            return
        log = next((t for t in chain.transfers(row["transactionHash"]) if t.amount_units == units), None)
        position = (_int(tx["blockNumber"]), _int(tx["transactionIndex"]), log.log_index if log else 0)
    won = would_win(
        # Within a millimetre of the threshold is a floating-point tie: counted as correct here, so
        # that a possible winner is never left unsaid.
        correct=distance <= terms.threshold_m + DISTANCE_TOLERANCE_M,
        stake_units=units,
        position=position,
        earliest=earliest.position if earliest else None,
        highest=(to_units(highest.row["submissionStake"], decimals), highest.position) if highest else None,
    )
    if won:
        instead = " and ".join(
            f"the {prize} prize instead of {_describe(earliest if prize == 'earliest' else highest)}" for prize in won
        )
        report.differences.append(
            f"{name}: counted, it would have won {instead}: its payment was mined in the open window and its guess "
            f"is correct ({distance:.2f} m). The site says the claim reached it after resolution; the chain cannot "
            "tell that from a site holding back a winner"
        )


def check_completeness(
    *,
    chain: ChainData,
    terms: Terms,
    confirmed: list[dict],
    rejected: list[dict],
    unclaimed: list[dict],
    decimals: int,
    report: Report,
) -> None:
    """Every USDC transfer to the treasury naming the challenge is counted, rejected with a
    re-checked code, or listed unclaimed (docs/protocol.md section 6, check 3). A transaction names
    the challenge when it calls the USDC contract directly with a stake transfer's 164 bytes, or with
    a relayed authorization's 324 (section 2a), whose challenge word is this challenge's. A rejected
    claim accounts for a payment only when it is the payer's: a transfer's claim on that transaction
    that is not a stranger's (NOT_THE_PAYERS_CLAIM, as the server's ledger reads it); an
    authorization's claim whose address and commitment are the authorizer and nonce the relayed call
    carries (the token uses an authorization once, so that names one payment, whatever transaction
    the claim shows)."""
    counted = {_lower(r["transactionHash"]) for r in confirmed}
    late_rows = [r for r in rejected if r.get("rejectionCode") == AFTER_RESOLUTION]
    late = {_lower(r.get("transactionHash")) for r in late_rows} - {""}
    late_authorizations = {_claim_key(r) for r in late_rows if is_authorization(r)}
    payers = {
        _lower(r.get("transactionHash"))
        for r in rejected
        if r.get("rejectionCode") not in NOT_THE_PAYERS_CLAIM and not is_authorization(r)
    }
    authorizers = {
        _claim_key(r) for r in rejected if r.get("rejectionCode") != AFTER_RESOLUTION and is_authorization(r)
    }
    listed: dict[tuple[str, int], dict] = {}
    for row in unclaimed:
        listed[(_lower(row.get("transactionHash")), row.get("logIndex"))] = row

    @functools.cache
    def payer(tx_hash: str) -> tuple[str, str, str] | None:
        """("transfer" or "authorization", address, commitment) of the guess a transaction naming
        the challenge pays for; None when it does not name the challenge."""
        tx = chain.mined(tx_hash)
        if tx is None or _lower(tx.get("to")) != chain.usdc:
            return None
        data = str(tx.get("input") or tx.get("data") or "")
        calldata = decode_stake_calldata(data)
        if calldata is not None and calldata.challenge_id == terms.challenge_id:
            return ("transfer", _lower(tx.get("from")), calldata.commitment)
        relayed = decode_relayed_call(data)
        if relayed is not None and relayed.challenge_id == terms.challenge_id:
            return (AUTHORIZATION, relayed.authorizer, relayed.nonce)
        return None

    def names_challenge(tx_hash: str) -> bool:
        return payer(tx_hash) is not None

    naming = [min(logs, key=lambda log: log.log_index) for h, logs in chain.scan.items() if names_challenge(h)]
    # Each listed unclaimed payment is a transfer on chain naming this challenge, as listed (one mined
    # before the scanned range, e.g. before the anchor, is read from its receipt).
    for (tx_hash, log_index), row in listed.items():
        log = next((t for t in chain.transfers(tx_hash) if t.log_index == log_index), None)
        name = f"unclaimed payment {tx_hash} log {log_index}"
        if log is None or not names_challenge(tx_hash):
            report.differences.append(f"{name}: no such transfer to the treasury naming challenge {terms.challenge_id}")
            continue
        shown = (row.get("blockNumber"), row.get("transactionIndex"), _lower(row.get("fromAddress")), row.get("amount"))
        try:
            amount = to_units(str(row.get("amount")), decimals)
        except ValueError:
            amount = -1
        if shown[:3] != (log.block_number, log.transaction_index, log.sender) or amount != log.amount_units:
            report.differences.append(
                f"{name}: the chain has block {log.block_number} index {log.transaction_index} from {log.sender} of "
                f"{from_units(log.amount_units, decimals)} USDC, the site lists {shown}"
            )
        if tx_hash in counted:
            report.differences.append(f"{name}: listed unclaimed, but a counted response names it")
    listed_hashes = {tx_hash for tx_hash, _ in listed}
    tally = {"counted": 0, "rejected": 0, "unclaimed": 0, "outside": 0, "late": 0}
    for log in sorted(naming, key=lambda t: (t.block_number, t.transaction_index, t.log_index)):
        method, address, commitment = payer(log.transaction_hash) or ("", "", "")
        by_authorization = method == AUTHORIZATION
        if log.transaction_hash in counted:
            tally["counted"] += 1
        elif log.transaction_hash in late or (by_authorization and (address, commitment) in late_authorizations):
            tally["late"] += 1
        elif (address, commitment) in authorizers if by_authorization else log.transaction_hash in payers:
            tally["rejected"] += 1
        elif log.transaction_hash in listed_hashes:
            tally["unclaimed"] += 1
        else:
            mined = chain.block_time(log.block_number)
            after_anchor = terms.anchor is None or log.block_number > terms.anchor.block_number
            in_window = (
                mined is not None
                and terms.start is not None
                and terms.start <= mined
                and (terms.closed is None or mined <= terms.closed)
                and (terms.anchor is None or mined >= terms.anchor.opens_at)
            )
            what = (
                f"payment {log.transaction_hash} from {log.sender} of {from_units(log.amount_units, decimals)} USDC "
                f"in block {log.block_number} names challenge {terms.challenge_id}"
            )
            if in_window and after_anchor:
                report.differences.append(f"{what} and is neither counted, rejected nor listed unclaimed")
            else:
                tally["outside"] += 1
                report.lines.append(f"Not counted: {what}, mined outside the open window, and the site lists no claim")
    start, end = chain.scanned or (0, chain.head)
    report.lines.append(
        f"{len(naming)} payments to the treasury name challenge {terms.challenge_id} in blocks {start} to {end}: "
        f"{tally['counted']} counted, {tally['rejected']} rejected claims, {tally['unclaimed']} listed unclaimed, "
        f"{tally['outside']} outside the open window, {tally['late']} claimed after resolution"
    )


def _claim_key(row: dict) -> tuple[str, str]:
    """(address, commitment) of a claim as the site publishes it (a commitment that is not its
    text's, address's and salt's is a difference of check_rejected's)."""
    return (_lower(row.get("submitterAddress")), _lower(row.get("commitment")))


def expected_payouts(
    *, earliest: Outcome | None, highest: Outcome | None, split: Split, config: dict, treasury: str
) -> dict[str, tuple[str, int, bool]]:
    """Kind -> (address, amount in units, kept): what the rules give (docs/protocol.md sections 4
    and 6). With no correct response nothing is due; the operations share goes to the site's
    operations address, else it stays in the treasury (kept)."""
    if earliest is None or highest is None:
        return {}
    operations = _lower(config.get("operationsAddress"))
    rows = {
        "earliest": (_lower(earliest.row["submitterAddress"]), split.earliest, False),
        "highest": (_lower(highest.row["submitterAddress"]), split.highest, False),
        "operations": (operations or treasury, split.operations, not operations),
    }
    return {kind: row for kind, row in rows.items() if row[1] > 0}


def check_payouts(
    *, payouts: list[dict], expected: dict[str, tuple[str, int, bool]], chain: ChainData | None,
    resolved_at: int | None, decimals: int, report: Report,
) -> None:  # fmt: skip
    """Each prize to the address the rules give, of the exact amount; a recorded transaction must
    hold that USDC Transfer from the treasury after resolution (docs/protocol.md section 6, check 4)."""
    shown = {p.get("kind"): p for p in payouts}
    for kind in sorted(set(shown) - set(expected)):
        report.differences.append(f"the site lists a {kind} payout; the rules give none")
    for kind, (address, units, kept) in expected.items():
        payout = shown.get(kind)
        amount = from_units(units, decimals)
        if payout is None:
            report.differences.append(f"the {kind} payout of {amount} USDC to {address} is missing")
            continue
        try:
            shown_units = to_units(str(payout.get("amount")), decimals)
        except ValueError:
            shown_units = -1
        if _lower(payout.get("address")) != address or shown_units != units:
            report.differences.append(
                f"the {kind} payout is {amount} USDC to {address} by the rules; the site shows "
                f"{payout.get('amount')} to {payout.get('address')}"
            )
            continue
        tx_hash = _lower(payout.get("transactionHash"))
        if kept:
            if payout.get("status") != "kept" or tx_hash:
                report.differences.append(
                    f"the {kind} share stays in the treasury; the site shows it {payout.get('status')}"
                )
            else:
                report.lines.append(f"Payout {kind}: {amount} USDC kept in the treasury")
            continue
        if not tx_hash:
            report.lines.append(f"Payout {kind}: {amount} USDC to {address}: due ({payout.get('status')})")
            continue
        problem = _payout_problem(chain, tx_hash, address=address, units=units, resolved_at=resolved_at)
        if problem:
            report.differences.append(f"the {kind} payout's transaction {tx_hash} {problem}")
            report.lines.append(f"Payout {kind}: {amount} USDC to {address}: different")
        else:
            report.lines.append(f"Payout {kind}: {amount} USDC to {address}: paid in {tx_hash}")


def _payout_problem(chain: ChainData | None, tx_hash: str, *, address: str, units: int, resolved_at: int | None) -> str:
    if chain is None:
        return "cannot be checked without --rpc"
    tx = chain.mined(tx_hash)
    receipt = chain.receipts.get(tx_hash)
    if tx is None or not isinstance(receipt, dict):
        return "is not on this chain"
    if _int(receipt.get("status", "0x0")) != 1:
        return "failed"
    logs = [transfer_log(e, chain.usdc) for e in receipt.get("logs") or []]
    if not any(
        log and log.sender == chain.treasury and log.recipient == address and log.amount_units == units for log in logs
    ):
        return f"holds no USDC Transfer of exactly {from_units(units)} from the treasury to {address}"
    mined = chain.block_time(_int(tx["blockNumber"]))
    if mined is None or resolved_at is None or mined < resolved_at:
        return f"was mined at {mined}, before the challenge was resolved at {resolved_at}"
    return ""


def read_record(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as file:
            record = json.load(file)
    except (OSError, ValueError) as exc:
        raise Unavailable(f"the record {path} cannot be read: {exc}") from exc
    if not isinstance(record, dict) or not isinstance(record.get("challengeId"), int):
        raise Unavailable(f"the record {path} is not a Geopoem record (no challengeId)")
    return record


def check_record(
    record: dict,
    *,
    chain: ChainData | None,
    terms: Terms,
    anchor: Anchor | None,
    registry: str | None,
    confirmed: list[Outcome],
    rejected: list[dict],
    unclaimed: list[dict],
    chain_id: int,
    decimals: int,
    report: Report,
) -> None:
    """A player's downloaded record (docs/protocol.md section 6, check 5): the anchor they saw is
    the anchor on chain; whether their payment had to count; how the site accounted for it."""
    tx_hash = _lower(record.get("transactionHash"))
    by_authorization = is_authorization(record)
    say, differ = report.lines.append, report.differences.append
    if by_authorization:
        say("Your record: a stake paid by authorization" + (f", transaction {tx_hash}" if tx_hash else ""))
    else:
        say(f"Your record: transaction {tx_hash}")
    if record.get("chainId") != chain_id:
        differ(f"your record is for chain {record.get('chainId')}, the site is on chain {chain_id}")
    seen = record.get("anchor")
    if seen:
        if anchor is None:
            differ("your record keeps an anchor the chain does not hold")
        else:
            kept = (
                _lower(seen.get("registry")),
                _lower(seen.get("transactionHash")),
                seen.get("blockNumber"),
                _lower(seen.get("solutionSha256")),
                _lower(seen.get("termsSha256")),
            )
            chain_values = (
                anchor.registry,
                anchor.transaction_hash,
                anchor.block_number,
                anchor.solution_commitment,
                anchor.terms_hash,
            )
            if kept != chain_values:
                differ("the anchor you saw when paying is not the challenge's anchor on chain")
            else:
                say("Your record: the anchor you saw is the anchor on chain")
    elif anchor is not None:
        say("Your record keeps no anchor; the challenge's anchor on chain was checked above")
    address = str(record.get("submitterAddress") or "")
    commitment = record_commitment(record, chain_id=chain_id, challenge_id=terms.challenge_id)
    try:
        units: int | None = to_units(str(record.get("stakeUsdc")), decimals)
    except ValueError:
        units = None
    if chain is None:
        say("Your record: the payment was not checked (no chain to read)")
        return
    if by_authorization:
        # Found by the token's AuthorizationUsed log: the record knows its transaction only once
        # the page learned it. The site's claim of it is the one with its commitment (the token
        # uses an authorization once), whatever transaction it shows.
        failing, use = judge_authorization(
            chain,
            address=address,
            commitment=commitment,
            stake_units=units,
            valid_before=valid_before_of(record),
            tx_hash=tx_hash or None,
            terms=terms,
        )
        if use is not None:
            say(f"Your record: your authorization was used in transaction {use.transaction_hash}")
            tx_hash = use.transaction_hash

        def yours(row: dict) -> bool:
            return is_authorization(row) and _claim_key(row) == (address.lower(), commitment)

    else:
        failing = first_failing_rule(
            chain=chain,
            tx_hash=tx_hash,
            sender=address,
            stake_units=units,
            commitment=commitment,
            challenge_id=terms.challenge_id,
            terms=terms,
        )

        def yours(row: dict) -> bool:
            return _lower(row.get("transactionHash")) == tx_hash and _lower(row.get("commitment")) == commitment

    counted = next((o for o in confirmed if yours(o.row)), None)
    claim = next((r for r in rejected if yours(r)), None)
    listed = bool(tx_hash) and any(_lower(r.get("transactionHash")) == tx_hash for r in unclaimed)
    paid = f"your payment {tx_hash}" if tx_hash else "your payment"
    if failing is None:
        if counted is not None:
            result = "correct" if counted.correct else "not correct"
            distance = f"{counted.distance:.2f} m" if counted.distance is not None else "no distance"
            say(
                f"Your record: the payment had to count, and it is counted as response {counted.id}: "
                f"{result}, {distance}"
            )
        elif claim is not None and claim.get("rejectionCode") == AFTER_RESOLUTION:
            say(
                "Your record: the payment was made in time, but your claim reached the site after the challenge "
                "was resolved: it is not counted in the pot, and the site lists it as an exception"
            )
        else:
            where = (
                f"rejected {claim.get('rejectionCode')}"
                if claim
                else ("listed unclaimed" if listed else "not listed at all")
            )
            differ(f"{paid} had to count, and the site does not count it ({where})")
        return
    if by_authorization and failing == "not_found":
        say(
            "Your record: the payment did not have to count: your authorization has not been used on chain "
            f"(nor cancelled; valid before {valid_before_of(record)})"
        )
    else:
        say(f"Your record: the payment did not have to count: the first rule it fails is {failing}")
    if counted is not None:
        differ(f"{paid} fails the rule {failing}, yet the site counts it")
    elif claim is not None:
        say(f"Your record: the site rejected your claim with {claim.get('rejectionCode')}")
    elif listed:
        say("Your record: the site lists your payment as unclaimed")
    else:
        say("Your record: the site shows no claim of yours " + ("on this transaction" if tx_hash else "for it"))


def row_commitment(row: dict, *, chain_id: int, challenge_id: int) -> str:
    """The guess commitment of a published claim's text, address and salt."""
    return guess_commitment(
        chain_id=chain_id,
        challenge_id=challenge_id,
        submitter_address=row["submitterAddress"],
        text=row.get("submissionText") or "",
        salt=row.get("submissionSalt") or "",
    )


def record_commitment(record: dict, *, chain_id: int, challenge_id: int) -> str:
    """The guess commitment of the record's coordinates, address and salt: what its payment must
    carry (a transfer's calldata, an authorization's nonce)."""
    return guess_commitment(
        chain_id=chain_id,
        challenge_id=challenge_id,
        submitter_address=str(record.get("submitterAddress") or ""),
        text=canonical_coordinates(str(record.get("coordinates") or "")) or "",
        salt=str(record.get("salt") or ""),
    )


def verify(
    *,
    site: Site,
    rpc: Rpc | None,
    challenge_id: int,
    confirmations: int,
    usdc: str | None = None,
    treasury: str | None = None,
    registry: str | None = None,
    record: dict | None = None,
    log_range: int = LOG_RANGE,
    progress=lambda message: None,
) -> Report:
    config = site.public_config()
    usdc_address = _lower(usdc or config["usdcAddress"])
    treasury_address = _lower(treasury or config["treasuryAddress"])
    registry_address = _lower(registry or config.get("registryAddress")) or None
    decimals = int(config.get("tokenDecimals", 6))
    chain_id = int(config["chainId"])
    challenge = site.challenge(challenge_id)
    if challenge is None:
        raise Unavailable(f"challenge {challenge_id} is not among the site's resolved challenges")
    demo = bool(challenge.get("isDemo"))
    report = Report([], [], demo)
    if canonical_coordinates(challenge.get("solutionReveal") or "") != challenge.get("solutionReveal"):
        raise Unavailable(f"the revealed solution {challenge.get('solutionReveal')!r} is not canonical coordinates")
    if rpc is None and not demo:
        raise Unavailable("--rpc is needed: this challenge's payments are on a chain")
    chain: ChainData | None = None
    anchors: list[Anchor] = []
    if rpc is not None:
        node_chain = _int(rpc.call("eth_chainId"))
        if node_chain != chain_id:
            raise Unavailable(f"the RPC node is on chain {node_chain}, the site on chain {chain_id}")
        chain = ChainData(rpc, usdc=usdc_address, treasury=treasury_address, progress=progress)
        if registry_address:
            anchors = chain.anchors(registry_address, challenge_id)
    anchor = anchors[0] if anchors else None
    if rpc is not None or demo:
        check_terms(challenge=challenge, anchor=anchor, anchors=anchors, registry=registry_address, report=report)
    if anchor is None and solution_commitment(
        challenge_id=challenge_id, text=challenge.get("solutionReveal") or "", salt=challenge.get("solutionSalt") or ""
    ) != _lower(challenge.get("solutionSha256")):
        report.differences.append("the revealed solution and salt do not hash to the published solution SHA-256")
    terms = Terms(
        challenge_id=challenge_id,
        solution=challenge["solutionReveal"],
        threshold_m=anchor.threshold_m if anchor else (challenge.get("proximityThreshold") or 0),
        start=challenge.get("startTimestamp"),
        closed=challenge.get("closedTimestamp"),
        anchor=anchor,
        demo=demo,
    )

    rows = site.responses(challenge_id, progress)
    rejected = site.responses(challenge_id, progress, status="rejected")
    unclaimed = site.unclaimed(challenge_id, progress)
    outcomes = [Outcome(row) for row in rows]
    report.outcomes = outcomes
    for outcome in outcomes:
        check_offchain(outcome, terms=terms, chain_id=chain_id)
    winners = site.winners(challenge_id)
    payout_hashes = [_lower(p.get("transactionHash")) for p in winners.get("payouts") or [] if p.get("transactionHash")]
    record_hash = [_lower(record.get("transactionHash"))] if record and record.get("transactionHash") else []
    if chain is None:
        for outcome in outcomes:
            outcome.unpaid_demo = True
    else:
        claim_hashes = [_lower(r["transactionHash"]) for r in rows + rejected if r.get("transactionHash")] + record_hash
        chain.read_transactions(claim_hashes + payout_hashes)
        mined_blocks = [_int(tx["blockNumber"]) for tx in map(chain.mined, claim_hashes) if tx]
        # The completeness scan: from the anchor's block (unanchored: the earliest claim's) to the head.
        chain.scan_transfers(anchor.block_number if anchor else min(mined_blocks, default=chain.head), step=log_range)
        # Each rejected claim paid by authorization (and the record's) is judged by the token's own
        # logs of its authorization: used (where), cancelled, or neither.
        searched = [
            (r["submitterAddress"], row_commitment(r, chain_id=chain_id, challenge_id=challenge_id))
            for r in rejected
            if is_authorization(r)
        ]
        if record is not None and is_authorization(record):
            key = record_commitment(record, chain_id=chain_id, challenge_id=challenge_id)
            searched.append((str(record.get("submitterAddress") or ""), key))
        chain.search_authorizations(searched)
        used = sorted({h for h in (chain.used_in(a, n) for a, n in searched) if h})
        # Those no claim names (the others were read above), and listed unclaimed payments the scan
        # did not reach (mined before the anchor's block).
        listed = [_lower(u.get("transactionHash")) for u in unclaimed if u.get("transactionHash")]
        chain.read_transactions([*chain.scan, *listed, *used])
        # A payment by authorization is read from its receipt (its AuthorizationUsed log is not a
        # transfer to the treasury, so the scan does not show it); one receipt per transaction.
        paid_by_authorization = [
            _lower(r["transactionHash"]) for r in rows + rejected if is_authorization(r) and r.get("transactionHash")
        ] + (record_hash if record is not None and is_authorization(record) else [])
        chain.read_receipts(
            [h for h in claim_hashes + listed if chain.needs_receipt(h)] + payout_hashes + paid_by_authorization + used
        )
        blocks = {_int(tx["blockNumber"]) for tx in map(chain.mined, [*claim_hashes, *payout_hashes, *used]) if tx}
        blocks |= {log.block_number for logs in chain.scan.values() for log in logs}
        chain.read_blocks(blocks | {chain.head})
        for outcome in outcomes:
            # An unanchored demonstration challenge's seeded claims carry made-up hashes no chain holds:
            # those are checked off chain only. Anchored, a challenge is checked in full whatever isDemo says.
            if demo and anchor is None and chain.txs.get(_lower(outcome.row["transactionHash"])) is None:
                outcome.unpaid_demo = True
                continue
            check_onchain(
                outcome, chain=chain, confirmations=confirmations, terms=terms, chain_id=chain_id, decimals=decimals
            )
    # A transaction backs one stake by transfer; one that uses several authorizations backs one
    # stake per authorization, each by its own Transfer log.
    seen: dict[tuple[str, int | None], Outcome] = {}
    for outcome in outcomes:
        row = outcome.row
        backing = (row["transactionHash"].lower(), outcome.position[2] if is_authorization(row) else None)
        if backing in seen:
            backs = "Transfer" if is_authorization(row) else "transaction"
            outcome.problems.append(f"its {backs} also backs response {seen[backing].id}")
        seen.setdefault(backing, outcome)
    late: list[dict] = []
    rechecked = chain is not None and not (demo and anchor is None)
    if chain is not None and rechecked:
        late = check_rejected(rejected, chain=chain, terms=terms, chain_id=chain_id, decimals=decimals, report=report)
        check_completeness(
            chain=chain,
            terms=terms,
            confirmed=rows,
            rejected=rejected,
            unclaimed=unclaimed,
            decimals=decimals,
            report=report,
        )
    elif rejected or unclaimed:
        report.lines.append(f"{len(rejected)} rejected claims and {len(unclaimed)} unclaimed payments: not re-checked")

    # The challenge as a whole: totals, winners, split, payouts.
    differences = report.differences
    total = sum(to_units(o.row["submissionStake"], decimals) for o in outcomes)
    if total != to_units(challenge["stakedSum"], decimals) or len(outcomes) != challenge["responseCount"]:
        differences.append(
            f"{len(outcomes)} responses stake {from_units(total, decimals)} USDC; the site shows "
            f"{challenge['responseCount']} staking {challenge['stakedSum']}"
        )
    earliest, highest = pick_winners(outcomes, decimals)
    split = prize_split(total)
    for label, expected, prize in (("earliest", earliest, split.earliest), ("highest", highest, split.highest)):
        shown = winners.get(label)
        shown_id = shown["id"] if shown else None
        expected_id = expected.id if expected else None
        if shown_id != expected_id:
            differences.append(
                f"the {label} winner is {_describe(expected)} by the rules; the site shows "
                + (f"response {shown_id}" if shown_id else "none")
            )
            for o in outcomes:
                if o.id == shown_id and not o.problems:
                    o.problems.append(f"the site names it the {label} winner; the rules give {_describe(expected)}")
        elif shown and to_units(shown["prize"], decimals) != prize:
            differences.append(f"the {label} prize is {from_units(prize, decimals)}, the site shows {shown['prize']}")
    published = [e for e in winners.get("exceptions") or [] if isinstance(e, dict)]
    if chain is not None and rechecked:
        check_exceptions(
            published=published,
            late=late,
            rejected=rejected,
            outcomes=outcomes,
            chain=chain,
            terms=terms,
            decimals=decimals,
            earliest=earliest,
            highest=highest,
            report=report,
        )
    elif published:
        report.published_exceptions = len(published)
        report.lines.append(f"{len(published)} exceptions published: not re-checked (no chain to read)")
    operations = split.operations if earliest else 0
    unallocated = total - operations - (split.earliest if earliest else 0) - (split.highest if highest else 0)
    for label, expected_units in (("operations", operations), ("unallocated", unallocated)):
        if to_units(str(winners.get(label)), decimals) != expected_units:
            differences.append(
                f"{label} is {from_units(expected_units, decimals)} USDC, the site shows {winners.get(label)}"
            )
    check_payouts(
        payouts=winners.get("payouts") or [],
        expected=expected_payouts(
            earliest=earliest, highest=highest, split=split, config=config, treasury=treasury_address
        ),
        chain=chain,
        resolved_at=challenge.get("resolvedTimestamp"),
        decimals=decimals,
        report=report,
    )
    if record is not None:
        check_record(
            record,
            chain=chain,
            terms=terms,
            anchor=anchor,
            registry=registry_address,
            confirmed=outcomes,
            rejected=rejected,
            unclaimed=unclaimed,
            chain_id=chain_id,
            decimals=decimals,
            report=report,
        )
    return report


def _describe(outcome: Outcome | None) -> str:
    return outcome.name if outcome else "none"


# --- Output ------------------------------------------------------------------------------------


def print_report(report: Report, out=None) -> None:
    out = out or sys.stdout
    print(
        f"{'response':>9}  {'player':<12}  {'guess':<24}  {'stake':>14}  "
        f"{'block:tx:log':<18}  {'distance m':>13}  outcome",
        file=out,
    )
    for o in report.outcomes:
        row = o.row
        position = f"{row.get('blockNumber')}:{row.get('transactionIndex')}:{row.get('logIndex')}"
        distance = f"{o.distance:.2f}" if o.distance is not None else "-"
        address = row["submitterAddress"]
        verdict = "correct" if o.correct else "wrong"
        print(
            f"{row['id']:>9}  {address[:6] + '..' + address[-4:]:<12}  {row.get('submissionText') or '':<24}  "
            f"{row['submissionStake']:>14}  {position:<18}  {distance:>13}  "
            + (
                "DIFFERS: " + "; ".join(o.problems)
                if o.problems
                else f"{verdict}, reproduced" + (" (demo: no payment)" if o.unpaid_demo else "")
            ),
            file=out,
        )
    for line in report.lines:
        print(line, file=out)
    for line in report.exceptions:
        print(line, file=out)
    for o in report.outcomes:
        for problem in o.problems:
            print(f"DIFFERENCE {o.name}: {problem}", file=out)
    for difference in report.differences:
        print(f"DIFFERENCE: {difference}", file=out)
    unpaid = sum(1 for o in report.outcomes if o.unpaid_demo)
    if unpaid:
        print(
            f"This is a demonstration challenge: {unpaid} of its claims carry made-up transaction hashes that no "
            "chain holds, so their payments were not checked; everything else was.",
            file=out,
        )
    total = len(report.outcomes)
    count = report.published_exceptions
    # Said on the last line whenever there is any: exit status 0 with exceptions still means stakes
    # paid in time that are not in the pot (the EXCEPTION lines above).
    exceptions = f"; the site published {count} exception{'s' if count != 1 else ''}" if count else ""
    if report.ok:
        print(f"{total} of {total} outcomes reproduced{exceptions}", file=out)
    else:
        differing = total - report.reproduced
        print(
            f"DIFFERENCES FOUND: {differing} of {total} outcomes differ, and {len(report.differences)} other "
            f"difference{'s' if len(report.differences) != 1 else ''} ({report.reproduced} of {total} outcomes "
            f"reproduced){exceptions}",
            file=out,
        )


def progress_printer(stream=None):
    """A progress line on stderr: rewritten in place on a terminal; into a file or a pipe, at most a
    line a second (a long run is still visibly alive, its log stays short)."""
    stream = stream or sys.stderr
    tty = stream.isatty()
    last = [0.0]

    def show(message: str) -> None:
        if tty:
            stream.write("\r" + message + "\x1b[K")
        elif time.monotonic() - last[0] >= 1.0:
            last[0] = time.monotonic()
            stream.write(message + "\n")
        stream.flush()

    return show


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Re-check every outcome of a resolved Geopoem challenge.")
    parser.add_argument("--site", required=True, help="the site's address, e.g. https://geopoem.example")
    parser.add_argument("--rpc", help="a JSON-RPC node of the site's chain (not needed for a demo challenge)")
    parser.add_argument("--challenge", type=int, help="the challenge id (default: the record's, with --record)")
    parser.add_argument("--confirmations", type=int, default=2, help="blocks a payment must be deep (default 2)")
    parser.add_argument("--usdc", help="the USDC contract to hold the site to (default: the site's own setting)")
    parser.add_argument("--treasury", help="the treasury address to hold the site to (default: the site's)")
    parser.add_argument(
        "--registry", help="the terms registry to read the anchor from (default: your record's, else the site's)"
    )
    parser.add_argument(
        "--record", help="a record downloaded from the page: checks how your own claim was accounted for"
    )
    parser.add_argument(
        "--log-range", type=int, default=LOG_RANGE, help=f"blocks per eth_getLogs request (default {LOG_RANGE})"
    )
    parser.add_argument("--batch", type=int, default=100, help="RPC calls per JSON-RPC batch (default 100)")
    parser.add_argument("--page-size", type=int, default=PAGE_SIZE, help="responses per API page (1 to 1000)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per HTTP request (default 30)")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    args = parser.parse_args(argv)
    progress = (lambda message: None) if args.quiet else progress_printer()
    try:
        record = read_record(args.record) if args.record else None
        if args.challenge is None and record is None:
            parser.error("--challenge or --record is needed")
        challenge_id = args.challenge if args.challenge is not None else record["challengeId"]  # type: ignore[index]
        if record is not None and record["challengeId"] != challenge_id:
            raise Unavailable(f"the record is for challenge {record['challengeId']}, not {challenge_id}")
        registry = args.registry or ((record or {}).get("anchor") or {}).get("registry")
        report = verify(
            site=Site(args.site, timeout=args.timeout, page_size=args.page_size),
            rpc=Rpc(args.rpc, timeout=args.timeout, batch=args.batch) if args.rpc else None,
            challenge_id=challenge_id,
            confirmations=args.confirmations,
            usdc=args.usdc,
            treasury=args.treasury,
            registry=registry,
            record=record,
            log_range=args.log_range,
            progress=progress,
        )
    except Unavailable as exc:
        print(f"\ncould not verify: {exc}", file=sys.stderr)
        return 2
    if not args.quiet and sys.stderr.isatty():
        sys.stderr.write("\n")
    print_report(report)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
