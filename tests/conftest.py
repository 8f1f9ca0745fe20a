"""Shared fixtures."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import flowmem.testing.fake_llm  # registers the `fake` LLM backend, which production apps do not
import flowmem.testing.ops  # noqa: F401  (registers noop_op, sleep_op, echo_op, fail_op, flaky_answer_op)
from flowmem.flow.op import OPS, Op, register_op
from flowmem.flow.plugins import load_builtins

load_builtins()


@pytest.fixture
def register() -> Iterator[Callable[..., type[Op]]]:
    """Register op classes for the duration of one test: ``register(cls, name=None)``."""
    added: list[str] = []

    def _register(cls: type[Op], name: str | None = None) -> type[Op]:
        register_op(name=name)(cls)
        added.append(name or cls.name)
        return cls

    yield _register
    for name in added:
        OPS.remove(name)


@pytest.fixture
def store(tmp_path: Path) -> list[str]:
    """Config overrides for a throwaway local store (in ``tmp_path``) and the fast ``hash`` embedder."""
    return [
        "vector_store.default.backend=local",
        f"vector_store.default.params.directory={tmp_path / 'store'}",
        "embedding_model.default.backend=hash",
    ]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # The developer's own settings must not leak into tests.
    for var in ("FLOWMEM_CONFIG", "FLOWMEM_PLUGINS"):
        monkeypatch.delenv(var, raising=False)


def make_op(
    name: str,
    *,
    reads: tuple[str, ...] = (),
    writes: tuple[str, ...] = (),
    optional_reads: tuple[str, ...] = (),
) -> type[Op]:
    """An op class that writes ``f"{name}:{key}"`` to each key it writes."""

    async def execute(self: Op, ctx: object) -> None:
        for key in writes:
            ctx[key] = f"{name}:{key}"  # type: ignore[index]

    return type(
        "".join(part.title() for part in name.split("_")),
        (Op,),
        {"reads": reads, "writes": writes, "optional_reads": optional_reads, "execute": execute, "__doc__": name},
    )
