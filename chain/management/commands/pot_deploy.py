"""Deploy the pot (contracts/GeopoemPot.sol; docs/protocol.md section 2, "One pot per chain, pinned") on
the configured chain through the deterministic CREATE2 factory, and print its address and block: the
values to pin in the repository (verify_challenge.py and frontend/src/config.ts, PINNED_POTS, and
docs/protocol.md's table) and to set as POT_ADDRESS and POT_DEPLOY_BLOCK.

    POT_DEPLOYER_KEY=0x... python manage.py pot_deploy --share-receiver 0x... --sweep-receiver 0x...

The pot's owner is the operator key's address (POT_OPERATOR_KEY): it may only open challenges. The
share receiver (the 20 % share and the bonds back) and the sweep receiver (USDC sent to the pot
outside a stake) are fixed for good at deploy. The deployer key only pays the gas; it can be any
key. Run again with the same values, it finds the pot already there and prints it."""

import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from eth_account import Account
from eth_utils import is_checksum_address

from chain.node.calls import as_int, rpc_batch
from chain.node.client import ChainUnavailable, get_client
from chain.node.sending import SENT, UNKNOWN, broadcast, read_account, sign
from chain.pot.deploy import CREATE2_FACTORY, factory_calldata, initcode, pot_address
from chain.pot.opening import operator_account

DEPLOY_GAS = 6_000_000


class Command(BaseCommand):
    help = "Deploy the pot through the CREATE2 factory; prints POT_ADDRESS and POT_DEPLOY_BLOCK to pin and set."

    def add_arguments(self, parser):
        parser.add_argument("--share-receiver", required=True, help="Checksummed address of the 20 % share.")
        parser.add_argument("--sweep-receiver", required=True, help="Checksummed address of what is swept.")
        parser.add_argument("--deployer-key-env", default="POT_DEPLOYER_KEY", help="The variable holding the key.")
        parser.add_argument("--timeout", type=float, default=300.0)

    def handle(self, *args, share_receiver, sweep_receiver, deployer_key_env, timeout, **options):
        import os

        for name, value in (("--share-receiver", share_receiver), ("--sweep-receiver", sweep_receiver)):
            if not is_checksum_address(value):
                raise CommandError(f"{name} must be a checksummed (EIP-55) address")
        if not settings.POT_OPERATOR_KEY:
            raise CommandError("POT_OPERATOR_KEY is not set: its address becomes the pot's owner.")
        key = os.environ.get(deployer_key_env, "")
        try:
            deployer = Account.from_key(key)
        except Exception as exc:  # any malformed key; never echo it
            raise CommandError(f"{deployer_key_env} must be a private key: 0x and 64 hex characters.") from exc
        code = initcode(
            token=settings.USDC_ADDRESS,
            operator=operator_account().address,
            share_receiver=share_receiver,
            sweep_receiver=sweep_receiver,
        )
        address = pot_address(code)
        client = get_client()
        try:
            block = self._deploy(client, deployer, code, address, timeout)
        except ChainUnavailable as exc:
            raise CommandError(f"No RPC node answered: {exc}") from exc
        self.stderr.write(f"The pot of chain {settings.CHAIN_ID}: pin it (docs/protocol.md section 2) and set:")
        self.stdout.write(f"POT_ADDRESS={address}")
        self.stdout.write(f"POT_DEPLOY_BLOCK={block}")

    def _deploy(self, client, deployer, code: str, address: str, timeout: float) -> int:
        (existing,) = rpc_batch(client, [("eth_getCode", [address, "latest"])])
        if existing not in ("0x", None):
            self.stderr.write(f"Already deployed at {address}; give POT_DEPLOY_BLOCK from its deployment.")
            return 0
        nonce, balance, fees, _ = read_account(client, address=deployer.address)
        if balance < fees.cost(DEPLOY_GAS):
            raise CommandError(f"{deployer.address} cannot pay the deployment's gas: send it ETH first.")
        signed = sign(deployer, nonce=nonce, to=CREATE2_FACTORY, data=factory_calldata(code), gas=DEPLOY_GAS, fees=fees)
        if broadcast(client, signed.raw).outcome not in (SENT, UNKNOWN):
            raise CommandError("The node refused the deployment.")
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            (receipt,) = rpc_batch(client, [("eth_getTransactionReceipt", [signed.hash])])
            if receipt is not None:
                if as_int(receipt["status"]) != 1:
                    raise CommandError(f"The deployment {signed.hash} reverted.")
                return as_int(receipt["blockNumber"])
            time.sleep(2)
        raise CommandError(f"The deployment {signed.hash} was not mined within {timeout:.0f} s.")
