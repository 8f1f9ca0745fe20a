"""Reading type annotations: for override values, CLI inputs and ``flowmem ops``."""

from __future__ import annotations

import collections.abc
import types
import typing
from typing import Annotated, Any, Literal, Union


def members(annotation: Any) -> tuple[Any, ...]:
    """The non-``None`` members of a union annotation (or the annotation itself), ``Annotated`` unwrapped."""
    if typing.get_origin(annotation) is Annotated:  # Annotated[str, validator] is text, like str
        annotation = typing.get_args(annotation)[0]
    origin = typing.get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        return tuple(m for m in typing.get_args(annotation) if m is not type(None))
    return (annotation,)


def accepts_mapping(annotation: Any) -> bool:
    """Whether values of this type may be mappings (so a dotted path may go below them)."""
    return any(
        m is Any or m is dict or typing.get_origin(m) in (dict, collections.abc.Mapping) for m in members(annotation)
    )


def is_text(annotation: Any) -> bool:
    """Whether every value of this type is text (``str``, ``str | None``, a ``Literal`` of strings)."""
    found = members(annotation)
    return bool(found) and all(
        m is str or (typing.get_origin(m) is Literal and all(isinstance(a, str) for a in typing.get_args(m)))
        for m in found
    )


def allows_none(annotation: Any) -> bool:
    """Whether ``None`` is a valid value of this type."""
    if annotation is None or annotation is type(None) or annotation is Any:
        return True
    origin = typing.get_origin(annotation)
    return (origin is Union or origin is types.UnionType) and type(None) in typing.get_args(annotation)


def type_name(annotation: Any) -> str:
    """A short readable name: ``float``, ``str | None``, ``dict[str, float]``, ``'en' | 'zh'``; Annotated: its type."""
    if typing.get_origin(annotation) is Annotated:
        return type_name(typing.get_args(annotation)[0])
    if annotation is None or annotation is type(None):
        return "None"
    origin = typing.get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        return " | ".join(type_name(a) for a in typing.get_args(annotation))
    if origin is Literal:
        return " | ".join(repr(a) for a in typing.get_args(annotation))
    if origin is not None:
        args = ", ".join(type_name(a) for a in typing.get_args(annotation))
        return f"{getattr(origin, '__name__', str(origin))}[{args}]"
    if annotation is Any:
        return "any"
    return getattr(annotation, "__name__", str(annotation).replace("typing.", ""))
