"""No answer carries a solution, a salt or another player's coordinates for a challenge that is
not resolved; after resolution, the reveal and the salts of the solution are public."""

import json

import pytest

from challenges.services import challenge_close
from responses.resolution import challenge_resolve

pytestmark = pytest.mark.django_db

SECRET_SOLUTION = "12.345678, 98.765432"
GUESS = "12.3457, 98.7654"


def every_public_answer(api, challenge, claim) -> str:
    urls = [
        "/",
        "/api/challenges/active",
        "/api/challenges/resolved",
        f"/api/challenges/{challenge.pk}/winners",
        "/api/responses",
        f"/api/responses?challengeId={challenge.pk}",
        # Every claim, its outcome and the accounting of payments and prizes: after resolution only.
        "/api/responses?status=rejected",
        f"/api/responses?challengeId={challenge.pk}&status=rejected",
        f"/api/responses?address={claim.submitter_address}",
        f"/api/challenges/{challenge.pk}/unclaimed",
        f"/api/responses/{claim.transaction_hash}",
        f"/api/responses/{claim.transaction_hash}?commitment={claim.commitment}",
        f"/api/responses/authorization/{claim.commitment}",
        "/api/payments/authorization",
        "/api/schema/",
        "/some/unknown/page",
        "/api/unknown",
    ]
    return "\n".join(api.get(url).content.decode() for url in urls)


@pytest.mark.parametrize("stage", ["active", "closed"])
def test_nothing_secret_leaks_before_resolution(api, make_challenge, make_response, stage):
    challenge = make_challenge(solution=SECRET_SOLUTION)
    claim = make_response(challenge, GUESS, "3")
    if stage == "closed":
        challenge_close(challenge=challenge)
    text = every_public_answer(api, challenge, claim)
    for secret in (
        challenge.solution,
        challenge.solution_salt,
        claim.submission_salt,
        claim.submission_text,
        "12.345678",
        "98.7654",
    ):
        assert secret not in text, secret
    assert challenge.solution_sha256 in text or stage == "closed"


def test_a_draft_is_invisible(api, make_challenge, make_response):
    draft = make_challenge(solution=SECRET_SOLUTION, publish=False, title="Unpublished poem title")
    text = "\n".join(api.get(u).content.decode() for u in ("/api/challenges/active", "/api/challenges/resolved"))
    assert draft.poem_title not in text and draft.solution_sha256 not in text


def test_after_resolution_the_reveal_and_the_guess_salts_are_public(api, make_challenge, make_response):
    """Once resolved, every outcome must be re-checkable from public data (docs/protocol.md section 5),
    so each guess's salt (which opens the commitment its payment carried) is published with it; before
    resolution it never is (test_nothing_secret_leaks_before_resolution, responses/tests/test_api_outcomes.py)."""
    challenge = make_challenge(solution=SECRET_SOLUTION)
    claim = make_response(challenge, GUESS, "3")
    challenge_resolve(challenge=challenge)
    resolved = api.get("/api/challenges/resolved").json()[0]
    assert (resolved["solutionReveal"], resolved["solutionSalt"]) == (SECRET_SOLUTION, challenge.solution_salt)
    listed = api.get("/api/responses").json()
    assert listed[0]["submissionText"] == GUESS
    assert listed[0]["submissionSalt"] == claim.submission_salt
    # The claim's own status look-up stays a status: no salt there.
    assert claim.submission_salt not in api.get(f"/api/responses/{claim.transaction_hash}").content.decode()


def test_the_page_embeds_only_public_config(api, make_challenge):
    challenge = make_challenge(solution=SECRET_SOLUTION)
    page = api.get("/").content.decode()
    start = page.index('id="geopoem-config"')
    config = json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])
    assert challenge.solution not in page and challenge.solution_salt not in page
    assert {"chainId", "usdcAddress", "treasuryAddress", "explorerUrl"} <= set(config)
    assert "secret" not in json.dumps(config).lower()


# --- Every claim state ---------------------------------------------------------------------------
# The tests above build their claims confirmed (the factory's default); a claim can also be pending,
# rejected, or confirmed and then sent back to pending by a reorg. None of them may show its text,
# coordinates or salt through any public answer before the challenge is resolved.
CLAIM_STATES = ["pending", "rejected", "confirmed", "reorged_to_pending"]


def claim_lookup(api, claim):
    """The player's page looking up its claim. One place to adapt when the look-up takes more
    (the claim's commitment): the plain /api/responses/{tx} path is what old links use."""
    return api.get(f"/api/responses/{claim.transaction_hash}")


def make_claim_in_state(make_response, challenge, state: str, text: str = GUESS):
    """A claim left in the given state by the code that puts claims there: the factory for pending,
    rejected and confirmed rows, and the reorg service (chain/reorgs.py) for reorged_to_pending."""
    from chain.reorgs import response_unconfirm_reorged
    from responses.models import ResponseStatus
    from responses.reasons import REASON_SENTENCES, Reason

    if state == "pending":
        claim = make_response(challenge, text, "3", status=ResponseStatus.PENDING)
    elif state == "rejected":
        claim = make_response(challenge, text, "3", status=ResponseStatus.REJECTED)
        code = Reason.COMMITMENT_MISMATCH
        type(claim).objects.filter(pk=claim.pk).update(rejection_code=code, rejection_reason=REASON_SENTENCES[code])
    else:
        claim = make_response(challenge, text, "3", status=ResponseStatus.CONFIRMED)
        if state == "reorged_to_pending":
            type(claim).objects.filter(pk=claim.pk).update(block_hash="0x" + "c3" * 32)
            claim.refresh_from_db()
            assert response_unconfirm_reorged(response=claim)
    claim.refresh_from_db()
    expected = {"pending": "pending", "rejected": "rejected", "confirmed": "confirmed", "reorged_to_pending": "pending"}
    assert claim.status == expected[state]
    assert (claim.reorged_at is not None) == (state == "reorged_to_pending")
    return claim


def secrets_of(challenge, claim) -> list[str]:
    return [
        challenge.solution,
        challenge.solution_salt,
        claim.submission_salt,
        claim.submission_text,
        "12.3457",
        "98.7654",
        str(claim.submission_lat),
        str(claim.submission_lon),
    ]


@pytest.mark.parametrize("stage", ["active", "closed"])
@pytest.mark.parametrize("state", CLAIM_STATES)
def test_no_claim_state_shows_its_guess_before_resolution(api, make_challenge, make_response, state, stage):
    challenge = make_challenge(solution=SECRET_SOLUTION)
    claim = make_claim_in_state(make_response, challenge, state)
    if stage == "closed":
        # Resolving waits for pending claims; closing does not, so a claim of any state can sit on
        # a closed challenge for as long as the chain takes.
        challenge_close(challenge=challenge)
    looked_up = claim_lookup(api, claim)
    assert looked_up.status_code == 200
    body = looked_up.json()
    assert body["status"] == claim.status and body["transactionHash"] == claim.transaction_hash
    assert body["submissionText"] is None
    text = every_public_answer(api, challenge, claim) + looked_up.content.decode()
    for secret in secrets_of(challenge, claim):
        assert secret not in text, (state, secret)


@pytest.mark.parametrize("state", CLAIM_STATES)
def test_another_players_claim_in_any_state_stays_hidden_next_to_mine(api, make_challenge, make_response, state):
    """The look-up of one claim never carries another's guess, and the lists carry none at all."""
    challenge = make_challenge(solution=SECRET_SOLUTION)
    mine = make_claim_in_state(make_response, challenge, "confirmed", text="1.5, 2.5")
    theirs = make_claim_in_state(make_response, challenge, state)
    text = claim_lookup(api, mine).content.decode() + every_public_answer(api, challenge, theirs)
    for secret in (theirs.submission_text, theirs.submission_salt, "12.3457", "98.7654", mine.submission_text):
        assert secret not in text, (state, secret)


# --- Claims paid by a signed authorization --------------------------------------------------------
# The signature is a bearer instrument until it is used on chain: whoever holds it can submit the
# payer's stake (for the payer's guess only, but at a moment of their choosing). No answer shows it,
# at any status, before or after resolution (docs/protocol.md 3.5); nor do the logs.


def make_authorization_claim(challenge, text: str = GUESS, *, status: str = "pending", tx: str = ""):
    """A claim paid by authorization as the POST stores it (responses/authorizations.py), moved to
    `status` as verification would (with the transaction that used it, when confirmed)."""
    import secrets

    from responses.models import PaymentMethod, Response, StakeAuthorization
    from responses.services import guess_fields

    address = "0x" + secrets.token_hex(20)
    claim = Response.objects.create(
        challenge=challenge,
        **guess_fields(challenge_id=challenge.pk, text=text, submitter_address=address),
        submission_stake="3",
        payment_method=PaymentMethod.AUTHORIZATION,
        transaction_hash=tx,
        submitter_address=address,
        sent_by_submitter=True,
        status=status,
    )
    StakeAuthorization.objects.create(
        response=claim, valid_after=0, valid_before=1_900_000_000, signature="0x" + secrets.token_hex(64) + "1b"
    )
    return claim


def signature_parts(claim) -> list[str]:
    signature = claim.authorization.signature
    return [signature, signature[2:], signature[2:66], signature[66:130]]  # whole, bare, r, s


@pytest.mark.parametrize(
    ("state", "stage"),
    # A challenge resolves only once no claim is pending (responses/resolution.py).
    [
        ("pending", "active"),
        ("confirmed", "active"),
        ("rejected", "active"),
        ("confirmed", "resolved"),
        ("rejected", "resolved"),
    ],
)
def test_no_answer_shows_an_authorizations_signature(api, make_challenge, state, stage):
    challenge = make_challenge(solution=SECRET_SOLUTION)
    claim = make_authorization_claim(challenge, status=state, tx="0x" + "ab" * 32 if state == "confirmed" else "")
    if stage == "resolved":
        challenge_resolve(challenge=challenge)
    followed = api.get(f"/api/responses/authorization/{claim.commitment}")
    assert followed.status_code == 200 and followed.json()["authorization"]["validBefore"] == 1_900_000_000
    text = every_public_answer(api, challenge, claim) + followed.content.decode()
    text += api.get(f"/api/responses?address={claim.submitter_address}").content.decode()
    for secret in signature_parts(claim):
        assert secret not in text.lower(), (state, stage)
    if stage == "active":
        for secret in secrets_of(challenge, claim):
            assert secret not in text, (state, secret)


def test_a_posted_authorization_reaches_no_answer_and_no_log(api, make_challenge, caplog, settings):
    """The POST's answer, and every log line the request writes at INFO and above, as written by
    the configured formatter (config/log_redaction.py) and before it: the request log names the
    path, never the body (config/request_log.py). Were a signature ever logged, the formatter masks
    it."""
    import logging

    from config.log_redaction import MASK, RedactingFormatter
    from responses import hooks
    from responses.models import Response

    before = hooks.register_authorization_check(lambda claim, *, client: hooks.AuthorizationRead())
    signature = "0x" + "5c" * 32 + "6d" * 32 + "1c"
    body = {
        "challengeId": make_challenge().pk,
        "submissionText": GUESS,
        "submissionStake": "3",
        "authorization": {"validAfter": 0, "validBefore": 1_900_000_000, "signature": signature},
        "submitterAddress": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
        "submissionSalt": "ef" * 32,
    }
    caplog.set_level(logging.INFO)
    try:
        answer = api.post("/api/responses", data=json.dumps(body), content_type="application/json")
    finally:
        hooks.register_authorization_check(before)
    assert answer.status_code == 201, answer.content
    assert Response.objects.get().authorization.signature == signature  # kept, for the relayer
    formatter = RedactingFormatter(settings.LOGGING["formatters"]["plain"]["format"])
    logged = "\n".join(record.getMessage() + formatter.format(record) for record in caplog.records)
    assert "POST /api/responses 201" in logged
    for secret in [answer.content.decode(), logged]:
        assert signature[2:66] not in secret and signature[66:130] not in secret
    record = logging.LogRecord("geopoem.test", logging.INFO, __file__, 0, "relay %s", (signature,), None)
    assert formatter.format(record).endswith(f"relay {MASK}")
