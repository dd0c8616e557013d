"""`make bench` writes only its tables into docs/performance.md (bench/tables.py): between each pair of
markers, nothing outside them, and nothing at all when a marker is missing; the prose is the author's.
And the figures of the POST benchmark (bench/post.py) take the public reads out of a burst's CPU at
the floor's price."""

from __future__ import annotations

import pytest

from bench import tables
from bench.post import cpu_per_request

PROSE = """# Performance

Prose the author wrote, with a | pipe.

<!-- bench:one -->
| old | table |
<!-- /bench:one -->

More prose.

<!-- bench:two -->
<!-- /bench:two -->
"""


def test_a_block_is_replaced_between_its_markers_and_the_prose_is_kept():
    text = tables.replace_block(PROSE, "one", "| new |\n|---|\n| 1 |")
    assert "| old | table |" not in text
    assert "<!-- bench:one -->\n| new |\n|---|\n| 1 |\n<!-- /bench:one -->" in text
    assert text.replace("| new |\n|---|\n| 1 |\n", "") == PROSE.replace("| old | table |\n", "")
    assert tables.replace_block(text, "one", "| new |\n|---|\n| 1 |") == text  # written twice: the same


def test_nothing_is_written_when_a_marker_is_missing_or_out_of_order(tmp_path):
    path = tmp_path / "performance.md"
    path.write_text(PROSE)
    with pytest.raises(tables.MarkerError):
        tables.write({"two": "| a |", "three": "| b |"}, path)
    assert path.read_text() == PROSE  # the block that had its markers was not written either
    with pytest.raises(tables.MarkerError):
        tables.replace_block("<!-- /bench:x -->\n<!-- bench:x -->", "x", "| a |")
    with pytest.raises(tables.MarkerError):
        tables.replace_block(PROSE + "<!-- bench:one -->", "one", "| a |")
    tables.write({"two": "| a |"}, path)
    assert tables.names(path) == ["one", "two"] and "<!-- bench:two -->\n| a |\n<!-- /bench:two -->" in path.read_text()


def test_a_table_escapes_its_cells_and_refuses_a_ragged_row():
    text = tables.table(["a", "b"], [[1, "x|y"], [2, "z"]], right=(0,))
    assert text.splitlines() == ["| a | b |", "|---:|---|", "| 1 | x\\|y |", "| 2 | z |"]
    with pytest.raises(ValueError):
        tables.table(["a", "b"], [[1]])


def test_the_provenance_names_the_command_the_time_and_the_load():
    block = tables.provenance(
        {
            "command": ".venv/bin/python -m bench.run gas",
            "measuredAt": "2026-11-28T19:00:00Z",
            "loadAverageBefore": [1.5, 2, 3],
            "loadAverage": [4, 5.25, 6],
        }  # fmt: skip
    )
    assert "| `.venv/bin/python -m bench.run gas` | 2026-11-28 19:00:00 | 1.5 / 2 / 3 → 4 / 5.25 / 6 |" in block


def test_the_reads_beside_a_burst_are_taken_out_at_the_floors_cpu_per_request():
    floor = {"kind": "floor", "round": 0, "webCpuSeconds": 1.0, "reads": 200, "requests": {"count": 300}}
    post = {"kind": "post", "round": 0, "webCpuSeconds": 3.4, "reads": 200, "requests": {"count": 300}}
    other = {"kind": "post", "round": 1, "webCpuSeconds": 9.0, "reads": 100, "requests": {"count": 300}}
    later = {"kind": "floor", "round": 1, "webCpuSeconds": 3.0, "reads": 100, "requests": {"count": 200}}
    cpu_per_request([floor, post, other, later])
    assert floor["cpuMsPerRequest"] == pytest.approx(2.0)  # 1 s over 500 requests
    assert post["cpuMsPerRequest"] == pytest.approx(10.0)  # (3.4 s - 200 x 2 ms) / 300
    assert later["cpuMsPerRequest"] == pytest.approx(10.0)  # each round against its own floor
    assert other["cpuMsPerRequest"] == pytest.approx(26.667, abs=1e-3)  # (9 s - 100 x 10 ms) / 300
