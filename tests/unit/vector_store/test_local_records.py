"""The local store's kept records: every copy handed out equals a deep copy and shares nothing changeable."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import numpy as np

from flowmem.schema.memory import Memory
from flowmem.vector_store.local.records import ParsedRecords


def containers(value: Any) -> list[Any]:
    """Every dict and list inside ``value`` (itself included)."""
    if isinstance(value, dict):
        return [value, *(c for v in value.values() for c in containers(v))]
    if isinstance(value, list):
        return [value, *(c for v in value for c in containers(v))]
    return []


def full_memory() -> Memory:
    memory = Memory(
        workspace_id="ws", memory_id="m1", target="alice", content="I live in Lisbon", keywords=["home", "Lisbon"],
        source=["msg-1", "msg-2"], created_at=datetime(2024, 5, 1, 9, 30),
        metadata={"session": "s1", "slots": {"residence": ["lisbon", {"since": 2024}]}, "speaker": "alice"},
        scores={"recall": 0.5}, score_sources={"recall": "op"}, explain={"recall": "why"},
    ).with_message_time(datetime(2024, 5, 1, 9, 30))  # fmt: skip
    memory.vector = np.ones(4, dtype=np.float32)
    return memory


def test_a_kept_memory_is_handed_out_as_a_deep_copy() -> None:
    for original in (full_memory(), Memory(workspace_id="ws", memory_id="bare", content="x")):
        kept = ParsedRecords()
        kept.keep("ws", original)
        copy = kept.copy_of("ws", original.memory_id)
        assert copy is not None and type(copy) is Memory
        expected = original.model_copy(deep=True, update={"vector": None})
        assert copy == expected and copy.model_dump() == expected.model_dump()
        assert copy.__pydantic_fields_set__ == expected.__pydantic_fields_set__
        assert copy.__pydantic_extra__ is None and copy.__pydantic_private__ is None
        again = kept.copy_of("ws", original.memory_id)
        assert again is not None
        shared = {id(c) for c in containers(copy.__dict__)} & {id(c) for c in containers(again.__dict__)}
        assert not shared - {id(copy.__dict__)}  # no list or dict inside is the other copy's
        if copy.metadata:
            copy.metadata["slots"]["residence"][1]["since"] = 1999
        copy.metadata["added"] = "changed"
        copy.keywords.append("changed")
        copy.set_score("rank", 1.0, "op")
        copy.explain["rank"] = "changed"
        assert again == expected  # what one caller changes never reaches another


def test_a_copy_is_still_a_working_memory() -> None:
    kept = ParsedRecords()
    kept.keep("ws", full_memory())
    copy = kept.copy_of("ws", "m1")
    assert copy is not None
    copy.content = "I live in Porto"
    assert copy.display_line().endswith("I live in Porto") and copy.message_time == datetime(2024, 5, 1, 9)
    assert Memory.model_validate(copy.model_dump()) == copy
