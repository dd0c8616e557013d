"""No public answer carries the solution, its salt, a player's guess or salt before the pot shows the
solution revealed, whatever state a stake is in; none ever carries a signature (docs/protocol.md 3.4
and 3.5). Every public answer is read, in every phase before the reveal; after it, the solution and
the guesses the site holds are public, the signatures still are not. The pot's events are recorded
without a chain (conftest.py, pot_recorder); the signed stakes are the rows the POST stores."""

import json
import logging
import secrets

import pytest

from responses.models import RelayStatus, SignedStake

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("api_reads_rows")]

SECRET_SOLUTION = "12.345678, 98.765432"
GUESS = "12.3457, 98.7654"


def signed_stake(challenge, status: str = RelayStatus.QUEUED, *, commitment: str | None = None) -> SignedStake:
    return SignedStake.objects.create(
        challenge=challenge,
        payer="0x" + secrets.token_hex(20),
        amount_units=3_000_000,
        commitment=commitment or secrets.token_hex(32),
        nonce=secrets.token_hex(32),
        valid_after=0,
        valid_before=1_900_000_000,
        signature="0x" + secrets.token_hex(64) + "1b",
        relay_status=status,
    )


@pytest.fixture
def game(make_challenge, make_stake):
    """A challenge with a stake in every state a public answer can show before the reveal."""
    challenge = make_challenge(solution=SECRET_SOLUTION)
    confirmed, guess = make_stake(challenge, GUESS, "3")
    no_guess, _ = make_stake(challenge, "3.5, 4.5", "2", guess=False)
    pending, _ = make_stake(challenge, "1.5, 2.5", "2", deep=False)  # its block not deep enough yet
    relayed = signed_stake(challenge, RelayStatus.SENT, commitment=confirmed.commitment)
    relayed.payer = confirmed.payer
    relayed.save()
    signed = [signed_stake(challenge, status) for status in RelayStatus.values if status != RelayStatus.SENT]
    return challenge, [confirmed, no_guess, pending], guess, [relayed, *signed]


def every_public_answer(api, challenge, stakes, signed) -> str:
    urls = [
        "/",
        "/api/challenges/active",
        "/api/challenges/resolved",
        f"/api/challenges/{challenge.pk}",
        f"/api/challenges/{challenge.pk}/winners",
        "/api/responses",
        f"/api/responses?challengeId={challenge.pk}",
        "/api/payments/authorization",
        "/api/schema/",
        "/verify_challenge.py",
        "/some/unknown/page",
        "/api/unknown",
    ]
    for row in [*stakes, *signed]:
        urls += [f"/api/responses/{row.commitment}", f"/api/responses?address={row.payer}"]
        urls.append(f"/api/responses?address={row.payer}&challengeId={challenge.pk}")
    answers = [api.get(url) for url in urls]
    assert all(answer.status_code < 500 for answer in answers)
    return "\n".join(answer.content.decode() for answer in answers)


def signature_parts(row: SignedStake) -> list[str]:
    signature = row.signature
    return [signature, signature[2:], signature[2:66], signature[66:130]]  # whole, bare, r, s


@pytest.mark.parametrize("phase", ["open", "closed"])
def test_nothing_secret_leaks_before_the_solution_is_revealed(api, game, pot_recorder, phase):
    challenge, stakes, guess, signed = game
    if phase == "closed":
        pot_recorder.advance(int((challenge.closes_at - pot_recorder.now()).total_seconds()) + 1)
    assert api.get(f"/api/challenges/{challenge.pk}").json()["phase"] == phase
    text = every_public_answer(api, challenge, stakes, signed)
    for secret in (challenge.solution, challenge.solution_salt, guess.text, guess.salt, "12.3457", "98.7654"):
        assert secret not in text, secret
    for number in (guess.lat_e6, guess.lon_e6, 12345678, 98765432):
        assert str(number) not in text
    for row in signed:
        for part in signature_parts(row):
            assert part not in text.lower()
    assert challenge.solution_sha256 in text
    # Every stake is listed for its payer, none shows its guess, and the site says it holds one.
    mine = api.get(f"/api/responses/{stakes[0].commitment}").json()
    assert (mine["status"], mine["guessReceived"], mine["submissionText"], mine["submissionSalt"]) == (
        "confirmed",
        True,
        None,
        None,
    )
    assert api.get(f"/api/responses/{stakes[2].commitment}").json()["status"] == (
        "pending" if phase == "open" else "confirmed"
    )
    assert api.get(f"/api/responses?challengeId={challenge.pk}").json() == []


def test_a_draft_is_invisible(api, make_challenge):
    draft = make_challenge(solution=SECRET_SOLUTION, publish=False, title="Unpublished poem title")
    text = "\n".join(
        api.get(u).content.decode()
        for u in ("/api/challenges/active", "/api/challenges/resolved", f"/api/challenges/{draft.pk}")
    )
    assert draft.poem_title not in text and draft.solution_sha256 not in text


def test_after_the_reveal_the_solution_and_the_guesses_are_public_the_signatures_never(api, game, pot_recorder):
    """Once the pot shows the solution, every outcome must be re-checkable from public data, so the
    guesses and salts the site holds are published (docs/protocol.md 3.5); a signature never is."""
    challenge, stakes, guess, signed = game
    pot_recorder.advance(int((challenge.closes_at - pot_recorder.now()).total_seconds()))
    pot_recorder.reveal_solution(challenge)
    shown = api.get(f"/api/challenges/{challenge.pk}").json()
    assert (shown["solutionReveal"], shown["solutionSalt"]) == (SECRET_SOLUTION, challenge.solution_salt)
    listed = api.get(f"/api/responses?challengeId={challenge.pk}").json()
    assert [row["id"] for row in listed] == [1, 2, 3]
    assert (listed[0]["submissionText"], listed[0]["submissionSalt"]) == (guess.text, guess.salt)
    assert listed[1]["submissionText"] is None and listed[1]["guessReceived"] is False
    own = api.get(f"/api/responses/{stakes[0].commitment}").json()
    assert (own["submissionText"], own["submissionSalt"]) == (guess.text, guess.salt)
    text = every_public_answer(api, challenge, stakes, signed)
    for row in signed:
        for part in signature_parts(row):
            assert part not in text.lower()


def test_the_page_embeds_only_public_config(api, make_challenge):
    challenge = make_challenge(solution=SECRET_SOLUTION)
    page = api.get("/").content.decode()
    start = page.index('id="geopoem-config"')
    config = json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])
    assert challenge.solution not in page and challenge.solution_salt not in page
    assert {"chainId", "usdcAddress", "potAddress", "explorerUrl"} <= set(config)
    assert "secret" not in json.dumps(config).lower() and "key" not in json.dumps(config).lower()


def test_a_posted_signature_reaches_no_answer_and_no_log(api, make_challenge, caplog, settings):
    """The POST's answer, and every log line the request writes at INFO and above, as written by the
    configured formatter (config/log_redaction.py) and before it: the request log names the path,
    never the body (config/request_log.py). Were a signature ever logged, the formatter masks it.
    No node answers in these tests, so the POST ends at the chain's check (503)."""
    from config.log_redaction import MASK, RedactingFormatter

    signature = "0x" + "5c" * 32 + "6d" * 32 + "1c"
    body = {
        "challengeId": make_challenge().pk,
        "submitterAddress": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
        "submissionStake": "3",
        "commitment": "ef" * 32,
        "authorization": {"validAfter": 0, "validBefore": 1_900_000_000, "signature": signature},
    }
    caplog.set_level(logging.INFO)
    answer = api.post("/api/responses", data=json.dumps(body), content_type="application/json")
    assert answer.status_code == 503, answer.content
    formatter = RedactingFormatter(settings.LOGGING["formatters"]["plain"]["format"])
    logged = "\n".join(record.getMessage() + formatter.format(record) for record in caplog.records)
    assert "POST /api/responses 503" in logged
    for secret in [answer.content.decode(), logged]:
        assert signature[2:66] not in secret and signature[66:130] not in secret
    record = logging.LogRecord("geopoem.test", logging.INFO, __file__, 0, "relay %s", (signature,), None)
    assert formatter.format(record).endswith(f"relay {MASK}")
