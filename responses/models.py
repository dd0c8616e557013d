from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower


class ResponseStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    CONFIRMED = "confirmed", "Confirmed"
    REJECTED = "rejected", "Rejected"


class Response(models.Model):
    """A player's claim: a guess backed by a stake transaction. It counts only once the chain
    confirms the payment."""

    challenge = models.ForeignKey("challenges.Challenge", on_delete=models.PROTECT, related_name="responses")
    submission_text = models.CharField(max_length=64, help_text='Canonical "lat, lon".')
    # The numbers of submission_text, kept so the database can score in bulk.
    submission_lat = models.DecimalField(max_digits=9, decimal_places=6)
    submission_lon = models.DecimalField(max_digits=10, decimal_places=6)
    submission_salt = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64, help_text="Guess commitment the calldata must carry.")
    submission_stake = models.DecimalField(max_digits=20, decimal_places=6)
    submission_timestamp = models.DateTimeField(null=True, blank=True, help_text="Block time once confirmed.")
    transaction_hash = models.CharField(max_length=66, unique=True)
    submitter_address = models.CharField(max_length=42)

    status = models.CharField(max_length=16, choices=ResponseStatus.choices, default=ResponseStatus.PENDING)
    rejection_code = models.CharField(max_length=32, blank=True)
    rejection_reason = models.CharField(max_length=300, blank=True)

    block_number = models.BigIntegerField(null=True, blank=True)
    block_hash = models.CharField(max_length=66, blank=True)
    transaction_index = models.IntegerField(null=True, blank=True)
    log_index = models.IntegerField(null=True, blank=True)
    # Set when a confirmed claim's block left the canonical chain; it is pending again until its
    # transaction returns (confirmed anew) or CHAIN_REORG_TIMEOUT_SECONDS pass (rejected, `reorged`).
    reorged_at = models.DateTimeField(null=True, blank=True)

    distance_m = models.FloatField(null=True, blank=True, help_text="Written at resolution.")
    is_correct = models.BooleanField(null=True, blank=True, help_text="Written at resolution.")

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(transaction_hash=Lower("transaction_hash")), name="response_tx_hash_lowercase"
            ),
        ]
        indexes = [
            models.Index(fields=["challenge", "status", "id"], name="response_challenge_status"),
            models.Index(fields=["status", "updated_at"], name="response_status_updated"),
            # Winners are indexed look-ups among the correct responses of a challenge.
            models.Index(
                fields=["challenge", "block_number", "transaction_index", "log_index"],
                condition=Q(is_correct=True),
                name="response_correct_chain_order",
            ),
            models.Index(
                fields=["challenge", "-submission_stake", "block_number", "transaction_index", "log_index"],
                condition=Q(is_correct=True),
                name="response_correct_by_stake",
            ),
        ]

    def __str__(self) -> str:
        return f"Response #{self.pk} to challenge #{self.challenge_id} ({self.status})"
