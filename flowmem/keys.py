"""The catalogue of context keys: every value ops pass each other, by name, with its type.

A :class:`Key` is still a ``str`` (``MEMORIES == "memories"``), so YAML, plugins and ``reads = ("query",)`` keep
working; it also carries the value's type, which :class:`~flowmem.flow.context.OpContext` gives mypy
(``ctx[MEMORIES]`` is a ``list[Memory]``) and flow compilation checks edge by edge: the type each reader declares
must accept the type of whatever provides the key before it, an op or a flow input
(:func:`accepts`; the message names both ops and both types).

A key has one type. An op that declares its own :class:`Key` under a catalogue name agrees with the catalogue (it
writes a type the catalogue's accepts, reads one that accepts the catalogue's; ``tests/unit/flow/test_compile_types.py``
checks every built-in op), and flow compilation refuses an output written as another type, since a caller reads it
with the catalogue's key (``response.output(KEY)``). A value of another type gets a key of its own; a flow may still
return it under an older name (``outputs: [{context_messages: recent_messages}]``).

The keys here are the built-in ops' and the standard flow inputs' (their types are the inputs', defined once in
:mod:`flowmem.flow.inputs`). A plugin op declares its own with :func:`define_key`, or puts a :class:`Key` in its
``reads``/``writes`` without listing it; a plain string names the catalogue's key of that name (untyped when
there is none).
"""

from __future__ import annotations

import builtins
import types
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Annotated, Any, Generic, Protocol, TypeVar, Union, cast, get_args, get_origin, overload

import numpy as np
from pydantic import AfterValidator

from flowmem.core.annotations import type_name
from flowmem.core.registry import Registry
from flowmem.flow.inputs import STANDARD_INPUTS
from flowmem.schema.actions import MemoryAction, SkippedMessage
from flowmem.schema.memory import Memory, Message
from flowmem.schema.session import SessionFlush
from flowmem.timeexpr.model import ExtractedTime
from flowmem.timeexpr.query import QueryTimes
from flowmem.vector_store.erasure import Fence

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Key(str, Generic[T]):
    """A context key: its name (the ``str`` itself), the type of its value and one line saying what it holds.

    Args:
        name: The key, a snake_case identifier.
        type_: What its value is (any type expression: ``list[Memory]``, ``str | None``). A class or a generic alias
            types the key for mypy (``Key("mood", float)`` is a ``Key[float]``); annotate one made of a union.
        doc: One line for messages and ``flowmem ops``.
    """

    type: Any
    doc: str

    @overload
    def __new__(cls, name: str, type_: builtins.type[T], doc: str = "") -> Key[T]: ...
    @overload
    def __new__(cls, name: str, type_: Any, doc: str = "") -> Key[Any]: ...  # unions and other type expressions
    def __new__(cls, name: str, type_: Any, doc: str = "") -> Key[Any]:
        key = super().__new__(cls, name)
        key.type = type_
        key.doc = doc
        return key

    def cast(self, value: Any) -> T:
        """``value`` as this key's type, for type checkers (unchecked: flow compilation checked the wiring)."""
        return cast(T, value)

    def __reduce__(self) -> tuple[Callable[..., Key[T]], tuple[str, Any, str]]:
        return Key, (str(self), self.type, self.doc)

    def __repr__(self) -> str:
        return f"Key({str(self)!r}, {type_name(self.type)})"


class ReadableKey(Protocol[T_co]):
    """A key as reading sees it: covariant in its type, so ``list(ctx[MEMORIES])`` is a ``list[Memory]`` (mypy infers
    through ``list``'s ``Iterable[T]``); writing takes the invariant :class:`Key`, so a value of another type is
    refused rather than widened to a common base."""

    def cast(self, value: Any) -> T_co: ...


KEYS: Registry[Key[Any]] = Registry("context key")


@overload
def define_key(name: str, type_: builtins.type[T], doc: str) -> Key[T]: ...
@overload
def define_key(name: str, type_: Any, doc: str) -> Key[Any]: ...
def define_key(name: str, type_: Any, doc: str) -> Key[Any]:
    """Add a key to the catalogue (a plugin's own keys) and return it, typed for mypy by ``type_`` when it is a class
    or a generic alias (a union: annotate the key, ``Key[int | None]``)::

        SENTIMENT = define_key("sentiment", float, "how positive the query is, -1 to 1")  # Key[float]

    Raises:
        RegistryError: The name is taken (by a key of any type) or not a snake_case identifier.
    """
    return KEYS.add(name, Key(name, type_, doc))


def key_named(name: str) -> Key[Any]:
    """The key ``name`` stands for: itself when it is a :class:`Key`, else the catalogue's, else an untyped one."""
    if isinstance(name, Key):
        return name
    return KEYS.get(name) if name in KEYS else Key(name, Any)


def _is_text(key: Key[Any]) -> bool:
    # Free text only: an id is a constrained string (Annotated with its rule), not words to recall by.
    return key.type is not Any and get_origin(key.type) is not Annotated and accepts(str, key.type)


def text_keys() -> list[str]:
    """The catalogue's keys whose value is text: what a param naming the text to read (``recall_key``) may name."""
    return [name for name, key in KEYS.items() if _is_text(key)]


def check_text_key(name: str) -> str:
    """``name`` when it is a catalogue key holding text; else ``ValueError`` with the valid choices."""
    key = KEYS.get(name) if name in KEYS else None
    if key is None or not _is_text(key):
        if key is None:
            what = "is no context key"
        elif get_origin(key.type) is Annotated:
            what = f"holds an id ({type_name(key.type)} with a rule of its own), not free text"
        else:
            what = f"holds {type_name(key.type)}, not free text"
        raise ValueError(
            f"'{name}' {what}; valid: {', '.join(text_keys())} (a plugin adds keys with flowmem.keys.define_key)"
        )
    return name


TextKeyName = Annotated[str, AfterValidator(check_text_key)]
"""A param naming the context key whose text an op reads (``recall_key``), checked against the catalogue."""


def text_key(name: str) -> Key[str]:
    """The key ``name`` read as text: what an op declares and reads for a :data:`TextKeyName` param."""
    return Key(name, str, KEYS.get(name).doc if name in KEYS else "")


# -- types ------------------------------------------------------------------------------------------------------
def _bare(tp: Any) -> Any:
    while get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return tp


def _members(tp: Any) -> tuple[Any, ...] | None:
    tp = _bare(tp)
    if get_origin(tp) in (Union, types.UnionType):
        return get_args(tp)
    return None


def accepts(reader: Any, writer: Any) -> bool:
    """Whether a value of type ``writer`` is one of type ``reader`` (``Any`` on either side: yes).

    Unions: every member of the writer's must be accepted by some member of the reader's. Generics: the writer's
    class a subclass of the reader's, and their arguments accepted pairwise (a list read is not written to).
    """
    if reader is writer:  # the usual edge: both ops name the catalogue's key
        return True
    reader, writer = _bare(reader), _bare(writer)
    if reader is Any or writer is Any or reader is object:
        return True
    written = _members(writer)
    if written is not None:
        return all(accepts(reader, member) for member in written)
    read = _members(reader)
    if read is not None:
        return any(accepts(member, writer) for member in read)
    reader_cls, writer_cls = get_origin(reader) or reader, get_origin(writer) or writer
    if not (isinstance(reader_cls, type) and isinstance(writer_cls, type)):
        return reader == writer or isinstance(reader, TypeVar) or isinstance(writer, TypeVar)
    if not issubclass(writer_cls, reader_cls) and not (reader_cls is float and writer_cls is int):
        return False
    reader_args, writer_args = get_args(reader), get_args(writer)
    if not reader_args or not writer_args or len(reader_args) != len(writer_args):
        return True  # a bare `list` reads any list; shapes that differ (tuple[...]) are not checked
    pairs = zip(reader_args, writer_args, strict=True)
    return all(accepts(r, w) for r, w in pairs if r is not Ellipsis and w is not Ellipsis)


# -- the catalogue ----------------------------------------------------------------------------------------------
def _input(name: str) -> Key[Any]:
    spec = STANDARD_INPUTS[name]
    return KEYS.add(name, Key(name, spec.type, spec.description))


QUERY: Key[str] = _input("query")
USER_ID: Key[str] = _input("user_id")
WORKSPACE_ID: Key[str] = _input("workspace_id")
MESSAGES: Key[list[Message]] = _input("messages")
TIMESTAMP: Key[datetime] = _input("timestamp")
TOP_K: Key[int] = _input("top_k")
SESSION_ID: Key[str] = _input("session_id")
REPLY: Key[str] = _input("reply")
SESSION_MESSAGES: Key[list[Message]] = _input("session_messages")
WRITE_FENCES: Key[Mapping[str, Fence] | None] = _input("write_fences")

QUERY_TIMES: Key[QueryTimes] = define_key(
    "query_times", QueryTimes, "the query's time expressions, found once a run (set_query_op)"
)
EXTRACTED_TIME: Key[ExtractedTime | None] = define_key(
    "extracted_time", ExtractedTime | None, "the time the query asks about (None: it names none)"
)
MEMORIES: Key[list[Memory]] = define_key("memories", list[Memory], "the memories a flow returns, best first")
LEXICAL_MEMORIES: Key[list[Memory]] = define_key(
    "lexical_memories", list[Memory], "the memories word search (BM25) recalled, best first"
)
QUERY_VECTOR: Key[np.ndarray] = define_key("query_vector", np.ndarray, "the query's unit vector (retrieve_memory_op)")
ANSWER: Key[str] = define_key("answer", str, "text for people or for a prompt: the response's answer")
NEW_MEMORIES: Key[list[Memory]] = define_key("new_memories", list[Memory], "memories the write path made, to decide")
MEMORY_ACTIONS: Key[list[MemoryAction]] = define_key(
    "memory_actions", list[MemoryAction], "what the write path does to the store: add, update, expire, skip"
)
SLOT_BACKFILL: Key[list[Memory]] = define_key(
    "slot_backfill", list[Memory], "stored memories whose slots the same write stores (contra_repeat_op)"
)
INFO_MESSAGES: Key[list[Message]] = define_key("info_messages", list[Message], "the messages worth remembering")
SKIPPED_MESSAGES: Key[list[SkippedMessage]] = define_key(
    "skipped_messages", list[SkippedMessage], "the messages not remembered, each with why"
)
INSIGHT_ACTIONS: Key[list[MemoryAction]] = define_key(
    "insight_actions", list[MemoryAction], "the insights added and expired (insight_op)"
)
ENTITIES: Key[list[dict[str, Any]]] = define_key(
    "entities", list[dict[str, Any]], "the entities the texts name, with their descriptions"
)
TRIPLES: Key[list[dict[str, Any]]] = define_key(
    "triples", list[dict[str, Any]], "(subject, relation, object) facts with their validity, as dicts"
)
FACTS: Key[list[str]] = define_key("facts", list[str], "the user's facts, as sentences")
CONTEXT_MESSAGES: Key[list[dict[str, str]]] = define_key(
    "context_messages", list[dict[str, str]], "the messages for a chat call, role and content (context_assemble_op)"
)
RECENT_MESSAGES: Key[list[Message]] = define_key(
    "recent_messages", list[Message], "the user's recent messages not yet memorized (read_message_op)"
)
CHAT_HISTORY: Key[list[Message]] = define_key(
    "chat_history", list[Message], "the chat session's messages, oldest first"
)
SUMMARY: Key[str] = define_key("summary", str, "the summary of what left the chat session")
SESSION_FLUSH: Key[SessionFlush | None] = define_key(
    "session_flush", SessionFlush | None, "what a chat turn flushed out of the session, to write as memories"
)
