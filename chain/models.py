"""The chain app's own records: the pot's events as the follower read them (chain/pot/follow.py), the
calls the site sends to the pot (the outbox the relayer sends from: chain/relayer/), and the relayer's
account and transactions."""

from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower


class PotEvent(models.Model):
    """One log of the pot, decoded (docs/protocol.md section 2, "Events and views"). The follower
    replaces the rows of the blocks it reads again (the last CHAIN_REORG_DEPTH_BLOCKS) with what the
    node says now, so a reorg takes its events with it; the projections (stakes, payments, the
    challenge's pot state) are rebuilt from these rows."""

    block_number = models.BigIntegerField()
    block_hash = models.CharField(max_length=66)
    block_time = models.DateTimeField()
    transaction_hash = models.CharField(max_length=66)
    log_index = models.IntegerField()
    name = models.CharField(max_length=24)
    challenge_id = models.BigIntegerField(null=True, blank=True, help_text="Null for Swept.")
    # The event's fields by name; integers beyond JavaScript's range as decimal strings.
    args = models.JSONField()

    class Meta:
        ordering = ["block_number", "log_index"]
        constraints = [
            models.UniqueConstraint(fields=["block_number", "log_index"], name="pot_event_one_per_log"),
        ]
        indexes = [models.Index(fields=["challenge_id", "name", "block_number"], name="pot_event_challenge")]

    def __str__(self) -> str:
        return f"{self.name} in block {self.block_number}"


class PotCallKind(models.TextChoices):
    STAKE = "stake", "A player's signed stake"
    REVEAL_SOLUTION = "reveal_solution", "Reveal the solution"
    REVEAL_GUESS = "reveal_guess", "Reveal a guess"
    FINALIZE = "finalize", "Finalize"
    PAY_PRIZE = "pay_prize", "Pay a prize"
    PAY_SHARE = "pay_share", "Pay the share"
    REFUND = "refund", "Refund a stake"


class PotCallStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    SENT = "sent", "Sent"
    DONE = "done", "Mined"
    NOT_NEEDED = "not_needed", "Not needed any more"
    REFUSED = "refused", "Refused by the relayer's limits"
    FAILED = "failed", "Failed"


ACTIVE_CALL_STATUSES = (PotCallStatus.QUEUED, PotCallStatus.SENT)


class PotCall(models.Model):
    """One call of the pot the site sends with the relayer's key (docs/protocol.md section 3): a
    player's signed stake, or a step of the game anyone may take (a reveal, finalize, a payment, a
    refund). Sent in the order queued; `key` names what it does, and one call per key is active at a
    time, so a step queued twice (two workers, a task run again) is sent once."""

    kind = models.CharField(max_length=16, choices=PotCallKind.choices)
    key = models.CharField(max_length=80, help_text='What it does, e.g. "refund:7:12".')
    challenge = models.ForeignKey("challenges.Challenge", on_delete=models.PROTECT, related_name="pot_calls")
    signed_stake = models.OneToOneField(
        "responses.SignedStake", null=True, blank=True, on_delete=models.PROTECT, related_name="call"
    )
    data = models.TextField(help_text="The calldata, 0x hex.")
    gas = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=PotCallStatus.choices, default=PotCallStatus.QUEUED)
    code = models.CharField(max_length=32, blank=True)
    reason = models.CharField(max_length=300, blank=True)
    transaction_hash = models.CharField(max_length=66, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["key"], condition=Q(status__in=["queued", "sent"]), name="pot_call_one_active_per_key"
            ),
        ]
        indexes = [
            models.Index(fields=["status", "id"], name="pot_call_queue"),
            models.Index(fields=["key", "-id"], name="pot_call_key"),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.status})"


class RelayerAccount(models.Model):
    """Geopoem's relayer (docs/protocol.md section 3): the address of RELAYER_KEY, the next nonce it
    will use (read from the chain the first time, then kept here so that many stakes go out per
    block without waiting for receipts), its last balance read and the alarm. One
    row per address: a new key starts a new row, and the old one keeps its history.

    The row is also the relayer's lock: every send and every re-send runs under SELECT ... FOR
    UPDATE on it (chain/relayer/services.py), so one sender at a time allocates nonces, in any number of
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
    CALL = "call", "A call of the pot"
    # A 0-value transfer to itself that takes the nonce of a stuck stake no longer worth sending.
    FILLER = "filler", "Nonce filler"


class RelayTransaction(models.Model):
    """One nonce the relayer used: the pot call it carries (None only for a filler that never carried
    one), every transaction sent under it (a re-send with higher fees, or a filler that replaces
    it, has a new hash: `attempts`), the fees of the latest, and what the receipt said."""

    account = models.ForeignKey(RelayerAccount, on_delete=models.PROTECT, related_name="transactions")
    nonce = models.BigIntegerField()
    call = models.ForeignKey(
        "PotCall", null=True, blank=True, on_delete=models.SET_NULL, related_name="relay_transactions"
    )
    # The kind of the latest attempt, then of the one that was mined.
    kind = models.CharField(max_length=8, choices=RelayTxKind.choices, default=RelayTxKind.CALL)
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
    # Why a filler replaced the call (a relay reason code), applied to the call once it is mined.
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
