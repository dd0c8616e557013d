"""The settings of the money and the chain: stakes, the chain and its nodes, verification and its
retries, the beat's sweeper, indexer and head watcher, the terms' anchor, resolution, and the Celery
beat schedule that runs them. Part of base.py, which imports every name here (`from .chain import *`)
after it has read `.env` into the environment, so `env` below sees the same variables."""

from decimal import Decimal

import environ

env = environ.Env()

STAKE_MIN = Decimal("1.00")
# The form's step (spec: "step 0.01"): a stake a player posts is a whole number of cents, refused
# otherwise by the form and by the API alike (docs/decisions.md, "Stake step").
STAKE_STEP = Decimal("0.01")
STAKE_MAX = Decimal(env.str("STAKE_MAX", default="1000000"))
TOKEN_DECIMALS = 6

CHAIN_ID = env.int("CHAIN_ID", default=11155111)
CHAIN_NAME = env("CHAIN_NAME", default="Sepolia")
CHAIN_CURRENCY_NAME = env("CHAIN_CURRENCY_NAME", default="SepoliaETH")
CHAIN_CURRENCY_SYMBOL = env("CHAIN_CURRENCY_SYMBOL", default="SepoliaETH")
CHAIN_RPC_URLS = env.list("CHAIN_RPC_URLS", default=["https://ethereum-sepolia-rpc.publicnode.com"])
CHAIN_PUBLIC_RPC_URL = env("CHAIN_PUBLIC_RPC_URL", default="https://rpc.sepolia.org")
# The block explorer the page links transactions and addresses to: by default the public one of
# the configured chain, and none for a chain no public explorer knows (anvil's 31337): the page then
# shows hashes and addresses as text rather than links to where the transaction does not exist.
# Set it to a local explorer (an Otterscan or Blockscout beside anvil) to get links back.
PUBLIC_EXPLORERS = {1: "https://etherscan.io", 11155111: "https://sepolia.etherscan.io"}
CHAIN_EXPLORER_URL = env("CHAIN_EXPLORER_URL", default=PUBLIC_EXPLORERS.get(CHAIN_ID, ""))
# A development chain on the player's own machine (anvil, Hardhat): the "Sepolia Testnet" tab then
# explains the local MetaMask set-up instead of Sepolia's faucets.
CHAIN_IS_LOCAL = env.bool("CHAIN_IS_LOCAL", default=CHAIN_ID in (1337, 31337))
CHAIN_RPC_TIMEOUT_SECONDS = env.float("CHAIN_RPC_TIMEOUT_SECONDS", default=10.0)
# The check of a claim against its transaction while the POST waits (chain/checks.py, claim_check_at_post):
# one RPC call per node with this timeout; a node that does not answer in time leaves the claim pending.
CHAIN_POST_CHECK_TIMEOUT_SECONDS = env.float("CHAIN_POST_CHECK_TIMEOUT_SECONDS", default=2.0)
USDC_ADDRESS = env("USDC_ADDRESS", default="0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238")
TREASURY_ADDRESS = env("TREASURY_ADDRESS", default="0x0000000000000000000000000000000000000000")
# Where the 20 % operations share is sent; empty keeps it in the treasury (nothing to send).
OPERATIONS_ADDRESS = env("OPERATIONS_ADDRESS", default="")
# A whole number of blocks, or "finalized".
CHAIN_CONFIRMATIONS = env("CHAIN_CONFIRMATIONS", default="2")
# Verification (chain app). A claim whose transaction no node knows stays pending, retried with
# exponential backoff and jitter, and becomes `not_found` only after CHAIN_NOT_FOUND_TIMEOUT_SECONDS.
# A confirmed claim whose block left the chain gets CHAIN_REORG_TIMEOUT_SECONDS for its transaction to
# return before it ends `reorged`. Retry countdowns stay far under the broker's visibility timeout.
CHAIN_NOT_FOUND_TIMEOUT_SECONDS = env.int("CHAIN_NOT_FOUND_TIMEOUT_SECONDS", default=1800)
CHAIN_REORG_TIMEOUT_SECONDS = env.int("CHAIN_REORG_TIMEOUT_SECONDS", default=900)
CHAIN_VERIFY_RETRY_BASE_SECONDS = env.float("CHAIN_VERIFY_RETRY_BASE_SECONDS", default=2.0)
CHAIN_VERIFY_RETRY_MAX_SECONDS = env.float("CHAIN_VERIFY_RETRY_MAX_SECONDS", default=60.0)
CHAIN_VERIFY_MAX_RETRIES = env.int("CHAIN_VERIFY_MAX_RETRIES", default=500)
# Beat: the sweeper re-queues claims pending longer than CHAIN_SWEEP_STALE_SECONDS without a check;
# the indexer reads Transfer logs to the treasury in ranges of CHAIN_INDEX_MAX_BLOCKS from a stored
# cursor (starting at CHAIN_INDEX_START_BLOCK, or near the head when 0) and rescans the last
# CHAIN_REORG_DEPTH_BLOCKS; confirmed claims that deep are re-checked for reorgs.
CHAIN_SWEEP_INTERVAL_SECONDS = env.float("CHAIN_SWEEP_INTERVAL_SECONDS", default=30.0)
CHAIN_SWEEP_STALE_SECONDS = env.float("CHAIN_SWEEP_STALE_SECONDS", default=120.0)
CHAIN_INDEX_INTERVAL_SECONDS = env.float("CHAIN_INDEX_INTERVAL_SECONDS", default=15.0)
CHAIN_INDEX_MAX_BLOCKS = env.int("CHAIN_INDEX_MAX_BLOCKS", default=500)
CHAIN_INDEX_START_BLOCK = env.int("CHAIN_INDEX_START_BLOCK", default=0)
CHAIN_REORG_DEPTH_BLOCKS = env.int("CHAIN_REORG_DEPTH_BLOCKS", default=64)
# The head watcher (docs/chain.md "Verification driven by blocks"): every CHAIN_HEAD_INTERVAL_SECONDS
# the beat asks for the head; when it moved, every pending claim (up to CHAIN_HEAD_MAX_CLAIMS, oldest
# check first) is re-checked from JSON-RPC batches of at most CHAIN_RPC_BATCH_SIZE calls.
# RPC cost: one eth_blockNumber per interval whether or not anything is pending (2/s = 172,800 a day at
# the default 0.5 s; 1 s halves it), plus one batch per new block while claims are pending. A claim is
# confirmed up to one interval after the block that makes it deep enough: at 1 s the page showed it
# p95 2.04 s after that block, at 0.5 s 0.96 s (the goal: 1.5 s, docs/performance.md section 5).
CHAIN_HEAD_INTERVAL_SECONDS = env.float("CHAIN_HEAD_INTERVAL_SECONDS", default=0.5)
CHAIN_HEAD_MAX_CLAIMS = env.int("CHAIN_HEAD_MAX_CLAIMS", default=1000)
CHAIN_RPC_BATCH_SIZE = env.int("CHAIN_RPC_BATCH_SIZE", default=100)
# The terms on chain (docs/protocol.md section 6): the registry contract every published challenge's
# terms are anchored in before it accepts claims, and the operator key that owns it and pays the gas
# (it holds only gas money, never USDC; it is not the treasury). Both empty: no challenge can open,
# except a demonstration one. The worker re-sends an anchor whose transaction no node knows after
# ANCHOR_RESEND_SECONDS, and while one waits for its depth it looks again every ANCHOR_POLL_SECONDS
# (the beat's sweep, every CHAIN_SWEEP_INTERVAL_SECONDS, picks up an anchor whose task was lost).
ANCHOR_REGISTRY_ADDRESS = env("ANCHOR_REGISTRY_ADDRESS", default="")
ANCHOR_OPERATOR_KEY = env("ANCHOR_OPERATOR_KEY", default="")
ANCHOR_RESEND_SECONDS = env.float("ANCHOR_RESEND_SECONDS", default=180.0)
ANCHOR_POLL_SECONDS = env.float("ANCHOR_POLL_SECONDS", default=1.0)

# Stakes paid by a signed EIP-3009 authorization, relayed (docs/protocol.md section 2a). The relayer
# signs with RELAYER_KEY, whose address holds gas money only (never USDC; not the treasury's key nor
# the operator's); without it, or with RELAY_ENABLED off, nothing is relayed and the page offers the
# direct transfer first. An authorization is accepted for at most RELAY_AUTHORIZATION_SECONDS (plus
# 60 s of clock slack) and at least RELAY_MIN_REMAINING_SECONDS; the relayer refuses a payer past
# RELAY_MAX_PER_ADDRESS_PER_DAY stakes in 24 hours and stops once it spent RELAY_MAX_WEI_PER_DAY in
# 24 hours; it logs an error and the admin shows an alarm below RELAY_BALANCE_ALARM_WEI; a
# transaction not mined after RELAY_RESEND_SECONDS is sent again with fees RELAY_FEE_BUMP_PERCENT higher.
RELAYER_KEY = env("RELAYER_KEY", default="")
RELAY_ENABLED = env.bool("RELAY_ENABLED", default=True)
RELAY_AUTHORIZATION_SECONDS = env.int("RELAY_AUTHORIZATION_SECONDS", default=1800)
RELAY_MIN_REMAINING_SECONDS = env.int("RELAY_MIN_REMAINING_SECONDS", default=60)
RELAY_MAX_PER_ADDRESS_PER_DAY = env.int("RELAY_MAX_PER_ADDRESS_PER_DAY", default=20)
RELAY_MAX_WEI_PER_DAY = env.int("RELAY_MAX_WEI_PER_DAY", default=5 * 10**16)
RELAY_BALANCE_ALARM_WEI = env.int("RELAY_BALANCE_ALARM_WEI", default=10**16)
RELAY_RESEND_SECONDS = env.float("RELAY_RESEND_SECONDS", default=60.0)
RELAY_FEE_BUMP_PERCENT = env.int("RELAY_FEE_BUMP_PERCENT", default=25)
# The relayer's watcher (chain/relay_watch.py) runs every RELAY_WATCH_INTERVAL_SECONDS: receipts of
# what is in flight, re-sends, the balance (read at least every minute), and a claim left queued
# longer than RELAY_SWEEP_STALE_SECONDS (its message lost) queued again for the sender.
RELAY_WATCH_INTERVAL_SECONDS = env.float("RELAY_WATCH_INTERVAL_SECONDS", default=2.0)
RELAY_SWEEP_STALE_SECONDS = env.float("RELAY_SWEEP_STALE_SECONDS", default=5.0)

# Resolution runs in the worker in chunks of this many responses (one UPDATE each, and one step of
# the admin's progress); a resolution with no progress for CHALLENGE_RESOLVE_STALE_SECONDS is queued
# again by the beat (its worker died): it resumes at the last committed chunk.
CHALLENGE_RESOLVE_CHUNK = env.int("CHALLENGE_RESOLVE_CHUNK", default=100_000)
CHALLENGE_RESOLVE_STALE_SECONDS = env.float("CHALLENGE_RESOLVE_STALE_SECONDS", default=60.0)
# Close means no payment mined after it counts; claims for payments mined before it are still taken.
# Resolution waits CHALLENGE_CLOSE_GRACE_SECONDS after the close (a slow page, a slow wallet, a slow
# chain) and until the ledger indexer has read past the close (responses/barrier.py).
CHALLENGE_CLOSE_GRACE_SECONDS = env.int("CHALLENGE_CLOSE_GRACE_SECONDS", default=600)

# --- Celery queues ------------------------------------------------------------------------------
# The relayer's tasks have their own queue, so that its sends never wait behind a resolution or a
# burst of verifications; every worker consumes it with the default one (Procfile: -Q celery,relay),
# or a deployment runs a worker for `relay` alone (README, "Deploy").
RELAY_QUEUE = "relay"
CELERY_TASK_ROUTES = {
    "chain.relay_send": {"queue": RELAY_QUEUE},
    "chain.relay_watch": {"queue": RELAY_QUEUE},
}

# --- Celery beat (chain app) --------------------------------------------------------------------
# Intervals in seconds; each task is short and idempotent, so an overlap or a missed beat is harmless.
CELERY_BEAT_SCHEDULE = {
    "chain-sweep-pending": {"task": "chain.sweep_pending", "schedule": CHAIN_SWEEP_INTERVAL_SECONDS},
    # Expires after two intervals: a watcher message that waited behind other tasks is dropped, not
    # run late in a pile (the next beat's message asks for the head anyway).
    "chain-watch-head": {
        "task": "chain.watch_head",
        "schedule": CHAIN_HEAD_INTERVAL_SECONDS,
        "options": {"expires": 2 * CHAIN_HEAD_INTERVAL_SECONDS},
    },
    "chain-index-payments": {"task": "chain.index_payments", "schedule": CHAIN_INDEX_INTERVAL_SECONDS},
    "chain-recheck-confirmed": {"task": "chain.recheck_confirmed", "schedule": CHAIN_INDEX_INTERVAL_SECONDS},
    # Anchors left queued or sent by a lost message or a dead worker are queued again (chain/tasks.py).
    "chain-sweep-anchors": {"task": "chain.sweep_anchors", "schedule": CHAIN_SWEEP_INTERVAL_SECONDS},
    # Payout transactions left verifying by a lost message are queued again (chain/tasks.py).
    "chain-sweep-payouts": {"task": "chain.sweep_payouts", "schedule": CHAIN_SWEEP_INTERVAL_SECONDS},
    # The relayer's transactions followed, its balance read, and claims left queued sent (chain/tasks.py).
    "chain-relay-watch": {
        "task": "chain.relay_watch",
        "schedule": RELAY_WATCH_INTERVAL_SECONDS,
        "options": {"expires": 2 * RELAY_WATCH_INTERVAL_SECONDS},
    },
    # Resolutions whose worker died are resumed (responses/tasks.py).
    "responses-sweep-resolutions": {
        "task": "responses.sweep_resolutions",
        "schedule": CHAIN_SWEEP_INTERVAL_SECONDS,
    },
}
