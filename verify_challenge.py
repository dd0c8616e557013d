#!/usr/bin/env python3
"""Re-check a Geopoem challenge from the chain, and hold the site to it.

    python3 verify_challenge.py --site https://the-site --rpc https://a-node-you-trust --challenge 7
    python3 verify_challenge.py --site https://the-site --rpc https://a-node-you-trust --record my-guess.json

One file, the Python standard library only (3.10 or newer): nothing of the project needs to be
installed, and nothing here has to be trusted beyond what it prints. The rules are the site's
docs/protocol.md; section 5 lists the checks this file makes, in the order of its sections below.

The stakes are held by the pot, one immutable contract per chain whose address is pinned below
(PINNED_POTS, or --pot): never taken from the site. The script reads every event of the challenge
from the pot (eth_getLogs, in block ranges), replays them by the pot's rules (the stakes in sequence,
the solution against its commitment, each guess's verdict by the integer rule, the winners as the
contract keeps them, every payment and refund to the unit) and checks the replay against the pot's own
views (stateOf, termsOf). Then it checks what the site shows against the chain:

1. Terms: the poem, title and instructions hash to the opened terms hash; threshold, times, minimum
   stake, bond and solution commitment are the opened ones; the revealed solution opens its commitment.
2. Stakes: the site's staked sum and count are the pot's; every stake it lists is on chain as listed.
3. Reveals and winners: each verdict recomputed; the winners replayed; the site's winners the pot's.
4. Published guesses: each opens its stake's commitment; a correct one that would beat a winner on
   chain and was never revealed is the site holding a winning guess back.
5. Payments: each prize, share and refund by the rules, to the recorded payer or the share receiver.
6. A player's record (--record, the page's "Download record"): the stake is in the pot, its guess
   opens it, it was revealed if it would have won, and what it was paid or refunded.

It prints a line per stake and per check, every difference as a line starting "DIFFERENCE", and ends
with "N of N outcomes reproduced" only when nothing differs, otherwise "DIFFERENCES FOUND: ...".
Exit status: 0 everything reproduced, 1 a difference, 2 could not run (the site, the node or the
record unreadable, or no pot pinned for the chain)."""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

# --- The pinned pots (docs/protocol.md section 2) ------------------------------------------------

# Chain id -> (the pot's address, the block its events are read from). The same table is in
# docs/protocol.md and frontend/src/config.ts; the site's own setting is never trusted for it. A chain
# without an entry needs --pot. The local chain's (`make run`, scripts/devchain.py) is deployed through
# the CREATE2 factory, so its address follows from the pot's code and constructor (chain/pot/deploy.py;
# tests/test_verify_challenge.py recomputes it); Sepolia and mainnet are added once deployed there.
PINNED_POTS: dict[int, tuple[str, int]] = {
    31337: ("0x46DDdae9F667Cc93eB0796652a39AbDFb4598245", 4),
}

# keccak256 of each event's signature (topic 0) and the selectors of the views read, written out so
# that no keccak implementation is needed; tests/test_verify_challenge.py pins them to the contract.
TERMS_TUPLE = "(bytes32,bytes32,uint32,uint32,uint32,uint32,uint32,uint64,uint96)"
EVENT_TOPICS = {
    "0xec13f0279bd421a282b12f0394e082aa9ad13c67a2f46552b0122064eb445f97": "Opened",
    "0x08c6626f6915d842ad68a05223a08328eefbfddaede2e30c549b922398371710": "Staked",
    "0xafd4bbe90ac1fa809a0dfd6470e10c8e3392720a11842b223ba4b45c4e16c117": "SolutionRevealed",
    "0xf112814c4a9f3dd844380289e03edbdf93316f3e6bbdbad6eec144ec60782b78": "GuessRevealed",
    "0x405f1a04d80bf0b461328081d00a8ce9cbddf73dff58ce6d19db0cf087e9d154": "Finalized",
    "0x9f777629478be3b0998eab401d2606e8b3ac41e303df6a1d13f5f1cdf48ce29f": "Paid",
    "0xd2d9b772c232c2b1ce0b75dc3362483af5cea3390968eae021a01089b33c8d5a": "Refunded",
}
STATE_OF = "0x131a7e24"  # stateOf(uint256)
TERMS_OF = "0xbadc2dff"  # termsOf(uint256)
SHARE_RECEIVER = "0xa8ba5c3c"  # shareReceiver()

EARLIEST, HIGHEST, SHARE = 0, 1, 2
KIND_NAMES = {EARLIEST: "earliest", HIGHEST: "highest", SHARE: "share"}
PRIZE_PERCENT = 40
LOG_RANGE = 10_000  # blocks per eth_getLogs (a node that refuses gets halves)
BATCH = 100  # calls per JSON-RPC batch (a node that refuses gets smaller ones)
PAGE_SIZE = 1000
USER_AGENT = "geopoem-verify/2"


class Unavailable(Exception):
    """The site, the node or the record could not be read: nothing was decided."""


# --- Canonical forms and commitments (docs/protocol.md section 1) ------------------------------

_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_COORDINATES = re.compile(rf"^\s*({_NUMBER})\s*,\s*({_NUMBER})\s*$", re.ASCII)
_HEX64 = re.compile(r"^[0-9a-f]{64}$", re.ASCII)
_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$", re.ASCII)


def truncate_number(number: str) -> str:
    """Toward zero to 6 places, on the decimal string: no "+", no leading or trailing zeros, "-0" is "0"."""
    sign = ""
    if number[0] in "+-":
        sign, number = ("-" if number[0] == "-" else ""), number[1:]
    whole, _, fraction = number.partition(".")
    whole = whole.lstrip("0") or "0"
    fraction = fraction[:6].rstrip("0")
    text = f"{whole}.{fraction}" if fraction else whole
    return "0" if text == "0" else sign + text


def micro_degrees(text: object) -> tuple[int, int] | None:
    """(latE6, lonE6) of a "lat, lon" text, computed on its decimal strings; None when it is not
    coordinates in range."""
    if not isinstance(text, str) or len(text) > 100:
        return None
    match = _COORDINATES.match(text)
    if match is None:
        return None
    lat, lon = match.groups()
    if not (-90 <= Decimal(lat) <= 90 and -180 <= Decimal(lon) <= 180):
        return None
    return _micro(truncate_number(lat)), _micro(truncate_number(lon))


def _micro(number: str) -> int:
    negative = number.startswith("-")
    whole, _, fraction = number.lstrip("-").partition(".")
    value = int(whole) * 10**6 + int(fraction.ljust(6, "0"))
    return -value if negative else value


def text_from_micro(lat_e6: int, lon_e6: int) -> str:
    def number(value: int) -> str:
        whole, fraction = divmod(abs(value), 10**6)
        return truncate_number(f"{'-' if value < 0 else ''}{whole}.{fraction:06d}")

    return f"{number(lat_e6)}, {number(lon_e6)}"


def _uint_word(value: int) -> bytes:
    return value.to_bytes(32, "big")


def _int_word(value: int) -> bytes:
    return value.to_bytes(32, "big", signed=True)


def _address_word(address: str) -> bytes:
    return bytes.fromhex(address.removeprefix("0x")).rjust(32, b"\0")


def _tag_word(tag: str) -> bytes:
    return tag.encode("ascii").ljust(32, b"\0")


def guess_commitment(
    *, chain_id: int, pot: str, challenge_id: int, payer: str, lat_e6: int, lon_e6: int, salt: str
) -> str:
    """sha256(abi.encode(bytes32 "geopoem:guess:v2", chainId, pot, challengeId, payer, int256 latE6,
    int256 lonE6, bytes32 salt)): the payer is bound in."""
    words = [
        _tag_word("geopoem:guess:v2"),
        _uint_word(chain_id),
        _address_word(pot),
        _uint_word(challenge_id),
        _address_word(payer),
        _int_word(lat_e6),
        _int_word(lon_e6),
        bytes.fromhex(salt),
    ]
    return hashlib.sha256(b"".join(words)).hexdigest()


def solution_commitment(*, chain_id: int, pot: str, challenge_id: int, lat_e6: int, lon_e6: int, salt: str) -> str:
    """sha256(abi.encode(bytes32 "geopoem:solution:v2", chainId, pot, challengeId, int256 latE6,
    int256 lonE6, bytes32 salt))."""
    words = [
        _tag_word("geopoem:solution:v2"),
        _uint_word(chain_id),
        _address_word(pot),
        _uint_word(challenge_id),
        _int_word(lat_e6),
        _int_word(lon_e6),
        bytes.fromhex(salt),
    ]
    return hashlib.sha256(b"".join(words)).hexdigest()


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def terms_hash(*, challenge_id: int, title: str, poem: str, instructions: str) -> str:
    """What players read, as the pot holds it: each text exactly as the site serves it, hashed first."""
    parts = "|".join(sha256_hex(text) for text in (title, poem, instructions))
    return sha256_hex(f"geopoem:terms:v1|{challenge_id}|{parts}")


def is_salt(value: object) -> bool:
    return isinstance(value, str) and _HEX64.match(value) is not None


def to_units(amount: object, decimals: int = 6) -> int | None:
    """A decimal string of USDC as token units, exactly; None when it is not one."""
    try:
        value = Decimal(str(amount)).scaleb(decimals)
    except InvalidOperation:
        return None
    return int(value) if value.is_finite() and value == value.to_integral_value() else None


def usdc(units: int, decimals: int = 6) -> str:
    return f"{Decimal(units).scaleb(-decimals):.{decimals}f}"


def _usdc_of(units: object) -> str:
    return usdc(units) if isinstance(units, int) else repr(units)


# --- The integer rule (docs/protocol.md section 4; contracts/GeoMath.sol is normative) ----------

ONE = 10**18
PI_ONE = 3_141_592_653_589_793_238
MICRO_90 = 90_000_000
MICRO_180 = 180_000_000
EARTH_RADIUS_M = 6_371_000
HALF_CIRCUMFERENCE_M = 20_015_086
HALF_PI_ONE = MICRO_90 * PI_ONE // MICRO_180
_TAYLOR_DIVISORS = tuple((2 * k) * (2 * k + 1) for k in range(1, 13))


def div_trunc(numerator: int, denominator: int) -> int:
    """Division truncated toward zero, as Solidity's signed `/` (Python's `//` floors)."""
    quotient = abs(numerator) // abs(denominator)
    return -quotient if (numerator < 0) != (denominator < 0) else quotient


def sin_rad(x: int) -> int:
    """sin(x), x radians scaled by ONE, 0 <= x <= pi/2 ONE: 13 terms of the Taylor series."""
    if not 0 <= x <= HALF_PI_ONE:
        raise ValueError(f"sin_rad takes 0 <= x <= {HALF_PI_ONE}, not {x}")
    x2 = x * x
    term = total = x
    for k, divisor in enumerate(_TAYLOR_DIVISORS, start=1):
        term = term * x2 // (ONE * ONE * divisor)
        total = total - term if k % 2 else total + term
    return total


def sin_micro(angle_e6: int) -> int:
    magnitude = abs(angle_e6)
    if magnitude > MICRO_180:
        raise ValueError(f"sin_micro takes |angle| <= {MICRO_180} micro-degrees, not {angle_e6}")
    if magnitude > MICRO_90:
        magnitude = MICRO_180 - magnitude
    value = sin_rad(magnitude * PI_ONE // MICRO_180)
    return -value if angle_e6 < 0 else value


def cos_micro(angle_e6: int) -> int:
    return sin_micro(MICRO_90 - abs(angle_e6))


def unit_vector(lat_e6: int, lon_e6: int) -> tuple[int, int, int]:
    cos_lat = cos_micro(lat_e6)
    return (
        div_trunc(cos_lat * cos_micro(lon_e6), ONE),
        div_trunc(cos_lat * sin_micro(lon_e6), ONE),
        sin_micro(lat_e6),
    )


def in_range(lat_e6: int, lon_e6: int) -> bool:
    return -MICRO_90 <= lat_e6 <= MICRO_90 and -MICRO_180 <= lon_e6 <= MICRO_180


def chord_sq(a: tuple[int, int, int], b: tuple[int, int, int]) -> int:
    return sum((p - q) ** 2 for p, q in zip(a, b, strict=True))


def threshold_chord_sq(threshold_m: int) -> int:
    if not 0 <= threshold_m < HALF_CIRCUMFERENCE_M:
        raise ValueError(f"a threshold is 0 <= metres < {HALF_CIRCUMFERENCE_M}, not {threshold_m}")
    chord = 2 * sin_rad(threshold_m * ONE // (2 * EARTH_RADIUS_M))
    return chord * chord


def is_correct(guess_e6: tuple[int, int], solution_e6: tuple[int, int], threshold_m: int) -> bool:
    """The pot's verdict: out of range is incorrect, never an error."""
    return scorer(solution_e6, threshold_m)(guess_e6)


def scorer(solution_e6: tuple[int, int], threshold_m: int):
    """is_correct against one solution, its unit vector and the threshold's chord computed once."""
    target, limit = unit_vector(*solution_e6), threshold_chord_sq(threshold_m)

    def score(guess_e6: tuple[int, int]) -> bool:
        return in_range(*guess_e6) and chord_sq(unit_vector(*guess_e6), target) <= limit

    return score


# --- The pot's rules of winners and money (docs/protocol.md section 4, "Order, winners and the split")


@dataclass(frozen=True)
class Best:
    """The winners as the pot keeps them while reveals arrive: the lowest correct sequence, and the
    highest correct stake with ties to the lower sequence. None: nobody correct yet."""

    earliest: int | None = None
    highest: int | None = None
    highest_amount: int = 0


def keep_best(best: Best, *, seq: int, amount: int, correct: bool) -> Best:
    """One reveal, in constant work, as GeopoemPot.revealGuess: a duplicate or an incorrect guess
    changes nothing, and the order of the reveals does not matter."""
    if not correct:
        return best
    earliest = seq if best.earliest is None or seq < best.earliest else best.earliest
    if best.highest is None or amount > best.highest_amount or (amount == best.highest_amount and seq < best.highest):
        return Best(earliest, seq, amount)
    return Best(earliest, best.highest, best.highest_amount)


def beats(best: Best, *, seq: int, amount: int) -> list[str]:
    """The prizes a correct guess of this stake would take from `best` if it were revealed."""
    after = keep_best(best, seq=seq, amount=amount, correct=True)
    won = []
    if after.earliest == seq and best.earliest != seq:
        won.append("earliest")
    if after.highest == seq and best.highest != seq:
        won.append("highest")
    return won


def split(pot: int) -> tuple[int, int]:
    """(each prize, the share): 40 % each rounded down, the share the remainder; nothing left over."""
    prize = pot * PRIZE_PERCENT // 100
    return prize, pot - 2 * prize


def bond_shares(stakes: list[int], *, pot: int, bond: int) -> list[int]:
    """The bond's share of each refund after an abort, in the order the refunds are made: each takes
    bondLeft x stake / potLeft, rounded down, so the last takes what remains."""
    shares, bond_left, pot_left = [], bond, pot
    for amount in stakes:
        share = bond_left * amount // pot_left  # pot_left >= this stake > 0, as in GeopoemPot.refund
        shares.append(share)
        bond_left -= share
        pot_left -= amount
    return shares


# --- Reading the site and the node ---------------------------------------------------------------


def http_request(url: str, *, data: bytes | None = None, headers: dict[str, str]) -> urllib.request.Request:
    """Only http(s): urllib would also open file: and ftp: URLs."""
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise Unavailable(f"{url} is not an http(s) URL")
    return urllib.request.Request(url, data=data, headers={"User-Agent": USER_AGENT, **headers})  # noqa: S310


def http_get(url: str, *, timeout: float) -> tuple[int, bytes, dict[str, str]]:
    request = http_request(url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:  # noqa: S310 - the user's URL
            return answer.status, answer.read(), {k.lower(): v for k, v in answer.headers.items()}
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), {k.lower(): v for k, v in exc.headers.items()}
    except (urllib.error.URLError, OSError) as exc:
        raise Unavailable(f"GET {url}: {exc}") from exc


def get_json(url: str, *, timeout: float, missing_ok: bool = False) -> tuple[object, dict[str, str]]:
    status, body, headers = http_get(url, timeout=timeout)
    if status == 404 and missing_ok:
        return None, headers
    if status != 200:
        raise Unavailable(f"GET {url}: HTTP {status}")
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
    def __init__(self, url: str, *, timeout: float) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout

    def on_site(self, link: str) -> str:
        """A link the site gave, kept on the address the player named (behind a proxy the site may
        spell its own origin differently)."""
        parts = urllib.parse.urlsplit(urllib.parse.urljoin(self.url + "/", link))
        return self.url + parts.path + (f"?{parts.query}" if parts.query else "")

    def public_config(self) -> dict:
        """The public settings the page embeds (chain id, the pot it names, the token's decimals)."""
        status, body, _ = http_get(self.url + "/", timeout=self.timeout)
        match = re.search(rb'<script id="geopoem-config" type="application/json">(.*?)</script>', body, re.S)
        if status != 200 or match is None:
            raise Unavailable(f"{self.url}/ does not embed the public configuration")
        return json.loads(match.group(1))

    def challenge(self, challenge_id: int) -> dict:
        data, _ = get_json(f"{self.url}/api/challenges/{challenge_id}", timeout=self.timeout, missing_ok=True)
        if not isinstance(data, dict):
            raise Unavailable(f"the site shows no challenge {challenge_id}")
        return data

    def winners(self, challenge_id: int) -> dict:
        data, _ = get_json(f"{self.url}/api/challenges/{challenge_id}/winners", timeout=self.timeout)
        if not isinstance(data, dict):
            raise Unavailable(f"the site's winners of challenge {challenge_id} are not an object")
        return data

    def stakes(self, challenge_id: int, progress) -> list[dict]:
        """The public list of the challenge's stakes (empty until the solution is revealed), page by page."""
        url: str | None = f"{self.url}/api/responses?challengeId={challenge_id}&limit={PAGE_SIZE}"
        rows: list[dict] = []
        while url:
            page, headers = get_json(url, timeout=self.timeout)
            if not isinstance(page, list):
                raise Unavailable(f"GET {url}: not a list")
            rows.extend(row for row in page if isinstance(row, dict))
            progress(f"read {len(rows)} stakes from the site")
            link = next_link(headers)
            url = self.on_site(link) if link else None
        return rows


class Refused(Unavailable):
    """The node answered a call with an error (a range too wide, a batch too large)."""


class Rpc:
    """JSON-RPC over HTTP, many calls per request (a batch); a node that refuses a batch of this size
    gets smaller ones."""

    def __init__(self, url: str, *, timeout: float, batch: int) -> None:
        self.url = url
        self.timeout = timeout
        self.batch = max(1, batch)

    def _post(self, payload: object) -> object:
        data = json.dumps(payload).encode()
        request = http_request(self.url, data=data, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:  # noqa: S310 - the user's URL
                return json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            raise Refused(f"RPC {self.url}: HTTP {exc.code}") from exc
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
            try:
                answer = self._post(payload)
            except Refused:
                answer = None
            if not isinstance(answer, list) or len(answer) != len(chunk):
                if self.batch > 1:
                    self.batch = max(1, self.batch // 2)
                    continue
                raise Unavailable(f"RPC {self.url}: unexpected answer {str(answer)[:200]}")
            by_id = {item.get("id"): item for item in answer if isinstance(item, dict)}
            for i, (method, _) in enumerate(chunk):
                item = by_id.get(i)
                if item is None or "error" in item:
                    raise Refused(f"RPC {self.url}: {method} failed: {item and item.get('error')}")
                results.append(item.get("result"))
            start += len(chunk)
            if progress:
                progress(f"read {start} of {len(calls)} chain records")
        return results


# --- The pot's events and views, decoded by hand -------------------------------------------------


def _quantity(value: object) -> int:
    return int(str(value), 16) if isinstance(value, str) else int(value)  # type: ignore[call-overload]


def _words(data: str) -> list[str]:
    raw = data.removeprefix("0x")
    return [raw[i : i + 64] for i in range(0, len(raw), 64)]


def _uint(word: str) -> int:
    return int(word, 16)


def _int(word: str) -> int:
    value = int(word, 16)
    return value - (1 << 256) if value >= 1 << 255 else value


def _address(word: str) -> str:
    return "0x" + word[-40:].lower()


@dataclass(frozen=True)
class Terms:
    solution_commitment: str
    terms_hash: str
    threshold_m: int
    opens_at: int
    closes_at: int
    solution_deadline: int
    guess_window: int
    min_stake: int
    bond: int


def decode_terms(words: list[str]) -> Terms:
    return Terms(words[0], words[1], *(_uint(w) for w in words[2:9]))


@dataclass
class Event:
    name: str
    block: int
    log_index: int
    tx: str
    time: int | None
    args: dict


def decode_event(log: dict) -> Event | None:
    """The pot's event a log records (None for any other); its arguments as plain values."""
    topics = [str(t).lower() for t in log.get("topics") or []]
    name = EVENT_TOPICS.get(topics[0]) if topics else None
    if name is None or log.get("removed"):
        return None
    w = _words(str(log.get("data", "0x")))
    args: dict
    if name == "Opened":
        args = {"terms": decode_terms(w), "digest": w[9]}
    elif name == "Staked":
        args = {"payer": _address(topics[2]), "seq": _uint(w[0]), "amount": _uint(w[1]), "commitment": w[2]}
    elif name == "SolutionRevealed":
        args = {"lat": _int(w[0]), "lon": _int(w[1]), "salt": w[2], "guess_deadline": _uint(w[3])}
    elif name == "GuessRevealed":
        args = {"payer": _address(topics[2]), "seq": _uint(w[0]), "lat": _int(w[1]), "lon": _int(w[2])}
        args["correct"] = _uint(w[3]) != 0
    elif name == "Finalized":
        names = ("earliest", "highest", "earliest_prize", "highest_prize", "share")
        args = dict(zip(names, map(_uint, w[:5]), strict=True))
    elif name == "Paid":
        args = {"kind": _uint(topics[2]), "to": _address(topics[3]), "amount": _uint(w[0])}
    else:
        args = {"payer": _address(topics[2]), "seq": _uint(w[0]), "stake": _uint(w[1]), "bond_share": _uint(w[2])}
    time_ = log.get("blockTimestamp")
    return Event(
        name=name,
        block=_quantity(log["blockNumber"]),
        log_index=_quantity(log["logIndex"]),
        tx=str(log.get("transactionHash", "")).lower(),
        time=_quantity(time_) if time_ is not None else None,
        args=args,
    )


STATE_FIELDS = (
    "stakeCount",
    "pot",
    "guessDeadline",
    "earliestSeq",
    "highestSeq",
    "highestAmount",
    "finalized",
    "earliestPaid",
    "highestPaid",
    "sharePaid",
    "aborted",
    "refundedStake",
    "refundedBond",
    "thresholdChordSq",
)


@dataclass
class Chain:
    """What the node says of the challenge at one head block: the events and the pot's views."""

    head: int
    head_time: int
    events: list[Event]
    state: dict[str, int] | None  # None: no contract at the address
    terms: Terms | None
    digest: str
    share_receiver: str


def read_chain(rpc: Rpc, *, pot: str, challenge_id: int, from_block: int, log_range: int, progress) -> Chain:
    head_block = rpc.call("eth_getBlockByNumber", "latest", False)
    if not isinstance(head_block, dict):
        raise Unavailable("the node has no latest block")
    head, head_time = _quantity(head_block["number"]), _quantity(head_block["timestamp"])
    if rpc.call("eth_getCode", pot, hex(head)) in (None, "0x", "0x0"):
        return Chain(head, head_time, [], None, None, "", "")
    logs = scan_logs(
        rpc, pot=pot, challenge_id=challenge_id, first=from_block, last=head, step=log_range, progress=progress
    )
    events = sorted((e for e in map(decode_event, logs) if e is not None), key=lambda e: (e.block, e.log_index))
    untimed = sorted({e.block for e in events if e.time is None})
    if untimed:
        blocks = rpc.many([("eth_getBlockByNumber", [hex(n), False]) for n in untimed], progress)
        times = {n: _quantity(b["timestamp"]) for n, b in zip(untimed, blocks, strict=True) if isinstance(b, dict)}
        for event in events:
            event.time = event.time if event.time is not None else times.get(event.block)
    at = hex(head)
    state_data, terms_data, receiver = rpc.many(
        [
            ("eth_call", [{"to": pot, "data": STATE_OF + _uint_word(challenge_id).hex()}, at]),
            ("eth_call", [{"to": pot, "data": TERMS_OF + _uint_word(challenge_id).hex()}, at]),
            ("eth_call", [{"to": pot, "data": SHARE_RECEIVER}, at]),
        ]
    )
    state_words, terms_words = _words(str(state_data)), _words(str(terms_data))
    if len(state_words) != len(STATE_FIELDS) or len(terms_words) != 10:
        raise Unavailable(f"{pot} does not answer stateOf and termsOf as the pot does: is it the pot?")
    return Chain(
        head=head,
        head_time=head_time,
        events=events,
        state={name: _uint(w) for name, w in zip(STATE_FIELDS, state_words, strict=True)},
        terms=decode_terms(terms_words),
        digest=terms_words[9],
        share_receiver=_address(_words(str(receiver))[0]),
    )


def scan_logs(rpc: Rpc, *, pot: str, challenge_id: int, first: int, last: int, step: int, progress) -> list[dict]:
    """Every log of the pot naming the challenge (topic 1) from `first` to `last`, in block ranges, a
    batch of ranges per request; when the node refuses (too many results), halves of them."""
    topics = [list(EVENT_TOPICS), "0x" + _uint_word(challenge_id).hex()]
    logs: list[dict] = []
    start, step = first, max(1, step)
    while start <= last:
        ranges: list[tuple[int, int]] = []
        while len(ranges) < rpc.batch and (ranges[-1][1] if ranges else start - 1) < last:
            begin = ranges[-1][1] + 1 if ranges else start
            ranges.append((begin, min(last, begin + step - 1)))
        calls = [
            ("eth_getLogs", [{"address": pot, "topics": topics, "fromBlock": hex(a), "toBlock": hex(b)}])
            for a, b in ranges
        ]
        try:
            answers = rpc.many(calls)
        except Refused:
            if step == 1:
                raise
            step = max(1, step // 2)
            continue
        for answer in answers:
            logs.extend(log for log in (answer if isinstance(answer, list) else []) if isinstance(log, dict))
        start = ranges[-1][1] + 1
        progress(f"read the pot's events to block {ranges[-1][1]} of {last}")
    return logs


# --- The replay: the pot's events by its rules (docs/protocol.md section 2) ----------------------


@dataclass
class Stake:
    seq: int
    payer: str
    amount: int
    commitment: str
    tx: str
    block: int
    log_index: int
    time: int | None


@dataclass
class Replay:
    opened: Event | None = None
    terms: Terms | None = None
    stakes: dict[int, Stake] = field(default_factory=dict)
    solution: Event | None = None
    reveals: dict[int, Event] = field(default_factory=dict)  # seq -> its first reveal
    best: Best = field(default_factory=Best)
    finalized: Event | None = None
    paid: dict[int, Event] = field(default_factory=dict)  # kind -> the payment
    refunds: dict[int, Event] = field(default_factory=dict)  # seq -> the refund
    refund_order: list[int] = field(default_factory=list)
    problems: list[tuple[int | None, str]] = field(default_factory=list)  # (seq or None, what broke a rule)

    @property
    def pot(self) -> int:
        return sum(s.amount for s in self.stakes.values())

    def differ(self, text: str, seq: int | None = None) -> None:
        self.problems.append((seq, text))


def replay(events: list[Event], *, chain_id: int, pot: str, challenge_id: int) -> Replay:
    r = Replay()
    for event in events:
        if event.name == "Opened":
            if r.opened is not None:
                r.differ(f"a second Opened event in block {event.block}: the pot opens an id once")
                continue
            r.opened, r.terms = event, event.args["terms"]
        elif r.terms is None:
            r.differ(f"a {event.name} event in block {event.block} before the challenge was opened")
        elif event.name == "Staked":
            replay_stake(r, event)
        elif event.name == "SolutionRevealed":
            replay_solution(r, event, chain_id=chain_id, pot=pot, challenge_id=challenge_id)
        elif event.name == "GuessRevealed":
            replay_guess(r, event)
        elif event.name == "Finalized":
            replay_finalized(r, event)
        elif event.name == "Paid":
            replay_paid(r, event)
        else:
            replay_refund(r, event)
    return r


def replay_stake(r: Replay, event: Event) -> None:
    a, terms = event.args, r.terms
    assert terms is not None
    seq = a["seq"]
    stake = Stake(seq, a["payer"], a["amount"], a["commitment"], event.tx, event.block, event.log_index, event.time)
    if seq != len(r.stakes) + 1:
        r.differ(f"stake {seq} follows stake {len(r.stakes)}: sequences go 1, 2, 3, ...", seq)
    if event.time is not None and not terms.opens_at <= event.time < terms.closes_at:
        r.differ(f"staked at {event.time}, outside the open window [{terms.opens_at}, {terms.closes_at})", seq)
    if a["amount"] < terms.min_stake:
        r.differ(f"a stake of {usdc(a['amount'])} USDC, below the minimum of {usdc(terms.min_stake)}", seq)
    if r.solution is not None:
        r.differ("staked after the solution's reveal", seq)
    r.stakes[seq] = stake


def replay_solution(r: Replay, event: Event, *, chain_id: int, pot: str, challenge_id: int) -> None:
    a, terms = event.args, r.terms
    assert terms is not None
    if r.solution is not None:
        r.differ(f"a second SolutionRevealed event in block {event.block}")
        return
    r.solution = event
    opened = solution_commitment(
        chain_id=chain_id, pot=pot, challenge_id=challenge_id, lat_e6=a["lat"], lon_e6=a["lon"], salt=a["salt"]
    )
    if not in_range(a["lat"], a["lon"]) or opened != terms.solution_commitment:
        r.differ("the revealed solution does not open the solution commitment of the terms")
    if event.time is not None:
        if not terms.closes_at <= event.time < terms.solution_deadline:
            r.differ(f"the solution was revealed at {event.time}, outside [close, solution deadline)")
        if a["guess_deadline"] != event.time + terms.guess_window:
            r.differ(f"the guess window ends at {a['guess_deadline']}, not the reveal's time + {terms.guess_window} s")


def replay_guess(r: Replay, event: Event) -> None:
    a, terms, solution = event.args, r.terms, r.solution
    assert terms is not None
    seq = a["seq"]
    stake = r.stakes.get(seq)
    if solution is None or stake is None or stake.payer != a["payer"]:
        r.differ(f"a guess revealed in block {event.block} for no stake of this payer, or before the solution", seq)
        return
    deadline = solution.args["guess_deadline"]
    if event.time is not None and event.time >= deadline:
        r.differ(f"its guess was revealed at {event.time}, after the guess window ({deadline})", seq)
    verdict = is_correct((a["lat"], a["lon"]), (solution.args["lat"], solution.args["lon"]), terms.threshold_m)
    if verdict != a["correct"]:
        r.differ(f"the pot scored its guess {_verdict(a['correct'])}; the integer rule says {_verdict(verdict)}", seq)
    r.reveals.setdefault(seq, event)
    r.best = keep_best(r.best, seq=seq, amount=stake.amount, correct=verdict)


def _verdict(correct: bool) -> str:
    return "correct" if correct else "incorrect"


def replay_finalized(r: Replay, event: Event) -> None:
    a = event.args
    if r.finalized is not None or r.solution is None:
        r.differ(f"a Finalized event in block {event.block} twice, or with no solution revealed")
        return
    r.finalized = event
    deadline = r.solution.args["guess_deadline"]
    if event.time is not None and event.time < deadline:
        r.differ(f"finalized at {event.time}, before the guess window's end ({deadline})")
    prize, share = split(r.pot) if r.best.earliest is not None else (0, 0)
    expected = (r.best.earliest or 0, r.best.highest or 0, prize, prize, share)
    found = (a["earliest"], a["highest"], a["earliest_prize"], a["highest_prize"], a["share"])
    if found != expected:
        r.differ(f"Finalized says winners {found[:2]} and prizes {found[2:]}; the replay gives {expected}")


def replay_paid(r: Replay, event: Event) -> None:
    a, terms = event.args, r.terms
    assert terms is not None
    kind = a["kind"]
    if kind in r.paid:
        r.differ(f"the {KIND_NAMES.get(kind, kind)} payment was made twice (block {event.block})")
        return
    r.paid[kind] = event
    winner = r.best.earliest if kind == EARLIEST else r.best.highest
    if kind in (EARLIEST, HIGHEST):
        stake = r.stakes.get(winner or 0)
        prize, _ = split(r.pot)
        if r.finalized is None or stake is None or (a["to"], a["amount"]) != (stake.payer, prize):
            r.differ(
                f"the {KIND_NAMES[kind]} prize paid {usdc(a['amount'])} USDC to {a['to']}; by the rules "
                + (f"{usdc(prize)} USDC to {stake.payer}" if stake and r.finalized else "nothing was due"),
                winner,
            )
    elif kind == SHARE:
        aborted_empty = r.solution is None and not r.stakes
        if r.finalized is None and not aborted_empty:
            r.differ(f"the share was paid in block {event.block} before the challenge was finalized")
    else:
        r.differ(f"a payment of unknown kind {kind} in block {event.block}")


def replay_refund(r: Replay, event: Event) -> None:
    a = event.args
    seq = a["seq"]
    stake = r.stakes.get(seq)
    if seq in r.refunds or stake is None or (stake.payer, stake.amount) != (a["payer"], a["stake"]):
        r.differ(f"a refund of {usdc(a['stake'])} USDC to {a['payer']} that is not this stake's, or a second one", seq)
        return
    terms = r.terms
    assert terms is not None
    aborted = r.solution is None and event.time is not None and event.time >= terms.solution_deadline
    if r.best.earliest is not None or (r.finalized is None and not aborted):
        r.differ("refunded although the challenge has a winner, or before it was finalized or aborted", seq)
    r.refunds[seq] = event
    r.refund_order.append(seq)


# --- The report ----------------------------------------------------------------------------------


@dataclass
class Report:
    stakes: int = 0  # the outcomes: one per stake in the pot
    lines: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    differing: set[int] = field(default_factory=set)  # stakes with a difference

    def line(self, text: str) -> None:
        self.lines.append(text)

    def differ(self, text: str, seq: int | None = None) -> None:
        if seq is None:
            self.differences.append(f"DIFFERENCE: {text}")
        else:
            self.differences.append(f"DIFFERENCE stake {seq}: {text}")
            self.differing.add(seq)

    @property
    def ok(self) -> bool:
        return not self.differences


@dataclass
class Context:
    """Everything read once: the site's answers and the chain's, and the replay."""

    challenge_id: int
    chain_id: int
    pot: str
    decimals: int
    config: dict
    challenge: dict
    winners: dict
    rows: list[dict]
    chain: Chain
    replay: Replay
    shown: dict[int, tuple[int, int]] = field(default_factory=dict)  # seq -> the published guess, which opens it
    recorded: dict[int, tuple[int, int]] = field(default_factory=dict)  # seq -> the record's guess, which opens it
    verdicts: dict[tuple[int, int], bool] = field(default_factory=dict)
    score: Callable[[tuple[int, int]], bool] | None = None

    @property
    def terms(self) -> Terms:
        assert self.replay.terms is not None
        return self.replay.terms

    def verdict(self, point: tuple[int, int]) -> bool | None:
        """The pot's verdict on a point, None before the solution's reveal; each point scored once."""
        solution = self.replay.solution
        if solution is None:
            return None
        if point not in self.verdicts:
            if self.score is None:
                self.score = scorer((solution.args["lat"], solution.args["lon"]), self.terms.threshold_m)
            self.verdicts[point] = self.score(point)
        return self.verdicts[point]

    @property
    def window_over(self) -> bool:
        solution = self.replay.solution
        return solution is not None and self.chain.head_time >= solution.args["guess_deadline"]


# --- 0. The pot, the replay and the pot's own views ----------------------------------------------


def check_pot(ctx: Context, report: Report) -> None:
    site_pot = str(ctx.config.get("potAddress") or "").lower()
    if site_pot != ctx.pot:
        report.differ(f"the site names the pot {site_pot or '(none)'}; the pot checked is {ctx.pot}")
    else:
        report.line(f"pot: {ctx.pot} on chain {ctx.chain_id}, the site names the same")
    r, chain = ctx.replay, ctx.chain
    if chain.state is None:
        report.differ(f"there is no contract at {ctx.pot} on chain {ctx.chain_id}")
        return
    for seq, problem in r.problems:
        report.differ(f"on chain: {problem}", seq)
    terms_view = (chain.terms, chain.digest)
    if r.opened is not None and terms_view != (r.terms, r.opened.args["digest"]):
        report.differ("the pot's termsOf differs from its Opened event")
    expected = replay_state(ctx)
    state = chain.state
    wrong = [f"{k} {state[k]} (the events give {v})" for k, v in expected.items() if state[k] != v]
    if wrong:
        report.differ("the pot's stateOf differs from the replay of its events: " + ", ".join(wrong))
    else:
        report.line(f"replay: {len(chain.events)} events of the pot replayed to block {chain.head}; stateOf agrees")


def replay_state(ctx: Context) -> dict[str, int]:
    """What stateOf must answer at the head, from the replay alone."""
    r, head_time = ctx.replay, ctx.chain.head_time
    terms = r.terms
    solution = r.solution
    aborted = terms is not None and solution is None and head_time >= terms.solution_deadline
    refunded = [r.refunds[s].args for s in r.refund_order]
    return {
        "stakeCount": len(r.stakes),
        "pot": r.pot,
        "guessDeadline": solution.args["guess_deadline"] if solution else 0,
        "earliestSeq": r.best.earliest or 0,
        "highestSeq": r.best.highest or 0,
        "highestAmount": r.best.highest_amount,
        "finalized": int(r.finalized is not None),
        "earliestPaid": int(EARLIEST in r.paid),
        "highestPaid": int(HIGHEST in r.paid),
        "sharePaid": int(SHARE in r.paid),
        "aborted": int(aborted),
        "refundedStake": sum(a["stake"] for a in refunded),
        "refundedBond": sum(a["bond_share"] for a in refunded),
        "thresholdChordSq": threshold_chord_sq(terms.threshold_m) if terms else 0,
    }


# --- 1. Terms ------------------------------------------------------------------------------------


def check_terms(ctx: Context, report: Report) -> None:
    c, terms, opened = ctx.challenge, ctx.terms, ctx.replay.opened
    assert opened is not None
    read = terms_hash(
        challenge_id=ctx.challenge_id,
        title=str(c.get("poemTitle", "")),
        poem=str(c.get("poemText", "")),
        instructions=str(c.get("instructionsText", "")),
    )
    if read != terms.terms_hash:
        report.differ(
            f"terms: the site's title, poem and instructions hash to {read}, not the pot's terms hash "
            f"{terms.terms_hash}: what the site shows is not what was opened"
        )

    def units(key: str) -> int | None:
        return to_units(c.get(key), ctx.decimals)

    shown = {
        "terms hash": (c.get("termsSha256"), terms.terms_hash),
        "terms digest": (c.get("termsDigest"), opened.args["digest"]),
        "solution commitment": (c.get("solutionSha256"), terms.solution_commitment),
        "threshold": (c.get("proximityThreshold"), terms.threshold_m),
        "opening": (c.get("startTimestamp"), terms.opens_at),
        "close": (c.get("closesTimestamp"), terms.closes_at),
        "solution deadline": (c.get("solutionDeadline"), terms.solution_deadline),
        "guess window": (c.get("guessWindowSeconds"), terms.guess_window),
        "minimum stake": (units("minStake"), terms.min_stake),
        "bond": (units("bond"), terms.bond),
        "opening transaction": (str(c.get("openTransactionHash") or "").lower(), opened.tx),
        "opening block": (c.get("openBlockNumber"), opened.block),
    }
    for name, (site, pot) in shown.items():
        if site != pot:
            report.differ(f"terms: the site shows the {name} {site!r}; the pot's is {pot!r}")
    report.line(
        f"terms: opened in block {opened.block} (transaction {opened.tx}); threshold {terms.threshold_m} m, "
        f"stakes from {terms.opens_at} to {terms.closes_at}, minimum {usdc(terms.min_stake)} USDC, "
        f"bond {usdc(terms.bond)} USDC"
    )
    check_solution_shown(ctx, report)


def check_solution_shown(ctx: Context, report: Report) -> None:
    c, solution = ctx.challenge, ctx.replay.solution
    if solution is None:
        if c.get("solutionReveal") is not None or c.get("solutionSalt") is not None:
            report.differ("terms: the site shows a solution the pot has not seen revealed")
        return
    a = solution.args
    text = text_from_micro(a["lat"], a["lon"])
    if (c.get("solutionReveal"), c.get("solutionSalt")) != (text, a["salt"]):
        report.differ(
            f"terms: the site shows the solution {c.get('solutionReveal')!r} with salt {c.get('solutionSalt')!r}; "
            f"the pot's is {text!r} with salt {a['salt']}"
        )
    if c.get("guessDeadline") != a["guess_deadline"]:
        report.differ(
            f"terms: the site shows the guess deadline {c.get('guessDeadline')}; the pot's is {a['guess_deadline']}"
        )
    report.line(f"solution: {text}, revealed in block {solution.block}; it opens the committed solution")


# --- 2. Stakes -----------------------------------------------------------------------------------


def check_stakes(ctx: Context, report: Report) -> None:
    stakes, c = ctx.replay.stakes, ctx.challenge
    shown_count, shown_units = c.get("responseCount"), to_units(c.get("stakedSum"), ctx.decimals)
    count = shown_count if isinstance(shown_count, int) and 0 <= shown_count <= len(stakes) else None
    # The site counts the stakes deep enough in the chain, a prefix of the sequence; the whole pot once
    # the solution is revealed (the worker reveals it only once the close is deep).
    whole = ctx.replay.solution is not None and c.get("solutionReveal") is not None
    prefix_units = sum(stakes[seq].amount for seq in range(1, count + 1)) if count is not None else None
    total = ctx.replay.pot
    if count is None or shown_units != prefix_units or (whole and count != len(stakes)):
        report.differ(
            f"stakes: the site shows {shown_count} stakes of {c.get('stakedSum')} USDC; the pot holds "
            f"{len(stakes)} stakes of {usdc(total, ctx.decimals)} USDC"
        )
    else:
        report.line(
            f"stakes: the pot holds {len(stakes)} stakes of {usdc(total, ctx.decimals)} USDC; the site shows {count}"
        )
    listed = check_listed(ctx, report)
    if whole:
        missing = sorted(set(stakes) - listed)
        if missing:
            report.differ(f"stakes: the site does not list the stakes {_some(missing)} of the pot")


def _some(seqs: list[int]) -> str:
    return ", ".join(map(str, seqs[:10])) + (f" and {len(seqs) - 10} more" if len(seqs) > 10 else "")


def check_listed(ctx: Context, report: Report) -> set[int]:
    """Every stake the site lists must be on chain as listed. Returns the sequences listed."""
    listed: set[int] = set()
    for row in ctx.rows:
        seq = row.get("id")
        stake = ctx.replay.stakes.get(seq) if isinstance(seq, int) else None
        if stake is None or seq in listed:
            report.differ(
                f"stakes: the site lists a stake #{seq} of {row.get('submissionStake')} USDC from "
                f"{row.get('submitterAddress')} (transaction {row.get('transactionHash')}) that is not in the pot"
                + (" (twice)" if seq in listed else "")
            )
            continue
        listed.add(stake.seq)
        shown = {
            "payer": (str(row.get("submitterAddress") or "").lower(), stake.payer),
            "stake": (to_units(row.get("submissionStake"), ctx.decimals), stake.amount),
            "commitment": (row.get("commitment"), stake.commitment),
            "transaction": (str(row.get("transactionHash") or "").lower(), stake.tx),
            "block": (row.get("blockNumber"), stake.block),
            "log index": (row.get("logIndex"), stake.log_index),
        }
        for name, (site, chain) in shown.items():
            if site != chain:
                report.differ(f"the site lists its {name} as {site!r}; on chain it is {chain!r}", stake.seq)
        revealed = ctx.replay.reveals.get(stake.seq)
        if bool(row.get("revealed")) != (revealed is not None):
            report.differ(
                f"the site says its guess was {'' if row.get('revealed') else 'not '}revealed on chain", stake.seq
            )
    return listed


# --- 3. Reveals and winners ----------------------------------------------------------------------


def check_winners(ctx: Context, report: Report) -> None:
    r, w = ctx.replay, ctx.winners
    solution = r.solution
    if solution is None:
        report.line("winners: the solution is not revealed on chain; nothing is scored yet")
        return
    correct = sum(1 for e in r.reveals.values() if e.args["correct"])
    report.line(f"reveals: {len(r.reveals)} revealed on chain, {correct} of them correct; each verdict recomputed")
    has_winner = r.best.earliest is not None
    for kind, seq in (("earliest", r.best.earliest), ("highest", r.best.highest)):
        shown = w.get(kind)
        shown_id = shown.get("id") if isinstance(shown, dict) else None
        if shown_id != seq:
            report.differ(
                f"winners: the site names {_stake_name(shown_id)} the {kind} winner; the pot's is {_stake_name(seq)}"
            )
    prize, share = split(r.pot) if has_winner else (0, 0)
    prizes = w.get("prizes") if isinstance(w.get("prizes"), dict) else {}
    for kind, amount in (("earliest", prize), ("highest", prize), ("share", share)):
        if to_units(prizes.get(kind), ctx.decimals) != amount:  # type: ignore[union-attr]
            report.differ(f"winners: the site shows the {kind} prize {prizes.get(kind)}; by the rules {usdc(amount)}")  # type: ignore[union-attr]
    final = ctx.window_over
    if bool(w.get("final")) != final:
        report.differ(f"winners: the site says the winners are {'' if w.get('final') else 'not '}final")
    state = "final" if final else f"so far (the guess window ends at {solution.args['guess_deadline']})"
    report.line(f"winners {state}: earliest {_stake_name(r.best.earliest)}, highest {_stake_name(r.best.highest)}")


def _stake_name(seq: object) -> str:
    return f"stake {seq}" if seq else "none"


# --- 4. Published guesses ------------------------------------------------------------------------


def check_published(ctx: Context, report: Report) -> None:
    """Each guess the site published must open its stake's commitment; a correct one that would beat
    the winners on chain, never revealed, is a guess the site held back."""
    opened = 0
    for row in ctx.rows:
        stake = ctx.replay.stakes.get(row.get("id"))  # type: ignore[arg-type]
        text, salt = row.get("submissionText"), row.get("submissionSalt")
        if stake is None or (text is None and salt is None):
            continue
        point = micro_degrees(text)
        if point is None or not is_salt(salt) or stake_commitment(ctx, stake, point, str(salt)) != stake.commitment:
            report.differ(
                f"the guess the site published ({text!r}, salt {salt!r}) does not open its commitment", stake.seq
            )
            continue
        opened += 1
        ctx.shown[stake.seq] = point
        check_published_guess(ctx, report, stake, point, row)
    report.line(f"published guesses: {opened} published by the site, each opens its stake's commitment")


def stake_commitment(ctx: Context, stake: Stake, point: tuple[int, int], salt: str) -> str:
    return guess_commitment(
        chain_id=ctx.chain_id,
        pot=ctx.pot,
        challenge_id=ctx.challenge_id,
        payer=stake.payer,
        lat_e6=point[0],
        lon_e6=point[1],
        salt=salt,
    )


def check_published_guess(ctx: Context, report: Report, stake: Stake, point: tuple[int, int], row: dict) -> None:
    verdict = ctx.verdict(point)
    revealed = ctx.replay.reveals.get(stake.seq)
    if row.get("isCorrect") is not None and verdict is not None and row.get("isCorrect") != verdict:
        report.differ(
            f"the site calls its guess {_verdict(bool(row.get('isCorrect')))}; the rule says {_verdict(verdict)}",
            stake.seq,
        )
    if revealed is not None:
        if (revealed.args["lat"], revealed.args["lon"]) != point:
            report.differ("the guess revealed on chain is not the one the site published", stake.seq)
        return
    won = beats(ctx.replay.best, seq=stake.seq, amount=stake.amount) if verdict else []
    if not won:
        return
    prizes = " and ".join(won)
    if ctx.window_over:
        report.differ(
            f"the site held this guess and did not reveal it: {text_from_micro(*point)} is correct and would have "
            f"won the {prizes} prize",
            stake.seq,
        )
    else:
        report.line(f"stake {stake.seq}: its correct guess, not revealed yet, would win the {prizes} prize")


# --- 5. Payments ---------------------------------------------------------------------------------


def check_payments(ctx: Context, report: Report) -> None:
    r = ctx.replay
    aborted = r.solution is None and ctx.chain.head_time >= ctx.terms.solution_deadline
    if r.finalized is None and not aborted:
        report.line("payments: none due yet (the challenge is not finalized or aborted)")
        check_payments_listed(ctx, report)
        return
    if aborted:
        report.line(
            "payments: aborted (the solution was not revealed by its deadline): every stake is refunded with the bond"
        )
        expected = bond_shares([r.stakes[s].amount for s in r.refund_order], pot=r.pot, bond=ctx.terms.bond)
        for seq, share in zip(r.refund_order, expected, strict=True):
            if r.refunds[seq].args["bond_share"] != share:
                report.differ(
                    f"its refund took {usdc(r.refunds[seq].args['bond_share'])} USDC of the bond, not {usdc(share)}",
                    seq,
                )
    elif r.best.earliest is None:
        for seq, refund in r.refunds.items():
            if refund.args["bond_share"]:
                report.differ("its refund took a share of the bond, which only an abort gives", seq)
    check_share(ctx, report, aborted=aborted)
    due = due_payments(ctx)
    report.line(
        f"payments: {_count(len(r.paid), 'payment')} and {_count(len(r.refunds), 'refund')} made by the rules"
        + (f"; due: {', '.join(due)}" if due else "")
    )
    check_payments_listed(ctx, report)


def check_share(ctx: Context, report: Report, *, aborted: bool) -> None:
    r, paid = ctx.replay, ctx.replay.paid.get(SHARE)
    if paid is None:
        return
    _, share = split(r.pot) if r.best.earliest is not None and not aborted else (0, 0)
    expected = share + ctx.terms.bond
    if (paid.args["to"], paid.args["amount"]) != (ctx.chain.share_receiver, expected):
        report.differ(
            f"payments: the share paid {usdc(paid.args['amount'])} USDC to {paid.args['to']}; by the rules "
            f"{usdc(expected)} USDC to the pot's share receiver {ctx.chain.share_receiver}"
        )


def due_payments(ctx: Context) -> list[str]:
    r = ctx.replay
    due: list[str] = []
    if r.best.earliest is not None and r.finalized is not None:
        prize, share = split(r.pot)
        for kind in (EARLIEST, HIGHEST):
            if kind not in r.paid:
                due.append(f"the {KIND_NAMES[kind]} prize of {usdc(prize)} USDC")
        if SHARE not in r.paid:
            due.append(f"the share of {usdc(share + ctx.terms.bond)} USDC")
        return due
    unrefunded = sorted(set(r.stakes) - set(r.refunds))
    if unrefunded:
        due.append(f"the refunds of stakes {_some(unrefunded)}")
    if SHARE not in r.paid and ctx.terms.bond and (r.finalized is not None or not r.stakes):
        due.append(f"the bond of {usdc(ctx.terms.bond)} USDC back to the share receiver")
    return due


def check_payments_listed(ctx: Context, report: Report) -> None:
    """The site's list of payments must be the pot's Paid and Refunded events, each once."""
    r = ctx.replay
    # (kind, the stake refunded or None, to, units, transaction)
    chain: set[tuple[object, ...]] = {
        (KIND_NAMES[k], None, e.args["to"], e.args["amount"], e.tx) for k, e in r.paid.items() if k in KIND_NAMES
    }
    for refunded, e in r.refunds.items():
        chain.add(("refund", refunded, e.args["payer"], e.args["stake"] + e.args["bond_share"], e.tx))
    site: set[tuple[object, ...]] = set()
    for p in ctx.winners.get("payments") or []:
        if isinstance(p, dict):
            recipient, tx_hash = str(p.get("to") or "").lower(), str(p.get("transactionHash") or "").lower()
            seq = p.get("seq") if p.get("kind") == "refund" else None
            site.add((p.get("kind"), seq, recipient, to_units(p.get("amount"), ctx.decimals), tx_hash))
    for kind, seq, to, amount, tx in sorted(site - chain, key=str):
        report.differ(
            f"payments: the site lists a {_payment(kind, seq)} of {_usdc_of(amount)} USDC to {to} "
            f"(transaction {tx}) that the pot did not make"
        )
    for kind, seq, to, amount, tx in sorted(chain - site, key=str):
        report.differ(
            f"payments: the site does not list the pot's {_payment(kind, seq)} of {_usdc_of(amount)} USDC to {to} "
            f"(transaction {tx})"
        )


def _payment(kind: object, seq: object) -> str:
    return f"refund of stake {seq}" if kind == "refund" else f"{kind} payment"


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}{'' if number == 1 else 's'}"


# --- 6. A player's record (docs/protocol.md 3.7) ---------------------------------------------------


def read_record(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as file:
            record = json.load(file)
    except (OSError, ValueError) as exc:
        raise Unavailable(f"the record {path} cannot be read: {exc}") from exc
    if not isinstance(record, dict) or record.get("version") != 2 or not isinstance(record.get("challengeId"), int):
        raise Unavailable(f"{path} is not a Geopoem record of version 2")
    return record


def check_record(ctx: Context, record: dict, report: Report) -> None:
    """The player's own stake: in the pot, opened by the record's guess, revealed if it would have
    won, and what it was paid or refunded."""
    payer = str(record.get("submitterAddress") or "").lower()
    point = micro_degrees(record.get("coordinates"))
    salt = record.get("salt")
    if str(record.get("pot") or "").lower() != ctx.pot or record.get("chainId") != ctx.chain_id:
        report.differ(f"record: it names the pot {record.get('pot')} on chain {record.get('chainId')}, not {ctx.pot}")
    opened = ctx.replay.opened
    if opened is not None and (record.get("termsDigest"), record.get("termsSha256")) != (
        opened.args["digest"],
        ctx.terms.terms_hash,
    ):
        report.differ("record: the terms you saw (digest and hash) are not the terms the pot opened")
    if point is None or not is_salt(salt) or (record.get("latE6"), record.get("lonE6")) != point:
        report.differ(f"record: its guess {record.get('coordinates')!r} and salt are not a well-formed guess")
        return
    mine = [
        s
        for s in ctx.replay.stakes.values()
        if s.payer == payer
        and s.commitment == record.get("commitment")
        and stake_commitment(ctx, s, point, str(salt)) == s.commitment
    ]
    if not mine:
        report.differ(f"record: no stake of {payer} in the pot is opened by your guess {text_from_micro(*point)}")
        return
    for stake in mine:
        check_record_stake(ctx, report, stake, point)


def check_record_stake(ctx: Context, report: Report, stake: Stake, point: tuple[int, int]) -> None:
    r = ctx.replay
    report.line(f"record: your stake {stake.seq} of {usdc(stake.amount)} USDC is in the pot, and your guess opens it")
    ctx.recorded[stake.seq] = point
    verdict = ctx.verdict(point)
    if verdict is None:
        report.line("record: the solution is not revealed yet")
        return
    won = beats(r.best, seq=stake.seq, amount=stake.amount) if verdict and stake.seq not in r.reveals else []
    if won and ctx.window_over:
        held = "the site held it" if stake.seq in ctx.shown else "the site did not have it"
        report.differ(
            f"record: your correct guess was never revealed on chain and would have won the {' and '.join(won)} "
            f"prize ({held})",
            stake.seq,
        )
    elif won:
        deadline = r.solution.args["guess_deadline"] if r.solution else None
        report.line(f"record: your correct guess would win the {' and '.join(won)} prize: reveal it before {deadline}")
    report.line(f"record: your guess is {_verdict(verdict)}; {record_money(ctx, stake)}")


def record_money(ctx: Context, stake: Stake) -> str:
    r = ctx.replay
    refund = r.refunds.get(stake.seq)
    if refund is not None:
        return f"refunded {usdc(refund.args['stake'] + refund.args['bond_share'])} USDC (transaction {refund.tx})"
    won = [k for k, seq in ((EARLIEST, r.best.earliest), (HIGHEST, r.best.highest)) if seq == stake.seq]
    if not won or r.finalized is None:
        return "nothing paid to it" + (" yet" if r.finalized is None else "")
    parts = []
    for kind in won:
        paid = r.paid.get(kind)
        parts.append(
            f"the {KIND_NAMES[kind]} prize, paid {usdc(paid.args['amount'])} USDC (transaction {paid.tx})"
            if paid
            else f"the {KIND_NAMES[kind]} prize of {usdc(split(r.pot)[0])} USDC, due"
        )
    return "it won " + " and ".join(parts)


# --- The whole run -------------------------------------------------------------------------------


def choose_pot(pot: str | None, chain_id: int, config: dict) -> tuple[str, int]:
    """The pot to check and the block to read from: --pot, else the pin of the chain; the site's
    deploy block only when it names that very pot (a later one would hide the Opened event, which is
    then a difference, and the pot's own stateOf counts every stake)."""
    pinned = PINNED_POTS.get(chain_id)
    if pot is None and pinned is None:
        raise Unavailable(f"no pot is pinned for chain {chain_id} in this script: name it with --pot ADDRESS")
    address = (pot or pinned[0]).lower()  # type: ignore[index]
    if not _ADDRESS.match(address):
        raise Unavailable(f"{address} is not an address")
    if pinned is not None and pinned[0].lower() == address:
        return address, pinned[1]
    site_block = config.get("potDeployBlock")
    same = str(config.get("potAddress") or "").lower() == address
    return address, site_block if same and isinstance(site_block, int) and site_block >= 0 else 0


def read_all(site: Site, rpc: Rpc, *, challenge_id: int, pot: str | None, log_range: int, progress) -> Context:
    config = site.public_config()
    chain_id = _quantity(rpc.call("eth_chainId"))
    if config.get("chainId") != chain_id:
        raise Unavailable(f"the RPC node is on chain {chain_id}, the site on chain {config.get('chainId')}")
    address, from_block = choose_pot(pot, chain_id, config)
    # The site and the node answer at the same time: the site's pages while the node's logs come.
    with ThreadPoolExecutor(max_workers=1) as pool:
        stakes = pool.submit(site.stakes, challenge_id, progress)
        challenge = site.challenge(challenge_id)
        winners = site.winners(challenge_id)
        chain = read_chain(
            rpc, pot=address, challenge_id=challenge_id, from_block=from_block, log_range=log_range, progress=progress
        )
        rows = stakes.result()
    return Context(
        challenge_id=challenge_id,
        chain_id=chain_id,
        pot=address,
        decimals=int(config.get("tokenDecimals", 6)),
        config=config,
        challenge=challenge,
        winners=winners,
        rows=rows,
        chain=chain,
        replay=replay(chain.events, chain_id=chain_id, pot=address, challenge_id=challenge_id),
    )


def verify(ctx: Context, record: dict | None = None) -> Report:
    """The checks of docs/protocol.md section 5, in its order."""
    report = Report(stakes=len(ctx.replay.stakes))
    check_pot(ctx, report)
    if ctx.replay.opened is None:
        report.differ(f"challenge {ctx.challenge_id} was never opened in the pot {ctx.pot}: it holds no terms for it")
        return report
    check_terms(ctx, report)
    check_stakes(ctx, report)
    check_winners(ctx, report)
    check_published(ctx, report)
    check_payments(ctx, report)
    if record is not None:
        check_record(ctx, record, report)
    return report


def stake_lines(ctx: Context) -> list[str]:
    """One line per stake: who, how much, the guess (revealed on chain, else as published), the
    verdict and what it got."""
    r = ctx.replay
    lines = [f"{'stake':>7}  {'payer':<12}  {'USDC':>14}  {'guess':<24}  outcome"]
    for seq, stake in sorted(r.stakes.items()):
        revealed = r.reveals.get(seq)
        point = (revealed.args["lat"], revealed.args["lon"]) if revealed else ctx.shown.get(seq, ctx.recorded.get(seq))
        verdict = ctx.verdict(point) if point else None
        outcome = (
            "not scored" if verdict is None else _verdict(verdict) + (", revealed" if revealed else ", not revealed")
        )
        if r.finalized is not None or seq in r.refunds:
            outcome += "; " + record_money(ctx, stake).replace("it won", "won")
        guess = text_from_micro(*point) if point and in_range(*point) else (str(point) if point else "-")
        payer = stake.payer[:6] + ".." + stake.payer[-4:]
        lines.append(f"{seq:>7}  {payer:<12}  {usdc(stake.amount):>14}  {guess:<24}  {outcome}")
    return lines


def print_report(ctx: Context | None, report: Report, out=None) -> None:
    out = out or sys.stdout
    if ctx is not None:
        for line in stake_lines(ctx):
            print(line, file=out)
    for line in report.lines:
        print(line, file=out)
    for line in report.differences:
        print(line, file=out)
    total = report.stakes
    if report.ok:
        print(f"{total} of {total} outcomes reproduced", file=out)
    else:
        others = sum(1 for d in report.differences if d.startswith("DIFFERENCE:"))
        print(
            f"DIFFERENCES FOUND: {len(report.differing)} of {total} outcomes differ, and {others} other "
            f"difference{'s' if others != 1 else ''} ({total - len(report.differing)} of {total} outcomes reproduced)",
            file=out,
        )


def progress_printer(stream=None):
    """A progress line on stderr: rewritten in place on a terminal; into a file or a pipe, at most a
    line a second."""
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
    parser = argparse.ArgumentParser(description="Re-check a Geopoem challenge from the pot, and hold the site to it.")
    parser.add_argument("--site", required=True, help="the site's address, e.g. https://geopoem.example")
    parser.add_argument("--rpc", required=True, help="a JSON-RPC node of the site's chain, one you trust")
    parser.add_argument("--challenge", type=int, help="the challenge id (default: the record's, with --record)")
    parser.add_argument("--record", help="a record downloaded from the page: checks your own stake")
    parser.add_argument("--pot", help="the pot to check (default: the one pinned in this script for the chain)")
    parser.add_argument(
        "--log-range", type=int, default=LOG_RANGE, help=f"blocks per eth_getLogs (default {LOG_RANGE})"
    )
    parser.add_argument("--batch", type=int, default=BATCH, help=f"calls per JSON-RPC batch (default {BATCH})")
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
        ctx = read_all(
            Site(args.site, timeout=args.timeout),
            Rpc(args.rpc, timeout=args.timeout, batch=args.batch),
            challenge_id=challenge_id,
            pot=args.pot,
            log_range=args.log_range,
            progress=progress,
        )
    except Unavailable as exc:
        print(f"\ncould not verify: {exc}", file=sys.stderr)
        return 2
    if not args.quiet and sys.stderr.isatty():
        sys.stderr.write("\n")
    report = verify(ctx, record)
    print_report(ctx, report)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
