"""The benchmarks' tables in docs/performance.md. The prose of that file is written by hand; a
benchmark writes only its tables, each between its pair of markers:

    <!-- bench:NAME -->
    | ... generated ... |
    <!-- /bench:NAME -->

A marker missing, or a pair out of order, is an error rather than a table appended somewhere: the
author of the prose decides where each table stands. Each block ends with a one-row table of where
its figures came from (the command, when, the load average)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

PERFORMANCE = Path(__file__).resolve().parent.parent / "docs" / "performance.md"


class MarkerError(ValueError):
    pass


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], *, right: Sequence[int] = ()) -> str:
    """A Markdown table; the columns numbered in `right` aligned to the right (figures)."""
    rule = ["---:" if i in right else "---" for i in range(len(headers))]
    lines = ["| " + " | ".join(_cell(h) for h in headers) + " |", "|" + "|".join(rule) + "|"]
    for row in rows:
        if len(row) != len(headers):
            raise ValueError(f"a row of {len(row)} cells under {len(headers)} headers: {row}")
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return "\n".join(lines)


def provenance(result: dict) -> str:
    """Where a block's figures came from: the command, when, and the load average around it."""
    before = result.get("loadAverageBefore")
    load = " / ".join(f"{x:g}" for x in result["loadAverage"])
    if before:
        load = " / ".join(f"{x:g}" for x in before) + " → " + load
    return table(
        ["command", "measured (UTC)", "load average (1 / 5 / 15 min)"],
        [[f"`{result['command']}`", result["measuredAt"].replace("T", " ").removesuffix("Z"), load]],
    )


def replace_block(text: str, name: str, content: str) -> str:
    """`text` with what stands between the markers of `name` replaced by `content`."""
    opening, closing = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    if text.count(opening) != 1 or text.count(closing) != 1:
        raise MarkerError(f"docs/performance.md needs exactly one {opening} and one {closing}")
    start, end = text.index(opening) + len(opening), text.index(closing)
    if end < start:
        raise MarkerError(f"{closing} stands before {opening}")
    return text[:start] + "\n" + content.strip("\n") + "\n" + text[end:]


def write(blocks: dict[str, str], path: Path = PERFORMANCE) -> None:
    """Each block's content between its markers in `path`; every marker is checked before anything
    is written."""
    text = path.read_text()
    for name, content in blocks.items():
        text = replace_block(text, name, content)
    path.write_text(text)


def names(path: Path = PERFORMANCE) -> list[str]:
    """The names of the blocks `path` has markers for."""
    return re.findall(r"<!-- bench:([\w-]+) -->", path.read_text())


def number(value: float | int | None, digits: int = 0) -> str:
    """A figure as the tables show it: thousands separated, `digits` decimals, a dash for none."""
    if value is None:
        return "–"
    return f"{value:,.{digits}f}"


def met(ok: bool | None) -> str:
    return "" if ok is None else ("met" if ok else "**missed**")
