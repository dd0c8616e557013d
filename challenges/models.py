from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from .sanitize import sanitize_html


class ChallengeStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    ACTIVE = "active", "Active"
    CLOSED = "closed", "Closed"
    RESOLVED = "resolved", "Resolved"


class Challenge(models.Model):
    poem_title = models.CharField(max_length=200)
    poem_text = models.TextField(help_text="Sanitised HTML.")
    instructions_text = models.TextField(blank=True, help_text="Sanitised HTML.")
    proximity_threshold_m = models.PositiveIntegerField(
        null=True, blank=True, help_text="Metres. Empty is shown 'Not specified' and scored as 0 m."
    )
    # Secrets until resolution: the canonical "lat, lon" and its salt. Only the hash is public.
    solution = models.CharField(max_length=64)
    solution_salt = models.CharField(max_length=64)
    solution_sha256 = models.CharField(max_length=64)

    status = models.CharField(max_length=16, choices=ChallengeStatus.choices, default=ChallengeStatus.DRAFT)
    start_timestamp = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    # Confirmed claims only; moved atomically by verification.
    staked_sum = models.DecimalField(max_digits=20, decimal_places=6, default=Decimal("0"))
    response_count = models.PositiveIntegerField(default=0)

    is_demo = models.BooleanField(default=False, help_text="Seeded demonstration data, not a real challenge.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["status"], condition=Q(status="active"), name="challenge_at_most_one_active"
            ),
        ]
        indexes = [models.Index(fields=["status", "-resolved_at"], name="challenge_status_resolved")]

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
    def is_resolved(self) -> bool:
        return self.status == ChallengeStatus.RESOLVED

    @property
    def is_published(self) -> bool:
        """Published once: the commitment players saw can no longer change."""
        return self.status != ChallengeStatus.DRAFT


class ResolutionStatus(models.TextChoices):
    RUNNING = "running", "Resolving"
    DONE = "done", "Resolved"


class ChallengeResolution(models.Model):
    """One resolution run of a challenge, written when staff start it and moved by the worker.

    The one-to-one key is the guard against a second start: two clicks, two tabs or two staff
    members insert the same row and the database refuses the second. `last_response_id` is where the
    scoring got to (every confirmed response with a smaller or equal id is scored): each chunk moves it in
    the same transaction as its UPDATE, so a worker killed mid-way leaves a consistent point to resume
    from, and `scored` counts every response exactly once whatever the number of restarts."""

    challenge = models.OneToOneField(Challenge, on_delete=models.PROTECT, related_name="resolution")
    status = models.CharField(max_length=16, choices=ResolutionStatus.choices, default=ResolutionStatus.RUNNING)
    total = models.PositiveIntegerField(help_text="Confirmed responses to score.")
    scored = models.PositiveIntegerField(default=0)
    correct = models.PositiveIntegerField(default=0)
    last_response_id = models.BigIntegerField(default=0)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    started_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    payouts = models.PositiveIntegerField(default=0, help_text="Payout rows created when it finished.")
    runs = models.PositiveIntegerField(default=0, help_text="Times a worker picked it up (more than 1: resumed).")

    class Meta:
        indexes = [models.Index(fields=["status", "updated_at"], name="resolution_status_updated")]

    def __str__(self) -> str:
        return f"Resolution of challenge #{self.challenge_id}: {self.scored} of {self.total}"


class PayoutKind(models.TextChoices):
    EARLIEST = "earliest", "Earliest correct response (40 %)"
    HIGHEST = "highest", "Highest staked correct response (40 %)"
    OPERATIONS = "operations", "Operations (20 %)"


class PayoutStatus(models.TextChoices):
    DUE = "due", "Due: send it and record the transaction"
    VERIFYING = "verifying", "Recorded: being verified on chain"
    PAID = "paid", "Paid: verified on chain"
    FAILED = "failed", "Failed verification: record the right transaction"
    KEPT = "kept", "Kept in the treasury: nothing to send"


class Payout(models.Model):
    """One prize of a resolved challenge. Created at resolution with the exact amount; staff send
    it from the treasury and record the transaction; the worker marks it paid only once the chain
    shows a USDC Transfer from the treasury to `address` for exactly `amount`."""

    challenge = models.ForeignKey(Challenge, on_delete=models.PROTECT, related_name="payouts")
    kind = models.CharField(max_length=16, choices=PayoutKind.choices)
    response = models.ForeignKey(
        "responses.Response", null=True, blank=True, on_delete=models.PROTECT, related_name="payouts"
    )
    address = models.CharField(max_length=42, help_text="Checksummed recipient.")
    amount = models.DecimalField(max_digits=20, decimal_places=6, help_text="USDC, exact.")
    status = models.CharField(max_length=16, choices=PayoutStatus.choices, default=PayoutStatus.DUE)
    transaction_hash = models.CharField(max_length=66, blank=True, help_text="Lowercase 0x hash, recorded by staff.")
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="recorded_payouts"
    )
    recorded_at = models.DateTimeField(null=True, blank=True)
    failure_code = models.CharField(max_length=32, blank=True)
    failure_reason = models.CharField(max_length=300, blank=True)
    block_number = models.BigIntegerField(null=True, blank=True)
    log_index = models.IntegerField(null=True, blank=True)
    verified_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["challenge_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["challenge", "kind"], name="payout_one_per_prize"),
            # A transaction pays one prize: it cannot be recorded against a second one.
            models.UniqueConstraint(
                fields=["transaction_hash"], condition=~Q(transaction_hash=""), name="payout_tx_hash_unique"
            ),
            models.CheckConstraint(
                condition=Q(transaction_hash=Lower("transaction_hash")), name="payout_tx_hash_lowercase"
            ),
            models.CheckConstraint(condition=Q(amount__gt=0), name="payout_amount_positive"),
        ]
        indexes = [models.Index(fields=["status", "updated_at"], name="payout_status_updated")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of challenge #{self.challenge_id}: {self.amount} USDC"


class AnchorStatus(models.TextChoices):
    QUEUED = "queued", "Queued: waiting for the worker to send it"
    SENT = "sent", "Sent: waiting for the transaction to be deep enough"
    CONFIRMED = "confirmed", "Confirmed on chain"
    FAILED = "failed", "Failed: see the error, then retry"


class ChallengeAnchor(models.Model):
    """The anchor of a published challenge's terms in the registry contract (docs/protocol.md
    section 6). Written when staff publish (challenges/services.py, anchor_queue) and moved by the
    worker (chain/anchors.py) through the services below it; the challenge is open to claims only
    once this is `confirmed` (challenges/selectors.py, challenge_is_open). A demonstration challenge
    has none.

    The values to anchor are fixed here when it is queued, from the published challenge, so a retry
    sends exactly what the first attempt sent."""

    challenge = models.OneToOneField(Challenge, on_delete=models.PROTECT, related_name="anchor")
    status = models.CharField(max_length=16, choices=AnchorStatus.choices, default=AnchorStatus.QUEUED)
    registry_address = models.CharField(max_length=42, help_text="Checksummed registry contract.")
    solution_sha256 = models.CharField(max_length=64)
    terms_sha256 = models.CharField(max_length=64)
    opens_at = models.BigIntegerField(help_text="Unix seconds: the opening time, floored.")
    proximity_threshold_m = models.PositiveIntegerField(help_text="Metres; 0 when the challenge has none.")

    transaction_hash = models.CharField(max_length=66, blank=True, help_text="Lowercase 0x hash of the anchor.")
    sender_address = models.CharField(max_length=42, blank=True)
    nonce = models.BigIntegerField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    block_number = models.BigIntegerField(null=True, blank=True)
    block_hash = models.CharField(max_length=66, blank=True)
    block_timestamp = models.DateTimeField(null=True, blank=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)

    attempts = models.PositiveIntegerField(default=0, help_text="Transactions sent (re-sends included).")
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["status", "updated_at"], name="anchor_status_updated")]

    def __str__(self) -> str:
        return f"Anchor of challenge #{self.challenge_id}: {self.status}"
