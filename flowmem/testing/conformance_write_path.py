"""Part of the vector store conformance suite: the write path's history and message ledger.

:class:`~flowmem.testing.conformance.VectorStoreConformance` includes these tests, so every store runs them.
"""

from __future__ import annotations

import pytest

from flowmem.schema.history import HistoryEvent
from flowmem.testing.store_harness import StoreHarness, memory
from flowmem.vector_store.base import ScopeError, VectorStore


class WritePathConformance(StoreHarness):
    """History events and memorized messages, written by ``write`` (mixed into the whole suite)."""

    def test_write_records_history_and_memorized_messages(self) -> None:
        async def case(store: VectorStore) -> None:
            ws, other = self.workspace(), self.workspace()
            first = memory(ws, "m1", 1, content="Alice lives in Paris", source=["msg-1"])
            added = HistoryEvent.of("add", new=first, flow_id="run-1", reason="new")
            await store.write(ws, [first], history=[added], user_id="alice", memorized=["msg-1", "msg-2"])
            moved = memory(ws, "m2", 2, content="Alice moved to Berlin", source=["msg-3"])
            expired = first.model_copy(update={"status": "expired"})
            events = [
                HistoryEvent.of("add", new=moved, flow_id="run-2"),
                HistoryEvent.of("expire", old=first, new=expired, flow_id="run-2", reason="replaced by m2"),
            ]
            await store.write(ws, [moved, expired], history=events, user_id="alice", memorized=["msg-3"])
            await store.write(ws, [moved, expired], history=events, user_id="alice", memorized=["msg-3"])  # a rerun
            [got] = await store.get(ws, ["m1"])
            assert got.status == "expired"
            history = await store.history(ws, "m1")
            assert [(e.event, e.reason) for e in history] == [("add", "new"), ("expire", "replaced by m2")]
            assert history[1].old is not None and history[1].old["status"] == "valid"
            assert history[1].new is not None and history[1].new["status"] == "expired"
            assert history[1].flow_id == "run-2"
            assert len(await store.history(ws)) == 3
            assert await store.memorized(ws, "alice", ["msg-1", "msg-2", "msg-3", "msg-4"]) == {
                "msg-1", "msg-2", "msg-3",
            }  # fmt: skip
            # another workspace sees none of it
            assert await store.history(other, "m1") == []
            assert await store.memorized(other, "alice", ["msg-1"]) == set()
            with pytest.raises(ScopeError):
                await store.write(other, history=[added])

        self.run_case(case)

    def test_message_ledger_is_per_user(self) -> None:
        async def case(store: VectorStore) -> None:
            # Two users of one workspace may both send "m1": neither may shadow the other.
            ws = self.workspace()
            await store.write(ws, user_id="alice", memorized=["m1", "m2"])
            assert await store.memorized(ws, "bob", ["m1", "m2"]) == set()
            await store.write(ws, user_id="bob", memorized=["m1"])
            assert await store.memorized(ws, "alice", ["m1", "m2", "m3"]) == {"m1", "m2"}
            assert await store.memorized(ws, "bob", ["m1", "m2", "m3"]) == {"m1"}
            assert await store.memorized(ws, "Alice", ["m1"]) == set()  # user ids are exact, like memory targets
            # the user is part of every ledger call, checked by the base class for every store
            for user in (None, "", "  "):
                with pytest.raises(ScopeError, match="user id"):
                    await store.write(ws, user_id=user, memorized=["m9"])
                with pytest.raises(ScopeError, match="user id"):
                    await store.memorized(ws, user, ["m1"])  # type: ignore[arg-type]
            assert await store.memorized(ws, "alice", ["m9"]) == set()

        self.run_case(case)

    def test_write_of_history_alone(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            gone = memory(ws, "gone", 1)
            await store.record_history(ws, [HistoryEvent.of("delete", old=gone, reason="deleted from the CLI")])
            [event] = await store.history(ws, "gone")
            assert event.event == "delete" and event.new is None and event.old is not None
            assert await store.count(ws) == 0

        self.run_case(case)
