"""Apps for op tests: the ephemeral store and hash embeddings (fast), with memories put in directly."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import pytest

from flowmem import App
from flowmem.schema.memory import Memory

NOW = datetime(2024, 6, 12, 20, 0)  # a Wednesday; "last weekend" = 8-9 June 2024
FAST = [
    "vector_store.default.backend=memory",
    "embedding_model.default.backend=hash",
]


def put(app: App, memories: Sequence[Memory], workspace: str = "default") -> None:
    async def main() -> None:
        embedded = await app.embedding_model().embed([m.content for m in memories])
        stored = [m.model_copy(update={"vector": v}) for m, v in zip(memories, embedded, strict=True)]
        await app.vector_store().upsert(workspace, stored)

    app.run_coroutine(main())


@pytest.fixture
def make_app() -> Any:
    apps: list[App] = []

    def make(*overrides: str, llm: dict[str, Any] | None = None) -> App:
        config: dict[str, Any] = {}
        if llm is not None:
            config["llm"] = {"default": {"backend": "fake", "params": llm}}
        app = App(config=config, overrides=[*FAST, *overrides])
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.close()


def mem(memory_id: str, content: str, **fields: Any) -> Memory:
    fields.setdefault("target", "alice")
    said = fields.pop("said", None)
    event = fields.pop("event", None)
    memory = Memory(workspace_id="default", memory_id=memory_id, content=content, **fields)
    if said is not None:
        memory = memory.with_message_time(said)
    if event is not None:
        memory = memory.with_event_time(event)
    return memory


def run(app: App, flow: str = "personal_retrieve", **inputs: Any) -> Any:
    inputs.setdefault("user_id", "alice")
    inputs.setdefault("timestamp", NOW)
    return app.run_sync(flow, **inputs)


def ids(response: Any) -> list[str]:
    return [m.memory_id for m in response.memories]


Maker = Callable[..., App]
__all__ = ["NOW", "Maker", "asyncio", "ids", "mem", "put", "run"]
