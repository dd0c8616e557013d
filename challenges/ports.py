"""What the challenges app needs of the chain, as one typed interface. challenges sits below chain and
never imports it (docs/architecture.md, "Layers"): chain/apps.py installs its adapter when Django
starts; until then (and in tests that want no chain) the null port below answers."""

from __future__ import annotations

from typing import Protocol


class ChainPort(Protocol):
    def opening_queued(self, *, challenge_id: int) -> None:
        """A published challenge's `open` was committed: queue the worker that sends it."""


class NullChainPort:
    def opening_queued(self, *, challenge_id: int) -> None:
        return None


_port: ChainPort = NullChainPort()


def chain_port() -> ChainPort:
    return _port


def install_chain_port(port: ChainPort) -> None:
    global _port
    _port = port
