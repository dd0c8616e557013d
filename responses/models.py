from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower, Upper


class ResponseStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    CONFIRMED = "confirmed", "Confirmed"
    REJECTED = "rejected", "Rejected"


class PaymentMethod(models.TextChoices):
    """How a claim's stake is paid (docs/protocol.md sections 2 and 2a)."""

    TRANSFER = "transfer", "Direct transfer from the player's wallet"
    AUTHORIZATION = "authorization", "Signed authorization (EIP-3009), relayed"


class Response(models.Model):
    """A player's claim: a guess backed by a stake transaction. It counts only once the chain
    confirms the payment (docs/protocol.md, section 3)."""

    challenge = models.ForeignKey("challenges.Challenge", on_delete=models.PROTECT, related_name="responses")
    submission_text = models.CharField(max_length=64, help_text='Canonical "lat, lon".')
    # The numbers of submission_text, kept so the database can score in bulk.
    submission_lat = models.DecimalField(max_digits=9, decimal_places=6)
    submission_lon = models.DecimalField(max_digits=10, decimal_places=6)
    submission_salt = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64, help_text="Guess commitment the calldata must carry.")
    submission_stake = models.DecimalField(max_digits=20, decimal_places=6)
    submission_timestamp = models.DateTimeField(null=True, blank=True, help_text="Block time once confirmed.")
    # db_default too: the web processes of the version before keep inserting transfer claims while the
    # release phase migrates (a rolling deploy), and their INSERTs name no such column.
    payment_method = models.CharField(
        max_length=16, choices=PaymentMethod.choices, default=PaymentMethod.TRANSFER, db_default=PaymentMethod.TRANSFER
    )
    # Not unique: anyone can read a stake's hash (in the mempool, before it is mined) and post a claim
    # on it first. Any number of claims may wait on one transaction; the one whose commitment the
    # calldata carries confirms, and at most one ever is (the constraints below). Empty for a claim
    # paid by authorization until a transaction that used its authorization is known.
    transaction_hash = models.CharField(max_length=66, blank=True)
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
    # Set when a claim rejected not_found or reorged was re-opened because its transaction turned up
    # mined after all (responses/reopening.py); its new deadline counts from here.
    reopened_at = models.DateTimeField(null=True, blank=True)
    # True once a read of the transaction (the POST's, chain/checks.py claim_check_at_post, or the
    # worker's, chain/verification.py) showed the payer's own claim: sent from submitter_address,
    # carrying this claim's commitment. Anyone can name any address in a claim; only such a claim,
    # or a confirmed one, is listed for the address (responses/selectors.py, response_list_by_address).
    sent_by_submitter = models.BooleanField(default=False)
    # The transaction's nonce as that read saw it (in the pool or mined): a wallet's "speed up" or
    # "cancel" replaces it with another transaction of the same sender and nonce (docs/protocol.md 3.3).
    sender_nonce = models.BigIntegerField(null=True, blank=True)
    # Set only by seed_demo (responses/demo.py): a made-up claim on no chain, confirmed without a
    # payment to show the resolved screens. A real claim, also one on a demo challenge, is never
    # marked, so it is verified and re-checked for reorgs like any other.
    is_demo = models.BooleanField(default=False, help_text="Seeded demonstration claim, never on a chain.")

    # Written at resolution on the correct responses only (True); every other row is left as it is,
    # so resolving a million responses writes a handful of rows, not a million. The distance is not
    # stored: it is computed in SQL when a page is read (responses/selectors.py), with the same
    # expression that decided this flag. Read correctness through that selector, not this column.
    is_correct = models.BooleanField(
        null=True, blank=True, help_text="True on the correct responses of a resolved challenge, else empty."
    )

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(transaction_hash=Lower("transaction_hash")), name="response_tx_hash_lowercase"
            ),
            # A direct transfer pays for one guess: whatever code runs, the database holds at most one
            # confirmed transfer claim per hash, so the stake is counted once. (One transaction may
            # use several authorizations, each its own stake: those are counted by the next one.)
            models.UniqueConstraint(
                fields=["transaction_hash"],
                condition=Q(status="confirmed", payment_method="transfer"),
                name="response_one_confirmed_per_tx",
            ),
            # The same guess (same commitment) on the same transaction is one row: a re-post is a
            # replay, also when twenty arrive at once.
            models.UniqueConstraint(
                fields=["transaction_hash", "commitment"],
                condition=Q(payment_method="transfer"),
                name="response_tx_commitment_unique",
            ),
            # An authorization's nonce is the commitment, and the token uses one authorization per
            # payer and nonce (the commitment binds the payer): one claim per commitment, whatever
            # transaction turns out to use it.
            models.UniqueConstraint(
                fields=["commitment"],
                condition=Q(payment_method="authorization"),
                name="response_one_claim_per_authorization",
            ),
        ]
        indexes = [
            models.Index(fields=["challenge", "status", "id"], name="response_challenge_status"),
            # A wallet's claims, newest first (GET /api/responses?address=, an `iexact` look-up: UPPER):
            # only the rows that list shows (responses/selectors.py, response_list_by_address), so
            # claims anyone posts naming an address cost that address's list nothing to skip.
            models.Index(
                Upper("submitter_address"),
                F("id").desc(),
                condition=Q(status="confirmed") | Q(sent_by_submitter=True),
                name="response_submitter_listed",
            ),
            models.Index(fields=["status", "updated_at"], name="response_status_updated"),
            # Resolution reads only the latitudes within the threshold of the solution (written once,
            # at the claim, and never changed: no cost to verification's HOT updates).
            models.Index(fields=["challenge", "submission_lat"], name="response_challenge_lat"),
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


class RelayStatus(models.TextChoices):
    """Where Geopoem's relayer is with a claim's authorization (docs/protocol.md 3.3a)."""

    QUEUED = "queued", "Queued: the relayer will send it, in arrival order"
    SENT = "sent", "Sent by the relayer"
    REFUSED = "refused", "Refused by the relayer: the player may send it"
    NOT_NEEDED = "not_needed", "Already used on chain when the relayer came to it"
    FAILED = "failed", "The relayer could not send it"


class StakeAuthorization(models.Model):
    """The signed EIP-3009 authorization that pays a claim (docs/protocol.md section 2a): the
    player's signature of a transfer of the stake to the treasury whose nonce is the claim's
    commitment. Kept so the relayer can submit it; the signature is never shown by the API.

    The relay's progress is mirrored here (written by the chain app's relayer through
    responses/authorizations.py), so the claim's answers can show it without reading the chain app."""

    response = models.OneToOneField(Response, on_delete=models.CASCADE, primary_key=True, related_name="authorization")
    valid_after = models.BigIntegerField(help_text="Unix seconds.")
    valid_before = models.BigIntegerField(help_text="Unix seconds: the token refuses it from this second on.")
    signature = models.CharField(max_length=132, help_text="0x + r, s, v (65 bytes).")
    # Where verification starts looking for the token's AuthorizationUsed log: a little before the
    # head seen when the claim was stored (null: from the challenge's anchor).
    search_from_block = models.BigIntegerField(null=True, blank=True)
    relay_status = models.CharField(max_length=16, choices=RelayStatus.choices, default=RelayStatus.QUEUED)
    relay_reason = models.CharField(max_length=300, blank=True, help_text="Shown to the player.")
    # Why, as a code a page decides on (chain/relay_reasons.py: switched_off, address_limit, budget,
    # funds, used, cancelled, expired, closed, balance, refused_by_token, reverted, lost); empty while
    # queued or sent.
    relay_code = models.CharField(max_length=32, blank=True, db_default="")
    relay_transaction_hash = models.CharField(max_length=66, blank=True, help_text="The relayer's latest transaction.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["relay_status", "created_at"], name="authorization_relay_queue")]

    def __str__(self) -> str:
        return f"Authorization of response #{self.response_id} ({self.relay_status})"


class ExceptionKind(models.TextChoices):
    AFTER_RESOLUTION = "after_resolution", "Confirmed after resolution started: not counted"
    REORGED = "reorged", "Block left the chain after resolution started: still counted"


class ResolutionException(models.Model):
    """A claim the chain changed after its challenge's resolution had started. Resolution is a
    barrier (docs/protocol.md section 4, "Close, grace period and resolution"): the sums the
    winners and payouts were computed from never move again, so such a change is recorded here,
    for staff (the admin) and for everyone (the winners answer), instead of moving them.

    - `after_resolution`: a payment that passed every check reached the site too late; its claim is
      rejected with that code and its stake is not in the pot.
    - `reorged`: a counted claim's block left the chain; the claim stays confirmed and counted, and
      the verifiers report its missing payment.

    Written by responses/barrier.py (once per claim and kind); staff settle it with a note."""

    challenge = models.ForeignKey(
        "challenges.Challenge", on_delete=models.PROTECT, related_name="resolution_exceptions"
    )
    response = models.ForeignKey(Response, on_delete=models.PROTECT, related_name="resolution_exceptions")
    kind = models.CharField(max_length=24, choices=ExceptionKind.choices)
    stake = models.DecimalField(max_digits=20, decimal_places=6, help_text="USDC, the claim's stake.")
    transaction_hash = models.CharField(max_length=66)
    created_at = models.DateTimeField(auto_now_add=True)
    staff_note = models.TextField(blank=True, help_text="What staff did about it (a refund, a payout, nothing).")
    settled_at = models.DateTimeField(null=True, blank=True)
    settled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["id"]
        constraints = [
            # A beat that finds the same reorged claim again, or two workers confirming one claim,
            # record it once.
            models.UniqueConstraint(fields=["response", "kind"], name="resolution_exception_once"),
        ]
        indexes = [models.Index(fields=["challenge", "id"], name="resolution_exception_challenge")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: response #{self.response_id} of challenge #{self.challenge_id}"
