"""Errors reach an error tracker only when the operator names one, and redacted (config/error_tracking.py).
The tracker is Sentry's real SDK with a transport of the test's own in place of the network: what it
would send is what the test reads."""

import pytest
import sentry_sdk
from sentry_sdk.transport import Transport

from config.error_tracking import error_tracking_init

SALT = "ab" * 32
KEY = "0x" + "5e" * 32


class Kept(Transport):
    """Keeps every envelope instead of sending it."""

    def __init__(self, options=None):
        super().__init__(options)
        self.envelopes = []

    def capture_envelope(self, envelope):
        self.envelopes.append(envelope)


@pytest.fixture
def kept():
    transport = Kept()
    yield transport
    sentry_sdk.init()  # no DSN: the SDK is off again for the other tests


def _events(transport: Kept) -> list[dict]:
    return [item.payload.json for envelope in transport.envelopes for item in envelope.items if item.type == "event"]


def test_without_a_dsn_nothing_is_started_and_nothing_sent(kept):
    assert error_tracking_init("", environment="test", transport=kept) is False
    sentry_sdk.capture_message("nobody hears this")
    assert kept.envelopes == []


def test_an_error_is_sent_with_its_secrets_masked(kept, settings):
    settings.RELAYER_KEY = KEY
    assert error_tracking_init("https://public@127.0.0.1/1", environment="test", transport=kept)
    try:
        salt = SALT  # noqa: F841 - a frame's local variable, which the SDK sends
        raise ValueError(f"a guess's salt {SALT} and the relayer's key {KEY} in a message")
    except ValueError as exc:
        sentry_sdk.capture_exception(exc)
    sentry_sdk.flush()
    events = _events(kept)
    assert len(events) == 1
    text = repr(events[0])
    assert "ValueError" in text and "[redacted]" in text
    assert SALT not in text and KEY not in text
