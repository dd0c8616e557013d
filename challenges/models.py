"""A challenge: what staff write, the terms it is opened on in the pot (docs/protocol.md section 2),
and what the chain has said of it since (filled by the chain app's follower, chain/pot/follow.py)."""

from decimal import Decimal

from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from .sanitize import sanitize_html


class ChallengeStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    PUBLISHED = "published", "Published"


class Challenge(models.Model):
    poem_title = models.CharField(max_length=200)
    poem_text = models.TextField(help_text="Sanitised HTML.")
    instructions_text = models.TextField(blank=True, help_text="Sanitised HTML.")
    proximity_threshold_m = models.PositiveIntegerField(
        null=True, blank=True, help_text="Metres. Empty is shown 'Not specified' and opened as 0 m: an exact hit."
    )
    # Secrets until the solution is revealed on chain: the canonical "lat, lon" and its salt. The
    # commitment (docs/protocol.md section 1) binds the chain and the pot, so it is computed again at
    # publish for the pot configured then.
    solution = models.CharField(max_length=64)
    solution_salt = models.CharField(max_length=64)
    solution_sha256 = models.CharField(max_length=64)

    # The terms staff choose; fixed on chain at publish.
    min_stake = models.DecimalField(max_digits=20, decimal_places=6, default=Decimal("1"))
    bond = models.DecimalField(max_digits=20, decimal_places=6, default=Decimal("0"))
    closes_at = models.DateTimeField(null=True, blank=True, help_text="When the pot stops taking stakes.")
    solution_deadline = models.DateTimeField(null=True, blank=True)
    guess_window_seconds = models.PositiveIntegerField(default=86_400)

    status = models.CharField(max_length=16, choices=ChallengeStatus.choices, default=ChallengeStatus.DRAFT)
    opens_at = models.DateTimeField(null=True, blank=True, help_text="Set at publish: stakes are taken from here.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["status", "-closes_at"], name="challenge_status_closes")]

    def __str__(self) -> str:
        return f"Challenge #{self.pk}: {self.poem_title}"

    def save(self, *args, **kwargs) -> None:
        # Whatever path writes the poem (admin, a service, a shell), players only get allow-listed HTML.
        update_fields = kwargs.get("update_fields")
        if update_fields is None or "poem_text" in update_fields:
            self.poem_text = sanitize_html(self.poem_text)
        if update_fields is None or "instructions_text" in update_fields:
            self.instructions_text = sanitize_html(self.instructions_text)
        super().save(*args, **kwargs)

    @property
    def is_published(self) -> bool:
        """Published once: the terms players saw can no longer change."""
        return self.status != ChallengeStatus.DRAFT


class OpeningStatus(models.TextChoices):
    QUEUED = "queued", "Queued: waiting for the worker to send it"
    SENT = "sent", "Sent: waiting for the transaction to be deep enough"
    CONFIRMED = "confirmed", "Opened on chain"
    FAILED = "failed", "Failed: see the error, then retry"


class PotOpening(models.Model):
    """The operator's `open` of a published challenge in the pot (docs/protocol.md section 2, "Terms,
    opened once"). The exact terms are fixed here when it is queued, so a retry sends exactly what the
    first attempt sent; the worker moves it (chain/pot/opening.py). Players can stake only once it is
    `confirmed` (the pot's Opened event CHAIN_CONFIRMATIONS deep, with these terms)."""

    challenge = models.OneToOneField(Challenge, on_delete=models.PROTECT, related_name="opening")
    status = models.CharField(max_length=16, choices=OpeningStatus.choices, default=OpeningStatus.QUEUED)
    pot_address = models.CharField(max_length=42, help_text="Checksummed pot contract.")
    # The Terms tuple as sent (docs/protocol.md section 2): hex without 0x for the hashes, ints.
    terms = models.JSONField()
    # keccak of the terms (docs/protocol.md section 2): what every signed stake binds.
    terms_digest = models.CharField(max_length=64, blank=True)
    terms_sha256 = models.CharField(max_length=64)

    transaction_hash = models.CharField(max_length=66, blank=True)
    sender_address = models.CharField(max_length=42, blank=True)
    nonce = models.BigIntegerField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    block_number = models.BigIntegerField(null=True, blank=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["status", "updated_at"], name="opening_status_updated")]

    def __str__(self) -> str:
        return f"Opening of challenge #{self.challenge_id}: {self.status}"


class PotState(models.Model):
    """What the pot's events say of a challenge, as of the latest block the follower read: rebuilt
    from the events on every change (chain/pot/follow.py), never written by anything else. Times
    are the chain's (block timestamps)."""

    challenge = models.OneToOneField(Challenge, on_delete=models.CASCADE, related_name="pot")
    opened_block = models.BigIntegerField(null=True, blank=True)
    opened_transaction = models.CharField(max_length=66, blank=True)
    terms_digest = models.CharField(max_length=64, blank=True)
    # Confirmed stakes (CHAIN_CONFIRMATIONS deep): the pot players see as staked.
    staked_units = models.DecimalField(max_digits=78, decimal_places=0, default=0)
    stake_count = models.PositiveIntegerField(default=0)
    # The first block the follower saw at or after closesAt: the solution is revealed once it is deep.
    close_block = models.BigIntegerField(null=True, blank=True)
    solution_lat_e6 = models.IntegerField(null=True, blank=True)
    solution_lon_e6 = models.IntegerField(null=True, blank=True)
    solution_block = models.BigIntegerField(null=True, blank=True)
    guess_deadline = models.DateTimeField(null=True, blank=True)
    # The best correct guesses revealed so far (sequence numbers; null: none).
    earliest_seq = models.PositiveIntegerField(null=True, blank=True)
    highest_seq = models.PositiveIntegerField(null=True, blank=True)
    finalized_block = models.BigIntegerField(null=True, blank=True)
    # Every payment the pot owed is made: prizes and share, or every refund.
    settled = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Pot state of challenge #{self.challenge_id}"


class ChainClock(models.Model):
    """The latest block the follower read: its number and timestamp are the site's "now" for every
    rule the pot judges by block time (the phases of docs/protocol.md 3.6). One row."""

    block_number = models.BigIntegerField()
    block_hash = models.CharField(max_length=66)
    block_time = models.DateTimeField()
    # The highest block deep enough to count (CHAIN_CONFIRMATIONS below the head, or the finalized one).
    confirmed_block = models.BigIntegerField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(block_hash=Lower("block_hash")), name="clock_hash_lowercase"),
        ]

    def __str__(self) -> str:
        return f"Block {self.block_number} at {self.block_time:%Y-%m-%d %H:%M:%S}"
