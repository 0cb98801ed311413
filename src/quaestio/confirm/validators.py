"""Checks a regex cannot make: an IBAN's checksum and country layout, a date that exists, a
Luhn digit.

The arithmetic checks are a few hand-written lines each. The IBAN layout of each country
(length, where letters and digits go, national check digits) is a registry that changes, so it
is read from python-stdnum, which ships the SWIFT registry as data (no download), imported on
the first IBAN only.
"""

from __future__ import annotations

import calendar
import datetime as dt


class Reject(Exception):
    """A match that is not a value of the type after all (raised by the value parsers)."""


def iban_mod97(iban: str) -> bool:
    """True when `iban` (spaces allowed, any case) passes the ISO 13616 checksum.

    >>> iban_mod97("DE89 3704 0044 0532 0130 00"), iban_mod97("DE89 3704 0044 0532 0130 01")
    (True, False)
    """
    compact = "".join(iban.split()).upper()
    if not (
        15 <= len(compact) <= 34
        and compact[:2].isalpha()
        and compact[2:4].isdigit()
        and compact.isalnum()
        and compact.isascii()
    ):
        return False
    digits = "".join(str(int(ch, 36)) for ch in compact[4:] + compact[:4])
    return int(digits) % 97 == 1


def iban_valid(iban: str) -> bool:
    """True when `iban` passes mod-97 and fits its country's registered layout.

    A country of the SWIFT registry (as python-stdnum ships it) fixes the length and which
    positions hold letters or digits, and some add national check digits: all must hold.
    A country outside that registry (Angola, Iran, Morocco and others publish IBANs of their
    own) is judged on mod-97 alone, rather than losing its real IBANs.

    >>> iban_valid("DE89 3704 0044 0532 0130 00"), iban_valid("DE89 3704 0044 0532 0130 0")
    (True, False)
    """
    if not iban_mod97(iban):
        return False
    from stdnum import iban as stdnum_iban
    from stdnum.exceptions import InvalidComponent, ValidationError

    compact = "".join(iban.split()).upper()
    try:
        stdnum_iban.validate(compact, check_country=False)
    except InvalidComponent:  # raised for a country the registry does not list
        return True
    except ValidationError:
        return False
    try:
        stdnum_iban.validate(compact, check_country=True)
    except ValidationError:
        return False
    return True


def date_exists(year: int | None, month: int, day: int | None) -> bool:
    """True when the day exists in that month (of that year; 29 February needs a leap year)."""
    if not 1 <= month <= 12:
        return False
    if day is None:
        return True
    last = calendar.monthrange(year if year is not None else 2000, month)[1]
    if year is not None and not dt.MINYEAR <= year <= dt.MAXYEAR:
        return False
    return 1 <= day <= last


def luhn(number: str) -> bool:
    """True when the digits of `number` pass the Luhn check (card numbers, some ids)."""
    digits = [int(c) for c in number if c.isdigit()]
    if len(digits) < 2:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


# `iban_mod97` keeps the name analysts' rows use; it checks the country layout too.
VALIDATORS = {"iban_mod97": iban_valid, "date_exists": date_exists, "luhn": luhn}
