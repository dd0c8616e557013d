from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower


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


class RelayerAccount(models.Model):
    """Geopoem's relayer (docs/protocol.md section 2a, "The relayer"): the address of RELAYER_KEY,
    the next nonce it will use (read from the chain the first time, then kept here so that many
    stakes go out per block without waiting for receipts), its last balance read and the alarm. One
    row per address: a new key starts a new row, and the old one keeps its history.

    The row is also the relayer's lock: every send and every re-send runs under SELECT ... FOR
    UPDATE on it (chain/relayer.py), so one sender at a time allocates nonces, in any number of
    workers."""

    address = models.CharField(max_length=42, unique=True)
    # None until the first read of the chain's pending transaction count.
    next_nonce = models.BigIntegerField(null=True, blank=True)
    balance_wei = models.DecimalField(max_digits=78, decimal_places=0, null=True, blank=True)
    balance_read_at = models.DateTimeField(null=True, blank=True)
    # What one relayed stake may cost at the fees of the last read (RELAY_GAS x maxFeePerGas): the
    # POST's admission compares the balance with it without reading the chain.
    stake_cost_wei = models.DecimalField(max_digits=78, decimal_places=0, null=True, blank=True)
    # Below RELAY_BALANCE_ALARM_WEI at the last read; set and cleared by conditional UPDATEs, so the
    # error is logged once per crossing however many workers read the balance.
    alarm = models.BooleanField(default=False)
    alarm_since = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "relayer"
        verbose_name_plural = "relayer"

    def __str__(self) -> str:
        return f"Relayer {self.address}"


class RelayTxStatus(models.TextChoices):
    SENT = "sent", "In flight: sent, not mined yet"
    MINED = "mined", "Mined"
    REVERTED = "reverted", "Mined, reverted"
    # The nonce was used by a transaction the relayer has no record of (the key used elsewhere).
    LOST = "lost", "Nonce used by another transaction"


class RelayTxKind(models.TextChoices):
    STAKE = "stake", "A player's authorization"
    # A 0-value transfer to itself that takes the nonce of a stuck stake no longer worth sending.
    FILLER = "filler", "Nonce filler"


class RelayTransaction(models.Model):
    """One nonce the relayer used: the claim it carries (None only for a filler that never carried
    one), every transaction sent under it (a re-send with higher fees, or a filler that replaces
    it, has a new hash: `attempts`), the fees of the latest, and what the receipt said."""

    account = models.ForeignKey(RelayerAccount, on_delete=models.PROTECT, related_name="transactions")
    nonce = models.BigIntegerField()
    response = models.ForeignKey(
        "responses.Response", null=True, blank=True, on_delete=models.SET_NULL, related_name="relay_transactions"
    )
    # The kind of the latest attempt, then of the one that was mined.
    kind = models.CharField(max_length=8, choices=RelayTxKind.choices, default=RelayTxKind.STAKE)
    # The latest attempt's hash; once mined, the mined one's.
    transaction_hash = models.CharField(max_length=66)
    # Every attempt, oldest first: {"hash", "kind", "maxFeePerGas", "maxPriorityFeePerGas", "raw", "at"}.
    # The raw signed bytes are kept so that a transaction the node forgot is sent again as it was.
    attempts = models.JSONField(default=list)
    max_fee_per_gas = models.DecimalField(max_digits=78, decimal_places=0)
    max_priority_fee_per_gas = models.DecimalField(max_digits=78, decimal_places=0)
    gas_limit = models.BigIntegerField()
    # gas_limit x max_fee_per_gas of the latest attempt: what it may cost at most while in flight.
    max_cost_wei = models.DecimalField(max_digits=78, decimal_places=0)
    status = models.CharField(max_length=8, choices=RelayTxStatus.choices, default=RelayTxStatus.SENT)
    # Why a filler replaced the stake (a relay_reasons code), applied to the claim once it is mined.
    replaced_because = models.CharField(max_length=24, blank=True)
    sent_at = models.DateTimeField()
    resent_at = models.DateTimeField(null=True, blank=True)
    mined_at = models.DateTimeField(null=True, blank=True)
    block_number = models.BigIntegerField(null=True, blank=True)
    gas_used = models.BigIntegerField(null=True, blank=True)
    effective_gas_price = models.DecimalField(max_digits=78, decimal_places=0, null=True, blank=True)
    cost_wei = models.DecimalField(max_digits=78, decimal_places=0, null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-nonce"]
        constraints = [
            # One row per nonce: two senders can never both believe they hold it.
            models.UniqueConstraint(fields=["account", "nonce"], name="relay_tx_one_per_nonce"),
            models.CheckConstraint(
                condition=Q(transaction_hash=Lower("transaction_hash")), name="relay_tx_hash_lowercase"
            ),
        ]
        indexes = [
            # In flight (the watcher, the admin) and the spending of the last 24 hours (the limits).
            models.Index(fields=["account", "status", "mined_at"], name="relay_tx_status_mined"),
            models.Index(fields=["account", "created_at"], name="relay_tx_created"),
            models.Index(fields=["transaction_hash"], name="relay_tx_hash"),
        ]

    def __str__(self) -> str:
        return f"Relayer nonce {self.nonce} ({self.status})"
