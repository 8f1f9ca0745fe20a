"""Searches sent at the same moment go to the node together: one ``_msearch`` instead of one ``_search`` each.

A service answers many queries at once, and their searches meet: the query embedder computes the vectors of
several queries in one model call, so their kNN searches start in the same turn of the event loop; a flow's
branches issue theirs side by side; a read of several places is several searches. Each request to the node
costs the client (building it, the HTTP exchange, the loopback send) and the node (its HTTP and task handling)
a fixed amount whatever it asks for: measured on a 9.2.0 node, four kNN searches cost the client 2.5–3.1 ms of
CPU as four ``_search`` requests and 1.6–1.9 ms as one ``_msearch``.

:class:`SearchBatcher` collects the searches the store issues during one turn of the event loop and the next,
and then sends them (``call_soon``: no waiting for company beyond the tasks already ready to run): one search
alone as the ``_search`` it always was, several as one ``_msearch``. Each search is the same request body either
way, so its hits and their order are those it would have had alone. An ``_msearch`` answers each search on its
own: a search that failed raises, to its caller only, the error it would have raised alone (:func:`answered`); a
failure of the whole request (the node unreachable) reaches every search it carried, as it would have reached each
alone.
"""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flowmem.vector_store.elasticsearch import query as q
from flowmem.vector_store.elasticsearch.errors import ElasticsearchError

if TYPE_CHECKING:
    from flowmem.vector_store.elasticsearch.store import ElasticsearchStore

# The keys of a search body that the client's search() takes under another name.
_ARGUMENT = {"_source": "source"}


@dataclass
class _Search:
    index: str
    body: dict[str, Any]
    answer: asyncio.Future[Any]


@dataclass
class _Pending:
    searches: list[_Search] = field(default_factory=list)


class SearchBatcher:
    """The store's searches of one event-loop turn, sent together (module docstring)."""

    def __init__(self, store: ElasticsearchStore):
        self._store = store
        self._pending: dict[asyncio.AbstractEventLoop, _Pending] = {}  # per loop: a store may outlive one
        self._sending: set[asyncio.Task[None]] = set()
        self.requests = 0  # requests sent (``_search`` or ``_msearch``), for tests and benchmarks
        self.searches = 0  # searches they carried

    async def search(self, index: str, body: dict[str, Any]) -> Any:
        """The answer to one search of ``index`` (``hits`` etc.), sent with the others of this turn."""
        return await self.submit(index, body)

    def submit(self, index: str, body: dict[str, Any]) -> asyncio.Future[Any]:
        """:meth:`search` without a coroutine: the search is queued now (several read at once are queued in the same
        turn, which ``asyncio.gather`` of coroutines would not do: it starts each in a task of the next turn)."""
        loop = asyncio.get_running_loop()
        pending = self._pending.get(loop)
        if pending is None:
            pending = self._pending[loop] = _Pending()
            # Sent after the next turn: the tasks this turn wakes or starts (a flow's parallel branches, the queries
            # of one model call) run in the next one, and their searches join.
            loop.call_soon(loop.call_soon, self._flush, loop)
        answer: asyncio.Future[Any] = loop.create_future()
        pending.searches.append(_Search(index, body, answer))
        return answer

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        pending = self._pending.pop(loop, None)
        searches = [s for s in pending.searches if not s.answer.done()] if pending else []  # a caller cancelled
        if searches:
            task = loop.create_task(self._send(searches))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _send(self, searches: list[_Search]) -> None:
        self.requests += 1
        self.searches += len(searches)
        try:
            answers = await self._request(searches)
        except asyncio.CancelledError:
            for search in searches:
                search.answer.cancel()
            raise
        except Exception as exc:  # every search of the request failed with it, as each would have alone
            for search in searches:
                if not search.answer.done():
                    search.answer.set_exception(_own(exc))
            return
        for search, answer in zip(searches, answers, strict=True):
            if search.answer.done():
                continue
            try:
                search.answer.set_result(answered(self._store, answer, search.index))
            except ElasticsearchError as exc:
                search.answer.set_exception(exc)

    async def _request(self, searches: list[_Search]) -> list[Any]:
        store = self._store
        client = await store._ready()
        if len(searches) == 1:
            [one] = searches
            arguments = {_ARGUMENT.get(key, key): value for key, value in one.body.items()}
            return [await store._call(client.search(index=one.index, **arguments), one.index)]
        lines: list[dict[str, Any]] = []
        for search in searches:
            lines += [{"index": search.index}, search.body]
        response = await store._call(client.msearch(searches=lines), ", ".join(sorted({s.index for s in searches})))
        return list(response["responses"])


def answered(store: ElasticsearchStore, answer: Any, index: str | None = None) -> Any:
    """One answer of an ``_msearch``; raises as if that search had been sent alone when it failed."""
    if isinstance(answer, dict) and "error" in answer:
        status, reason = answer.get("status", "?"), q.short_reason(answer["error"])
        where = index or store.index
        raise ElasticsearchError(f"Elasticsearch at {store.url} answered {status} for index '{where}': {reason}")
    return answer


def _own(exc: Exception) -> Exception:
    """A copy of ``exc`` for one of the callers it reaches (each raises its own, with its own traceback)."""
    try:
        mine = copy.copy(exc)
    except Exception:
        return exc
    mine.__cause__, mine.__context__ = exc.__cause__, exc.__context__
    return mine
