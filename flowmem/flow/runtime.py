"""The flow layer's run entry: a loaded config, its compiled flows and the backends they share.

:class:`flowmem.App` is this plus the memory service (``app.memories``), which sits a layer above; code of the
service and below takes a :class:`Runtime` so that nothing imports upward.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

from flowmem.config.loader import ConfigSource, ResolvedConfig, load_config
from flowmem.config.schema import Config
from flowmem.core.backend import Backend, BackendKind
from flowmem.core.errors import ConfigError, FlowmemError, Problem
from flowmem.core.own_loop import OwnLoop
from flowmem.core.suggest import unknown
from flowmem.embedding.base import EmbeddingModel
from flowmem.flow.compile import CompiledFlow, check_flow, compile_flow
from flowmem.flow.executor import run_flow
from flowmem.flow.plugins import load_builtins, load_plugins
from flowmem.flow.pool import BackendPool
from flowmem.flow.response import Response
from flowmem.vector_store.base import VectorStore

T = TypeVar("T")
R = TypeVar("R", bound="Runtime")


class Runtime:
    """A configured flowmem without its memory service: flows, ops and the backends they share.

    Args:
        config: Config files, preset names (``"elasticsearch"``) or mappings, applied in order on
            top of the package defaults and ``FLOWMEM_CONFIG``.
        overrides: ``key=value`` strings applied last, e.g. ``"op.fuse_rerank_op.params.fuse_time_ratio=3"``.
        plugins: Modules to import first, so the ops and backends they register can be used.

    Raises:
        ConfigError: The configuration is wrong (every problem listed).
        PluginError: A plugin module cannot be imported.
    """

    def __init__(
        self,
        config: ConfigSource | Sequence[ConfigSource] | None = None,
        overrides: Sequence[str] = (),
        *,
        plugins: Sequence[str] = (),
    ):
        load_builtins()
        load_plugins(plugins)
        self.resolved: ResolvedConfig = load_config(config, overrides)
        self._flows: dict[str, CompiledFlow] = {}
        self._backends = BackendPool(self.resolved)
        self._own_loop = OwnLoop("use `await app.run(...)`")
        self._closed = False

    @property
    def config(self) -> Config:
        return self.resolved.config

    @property
    def flow_names(self) -> list[str]:
        return sorted(self.config.flow)

    def flow(self, name: str) -> CompiledFlow:
        """The compiled flow ``name`` (compiled once, then cached).

        Raises:
            ConfigError: No such flow.
            FlowValidationError: The flow cannot run; every problem is listed.
        """
        compiled = self._flows.get(name)
        if compiled is None:
            entry = self.config.flow.get(name)
            if entry is None:
                raise ConfigError(Problem("", unknown("flow", name, self.config.flow)))
            compiled = self._flows[name] = compile_flow(name, entry, self.resolved)
        return compiled

    def validate(self) -> dict[str, list[Problem]]:
        """Check every flow of the config; map each flow name to its problems (empty when valid)."""
        return {name: check_flow(name, entry, self.resolved)[1] for name, entry in sorted(self.config.flow.items())}

    async def run(self, flow: str, /, *, strict: bool = False, **inputs: Any) -> Response:
        """Run ``flow`` with ``inputs`` (e.g. ``query=…, user_id=…``) and return its response.

        With ``strict``, an op that degrades (``response.degradations``) stops the run right after it
        with :class:`~flowmem.core.errors.DegradedError` instead of going on with its fallback.

        Raises:
            ConfigError, FlowValidationError: The flow is unknown or invalid (nothing ran).
            InputError: Inputs are missing, unknown or ill-typed (nothing ran).
            OpExecutionError: An op failed; the message names it and the run's flow id.
            DegradedError: ``strict`` and an op degraded.
        """
        return await self.run_inputs(flow, inputs, strict=strict)

    async def run_inputs(
        self, flow: str | CompiledFlow, inputs: Mapping[str, Any], *, strict: bool = False
    ) -> Response:
        """:meth:`run` with the inputs as one mapping (an input may then be named ``strict``), of a flow by name or
        compiled (a variant of one with other op params, :func:`flowmem.memories.flows.variant`): the one place
        a flow of this app runs, so every run is refused once the app is closed.

        Raises:
            FlowmemError: The app is closed.
        """
        if self._closed:
            raise FlowmemError("this App is closed")
        compiled = self.flow(flow) if isinstance(flow, str) else flow
        return await run_flow(compiled, inputs, self._backends.get, strict=strict)

    def run_sync(self, flow: str, /, **inputs: Any) -> Response:
        """:meth:`run` for code without an event loop.

        Runs on the app's own event loop, so backends (connection pools) survive between calls.
        """
        return self.run_coroutine(self.run(flow, **inputs))

    def run_coroutine(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` to completion on the app's own event loop (for synchronous callers)."""
        return self._own_loop.run(coroutine)

    def backend(self, kind: BackendKind, name: str = "default") -> Backend:
        """The configured backend ``<kind>.<name>``, created on first use and closed with the app."""
        return self._backends.get(kind, name)

    def vector_store(self, name: str = "default") -> VectorStore:
        """The configured vector store ``name``."""
        store = self.backend("vector_store", name)
        assert isinstance(store, VectorStore)
        return store

    def embedding_model(self, name: str = "default") -> EmbeddingModel:
        """The configured embedding model ``name``."""
        model = self.backend("embedding_model", name)
        assert isinstance(model, EmbeddingModel)
        return model

    async def aclose(self) -> None:
        """Close every backend this app created."""
        self._closed = True
        await self._backends.aclose()

    def close(self) -> None:
        """Close backends and the app's own event loop (after :meth:`run_sync`)."""
        if self._own_loop.close(self.aclose):
            pass
        elif self._backends.created():
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                asyncio.run(self.aclose())
            else:
                raise FlowmemError("close() cannot await backends inside an event loop; use `await app.aclose()`")
        self._closed = True

    def __enter__(self: R) -> R:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    async def __aenter__(self: R) -> R:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
