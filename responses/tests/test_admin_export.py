"""The Challenge admin's CSV export (responses/admin/challenge_export.py): every stake in sequence
order, before the reveal without any guess, after it with the guesses the site holds and the pot's
verdict on guesses revealed by others; chunk after chunk across the page size; staff only."""

import csv
import io

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from challenges.coordinates import micro_degrees
from responses.admin import challenge_export

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    staff = get_user_model().objects.create_superuser("staff", "staff@example.org", "long-enough-pass-1")
    client.force_login(staff)
    return client


def exported(client, challenge) -> list[dict]:
    answer = client.get(reverse("admin:challenges_challenge_export", args=[challenge.pk]))
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(b"".join(answer.streaming_content).decode())))


def test_every_stake_in_order_without_guesses_before_the_reveal(staff_client, make_challenge, make_stake, monkeypatch):
    monkeypatch.setattr(challenge_export, "PAGE", 2)  # three stakes: two chunks
    challenge = make_challenge()
    stakes = [make_stake(challenge, "29.979175, 31.134258", "2")[0], make_stake(challenge, "10, 10", "1.5")[0]]
    stakes.append(make_stake(challenge, "29.98, 31.13", "3", guess=False)[0])
    rows = exported(staff_client, challenge)
    assert [row["seq"] for row in rows] == ["1", "2", "3"]
    assert [(row["payer"], row["amount_usdc"]) for row in rows] == [
        (stake.payer, amount) for stake, amount in zip(stakes, ["2.000000", "1.500000", "3.000000"], strict=True)
    ]
    assert all(row["guess"] == row["correct"] == row["distance_m"] == "" for row in rows)
    assert all(row["record"] == "stake" and row["revealed_on_chain"] == "False" for row in rows)


def test_after_the_reveal_the_guesses_held_and_the_pots_verdicts(
    staff_client, make_challenge, make_stake, pot_recorder, monkeypatch
):
    monkeypatch.setattr(challenge_export, "PAGE", 2)
    challenge = make_challenge(threshold=150)
    make_stake(challenge, "29.979175, 31.134258", "2")
    make_stake(challenge, "10, 10", "1")
    unknown, _ = make_stake(challenge, "29.98, 31.13", "3", guess=False)  # the site never got this guess
    pot_recorder.reveal_solution(challenge)
    lat, lon = micro_degrees("29.9792, 31.1343")
    pot_recorder.reveal_guess(challenge, seq=unknown.seq, payer=unknown.payer, lat_e6=lat, lon_e6=lon, correct=True)
    rows = exported(staff_client, challenge)
    assert [(r["seq"], r["guess"], r["correct"], r["revealed_on_chain"]) for r in rows] == [
        ("1", "29.979175, 31.134258", "True", "False"),
        ("2", "10, 10", "False", "False"),
        ("3", "", "True", "True"),
    ]
    assert rows[0]["distance_m"] == "0.00" and float(rows[1]["distance_m"]) > 1_000_000 and rows[2]["distance_m"] == ""


def test_only_staff_export(client, make_challenge):
    challenge = make_challenge()
    answer = client.get(reverse("admin:challenges_challenge_export", args=[challenge.pk]))
    assert answer.status_code == 302 and "/login/" in answer["Location"]
