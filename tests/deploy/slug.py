"""What the buildpacks do, on loopback: the repository's committed files in a fresh directory, the
Node buildpack's install and build hook, the Python buildpack's fresh virtualenv with the runtime
requirements only and its `collectstatic`; then the processes of the real Procfile, each started
with only the config vars app.json declares (plus what the add-ons and the platform set).

Each process runs in its own session, so stopping it (SIGTERM to its process group, whose id is the
PID we started) also stops what its shell started, and nothing else."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from devtools import processes

REPO = Path(__file__).resolve().parents[2]
# The add-ons app.json lists and the config var each one sets (Heroku's names).
ADDON_VARS = {"heroku-postgresql": "DATABASE_URL", "heroku-redis": "REDIS_URL"}


def run(cmd: list[str] | str, *, cwd: Path, env: dict, log: Path, timeout: float, shell: bool = False) -> float:
    """Run to completion, output appended to `log`; returns seconds taken. Fails with the log's tail."""
    started = time.monotonic()
    with open(log, "ab") as out:
        out.write(f"\n$ {cmd}\n".encode())
        out.flush()
        done = subprocess.run(
            cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=timeout, shell=shell, check=False
        )
    if done.returncode != 0:
        raise AssertionError(f"{cmd} exited with {done.returncode}:\n{log.read_text(errors='replace')[-4000:]}")
    return time.monotonic() - started


def checkout(target: Path) -> None:
    """The committed tree, as a `git push` delivers it (git archive HEAD: no untracked or ignored file)."""
    target.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=REPO, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)


def platform_env() -> dict:
    """What any process on the platform has before config vars: a PATH, a HOME, a locale."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/tmp"), "LANG": "C.UTF-8"}


def node_build(app: Path, log: Path) -> subprocess.Popen:
    """The Node buildpack: install package-lock.json's dependencies (`npm ci`, as the buildpack does
    when the lock file is there), then run the build hook (`heroku-postbuild` when present, else
    `build`). Started in the background; returns the process."""
    scripts = json.loads((app / "package.json").read_text())["scripts"]
    hook = "heroku-postbuild" if "heroku-postbuild" in scripts else "build"
    # npm's cache makes the install quicker; it is still a full install into the new directory.
    command = f"npm ci --prefer-offline --no-audit --no-fund && npm run {hook}"
    return processes.start(["/bin/sh", "-c", command], log=log, env=platform_env(), cwd=app, new_session=True)


def python_build(app: Path, log: Path) -> subprocess.Popen:
    """The Python buildpack: the Python that .python-version names, a new virtualenv, requirements.txt
    alone (pip's cache makes it quicker)."""
    version = (app / ".python-version").read_text().strip()
    python = shutil.which(f"python{version}") or sys.executable
    venv = app / ".heroku" / "python"
    pip = f"{venv}/bin/pip install --quiet --disable-pip-version-check"
    command = f"{python} -m venv {venv} && {pip} -r requirements.txt"
    return processes.start(["/bin/sh", "-c", command], log=log, env=platform_env(), cwd=app, new_session=True)


def wait_built(process: subprocess.Popen, log: Path, *, timeout: float) -> None:
    try:
        code = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop(process)
        raise
    assert code == 0, f"build step exited with {code}:\n{log.read_text(errors='replace')[-4000:]}"


def slug_env(app: Path) -> dict:
    env = platform_env()
    env["PATH"] = f"{app / '.heroku' / 'python' / 'bin'}:{env['PATH']}"
    return env


def app_env(app: Path, values: dict[str, str], addons: dict[str, str]) -> dict:
    """The environment of a dyno: the platform's, the add-ons' URLs, and config vars, of which only
    those app.json declares may be set. A declared var with a fixed `value` gets it unless `values`
    overrides it; `generator: secret` gets a fresh secret, as the platform generates it."""
    manifest = json.loads((app / "app.json").read_text())
    declared = manifest["env"]
    undeclared = set(values) - set(declared)
    assert not undeclared, f"config vars app.json does not declare: {sorted(undeclared)}"
    env = slug_env(app)
    for addon in manifest["addons"]:
        plan = addon["plan"].split(":")[0]
        env[ADDON_VARS[plan]] = addons[ADDON_VARS[plan]]
    for name, spec in declared.items():
        if name in values:
            env[name] = values[name]
        elif "value" in spec:
            env[name] = spec["value"]
        elif spec.get("generator") == "secret":
            env[name] = secrets.token_hex(32)
    missing = [name for name, spec in declared.items() if spec.get("required") and name not in env]
    assert not missing, f"required config vars without a value: {missing}"
    return env


def procfile(app: Path) -> dict[str, str]:
    entries = {}
    for line in (app / "Procfile").read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_-]+):\s*(.+)$", line)
        if match:
            entries[match.group(1)] = match.group(2)
    return entries


def start(command: str, *, app: Path, env: dict, log: Path) -> subprocess.Popen:
    return processes.start(["/bin/bash", "-c", command], log=log, env=env, cwd=app, new_session=True)


def stop(process: subprocess.Popen, *, timeout: float = 20) -> None:
    """SIGTERM to the process group we created for this process (its id is the PID), SIGKILL if it
    hangs; whatever the group still holds once the shell has exited goes too."""
    processes.stop(process, timeout=timeout, group=True)


@contextmanager
def dyno(name: str, *, app: Path, env: dict, workdir: Path):
    """One Procfile process, stopped by its process group on the way out."""
    command = procfile(app)[name]
    process = start(command, app=app, env=env, log=workdir / f"{name}.log")
    try:
        yield process
    finally:
        stop(process)
