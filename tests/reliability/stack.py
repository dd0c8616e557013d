"""A whole deploy on loopback whose parts a test may stop and start again: a private PostgreSQL
cluster (initdb in a temp dir), a private redis-server, an anvil node that keeps its chain across
a restart (--dump-state / --load-state), gunicorn with the production settings, Celery worker and
beat processes. Each part has its own free port and is stopped by its own PID, also when a test
fails; nothing here touches the machine's shared PostgreSQL or Redis.

The test process reads the private database with plain SQL (psycopg, a fresh connection per read,
so a restarted server is simply reconnected to) and talks to the server over HTTP like a browser."""

from __future__ import annotations

import json
import secrets
import subprocess
import time
from contextlib import ExitStack
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import psycopg
import requests
from celery import Celery
from eth_account import Account
from web3 import HTTPProvider, Web3

from chain.calldata import encode_stake_transfer
from chain.contracts import deploy, mint
from challenges.commitments import guess_commitment_v1, new_salt
from devtools import processes
from devtools.workers import anvil_chain_settings

from . import procs

ANVIL_CHAIN_ID = processes.ANVIL_CHAIN_ID
# The registry's owner on the stack's chain: made up for these tests, given ETH only.
OPERATOR_KEY = "0x" + "5e" * 32


class Anvil:
    """anvil on a fixed port whose chain survives stop/start: SIGTERM dumps the state to a file,
    the next start loads it (same blocks, same hashes)."""

    def __init__(self, workdir: Path) -> None:
        self.port = processes.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.state = workdir / f"anvil-{self.port}.json"
        self.log = workdir / f"anvil-{self.port}.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        args = ["--dump-state", str(self.state)]
        if self.state.exists():
            args += ["--load-state", str(self.state)]
        self.process = processes.start_anvil(self.port, *args, chain_id=ANVIL_CHAIN_ID, log=self.log)

    def stop(self) -> None:
        if self.process is not None:
            processes.stop(self.process, timeout=20)  # SIGTERM: anvil writes its state on the way out
            self.process = None

    @property
    def up(self) -> bool:
        return self.process is not None and self.process.poll() is None


class Redis:
    """A private redis-server on a fixed port, stopped and started again by its PID (empty on
    restart, as a broker that lost its messages would be)."""

    def __init__(self, workdir: Path) -> None:
        self.port = processes.free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.workdir = workdir
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        log = self.workdir / f"redis-{self.port}.log"
        self.process = processes.start_redis(self.port, workdir=self.workdir, log=log, timeout=30)

    def stop(self) -> None:
        if self.process is not None:
            processes.stop(self.process)
            self.process = None


@dataclass
class Claim:
    tx_hash: str
    body: dict
    stake: Decimal


class Stack:
    """The parts, started by `up()` inside an ExitStack that stops every one of them."""

    def __init__(self, workdir: Path, collected: dict, exits: ExitStack) -> None:
        self.workdir = workdir
        self.exits = exits
        self.collected = collected
        self.pg = procs.PrivatePostgres()
        self.redis = Redis(workdir)
        self.anvil = Anvil(workdir)
        self.url = ""
        self.env: dict = {}
        self.workers: dict[str, subprocess.Popen] = {}
        self.logs: list[Path] = []
        self.challenge_id = 0
        self.timings: list[str] = []

    # --- Start and stop ----------------------------------------------------------------------

    def up(self, **settings: str) -> None:
        t0 = time.monotonic()

        def mark(what: str) -> None:
            self.timings.append(f"{what} {time.monotonic() - t0:.1f}s")

        self.exits.callback(self.pg.cleanup)
        self.pg.init()
        self.exits.callback(self.pg.stop)
        self.pg.start()
        self.exits.callback(self.redis.stop)
        self.redis.start()
        self.exits.callback(self.anvil.stop)
        mark("pg+redis")
        self.anvil.start()
        self._deploy()
        mark("anvil")
        psycopg.connect(self.pg.url(), autocommit=True).execute("CREATE DATABASE geopoem").close()
        self.env = procs.production_env(
            database=self.pg.url("geopoem"),
            redis_url=self.redis.url,
            static_root=Path(self.collected["STATIC_ROOT"]),
            **anvil_chain_settings(
                rpc_url=self.anvil.url,
                usdc=self.usdc,
                treasury=self.treasury,
                rpc_timeout_seconds="2",
                registry=self.registry,
                operator_key=OPERATOR_KEY,
            ),
            # Retries within a second or so.
            CHAIN_VERIFY_RETRY_BASE_SECONDS="0.2",
            CHAIN_VERIFY_RETRY_MAX_SECONDS="1",
            THROTTLE_RESPONSE_CREATE="10000/min",
            LOG_LEVEL="INFO",
            **settings,
        )
        for key in ("DJANGO_SETTINGS_MODULE", "RELIABILITY_WEBPACK_STATS", "RELIABILITY_BUNDLE_DIR"):
            self.env[key] = self.collected[key]
        self.manage("migrate", "--noinput", "-v0")
        mark("migrate")
        self.challenge_id = int(
            self.manage(
                "shell",
                "-c",
                "from challenges.services import challenge_create, challenge_publish\n"
                "c = challenge_publish(challenge=challenge_create(poem_title='Faults', poem_text='<p>A poem</p>', "
                "instructions_text='<p>Guess</p>', proximity_threshold_m=150, solution='29.979175, 31.134258'))\n"
                "print(c.pk)",
            ).split()[-1]
        )
        self._anchor()
        log = self.workdir / "gunicorn.log"
        self.logs.append(log)
        mark("challenge anchored")
        self.url = self.exits.enter_context(procs.gunicorn(self.env, workers=2, log=log))
        mark("gunicorn")

    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [processes.PYTHON, "manage.py", *args], env=self.env, cwd=processes.ROOT, capture_output=True, text=True,
            timeout=180, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def _deploy(self) -> None:
        self.w3 = Web3(HTTPProvider(self.anvil.url, request_kwargs={"timeout": 10}))
        accounts = self.w3.eth.accounts
        deployer, self.treasury, self.player = accounts[0], accounts[1], accounts[2]
        self.usdc = deploy(self.w3, "TestUSDC", sender=deployer)
        mint(self.w3, self.usdc, self.player, 1_000_000 * 10**6, sender=deployer)
        # The terms registry, owned by an operator key that holds ETH only.
        operator = Account.from_key(OPERATOR_KEY).address
        self.w3.provider.make_request("anvil_setBalance", [operator, hex(10 * 10**18)])
        self.registry = deploy(self.w3, "TermsRegistry", operator, sender=deployer)

    def _anchor(self) -> None:
        """The published challenge's terms anchored on this chain by the worker's own step
        (chain/anchors.py), run once here before any worker of a test starts: the challenge accepts
        claims only once its anchor is confirmed (docs/protocol.md section 6). anvil mines on each
        transaction, so a block is mined to give the anchor its second confirmation."""
        out = self.manage(
            "shell",
            "-c",
            "from chain.anchors import AnchorPending, anchor_advance\n"
            "from chain.client import get_client\n"
            "for _ in range(10):\n"
            "    try:\n"
            f"        print(anchor_advance(challenge_id={self.challenge_id})); break\n"
            "    except AnchorPending:\n"
            "        get_client().w3.provider.make_request('anvil_mine', ['0x1'])\n",
        )
        assert out.split()[-1] == "confirmed", out

    def worker(self, name: str, **env: str) -> subprocess.Popen:
        """A Celery worker as the Procfile runs it (production settings, acks_late, prefetch 1), solo
        pool, with `env` over the stack's environment; returned once it answers a ping."""
        node = f"{name}@127.0.0.1"
        log = self.workdir / f"worker-{name}.log"
        self.logs.append(log)
        cmd = processes.celery("worker", *processes.SOLO_WORKER, *processes.WORKER_QUEUES, "-n", node, "-l", "INFO")
        process = self.exits.enter_context(processes.running(cmd, env={**self.env, **env}, log=log))
        self.workers[name] = process
        control = Celery(broker=self.redis.url, set_as_current=False).control
        return processes.wait_for_worker(control, node, process, timeout=60, logs=self.tail)

    def beat(self) -> subprocess.Popen:
        log = self.workdir / "beat.log"
        self.logs.append(log)
        cmd = processes.celery("beat", "-s", str(self.workdir / "beat-schedule"), "--pidfile=", "-l", "INFO",
                               "--max-interval=1")  # fmt: skip
        return self.exits.enter_context(processes.running(cmd, env=self.env, log=log))

    def tail(self, chars: int = 3000) -> str:
        return processes.tail(self.logs, chars)

    # --- The chain and the API, as a player's browser and wallet use them --------------------

    def pay(self, stake: str = "2.5", *, challenge_id: int | None = None, wait: bool = True) -> Claim:
        """Send the stake transfer a player's wallet sends for a guess (anvil mines it at once: one
        confirmation of the two required) and return the claim that goes with it."""
        challenge_id = challenge_id or self.challenge_id
        text = "29.979175, 31.134258"
        salt = new_salt()
        commitment = guess_commitment_v1(
            chain_id=ANVIL_CHAIN_ID, challenge_id=challenge_id, submitter_address=self.player, text=text, salt=salt
        )
        data = encode_stake_transfer(
            treasury=self.treasury,
            amount_units=int(Decimal(stake) * 10**6),
            commitment=commitment,
            challenge_id=challenge_id,
            timestamp=int(time.time()),
        )
        tx_hash = self.w3.eth.send_transaction(
            {"from": self.player, "to": self.usdc, "data": data, "value": 0, "gas": 200_000}
        )
        if wait:
            assert self.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)["status"] == 1
        tx = "0x" + bytes(tx_hash).hex()
        body = {
            "challengeId": challenge_id,
            "submissionText": text,
            "submissionStake": stake,
            "transactionHash": tx,
            "submitterAddress": self.player,
            "submissionSalt": salt,
        }
        return Claim(tx, body, Decimal(stake))

    def pay_in_one_block(self, *stakes: str) -> list[Claim]:
        """Several payments mined together in one new block (automine off meanwhile), so that all of
        them are exactly one confirmation deep: pending until the next block."""
        self.w3.provider.make_request("evm_setAutomine", [False])
        try:
            claims = [self.pay(stake, wait=False) for stake in stakes]
            self.mine(1)
        finally:
            self.w3.provider.make_request("evm_setAutomine", [True])
        for claim in claims:
            assert self.w3.eth.wait_for_transaction_receipt(claim.tx_hash, timeout=30)["status"] == 1
        return claims

    def mine(self, blocks: int = 1) -> None:
        self.w3.provider.make_request("anvil_mine", [hex(blocks)])

    def post(self, claim: Claim) -> requests.Response:
        https = {"X-Forwarded-Proto": "https"}
        page = requests.get(self.url + "/", headers=https, timeout=30)
        assert page.status_code == 200, page.status_code
        token = page.headers["Set-Cookie"].split("csrftoken=")[1].split(";")[0]
        headers = {
            **https,
            "Cookie": f"csrftoken={token}",
            "X-CSRFToken": token,
            "Referer": self.url.replace("http://", "https://") + "/",
            "Content-Type": "application/json",
        }
        return requests.post(self.url + "/api/responses", data=json.dumps(claim.body), headers=headers, timeout=30)

    def send_verify(self, response_id: int) -> None:
        """What the POST's on-commit hook sends: one verify_response message on the broker."""
        Celery(broker=self.redis.url, set_as_current=False).send_task("chain.verify_response", args=[response_id])

    # --- The private database, read with plain SQL --------------------------------------------

    def sql(self, query: str, *params) -> list[tuple]:
        with psycopg.connect(self.pg.url("geopoem"), autocommit=True, connect_timeout=5) as conn:
            return conn.execute(query, params).fetchall()

    def statuses(self, claims: list[Claim]) -> dict[str, str]:
        rows = self.sql(
            "SELECT transaction_hash, status FROM responses_response WHERE transaction_hash = ANY(%s)",
            [c.tx_hash for c in claims],
        )
        return dict(rows)

    def pot(self) -> tuple[Decimal, int]:
        query = "SELECT staked_sum, response_count FROM challenges_challenge WHERE id = %s"
        (row,) = self.sql(query, self.challenge_id)
        return row

    def payments(self, claims: list[Claim]) -> int:
        (row,) = self.sql(
            "SELECT count(*) FROM chain_payment WHERE transaction_hash = ANY(%s)", [c.tx_hash for c in claims]
        )
        return row[0]

    def wait_decided(self, claims: list[Claim], *, within: float = 45.0) -> dict[str, str]:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            states = self.statuses(claims)
            if len(states) == len(claims) and "pending" not in states.values():
                return states
            time.sleep(0.2)
        raise AssertionError(f"still pending after {within} s: {self.statuses(claims)}\n{self.tail()}")


def unique_hex() -> str:
    return "0x" + secrets.token_hex(32)
