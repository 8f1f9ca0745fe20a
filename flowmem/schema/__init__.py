"""The records flowmem stores and passes between ops."""

from flowmem.schema.jsonl import read_jsonl, write_jsonl
from flowmem.schema.memory import MEMORY_TYPES, Memory, MemoryStatus, MemoryType, Message, new_id
from flowmem.schema.timeparts import TIME_PARTS, UNKNOWN, format_when, prefixed_parts, time_parts, wall_clock

__all__ = [
    "MEMORY_TYPES",
    "TIME_PARTS",
    "UNKNOWN",
    "Memory",
    "MemoryStatus",
    "MemoryType",
    "Message",
    "format_when",
    "new_id",
    "prefixed_parts",
    "read_jsonl",
    "time_parts",
    "wall_clock",
    "write_jsonl",
]
