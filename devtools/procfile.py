"""The Procfile's `web` process as production runs it, on loopback: its own command line, read from
the Procfile and run by bash (so its `${VAR:-default}` expansions are bash's, as the platform's), with
one change only: it binds 127.0.0.1 instead of 0.0.0.0, so nothing outside this machine can reach a
test's or a benchmark's server. Started in a session of its own and stopped by that process group's
id. No app is imported (docs/architecture.md): bench/ uses it before Django is set up."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import processes

ROOT = Path(__file__).resolve().parent.parent
PROCFILE = ROOT / "Procfile"


def procfile_command(name: str, procfile: Path = PROCFILE) -> str:
    """The command line of process `name` in the Procfile."""
    for line in procfile.read_text().splitlines():
        match = re.match(rf"^{re.escape(name)}:\s*(.+)$", line)
        if match:
            return match.group(1)
    raise KeyError(f"no {name!r} process in {procfile}")


def loopback_web_command(procfile: Path = PROCFILE) -> str:
    """The `web` command with its public bind (0.0.0.0) replaced by loopback; exactly one bind."""
    command = procfile_command("web", procfile)
    bind = re.search(r"--bind[= ]0\.0\.0\.0:", command)
    if bind is None or command.count("--bind") != 1:
        raise ValueError(f"the web process should bind 0.0.0.0 once: {command}")
    loopback = bind.group(0).replace("0.0.0.0", "127.0.0.1")  # noqa: S104 - the public bind, replaced
    return command[: bind.start()] + loopback + command[bind.end() :]


@dataclass(frozen=True)
class Web:
    base: str  # http://127.0.0.1:PORT
    group: int  # its process group: bash, gunicorn's master and workers


@contextmanager
def web(env: dict[str, str], *, log: Path, ready_path: str = "/api/challenges/resolved", timeout: float = 90.0,
        stop_timeout: float = 30.0) -> Iterator[Web]:  # fmt: skip
    """The Procfile's web process with `env` (PORT set to a free loopback port, the virtualenv's
    gunicorn first on PATH), once GET `ready_path` answers 200."""
    port = processes.free_port()
    env = {**env, "PORT": str(port), "PATH": f"{processes.BIN}{os.pathsep}{env.get('PATH', '')}"}
    process = processes.start(["/bin/bash", "-c", loopback_web_command()], log=log, env=env, new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        processes.wait_http(base + ready_path, timeout=timeout, process=process)
        yield Web(base, process.pid)
    finally:
        processes.stop(process, timeout=stop_timeout, group=True)
