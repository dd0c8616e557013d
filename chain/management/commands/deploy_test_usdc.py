"""Deploy the project's test USDC to a local node (anvil) and mint to given accounts.

    python manage.py deploy_test_usdc --rpc-url http://127.0.0.1:8545 --mint 0xabc...:1000

Prints USDC_ADDRESS=<address> (and one line per mint) so a script can export it. For local
nodes only: it deploys from the node's first unlocked account."""

from decimal import Decimal

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from web3 import HTTPProvider, Web3

from chain.contracts import deploy, mint


class Command(BaseCommand):
    help = "Deploy TestUSDC (6 decimals) to a local node and mint to accounts; prints USDC_ADDRESS=..."

    def add_arguments(self, parser):
        parser.add_argument("--rpc-url", default=None, help="Default: the first of CHAIN_RPC_URLS.")
        parser.add_argument(
            "--mint",
            dest="mints",
            action="append",
            default=[],
            metavar="ADDRESS:AMOUNT",
            help="Mint AMOUNT whole USDC (a decimal, 6 places at most) to ADDRESS. Repeatable.",
        )
        parser.add_argument("--from", dest="sender", default=None, help="Deployer (default: the node's first account).")

    def handle(self, *args, rpc_url=None, mints=(), sender=None, **options):
        url = rpc_url or settings.CHAIN_RPC_URLS[0]
        w3 = Web3(HTTPProvider(url, request_kwargs={"timeout": settings.CHAIN_RPC_TIMEOUT_SECONDS}))
        if not w3.is_connected():
            raise CommandError(f"no node answers at {url}")
        accounts = w3.eth.accounts
        sender = sender or (accounts[0] if accounts else None)
        if sender is None:
            raise CommandError("the node holds no unlocked account to deploy from")
        plans = []
        for item in mints:
            address, _, amount = item.partition(":")
            if not Web3.is_address(address) or not amount:
                raise CommandError(f"--mint expects ADDRESS:AMOUNT, got {item!r}")
            units = Decimal(amount) * 10**settings.TOKEN_DECIMALS
            if units != units.to_integral_value() or units < 0:
                raise CommandError(f"amount {amount} has more than {settings.TOKEN_DECIMALS} decimals")
            plans.append((Web3.to_checksum_address(address), int(units)))
        token = deploy(w3, "TestUSDC", sender=sender)
        self.stdout.write(f"USDC_ADDRESS={token}")
        for address, units in plans:
            mint_hash = mint(w3, token, address, units, sender=sender)
            self.stdout.write(f"MINTED {address} {units} units in {mint_hash}")
