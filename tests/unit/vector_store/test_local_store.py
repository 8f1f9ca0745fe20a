"""What only the embedded `local` store promises: persistence, crash safety, several processes."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from flowmem.core.errors import InputError
from flowmem.schema.memory import Memory
from flowmem.testing.conformance import memory, unit
from flowmem.vector_store.base import DimensionMismatchError
from flowmem.vector_store.filters import UNREAD_SLOTS, MemoryFilter
from flowmem.vector_store.local import db as local_db
from flowmem.vector_store.local.store import LocalStore

WS = "ws"


def open_store(directory: Path, synchronous: str = "full") -> LocalStore:
    return LocalStore(LocalStore.Params(directory=str(directory), synchronous=synchronous))  # type: ignore[arg-type]


def test_survives_reopen(tmp_path: Path) -> None:
    async def main() -> None:
        store = open_store(tmp_path)
        await store.upsert(WS, [memory(WS, f"m{i}", i) for i in range(20)])
        await store.delete(WS, ["m3"])
        await store.aclose()
        reopened = open_store(tmp_path)
        assert await reopened.count(WS) == 19
        [top] = await reopened.search(WS, unit(7), 1)
        assert top.memory_id == "m7"
        assert await reopened.integrity_check() == "ok"
        stats = await reopened.stats()
        assert stats["workspaces"] == {WS: 19} and stats["dims"] == len(unit(0))
        await reopened.aclose()

    asyncio.run(main())


def test_slots_are_found_by_a_reopened_store(tmp_path: Path) -> None:
    # The index reads a memory's slots from its record: a store opened on the file finds them, and a file
    # written before slots were stored needs no migration (its memories hold UNREAD_SLOTS).
    async def main() -> None:
        store = open_store(tmp_path)
        await store.upsert(WS, [
            memory(WS, "home", 1, metadata={"slots": {"residence": "milan"}}),
            memory(WS, "none", 2, metadata={"slots": {}}), memory(WS, "legacy", 3),
        ])  # fmt: skip
        await store.aclose()
        reopened = open_store(tmp_path)
        found = MemoryFilter(slots=["residence", UNREAD_SLOTS])
        assert {m.memory_id async for batch in reopened.iterate(WS, found) for m in batch} == {"home", "legacy"}
        assert await reopened.count(WS, MemoryFilter(slot_values="milan")) == 1
        await reopened.aclose()

    asyncio.run(main())


def test_default_directory_is_flowmem_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLOWMEM_HOME", str(tmp_path / "home"))

    async def main() -> None:
        store = LocalStore()
        await store.upsert(WS, [memory(WS, "m", 1)])
        await store.aclose()

    asyncio.run(main())
    assert (tmp_path / "home" / local_db.FILE_NAME).is_file()


def test_dims_mismatch_names_both_numbers(tmp_path: Path) -> None:
    async def main() -> None:
        store = open_store(tmp_path)
        await store.upsert(WS, [memory(WS, "m", 1)])
        await store.aclose()
        reopened = open_store(tmp_path)
        wide = Memory(workspace_id=WS, content="x", vector=np.ones(32, dtype=np.float32))
        with pytest.raises(DimensionMismatchError, match=r"holds 16-dim vectors, got 32-dim vectors"):
            await reopened.upsert(WS, [wide])
        with pytest.raises(DimensionMismatchError, match=r"holds 16-dim vectors, got 32-dim query"):
            await reopened.search(WS, np.ones(32), 3)
        await reopened.aclose()

    asyncio.run(main())


def test_two_handles_see_each_others_writes_and_deletes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two stores on one directory are two SQLite connections, exactly like two processes."""
    monkeypatch.setattr(local_db, "TOMBSTONE_LIMIT", 10)

    async def main() -> None:
        reader, writer = open_store(tmp_path), open_store(tmp_path)
        await writer.upsert(WS, [memory(WS, f"m{i}", i) for i in range(40)])
        assert await reader.count(WS) == 40  # loads the reader's index
        await writer.upsert(WS, [memory(WS, "new", 100)])
        [top] = await reader.search(WS, unit(100), 1)
        assert top.memory_id == "new"  # caught up incrementally
        await writer.delete(WS, [f"m{i}" for i in range(5)])
        assert await reader.count(WS) == 36
        # many more deletes: tombstones get pruned past the reader's revision → it reloads in full
        for i in range(5, 30):
            await writer.delete(WS, [f"m{i}"])
        assert await reader.count(WS) == 11
        found = {m.memory_id for m in await reader.search(WS, unit(1), 50)}
        assert found == {f"m{i}" for i in range(30, 40)} | {"new"}
        await reader.aclose()
        await writer.aclose()

    asyncio.run(main())


def test_forget_reaches_the_index_of_another_handle(tmp_path: Path) -> None:
    """A forget leaves tombstones: another process's loaded index drops the erased memories when it catches up."""

    async def main() -> None:
        reader, writer = open_store(tmp_path), open_store(tmp_path)
        mine = [memory(WS, f"a{i}", i, target="alice") for i in range(3)]
        await writer.upsert(WS, [*mine, memory(WS, "b", 10, target="bob")])
        assert await reader.count(WS) == 4  # loads the reader's index
        assert (await writer.forget(WS, "alice"))["memories"] == 3
        assert await reader.count(WS) == 1
        assert [m.memory_id for m in await reader.search(WS, unit(1), 5)] == ["b"]
        await reader.aclose()
        await writer.aclose()

    asyncio.run(main())


WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from flowmem.testing.conformance import memory
    from flowmem.vector_store.local import LocalStore

    async def main(directory, workspace, batches, size):
        store = LocalStore(LocalStore.Params(directory=directory))
        for b in range(batches):
            batch = [memory(workspace, f"{workspace}-{b}-{i}", b * size + i) for i in range(size)]
            await store.upsert(workspace, batch)
            print(" ".join(m.memory_id for m in batch), flush=True)  # acknowledged
        await store.aclose()

    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
    """
)


def _writer(directory: Path, workspace: str, batches: int, size: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(directory), workspace, str(batches), str(size)],
        stdout=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("kill_after", [3, 17, 40])
def test_sigkill_mid_write_loses_nothing_acknowledged(tmp_path: Path, kill_after: int) -> None:
    writer = _writer(tmp_path, WS, 10_000, 200)
    acknowledged: list[str] = []
    assert writer.stdout is not None
    for _ in range(kill_after):
        acknowledged += writer.stdout.readline().split()
    time.sleep(0.003 * kill_after % 0.05)  # land somewhere inside the next write
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=30)
    acknowledged += writer.stdout.read().split()  # lines already written before the kill

    async def check() -> None:
        store = open_store(tmp_path)
        assert await store.integrity_check() == "ok"
        present = {m.memory_id for m in await store.get(WS, acknowledged)}
        assert present == set(acknowledged)
        total = await store.count(WS)
        assert total in (len(acknowledged), len(acknowledged) + 200)  # the batch in flight: all or nothing
        await store.upsert(WS, [memory(WS, "after-crash", 1)])  # and the store keeps working
        assert await store.count(WS) == total + 1
        await store.aclose()

    asyncio.run(check())


def test_concurrent_writer_processes(tmp_path: Path) -> None:
    writers = [_writer(tmp_path, ws, 15, 100) for ws in ("a", "b", "a2")]
    for writer in writers:
        _, _ = writer.communicate(timeout=120)
        assert writer.returncode == 0

    async def check() -> None:
        store = open_store(tmp_path)
        for ws in ("a", "b", "a2"):
            assert await store.count(ws) == 1500
        assert (await store.stats())["revision"] == 45
        await store.aclose()

    asyncio.run(check())


def test_the_index_cache_keeps_at_most_index_cache_workspaces(tmp_path: Path) -> None:
    # Every distinct workspace read used to stay cached (an index and a lexicon) for the life of the
    # process: 100 searches with 900 KB workspace ids grew RSS by 89 MB.
    async def main() -> None:
        store = LocalStore(LocalStore.Params(directory=str(tmp_path), index_cache_workspaces=3))
        spaces = [f"ws{i}" for i in range(8)]
        for i, ws in enumerate(spaces):
            await store.upsert(ws, [memory(ws, f"m{j}", 10 * i + j, content=f"apple {ws} {j}") for j in range(4)])

        async def reads(ws: str) -> tuple[list[str], list[str], int]:
            similar = [m.memory_id for m in await store.search(ws, unit(10 * spaces.index(ws) + 2), 4)]
            lexical = [m.memory_id for m in await store.lexical_search(ws, f"apple {ws} 3", 4)]
            return similar, lexical, await store.count(ws)

        first = {ws: await reads(ws) for ws in spaces}
        assert len(store._indexes) <= 3
        assert first["ws0"][0][0] == "m2" and first["ws0"][1][0] == "m3" and first["ws0"][2] == 4
        await store.upsert("ws0", [memory("ws0", "m9", 99, content="pear")])  # written while evicted
        again = {ws: await reads(ws) for ws in reversed(spaces)}  # every one evicted and loaded again
        assert again == {**first, "ws0": (first["ws0"][0], first["ws0"][1], 5)}
        assert [m.memory_id for m in await store.lexical_search("ws0", "pear", 4)] == ["m9"]
        for i in range(50):  # workspaces without memories take a place too, never more than the bound
            assert await store.search(f"nobody-{i}", unit(1), 3) == []
        assert len(store._indexes) <= 3
        with pytest.raises(InputError, match="is 900000 characters long; an id is 1 to 256 characters"):
            await store.search("w" * 900_000, unit(1), 3)
        assert all(len(ws) < 20 for ws in store._indexes)  # refused before anything was cached
        await store.aclose()

    asyncio.run(main())


def test_a_memory_searched_again_is_a_copy_and_never_stale(tmp_path: Path) -> None:
    # Parsed records are kept (local_records): what a caller changes on a memory it got never reaches the next
    # read, and a memory rewritten or deleted (by this handle, or by another as by another process) is read anew.
    async def main() -> None:
        store, other = open_store(tmp_path), open_store(tmp_path)
        await store.upsert(WS, [memory(WS, "m1", 1, metadata={"session": "s1", "slots": {"residence": "milan"}}),
                                memory(WS, "m2", 2)])  # fmt: skip
        [first] = await store.search(WS, unit(1), 1)
        first.set_score("recall", 0.9, "op")
        first.metadata["slots"]["residence"] = "rome"
        first.keywords.append("changed")
        [again] = await store.search(WS, unit(1), 1)
        assert again is not first and again.scores == {"similarity": pytest.approx(1.0)}
        assert again.metadata == {"session": "s1", "slots": {"residence": "milan"}} and again.keywords == []
        earlier, _ = await store.adjacent(WS, again.created_at, "m3", before=2, after=0, with_vectors=True)
        assert {m.memory_id for m in earlier} == {"m1", "m2"}
        assert all(m.vector is not None and np.allclose(m.vector, unit(int(m.memory_id[1]))) for m in earlier)
        await other.upsert(WS, [memory(WS, "m1", 1, content="rewritten elsewhere")])
        assert [m.content for m in await store.search(WS, unit(1), 1)] == ["rewritten elsewhere"]
        await store.upsert(WS, [memory(WS, "m1", 1, content="rewritten here")])
        assert [m.content for m in await store.search(WS, unit(1), 1)] == ["rewritten here"]
        await other.delete(WS, ["m1"])
        assert [m.memory_id for m in await store.search(WS, unit(1), 2)] == ["m2"]
        await store.aclose()
        await other.aclose()

    asyncio.run(main())
