"""What the admin tests share: the admin's URLs for a challenge, the form staff fill in, the
messages shown, and "Resolve and reveal" as staff and the worker run it. The `staff` client is
responses/tests/conftest.py's."""

from django.contrib.messages import get_messages
from django.urls import reverse


def add_url() -> str:
    return reverse("admin:challenges_challenge_add")


def change_url(challenge) -> str:
    return reverse("admin:challenges_challenge_change", args=[challenge.pk])


def step_url(challenge, step: str) -> str:
    return reverse("admin:challenges_challenge_lifecycle", args=[challenge.pk, step])


def form_data(**overrides) -> dict:
    data = {
        "poem_title": "Stone Steps",
        "poem_text": "<p>Where the <em>sun</em> sleeps</p>",
        "instructions_text": "<p>Guess the place</p>",
        "proximity_threshold_m": "150",
        "solution_input": "29.979175, 31.134258",
        "payouts-TOTAL_FORMS": "0",
        "payouts-INITIAL_FORMS": "0",
        "payouts-MIN_NUM_FORMS": "0",
        "payouts-MAX_NUM_FORMS": "0",
    }
    data.update(overrides)
    return data


def texts(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def run_resolution_worker(challenge) -> str:
    """What the worker does with the task the admin queued: the task itself, run in this process
    (chain-free; responses/tests/test_resolve_worker.py runs it in a real worker)."""
    from responses.tasks import resolve_challenge

    return resolve_challenge.apply(args=[challenge.pk]).get()


def resolve_in_admin(staff, challenge, capture) -> object:
    """Staff confirm "Resolve and reveal": the request queues the task on commit (and returns);
    the worker's part then runs. Returns the (followed) answer to the POST."""
    with capture() as callbacks:
        response = staff.post(step_url(challenge, "resolve"), follow=True)
    # The task, queued once the resolution row is committed (beside the public cache's bump).
    assert [c.__qualname__ for c in callbacks].count("challenge_resolve_start.<locals>.<lambda>") == 1
    assert run_resolution_worker(challenge) == "done"
    return response
