"""Importing ready-made memories (one per line, as ``flowmem store export`` writes them) into a store.

The one place for the rules every import follows — ``flowmem store import`` and ``flowmem ingest
--memories`` both call :func:`import_memories`:

* The workspace comes from the caller (the command's ``-w``), never silently from the file: a line
  naming another workspace stops the import with its line number and what to do, unless the
  caller asked to keep the file's workspaces or named the one workspace of the file to move.
* A memory whose id exists in its workspace is replaced with an ``update`` event holding the old
  and the new memory; any other memory gets an ``add`` event. Memories and their events go to the
  store in one :meth:`VectorStore.write` call, so neither is ever stored without the other.
* An id on two lines is an error naming both lines (which one should win is the user's call).
* Each memory is stored with the single-valued facts its words state (``metadata["slots"]``, read with the
  built-in slot rules unless the line carries them), so a later message that changes one of those facts
  supersedes it (see ``contra_repeat_op``).

Lines are read and written in batches, so a file larger than memory imports fine; a bad line stops
the import there, with the batches before it written (importing again replaces them by id).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from flowmem.core.errors import InputError, Problem
from flowmem.embedding.base import EmbeddingModel
from flowmem.schema.history import HistoryEvent
from flowmem.schema.kinds import DEFAULT_WORKSPACE
from flowmem.schema.memory import Memory
from flowmem.scoring.slots import with_slots
from flowmem.vector_store.base import VectorStore

IMPORT_BATCH = 500


@dataclass(frozen=True)
class ImportTarget:
    """Where imported memories go.

    Attributes:
        workspace: Every memory goes here; its line must name this workspace (or ``from_workspace``).
        keep_workspaces: Write each memory into the workspace its line names instead (``workspace`` unused).
        from_workspace: Lines naming this workspace are moved into ``workspace`` (copying a workspace
            under another name).
    """

    workspace: str = DEFAULT_WORKSPACE
    keep_workspaces: bool = False
    from_workspace: str | None = None

    def place(self, memory: Memory, where: str) -> Memory:
        """``memory`` in the workspace it is imported into.

        Raises:
            InputError: Its line names another workspace than the import writes to.
        """
        if self.keep_workspaces or memory.workspace_id == self.workspace:
            return memory
        if memory.workspace_id == self.from_workspace:
            return memory.model_copy(update={"workspace_id": self.workspace})
        named = memory.workspace_id
        raise InputError(
            Problem(
                where,
                f"memory {memory.memory_id} names workspace '{named}', but this import writes into "
                f"'{self.workspace}'; import with -w {named}, or add --from-workspace {named} to move "
                f"'{named}' memories into '{self.workspace}', or --keep-workspaces to write each memory "
                "into the workspace its line names",
            )
        )


@dataclass
class ImportCounts:
    """What an import wrote, per workspace: memories added (new ids) and updated (replaced)."""

    added: Counter[str] = field(default_factory=Counter)
    updated: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return sum(self.added.values()) + sum(self.updated.values())


Progress = Callable[[int, ImportCounts], None]


async def import_memories(
    records: Iterable[tuple[int, Memory]],
    store: VectorStore,
    embedder: EmbeddingModel,
    target: ImportTarget,
    *,
    source: str = "<input>",
    reason: str = "imported from a file",
    progress: Progress | None = None,
) -> ImportCounts:
    """Write ``(line number, memory)`` records into ``store`` as ``target`` says (see the module docstring).

    Memories without a vector are embedded with ``embedder``. ``progress`` is called after each
    batch with the lines written so far and the counts.

    Raises:
        InputError: A line names another workspace than ``target`` allows, or repeats an id
            (naming ``source`` and the line).
    """
    counts = ImportCounts()
    first_line: dict[tuple[str, str], int] = {}
    done = 0
    async with store.bulk_load():
        for batch in _batches(records):
            placed = []
            for number, memory in batch:
                where = f"{source} line {number}"
                memory = target.place(memory, where)
                key = (memory.workspace_id, memory.memory_id)
                if key in first_line:
                    raise InputError(
                        Problem(where, f"memory id {memory.memory_id} is on line {first_line[key]} too; keep one")
                    )
                first_line[key] = number
                placed.append(with_slots(memory))
            await _embed_missing(embedder, placed)
            by_workspace: dict[str, list[Memory]] = {}
            for memory in placed:
                by_workspace.setdefault(memory.workspace_id, []).append(memory)
            for workspace, memories in by_workspace.items():
                await _write(store, workspace, memories, reason, counts)
            done += len(batch)
            if progress is not None:
                progress(done, counts)
    return counts


async def _write(store: VectorStore, workspace: str, memories: list[Memory], reason: str, counts: ImportCounts) -> None:
    # The fence before the read of what the batch replaces: a forget of one of its users meanwhile refuses the
    # batch, so an import never writes back a forgotten memory or its text (flowmem.vector_store.erasure).
    fence = await store.fence(workspace, [m.target for m in memories])
    existing = {m.memory_id: m for m in await store.get(workspace, [m.memory_id for m in memories])}
    events = [
        HistoryEvent.of("update", old=existing[m.memory_id], new=m, reason=reason)
        if m.memory_id in existing
        else HistoryEvent.of("add", new=m, reason=reason)
        for m in memories
    ]
    await store.write(workspace, memories, history=events, fence=fence)
    updated = sum(1 for m in memories if m.memory_id in existing)
    counts.updated[workspace] += updated
    counts.added[workspace] += len(memories) - updated


async def _embed_missing(embedder: EmbeddingModel, memories: list[Memory]) -> None:
    missing = [m for m in memories if m.vector is None]
    if missing:
        vectors = await embedder.embed([m.content for m in missing], kind="document")
        for memory, vector in zip(missing, vectors, strict=True):
            memory.vector = vector


def _batches(records: Iterable[tuple[int, Memory]]) -> Iterator[list[tuple[int, Memory]]]:
    batch: list[tuple[int, Memory]] = []
    for record in records:
        batch.append(record)
        if len(batch) >= IMPORT_BATCH:
            yield batch
            batch = []
    if batch:
        yield batch
