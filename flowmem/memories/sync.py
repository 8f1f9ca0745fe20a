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
C = TypeVar("C")


def blocking(method: Callable[Concatenate[C, P], Coroutine[Any, Any, T]]) -> Callable[Concatenate[Any, P], T]:
    """``method`` of an async core (``core.app.run_coroutine`` runs it), as a blocking call of a facade over it."""

    @functools.wraps(method)
    def call(self: BlockingFacade, /, *args: P.args, **kwargs: P.kwargs) -> T:
        result: T = self.core.app.run_coroutine(method(self.core, *args, **kwargs))
        return result

    return call


class BlockingFacade:
    """The blocking calls of an async core whose ``app`` has ``run_coroutine`` (``Memories``, or a remote one)."""

    def __init__(self, core: Any):
        self.core = core

    def export(self, **kwargs: Any) -> builtins.list[Memory]:
        """Every memory of the workspace as a list (see the core's ``export`` for the streaming form)."""

        async def collect() -> builtins.list[Memory]:
            return [m async for m in self.core.export(**kwargs)]

        result: builtins.list[Memory] = self.core.app.run_coroutine(collect())
        return result


class SyncMemories(BlockingFacade):
    """The calls of :class:`~flowmem.memories.Memories`, blocking. See there for each one's documentation."""

    core: Memories

    add = blocking(Memories.add)
    search = blocking(Memories.search)
    get = blocking(Memories.get)
    get_many = blocking(Memories.get_many)
    list = blocking(Memories.list)
    history = blocking(Memories.history)
    update = blocking(Memories.update)
    expire = blocking(Memories.expire)
    delete = blocking(Memories.delete)
    forget = blocking(Memories.forget)
    import_ = blocking(Memories.import_)
    stats = blocking(Memories.stats)
    check = blocking(Memories.check)
    context = blocking(Memories.context)
    session = blocking(Memories.session)
    clear_session = blocking(Memories.clear_session)
    add_to_session = blocking(Memories.add_to_session)
    pop_from_session = blocking(Memories.pop_from_session)
