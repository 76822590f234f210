"""The schema layer's two pieces: ``Table``, the strict pydantic model every input table derives
from, and ``check``, the one adapter from a pydantic ``ValidationError`` to the lab's one-line
``LabError``.

A ``Table`` refuses unknown keys and tables (with "did you mean" from ``lab.errors.did_you_mean``) and
coerces nothing: a ``"10"`` is not 10 and a ``1`` is not ``true``. A field says what it accepts
in words with ``allowed=`` (``field(…)`` below) and, for a missing key, how to add it with
``example=``; the adapter builds the message from those, the error's place and the offending
value: ``FILE ENTRY: KEY = VALUE is not allowed; allowed values: …``. A validator that needs
other words raises ``problem(…)``, whose text is kept as written. The first error is reported
(a designer fixes one line at a time). This module knows no file format of its own.
"""

from __future__ import annotations

import re
import types
import typing
from typing import Any, ClassVar

import annotated_types
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from lab.errors import did_you_mean, LabError


class Table(BaseModel):
    """A table of an input file: only its declared keys, values checked without coercion."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, populate_by_name=True)
    # how the adapter names this table's keys: "key", "rules key", "zone", …
    KEY_NOUN: ClassVar[str] = "key"
    # how the keys are listed after an unknown one ("allowed keys: a, b")
    KEYS_LABEL: ClassVar[str] = "allowed keys"

    @model_validator(mode="before")
    @classmethod
    def _only_known_keys(cls, data):
        if isinstance(data, dict):
            allowed = cls.keys()
            for key in data:
                if key not in allowed:
                    raise PydanticCustomError(
                        "unknown_key",
                        "unknown key",
                        {
                            "key": key,
                            "allowed": allowed,
                            "noun": cls.KEY_NOUN,
                            "label": cls.KEYS_LABEL,
                        },
                    )
        return data

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        return tuple(f.alias or n for n, f in cls.model_fields.items())


def field(
    default: Any = ...,
    *,
    allowed: str | None = None,
    example: str | None = None,
    alias: str | None = None,
    **kw,
) -> Any:
    """A pydantic ``Field`` that also tells the adapter its allowed values and an example."""
    extra = {k: v for k, v in (("allowed", allowed), ("example", example)) if v is not None}
    return Field(default, alias=alias, json_schema_extra=extra or None, **kw)


def problem(message: str) -> PydanticCustomError:
    """An error whose words are the validator's own (raise it inside a validator)."""
    return PydanticCustomError("lab", "{message}", {"message": message})


def check(model: type[BaseModel], data: Any, source: str | None = None, *, where: str = ""):
    """``data`` validated as ``model``; the first problem becomes one ``LabError`` line.
    ``where`` names the entry ``data`` is (``patch "x"``, ``[swap]``) when it is not the file."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        entry, what = describe(model, e.errors(include_url=False)[0], data)
        raise LabError(
            _join(" ".join(p for p in (where, entry) if p), what), source=source
        ) from None


def entry_of(loc: tuple, data: Any) -> str:
    """The entry a loc points into, as a designer reads it: ``[expect.A]``, ``cards[3] "足軽3"``,
    ``patch[0] "akazonae8" edit[2]``. A table of tables is named by its keys; an item of an
    array by its index and, when it has one, its ``name``."""
    parts: list[str] = []
    tables: list[str] = []
    node = data
    for part in loc:
        if isinstance(part, int):
            name = (
                node[part].get("name")
                if isinstance(node, list) and part < len(node) and isinstance(node[part], dict)
                else None
            )
            label = f"{tables.pop() if tables else ''}[{part}]"
            if isinstance(name, str):
                label += f" \"{name}\""
            if tables:
                parts.append("[" + ".".join(tables) + "]")
                tables = []
            parts.append(label)
        else:
            tables.append(str(part))
        node = _child(node, part)
    if tables:
        parts.append("[" + ".".join(tables) + "]")
    return " ".join(parts)


def _child(node, part):
    try:
        return node[part]
    except (KeyError, IndexError, TypeError):
        return None


def describe(model: type[BaseModel], error: dict, data: Any) -> tuple[str, str]:
    """One error of ``model``'s validation in the lab's words: (the entry, what is wrong)."""
    loc = _keys_of(error["loc"], data)
    kind, ctx, value = error["type"], error.get("ctx") or {}, error.get("input")
    if kind == "lab":  # a validator's own words, about its field or its whole table
        info, tp = field_at(model, loc) if loc else (None, Any)
        of_field = info is not None and not (
            isinstance(_unwrap(tp), type) and issubclass(_unwrap(tp), BaseModel)
        )
        return entry_of(loc[:-1] if of_field else loc, data), ctx["message"]
    if kind == "unknown_key":
        key, allowed = ctx["key"], ctx["allowed"]
        did = did_you_mean(str(key), allowed)
        return entry_of(loc, data), (
            f"unknown {ctx['noun']} \"{key}\"; {did}{ctx['label']}: {', '.join(allowed)}"
        )
    if not loc:
        return "", f"must be a table, got {value!r}"
    info, tp = field_at(model, loc)
    extra = (
        info.json_schema_extra
        if info is not None and isinstance(info.json_schema_extra, dict)
        else {}
    )
    # an item is named key[i] after the entry that holds its list
    where = entry_of(loc[:-2] if isinstance(loc[-1], int) else loc[:-1], data)
    key = _key(loc)
    if kind == "missing":
        example = extra.get("example")
        return where, f"missing key \"{key}\"" + (f"; add {example}" if example else "")
    if not extra.get("allowed") and isinstance(loc[-1], int):  # an item: its list's words
        parent, _ = field_at(model, loc[:-1])
        extra = (
            parent.json_schema_extra
            if parent is not None and isinstance(parent.json_schema_extra, dict)
            else {}
        )
    allowed = extra.get("allowed") or _allowed(tp, ctx)
    did = did_you_mean(value, _literal_values(tp)) if isinstance(value, str) else ""
    # a number typed as text ("99" from --set) failed on its number: show the number
    shown = value if isinstance(value, str) and kind in _RANGE_ERRORS else repr(value)
    what = f"{key} = {shown} is not allowed; {did}allowed values: {allowed}"
    if where.split(" ")[-1].startswith("["):  # a key of a [table] reads as the file does
        return "", f"{where} {what}"
    return where, what


_RANGE_ERRORS = ("greater_than_equal", "less_than_equal", "greater_than", "less_than")


def _join(where: str, what: str) -> str:
    return f"{where}: {what}" if where else what


def _key(loc: tuple) -> str:
    """The key an error is about; an array item is ``key[i]``."""
    if isinstance(loc[-1], int):
        named = [p for p in loc[:-1] if isinstance(p, str)]
        return f"{named[-1] if named else ''}[{loc[-1]}]"
    return str(loc[-1])


def _keys_of(loc: tuple, data: Any) -> tuple:
    """The loc without pydantic's own steps (a union member, a validator): a part is kept when
    it is an index, or a key where the data holds a table."""
    out, node = [], data
    for part in loc:
        if isinstance(part, int) or (isinstance(node, dict) and not _is_tag(part)):
            out.append(part)
            node = _child(node, part)
    return tuple(out)


def _is_tag(part) -> bool:
    """pydantic's own steps in a loc (a union member, a validator), not keys of the file."""
    return isinstance(part, str) and (
        "[" in part or part in ("str", "int", "bool", "list", "dict", "float")
    )


def field_at(model: type[BaseModel], loc: tuple):
    """The ``FieldInfo`` a loc ends in (None for an item of a list or table) and its type."""
    tp: Any = model
    info = None
    for part in loc:
        tp = _unwrap(tp)
        if isinstance(tp, type) and issubclass(tp, BaseModel) and isinstance(part, str):
            found = next((f for n, f in tp.model_fields.items() if part in (n, f.alias)), None)
            if found is None:
                return None, Any
            info, tp = found, _annotated(found)
        elif typing.get_origin(tp) in (list, tuple, dict):
            args = typing.get_args(tp)
            info, tp = None, (args[-1] if args else Any)
        else:
            return None, Any
    return info, tp


def _annotated(info) -> Any:
    """A field's type with its constraints (Ge, Le, …) attached again."""
    return typing.Annotated[(info.annotation, *info.metadata)] if info.metadata else info.annotation


def _unwrap(tp):
    """The type under Optional[...] and Annotated[...]; other unions are left alone."""
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            tp = typing.get_args(tp)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            if len(args) != 1:
                return tp
            tp = args[0]
        else:
            return tp


def _constraints(tp) -> list:
    """The annotated_types constraints of an Annotated type (also inside a pydantic Field)."""
    out = []
    while True:
        if typing.get_origin(tp) is typing.Annotated:
            tp, *meta = typing.get_args(tp)
            for m in meta:
                out += getattr(m, "metadata", None) or [m]
        elif _unwrap(tp) is not tp:
            tp = next(a for a in typing.get_args(tp) if a is not type(None))
        else:
            return out


def _literal_values(tp) -> list[str]:
    tp = _unwrap(tp)
    return [str(a) for a in typing.get_args(tp)] if typing.get_origin(tp) is typing.Literal else []


def _allowed(tp, ctx: dict) -> str:
    """Allowed values in words, from the type and its constraints."""
    if "expected" in ctx:
        return str(ctx["expected"]).replace("'", "").replace(" or ", ", ")
    base = _unwrap(tp)
    if base is bool:
        return "true, false"
    if _literal_values(base):
        return ", ".join(_literal_values(base))
    if base is int:
        cons = _constraints(tp)
        lo = next((m.ge for m in cons if isinstance(m, annotated_types.Ge)), None)
        hi = next((m.le for m in cons if isinstance(m, annotated_types.Le)), None)
        if lo is not None and hi is not None:
            return f"whole numbers {lo}–{hi:,}" if hi >= 10**6 else f"whole numbers {lo}–{hi}"
        return f"whole numbers ≥ {lo}" if lo is not None else "whole numbers"
    if base is str:
        return "text"
    if typing.get_origin(base) is list:
        return "a list"
    if typing.get_origin(base) is dict:
        return "a table"
    if isinstance(base, type) and issubclass(base, Table):
        return f"a table with keys {', '.join(base.keys())}"
    return "see the file format"


def parse_seed(value) -> int:
    """A seed a person typed (``lab play``, the play page): a whole number ≥ 0."""
    try:
        seed = int(str(value).strip())
    except ValueError:
        raise LabError(f"seed = \"{value}\" must be a whole number ≥ 0 (or random)") from None
    if seed < 0:
        raise LabError(f"seed = {seed} must be a whole number ≥ 0 (or random)")
    return seed


def parse_assignments(items, what: str = "--set") -> dict[str, str]:
    """KEY=VALUE strings (each may hold several, separated by spaces or commas) to a dict."""
    out: dict[str, str] = {}
    for item in items or []:
        item = re.sub(r"\s*=\s*", "=", item)  # "walls = 10" is walls=10
        for part in item.replace(",", " ").split():
            key, eq, value = part.partition("=")
            if not eq or not key.strip() or not value.strip():
                raise LabError(f"{what} \"{part}\" is not KEY=VALUE (e.g. walls=10, logistics=on)")
            out[key.strip()] = value.strip()
    return out
