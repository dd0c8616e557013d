#!/usr/bin/env python3
"""The local chain of `make run` and of the end-to-end suite.

    devchain.py serve              anvil on 127.0.0.1, the project's test USDC deployed behind its
                                   proxy and minted, the pot deployed at its pinned address and owned
                                   by the development operator key, the development relayer key
                                   given ETH (never USDC), migrations and the local game; then
                                   writes var/devchain.env and waits on anvil (honcho's `chain`
                                   process of Procfile.dev).
    devchain.py exec -- CMD ...    waits until `serve` of this run has written var/devchain.env,
                                   loads it into the environment and becomes CMD (web, worker, beat).
    devchain.py warp SECONDS       moves the running local chain's clock forward and mines a block:
                                   past a challenge's close, or its guess window, without waiting.
    devchain.py deploy --rpc URL   deploys the test USDC and the pot to a running node, mints to the
                                   given accounts and prints the addresses (and the keys) as JSON
                                   (the e2e suite's fixture).

Raw JSON-RPC over urllib on purpose: anvil's accounts are unlocked, so `eth_sendTransaction` is all
it takes, and the script starts in milliseconds without importing web3.
With DEVCHAIN=0 `serve` starts no node and writes no chain settings, so the same Procfile runs
against Sepolia (or any chain) configured by environment variables alone.
"""

# ruff: noqa: S603, S606 - every command and URL here is this repository's own (anvil, manage.py, the Procfile).
from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VAR = ROOT / "var"
ENV_FILE = VAR / "devchain.env"
STATE_FILE = VAR / "anvil-state.json"
DEPLOY_FILE = VAR / "devchain.json"
ARTIFACT = ROOT / "contracts" / "build" / "TestUSDC.json"
PROXY_ARTIFACT = ROOT / "contracts" / "build" / "TestUSDCProxy.json"
NODE_MODULES = ROOT / "node_modules"
# anvil's default development key #0 (the mnemonic "test test ... junk" every Foundry user shares):
# public knowledge, worthless outside a local node, printed so a player can import it into MetaMask.
DEV_ACCOUNT_0 = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
DEV_KEY_0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"

# The development operator key: it owns the local pot (its only power: to open challenges) and pays
# the gas of `open`. Not one of anvil's accounts, so it is never minted USDC: it holds ETH only,
# given by anvil_setBalance. Fixed (sha256 of "geopoem devchain operator"), so the pot's address,
# which follows from its owner, is the same on every machine. Worthless outside a local node.
DEV_OPERATOR_KEY = "0x3f7de0d18821a7a3a19dcc07133406e6d77da608c2a269b0d98b84b878d83241"
DEV_OPERATOR = "0xC2A009D8621D65B32456B4B18386229109cdaD21"
OPERATOR_ETH_WEI = 100 * 10**18
# The development relayer key (docs/protocol.md section 3): it sends the players' signed stakes and
# the game's steps, and pays their gas. Like the operator, not one of anvil's accounts: ETH only,
# never USDC. Fixed (sha256 of "geopoem devchain relayer"), worthless outside a local node.
DEV_RELAYER_KEY = "0x285502597a0e9d3a2147b1ab6cdfc62b6becbcc823c1519adaaa50a5fdf05657"
DEV_RELAYER = "0xA4b8B3A45487De138d5Fd75Cd7b74b6B9155f2fC"
# The token's proxy admin may not call through the proxy (as Circle's): an address nothing else uses.
PROXY_ADMIN = "0x000000000000000000000000000000000000dEaD"

DEFAULT_CHAIN_ID = 31337
TOKEN_DECIMALS = 6
MINT_USDC = Decimal("10000")
# The pot's share receiver and sweep receiver: the last of anvil's ten development accounts; players
# use 0..8.
HOUSE_INDEX = 9
MINT_SELECTOR = "0x40c10f19"  # mint(address,uint256)
BALANCE_SELECTOR = "0x70a08231"  # balanceOf(address)


class RpcError(RuntimeError):
    pass


def rpc(url: str, method: str, params: list | None = None, timeout: float = 10.0):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or []}).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})  # noqa: S310
    with urllib.request.urlopen(request, timeout=timeout) as answer:  # noqa: S310 - our own node's URL
        reply = json.loads(answer.read())
    if "error" in reply:
        raise RpcError(f"{method}: {reply['error']}")
    return reply["result"]


def wait_for_node(url: str, deadline_s: float = 30.0, process: subprocess.Popen | None = None) -> int:
    """The node's chain id once it answers; raises when it does not within the deadline."""
    end = time.monotonic() + deadline_s
    while True:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"anvil exited with code {process.returncode} before answering")
        try:
            return int(rpc(url, "eth_chainId", timeout=1.0), 16)
        except (OSError, RpcError):
            if time.monotonic() > end:
                raise RuntimeError(f"no node answered at {url} within {deadline_s:.0f} s") from None
            time.sleep(0.1)


def _word(value: int | str) -> str:
    if isinstance(value, str):
        value = int(value, 16)
    return f"{value:064x}"


def send_and_wait(url: str, tx: dict, deadline_s: float = 30.0) -> dict:
    tx_hash = rpc(url, "eth_sendTransaction", [tx])
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        receipt = rpc(url, "eth_getTransactionReceipt", [tx_hash])
        if receipt is not None:
            if receipt["status"] != "0x1":
                raise RuntimeError(f"transaction {tx_hash} reverted")
            return receipt
        time.sleep(0.1)
    raise RuntimeError(f"transaction {tx_hash} not mined within {deadline_s:.0f} s")


def token_balance(url: str, token: str, owner: str) -> int:
    return int(rpc(url, "eth_call", [{"to": token, "data": BALANCE_SELECTOR + _word(owner)}, "latest"]), 16)


def _deploy(url: str, deployer: str, artifact: Path, args: str = "") -> str:
    data = json.loads(artifact.read_text())["bytecode"] + args
    return send_and_wait(url, {"from": deployer, "data": data, "gas": hex(4_000_000)})["contractAddress"]


def deploy_token(url: str, deployer: str) -> str:
    """TestUSDC behind TestUSDCProxy (as Circle's USDC is a proxy), its roles given to the deployer."""
    from eth_utils import keccak

    implementation = _deploy(url, deployer, ARTIFACT)
    proxy = _deploy(url, deployer, PROXY_ARTIFACT, _word(implementation) + _word(PROXY_ADMIN))
    selector = "0x" + keccak(text="configureRoles(address,address)")[:4].hex()
    send_and_wait(url, {"from": deployer, "to": proxy, "data": selector + _word(deployer) + _word(deployer)})
    return proxy


def deploy_pot(url: str, deployer: str, *, token: str, house: str) -> tuple[str, int]:
    """The pot through the CREATE2 factory (chain/pot/deploy.py): its address follows from its code,
    the token and the fixed development keys, so it is the one pinned for the local chain. Returns
    (address, deploy block); a node restored from its state file already holds it."""
    sys.path.insert(0, str(ROOT))
    from chain.pot.deploy import CREATE2_FACTORY, factory_calldata, initcode, pot_address

    code = initcode(token=token, operator=DEV_OPERATOR, share_receiver=house, sweep_receiver=house)
    address = pot_address(code)
    if rpc(url, "eth_getCode", [address, "latest"]) == "0x":
        tx = {"from": deployer, "to": CREATE2_FACTORY, "data": factory_calldata(code), "gas": hex(6_000_000)}
        receipt = send_and_wait(url, tx)
        block = int(receipt["blockNumber"], 16)
        if rpc(url, "eth_getCode", [address, "latest"]) == "0x":
            raise RuntimeError(f"the CREATE2 factory did not deploy the pot at {address}")
    else:
        block = 0
    return address, block


def fund_operator(url: str, operator: str) -> None:
    """Gas money for the operator key, or the relayer's (ETH only, topped up, never USDC)."""
    if int(rpc(url, "eth_getBalance", [operator, "latest"]), 16) < OPERATOR_ETH_WEI // 2:
        rpc(url, "anvil_setBalance", [operator, hex(OPERATOR_ETH_WEI)])


def mint(url: str, token: str, sender: str, to: str, units: int) -> None:
    send_and_wait(url, {"from": sender, "to": token, "data": MINT_SELECTOR + _word(to) + _word(units)})


def setup_chain(url: str, *, mint_to: list[str] | None = None, known: dict | None = None) -> dict:
    """Deploy (or find, on a node restored from its state file) the test USDC and the pot, and mint
    to players. Returns what the web server and the worker need to know about the chain."""
    chain_id = wait_for_node(url)
    accounts = rpc(url, "eth_accounts")
    house = accounts[HOUSE_INDEX]
    players = mint_to if mint_to is not None else [a for i, a in enumerate(accounts) if i != HOUSE_INDEX]
    known = known or {}
    token = known.get("usdcAddress")
    deployed = bool(token) and known.get("chainId") == chain_id and rpc(url, "eth_getCode", [token, "latest"]) != "0x"
    if not deployed:
        token = deploy_token(url, accounts[0])
    pot, block = deploy_pot(url, accounts[0], token=token, house=house)
    if block == 0 and known.get("potAddress", "").lower() == pot.lower():
        block = int(known.get("potDeployBlock", 0))
    fund_operator(url, DEV_OPERATOR)
    fund_operator(url, DEV_RELAYER)
    units = int(MINT_USDC * 10**TOKEN_DECIMALS)
    for player in players:
        # Top up to the amount rather than adding to it, so restarts do not inflate balances.
        missing = units - token_balance(url, token, player)
        if missing > 0:
            mint(url, token, accounts[0], player, missing)
    from eth_utils import to_checksum_address  # web3's dependency; settings and the page show EIP-55 form

    return {
        "chainId": chain_id,
        "usdcAddress": to_checksum_address(token),
        "potAddress": pot,
        "potDeployBlock": block,
        "houseAddress": to_checksum_address(house),
        "operatorAddress": DEV_OPERATOR,
        "operatorKey": DEV_OPERATOR_KEY,
        "relayerAddress": DEV_RELAYER,
        "relayerKey": DEV_RELAYER_KEY,
        "players": [to_checksum_address(player) for player in players],
    }


def chain_env(info: dict, rpc_url: str) -> dict[str, str]:
    return {
        "CHAIN_ID": str(info["chainId"]),
        "CHAIN_NAME": "Anvil (local)",
        "CHAIN_CURRENCY_NAME": "ETH",
        "CHAIN_CURRENCY_SYMBOL": "ETH",
        "CHAIN_RPC_URLS": rpc_url,
        "CHAIN_PUBLIC_RPC_URL": rpc_url,
        # No public explorer knows a local chain: no links, unless a local explorer is named.
        "CHAIN_EXPLORER_URL": os.environ.get("DEVCHAIN_EXPLORER_URL", ""),
        "CHAIN_IS_LOCAL": "true",
        "USDC_ADDRESS": info["usdcAddress"],
        "POT_ADDRESS": info["potAddress"],
        "POT_DEPLOY_BLOCK": str(info["potDeployBlock"]),
        "POT_OPERATOR_KEY": info["operatorKey"],
        "CHAIN_CONFIRMATIONS": os.environ.get("DEVCHAIN_CONFIRMATIONS", "1"),
        "RELAYER_KEY": info["relayerKey"],
        # A local game you can play to the end in an evening: the close in 30 minutes, the shortest
        # guess window the pot allows (1 hour); `devchain.py warp` moves the clock past either.
        "POT_DEFAULT_OPEN_SECONDS": os.environ.get("DEVCHAIN_OPEN_SECONDS", "1800"),
        "POT_GUESS_WINDOW_SECONDS": os.environ.get("DEVCHAIN_GUESS_WINDOW_SECONDS", "3600"),
    }


def write_env(values: dict[str, str]) -> None:
    VAR.mkdir(exist_ok=True)
    tmp = ENV_FILE.with_suffix(".tmp")
    tmp.write_text("".join(f"{key}={value}\n" for key, value in values.items()))
    tmp.replace(ENV_FILE)  # atomic: `exec` never reads half a file


def read_env() -> dict[str, str]:
    values = {}
    for line in ENV_FILE.read_text().splitlines():
        key, _, value = line.partition("=")
        if key:
            values[key] = value
    return values


def anvil_binary() -> str:
    """The platform binary inside npm's @foundry-rs/anvil, so a signal reaches anvil itself rather
    than the node wrapper in node_modules/.bin."""
    for candidate in sorted(NODE_MODULES.glob("@foundry-rs/anvil-*/bin/anvil")):
        if os.access(candidate, os.X_OK):
            return str(candidate)
    return str(NODE_MODULES / ".bin" / "anvil")


def start_anvil(host: str, port: int, chain_id: int, state: Path | None) -> subprocess.Popen:
    """Automine until set up (deploy and mints take one block each, not a second each); the caller
    then switches to interval mining so blocks keep coming and payments gain confirmations."""
    command = [anvil_binary(), "--host", host, "--port", str(port), "--chain-id", str(chain_id), "--silent"]
    if state is not None:
        command += ["--state", str(state)]
    return subprocess.Popen(command)


def stop_process(process: subprocess.Popen | None, timeout: float = 10.0) -> None:
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def web_answers(url: str, *, timeout: float, process: subprocess.Popen | None = None) -> bool:
    """True once `url` answers 200; False after `timeout` seconds, or as soon as `process` exits."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if process is not None and process.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=2.0) as answer:  # noqa: S310 - the web process of this run
                if answer.status == 200:
                    return True
        except (OSError, http.client.HTTPException):  # refused while the server starts; a 5xx is an OSError too
            pass
        time.sleep(0.25)
    return False


def announce_ready(web: str, *, timeout: float, process: subprocess.Popen | None = None) -> None:
    """Says "ready" only once the page answers: the web process starts after var/devchain.env is written
    and takes seconds more to serve, and a link followed before that is refused."""
    if web_answers(f"{web}/", timeout=timeout, process=process):
        print(f"devchain: ready. Play at {web}/ (Ctrl-C stops everything)", flush=True)
    elif process is None or process.poll() is None:
        print(f"devchain: {web}/ did not answer within {timeout:.0f} s; the web process's lines say why", flush=True)


def cmd_serve(args: argparse.Namespace) -> int:
    sys.stdout.reconfigure(line_buffering=True)  # honcho shows each line as it comes
    VAR.mkdir(exist_ok=True)
    # The embedded broker (kombu's filesystem transport) needs its folders before anyone uses it.
    for folder in ("broker/queue", "broker/processed", "broker/control"):
        (VAR / folder).mkdir(parents=True, exist_ok=True)
    ENV_FILE.unlink(missing_ok=True)
    anvil: subprocess.Popen | None = None

    def stop(signum: int, _frame) -> None:
        raise SystemExit(128 + signum)  # unwinds through the finally below, which stops anvil

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        values: dict[str, str] = {}
        if os.environ.get("DEVCHAIN", "1") != "0":
            url = f"http://{args.host}:{args.port}"
            anvil = start_anvil(args.host, args.port, args.chain_id, STATE_FILE)
            wait_for_node(url, process=anvil)
            known = json.loads(DEPLOY_FILE.read_text()) if DEPLOY_FILE.exists() else None
            info = setup_chain(url, known=known)
            if args.block_time and args.block_time != "0":
                rpc(url, "evm_setIntervalMining", [int(args.block_time)])
            DEPLOY_FILE.write_text(json.dumps(info, indent=2) + "\n")
            values = chain_env(info, url)
            print(f"devchain: anvil at {url}, chain id {info['chainId']}, a block every {args.block_time} s")
            print(f"devchain: test USDC {info['usdcAddress']}")
            pot, owner = info["potAddress"], info["operatorAddress"]
            print(f"devchain: pot {pot} (block {info['potDeployBlock']}), owned by the operator {owner} (ETH only)")
            print(f"devchain: relayer {info['relayerAddress']} (ETH only) sends players' signed stakes and the steps")
            print(f"devchain: {MINT_USDC} USDC and 10000 ETH on each of {len(info['players'])} development accounts")
            print(f"devchain: MetaMask: import development account #0 {DEV_ACCOUNT_0} with key {DEV_KEY_0}")
        else:
            print("devchain: DEVCHAIN=0, no local node; the chain comes from the environment")
        env = {**os.environ, **values}
        manage = [sys.executable, str(ROOT / "manage.py")]
        subprocess.run([*manage, "migrate", "--noinput"], check=True, env=env, cwd=ROOT)
        subprocess.run([*manage, "seed_demo"], check=True, env=env, cwd=ROOT)
        write_env(values)
        announce_ready(os.environ.get("WEB_URL", "http://127.0.0.1:8000"), timeout=args.web_timeout, process=anvil)
        if anvil is None:
            while True:
                signal.pause()
        code = anvil.wait()
        print(f"devchain: anvil exited with code {code}", flush=True)
        return code or 1
    finally:
        stop_process(anvil)  # anvil writes its state file on the way out


def cmd_exec(args: argparse.Namespace) -> int:
    if not args.command:
        print("devchain exec: no command given", file=sys.stderr)
        return 2
    started = time.time()
    end = time.monotonic() + args.timeout
    # Only a file written after this process started counts: one left by an earlier run is stale.
    while not (ENV_FILE.exists() and ENV_FILE.stat().st_mtime >= started - 0.5):
        if time.monotonic() > end:
            print(f"devchain exec: {ENV_FILE} not written within {args.timeout:.0f} s", file=sys.stderr)
            return 1
        time.sleep(0.2)
    os.environ.update(read_env())
    os.execvp(args.command[0], args.command)
    return 0  # not reached


def cmd_deploy(args: argparse.Namespace) -> int:
    info = setup_chain(args.rpc, mint_to=args.mint_to)
    print(json.dumps(info))
    return 0


def cmd_warp(args: argparse.Namespace) -> int:
    url = f"http://{args.host}:{args.port}"
    rpc(url, "evm_increaseTime", [args.seconds])
    rpc(url, "evm_mine", [])
    block = rpc(url, "eth_getBlockByNumber", ["latest", False])
    clock = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(int(block["timestamp"], 16)))
    print(f"devchain: the local chain's clock is now {clock}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)
    serve = sub.add_parser("serve")
    serve.add_argument("--host", default=os.environ.get("ANVIL_HOST", "127.0.0.1"))
    serve.add_argument("--port", type=int, default=int(os.environ.get("ANVIL_PORT", "8545")))
    serve.add_argument("--chain-id", type=int, default=int(os.environ.get("DEVCHAIN_CHAIN_ID", DEFAULT_CHAIN_ID)))
    serve.add_argument("--block-time", default=os.environ.get("DEVCHAIN_BLOCK_TIME", "1"))
    serve.add_argument("--web-timeout", type=float, default=float(os.environ.get("DEVCHAIN_WEB_TIMEOUT", "120")))
    run = sub.add_parser("exec")
    run.add_argument("--timeout", type=float, default=180.0)
    run.add_argument("command", nargs=argparse.REMAINDER)
    warp = sub.add_parser("warp")
    warp.add_argument("seconds", type=int)
    warp.add_argument("--host", default=os.environ.get("ANVIL_HOST", "127.0.0.1"))
    warp.add_argument("--port", type=int, default=int(os.environ.get("ANVIL_PORT", "8545")))
    deploy = sub.add_parser("deploy")
    deploy.add_argument("--rpc", required=True)
    deploy.add_argument("--mint-to", nargs="*", default=None)
    args = parser.parse_args(argv)
    if args.action == "exec" and args.command and args.command[0] == "--":
        args.command = args.command[1:]
    return {"serve": cmd_serve, "exec": cmd_exec, "deploy": cmd_deploy, "warp": cmd_warp}[args.action](args)


if __name__ == "__main__":
    sys.exit(main())
