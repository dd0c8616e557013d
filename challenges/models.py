from decimal import Decimal

from django.db import models
from django.db.models import Q


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

    @property
    def is_resolved(self) -> bool:
        return self.status == ChallengeStatus.RESOLVED
