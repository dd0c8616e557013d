"""A small mutation runner (`make mutate`): small realistic bugs, one at a time, in the modules that
guard money and secrets; each must make at least one of that module's tests fail.

Why not mutmut: it runs each mutant in a forked pytest, which shares one PostgreSQL connection and
one anvil between processes, and on this 2-core machine a pytest start costs 10-40 s under load.
Here one pytest session per module collects the module's tests once (the database, anvil and the
Django app start once) and a plugin swaps each mutated function's code object in place
(`function.__code__`), so every reference to the function, also `from x import f` elsewhere,
runs the mutant; the tests run until the first failure; the original code is put back. A mutant
runs only the tests that call its function on the original code (recorded by the baseline run),
earlier killers first (scripts/mutate_plugin.py).

Operators (inside function bodies only; docstrings, log calls and message strings are left alone):
comparison flipped (< <=, > >=, == !=, in / not in, is / is not), and/or swapped, `not` dropped,
+ - * / // swapped, an integer constant +1, True/False swapped, `return x` -> `return None`, and in
`order_by(...)` each field dropped or its direction flipped.

Usage: python scripts/mutate.py [--list] [--from N] [module ...]   (default: every module in TARGETS)
Writes var/mutate/report.txt: per module, mutants, killed, survivors with their line and change."""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORT_DIR = ROOT / "var" / "mutate"

# Module -> the tests that guard it (chosen per module so a run stays bounded on 2 cores): the pure
# rules every implementation must share, then the services and selectors that apply them.
PROPERTIES = "tests/reliability/test_properties.py::"
TARGETS: dict[str, list[str]] = {
    "challenges/commitments.py": [
        "tests/test_mutants_killed.py",
        "tests/test_pot_vectors.py",
        "tests/test_vectors.py",
    ],
    "challenges/coordinates.py": [
        "tests/test_mutants_killed.py",
        "tests/test_vectors.py",
        "tests/test_pot_vectors.py",
        PROPERTIES + "test_coordinates_truncate_toward_zero_and_round_trip",
        PROPERTIES + "test_range_checked_on_the_exact_value",
        PROPERTIES + "test_truncate_number_is_idempotent",
    ],
    "challenges/geometry.py": ["tests/test_pot_vectors.py"],
    "challenges/abi.py": ["tests/test_mutants_killed.py", "tests/test_pot_vectors.py"],
    "challenges/terms.py": ["tests/test_mutants_killed.py", "tests/test_pot_vectors.py"],
    "chain/pot/encoding.py": ["tests/test_pot_vectors.py"],
    "chain/pot/abi.py": ["chain/tests/pot/test_abi.py"],
    "chain/pot/errors.py": ["chain/tests/pot/test_errors.py"],
    "chain/token/authorization.py": ["tests/test_vectors_authorization.py"],
    "challenges/selectors.py": [
        "tests/test_mutants_killed.py",
        "challenges/tests/test_api.py",
        "tests/test_secrets.py",
        "tests/test_chain_order.py",
    ],
    "challenges/serializers.py": ["challenges/tests/test_api.py", "tests/test_secrets.py"],
    "responses/serializers.py": ["tests/test_mutants_killed.py", "tests/test_bodies.py", "tests/test_secrets.py"],
    "responses/selectors.py": ["tests/test_secrets.py", "tests/test_chain_order.py", "tests/test_guesses.py"],
    "responses/services.py": ["tests/test_guesses.py", "tests/test_secrets.py"],
    "chain/pot/projection.py": [
        "tests/test_chain_order.py",
        "tests/test_guesses.py",
        "challenges/tests/test_api.py",
    ],
    # The players' verifier: its tests run it in the test's own process (VERIFY_IN_PROCESS, below),
    # so that the mutant is what runs; as a player runs it (`python -S`) otherwise.
    "verify_challenge.py": [
        "tests/test_verify_challenge.py",
        "chain/tests/verify/test_honest.py",
        "chain/tests/verify/test_differences.py",
        "chain/tests/verify/test_refunds.py",
        "chain/tests/verify/test_node_limits.py",
    ],
}

# Environment per module: the verifier's tests call its main() in process.
MODULE_ENV: dict[str, dict[str, str]] = {"verify_challenge.py": {"VERIFY_IN_PROCESS": "1"}}

_COMPARE_SWAPS = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_BINOP_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Div}
_SKIPPED_CALLS = {"debug", "info", "warning", "error", "exception", "critical"}


@dataclass
class Mutant:
    number: int
    function: str  # qualified name of the top-level function or method that holds the change
    line: int
    change: str
    tree: ast.Module


def _functions(tree: ast.Module):
    """(qualified name, node) of module-level functions and methods of module-level classes."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield f"{node.name}.{item.name}", item


def _skipped_nodes(function: ast.AST) -> set[int]:
    """Ids of nodes not to mutate: the docstring, log calls and exception messages."""
    skipped: set[int] = set()
    body = getattr(function, "body", [])
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        skipped.update(id(n) for n in ast.walk(body[0]))
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SKIPPED_CALLS:
            skipped.update(id(n) for n in ast.walk(node))
        if isinstance(node, ast.Raise) and node.exc is not None:
            skipped.update(id(n) for n in ast.walk(node.exc) if isinstance(n, ast.Constant | ast.JoinedStr))
    return skipped


def _edits(node: ast.AST):
    """(description, function that applies the edit to a copy of this node) for each mutation."""
    if isinstance(node, ast.Compare):
        for index, op in enumerate(node.ops):
            swap = _COMPARE_SWAPS.get(type(op))
            if swap:

                def edit(n, index=index, swap=swap):
                    n.ops[index] = swap()

                yield f"{type(op).__name__} -> {swap.__name__}", edit
    elif isinstance(node, ast.BoolOp):
        other = ast.Or if isinstance(node.op, ast.And) else ast.And

        def edit(n, other=other):
            n.op = other()

        yield f"{type(node.op).__name__} -> {other.__name__}", edit
    elif isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAPS:
        swap = _BINOP_SWAPS[type(node.op)]

        def edit(n, swap=swap):
            n.op = swap()

        yield f"{type(node.op).__name__} -> {swap.__name__}", edit
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "order_by":
        for index, arg in enumerate(node.args):
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):

                def drop(n, index=index):
                    del n.args[index]

                def flip(n, index=index):
                    value = n.args[index].value
                    n.args[index] = ast.Constant(value[1:] if value.startswith("-") else "-" + value)

                yield f"order_by drops {arg.value!r}", drop
                yield f"order_by flips {arg.value!r}", flip


def _value_edits(node: ast.AST):
    """Edits that replace a node by another: `not x` -> x, constants, return values."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "not dropped", lambda n: n.operand
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        yield f"{node.value} -> {not node.value}", lambda n: ast.Constant(not n.value)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        yield f"{node.value} -> {node.value + 1}", lambda n: ast.Constant(n.value + 1)


def mutants_of(source: str) -> list[Mutant]:
    tree = ast.parse(source)
    found: list[Mutant] = []
    for qualname, function in _functions(tree):
        skipped = _skipped_nodes(function)
        # Paths to nodes as (parent, field, index) so each mutant edits a deep copy at the same place.
        for parent in ast.walk(function):
            for field, value in ast.iter_fields(parent):
                children = value if isinstance(value, list) else [value]
                for index, child in enumerate(children):
                    if not isinstance(child, ast.AST) or id(child) in skipped:
                        continue
                    location = (parent, field, index if isinstance(value, list) else None)
                    for change, edit in _edits(child):
                        found.append(_make(tree, location, change, edit, qualname, child, replace=False))
                    for change, edit in _value_edits(child):
                        found.append(_make(tree, location, change, edit, qualname, child, replace=True))
                    if isinstance(child, ast.Return) and child.value is not None:
                        if not (isinstance(child.value, ast.Constant) and child.value.value is None):
                            found.append(
                                _make(tree, location, "return None", _return_none, qualname, child, replace=False)
                            )
    for number, mutant in enumerate(found, start=1):
        mutant.number = number
    return found


def _return_none(node: ast.Return) -> None:
    node.value = ast.Constant(None)


def _make(tree, location, change, edit, qualname, child, *, replace: bool) -> Mutant:
    parent, field, index = location
    # Copy the whole module, then find the same parent in the copy by walking both trees in step.
    mutated = copy.deepcopy(tree)
    twin = {id(a): b for a, b in zip(ast.walk(tree), ast.walk(mutated), strict=True)}
    twin_parent = twin[id(parent)]
    twin_child = twin[id(child)]
    if replace:
        new = edit(twin_child)
        ast.copy_location(new, twin_child)
        if index is None:
            setattr(twin_parent, field, new)
        else:
            getattr(twin_parent, field)[index] = new
    else:
        edit(twin_child)
    ast.fix_missing_locations(mutated)
    return Mutant(number=0, function=qualname, line=getattr(child, "lineno", 0), change=change, tree=mutated)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", default=list(TARGETS))
    parser.add_argument("--list", action="store_true", help="print the mutants and exit")
    parser.add_argument("--max-seconds-per-mutant", type=float, default=120.0)
    parser.add_argument(
        "--from",
        dest="first",
        type=int,
        default=1,
        help="start at mutant number N (resume a run stopped part way; its report covers N and after)",
    )
    args = parser.parse_args()
    REPORT_DIR.mkdir(parents=True, exist_ok=True)
    summary = []
    for module in args.modules:
        mutants = mutants_of((ROOT / module).read_text())
        if args.list:
            for m in mutants:
                print(f"{module}:{m.line} #{m.number} {m.function}: {m.change}")
            summary.append(f"{module}: {len(mutants)} mutants")
            continue
        suffix = f".from-{args.first}" if args.first > 1 else ""
        result_file = REPORT_DIR / (module.replace("/", "_") + suffix + ".json")
        result_file.unlink(missing_ok=True)
        started = time.monotonic()
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "scripts.mutate_plugin",
            f"--mutate-module={module}",
            f"--mutate-result={result_file}",
            f"--mutate-max-seconds={args.max_seconds_per_mutant}",
            f"--mutate-from={args.first}",
            *TARGETS[module],
        ]
        print(f"== {module}: {len(mutants)} mutants, tests: {' '.join(TARGETS[module])}", flush=True)
        env = {**os.environ, "PYTHONPATH": str(ROOT), **MODULE_ENV.get(module, {})}
        subprocess.run(command, cwd=ROOT, env=env, check=False)  # noqa: S603
        if not result_file.exists():
            summary.append(f"{module}: the baseline run failed (no result); see the output above")
            continue
        result = json.loads(result_file.read_text())
        survivors = [r for r in result["mutants"] if not r["killed"] or "UNSURE" in r["by"]]
        line = (
            f"{module}: {len(result['mutants'])} mutants, {len(result['mutants']) - len(survivors)} killed, "
            f"{len(survivors)} survived ({time.monotonic() - started:.0f} s)"
        )
        summary.append(line)
        summary.extend(
            f"  survivor #{s['number']} line {s['line']} {s['function']}: {s['change']}"
            + (" (unsure: state left behind)" if s["killed"] else "")
            + (" (not reached: no test calls it)" if s["by"] == "not reached by any test" else "")
            for s in survivors
        )
    report = "\n".join(summary)
    (REPORT_DIR / "report.txt").write_text(report + "\n")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
