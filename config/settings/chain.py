"""The settings of the money and the chain: stakes, the chain and its nodes, the pot and its terms,
the follower of its events, the relayer, and the Celery beat schedule that runs them. Part of
base.py, which imports every name here (`from .chain import *`) after it has read `.env` into the
environment, so `env` below sees the same variables."""

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
# The chain's checks of a signed stake while its POST waits (chain/relayer/admission.py): one JSON-RPC
# batch per node with this timeout; when no node answers in time the stake is stored and the relayer
# checks again before it spends gas.
CHAIN_POST_CHECK_TIMEOUT_SECONDS = env.float("CHAIN_POST_CHECK_TIMEOUT_SECONDS", default=2.0)
USDC_ADDRESS = env("USDC_ADDRESS", default="0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238")
# The pot (docs/protocol.md section 2): the one contract per chain that holds every stake, its
# deploy block (the follower and the verifiers read its events from there) and the operator key
# that owns it, whose only power is to open challenges (it holds gas money, and USDC only when a
# bond is set). Empty: no challenge can open. The pot's address for each chain is also pinned in the
# repository (verify_challenge.py and frontend/src/config.ts, PINNED_POTS).
POT_ADDRESS = env("POT_ADDRESS", default="")
POT_DEPLOY_BLOCK = env.int("POT_DEPLOY_BLOCK", default=0)
POT_OPERATOR_KEY = env("POT_OPERATOR_KEY", default="")
# The terms staff do not type: the solution must be revealed within POT_SOLUTION_DELAY_SECONDS of
# the close (or every stake is refunded with the bond), guesses may be revealed for
# POT_GUESS_WINDOW_SECONDS after it, and POT_BOND_USDC is posted by the operator at open (0: none).
# The pot bounds them: a guess window of 1 hour to 30 days, a solution deadline within 30 days.
POT_SOLUTION_DELAY_SECONDS = env.int("POT_SOLUTION_DELAY_SECONDS", default=86_400)
POT_GUESS_WINDOW_SECONDS = env.int("POT_GUESS_WINDOW_SECONDS", default=86_400)
POT_BOND_USDC = Decimal(env.str("POT_BOND_USDC", default="0"))
# How long a challenge is open when staff do not choose the close themselves.
POT_DEFAULT_OPEN_SECONDS = env.int("POT_DEFAULT_OPEN_SECONDS", default=7 * 86_400)
# The page stops offering stakes this long before the close (a stake mined after it would revert),
# and the site stops taking guesses this long before the guess window ends (its worker must still
# reveal them on chain: docs/protocol.md 3.2).
STAKE_CLOSE_MARGIN_SECONDS = env.int("STAKE_CLOSE_MARGIN_SECONDS", default=60)
GUESS_ACCEPT_MARGIN_SECONDS = env.int("GUESS_ACCEPT_MARGIN_SECONDS", default=300)
# The gas limits of the site's calls of the pot: measured with forge behind a proxied token
# (contracts/test/), with room; a fixed limit so that a call that would revert is still sent and its
# receipt says so, rather than failing to estimate.
POT_OPEN_GAS = env.int("POT_OPEN_GAS", default=400_000)
# A whole number of blocks, or "finalized".
CHAIN_CONFIRMATIONS = env("CHAIN_CONFIRMATIONS", default="2")
# The follower re-reads the pot's events of the last CHAIN_REORG_DEPTH_BLOCKS every round (a reorg
# takes its events with it), and reads at most CHAIN_LOG_RANGE blocks per eth_getLogs.
CHAIN_REORG_DEPTH_BLOCKS = env.int("CHAIN_REORG_DEPTH_BLOCKS", default=64)
CHAIN_LOG_RANGE = env.int("CHAIN_LOG_RANGE", default=10_000)
# The beat asks for the head every CHAIN_HEAD_INTERVAL_SECONDS and reads the pot's events when it
# moved (one eth_blockNumber a beat, one eth_getLogs a new block).
CHAIN_HEAD_INTERVAL_SECONDS = env.float("CHAIN_HEAD_INTERVAL_SECONDS", default=0.5)
CHAIN_RPC_BATCH_SIZE = env.int("CHAIN_RPC_BATCH_SIZE", default=100)
CHAIN_SWEEP_INTERVAL_SECONDS = env.float("CHAIN_SWEEP_INTERVAL_SECONDS", default=30.0)
CHAIN_SWEEP_STALE_SECONDS = env.float("CHAIN_SWEEP_STALE_SECONDS", default=120.0)
# A step of the game (a reveal, finalize, a payment, a refund) whose call failed is queued again no
# sooner than this (a paused token, a node refusing): docs/protocol.md section 2, "Settlement".
POT_STEP_RETRY_SECONDS = env.float("POT_STEP_RETRY_SECONDS", default=60.0)
# The open transaction is sent again when no node knows it after POT_OPEN_RESEND_SECONDS.
POT_OPEN_RESEND_SECONDS = env.float("POT_OPEN_RESEND_SECONDS", default=180.0)

# The relayer (docs/protocol.md section 3, "The relayer decides when") sends every call of the pot the
# site makes but `open`: the players' signed stakes and the game's steps. It signs with RELAYER_KEY,
# whose address holds gas money only (never USDC; not the operator's key); without it, or with
# RELAY_ENABLED off, no signed stake is relayed and the page offers the stake by approval first. An
# authorization is accepted for at most RELAY_AUTHORIZATION_SECONDS (plus 60 s of clock slack) and at
# least RELAY_MIN_REMAINING_SECONDS; the relayer refuses a payer past
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
# The relayer's watcher (chain/relayer/watch.py) runs every RELAY_WATCH_INTERVAL_SECONDS: receipts of
# what is in flight, re-sends, the balance (read at least every minute), and a call left queued
# longer than RELAY_SWEEP_STALE_SECONDS (its message lost) queued again for the sender.
RELAY_WATCH_INTERVAL_SECONDS = env.float("RELAY_WATCH_INTERVAL_SECONDS", default=2.0)
RELAY_SWEEP_STALE_SECONDS = env.float("RELAY_SWEEP_STALE_SECONDS", default=5.0)

# --- Celery queues ------------------------------------------------------------------------------
# The relayer's tasks have their own queue, so that its sends never wait behind the follower or other
# work; every worker consumes it with the default one (Procfile: -Q celery,relay),
# or a deployment runs a worker for `relay` alone (README, "Deploy").
RELAY_QUEUE = "relay"
CELERY_TASK_ROUTES = {
    "chain.relay_send": {"queue": RELAY_QUEUE},
    "chain.relay_watch": {"queue": RELAY_QUEUE},
}

# --- Celery beat (chain app) --------------------------------------------------------------------
# Intervals in seconds; each task is short and idempotent, so an overlap or a missed beat is harmless.
CELERY_BEAT_SCHEDULE = {
    # The pot's events followed at each new block, then the game's next steps queued (chain/tasks.py).
    # Expires after two intervals: a message that waited behind other tasks is dropped, not run late
    # in a pile (the next beat's asks for the head anyway).
    "chain-follow-pot": {
        "task": "chain.follow_pot",
        "schedule": CHAIN_HEAD_INTERVAL_SECONDS,
        "options": {"expires": 2 * CHAIN_HEAD_INTERVAL_SECONDS},
    },
    # Openings left queued or sent by a lost message or a dead worker are queued again.
    "chain-sweep-openings": {"task": "chain.sweep_openings", "schedule": CHAIN_SWEEP_INTERVAL_SECONDS},
    # The relayer's transactions followed, its balance read, and calls left queued sent (chain/tasks.py).
    "chain-relay-watch": {
        "task": "chain.relay_watch",
        "schedule": RELAY_WATCH_INTERVAL_SECONDS,
        "options": {"expires": 2 * RELAY_WATCH_INTERVAL_SECONDS},
    },
}
