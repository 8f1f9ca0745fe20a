"""Counting what a vector store's reads hand back: the test of "every read bounded by an index and a limit".

:func:`count_reads` wraps the read methods of one store object (on the instance, so nothing else changes)
and counts the memories each call returns. A read whose count grows with the store while its answer does
not is what these counts catch: run the same queries against stores of two sizes and compare.

The public reads (:data:`PUBLIC_READS`) are what ops and the memory service call; the backend reads
(:data:`BACKEND_READS`) are where a store fetches records, so counting them counts the records a store
reads for a call (the ``memory`` and ``local`` stores fetch records only by the ids their index chose).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from flowmem.schema.memory import Memory
from flowmem.vector_store.base import VectorStore

PUBLIC_READS = ("get", "stored_vectors", "similarities", "search", "search_many", "search_each", "lexical_search",
                "iterate", "adjacent", "adjacent_many", "turns_around")  # fmt: skip
BACKEND_READS = ("_get", "_search", "_search_many", "_search_each", "_lexical_search", "_iterate", "_adjacent",
                 "_turns_around")  # fmt: skip


class ReadCount:
    """Memories handed back, per read method (:attr:`by_method`), and calls per method (:attr:`calls`)."""

    def __init__(self) -> None:
        self.by_method: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()

    @property
    def total(self) -> int:
        """Memories handed back by every counted read."""
        return sum(self.by_method.values())

    def reset(self) -> None:
        self.by_method.clear()
        self.calls.clear()

    def add(self, method: str, found: Any) -> None:
        self.by_method[method] += _size(found)

    def __repr__(self) -> str:
        return f"ReadCount(total={self.total}, by_method={dict(self.by_method)}, calls={dict(self.calls)})"


@contextmanager
def count_reads(store: VectorStore, methods: tuple[str, ...] = PUBLIC_READS) -> Iterator[ReadCount]:
    """Count the memories ``store``'s ``methods`` return while the block runs (the wrappers go when it ends)."""
    count = ReadCount()
    wrapped = [name for name in methods if hasattr(store, name)]
    for name in wrapped:
        setattr(store, name, _counting(name, getattr(store, name), count))
    try:
        yield count
    finally:
        for name in wrapped:
            delattr(store, name)  # the instance attribute goes; the class's method shows through again


def _counting(name: str, method: Callable[..., Any], count: ReadCount) -> Callable[..., Any]:
    if name.lstrip("_") == "iterate":

        @functools.wraps(method)
        async def batches(*args: Any, **kwargs: Any) -> AsyncIterator[list[Memory]]:
            count.calls[name] += 1
            async for batch in method(*args, **kwargs):
                count.add(name, batch)
                yield batch

        return batches

    @functools.wraps(method)
    async def read(*args: Any, **kwargs: Any) -> Any:
        count.calls[name] += 1
        found = await method(*args, **kwargs)
        count.add(name, found)
        return found

    return read


def _size(found: Any) -> int:
    """How many memories a read's answer holds (a list, a list of lists, or a tuple of lists; a dict by memory id,
    as ``stored_vectors`` and ``similarities`` answer: one a key)."""
    if isinstance(found, Memory):
        return 1
    if isinstance(found, dict):
        return len(found)
    if isinstance(found, list | tuple):
        return sum(_size(item) for item in found)
    return 0
