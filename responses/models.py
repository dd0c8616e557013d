"""A player's side of a challenge: the stakes in the pot (as its Staked events say), the guesses the
site holds for them, the signed stakes it was asked to relay, and the pot's payments and refunds.

Stakes and payments are projections of the pot's events, rebuilt by the chain app's follower
(chain/pot/follow.py) whenever the events of their blocks change (a reorg included); nothing else
writes them. A guess and a signed stake are what players sent the site."""

from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower


class Stake(models.Model):
    """One Staked event of the pot (docs/protocol.md section 2, "Stakes"). Confirmed once its block is
    CHAIN_CONFIRMATIONS deep (challenges.models.ChainClock gives the head)."""

    challenge = models.ForeignKey("challenges.Challenge", on_delete=models.PROTECT, related_name="stakes")
    seq = models.PositiveIntegerField(help_text="The pot's sequence number: the chain order of the stakes.")
    payer = models.CharField(max_length=42, help_text="Lowercase 0x address.")
    amount_units = models.DecimalField(max_digits=78, decimal_places=0)
    commitment = models.CharField(max_length=64, help_text="The guess commitment, lowercase hex.")
    transaction_hash = models.CharField(max_length=66)
    block_number = models.BigIntegerField()
    block_hash = models.CharField(max_length=66)
    log_index = models.IntegerField()
    block_time = models.DateTimeField()
    # From GuessRevealed: null until its guess is revealed on chain, then the pot's verdict.
    revealed_correct = models.BooleanField(null=True, blank=True)

    class Meta:
        ordering = ["challenge_id", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["challenge", "seq"], name="stake_one_per_seq"),
            models.CheckConstraint(condition=Q(payer=Lower("payer")), name="stake_payer_lowercase"),
        ]
        indexes = [
            models.Index(fields=["payer", "-block_number"], name="stake_payer"),
            models.Index(fields=["challenge", "payer", "commitment"], name="stake_commitment"),
            models.Index(fields=["commitment"], name="stake_commitment_only"),
        ]

    def __str__(self) -> str:
        return f"Stake #{self.seq} of challenge #{self.challenge_id}"


class Guess(models.Model):
    """The guess of a payer's stake(s) with this commitment, sent by the player's page once the stake
    was confirmed in the pot (docs/protocol.md 3.2). Secret until the solution is revealed on chain."""

    challenge = models.ForeignKey("challenges.Challenge", on_delete=models.PROTECT, related_name="guesses")
    payer = models.CharField(max_length=42)
    commitment = models.CharField(max_length=64)
    text = models.CharField(max_length=64, help_text='Canonical "lat, lon".')
    salt = models.CharField(max_length=64)
    lat_e6 = models.IntegerField()
    lon_e6 = models.IntegerField()
    # Set once the solution is revealed on chain (or at once, for a guess received after it): the
    # integer rule's verdict (challenges/geometry.py) and the haversine shown beside it.
    is_correct = models.BooleanField(null=True, blank=True)
    distance_m = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["challenge", "payer", "commitment"], name="guess_one_per_commitment"),
            models.CheckConstraint(condition=Q(payer=Lower("payer")), name="guess_payer_lowercase"),
        ]
        # The guesses of a page of stakes are found by their commitments (responses/selectors.py).
        indexes = [models.Index(fields=["challenge", "commitment"], name="guess_commitment")]

    def __str__(self) -> str:
        return f"Guess of {self.payer} on challenge #{self.challenge_id}"


class RelayStatus(models.TextChoices):
    QUEUED = "queued", "Queued: the relayer will send it"
    SENT = "sent", "Sent by the relayer"
    REFUSED = "refused", "Refused by the relayer: the player may send it"
    NOT_NEEDED = "not_needed", "Sent by someone else first"
    FAILED = "failed", "Could not be sent"


class SignedStake(models.Model):
    """A stake a player signed for the relayer to send (docs/protocol.md 3.1): no guess, only what the
    signature carries. Unique per challenge, payer and commitment."""

    challenge = models.ForeignKey("challenges.Challenge", on_delete=models.PROTECT, related_name="signed_stakes")
    payer = models.CharField(max_length=42)
    amount_units = models.DecimalField(max_digits=78, decimal_places=0)
    commitment = models.CharField(max_length=64)
    nonce = models.CharField(max_length=64, help_text="The stake nonce the payer signed, lowercase hex.")
    valid_after = models.BigIntegerField()
    valid_before = models.BigIntegerField()
    signature = models.CharField(max_length=132, help_text="0x r ‖ s ‖ v, lowercase.")
    relay_status = models.CharField(max_length=16, choices=RelayStatus.choices, default=RelayStatus.QUEUED)
    relay_code = models.CharField(max_length=24, blank=True)
    relay_reason = models.CharField(max_length=300, blank=True)
    relay_transaction_hash = models.CharField(max_length=66, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["challenge", "payer", "commitment"], name="signed_stake_one"),
            models.CheckConstraint(condition=Q(payer=Lower("payer")), name="signed_stake_payer_lowercase"),
        ]
        indexes = [
            models.Index(fields=["relay_status", "id"], name="signed_stake_queue"),
            models.Index(fields=["payer", "-id"], name="signed_stake_payer"),
            models.Index(fields=["commitment"], name="signed_stake_commitment"),
        ]

    def __str__(self) -> str:
        return f"Signed stake {self.pk} of {self.payer} ({self.relay_status})"


class PaymentKind(models.TextChoices):
    EARLIEST = "earliest", "Earliest correct (40 %)"
    HIGHEST = "highest", "Highest staked correct (40 %)"
    SHARE = "share", "Share (20 %) and bond"
    REFUND = "refund", "Refund"


class PotPayment(models.Model):
    """One Paid or Refunded event of the pot."""

    challenge = models.ForeignKey("challenges.Challenge", on_delete=models.PROTECT, related_name="pot_payments")
    kind = models.CharField(max_length=16, choices=PaymentKind.choices)
    seq = models.PositiveIntegerField(null=True, blank=True, help_text="The stake paid or refunded; null: share.")
    to = models.CharField(max_length=42)
    amount_units = models.DecimalField(max_digits=78, decimal_places=0)
    bond_units = models.DecimalField(max_digits=78, decimal_places=0, default=0)
    transaction_hash = models.CharField(max_length=66)
    block_number = models.BigIntegerField()
    log_index = models.IntegerField()

    class Meta:
        ordering = ["challenge_id", "block_number", "log_index"]
        constraints = [
            models.UniqueConstraint(fields=["transaction_hash", "log_index"], name="pot_payment_one_per_log"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of challenge #{self.challenge_id}"
