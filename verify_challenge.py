#!/usr/bin/env python3
"""Re-check every outcome of a resolved Geopoem challenge from public data alone.

    python verify_challenge.py --site https://geopoem.example --rpc https://rpc.example --challenge 7

One file, the Python standard library only (3.10 or newer): nothing of the project needs to be
installed, and nothing here has to be trusted beyond what it prints. It reads the challenge and
every response through the site's public API, reads each stake payment from the chain through any
JSON-RPC node you choose, and recomputes what the site published:

- the solution commitment, from the revealed solution and its salt;
- for each response: its payment on chain (a successful direct call of the USDC contract, value 0,
  from the response's address, deep enough in a block that is still canonical, mined while the
  challenge was open), the calldata (treasury, exact amount, the commitment of this guess's text
  and salt, this challenge), the USDC Transfer log that moved the money, and the chain position
  (block, transaction index, log index) the site ranks by;
- the distance to the solution, correctness against the threshold, the total staked, both winners
  and the 40/40/20 prize split to the token unit.

It prints one row per response, ends with "N of N outcomes reproduced" and exits 1 when anything
differs, naming the response. The rules are written in the site's docs/protocol.md.
Exit status: 0 every outcome reproduced, 1 a difference, 2 could not run (network, arguments)."""

from __future__ import annotations

import argparse
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
STAKE_CALLDATA_BYTES = 164
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
    raw = data[2:] if data.startswith("0x") else data
    if len(raw) != 2 * STAKE_CALLDATA_BYTES or raw[:8].lower() != TRANSFER_SELECTOR:
        return None
    try:
        words = [raw[8 + 64 * i : 8 + 64 * (i + 1)].lower() for i in range(5)]
        if words[0][:24].strip("0"):
            return None
        return StakeCalldata(
            recipient="0x" + words[0][24:],
            amount_units=int(words[1], 16),
            commitment=words[2],
            challenge_id=int(words[3], 16),
            timestamp=int(words[4], 16),
        )
    except ValueError:
        return None


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

    def responses(self, challenge_id: int, progress) -> list[dict]:
        """Every public response of the challenge, following the Link header page by page."""
        url: str | None = f"{self.url}/api/responses?challengeId={challenge_id}&limit={self.page_size}"
        rows: list[dict] = []
        while url:
            page, headers = get_json(url, timeout=self.timeout)
            rows.extend(page)  # type: ignore[arg-type]
            progress(f"read {len(rows)} responses from the site")
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


# --- The checks --------------------------------------------------------------------------------


def _int(value: object) -> int:
    return int(str(value), 16) if isinstance(value, str) else int(value)  # type: ignore[arg-type]


def _lower(value: object) -> str:
    return str(value or "").lower()


def check_offchain(outcome: Outcome, *, challenge: dict, chain_id: int) -> None:
    """The response's own data: canonical text, its commitment, distance and correctness."""
    row, problems = outcome.row, outcome.problems
    text = row.get("submissionText") or ""
    if canonical_coordinates(text) != text:
        problems.append(f"guess {text!r} is not canonical coordinates")
        return
    solution = challenge["solutionReveal"]
    outcome.distance = distance_between(text, solution)
    published = row.get("distanceMeters")
    if published is None or abs(published - outcome.distance) > DISTANCE_TOLERANCE_M:
        problems.append(f"distance is {outcome.distance:.3f} m, the site shows {published}")
    threshold = challenge.get("proximityThreshold") or 0
    outcome.correct = outcome.distance <= threshold
    if row.get("isCorrect") is not outcome.correct:
        if abs(outcome.distance - threshold) <= DISTANCE_TOLERANCE_M:
            outcome.correct = bool(row.get("isCorrect"))  # a floating-point tie: the site's verdict stands
        else:
            problems.append(f"correct is {outcome.correct}, the site shows {row.get('isCorrect')}")
    if not row.get("submissionSalt"):
        problems.append("the site gives no salt")


def check_onchain(
    outcome: Outcome,
    *,
    tx: dict | None,
    receipt: dict | None,
    block: dict | None,
    head: int,
    confirmations: int,
    config: dict,
    challenge: dict,
    chain_id: int,
) -> None:
    """The payment against the rules the site claims to have applied (docs/protocol.md section 2)."""
    row, problems = outcome.row, outcome.problems
    if tx is None or receipt is None:
        problems.append("the transaction is not on this chain")
        return
    if _int(receipt.get("status", "0x0")) != 1:
        problems.append("the transaction failed (status 0)")
    usdc, treasury, sender = _lower(config["usdcAddress"]), _lower(config["treasuryAddress"]), _lower(tx.get("from"))
    block_number = _int(receipt["blockNumber"])
    if block is None or _lower(block.get("hash")) != _lower(receipt.get("blockHash")):
        problems.append(f"block {block_number} of the receipt is not on the canonical chain")
    if head - block_number + 1 < confirmations:
        problems.append(f"only {head - block_number + 1} confirmations, fewer than {confirmations}")
    if (row.get("blockNumber"), row.get("transactionIndex")) != (block_number, _int(receipt["transactionIndex"])):
        problems.append(
            f"chain position is block {block_number} index {_int(receipt['transactionIndex'])}, "
            f"the site shows block {row.get('blockNumber')} index {row.get('transactionIndex')}"
        )
    if _lower(tx.get("to")) != usdc:
        problems.append(f"paid to contract {tx.get('to')}, not the USDC contract {config['usdcAddress']}")
    if _int(tx.get("value", "0x0")) != 0:
        problems.append("the transaction sent ether as well")
    if sender != _lower(row["submitterAddress"]):
        problems.append(f"sent from {tx.get('from')}, the site shows {row['submitterAddress']}")
    decimals = int(config.get("tokenDecimals", 6))
    stake_units = to_units(row["submissionStake"], decimals)
    calldata = decode_stake_calldata(str(tx.get("input") or tx.get("data") or ""))
    if calldata is None:
        problems.append("the calldata is not a 164-byte Geopoem stake transfer")
    else:
        if calldata.recipient != treasury:
            problems.append(f"the calldata pays {calldata.recipient}, not the treasury")
        if calldata.amount_units != stake_units:
            problems.append(
                f"the calldata pays {from_units(calldata.amount_units, decimals)} USDC, "
                f"the site shows a stake of {row['submissionStake']}"
            )
        expected = guess_commitment(
            chain_id=chain_id,
            challenge_id=challenge["id"],
            submitter_address=row["submitterAddress"],
            text=row.get("submissionText") or "",
            salt=row.get("submissionSalt") or "",
        )
        if calldata.commitment != expected:
            problems.append("the calldata's commitment is not the commitment of this guess, address and salt")
        if calldata.challenge_id != challenge["id"]:
            problems.append(f"the calldata names challenge {calldata.challenge_id}")
    # The money: the first Transfer(sender, treasury, stake) the USDC contract emitted in the receipt.
    log = next(
        (
            entry
            for entry in receipt.get("logs") or []
            if _lower(entry.get("address")) == usdc
            and not entry.get("removed")
            and len(entry.get("topics") or []) == 3
            and _lower(entry["topics"][0]) == TRANSFER_TOPIC
            and "0x" + _lower(entry["topics"][1])[-40:] == sender
            and "0x" + _lower(entry["topics"][2])[-40:] == treasury
            and _int(entry.get("data") or "0x0") == stake_units
        ),
        None,
    )
    tx_index = _int(receipt["transactionIndex"])
    outcome.chain_position = (block_number, tx_index, _int(log["logIndex"]) if log else row.get("logIndex") or 0)
    if log is None:
        problems.append(f"no USDC Transfer of {row['submissionStake']} from the sender to the treasury")
    elif _int(log["logIndex"]) != row.get("logIndex"):
        problems.append(f"the Transfer is log {_int(log['logIndex'])}, the site shows log {row.get('logIndex')}")
    if block is not None:
        mined = _int(block["timestamp"])
        if row.get("submissionTimestamp") != mined:
            problems.append(f"mined at {mined}, the site shows {row.get('submissionTimestamp')}")
        start, closed = challenge.get("startTimestamp"), challenge.get("closedTimestamp")
        if start is None or mined < start or (closed is not None and mined > closed):
            problems.append(f"mined at {mined}, outside the open window {start} to {closed}")


@dataclass
class Report:
    outcomes: list[Outcome]
    differences: list[str]  # about the challenge as a whole (totals, winners, split)
    demo: bool

    @property
    def reproduced(self) -> int:
        return sum(1 for o in self.outcomes if not o.problems)

    @property
    def ok(self) -> bool:
        return self.reproduced == len(self.outcomes) and not self.differences


def verify(
    *,
    site: Site,
    rpc: Rpc | None,
    challenge_id: int,
    confirmations: int,
    usdc: str | None = None,
    treasury: str | None = None,
    progress=lambda message: None,
) -> Report:
    config = site.public_config()
    if usdc:
        config["usdcAddress"] = usdc
    if treasury:
        config["treasuryAddress"] = treasury
    decimals = int(config.get("tokenDecimals", 6))
    challenge = site.challenge(challenge_id)
    if challenge is None:
        raise Unavailable(f"challenge {challenge_id} is not among the site's resolved challenges")
    differences: list[str] = []
    if solution_commitment(
        challenge_id=challenge_id, text=challenge.get("solutionReveal") or "", salt=challenge.get("solutionSalt") or ""
    ) != _lower(challenge.get("solutionSha256")):
        differences.append("the revealed solution and salt do not hash to the published solution SHA-256")
    if canonical_coordinates(challenge.get("solutionReveal") or "") != challenge.get("solutionReveal"):
        raise Unavailable(f"the revealed solution {challenge.get('solutionReveal')!r} is not canonical coordinates")

    rows = site.responses(challenge_id, progress)
    outcomes = [Outcome(row) for row in rows]
    # A demonstration challenge's seeded claims carry made-up hashes no chain holds: those are checked
    # off chain only. Any claim the chain does hold is checked in full, demo or not.
    demo = bool(challenge.get("isDemo"))
    chain_id = int(config["chainId"])
    if rpc is None and not demo:
        raise Unavailable("--rpc is needed: this challenge's payments are on a chain")
    if rpc is not None:
        node_chain = _int(rpc.call("eth_chainId"))
        if node_chain != chain_id:
            raise Unavailable(f"the RPC node is on chain {node_chain}, the site on chain {chain_id}")
    for outcome in outcomes:
        check_offchain(outcome, challenge=challenge, chain_id=chain_id)
    if rpc is None:
        for outcome in outcomes:
            outcome.unpaid_demo = True
    elif outcomes:
        head = _int(rpc.call("eth_blockNumber"))
        calls: list[tuple[str, list]] = []
        for o in outcomes:
            calls.append(("eth_getTransactionByHash", [o.row["transactionHash"]]))
            calls.append(("eth_getTransactionReceipt", [o.row["transactionHash"]]))
        answers = rpc.many(calls, progress)
        receipts = [answers[2 * i + 1] for i in range(len(outcomes))]
        numbers = sorted({_int(r["blockNumber"]) for r in receipts if isinstance(r, dict)})
        found = rpc.many([("eth_getBlockByNumber", [hex(n), False]) for n in numbers], progress)
        blocks = dict(zip(numbers, found, strict=True))
        for i, outcome in enumerate(outcomes):
            receipt = receipts[i]
            if demo and answers[2 * i] is None and receipt is None:
                outcome.unpaid_demo = True
                continue
            check_onchain(
                outcome,
                tx=answers[2 * i],  # type: ignore[arg-type]
                receipt=receipt,  # type: ignore[arg-type]
                block=blocks.get(_int(receipt["blockNumber"])) if isinstance(receipt, dict) else None,  # type: ignore[arg-type]
                head=head,
                confirmations=confirmations,
                config=config,
                challenge=challenge,
                chain_id=chain_id,
            )
    seen: dict[str, Outcome] = {}
    for outcome in outcomes:
        key = outcome.row["transactionHash"].lower()
        if key in seen:
            outcome.problems.append(f"its transaction also backs response {seen[key].id}")
        seen.setdefault(key, outcome)

    # The challenge as a whole: totals, winners, split.
    total = sum(to_units(o.row["submissionStake"], decimals) for o in outcomes)
    if total != to_units(challenge["stakedSum"], decimals) or len(outcomes) != challenge["responseCount"]:
        differences.append(
            f"{len(outcomes)} responses stake {from_units(total, decimals)} USDC; the site shows "
            f"{challenge['responseCount']} staking {challenge['stakedSum']}"
        )
    winners = site.winners(challenge_id)
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
    operations = split.operations if earliest else 0
    unallocated = total - operations - (split.earliest if earliest else 0) - (split.highest if highest else 0)
    for label, expected_units in (("operations", operations), ("unallocated", unallocated)):
        if to_units(str(winners.get(label)), decimals) != expected_units:
            differences.append(
                f"{label} is {from_units(expected_units, decimals)} USDC, the site shows {winners.get(label)}"
            )
    return Report(outcomes, differences, demo)


def _describe(outcome: Outcome | None) -> str:
    return outcome.name if outcome else "none"


# --- Output ------------------------------------------------------------------------------------


def print_report(report: Report, out=sys.stdout) -> None:
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
    print(f"{report.reproduced} of {len(report.outcomes)} outcomes reproduced", file=out)


def progress_printer(stream=sys.stderr):
    """A progress line on stderr: rewritten in place on a terminal; into a file or a pipe, at most a
    line a second (a long run is still visibly alive, its log stays short)."""
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
    parser.add_argument("--challenge", required=True, type=int, help="the challenge id")
    parser.add_argument("--confirmations", type=int, default=2, help="blocks a payment must be deep (default 2)")
    parser.add_argument("--usdc", help="the USDC contract to hold the site to (default: the site's own setting)")
    parser.add_argument("--treasury", help="the treasury address to hold the site to (default: the site's)")
    parser.add_argument("--batch", type=int, default=100, help="RPC calls per JSON-RPC batch (default 100)")
    parser.add_argument("--page-size", type=int, default=PAGE_SIZE, help="responses per API page (1 to 1000)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per HTTP request (default 30)")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    args = parser.parse_args(argv)
    progress = (lambda message: None) if args.quiet else progress_printer()
    try:
        report = verify(
            site=Site(args.site, timeout=args.timeout, page_size=args.page_size),
            rpc=Rpc(args.rpc, timeout=args.timeout, batch=args.batch) if args.rpc else None,
            challenge_id=args.challenge,
            confirmations=args.confirmations,
            usdc=args.usdc,
            treasury=args.treasury,
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
