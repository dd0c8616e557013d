"""Model instances from a hand-written SQL statement, read as Django's ORM reads them.

For the few statements of a hot request where building the query costs more CPU than running it:
the ORM spends about a millisecond composing a join with a few subqueries, PostgreSQL a tenth of that
answering it (docs/performance.md section 2). The statement names its columns with `columns()`, from
the models' own metadata, and `instance()` turns them into a model instance with the ORM's value
converters of the database in use (SQLite hands back a datetime as text, a boolean as an integer).
Only the named fields are loaded; reading any other one of the instance queries the database, as
with QuerySet.only()."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Field, Model

M = TypeVar("M", bound=Model)


@dataclass(frozen=True)
class Columns:
    """Some fields of a model under a table alias, in the model's own field order."""

    model: type[Model]
    alias: str
    fields: tuple[Field, ...]

    def sql(self) -> str:
        return ", ".join(f'{self.alias}."{field.column}"' for field in self.fields)

    def __len__(self) -> int:
        return len(self.fields)


def columns(model: type[Model], alias: str, *names: str) -> Columns:
    """The fields `names` of `model` (its primary key among them) read from table alias `alias`."""
    wanted = set(names)
    fields = tuple(f for f in model._meta.concrete_fields if f.name in wanted or f.attname in wanted)
    if len(fields) != len(wanted):
        raise ValueError(f"{model.__name__} has no field among some of {sorted(names)}")
    if model._meta.pk not in fields:
        raise ValueError(f"{model.__name__}'s primary key must be read")
    return Columns(model=model, alias=alias, fields=fields)


_kept = threading.local()


def _converters(field: Field, using: str) -> tuple[list[Callable[..., Any]], Any, Any]:
    """The ORM's converters of `field` on this thread's connection `using`, its column expression
    and the connection (SQLCompiler.get_converters), found once per thread."""
    found: dict[tuple[str, Field], tuple[list[Callable[..., Any]], Any, Any]] = _kept.__dict__.setdefault("found", {})
    key = (using, field)
    if key not in found:
        connection = connections[using]
        expression = field.get_col(field.model._meta.db_table)
        converters = connection.ops.get_db_converters(expression) + expression.get_db_converters(connection)
        found[key] = (converters, expression, connection)
    return found[key]


def convert(field: Field, value: Any, using: str = DEFAULT_DB_ALIAS) -> Any:
    """A value of `field` as the database driver gave it, as the ORM would give it."""
    converters, expression, connection = _converters(field, using)
    for converter in converters:
        value = converter(value, expression, connection)
    return value


def instance(cols: Columns, values: Sequence[Any], using: str = DEFAULT_DB_ALIAS) -> Model | None:
    """The instance these values of `cols` make, or None when its primary key is NULL (an outer
    join that found no row)."""
    converted = [convert(field, value, using) for field, value in zip(cols.fields, values, strict=True)]
    if converted[cols.fields.index(cols.model._meta.pk)] is None:
        return None
    return cols.model.from_db(using, [field.attname for field in cols.fields], converted)
