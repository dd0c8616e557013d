"""The deploy baseline, read from real answers of a real server: gunicorn serving config.wsgi with
the production settings (DEBUG off, a random SECRET_KEY, PostgreSQL and Redis on loopback)."""

import re
import subprocess

import pytest
import requests

from devtools import processes

pytestmark = [pytest.mark.integration, pytest.mark.postgresql]

HTTPS = {"X-Forwarded-Proto": "https"}  # what the TLS-terminating proxy sends (SECURE_PROXY_SSL_HEADER)


def _policy(header: str) -> dict[str, list[str]]:
    directives = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            directives[words[0]] = words[1:]
    return directives


def test_page_answer_carries_the_security_headers(production_server):
    url = production_server.url
    answer = requests.get(url + "/", headers=HTTPS, timeout=10, allow_redirects=False)
    assert answer.status_code == 200
    h = answer.headers
    assert h["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert h["X-Frame-Options"] == "DENY"
    assert h["X-Content-Type-Options"] == "nosniff"
    assert h["Referrer-Policy"] == "same-origin"
    assert h["Cross-Origin-Opener-Policy"] == "same-origin"

    csp = _policy(h["Content-Security-Policy"])
    assert csp["script-src"] == ["'self'"]  # no 'unsafe-inline', no 'unsafe-eval', no other origin
    assert csp["object-src"] == ["'none'"]
    assert csp["base-uri"] == ["'none'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["default-src"] == ["'self'"]
    assert "'unsafe-inline'" not in h["Content-Security-Policy"]
    # Only the origins the page needs: YouTube's embeds for the videos, the map tiles for images.
    assert set(csp["frame-src"]) == {"https://www.youtube-nocookie.com", "https://www.youtube.com"}
    # The tiles from MAP_TILES_URL; YouTube's thumbnails tell the page whether the videos can load.
    assert csp["img-src"] == ["'self'", "data:", "https://tiles.example.org", "https://i.ytimg.com"]

    # The CSRF cookie: Secure, and readable by the page (it sends it back in X-CSRFToken).
    cookie = h["Set-Cookie"]
    assert "csrftoken=" in cookie and "Secure" in cookie and "HttpOnly" not in cookie


def test_page_has_no_inline_script_only_the_bundle_and_a_json_data_block(production_server):
    """script-src 'self' holds only if every executable script is a file from 'self'. The public
    config is a type="application/json" block: a data block the browser never runs."""
    url = production_server.url
    html = requests.get(url + "/", headers=HTTPS, timeout=10).text
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, flags=re.S)
    assert scripts
    bundles = [attrs for attrs, body in scripts if "src=" in attrs]
    data_blocks = [attrs for attrs, body in scripts if 'type="application/json"' in attrs]
    assert len(bundles) + len(data_blocks) == len(scripts)
    assert bundles, "the webpack bundle is loaded from a file"
    for attrs in bundles:
        src = re.search(r'src="([^"]+)"', attrs).group(1)
        assert src.startswith("/static/"), src  # same origin
    assert len(data_blocks) == 1 and 'id="geopoem-config"' in data_blocks[0]
    # The bundle itself is served with the manifest's hashed name.
    first = re.search(r'src="([^"]+)"', bundles[0]).group(1)
    assert requests.get(url + first, headers=HTTPS, timeout=10).status_code == 200


def test_api_answer_carries_the_headers_too(production_server):
    url = production_server.url
    answer = requests.get(url + "/api/challenges/active", headers=HTTPS, timeout=10)
    assert answer.status_code == 200
    assert answer.headers["X-Frame-Options"] == "DENY"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert "frame-ancestors 'none'" in answer.headers["Content-Security-Policy"]


def test_plain_http_is_redirected_to_https(production_server):
    url = production_server.url
    answer = requests.get(url + "/", timeout=10, allow_redirects=False)
    assert answer.status_code == 301
    port = url.rsplit(":", 1)[1]
    assert answer.headers["Location"] == f"https://127.0.0.1:{port}/"


def test_the_health_probe_is_answered_over_plain_http(production_server):
    """A load balancer probes over plain HTTP: /healthz answers (200 or 503), never a redirect."""
    answer = requests.get(production_server.url + "/healthz", timeout=30, allow_redirects=False)
    assert answer.status_code in (200, 503), answer.status_code
    assert "parts" in answer.json()


def test_check_deploy_is_clean_with_production_settings(production_server):
    env = {**production_server.env, "DJANGO_SETTINGS_MODULE": "config.settings.production"}
    result = subprocess.run(
        [processes.PYTHON, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env=env,
        cwd=processes.ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
