"""No answer carries a solution, a salt or another player's coordinates for a challenge that is
not resolved; after resolution, the reveal and the salts of the solution are public."""

import json

import pytest

from challenges.services import challenge_close, challenge_resolve

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
        f"/api/responses/{claim.transaction_hash}",
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


def test_after_resolution_the_reveal_is_public_but_guess_salts_stay_private(api, make_challenge, make_response):
    challenge = make_challenge(solution=SECRET_SOLUTION)
    claim = make_response(challenge, GUESS, "3")
    challenge_resolve(challenge=challenge)
    resolved = api.get("/api/challenges/resolved").json()[0]
    assert (resolved["solutionReveal"], resolved["solutionSalt"]) == (SECRET_SOLUTION, challenge.solution_salt)
    listed = api.get("/api/responses").json()
    assert listed[0]["submissionText"] == GUESS
    text = every_public_answer(api, challenge, claim)
    assert claim.submission_salt not in text


def test_the_page_embeds_only_public_config(api, make_challenge):
    challenge = make_challenge(solution=SECRET_SOLUTION)
    page = api.get("/").content.decode()
    start = page.index('id="geopoem-config"')
    config = json.loads(page[page.index(">", start) + 1 : page.index("</script>", start)])
    assert challenge.solution not in page and challenge.solution_salt not in page
    assert {"chainId", "usdcAddress", "treasuryAddress", "explorerUrl"} <= set(config)
    assert "secret" not in json.dumps(config).lower()
