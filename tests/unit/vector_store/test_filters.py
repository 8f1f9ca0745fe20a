"""The filter declaration: every field has one spec, and every store says what it can apply.

(What each store selects is compared with MemoryFilter.matches in the conformance suite.)
"""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

import pytest

from flowmem.schema.memory import Memory
from flowmem.vector_store.filters import SUBJECT_TYPES, FilterSpec, MemoryFilter, created_epoch
from flowmem.vector_store.local.store import LocalStore
from flowmem.vector_store.memory import MemoryStore


def test_a_field_without_a_spec_is_refused_when_the_class_is_defined() -> None:
    with pytest.raises(TypeError, match="field 'keyword' has no FilterSpec"):

        class Undeclared(MemoryFilter):
            keyword: str | None = None


def test_a_kind_on_a_subject_of_another_type_is_refused() -> None:
    with pytest.raises(TypeError, match=r"tests created_at \(a time\) with 'contains', which tests a keywords"):

        class Mistyped(MemoryFilter):
            mentioned: str | None = None
            FIELDS: ClassVar[dict[str, FilterSpec]] = {
                **MemoryFilter.FIELDS,
                "mentioned": FilterSpec("contains", "created_at"),
            }


def test_the_embedded_stores_filter_on_every_subject() -> None:
    assert MemoryStore.filter_subjects == LocalStore.filter_subjects == set(SUBJECT_TYPES)
    assert {spec.subject for spec in MemoryFilter.FIELDS.values()} == set(SUBJECT_TYPES)


def test_times_compare_to_the_whole_second() -> None:
    m = Memory(workspace_id="w", content="x", created_at=datetime(2024, 5, 1, 10, 0, 0, 200000))
    assert MemoryFilter(created_after=datetime(2024, 5, 1, 10, 0, 0, 700000)).matches(m)
    assert not MemoryFilter(created_before=datetime(2024, 5, 1, 10, 0, 0, 700000)).matches(m)
    # floored, also before 1970 (where truncating toward zero would round up)
    assert created_epoch(datetime(1969, 12, 31, 23, 59, 59, 500000)) == -1
    assert MemoryFilter(created_before=datetime(1970, 1, 1)).is_empty is False
    assert MemoryFilter().is_empty and MemoryFilter(target=None).is_empty
