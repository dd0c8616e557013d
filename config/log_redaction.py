"""A log formatter that never prints secrets: the final text of every record (message, traceback,
stack) passes through `redact` before it is written.

What counts as secret here:
- the values of secret settings (SECRET_KEY, the database and Redis passwords, any setting whose
  name ends in _KEY: the operator's and the relayer's) and the path/query of each RPC URL
  (providers put API keys there);
- a 64-hex-digit string that is not a 0x-prefixed transaction hash: salts (solution and guess)
  and bare private keys have that shape;
- a 0x-prefixed 64-hex value named as a key (`private_key=0x...`, `"key": "0x..."`);
- the password in any URL's user-info (`redis://:pw@host`, `postgres://user:pw@host`);
- a 65-byte signature (130 hex digits, 0x or not): a player's signed payment authorization is a
  bearer instrument until it is used on chain (docs/protocol.md section 2, "Stakes").
Transaction hashes, addresses and ids stay readable: the logs are for operating the game."""

import logging
import re
from urllib.parse import urlsplit

MASK = "[redacted]"

_BARE_HEX64 = re.compile(r"(?<![0-9a-fA-FxX])[0-9a-fA-F]{64}(?![0-9a-fA-F])")
_SIGNATURE = re.compile(r"(?<![0-9a-fA-F])(?:0[xX])?[0-9a-fA-F]{130}(?![0-9a-fA-F])")
_NAMED_KEY = re.compile(r"(?i)((?:private[_ ]?key|secret|salt|mnemonic)[\"']?\s*[:=]\s*[\"']?)([^\s\"',}]+)")
_URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^:/@\s]*:)([^@/\s]+)(@)")


def _configured_secrets() -> list[str]:
    """Exact strings from settings that must never appear, longest first."""
    try:
        from django.conf import settings

        if not settings.configured:
            return []
        found: list[str] = []
        for name in dir(settings):
            # SECRET_KEY, and every key setting (POT_OPERATOR_KEY, RELAYER_KEY, ...): a 0x private key
            # looks like a transaction hash, which the patterns below leave readable.
            if name.isupper() and name.endswith("_KEY"):
                value = getattr(settings, name, "")
                if isinstance(value, str) and len(value) >= 8:
                    found.append(value)
        for database in settings.DATABASES.values():
            if database.get("PASSWORD"):
                found.append(str(database["PASSWORD"]))
        for url in [getattr(settings, "REDIS_URL", ""), *getattr(settings, "CHAIN_RPC_URLS", [])]:
            parts = urlsplit(url or "")
            if parts.password:
                found.append(parts.password)
            secret_path = (parts.path.strip("/") + ("?" + parts.query if parts.query else "")).strip()
            if url and url in getattr(settings, "CHAIN_RPC_URLS", []) and len(secret_path) >= 8:
                found.append(secret_path)
        return sorted({s for s in found if s}, key=len, reverse=True)
    except Exception:  # noqa: BLE001 - logging must keep working even if settings are broken
        return []


def redact(text: str, secrets: list[str] | None = None) -> str:
    for secret in _configured_secrets() if secrets is None else secrets:
        text = text.replace(secret, MASK)
    text = _URL_PASSWORD.sub(rf"\1{MASK}\3", text)
    text = _NAMED_KEY.sub(rf"\1{MASK}", text)
    text = _SIGNATURE.sub(MASK, text)
    return _BARE_HEX64.sub(MASK, text)


class RedactingFormatter(logging.Formatter):
    """logging.Formatter whose output is redacted; configured for every handler in LOGGING."""

    _secrets: list[str] | None = None

    def format(self, record: logging.LogRecord) -> str:
        # Settings do not change in a running process: collect the secret values once.
        if self._secrets is None:
            from django.conf import settings

            if not settings.configured:
                return redact(super().format(record), [])
            self._secrets = _configured_secrets()
        return redact(super().format(record), self._secrets)
