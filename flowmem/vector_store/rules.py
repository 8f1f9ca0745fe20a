"""The rules every vector store obeys alike, checked by the :class:`~flowmem.vector_store.base.VectorStore`
base before any backend sees a call: scope, ids, vector width, and which filters a store can apply.

Each rule is here once, with its one error message; backends never restate them (the base calls
them; a backend that must re-check at commit time, because another process may have changed the
store meanwhile, calls the same function).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

import numpy as np

from flowmem.core.errors import FlowmemError, InputError, Problem
from flowmem.vector_store.filters import MemoryFilter

# One id rule for every store. 256 characters fit every backend with room to spare: Elasticsearch
# indexes ids as keywords, whose terms are capped at 32 766 UTF-8 bytes (it refused ~32 KB ids the
# local store took); 256 characters are at most 1 KiB. Control characters (NUL, tab, newline, …)
# and lone surrogates are refused: they cannot be shown on one line, a lone surrogate cannot be
# encoded as UTF-8 at all, and stores would differ on them.
MAX_ID_LENGTH = 256
ID_RULE = (
    f"1 to {MAX_ID_LENGTH} characters, none of them a control character, not only spaces "
    "(e.g. a uuid hex, or 'trip-2024')"
)
_FORBIDDEN_IN_IDS = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


class ScopeError(InputError):
    """A call without a valid scope (a missing, blank or ill-formed workspace, user or session id), or one that
    tried to leave its workspace (for example, writing a memory of another workspace). An :class:`InputError`:
    the store's refusal and the memory service's are one error with one message."""


class DimensionMismatchError(FlowmemError):
    """Vectors of a different width than the store holds."""

    exit_code = 2


class SessionConflictError(FlowmemError):
    """A chat session write from a stale read: another call wrote the session since (read it again and retry)."""

    exit_code = 1


class UnsupportedFilterError(FlowmemError):
    """A filter condition the store cannot apply (refused: ignoring it would return memories it excludes)."""

    exit_code = 2


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (float32); zero rows stay zero."""
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    normalised: np.ndarray = matrix / norms
    return normalised


# -- scope ---------------------------------------------------------------------------------------
# The one owner of the scope rule: the store base, the memory service (and through it HTTP and MCP), the flow
# inputs and the CLI all call these, so a blank workspace is refused everywhere with the same words.
def scope_problem(kind: str, value: object, *, where: str = "", id_rule: bool = True) -> Problem | None:
    """What is wrong with ``value`` as the ``kind`` id of a call's scope (``workspace``, ``user``, ``session``),
    or ``None``: missing, not a string or blank always; with ``id_rule``, anything else :data:`ID_RULE` refuses.

    Args:
        where: How the caller names it (``-w/--workspace``); default ``<kind>_id``, the parameter's name.
        id_rule: Only erasure passes ``False``: a forget must reach whatever a store holds, whenever it was written.
    """
    why = id_problem(value) if id_rule else _blank_problem(value)
    if why is None:
        return None
    shown_value = shown(value) if isinstance(value, str) else repr(value)
    return Problem(where or f"{kind}_id", f"{shown_value} is not a {kind} id: it {why}; an id is {ID_RULE}")


def check_scope(workspace_id: object, *, id_rule: bool = True, **named: object) -> None:
    """Refuse a call without a valid workspace (every read and write names one) or without a valid id of
    ``named`` (``user_id=…``, ``session_id=…``): every problem at once, each named by its parameter.

    Args:
        id_rule: Also refuse ids that break :data:`ID_RULE` — before any backend sees them, so no store keeps
            anything (a cache entry, a query) under one. Only erasure passes ``False``.

    Raises:
        ScopeError: Some id is missing, blank or (with ``id_rule``) ill-formed.
    """
    ids = {"workspace_id": workspace_id, **named}
    problems = [
        p for name, value in ids.items() if (p := scope_problem(name.removesuffix("_id"), value, id_rule=id_rule))
    ]
    if problems:
        raise ScopeError(problems)


def check_user(user_id: object, *, id_rule: bool = True) -> None:
    """Refuse a ledger call without a user (the ledger is per user, or one user's "m1" would shadow another's)."""
    check_named("user", user_id, id_rule=id_rule)


def check_named(kind: str, value: object, *, id_rule: bool = True) -> None:
    """Refuse a missing or blank ``kind`` id (``workspace``, ``user``, ``session``), and with ``id_rule`` one
    that breaks :data:`ID_RULE` (:func:`scope_problem`).

    Raises:
        ScopeError: ``value`` is not a valid ``kind`` id.
    """
    problem = scope_problem(kind, value, id_rule=id_rule)
    if problem is not None:
        raise ScopeError(problem)


# -- ids -----------------------------------------------------------------------------------------
def _blank_problem(value: object) -> str | None:
    if not isinstance(value, str):
        return "is not a string"
    if not value:
        return "is empty"
    if not value.strip():
        return "is only spaces"
    return None


def id_problem(value: object) -> str | None:
    """What is wrong with ``value`` as an id (see :data:`ID_RULE`), or ``None`` when it is a valid id."""
    blank = _blank_problem(value)
    if blank is not None or not isinstance(value, str):
        return blank
    if len(value) > MAX_ID_LENGTH:
        return f"is {len(value)} characters long"
    bad = _FORBIDDEN_IN_IDS.search(value)
    if bad is not None:
        char = bad.group()
        what = "an unpaired surrogate" if "\ud800" <= char <= "\udfff" else "a control character"
        return f"contains {what} (U+{ord(char):04X}) at position {bad.start()}"
    return None


def check_ids(kind: str, ids: Iterable[str]) -> None:
    """Refuse ids that break :data:`ID_RULE`, naming each (shortened) and the rule.

    Raises:
        InputError: Some ids are invalid (every one is listed, up to 20).
    """
    problems = id_problems(kind, ids)
    if problems:
        if len(problems) > 20:
            problems = [*problems[:20], Problem("", f"… and {len(problems) - 20} more invalid ids")]
        raise InputError(problems)


def id_problems(kind: str, ids: Iterable[str]) -> list[Problem]:
    """A :class:`~flowmem.core.errors.Problem` for each of ``ids`` that breaks :data:`ID_RULE`: the ``kind`` of id and
    the id (shortened), what is wrong with it, and the rule."""
    return [Problem(f"{kind} id {shown(i)}", f"{why}; an id is {ID_RULE}") for i in ids if (why := id_problem(i))]


def shown(value: str) -> str:
    """An id as messages show it: escaped, and cut short when too long to read."""
    text = repr(value[:40])
    return text + (f"… ({len(value)} characters)" if len(value) > 40 else "")


# -- vector width --------------------------------------------------------------------------------
def check_width(place: str, held: int | None, width: int, what: str) -> None:
    """The one width rule: a store holds vectors of one width, fixed by its first write.

    Args:
        place: The store as messages name it (e.g. ``vector_store 'default' (/path/memories.sqlite3)``).
        held: The width the store holds, ``None`` while it holds no vectors (then any width is fine).
        width: The width of what is being written or searched with.
        what: What has that width, e.g. ``"vectors"`` or ``"query vector"``.

    Raises:
        DimensionMismatchError: ``width`` differs from ``held`` (the message names both and what to do).
    """
    if held is not None and width != held:
        raise DimensionMismatchError(
            f"{place} holds {held}-dim vectors, got {width}-dim {what}; a store holds one width: embed with the "
            "model that filled it, or give this embedding model a store of its own (another directory or index)"
        )


def one_width(vectors: Iterable[np.ndarray]) -> int:
    """The width all ``vectors`` of one write share.

    Raises:
        DimensionMismatchError: They do not share one.
    """
    widths = {len(v) for v in vectors}
    if len(widths) > 1:
        shown_widths = sorted(widths)
        raise DimensionMismatchError(f"one write mixes vectors of {shown_widths} dimensions; embed all with one model")
    return widths.pop()


# -- filters -------------------------------------------------------------------------------------
def check_filter(place: str, filters: MemoryFilter, subjects: Collection[str]) -> None:
    """Refuse a filter with a condition on something the store cannot filter on.

    Args:
        place: The store as messages name it.
        filters: The filter of a search, iterate or count.
        subjects: What the store can filter on (the ``subject`` of a :class:`~flowmem.vector_store.filters.FilterSpec`).

    Raises:
        UnsupportedFilterError: Some condition's subject is not in ``subjects`` (all of them are named,
            with the conditions this store does apply).
    """
    refused = [name for name, spec, _ in filters.conditions() if spec.subject not in subjects]
    if refused:
        usable = sorted(name for name, spec in type(filters).FIELDS.items() if spec.subject in subjects)
        raise UnsupportedFilterError(
            f"{place} cannot filter on {', '.join(refused)}; it filters on {', '.join(usable)}"
        )
