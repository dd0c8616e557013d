"""The CI bundle budget (scripts/bundle_budget.mjs): it sums the gzipped entry chunk only and fails
above the budget. Runs the real script with node on stats and files written here."""

import json
import os
import shutil
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bundle_budget.mjs"
NODE = shutil.which("node") or "node"  # make test builds the front end, so node is there


def build(tmp_path: Path, *, main_js_bytes: int, lazy_js_bytes: int) -> Path:
    """A webpack-bundle-tracker stats file: an entry chunk "main" (JS + CSS) and a lazy chunk."""
    out = tmp_path / "build"
    out.mkdir()
    files = {
        # Random bytes do not compress: their gzipped size is about their size.
        "main.aaaa.js": os.urandom(main_js_bytes),
        "main.bbbb.css": b"body{margin:0}" * 10,
        "lazy.cccc.js": os.urandom(lazy_js_bytes),
    }
    for name, data in files.items():
        (out / name).write_bytes(data)
    stats = {
        "status": "done",
        "chunks": {"main": ["main.bbbb.css", "main.aaaa.js"]},
        "assets": {name: {"name": name, "path": str(out / name)} for name in files},
    }
    path = tmp_path / "webpack-stats.json"
    path.write_text(json.dumps(stats))
    return path


def run(stats: Path, budget_kb: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [NODE, str(SCRIPT), "--stats", str(stats), "--budget-kb", budget_kb, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_an_entry_chunk_over_the_budget_fails_the_build(tmp_path):
    stats = build(tmp_path, main_js_bytes=20_000, lazy_js_bytes=1_000)
    done = run(stats, "10")
    assert done.returncode == 1
    assert "FAILED" in done.stderr
    result = json.loads(done.stdout)
    assert result["within"] is False
    assert result["gzipBytes"] > 10_000


def test_lazy_chunks_do_not_count(tmp_path):
    # 60 KB of lazy code and 5 KB of entry code: within a 10 KB budget, since only the entry counts.
    stats = build(tmp_path, main_js_bytes=5_000, lazy_js_bytes=60_000)
    done = run(stats, "10")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [f["name"] for f in result["files"]] == ["main.bbbb.css", "main.aaaa.js"]
    assert 5_000 < result["gzipBytes"] < 10_000


def test_unreadable_stats_are_an_error_not_a_pass(tmp_path):
    stats = tmp_path / "webpack-stats.json"
    stats.write_text(json.dumps({"status": "compile", "chunks": {}, "assets": {}}))
    done = run(stats, "150")
    assert done.returncode == 2
    assert "not done" in done.stderr
