"""Exact money: a Decimal amount of USDC to the token's integer units, the one conversion from what
staff and players type (a minimum stake, a bond, a stake) to what the pot counts."""

from decimal import Decimal

from django.conf import settings


def token_units(amount: Decimal) -> int:
    """Token units of an amount: amount x 10^TOKEN_DECIMALS, exact. An amount with more decimals
    than the token has raises ValueError rather than being rounded."""
    units = amount.scaleb(settings.TOKEN_DECIMALS)
    if units != units.to_integral_value():
        raise ValueError(f"{amount} USDC has more than {settings.TOKEN_DECIMALS} decimals")
    return int(units)
