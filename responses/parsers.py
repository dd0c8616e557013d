import json
from decimal import Decimal

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class DecimalJSONParser(JSONParser):
    """JSON with numbers that have a fraction parsed as Decimal, so a stake sent as a JSON number
    never passes through a float."""

    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        try:
            return json.loads(stream.read().decode(encoding), parse_float=Decimal, parse_constant=_refuse_constant)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError("The request body is not valid JSON.") from exc


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")
