"""``FlowmemStore`` against LangGraph's ``BaseStore`` contract (langgraph ships no store conformance suite: the
checkpoint-conformance package tests checkpointers only), sync and async, and inside a real compiled
``StateGraph`` whose nodes read and write memories through it — offline, on the hash embedder."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypedDict

import pytest

pytest.importorskip("langgraph")

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore, GetOp, Item, PutOp, SearchOp

from flowmem.core.errors import InputError
from flowmem.integrations.langgraph import FlowmemStore, NamespaceScope, matches
from tests.unit.integrations import FAST, MakeApp

if TYPE_CHECKING:
    from flowmem.integrations import AnyApp

FOOD = {"text": "Alice is vegetarian and loves tofu curry", "kind": "food", "stars": 5, "tags": ["diet"]}
MUSIC = {"text": "Alice plays the cello in an orchestra", "kind": "hobby", "stars": 3, "meta": {"since": 2019}}


@pytest.fixture
def app(make_app: MakeApp) -> Iterator[AnyApp]:
    with make_app(FAST) as opened:
        yield opened


def test_put_get_update_delete(app: AnyApp) -> None:
    store = FlowmemStore(app)
    assert store.get(("memories", "alice"), "food") is None
    store.put(("memories", "alice"), "food", FOOD)
    item = store.get(("memories", "alice"), "food")
    assert isinstance(item, Item)
    assert (item.namespace, item.key, item.value) == (("memories", "alice"), "food", FOOD)  # the value exactly
    assert store.get(("memories", "bob"), "food") is None and store.get(("memories", "alice"), "nope") is None
    store.put(("memories", "alice"), "food", {**FOOD, "stars": 4})
    again = store.get(("memories", "alice"), "food")
    assert again is not None and again.value["stars"] == 4 and again.created_at == item.created_at
    store.delete(("memories", "alice"), "food")
    assert store.get(("memories", "alice"), "food") is None
    store.delete(("memories", "alice"), "food")  # deleting what is gone is no error


def test_items_are_flowmem_memories_of_the_namespaces_user(app: AnyApp) -> None:
    store = FlowmemStore(app, scope=NamespaceScope(workspace_id="agents"))
    store.put(("memories", "alice"), "food", FOOD)
    store.put(("notes",), "n1", {"text": "a shared note"})
    [memory] = app.memories.sync.list(workspace_id="agents", user_id="alice").memories
    assert (memory.target, memory.memory_type) == ("alice", "observation")
    assert memory.content == f"{FOOD['text']}\nfood\ndiet"  # every string of the value, by default
    [shared] = app.memories.sync.list(workspace_id="agents", user_id="shared").memories
    assert shared.content == "a shared note"
    found = app.memories.sync.search("vegetarian tofu", user_id="alice", workspace_id="agents")
    assert found.memories[0].memory_id == memory.memory_id  # flowmem's own search finds what the agent stored
    app.memories.sync.forget(workspace_id="agents", user_id="alice")
    assert store.get(("memories", "alice"), "food") is None  # and flowmem's forget erases it


def test_search_filters_pages_and_ranks(app: AnyApp) -> None:
    store = FlowmemStore(app)
    store.put(("memories", "alice"), "food", FOOD)
    store.put(("memories", "alice"), "music", MUSIC)
    store.put(("memories", "alice", "work"), "job", {"text": "Alice is a nurse at the city hospital", "stars": 1})
    store.put(("memories", "bob"), "food", {"text": "Bob eats steak every day", "kind": "food", "stars": 2})

    def keys(prefix: tuple[str, ...], **kwargs: Any) -> list[str]:
        return [f"{'/'.join(i.namespace)}:{i.key}" for i in store.search(prefix, **kwargs)]

    food, music, bobs = "memories/alice:food", "memories/alice:music", "memories/bob:food"
    job = "memories/alice/work:job"
    assert keys(("memories", "alice")) == [food, music, job]
    assert keys(("memories",), filter={"kind": "food"}) == [food, bobs]
    assert keys(("memories",), filter={"stars": {"$gte": 3}}) == [food, music]
    assert keys(("memories",), filter={"stars": {"$gt": 1, "$lt": 5}}) == [music, bobs]
    assert keys(("memories",), filter={"kind": {"$ne": "food"}}) == [music, job]
    assert keys(("memories",), filter={"meta": {"since": 2019}}) == [music]
    assert keys(("memories",), filter={"tags": ["diet"]}) == [food]
    assert keys(("memories", "alice"), limit=1, offset=1) == [music]
    assert keys(("nothing",)) == []

    hits = store.search(("memories", "alice"), query="is alice vegetarian? tofu curry")
    assert [h.key for h in hits][:1] == ["food"] and hits[0].score is not None and hits[0].score > 0
    assert {h.key for h in hits} == {"food", "music", "job"}  # the unranked rest follows, unscored
    across = store.search(("memories",), query="steak", filter={"kind": "food"})
    assert [h.namespace for h in across][:1] == [("memories", "bob")]  # a prefix naming no user searches each
    assert len(store.search(("memories",), query="tofu", limit=2)) == 2


def test_an_item_put_with_index_false_is_never_ranked(app: AnyApp) -> None:
    store = FlowmemStore(app, fields=["text"])
    store.put(("docs", "alice"), "secret", {"text": "tofu curry tofu curry", "code": "x"}, index=False)
    store.put(("docs", "alice"), "other", {"text": "the weather is mild", "code": "tofu curry"}, index=["code"])
    hits = store.search(("docs", "alice"), query="tofu curry")
    assert [(h.key, h.score is None) for h in hits] == [("other", False), ("secret", True)]


def test_list_namespaces(app: AnyApp) -> None:
    store = FlowmemStore(app)
    for namespace in [("memories", "alice"), ("memories", "alice", "work"), ("memories", "bob"), ("docs", "x", "v1")]:
        store.put(namespace, "k", {"text": "something"})
    assert store.list_namespaces() == [("docs", "x", "v1"), ("memories", "alice"), ("memories", "alice", "work"),
                                       ("memories", "bob")]  # fmt: skip
    assert store.list_namespaces(prefix=("memories", "alice")) == [("memories", "alice"), ("memories", "alice", "work")]
    assert store.list_namespaces(prefix=("memories", "*")) == [("memories", "alice"), ("memories", "alice", "work"),
                                                               ("memories", "bob")]  # fmt: skip
    assert store.list_namespaces(suffix=("v1",)) == [("docs", "x", "v1")]
    assert store.list_namespaces(prefix=("memories",), max_depth=2) == [("memories", "alice"), ("memories", "bob")]
    assert store.list_namespaces(limit=2, offset=1) == [("memories", "alice"), ("memories", "alice", "work")]


def test_a_batch_reads_before_it_writes_and_the_last_put_wins(app: AnyApp) -> None:
    store = FlowmemStore(app)
    ns = ("memories", "alice")
    results = store.batch([PutOp(ns, "a", {"n": 1}), GetOp(ns, "a"), PutOp(ns, "a", {"n": 2}), SearchOp(ns)])
    assert results == [None, None, None, []]
    got = store.get(ns, "a")
    assert got is not None and got.value == {"n": 2}


def test_filters_say_which_operators_exist() -> None:
    assert matches({"a": {"b": 1}}, {"a": {"b": 1}}) and not matches({"a": 1}, {"a": {"$gt": "x"}})
    with pytest.raises(InputError, match=r"\$gte"):
        matches({"a": 1}, {"a": {"$greater": 0}})


def test_the_async_api(make_app: MakeApp) -> None:
    async def main() -> None:
        async with make_app(FAST) as app:
            store = FlowmemStore(app)
            await store.aput(("memories", "alice"), "food", FOOD)
            item = await store.aget(("memories", "alice"), "food")
            assert item is not None and item.value == FOOD
            assert [h.key for h in await store.asearch(("memories",), query="vegetarian")] == ["food"]
            assert await store.alist_namespaces() == [("memories", "alice")]
            await store.adelete(("memories", "alice"), "food")
            assert await store.aget(("memories", "alice"), "food") is None

    asyncio.run(main())


class State(TypedDict):
    user: str
    message: str
    recalled: list[str]


def remember(state: State, *, store: BaseStore) -> dict[str, Any]:
    namespace = ("memories", state["user"])
    store.put(namespace, f"m{len(store.search(namespace))}", {"text": state["message"]})
    return {}


def recall(state: State, *, store: BaseStore) -> dict[str, Any]:
    hits = store.search(("memories", state["user"]), query=state["message"], limit=2)
    return {"recalled": [h.value["text"] for h in hits]}


def graph(store: BaseStore) -> Any:
    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    return builder.compile(store=store)


def test_a_langgraph_graph_remembers_through_the_store(app: AnyApp) -> None:
    compiled = graph(FlowmemStore(app))
    compiled.invoke({"user": "alice", "message": "I am vegetarian and love tofu", "recalled": []})
    compiled.invoke({"user": "alice", "message": "I play the cello", "recalled": []})
    out = compiled.invoke({"user": "alice", "message": "cooking tofu for dinner, vegetarian", "recalled": []})
    assert out["recalled"][0] in ("I am vegetarian and love tofu", "cooking tofu for dinner, vegetarian")
    assert "I am vegetarian and love tofu" in out["recalled"]
    assert len(app.memories.sync.list(user_id="alice").memories) == 3  # flowmem memories of alice


def test_sync_nodes_of_an_async_graph_use_the_running_loop(make_app: MakeApp) -> None:
    async def main() -> None:
        async with make_app(FAST) as app:
            store = FlowmemStore(app)
            await store.aput(("memories", "bob"), "m0", {"text": "Bob lives in Porto"})  # the store meets the loop
            out = await graph(store).ainvoke({"user": "bob", "message": "where does Bob live? Porto", "recalled": []})
            assert "Bob lives in Porto" in out["recalled"]

    asyncio.run(main())
