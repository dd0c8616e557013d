"""Stakes: decimal USDC in, exactly (no floats anywhere). Token units: challenges/money.py."""

import re
from decimal import Decimal

from django.conf import settings

MIN_STAKE_MESSAGE = "Minimum stake amount is 1.00 USDC"
# frontend/src/lib/stake.ts words it the same, from the same STAKE_STEP (public config).
STAKE_STEP_MESSAGE = "Stake amount must be a multiple of {step} USDC (at most {places} decimals)."
STAKE_FORMAT_MESSAGE = "Stake must be a decimal amount of USDC with at most 6 decimals."

_STAKE = re.compile(r"^\s*\+?([0-9]{1,15}(?:\.[0-9]*)?|\.[0-9]+)\s*$", re.ASCII)


# A stake has at most 15 integer digits and 6 decimals; beyond this a number is refused unformatted.
_MAX_PLACES = 20


class StakeError(ValueError):
    pass


def parse_stake(value: object, *, maximum: Decimal | None = None) -> Decimal:
    """A stake from a decimal string (or a Decimal parsed from JSON) to a Decimal with
    6 places. More places, a sign, an exponent or anything else that is not plain decimal is
    refused rather than rounded: the player pays exactly what they typed."""
    if isinstance(value, Decimal | int) and not isinstance(value, bool):
        number = Decimal(value)
        # Refused before formatting: format(Decimal("1e999999999999999999"), "f") needs an exabyte.
        if not number.is_finite() or not -_MAX_PLACES <= number.adjusted() <= _MAX_PLACES:
            raise StakeError(STAKE_FORMAT_MESSAGE)
        value = format(number, "f")
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


def stake_step_error(amount: Decimal) -> str | None:
    """The sentence refusing a stake that is not a multiple of STAKE_STEP (0.01: whole cents), or None.
    parse_stake itself keeps the token's 6 decimals: it is the exact codec; the step is the game's rule."""
    step = settings.STAKE_STEP
    if amount % step == 0:
        return None
    exponent = step.as_tuple().exponent
    assert isinstance(exponent, int)  # a finite Decimal; only NaN and infinity have a letter here
    return STAKE_STEP_MESSAGE.format(step=step, places=-exponent)
