"""A whole deploy on loopback whose parts a test may stop and start again: a private PostgreSQL
cluster (initdb in a temp dir), a private redis-server, an anvil node that keeps its chain across
a restart (--dump-state / --load-state) with the test USDC behind its proxy and the pot
(scripts/devchain.py's deploy, the local chain's pinned pot), gunicorn with the production settings,
Celery worker and beat processes (the follower, the relayer and its watcher). Each part has its own
free port and is stopped by its own PID, also when a test fails; nothing here touches the machine's
shared PostgreSQL or Redis.

The test process reads the private database with plain SQL (psycopg, a fresh connection per read,
so a restarted server is simply reconnected to) and talks to the server over HTTP like a browser;
its players sign their stakes with keys of their own, as the page's wallet does."""

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

from chain.pot.encoding import stake_nonce
from chain.token.authorization import ReceiveAuthorization, TokenDomain
from devtools import processes
from scripts import devchain

from . import procs

ANVIL_CHAIN_ID = processes.ANVIL_CHAIN_ID
# The stack's players: keys made up for these tests, minted USDC (never ETH: the relayer pays).
PLAYER_KEYS = ["0x" + bytes([0x31 + n]).hex() * 32 for n in range(4)]


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
class Signed:
    """A signed stake as the page posts it (docs/protocol.md 3.1), named by its commitment."""

    commitment: str
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
        chain = devchain.chain_env(self.info, self.anvil.url)
        self.env = procs.production_env(
            database=self.pg.url("geopoem"),
            redis_url=self.redis.url,
            static_root=Path(self.collected["STATIC_ROOT"]),
            **{
                name: chain[name]
                for name in (
                    "CHAIN_ID",
                    "CHAIN_RPC_URLS",
                    "USDC_ADDRESS",
                    "POT_ADDRESS",
                    "POT_DEPLOY_BLOCK",
                    "POT_OPERATOR_KEY",
                    "RELAYER_KEY",
                )
            },  # fmt: skip
            CHAIN_CONFIRMATIONS="2",
            CHAIN_RPC_TIMEOUT_SECONDS="2",
            # A call left queued (its message lost with a broker) is queued again after 2 s.
            RELAY_SWEEP_STALE_SECONDS="2",
            RELAY_WATCH_INTERVAL_SECONDS="1",
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
                "from challenges.services import challenge_create_published\n"
                "c = challenge_create_published(poem_title='Faults', poem_text='<p>A poem</p>', "
                "instructions_text='<p>Guess</p>', proximity_threshold_m=150, solution='29.979175, 31.134258')\n"
                "print(c.pk)",
            ).split()[-1]
        )
        self._open()
        log = self.workdir / "gunicorn.log"
        self.logs.append(log)
        mark("challenge opened")
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
        """The local chain's deploy (scripts/devchain.py): the proxied test USDC, the pot through the
        CREATE2 factory, ETH for the operator and the relayer, USDC for the stack's players."""
        self.w3 = Web3(HTTPProvider(self.anvil.url, request_kwargs={"timeout": 10}))
        self.players = [Account.from_key(key) for key in PLAYER_KEYS]
        self.info = devchain.setup_chain(self.anvil.url, mint_to=[p.address for p in self.players])
        self.usdc, self.pot = self.info["usdcAddress"], self.info["potAddress"]

    def _open(self) -> None:
        """The published challenge's `open` sent by the worker's own step (chain/pot/opening.py) and
        confirmed by the follower (chain/pot/follow.py), run once here before any worker of a test
        starts: players can stake only once it is confirmed. anvil mines on each transaction, so a
        block is mined for the open's second confirmation."""
        out = self.manage(
            "shell",
            "-c",
            "from chain.node.client import get_client\n"
            "from chain.pot.follow import pot_follow\n"
            "from chain.pot.opening import OpeningPending, opening_advance\n"
            "from challenges.models import PotOpening\n"
            "for _ in range(10):\n"
            "    try:\n"
            f"        opening_advance(challenge_id={self.challenge_id})\n"
            "    except OpeningPending:\n"
            "        pass\n"
            "    get_client().w3.provider.make_request('anvil_mine', ['0x1'])\n"
            "    pot_follow()\n"
            f"    status = PotOpening.objects.get(challenge_id={self.challenge_id}).status\n"
            "    if status == 'confirmed':\n"
            "        break\n"
            "print(status)",
        )
        assert out.split()[-1] == "confirmed", out
        (self.terms_digest,) = self.sql(
            "SELECT terms_digest FROM challenges_potstate WHERE challenge_id = %s", self.challenge_id
        )[0]

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

    def sign(self, stake: str = "2.5", *, player: int = 0) -> Signed:
        """A stake as the page signs it: the stake nonce over the challenge's terms digest with a
        commitment (random here: nothing in these tests reveals a guess), the player's
        ReceiveWithAuthorization to the pot, valid 30 minutes."""
        account = self.players[player]
        commitment = secrets.token_hex(32)
        amount = int(Decimal(stake).scaleb(6))
        nonce = stake_nonce(
            chain_id=ANVIL_CHAIN_ID, pot=self.pot, challenge_id=self.challenge_id, terms_digest=self.terms_digest,
            commitment=commitment, amount=amount,
        )  # fmt: skip
        valid_before = int(time.time()) + 1800
        domain = TokenDomain("Test USD Coin", "2", ANVIL_CHAIN_ID, self.usdc)
        digest = ReceiveAuthorization(account.address, self.pot, amount, 0, valid_before, nonce).digest(domain)
        signed = Account.unsafe_sign_hash(digest, account.key)
        signature = "0x" + signed.r.to_bytes(32, "big").hex() + signed.s.to_bytes(32, "big").hex() + f"{signed.v:02x}"
        body = {
            "challengeId": self.challenge_id,
            "submitterAddress": account.address,
            "submissionStake": stake,
            "commitment": commitment,
            "authorization": {"validAfter": 0, "validBefore": valid_before, "signature": signature},
        }
        return Signed(commitment, body, Decimal(stake))

    def mine(self, blocks: int = 1) -> None:
        self.w3.provider.make_request("anvil_mine", [hex(blocks)])

    def post(self, signed: Signed) -> requests.Response:
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
        return requests.post(self.url + "/api/responses", data=json.dumps(signed.body), headers=headers, timeout=30)

    def send_relay(self) -> None:
        """What the POST's on-commit hook sends: one relay_send message on the broker."""
        Celery(broker=self.redis.url, set_as_current=False).send_task("chain.relay_send", queue="relay")

    # --- The private database, read with plain SQL --------------------------------------------

    def sql(self, query: str, *params) -> list[tuple]:
        with psycopg.connect(self.pg.url("geopoem"), autocommit=True, connect_timeout=5) as conn:
            return conn.execute(query, params).fetchall()

    def relay_statuses(self, stakes: list[Signed]) -> dict[str, str]:
        """The relay status of each signed stake the site stored, by commitment."""
        rows = self.sql(
            "SELECT commitment, relay_status FROM responses_signedstake WHERE commitment = ANY(%s)",
            [s.commitment for s in stakes],
        )
        return dict(rows)

    def in_pot(self, stakes: list[Signed]) -> dict[str, int]:
        """How many Staked events of the pot the follower holds for each commitment (0: none)."""
        rows = self.sql(
            "SELECT commitment, count(*) FROM responses_stake WHERE commitment = ANY(%s) GROUP BY commitment",
            [s.commitment for s in stakes],
        )
        return {s.commitment: dict(rows).get(s.commitment, 0) for s in stakes}

    def pot_state(self) -> tuple[Decimal, int]:
        """The confirmed pot as the site shows it: staked units and stake count."""
        query = "SELECT staked_units, stake_count FROM challenges_potstate WHERE challenge_id = %s"
        (row,) = self.sql(query, self.challenge_id)
        return row

    def on_chain(self) -> tuple[int, int]:
        """The pot's own stateOf(challenge): stake count and pot, read from the node."""
        pot = self.w3.eth.contract(address=self.pot, abi=_POT_ABI)
        state = pot.functions.stateOf(self.challenge_id).call()
        return state[0], state[1]

    def wait_in_pot(self, stakes: list[Signed], *, within: float = 45.0) -> None:
        """Until the follower holds every stake in the pot, each once, confirmed (blocks are mined
        meanwhile: anvil mines only on a transaction)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            counts = self.in_pot(stakes)
            confirmed = self.sql(
                "SELECT count(*) FROM responses_stake s, challenges_chainclock c "
                "WHERE s.commitment = ANY(%s) AND s.block_number <= c.confirmed_block",
                [s.commitment for s in stakes],
            )[0][0]
            if all(n == 1 for n in counts.values()) and confirmed == len(stakes):
                return
            assert all(n <= 1 for n in counts.values()), counts
            self.mine(1)
            time.sleep(0.3)
        raise AssertionError(
            f"not all in the pot after {within} s: {self.in_pot(stakes)}, relay {self.relay_statuses(stakes)}\n"
            + self.tail()
        )


def _pot_abi() -> list:
    from chain.node.contracts import load_artifact

    return load_artifact("GeopoemPot")["abi"]


_POT_ABI = _pot_abi()


def unique_hex() -> str:
    return "0x" + secrets.token_hex(32)
