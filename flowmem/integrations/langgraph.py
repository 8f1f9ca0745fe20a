"""A LangGraph ``BaseStore`` on flowmem's memories: LangGraph agents and LangMem keep their long-term memory here.

```python
from langgraph.graph import StateGraph
from flowmem import App
from flowmem.integrations.langgraph import FlowmemStore

app = App()
graph = StateGraph(State).add_node(...).compile(store=FlowmemStore(app))
# in a node: store.put(("memories", user_id), "food", {"text": "Alice is vegetarian"})
#            store.search(("memories", user_id), query="what does alice eat?")
```

**Namespaces ↔ flowmem scope** (:class:`NamespaceScope`): every item lives in one flowmem workspace (``workspace_id``,
default ``"default"``), as a memory about the user the namespace names at position ``user_at`` (default 1:
``("memories", "alice")`` is user ``alice``, as in LangGraph's and LangMem's examples); a namespace too short to name
one is the user ``shared_user``. So ``flowmem search -u alice`` finds what a LangGraph agent stored for alice, and
``flowmem forget -u alice`` erases it. Subclass :class:`NamespaceScope` for another mapping.

**Items are memories.** An item is one ``observation`` memory whose id is derived from (namespace, key), whose
``content`` is the item's text (``fields`` — LangGraph's ``index`` fields, e.g. ``["text"]`` — or, by default, every
string in the value), and whose ``metadata["langgraph"]`` keeps the namespace, the key and the ``value`` dict
exactly. A put replaces the memory (an ``update`` in its history), a put of ``None`` deletes it
(:meth:`app.memories.import_ <flowmem.memories.Memories.import_>` and ``delete``).

**Search** with a ``query`` runs flowmem's retrieval flow (``personal_retrieve``) for the user of the prefix — for
each user under it when the prefix is too short to name one — and returns the items under the prefix that match
``filter`` ranked by its final score (``item.score``), then the other matching items (score ``None``) as LangGraph's
in-memory store does; without a query, the matching items. Unranked items come oldest first (to the second), then
by namespace and key. ``filter`` compares the
value's fields as LangGraph does: equality (nested dicts and lists too) and ``$eq $ne $gt $gte $lt $lte``.

Sync and async: ``abatch`` is the core; ``batch`` runs it on the event loop ``abatch`` last ran on (from another
thread, as LangGraph's sync nodes in an async graph do), else on the app's own loop. No TTL (``supports_ttl`` is
false). Reads without a query scan the items of the user (of the workspace, when the prefix names no user).

Needs ``pip install 'flowmem[langgraph]'``. ``app`` may be a :class:`~flowmem.integrations.remote.RemoteApp` (a remote
``flowmem serve``): each get is a request per item, and reads without a query page through ``GET /v1/memories``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import operator
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from flowmem.core.errors import InputError, Problem
from flowmem.core.suggest import unknown
from flowmem.integrations import requires
from flowmem.memories.service import SEARCH_FLOW
from flowmem.schema.kinds import DEFAULT_WORKSPACE
from flowmem.schema.memory import Memory

with requires("langgraph", "langgraph"):
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
    from langgraph.store.base.embed import get_text_at_path

if TYPE_CHECKING:
    from flowmem.integrations import AnyApp

__all__ = ["MARK", "FlowmemStore", "NamespaceScope", "matches"]

MARK = "langgraph"  # metadata key of an item's namespace, key and value
Namespace = tuple[str, ...]


@dataclass(frozen=True)
class NamespaceScope:
    """Which flowmem workspace and user a LangGraph namespace's items belong to.

    Attributes:
        workspace_id: The workspace of every item.
        user_at: The position of the user in a namespace (``("memories", "alice")``: 1).
        shared_user: The user of namespaces too short to name one.
    """

    workspace_id: str = DEFAULT_WORKSPACE
    user_at: int = 1
    shared_user: str = "shared"

    def user(self, namespace: Namespace) -> str:
        """The user whose memories hold the items of ``namespace``."""
        return namespace[self.user_at] if len(namespace) > self.user_at else self.shared_user

    def prefix_user(self, prefix: Sequence[str]) -> str | None:
        """The one user of every namespace under ``prefix`` (``"*"``: any), or ``None`` when they may differ."""
        named = prefix[self.user_at] if len(prefix) > self.user_at else "*"
        return None if named == "*" else named


class FlowmemStore(BaseStore):
    """LangGraph's ``BaseStore`` on ``app.memories`` (see the module docstring for the mapping).

    Args:
        app: The flowmem app whose memory service keeps the items.
        scope: How namespaces map to workspace and user (default :class:`NamespaceScope`).
        fields: The value's fields whose text is embedded and searched (LangGraph ``index`` paths such as
            ``"text"`` or ``"facts[*].fact"``); default every string in the value. A put's ``index`` overrides it;
            ``index=False`` keeps the item out of ranked results (it still matches, unscored).
        search_flow: The retrieval flow of searches with a query.
    """

    def __init__(
        self,
        app: AnyApp,
        *,
        scope: NamespaceScope | None = None,
        fields: Sequence[str] | None = None,
        search_flow: str = SEARCH_FLOW,
    ):
        self.app = app
        self.scope = scope or NamespaceScope()
        self.fields = list(fields) if fields else None
        self.search_flow = search_flow
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sync = threading.Lock()

    # -- the two entry points ------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        loop = self._loop
        if loop is not None and loop.is_running() and not _runs_here(loop):
            return asyncio.run_coroutine_threadsafe(self.abatch(ops), loop).result()
        with self._sync:  # the app's own loop runs one call at a time
            return self.app.run_coroutine(self.abatch(ops))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Reads first (gets, searches, namespace lists), then the puts, the last of each (namespace, key) winning,
        as LangGraph's in-memory store orders a batch."""
        self._loop = asyncio.get_running_loop()
        ops = list(ops)
        results: list[Result] = [None] * len(ops)
        puts: dict[tuple[Namespace, str], PutOp] = {}
        for i, op in enumerate(ops):
            if isinstance(op, GetOp):
                results[i] = await self._get(op)
            elif isinstance(op, SearchOp):
                results[i] = await self._search(op)
            elif isinstance(op, ListNamespacesOp):
                results[i] = await self._list_namespaces(op)
            else:  # a PutOp: the Op union has no other kind
                puts[(tuple(op.namespace), op.key)] = op
        await self._put([op for op in puts.values() if op.value is not None])
        await self._delete([op for op in puts.values() if op.value is None])
        return results

    # -- operations ----------------------------------------------------------------------------------
    async def _get(self, op: GetOp) -> Item | None:
        namespace = tuple(op.namespace)
        found = await self.app.memories.get_many([memory_id(namespace, op.key)], workspace_id=self.scope.workspace_id)
        return _item(found[0], Item) if found and _place(found[0]) == (namespace, op.key) else None

    async def _put(self, ops: list[PutOp]) -> None:
        if not ops:
            return
        workspace = self.scope.workspace_id
        ids = [memory_id(tuple(op.namespace), op.key) for op in ops]
        before = {m.memory_id: m for m in await self.app.memories.get_many(ids, workspace_id=workspace)}
        now = datetime.now().replace(microsecond=0)
        records = []
        for op, id_ in zip(ops, ids, strict=True):
            namespace, value = tuple(op.namespace), dict(op.value or {})
            fields = self.fields if op.index is None else (op.index or None)
            mark = {"namespace": list(namespace), "key": op.key, "value": value, "indexed": op.index is not False}
            old = before.get(id_)
            records.append(
                Memory(
                    memory_id=id_, workspace_id=workspace, target=self.scope.user(namespace),
                    content=item_text(value, fields), created_at=old.created_at if old else now, updated_at=now,
                    metadata={MARK: mark},
                ).with_message_time(now)
            )  # fmt: skip
        await self.app.memories.import_(records, workspace_id=workspace, source="langgraph", reason="put (langgraph)")

    async def _delete(self, ops: list[PutOp]) -> None:
        if ops:
            ids = [memory_id(tuple(op.namespace), op.key) for op in ops]
            await self.app.memories.delete(ids, workspace_id=self.scope.workspace_id, reason="deleted (langgraph)")

    async def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix, user = tuple(op.namespace_prefix), self.scope.prefix_user(op.namespace_prefix)
        found = [
            m
            async for m in self._items(user, lambda ns: ns[: len(prefix)] == prefix)
            if matches(m.metadata[MARK]["value"], op.filter or {})
        ]
        wanted = {m.memory_id: m for m in sorted(found, key=lambda m: (m.created_at, _place(m)))}
        ranked: list[tuple[float, Memory]] = []
        if op.query and wanted:
            users = [user] if user is not None else sorted({m.target for m in wanted.values()})
            for name in users:
                hits = await self.app.memories.search(
                    op.query, user_id=name, workspace_id=self.scope.workspace_id, flow=self.search_flow,
                    top_k=min(len(wanted), op.offset + op.limit),
                )  # fmt: skip
                ranked += [
                    (hit.scores.get("final", 0.0), wanted[hit.memory_id])
                    for hit in hits.memories
                    if hit.memory_id in wanted and wanted[hit.memory_id].metadata[MARK].get("indexed", True)
                ]
        ranked.sort(key=lambda pair: -pair[0])
        seen = {m.memory_id for _, m in ranked}
        rest = [(None, m) for m in wanted.values() if m.memory_id not in seen]
        order: list[tuple[float | None, Memory]] = [*ranked, *rest]
        return [_item(m, SearchItem, score) for score, m in order[op.offset : op.offset + op.limit]]

    async def _list_namespaces(self, op: ListNamespacesOp) -> list[Namespace]:
        conditions = op.match_conditions or ()
        users = {self.scope.prefix_user(c.path) for c in conditions if c.match_type == "prefix"}
        user = next((u for u in users if u is not None), None)
        found = {
            tuple(m.metadata[MARK]["namespace"])
            async for m in self._items(user, lambda ns: all(_namespace_matches(c, ns) for c in conditions))
        }
        if op.max_depth is not None:
            found = {ns[: op.max_depth] for ns in found}
        return sorted(found)[op.offset : op.offset + op.limit]

    async def _items(self, user: str | None, keep: Callable[[Namespace], bool]) -> AsyncIterator[Memory]:
        """The items of ``user`` (of every user, for ``None``) whose namespace ``keep`` accepts, oldest first."""
        async for memory in self.app.memories.export(
            workspace_id=self.scope.workspace_id, user_id=user, with_vectors=False
        ):
            mark = memory.metadata.get(MARK)
            if isinstance(mark, dict) and keep(tuple(mark["namespace"])):
                yield memory


# -- helpers -------------------------------------------------------------------------------------------
def memory_id(namespace: Namespace, key: str) -> str:
    """The memory id of an item: ``lg-`` and a hash of its namespace and key."""
    digest = hashlib.sha256(json.dumps([list(namespace), key], ensure_ascii=False).encode()).hexdigest()
    return f"lg-{digest[:40]}"


def item_text(value: Mapping[str, Any], fields: Sequence[str] | None) -> str:
    """The words of a value that are embedded: the text at ``fields`` (LangGraph paths), else every string in it;
    the value as JSON when it has none."""
    texts = [t for f in fields for t in get_text_at_path(value, f)] if fields else list(_strings(value))
    return "\n".join(t for t in texts if t.strip()) or json.dumps(value, ensure_ascii=False, sort_keys=True)


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for nested in value.values():
            yield from _strings(nested)
    elif isinstance(value, (list, tuple)):
        for nested in value:
            yield from _strings(nested)


def _place(memory: Memory) -> tuple[Namespace, str] | None:
    mark = memory.metadata.get(MARK)
    return (tuple(mark["namespace"]), mark["key"]) if isinstance(mark, dict) else None


def _item(memory: Memory, cls: type[Item], score: float | None = None) -> Any:
    mark = memory.metadata[MARK]
    common = {"namespace": tuple(mark["namespace"]), "key": mark["key"], "value": mark["value"]}
    if cls is SearchItem:
        return SearchItem(**common, created_at=memory.created_at, updated_at=memory.updated_at, score=score)
    return Item(**common, created_at=memory.created_at, updated_at=memory.updated_at)


def _runs_here(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


def _namespace_matches(condition: MatchCondition, namespace: Namespace) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[len(namespace) - len(path) :]
    return all(want in ("*", got) for want, got in zip(path, part, strict=True))


def _number(compare: Callable[[float, float], bool]) -> Callable[[Any, Any], bool]:
    def check(actual: Any, wanted: Any) -> bool:
        try:
            return compare(float(actual), float(wanted))
        except (TypeError, ValueError):
            return False  # a missing or non-numeric field matches no comparison

    return check


OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": operator.eq, "$ne": operator.ne, "$gt": _number(operator.gt), "$gte": _number(operator.ge),
    "$lt": _number(operator.lt), "$lte": _number(operator.le),
}  # fmt: skip


def matches(value: Mapping[str, Any], conditions: Mapping[str, Any]) -> bool:
    """Whether an item's ``value`` meets a LangGraph ``filter``: every field equal (nested dicts and lists compared
    part by part), or meeting its operators (``{"$gte": 3}``).

    Raises:
        InputError: An unknown operator (the valid ones listed).
    """
    return all(_meets(value.get(field), wanted, field) for field, wanted in conditions.items())


def _meets(actual: Any, wanted: Any, where: str) -> bool:
    if isinstance(wanted, Mapping):
        named = [k for k in wanted if isinstance(k, str) and k.startswith("$")]
        if named:
            bad = [Problem(f"filter.{where}", unknown("operator", k, OPERATORS)) for k in named if k not in OPERATORS]
            if bad:
                raise InputError(bad)
            return all(OPERATORS[k](actual, v) for k, v in wanted.items())
        return isinstance(actual, Mapping) and all(_meets(actual.get(k), v, f"{where}.{k}") for k, v in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return (
            isinstance(actual, (list, tuple))
            and len(actual) == len(wanted)
            and all(_meets(a, w, where) for a, w in zip(actual, wanted, strict=True))
        )
    return bool(actual == wanted)
