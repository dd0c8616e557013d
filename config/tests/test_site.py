"""The page, the 404 rules, the schema, the health check and the production settings."""

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def embedded_config(html: str) -> dict:
    start = html.index('id="geopoem-config"')
    return json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])


def test_the_page_loads_the_bundle_and_embeds_the_public_config(client, settings):
    answer = client.get("/")
    assert answer.status_code == 200
    html = answer.content.decode()
    assert '<div id="root"></div>' in html
    config = embedded_config(html)
    assert config["chainId"] == settings.CHAIN_ID
    assert config["chainIdHex"] == hex(settings.CHAIN_ID)
    assert config["usdcAddress"] == settings.USDC_ADDRESS
    assert (config["potAddress"], config["potDeployBlock"]) == (settings.POT_ADDRESS, settings.POT_DEPLOY_BLOCK)
    assert "treasuryAddress" not in config and "registryAddress" not in config
    assert config["minStake"] == "1.00"
    assert set(config["socialLinks"]) == {"x", "instagram", "tiktok", "youtube", "facebook", "linkedin"}
    assert len(config["videoIds"]) == 2
    # The CSRF cookie is set for the page's POST, and it is readable by the page.
    cookie = answer.cookies["csrftoken"]
    assert cookie.value and not cookie["httponly"]


def test_settings_drive_the_embedded_config(client, settings):
    settings.CHAIN_ID = 31337
    settings.USDC_ADDRESS = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
    settings.POT_ADDRESS = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"
    settings.POT_DEPLOY_BLOCK = 17
    settings.STAKE_CLOSE_MARGIN_SECONDS = 90
    config = embedded_config(client.get("/").content.decode())
    assert (config["chainId"], config["chainIdHex"], config["usdcAddress"]) == (31337, "0x7a69", settings.USDC_ADDRESS)
    assert (config["potAddress"], config["potDeployBlock"]) == (settings.POT_ADDRESS, 17)
    assert config["stakeCloseMarginSeconds"] == 90
    settings.POT_ADDRESS = ""
    assert embedded_config(client.get("/").content.decode())["potAddress"] is None


def test_the_page_gets_the_confirmations_as_a_number_of_blocks(client, settings):
    # The page watches the head and asks quickly from the deep-enough block (docs/decisions.md,
    # "Following a pending claim"); "finalized" gives it no block count: 0, plain polling.
    settings.CHAIN_CONFIRMATIONS = "3"
    assert embedded_config(client.get("/").content.decode())["confirmations"] == 3
    settings.CHAIN_CONFIRMATIONS = "finalized"
    assert embedded_config(client.get("/").content.decode())["confirmations"] == 0


def test_the_map_tiles_and_their_attribution_come_from_settings(client, settings):
    config = embedded_config(client.get("/").content.decode())
    assert config["mapTilesUrl"] == "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    assert config["mapAttribution"] == (
        '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors'
    )
    settings.MAP_TILES_URL = "https://tiles.example.org/{z}/{x}/{y}.png"
    settings.MAP_ATTRIBUTION = "Tiles &copy; Example"
    config = embedded_config(client.get("/").content.decode())
    assert (config["mapTilesUrl"], config["mapAttribution"]) == (settings.MAP_TILES_URL, "Tiles &copy; Example")


def test_styles_are_allowed_by_a_fresh_nonce_the_page_can_read_never_unsafe_inline(client):
    """Radix's dialogs inject a <style> element (the scroll lock): it carries this nonce, read by
    the page from <meta property="csp-nonce">; without it each dialog logged a CSP error."""
    import re

    nonces = []
    for _ in range(2):
        answer = client.get("/")
        policy = answer.headers["Content-Security-Policy"]
        style_found = re.search(r"style-src ([^;]*)", policy)
        assert style_found, policy
        style_src = style_found.group(1).split()
        assert "'unsafe-inline'" not in policy
        assert style_src[0] == "'self'" and len(style_src) == 2
        nonce_found = re.fullmatch(r"'nonce-([A-Za-z0-9+/=_-]{16,})'", style_src[1])
        assert nonce_found, style_src
        nonce = nonce_found.group(1)
        assert f'<meta property="csp-nonce" nonce="{nonce}">' in answer.content.decode()
        nonces.append(nonce)
    assert nonces[0] != nonces[1]  # one per answer


@pytest.mark.parametrize("path", ["/nope", "/challenges/3", "/index.html", "/admin-not-here/"])
def test_any_other_path_is_the_page_with_404(client, path):
    answer = client.get(path)
    assert answer.status_code == 404
    assert '<div id="root"></div>' in answer.content.decode()


@pytest.mark.parametrize("path", ["/api/", "/api/nope", "/api/challenges/abc/winners", "/api/responses/0x12/more"])
def test_unknown_api_paths_are_json_404(client, path):
    answer = client.get(path)
    assert answer.status_code == 404
    assert answer["Content-Type"].startswith("application/json")
    assert answer.json() == {"message": "Not found.", "errors": {}}


def test_openapi_schema_lists_every_operation(client):
    answer = client.get("/api/schema/")
    assert answer.status_code == 200
    schema = yaml.safe_load(answer.content)
    assert schema["openapi"].startswith("3.")
    assert set(schema["paths"]) == {
        "/api/challenges/active",
        "/api/challenges/resolved",
        "/api/challenges/{challenge_id}",
        "/api/challenges/{challenge_id}/winners",
        "/api/responses",
        "/api/responses/guess",
        "/api/responses/{commitment}",
        "/api/payments/authorization",
    }
    assert set(schema["paths"]["/api/responses"]) == {"get", "post"}
    assert set(schema["paths"]["/api/responses/guess"]) == {"post"}


def test_schema_generates_without_warnings():
    result = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--validate", "--fail-on-warn", "--settings=config.settings.test"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr


def test_healthz_names_the_failing_part(client, settings):
    settings.CHAIN_RPC_URLS = ["http://127.0.0.1:9"]  # the discard port: nothing answers JSON-RPC there
    answer = client.get("/healthz")
    assert answer.status_code == 503
    data = answer.json()
    assert data["failing"] == ["chain"]
    assert data["parts"]["database"] == "ok" and data["parts"]["broker"] == "ok"


def test_production_settings_pass_the_deploy_check():
    env = {
        **os.environ,
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "geopoem.example",
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        # Production refuses to start without these (config/tests/test_production_settings.py).
        "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/geopoem",
        "REDIS_URL": "redis://127.0.0.1:6379/0",
        "CHAIN_RPC_URLS": "http://127.0.0.1:9",
        "CHAIN_ID": "11155111",
        "POT_ADDRESS": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
        "POT_OPERATOR_KEY": "0x" + "5e" * 32,  # made up for this test
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_production_refuses_to_start_without_a_secret_key():
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env |= {"ALLOWED_HOSTS": "geopoem.example", "DJANGO_SETTINGS_MODULE": "config.settings.production"}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_a_chain_without_a_public_explorer_gets_no_explorer_links_by_default(client, settings):
    """A local chain must not link to sepolia.etherscan.io, where its transactions do not exist."""
    from config.settings import base

    for chain_id, explorer, local in [
        (11155111, "https://sepolia.etherscan.io", False),
        (1, "https://etherscan.io", False),
        (31337, "", True),
        (1337, "", True),
    ]:
        code = "import config.settings.test as s; print(repr((s.CHAIN_EXPLORER_URL, s.CHAIN_IS_LOCAL)))"
        env = {
            **{k: v for k, v in os.environ.items() if k not in ("CHAIN_EXPLORER_URL", "CHAIN_IS_LOCAL")},
            "CHAIN_ID": str(chain_id),
        }
        answer = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
        assert answer.stdout.strip().splitlines()[-1] == repr((explorer, local)), answer.stderr
    assert base.PUBLIC_EXPLORERS[11155111] == "https://sepolia.etherscan.io"

    settings.CHAIN_EXPLORER_URL = ""
    settings.CHAIN_IS_LOCAL = True
    config = embedded_config(client.get("/").content.decode())
    assert (config["explorerUrl"], config["localChain"]) == ("", True)
