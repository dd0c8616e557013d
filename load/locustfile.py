"""The load mix: players reading the page and the API, and posting signed stakes.

Run by load/harness.py (never on its own against a shared server). Each simulated player opens the
page over HTTPS behind the proxy (X-Forwarded-Proto), keeps the CSRF cookie it sets and sends it
back in X-CSRFToken, like the real page, and signs its stakes with a key of its own as the page's
wallet does (docs/protocol.md section 2). Every answer's status is counted; a 5xx (or no answer at
all) is a failure. Stakes answered 201 are recorded by commitment, so the harness can check them
against the rows in the database: nothing lost, nothing doubled.

Environment: LOAD_CHALLENGE_ID (the open challenge), LOAD_RESULTS (where the JSON summary goes), and
what a stake is signed for: LOAD_CHAIN_ID, LOAD_POT, LOAD_USDC, LOAD_TERMS_DIGEST.
"""

import json
import os
import random
import secrets
from collections import Counter

from locust import FastHttpUser, between, events, task

from load.signing import CHALLENGE_ID, signed_stake

RESULTS = os.environ.get("LOAD_RESULTS", "load-results.json")

STATUSES: Counter = Counter()  # (method + route, status) -> count
CREATED: list[str] = []  # commitments answered 201
REPLAYED: list[str] = []  # identical re-posts answered 200 (a retry after a lost answer)


def _record(route: str, response) -> None:
    status = response.status_code or 0  # 0: no answer (connection refused, reset, timeout)
    STATUSES[f"{route} {status}"] += 1
    if status == 0 or status >= 500:
        response.failure(f"{status}")
    else:
        response.success()


class Player(FastHttpUser):
    wait_time = between(0.0, 0.05)
    network_timeout = 30.0
    connection_timeout = 10.0

    def on_start(self) -> None:
        self.token = ""
        with self.client.get("/", headers={"X-Forwarded-Proto": "https"}, catch_response=True, name="/") as r:
            _record("GET /", r)
            cookie = r.headers.get("Set-Cookie", "")
            if "csrftoken=" in cookie:
                self.token = cookie.split("csrftoken=")[1].split(";")[0]
        self.origin = self.host.replace("http://", "https://")
        self.key = secrets.token_bytes(32)
        self.last_stake: dict | None = None
        self.known: list[str] = []

    def _get(self, path: str, name: str) -> None:
        with self.client.get(path, headers={"X-Forwarded-Proto": "https"}, catch_response=True, name=name) as r:
            _record(f"GET {name}", r)

    @task(2)
    def page(self) -> None:
        self._get("/", "/")

    @task(6)
    def active_challenge(self) -> None:
        self._get("/api/challenges/active", "/api/challenges/active")

    @task(2)
    def resolved_challenges(self) -> None:
        self._get("/api/challenges/resolved", "/api/challenges/resolved")

    @task(2)
    def responses_list(self) -> None:
        self._get(f"/api/responses?challengeId={CHALLENGE_ID}&limit=20", "/api/responses?challengeId")

    @task(2)
    def stake_status(self) -> None:
        commitment = random.choice(self.known) if self.known else "0" * 64
        self._get(f"/api/responses/{commitment}", "/api/responses/{commitment}")

    @task(4)
    def post_stake(self) -> None:
        replay = self.last_stake is not None and random.random() < 0.1
        if replay:
            body = self.last_stake
        else:
            body = signed_stake(self.key, random.choice(["1", "2.50", "10", "12.34"]))
        headers = {
            "X-Forwarded-Proto": "https",
            "Cookie": f"csrftoken={self.token}",
            "X-CSRFToken": self.token,
            "Referer": self.origin + "/",
            "Content-Type": "application/json",
        }
        with self.client.post(
            "/api/responses", data=json.dumps(body), headers=headers, catch_response=True, name="/api/responses"
        ) as r:
            _record("POST /api/responses", r)
            if r.status_code == 201:
                CREATED.append(body["commitment"])
                self.known.append(body["commitment"])
                self.last_stake = body
            elif r.status_code == 200 and replay:
                REPLAYED.append(body["commitment"])


@events.test_stop.add_listener
def write_results(environment, **_kwargs) -> None:
    total = environment.stats.total
    summary = {
        "requests": total.num_requests,
        "failures": total.num_failures,
        "seconds": max(total.last_request_timestamp - total.start_time, 1e-9) if total.num_requests else 0.0,
        "p50_ms": total.get_response_time_percentile(0.5),
        "p99_ms": total.get_response_time_percentile(0.99),
        "max_ms": total.max_response_time,
        "routes": {
            f"{entry.method} {entry.name}": {
                "requests": entry.num_requests,
                "p50_ms": entry.get_response_time_percentile(0.5),
                "p99_ms": entry.get_response_time_percentile(0.99),
            }
            for entry in environment.stats.entries.values()
        },
        "statuses": dict(STATUSES),
        "created": CREATED,
        "replayed": REPLAYED,
    }
    with open(RESULTS, "w") as out:
        json.dump(summary, out)
