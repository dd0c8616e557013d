"""The relayer's side of the chain tests: anvil with its automine off (blocks only when the test mines
them), a signed stake's relay status as the site stored it, and the relayer's nonces checked gap-free
against the chain."""

from __future__ import annotations

from .conftest import Chain
from .pot_support import SignedStake


class Mining:
    """anvil's automine switched off and on again: blocks only when the test mines them."""

    def __init__(self, chain: Chain) -> None:
        self.chain = chain

    def __enter__(self) -> Mining:
        self.chain.rpc("evm_setAutomine", [False])
        return self

    def mine(self, blocks: int = 1) -> None:
        self.chain.mine(blocks)

    def pool(self) -> int:
        status = self.chain.rpc("txpool_status")
        return int(status["pending"], 16) + int(status["queued"], 16)

    def __exit__(self, *exc) -> None:
        self.chain.rpc("evm_setAutomine", [True])


def relay_status(signed: SignedStake) -> tuple[str, str]:
    """(relay status, relay code) of the signed stake the site stored."""
    from responses.models import SignedStake as Row

    row = Row.objects.get(commitment=signed.commitment)
    return row.relay_status, row.relay_code


def assert_gap_free(chain: Chain) -> None:
    """Every nonce the relayer used has one row, in order, and the chain used exactly those."""
    from chain.models import RelayerAccount, RelayTransaction

    nonces = list(RelayTransaction.objects.order_by("nonce").values_list("nonce", flat=True))
    assert nonces == list(range(nonces[0], nonces[0] + len(nonces))), nonces
    on_chain = chain.w3.eth.get_transaction_count(chain.w3.to_checksum_address(chain.relayer), "pending")
    assert RelayerAccount.objects.get(address=chain.relayer).next_nonce == nonces[-1] + 1 == on_chain
