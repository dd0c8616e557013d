"""The canonical "lat, lon" form (docs/protocol.md section 1), computed on decimal strings, never floats.

Python and TypeScript both implement this; `tests/vectors.json` proves they agree.
"""

import re
from dataclasses import dataclass
from decimal import Decimal

COORDINATES_MESSAGE = "Please enter valid coordinates in the format: latitude, longitude"
PRECISION = 6
MAX_INPUT_LENGTH = 100

_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_COORDINATES = re.compile(rf"^\s*({_NUMBER})\s*,\s*({_NUMBER})\s*$", re.ASCII)


class CoordinateError(ValueError):
    """The text is not a valid "lat, lon" pair. The message is the spec's sentence."""

    def __init__(self) -> None:
        super().__init__(COORDINATES_MESSAGE)


@dataclass(frozen=True)
class Coordinates:
    lat: Decimal
    lon: Decimal

    @property
    def text(self) -> str:
        return f"{format_decimal(self.lat)}, {format_decimal(self.lon)}"


def truncate_number(number: str) -> str:
    """Truncate a decimal string toward zero to PRECISION places and write it canonically:
    no "+", no leading zeros, no trailing zeros or bare ".", and "-0" written "0"."""
    sign = ""
    if number[0] in "+-":
        sign, number = ("-" if number[0] == "-" else ""), number[1:]
    whole, _, fraction = number.partition(".")
    whole = whole.lstrip("0") or "0"
    fraction = fraction[:PRECISION].rstrip("0")
    text = f"{whole}.{fraction}" if fraction else whole
    return "0" if text == "0" else sign + text


def format_decimal(value: Decimal) -> str:
    return truncate_number(format(value, "f"))


def parse_coordinates(text: object) -> Coordinates:
    """Parse player input into canonical coordinates; the range is checked on the exact value,
    so 90.0000001 is refused rather than truncated into range."""
    if not isinstance(text, str) or len(text) > MAX_INPUT_LENGTH:
        raise CoordinateError
    match = _COORDINATES.match(text)
    if match is None:
        raise CoordinateError
    lat_text, lon_text = match.groups()
    if not (-90 <= Decimal(lat_text) <= 90 and -180 <= Decimal(lon_text) <= 180):
        raise CoordinateError
    return Coordinates(lat=Decimal(truncate_number(lat_text)), lon=Decimal(truncate_number(lon_text)))


def canonical_coordinates(text: object) -> str:
    return parse_coordinates(text).text


def _micro(number: str) -> int:
    """A canonical decimal string (at most PRECISION places) times 10^6, on its digits."""
    negative = number.startswith("-")
    whole, _, fraction = number.lstrip("-").partition(".")
    value = int(whole) * 10**PRECISION + int(fraction.ljust(PRECISION, "0"))
    return -value if negative else value


def micro_degrees(text: object) -> tuple[int, int]:
    """(lat_e6, lon_e6): the canonical coordinates of `text` in micro-degrees, the integers the pot's
    commitments and its scoring take (challenges/geometry.py). Computed on the canonical decimal
    strings, so "48.8584, 2.2945" is exactly (48858400, 2294500); input that is not canonical is
    canonicalised (truncated) first, as the server stores it."""
    coordinates = parse_coordinates(text)
    return _micro(format_decimal(coordinates.lat)), _micro(format_decimal(coordinates.lon))


def _number_from_micro(value: int) -> str:
    whole, fraction = divmod(abs(value), 10**PRECISION)
    return truncate_number(f"{'-' if value < 0 else ''}{whole}.{fraction:0{PRECISION}d}")


def text_from_micro(lat_e6: int, lon_e6: int) -> str:
    """The canonical "lat, lon" text of a point in micro-degrees: the inverse of micro_degrees.
    Refused (CoordinateError) out of range, where no canonical text exists."""
    if not (
        -90 * 10**PRECISION <= lat_e6 <= 90 * 10**PRECISION and -180 * 10**PRECISION <= lon_e6 <= 180 * 10**PRECISION
    ):
        raise CoordinateError
    return f"{_number_from_micro(lat_e6)}, {_number_from_micro(lon_e6)}"
