"""Odd request bodies and the served WSGI application, shared by tests/test_bodies.py and the fuzzing
in tests/reliability/test_fuzz_api.py (docs/reliability.md, "No body answers 500, secrets guarded in
every claim state, mutation testing")."""

import io
import json

from hypothesis import strategies as st

from config.bodies import charset_problem

TOKEN = "bodiestestcsrftoken0123456789abc"  # 32 characters, as Django requires

# JSON number literals no parser should ever expand: huge and tiny exponents, long digit strings.
HUGE_NUMBERS = [
    "1e999999999999999999",
    "1e99999999999999999999",
    "1e100000000",
    "1E+999999999999999999",
    "-1e999999999999999999",
    "1.5e-999999999999999999",
    "12.5e99999999999999999999999999999999",
    "9" * 5000,
    "0." + "0" * 5000 + "1",
    "1" + "0" * 4000 + ".5",
]
# Charsets that are not UTF-8: text codecs of other encodings, byte-to-byte and text-to-text codecs
# Python can look up (rot13, hex, base64, zlib), unknown names and an empty one.
# "undefined": a text codec by Python's registry that raises on any use (found by the API fuzzer).
ODD_CHARSETS = [
    "rot13", "hex", "base64", "zlib", "uu", "undefined", "utf-16", "utf-32", "latin-1", "cp500", "nope", "", '"x"',
]  # fmt: skip


def huge_number_literals() -> st.SearchStrategy[str]:
    """JSON number literals with exponents far beyond any amount, or digit strings far longer."""
    digits = st.integers(min_value=1, max_value=10**30).map(str)
    exponent = st.one_of(st.integers(min_value=41, max_value=10**40), st.integers(min_value=-(10**40), max_value=-41))
    with_exponent = st.builds(
        lambda sign, mantissa, fraction, letter, plus, e: f"{sign}{mantissa}{fraction}{letter}{plus * (e > 0)}{e}",
        st.sampled_from(["", "-"]),
        digits,
        st.sampled_from(["", ".5", ".000001"]),
        st.sampled_from(["e", "E"]),
        st.sampled_from(["", "+"]),
        exponent,
    )
    long_digits = st.integers(min_value=41, max_value=6000).map(lambda n: "9" * n)
    long_fraction = st.integers(min_value=41, max_value=6000).map(lambda n: "0." + "0" * n + "1")
    return st.one_of(with_exponent, long_digits, long_fraction, st.sampled_from(HUGE_NUMBERS))


def odd_charsets() -> st.SearchStrategy[str]:
    """Charset names that are not UTF-8: known odd codecs and made-up names."""
    # Made-up names; one that happens to name UTF-8 or ASCII (utf, u8, cp65001, 646...) is left out.
    made_up = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=20).filter(
        lambda name: charset_problem(name) is not None
    )
    return st.one_of(st.sampled_from(ODD_CHARSETS), made_up)


def odd_content_types() -> st.SearchStrategy[str]:
    """A media type with an odd charset, in the spellings a client might send."""
    media = st.sampled_from(
        ["application/json", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=xyz"]
    )
    return st.builds(
        lambda media_type, spelling, charset: media_type + spelling.format(charset),
        media,
        st.sampled_from(["; charset={}", ";charset={}", '; charset="{}"', "; CHARSET={}"]),
        odd_charsets(),
    )


def with_literal(body: object, literal: str, *, position: int = 0) -> bytes:
    """JSON text of a body with one member (or the whole body) replaced by a raw number literal."""
    if isinstance(body, dict) and body:
        keys = list(body)
        key = keys[position % len(keys)]
        members = [
            f"{json.dumps(name)}: {literal if name == key else json.dumps(value)}" for name, value in body.items()
        ]
        return ("{" + ", ".join(members) + "}").encode()
    return literal.encode()


def assert_api_error(answer, status: int | tuple[int, ...], message_part: str | None = None):
    """A refusal in the API's error shape (config/api_errors.py): JSON {"message", "errors"}."""
    statuses = status if isinstance(status, tuple) else (status,)
    assert answer.status_code in statuses, (answer.status_code, answer.content[:300])
    assert answer["Content-Type"].startswith("application/json")
    payload = answer.json()
    assert set(payload) == {"message", "errors"}
    assert isinstance(payload["message"], str) and payload["message"]
    if message_part is not None:
        assert message_part in payload["message"], payload["message"]


class WsgiAnswer:
    def __init__(self, status: str, headers: list[tuple[str, str]], content: bytes):
        self.status_code = int(status.split()[0])
        self.headers = {name.lower(): value for name, value in headers}
        self.content = content

    def __getitem__(self, name: str) -> str:
        return self.headers[name.lower()]

    def json(self):
        return json.loads(self.content)


class ServedApp:
    """The WSGI application gunicorn serves (config/wsgi.py), called in process with the CSRF cookie
    and token. Django's test client cannot send a "charset=rot13" body: Django's request object
    raises LookupError as it is built, which is the 500 this file guards against, so the charset
    tests go through the same entry point as the real server."""

    def __init__(self):
        from config.wsgi import application

        self.application = application

    def generic(self, method: str, url: str, data: bytes, content_type: str, HTTP_X_CSRFTOKEN: str):
        path, _, query = url.partition("?")
        path = path.encode("utf-8").decode("latin-1")  # WSGI: PATH_INFO holds the bytes as latin-1
        environ = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "SERVER_NAME": "testserver",
            "SERVER_PORT": "80",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "testserver",
            "HTTP_COOKIE": f"csrftoken={TOKEN}",
            "HTTP_X_CSRFTOKEN": HTTP_X_CSRFTOKEN,
            "CONTENT_TYPE": content_type,
            "CONTENT_LENGTH": str(len(data)),
            "wsgi.input": io.BytesIO(data),
            "wsgi.errors": io.StringIO(),
            "wsgi.url_scheme": "http",
            "wsgi.version": (1, 0),
            "wsgi.multithread": False,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }
        started: dict = {}

        def start_response(status, headers, exc_info=None):
            started.update(status=status, headers=headers)

        chunks = self.application(environ, start_response)
        try:
            content = b"".join(chunks)
        finally:
            getattr(chunks, "close", lambda: None)()
        return WsgiAnswer(started["status"], started["headers"], content)
