"""Admin security: the login is throttled (django-axes, real database handler), the admin lives at
the path ADMIN_URL names, and the stakes in the pot are visible to staff, read-only."""

import importlib

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings
from django.urls import clear_url_caches, reverse

pytestmark = pytest.mark.django_db

PASSWORD = "long-enough-pass-1"


@pytest.fixture
def poet():
    return get_user_model().objects.create_superuser("poet", "poet@example.org", PASSWORD)


def login(client, password: str, ip: str = "203.0.113.7", username: str = "poet", **headers):
    return client.post(
        reverse("admin:login"),
        {"username": username, "password": password, "next": reverse("admin:index")},
        REMOTE_ADDR=ip,
        **headers,
    )


def test_a_right_password_signs_staff_in(client, poet):
    response = login(client, PASSWORD)
    assert response.status_code == 302 and response["Location"] == reverse("admin:index")
    assert client.get(reverse("admin:index")).status_code == 200


def test_guessing_is_locked_out_after_the_failure_limit(client, poet, settings):
    assert settings.AXES_FAILURE_LIMIT == 5
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        response = login(client, "wrong-guess")
        assert response.status_code == 200 and b"Please enter the correct username and password" in response.content
    locked = login(client, "wrong-guess")
    assert locked.status_code == 429
    assert b"Too many failed sign-in attempts" in locked.content
    # Locked out means locked out: even the right password is refused from that address now.
    after = login(client, PASSWORD)
    assert after.status_code == 429
    assert client.get(reverse("admin:index")).status_code == 302
    # Another staff user at another address is not affected (poet's name itself is locked out now,
    # from everywhere: test_guessing_one_staff_password_from_many_addresses_is_locked_out).
    get_user_model().objects.create_superuser("scribe", "scribe@example.org", PASSWORD)
    assert login(client, PASSWORD, ip="198.51.100.9", username="scribe").status_code == 302


def test_guessing_one_staff_password_from_many_addresses_is_locked_out(client, poet, settings):
    """An attacker with many addresses (a botnet, a cloud account) tries one staff user name from a
    new address each time: counted per address alone, never locked out. The user name's own count
    locks it out at the limit, whichever address the next try comes from."""
    for n in range(settings.AXES_FAILURE_LIMIT - 1):
        answer = login(client, f"guess-{n}", ip=f"198.18.{n}.{n + 1}")
        assert answer.status_code == 200, n
    assert login(client, "guess-last", ip="198.18.200.1").status_code == 429
    # Locked out means locked out: the right password from a fresh address is refused too, until the
    # cool-off ends or staff clear it (README, "Staff").
    assert login(client, PASSWORD, ip="192.0.2.44").status_code == 429
    # Nobody else is: another staff user signs in from one of the attacker's addresses.
    get_user_model().objects.create_superuser("scribe", "scribe@example.org", PASSWORD)
    assert login(client, PASSWORD, ip="198.18.0.1", username="scribe").status_code == 302


def test_the_lockout_answer_names_neither_the_user_nor_whether_it_exists(client, poet, settings):
    """A name that is no account is locked out the same way, with the same words: the answer cannot
    tell a stranger which staff user names exist."""
    answers = {}
    for username in ("poet", "nobody-by-this-name"):
        for n in range(settings.AXES_FAILURE_LIMIT):
            login(client, "wrong", ip=f"198.18.{n}.9", username=username)
        xhr = login(client, "wrong", ip="192.0.2.9", username=username, HTTP_X_REQUESTED_WITH="XMLHttpRequest")
        page = login(client, "wrong", ip="192.0.2.10", username=username)
        assert (xhr.status_code, page.status_code) == (429, 429)
        assert username.encode() not in xhr.content and username.encode() not in page.content
        answers[username] = (xhr.json(), page.content.decode().replace(username, ""))
    assert (
        answers["poet"][0]
        == answers["nobody-by-this-name"][0]
        == {
            "message": "Too many failed sign-in attempts. Try again in 15 minutes.",
            "errors": {},
        }
    )
    assert "Too many failed sign-in attempts. Try again in 15 minutes." in answers["poet"][1]


def test_the_admin_path_comes_from_the_setting(client, poet):
    import config.urls

    try:
        with override_settings(ADMIN_URL="back-office-7f3a/"):
            importlib.reload(config.urls)
            clear_url_caches()
            assert reverse("admin:index") == "/back-office-7f3a/"
            client.force_login(poet)
            assert client.get("/back-office-7f3a/").status_code == 200
            assert client.get("/admin/").status_code == 404  # the default path is not served
    finally:
        importlib.reload(config.urls)
        clear_url_caches()
    assert reverse("admin:index") == "/admin/"


def test_staff_see_the_stakes_in_the_pot_read_only_and_never_a_signature(client, poet, make_challenge, make_stake):
    from responses.models import SignedStake

    challenge = make_challenge()
    stake, _ = make_stake(challenge, "1, 1", "2", payer="0x" + "ab" * 20)
    signed = SignedStake.objects.create(
        challenge=challenge,
        payer="0x" + "cd" * 20,
        amount_units=3_000_000,
        commitment="ef" * 32,
        nonce="12" * 32,
        valid_after=0,
        valid_before=1_900_000_000,
        signature="0x" + "5c" * 64 + "1b",
    )
    client.force_login(poet)
    url = reverse("admin:responses_stake_changelist")
    page = client.get(url).content.decode()
    assert stake.transaction_hash in page and "2.000000" in page
    assert stake.transaction_hash in client.get(url, {"q": "0x" + "AB" * 20}).content.decode()
    detail = client.get(reverse("admin:responses_stake_change", args=[stake.pk])).content.decode()
    assert 'name="_save"' not in detail
    assert client.get(reverse("admin:responses_stake_add")).status_code == 403
    signed_page = client.get(reverse("admin:responses_signedstake_change", args=[signed.pk])).content.decode()
    assert signed.payer in signed_page and "5c" * 64 not in signed_page


def test_every_admin_page_renders_for_staff(client, poet, make_challenge, make_stake, pot_recorder):
    """Each registered model's list, and each object's page, opens without an error."""
    from django.contrib import admin

    challenge = make_challenge(solution="29.979175, 31.134258")
    stake, _ = make_stake(challenge, "29.979175, 31.134258", "3")
    pot_recorder.advance(int((challenge.closes_at - pot_recorder.now()).total_seconds()))
    pot_recorder.reveal_solution(challenge)
    pot_recorder.reveal_guess(challenge, seq=1, payer=stake.payer, lat_e6=29979175, lon_e6=31134258, correct=True)
    pot_recorder.advance(challenge.guess_window_seconds)
    pot_recorder.finalize(challenge, earliest=1, highest=1, prize=1_200_000, share=600_000)
    for kind in (0, 1):
        pot_recorder.paid(challenge, kind=kind, to=stake.payer, amount=1_200_000)
    make_challenge(publish=False, title="Draft")
    client.force_login(poet)
    assert client.get(reverse("admin:index")).status_code == 200
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        changelist = client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
        assert changelist.status_code == 200, opts.label
        for obj in model_admin.get_queryset(changelist.wsgi_request)[:3]:
            page = client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk]))
            assert page.status_code == 200, (opts.label, obj.pk)
