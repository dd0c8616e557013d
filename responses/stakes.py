"""Stakes: decimal USDC in, exact integer token units out (no floats anywhere)."""

import re
from decimal import Decimal

from django.conf import settings

MIN_STAKE_MESSAGE = "Minimum stake amount is 1.00 USDC"
STAKE_FORMAT_MESSAGE = "Stake must be a decimal amount of USDC with at most 6 decimals."

_STAKE = re.compile(r"^\s*\+?([0-9]{1,15}(?:\.[0-9]*)?|\.[0-9]+)\s*$", re.ASCII)


class StakeError(ValueError):
    pass


def parse_stake(value: object, *, maximum: Decimal | None = None) -> Decimal:
    """A stake from a decimal string (or a Decimal parsed from JSON) to a Decimal with
    6 places. More places, a sign, an exponent or anything else that is not plain decimal is
    refused rather than rounded: the player pays exactly what they typed."""
    if isinstance(value, Decimal | int) and not isinstance(value, bool):
        value = format(Decimal(value), "f")
    if not isinstance(value, str):
        raise StakeError(STAKE_FORMAT_MESSAGE)
    match = _STAKE.match(value)
    if match is None:
        raise StakeError(STAKE_FORMAT_MESSAGE)
    amount = Decimal(match.group(1))
    unit = Decimal(1).scaleb(-settings.TOKEN_DECIMALS)
    if amount != amount.quantize(unit):  # more than 6 significant decimals
        raise StakeError(STAKE_FORMAT_MESSAGE)
    if amount < settings.STAKE_MIN:
        raise StakeError(MIN_STAKE_MESSAGE)
    maximum = settings.STAKE_MAX if maximum is None else maximum
    if amount > maximum:
        raise StakeError(f"Maximum stake amount is {maximum} USDC")
    return amount.quantize(unit)


def stake_to_units(amount: Decimal) -> int:
    """Token units of a stake: amount x 10^decimals, exact."""
    units = amount.scaleb(settings.TOKEN_DECIMALS)
    if units != units.to_integral_value():
        raise StakeError(STAKE_FORMAT_MESSAGE)
    return int(units)


def units_to_stake(units: int) -> Decimal:
    return Decimal(units).scaleb(-settings.TOKEN_DECIMALS).quantize(Decimal(1).scaleb(-settings.TOKEN_DECIMALS))
