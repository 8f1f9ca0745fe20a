"""The local store's parsed records, kept so that a memory read again is copied instead of parsed again.

Parsing a stored record (pydantic, ~80 per retrieval query) costs ~3× copying the memory it gave. A parsed
memory is kept with the record text it came from, and used only while the stored text is still that text, so
a write (by this process or another) is never read stale. Every caller gets its own copy: ops set scores and
explanations on the memories they are given, and nothing they do reaches the kept one.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, get_origin

from flowmem.schema.memory import Memory


class ParsedRecords:
    """Up to ``limit`` parsed records (the least recently read dropped first), by ``(workspace, memory id)``."""

    def __init__(self, limit: int = 4096):
        self.limit = limit
        self._kept: OrderedDict[tuple[str, str], tuple[str, Memory]] = OrderedDict()

    def memory(self, workspace_id: str, memory_id: str, record: str) -> Memory:
        """A memory of its own for the stored ``record``: a copy of the kept one when it was parsed from it."""
        key = (workspace_id, memory_id)
        kept = self._kept.get(key)
        if kept is not None and kept[0] == record:
            self._kept.move_to_end(key)
            return _copied(kept[1])
        memory = Memory.model_validate_json(record)
        self._kept[key] = (record, memory)
        self._kept.move_to_end(key)
        if len(self._kept) > self.limit:
            self._kept.popitem(last=False)
        return _copied(memory)


def _copied(memory: Memory) -> Memory:
    """A copy sharing nothing that can be changed in place: its lists and dicts copied all the way down (a parsed
    record's are JSON values, so a recursive copy of dicts and lists is a deep copy)."""
    fresh = memory.model_copy()
    fields = fresh.__dict__
    for name in _CONTAINERS:
        fields[name] = _json_copy(fields[name])
    return fresh


def _json_copy(value: Any) -> Any:
    if type(value) is dict:
        return {k: _json_copy(v) if type(v) in _NESTED else v for k, v in value.items()}
    if type(value) is list:
        return [_json_copy(v) if type(v) in _NESTED else v for v in value]
    return value


_NESTED = (dict, list)
# The fields whose values can be changed in place (keywords, source, metadata, scores, ...).
_CONTAINERS = tuple(name for name, field in Memory.model_fields.items() if get_origin(field.annotation) in _NESTED)
