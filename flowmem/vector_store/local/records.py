"""The local store's parsed records, kept so that a memory its searches return again is neither read from the
file nor parsed again, only copied.

Parsing a stored record (pydantic, ~80 per retrieval query) costs ~3× copying the memory it gave, and reading it
from SQLite as much again. A parsed memory is kept until a write changes or removes it: the store forgets it
when it applies that write to its index (its own writes, and other processes' when it catches up with them,
which every search does first), so what a search hands out is the record as of the index that chose it.
Every caller gets its own copy: ops set scores and explanations on the memories they are given, and nothing
they do reaches the kept one.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import Any, get_args, get_origin

from flowmem.schema.memory import Memory


class ParsedRecords:
    """Up to ``limit`` parsed records (the least recently read dropped first), by ``(workspace, memory id)``."""

    def __init__(self, limit: int = 8192):
        self.limit = limit
        self._kept: OrderedDict[tuple[str, str], Memory] = OrderedDict()

    def copy_of(self, workspace_id: str, memory_id: str, scores: dict[str, float] | None = None) -> Memory | None:
        """A copy of the kept memory (with ``scores`` when given, as if assigned to it), or ``None`` when it is not
        kept."""
        key = (workspace_id, memory_id)
        kept = self._kept.get(key)
        if kept is None:
            return None
        self._kept.move_to_end(key)
        return _copied(kept, scores)

    def keep(self, workspace_id: str, memory: Memory) -> None:
        """Keep a copy of ``memory`` (as parsed from its record, without its vector)."""
        kept = _copied(memory)
        kept.vector = None
        key = (workspace_id, memory.memory_id)
        self._kept[key] = kept
        self._kept.move_to_end(key)
        if len(self._kept) > self.limit:
            self._kept.popitem(last=False)

    def forget(self, workspace_id: str, memory_ids: Iterable[str]) -> None:
        """Drop these memories (written or removed since they were kept)."""
        for memory_id in memory_ids:
            self._kept.pop((workspace_id, memory_id), None)

    def forget_workspace(self, workspace_id: str) -> None:
        """Drop every memory of the workspace (its index is loaded anew: what changed meanwhile is unknown)."""
        for key in [key for key in self._kept if key[0] == workspace_id]:
            del self._kept[key]


def _copied(memory: Memory, scores: dict[str, float] | None = None) -> Memory:
    """A copy sharing nothing that can be changed in place: its lists and dicts copied all the way down (a parsed
    record's are JSON values, so a recursive copy of dicts and lists is a deep copy).

    Built as pydantic's ``model_copy`` builds one (a new instance, its ``__dict__`` and fields-set copied), minus
    what a memory cannot have (extra fields: ``extra="forbid"``; private attributes: none), and the lists and dicts
    of strings and numbers copied flat: ~2× cheaper than ``model_copy`` and a recursive copy of every container,
    and a query copies ~60 memories. ``scores``: the copy's scores instead of a copy of the memory's, as an
    assignment of them gives (the field then set): what a search hands out, without pydantic's ``__setattr__``."""
    fields = memory.__dict__.copy()
    for name in _FLAT:
        fields[name] = fields[name].copy()
    for name in _NESTED_FIELDS:
        fields[name] = _json_copy(fields[name])
    fields_set = set(memory.__pydantic_fields_set__)
    if scores is not None:
        fields["scores"] = scores
        fields_set.add("scores")
    fresh = _new(Memory)
    _set(fresh, "__dict__", fields)
    _set(fresh, "__pydantic_extra__", None)
    _set(fresh, "__pydantic_fields_set__", fields_set)
    _set(fresh, "__pydantic_private__", None)
    return fresh


def _json_copy(value: Any) -> Any:
    if type(value) is dict:
        return {k: _json_copy(v) if type(v) in _NESTED else v for k, v in value.items()}
    if type(value) is list:
        return [_json_copy(v) if type(v) in _NESTED else v for v in value]
    return value


_NESTED = (dict, list)
_SCALARS = {str, int, float, bool}
# The fields whose values can be changed in place (keywords, source, metadata, scores, ...): those holding only
# strings and numbers (keywords, scores, explain, ...) copied flat, the others (metadata) all the way down.
_CONTAINERS = tuple(name for name, field in Memory.model_fields.items() if get_origin(field.annotation) in _NESTED)
_FLAT = tuple(name for name in _CONTAINERS if set(get_args(Memory.model_fields[name].annotation)) <= _SCALARS)
_NESTED_FIELDS = tuple(name for name in _CONTAINERS if name not in _FLAT)
if Memory.model_config.get("extra") != "forbid" or Memory.__private_attributes__:
    raise TypeError("_copied assumes a Memory has no extra fields and no private attributes")
_new = Memory.__new__
_set = object.__setattr__
