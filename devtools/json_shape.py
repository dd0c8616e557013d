"""The shape of a JSON answer, to tell an answer that grows with the data from one whose values
merely got longer. Each leaf is named by its path ("earliest.prize", "items[3].id") and measured as
sent. Two answers with the same paths hold the same fields and the same number of entries."""

import json


def leaf_lengths(body, path: str = "") -> dict[str, int]:
    """Every leaf's path and the length of its compact JSON text."""
    if isinstance(body, dict):
        items = ((f"{path}.{key}" if path else str(key), value) for key, value in body.items())
    elif isinstance(body, list):
        items = ((f"{path}[{index}]", value) for index, value in enumerate(body))
    else:
        return {path: len(json.dumps(body, separators=(",", ":")))}
    lengths: dict[str, int] = {}
    for child_path, value in items:
        lengths.update(leaf_lengths(value, child_path))
    return lengths


def value_growth(small, big) -> dict[str, int] | None:
    """None when the two answers differ in structure (a field or an entry more or less); otherwise
    the paths whose values got longer or shorter, with the difference in characters."""
    before, after = leaf_lengths(small), leaf_lengths(big)
    if before.keys() != after.keys():
        return None
    return {path: after[path] - before[path] for path in after if after[path] != before[path]}
