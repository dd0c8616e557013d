from django.db import models
from django.db.models import Q


class Payment(models.Model):
    """The ledger of what the chain says: one row per USDC Transfer log to the treasury.

    Rows come from the indexer (every transfer to the treasury, claimed or not) and from
    verification (the log that backs a confirmed claim). A row whose response is empty is an
    unclaimed payment: a stake whose claim never reached the server; posting the claim for its
    transaction hash later confirms it and links it here."""

    transaction_hash = models.CharField(max_length=66)
    log_index = models.IntegerField()
    block_number = models.BigIntegerField()
    block_hash = models.CharField(max_length=66)
    transaction_index = models.IntegerField()
    from_address = models.CharField(max_length=42)
    to_address = models.CharField(max_length=42)
    # uint256 in token units: 78 decimal digits hold any uint256, no floats anywhere.
    amount_units = models.DecimalField(max_digits=78, decimal_places=0)
    # The trailing calldata words, when the transaction called the token with the extended transfer.
    commitment = models.CharField(max_length=64, blank=True)
    challenge_id_word = models.DecimalField(max_digits=78, decimal_places=0, null=True, blank=True)
    timestamp_word = models.DecimalField(max_digits=78, decimal_places=0, null=True, blank=True)
    block_timestamp = models.DateTimeField(null=True, blank=True)
    # The claim that names this transaction (any status). Unclaimed payments are found by the
    # transaction hash, not only this link (see selectors.payments_unclaimed).
    response = models.ForeignKey(
        "responses.Response", null=True, blank=True, on_delete=models.SET_NULL, related_name="payments"
    )
    # Set when a rescan no longer finds the log in the canonical chain (a reorg took it away).
    removed = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-block_number", "-log_index"]
        constraints = [
            models.UniqueConstraint(fields=["transaction_hash", "log_index"], name="payment_tx_log_unique"),
            models.CheckConstraint(condition=Q(amount_units__gte=0), name="payment_amount_nonnegative"),
        ]
        indexes = [
            models.Index(fields=["block_number"], name="payment_block"),
            models.Index(fields=["transaction_hash"], name="payment_tx"),
        ]

    def __str__(self) -> str:
        return f"Payment {self.transaction_hash}#{self.log_index} ({self.amount_units} units)"


class ChainCursor(models.Model):
    """Where the indexer stopped: the last block it scanned, by name (one row per scan), and that
    block's time: resolution waits until it is after the challenge's close (responses/barrier.py),
    so every payment mined in the open window is in the ledger before staff resolve."""

    name = models.CharField(max_length=64, unique=True)
    block_number = models.BigIntegerField()
    block_time = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.name} at block {self.block_number}"
