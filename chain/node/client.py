"""The web3 client built from settings.

Every call has a timeout (CHAIN_RPC_TIMEOUT_SECONDS) and fails over across CHAIN_RPC_URLS in
order: a node that times out, refuses the connection or answers with an RPC error is skipped for
this call and the next URL is asked. Only when every URL failed does the caller see
ChainUnavailable, which the tasks treat as "retry later", never as a verdict on a stake."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import certifi
import requests
import urllib3
from django.conf import settings
from eth_typing import HexStr
from hexbytes import HexBytes
from requests.adapters import HTTPAdapter
from web3 import HTTPProvider, Web3
from web3._utils.method_formatters import (
    BLOCK_RESULT_FORMATTERS,
    PYTHONIC_RESULT_FORMATTERS,
    receipt_formatter,
    to_integer_if_hex,
    transaction_result_formatter,
    type_aware_apply_formatters_to_dict,
)
from web3.exceptions import BlockNotFound, ProviderConnectionError, TransactionNotFound, Web3RPCError
from web3.types import FilterParams, RPCEndpoint

from .rpc import Block, BlockTag, Log, Receipt, Transaction

logger = logging.getLogger(__name__)

T = TypeVar("T")

# Failures of one node that say nothing about the chain itself: try the next URL.
_NODE_FAILURES: tuple[type[BaseException], ...] = (
    requests.RequestException,
    ProviderConnectionError,
    Web3RPCError,
    ConnectionError,
    TimeoutError,
    OSError,
    ValueError,  # a malformed answer from a broken node (web3 raises ValueError subclasses)
    urllib3.exceptions.HTTPError,  # the batches' own transport (_Transport)
)


class ChainUnavailable(Exception):
    """No configured RPC node answered this call."""


@dataclass(frozen=True)
class Reverted:
    """An eth_call the node executed and that reverted: an answer about the chain, not a failure of
    the node (batch(), `reverts_answer`). `data` is the revert's return data, 0x text ("0x" when
    the node gave none)."""

    message: str
    data: str


def _reverted(error: object) -> Reverted | None:
    """The revert an error object of a JSON-RPC answer reports, or None for any other error (a
    node's own failure: a rate limit, a missing block, an unknown method). Geth and anvil answer a
    revert with code 3 and its data, or code -32000 "execution reverted" when there is none."""
    if not isinstance(error, dict):
        return None
    message = str(error.get("message", ""))
    if error.get("code") != 3 and "revert" not in message.lower():
        return None
    data = error.get("data")
    return Reverted(message=message, data=data if isinstance(data, str) and data.startswith("0x") else "0x")


def _session_for(url: str) -> requests.Session:
    """The HTTP session of one node: the environment's proxy and CA-bundle settings for `url` are
    read once, here. requests otherwise scans os.environ twice on every call: with 39 variables a
    get_transaction took 0.80 ms of CPU against 0.64 ms with this session (300 calls against anvil,
    time.process_time), CPU a burst of stakes spends in the web process (docs/performance.md)."""
    session = requests.Session()
    session.trust_env = False
    session.proxies.update(requests.utils.get_environ_proxies(url))
    bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
    if bundle:
        session.verify = bundle
    return session


class _Transport:
    """JSON-RPC batches to one node, POSTed with urllib3 itself. Through web3's provider and requests
    one batch cost about 1.3 ms of CPU, of which urllib3's own work is about half: requests prepares
    and merges the request's settings on every call, web3 encodes and decodes it again. The POST of
    every signed stake waits on one batch (docs/performance.md section 2). What requests would do
    with the environment is done once, here, as _session_for does it: the proxy for `url` (NO_PROXY
    honoured, with its credentials), the CA bundle (REQUESTS_CA_BUNDLE or CURL_CA_BUNDLE, else
    requests' own, certifi's), and credentials in the node's URL. A connect or read taking longer
    than `timeout` fails the node."""

    def __init__(self, url: str, *, timeout: float) -> None:
        parsed = urllib3.util.parse_url(url)
        # As requests sends it: the path "/" at least, credentials in the URL as a Basic header.
        self.url = parsed._replace(auth=None, path=parsed.path or "/").url
        self._headers = {"Content-Type": "application/json"}
        if parsed.auth:
            user, password = requests.utils.get_auth_from_url(url)
            self._headers |= urllib3.make_headers(basic_auth=f"{user}:{password}")
        proxy = requests.utils.select_proxy(url, requests.utils.get_environ_proxies(url))
        bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or certifi.where()
        options: dict[str, Any] = {
            "retries": False,  # failover and the tasks' backoff are the retries, as for web3's calls
            "timeout": urllib3.Timeout(connect=timeout, read=timeout),
            "maxsize": 10,  # requests' own pool size per host
            "cert_reqs": "CERT_REQUIRED",
            "ca_certs": bundle,
        }
        self._pool: urllib3.PoolManager = (
            urllib3.ProxyManager(proxy, proxy_headers=HTTPAdapter().proxy_headers(proxy), **options)
            if proxy
            else urllib3.PoolManager(**options)
        )

    def batch(self, calls: Sequence[tuple[str, list[Any]]]) -> list[dict[str, Any]]:
        """Each call's answer object, in the calls' order. Raises a node failure (_NODE_FAILURES) for an
        HTTP error, an answer that is not JSON, or one that does not answer every call once."""
        payload = [
            {"jsonrpc": "2.0", "id": index, "method": method, "params": params}
            for index, (method, params) in enumerate(calls)
        ]
        answer = self._pool.request("POST", self.url, body=json.dumps(payload).encode(), headers=self._headers)
        if not 200 <= answer.status < 300:
            raise ValueError(f"HTTP {answer.status} from the node")
        replies = json.loads(answer.data)
        if not isinstance(replies, list):
            raise ValueError("batch: malformed answer")
        by_id = {reply.get("id"): reply for reply in replies if isinstance(reply, dict)}
        if len(replies) != len(calls) or set(by_id) != set(range(len(calls))):
            raise ValueError("batch: malformed answer")
        return [by_id[index] for index in range(len(calls))]


class ChainClient:
    def __init__(self, urls: Sequence[str], *, timeout: float) -> None:
        if not urls:
            raise ValueError("CHAIN_RPC_URLS is empty")
        if timeout <= 0:
            raise ValueError("an RPC call needs a positive timeout")
        self.urls = list(urls)
        self.timeout = timeout
        # web3's own retry loop is off: it would stretch one call beyond the timeout; failover and
        # the Celery task's backoff are the retries.
        self._nodes = [
            Web3(
                HTTPProvider(
                    url,
                    request_kwargs={"timeout": timeout},
                    session=_session_for(url),
                    exception_retry_configuration=None,
                )
            )
            for url in self.urls
        ]
        self._transports = [_Transport(url, timeout=timeout) for url in self.urls]
        # HTTP requests this client sent (each failover attempt and each batch counts once): the
        # head watcher reports it per block, and a test holds it bounded however many stakes wait.
        # A list, so that the one-node clients of on_one_node count into it too.
        self._requests = [0]

    @property
    def http_requests(self) -> int:
        return self._requests[0]

    def on_one_node(self, fn: Callable[[ChainClient], T]) -> T:
        """Run fn with a client of one node at a time, in failover order, until one node answered
        every call fn made. For a decision whose answers must all come from the same node: a head
        from one node and a missing block, receipt or log from another (one that lags, or that the
        client failed over to before it caught up) would read "not there yet" as "gone"
        (docs/decisions.md, "One node a round, never backwards"). What fn wrote before its node failed
        must be safe to write again: every write of the chain app is a conditional UPDATE, an upsert
        or a replacement of the rows the chain says."""
        if len(self._nodes) == 1:
            return fn(self)
        last: ChainUnavailable | None = None
        for index in range(len(self._nodes)):
            try:
                return fn(self._only(index))
            except ChainUnavailable as exc:
                last = exc
        raise ChainUnavailable(f"no RPC node answered all of it ({last})") from last

    def _only(self, index: int) -> ChainClient:
        node = object.__new__(ChainClient)
        node.urls = [self.urls[index]]
        node.timeout = self.timeout
        node._nodes = [self._nodes[index]]
        node._transports = [self._transports[index]]
        node._requests = self._requests
        return node

    @property
    def w3(self) -> Web3:
        """The first node, for helpers that only build data (ABI encoding, checksums)."""
        return self._nodes[0]

    def call(self, what: str, fn: Callable[[Web3], T]) -> T:
        """Run fn against each node in order until one answers."""
        return self._each_node(what, lambda index: fn(self._nodes[index]))

    def _each_node(self, what: str, fn: Callable[[int], T]) -> T:
        """fn(index) of each node in order until one answers."""
        last: BaseException | None = None
        for index, url in enumerate(self.urls):
            self._requests[0] += 1
            try:
                return fn(index)
            except (TransactionNotFound, BlockNotFound):
                raise  # an answer, not a failure: the node does not know it
            except _NODE_FAILURES as exc:
                last = exc
                logger.warning("RPC %s failed on %s: %s", what, url, exc)
        raise ChainUnavailable(f"{what}: no RPC node answered ({last})") from last

    # --- Reads used by verification and indexing ------------------------------------------

    def block_number(self) -> int:
        return self.call("eth_blockNumber", lambda w3: w3.eth.block_number)

    # web3 types its answers with its own TypedDicts (web3.types); chain/node/rpc.py names the keys this
    # app reads, so the answers are cast to those.

    def get_block(self, block: int | BlockTag) -> Block | None:
        """A block by number or tag ("latest", "finalized"), or None when the node has none."""

        def fetch(w3: Web3) -> Block | None:
            try:
                return cast(Block, w3.eth.get_block(block))
            except BlockNotFound:
                return None

        return self.call("eth_getBlockByNumber", fetch)

    def get_transaction(self, tx_hash: str) -> Transaction | None:
        def fetch(w3: Web3) -> Transaction | None:
            try:
                return cast(Transaction, w3.eth.get_transaction(HexStr(tx_hash)))
            except TransactionNotFound:
                return None

        return self.call("eth_getTransactionByHash", fetch)

    def get_receipt(self, tx_hash: str) -> Receipt | None:
        def fetch(w3: Web3) -> Receipt | None:
            try:
                return cast(Receipt, w3.eth.get_transaction_receipt(HexStr(tx_hash)))
            except TransactionNotFound:
                return None

        return self.call("eth_getTransactionReceipt", fetch)

    def get_logs(self, filter_params: FilterParams) -> list[Log]:
        return self.call("eth_getLogs", lambda w3: cast(list[Log], list(w3.eth.get_logs(filter_params))))

    def chain_id(self) -> int:
        return self.call("eth_chainId", lambda w3: w3.eth.chain_id)

    # --- Batches (the head watcher: one round of requests per block) ------------------------

    def receipts(self, tx_hashes: Sequence[str]) -> dict[str, Receipt | None]:
        """Each hash's receipt (None: the node does not know it), in JSON-RPC batches."""
        found = self.batch([("eth_getTransactionReceipt", [h], h) for h in tx_hashes])
        return {cast(str, key): cast("Receipt | None", value) for key, value in found.items()}

    def blocks_and_transactions(
        self, numbers: Sequence[int], tx_hashes: Sequence[str]
    ) -> tuple[dict[int, Block | None], dict[str, Transaction | None]]:
        """Blocks by number and transactions by hash, together in the same batches."""
        found = self.batch(
            [("eth_getBlockByNumber", [hex(n), False], ("block", n)) for n in numbers]
            + [("eth_getTransactionByHash", [h], ("tx", h)) for h in tx_hashes]
        )
        keys = cast(dict[tuple[str, Any], object], found)
        blocks = {key[1]: cast("Block | None", value) for key, value in keys.items() if key[0] == "block"}
        transactions = {key[1]: cast("Transaction | None", value) for key, value in keys.items() if key[0] == "tx"}
        return blocks, transactions

    def batch(
        self,
        calls: Sequence[tuple[str, list[Any], Hashable]],
        *,
        reverts_answer: Collection[Hashable] = (),
        raw: bool = False,
    ) -> dict[Hashable, object]:
        """Run (method, params, key) calls as JSON-RPC batch requests of at most
        CHAIN_RPC_BATCH_SIZE calls; returns each key's formatted result (None for a null one). A
        node that fails the request, or answers any call in it with an error, is skipped for that
        chunk (failover as in call()); except that the eth_calls named in `reverts_answer` may
        revert: their result is then a Reverted (a simulation, or a contract without the function).
        `raw`: each result as the node sent it (JSON), for methods web3 has no formatter here for.

        web3's own batch (w3.batch_requests) raises for the whole batch when one receipt is unknown
        (a null result), the common case here; so the raw batch goes through the provider and each
        result through web3's own result formatter for its method. The batches go by the client's own
        transport (_Transport), not web3's provider."""
        size = max(1, int(settings.CHAIN_RPC_BATCH_SIZE))
        found: dict[Hashable, object] = {}
        for start in range(0, len(calls), size):
            chunk = calls[start : start + size]

            def fetch(index: int, chunk: Sequence[tuple[str, list[Any], Hashable]] = chunk) -> list[object]:
                answers = self._transports[index].batch([(method, params) for method, params, _ in chunk])
                results: list[object] = []
                for (method, _, key), answer in zip(chunk, answers, strict=True):
                    if "error" in answer:
                        reverted = _reverted(answer["error"]) if key in reverts_answer else None
                        if reverted is None:
                            raise ValueError(f"batch {method}: {answer['error']}")
                        results.append(reverted)
                        continue
                    result = answer.get("result")
                    results.append(result if raw or result is None else _RESULT_FORMATTERS[method](result))
                return results

            results = self._each_node(f"batch of {len(chunk)}", fetch)
            found.update(zip([key for _, _, key in chunk], results, strict=True))
        return found


_RESULT_FORMATTERS: dict[str, Callable[[Any], Any]] = {
    "eth_blockNumber": to_integer_if_hex,
    "eth_call": HexBytes,
    "eth_getTransactionReceipt": receipt_formatter,
    "eth_getTransactionByHash": transaction_result_formatter,
    "eth_getBlockByNumber": type_aware_apply_formatters_to_dict(BLOCK_RESULT_FORMATTERS),
    # The pot's follower reads its events by eth_getLogs (chain/pot/follow.py).
    "eth_getLogs": PYTHONIC_RESULT_FORMATTERS[RPCEndpoint("eth_getLogs")],
}


def get_client() -> ChainClient:
    """A client from the current settings (cheap: no connection is opened until a call)."""
    return ChainClient(settings.CHAIN_RPC_URLS, timeout=settings.CHAIN_RPC_TIMEOUT_SECONDS)
