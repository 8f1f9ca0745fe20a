"""The inspector's reads (flowmem.memories.browse) and app.memories.expire, on both embedded stores."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from flowmem.app import App
from flowmem.core.errors import InputError
from flowmem.memories import browse
from flowmem.schema.memory import Memory


@pytest.fixture(params=["memory", "local"])
def app(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    store: dict[str, Any] = {"backend": request.param}
    if request.param == "local":
        store["params"] = {"directory": str(tmp_path / "store")}
    app = App({"embedding_model": {"default": {"backend": "hash"}}, "vector_store": {"default": store}})
    start = datetime(2024, 1, 1)
    memories = [
        Memory(workspace_id="w", target="alice" if i % 4 else "bob", content=f"fact number {i} about tea" if i % 3
               else f"fact number {i} about coffee", created_at=start + timedelta(minutes=i),
               memory_type="observation" if i % 2 else "insight", status="expired" if i % 5 == 0 else "valid")
        for i in range(1, 101)
    ]  # fmt: skip
    app.memories.sync.import_(memories, workspace_id="w")
    yield app
    app.close()


def run(app: App, coroutine: Any) -> Any:
    return app.run_coroutine(coroutine)


def test_users_are_counted_by_status_and_type(app: App) -> None:
    found = run(app, browse.users(app.memories, "w"))
    assert found.total == 2 and [u.user_id for u in found.users] == ["alice", "bob"]
    bob = found.users[1]
    assert bob.valid + bob.expired == 25 and bob.expired == 5  # 4, 8, …, 100; every 20th expired
    assert sum(bob.by_type.values()) == 25 and bob.last_memory == datetime(2024, 1, 1) + timedelta(minutes=100)
    assert run(app, browse.users(app.memories, "w", limit=1, offset=1)).users[0].user_id == "bob"


@pytest.mark.parametrize("order", ["newest", "oldest"])
def test_pages_by_place_cover_every_memory_once_in_order(app: App, order: browse.Order) -> None:
    seen: list[Memory] = []
    page = run(app, browse.browse(app.memories, workspace_id="w", user_id="alice", order=order, limit=7))
    pages = [page]
    while page.next:
        page = run(app, browse.browse(app.memories, workspace_id="w", user_id="alice", order=order, limit=7,
                                      **page.next))  # fmt: skip
        pages.append(page)
    for one in pages:
        seen += one.memories
        assert one.total == 75
    times = [m.created_at for m in seen]
    assert len(seen) == 75 and len({m.memory_id for m in seen}) == 75
    assert times == sorted(times, reverse=order == "newest")
    assert pages[0].previous is None and pages[-1].next is None
    back = run(app, browse.browse(app.memories, workspace_id="w", user_id="alice", order=order, limit=7,
                                  **pages[2].previous))  # fmt: skip
    assert [m.memory_id for m in back.memories] == [m.memory_id for m in pages[1].memories]


def test_filters_by_type_status_and_text(app: App) -> None:
    expired = run(app, browse.browse(app.memories, workspace_id="w", user_id="alice", status="expired"))
    assert expired.total == 15 and all(m.status == "expired" for m in expired.memories)
    insights = run(app, browse.browse(app.memories, workspace_id="w", user_id="alice", memory_type=["insight"]))
    assert all(m.memory_type == "insight" for m in insights.memories) and insights.total == 25
    coffee = run(app, browse.browse(app.memories, workspace_id="w", user_id="alice", text="coffee", limit=10))
    assert coffee.total == 25 and all("coffee" in m.content for m in coffee.memories)
    assert coffee.next == {"offset": "10"} and coffee.previous is None
    since, until = datetime(2024, 1, 1, 0, 30), datetime(2024, 1, 1, 1, 0)
    half_hour = run(app, browse.browse(app.memories, workspace_id="w", user_id="alice", since=since, until=until,
                                       order="oldest"))  # fmt: skip
    assert [m.created_at.minute for m in half_hour.memories] == [m for m in range(30, 60) if m % 4]
    with pytest.raises(InputError, match="after"):
        run(app, browse.browse(app.memories, workspace_id="w", user_id="alice", after="yesterday"))


def test_expire_keeps_the_memory_and_records_it(app: App) -> None:
    memory = run(app, browse.browse(app.memories, workspace_id="w", user_id="alice", status="valid")).memories[0]
    expired = app.memories.sync.expire(memory.memory_id, workspace_id="w", reason="by hand")
    assert expired.status == "expired"
    assert app.memories.sync.get(memory.memory_id, workspace_id="w").status == "expired"
    events = app.memories.sync.history(memory.memory_id, workspace_id="w")
    assert events[-1].event == "expire" and events[-1].reason == "by hand"
    with pytest.raises(InputError, match="expired already"):
        app.memories.sync.expire(memory.memory_id, workspace_id="w")


def test_no_users_in_an_empty_workspace(app: App) -> None:
    assert run(app, browse.users(app.memories, "empty")).total == 0
