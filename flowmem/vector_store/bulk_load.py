"""Bulk loads: blocks of many writes that must be searchable when the block ends, not after each write.

Part of the :class:`~flowmem.vector_store.base.VectorStore` base (a mixin only to keep modules small).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar

# The stores (by id) whose refresh the current task defers (a bulk load): a context variable, so the mark
# follows the task and the tasks it starts, never a store-wide counter another task's write would read.
_BULK_LOADS: ContextVar[tuple[int, ...]] = ContextVar("flowmem_bulk_loads", default=())


class BulkLoadStore:
    """The bulk-load half of the store interface. Stores that make writes searchable by refreshing
    override ``_end_bulk_load`` and skip their own refresh while ``_in_bulk_load``."""

    @asynccontextmanager
    async def bulk_load(self) -> AsyncIterator[None]:
        """A block of many writes: they must be searchable when it ends, not after each upsert.

        Stores that make writes searchable by refreshing (Elasticsearch) refresh once at the end
        instead of per upsert — fewer waits and fewer, larger segments. The block belongs to the
        task that opened it (and the tasks it starts): another task writing through the same store
        object meanwhile — a server's request beside an import — still gets its writes searchable
        on return.
        """
        outermost = not self._in_bulk_load
        try:
            with self._refresh_deferred():
                yield
        finally:
            if outermost:
                await self._end_bulk_load()

    @contextmanager
    def _refresh_deferred(self) -> Iterator[None]:
        """Mark this store as in a bulk load for the current task: its writes skip their own refresh."""
        token = _BULK_LOADS.set((*_BULK_LOADS.get(), id(self)))
        try:
            yield
        finally:
            _BULK_LOADS.reset(token)

    @property
    def _in_bulk_load(self) -> bool:
        """Whether the current task is inside :meth:`bulk_load` (or another deferred-refresh block) of this store."""
        return id(self) in _BULK_LOADS.get()

    async def _end_bulk_load(self) -> None:
        """Make the block's writes searchable (stores whose writes always are need nothing)."""
