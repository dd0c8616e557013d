"""Deploy the terms registry (contracts/TermsRegistry.sol; docs/protocol.md section 6) on the
configured chain, owned by the operator key, and print the address to set.

    ANCHOR_OPERATOR_KEY=0x... python manage.py deploy_registry

The operator key (ANCHOR_OPERATOR_KEY) signs and pays: its address needs a little ETH for gas and
nothing else (never USDC; it is not the treasury). Refuses when it cannot pay. Prints
ANCHOR_REGISTRY_ADDRESS=<address>: set it in the web and worker environment (README, "Deploy")."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from chain.client import ChainUnavailable, get_client
from chain.registry import RegistryDeployError, operator_account, registry_deploy


class Command(BaseCommand):
    help = "Deploy TermsRegistry owned by ANCHOR_OPERATOR_KEY on the configured chain; prints its address."

    def add_arguments(self, parser):
        parser.add_argument("--timeout", type=float, default=300.0, help="Seconds to wait for the deployment.")

    def handle(self, *args, timeout: float = 300.0, **options):
        if not settings.ANCHOR_OPERATOR_KEY:
            raise CommandError("ANCHOR_OPERATOR_KEY is not set: the registry's owner signs and pays its deployment.")
        try:
            owner = operator_account().address
        except Exception as exc:  # any malformed key; never echo it
            raise CommandError("ANCHOR_OPERATOR_KEY must be a private key: 0x and 64 hex characters.") from exc
        self.stderr.write(f"Deploying TermsRegistry on chain {settings.CHAIN_ID}, owned by {owner} ...")
        try:
            registry = registry_deploy(get_client(), timeout=timeout)
        except RegistryDeployError as exc:
            raise CommandError(str(exc)) from exc
        except ChainUnavailable as exc:
            raise CommandError(f"No RPC node answered: {exc}") from exc
        self.stderr.write(f"Deployed. Its owner is {owner}; set this in the web and worker environment:")
        self.stdout.write(f"ANCHOR_REGISTRY_ADDRESS={registry}")
