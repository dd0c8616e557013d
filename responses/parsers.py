"""The API's one JSON parser. Whatever the body, it answers a value or a 4xx ApiError saying what is
wrong, in bounded time and memory: a number literal is bounded before it is converted (a Decimal
of 1e999999999999999999 is cheap to build but formatting it needs an exabyte), a charset that is not
UTF-8 is refused (JSON is UTF-8, RFC 8259), and a body nested deeper than 32 levels is refused. The promise
and its tests: docs/reliability.md, "No body answers 500, secrets guarded in every claim state, mutation
testing"."""

import json
import re
from decimal import Decimal

from rest_framework.parsers import JSONParser

from config.api_errors import ApiError
from config.bodies import charset_problem

# No number this API reads needs more: a stake is at most 15 digits, 6 decimals; an id fits in 19.
MAX_NUMBER_CHARS = 40
MAX_EXPONENT = 40
NUMBER_MESSAGE = (
    f"A number in the request body is too long or too large (at most {MAX_NUMBER_CHARS} characters "
    f"and an exponent of at most {MAX_EXPONENT}); send amounts as decimal strings."
)
# The JSON number grammar's exponent part; the literal reaching the hooks is already valid JSON.
_EXPONENT = re.compile(r"[eE]([-+]?[0-9]+)$", re.ASCII)


# No body this API reads nests more than a level or two; Python's own limit (a RecursionError
# inside json.loads, near 1,000 levels) depends on the interpreter's recursion limit, which
# hypothesis and others raise.
MAX_NESTING = 32


def nesting_depth(text: str) -> int:
    """The deepest [ / { nesting of a JSON text, brackets inside strings not counted (one pass)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _number_too_large() -> ApiError:
    return ApiError(NUMBER_MESSAGE, status_code=400)


def bounded_decimal(literal: str) -> Decimal:
    """A JSON number with a fraction or an exponent, as an exact Decimal of bounded size."""
    if len(literal) > MAX_NUMBER_CHARS:
        raise _number_too_large()
    exponent = _EXPONENT.search(literal)
    if exponent is not None and abs(int(exponent.group(1))) > MAX_EXPONENT:
        raise _number_too_large()
    return Decimal(literal)


def bounded_int(literal: str) -> int:
    """A JSON integer of bounded length (Python refuses over 4,300 digits with a ValueError that
    would read as "not valid JSON"; nothing here needs a tenth of that)."""
    if len(literal) > MAX_NUMBER_CHARS:
        raise _number_too_large()
    return int(literal)


class DecimalJSONParser(JSONParser):
    """JSON with numbers that have a fraction parsed as Decimal, so a stake sent as a JSON number
    never passes through a float."""

    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        # DRF passes the request's charset (Django keeps only one it can look up, but "rot13" is
        # such a codec, and not a text encoding); the body is JSON, so UTF-8 or nothing.
        problem = charset_problem(parser_context.get("encoding"))
        if problem:
            raise ApiError(problem, status_code=415)
        try:
            text = stream.read().decode("utf-8") if stream is not None else ""
            if nesting_depth(text) > MAX_NESTING:
                raise RecursionError
            return json.loads(text, parse_float=bounded_decimal, parse_int=bounded_int, parse_constant=_refuse_constant)
        except RecursionError:
            raise ApiError("The request body is nested too deeply.", status_code=400) from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ApiError("The request body is not valid JSON.", status_code=400) from exc


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")
