"""``app.memories.sync``: the memory service's calls for code without an event loop.

One async core, one blocking facade: each verb here is the core's own method, wrapped to run on
the app's event loop (so connection pools survive between calls), with the same signature and
docstring — nothing is written twice.
"""

from __future__ import annotations

import builtins
import functools
from collections.abc import Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar

from flowmem.memories.service import Memories
from flowmem.schema.memory import Memory

P = ParamSpec("P")
T = TypeVar("T")


def _blocking(
    method: Callable[Concatenate[Memories, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[SyncMemories, P], T]:
    @functools.wraps(method)
    def call(self: SyncMemories, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self.core.app.run_coroutine(method(self.core, *args, **kwargs))

    return call


class SyncMemories:
    """The calls of :class:`~flowmem.memories.Memories`, blocking. See there for each one's documentation."""

    def __init__(self, core: Memories):
        self.core = core

    add = _blocking(Memories.add)
    search = _blocking(Memories.search)
    get = _blocking(Memories.get)
    get_many = _blocking(Memories.get_many)
    list = _blocking(Memories.list)
    history = _blocking(Memories.history)
    update = _blocking(Memories.update)
    expire = _blocking(Memories.expire)
    delete = _blocking(Memories.delete)
    forget = _blocking(Memories.forget)
    import_ = _blocking(Memories.import_)
    stats = _blocking(Memories.stats)
    check = _blocking(Memories.check)
    context = _blocking(Memories.context)
    session = _blocking(Memories.session)
    clear_session = _blocking(Memories.clear_session)
    add_to_session = _blocking(Memories.add_to_session)
    pop_from_session = _blocking(Memories.pop_from_session)

    def export(self, **kwargs: Any) -> builtins.list[Memory]:
        """Every memory of the workspace as a list (see :meth:`Memories.export` for the streaming form)."""

        async def collect() -> builtins.list[Memory]:
            return [m async for m in self.core.export(**kwargs)]

        return self.core.app.run_coroutine(collect())
