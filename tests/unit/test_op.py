"""The op contract and the registry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ConfigDict

from flowmem import OPS, Op, OpContext, OpParams, register_op
from flowmem.core.errors import RegistryError
from flowmem.core.registry import Registry, snake_case


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("FuseRerankOp", "fuse_rerank_op"),
        ("SetQueryOp", "set_query_op"),
        ("LLMRankOp", "llm_rank_op"),
        ("ReadMessageOp", "read_message_op"),
        ("Op2Op", "op2_op"),
    ],
)
def test_snake_case(name: str, expected: str) -> None:
    assert snake_case(name) == expected


def test_registered_under_snake_case_name(register: Callable[..., Any]) -> None:
    class ShoutOp(Op):
        """Shout."""

        async def execute(self, ctx: OpContext) -> None:
            return None

    register(ShoutOp)
    assert OPS.get("shout_op") is ShoutOp
    assert ShoutOp.name == "shout_op"
    assert ShoutOp.summary() == "Shout."


def test_duplicate_name_raises(register: Callable[..., Any]) -> None:
    class DupOp(Op):
        async def execute(self, ctx: OpContext) -> None:
            return None

    register(DupOp)

    class Other(Op):
        async def execute(self, ctx: OpContext) -> None:
            return None

    with pytest.raises(RegistryError, match="op 'dup_op' is already registered"):
        register_op(name="dup_op")(Other)


def test_unknown_lookup_suggests() -> None:
    with pytest.raises(RegistryError, match=r"unknown op 'sleeep_op'; did you mean 'sleep_op'\? \(valid: .*\)"):
        OPS.get("sleeep_op")


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({}, "must define `async def execute"),
        ({"execute": lambda self, ctx: None}, "must define `async def execute"),
        ({"reads": ["a"]}, "reads must be a tuple of strings"),
        ({"uses": ("gpu",)}, "unknown backend kinds"),
        ({"Params": dict}, "Params must subclass flowmem.OpParams"),
        ({"Params": type("P", (OpParams,), {"model_config": ConfigDict(extra="allow")})}, "extra='forbid'"),
    ],
)
def test_malformed_ops_are_rejected_at_registration(attrs: dict[str, Any], message: str) -> None:
    async def execute(self: Op, ctx: OpContext) -> None:
        return None

    body: dict[str, Any] = {"execute": execute, **attrs}
    if body["execute"] is None or ("execute" in attrs and not callable(attrs["execute"])):
        body.pop("execute")
    if attrs == {}:
        body.pop("execute")
    cls = type("BadOp", (Op,), body)
    with pytest.raises(TypeError, match=message):
        register_op(registry=Registry("scratch op"))(cls)


def test_registry_rejects_non_snake_names() -> None:
    registry: Registry[int] = Registry("thing")
    with pytest.raises(RegistryError, match="snake_case"):
        registry.add("Bad-Name", 1)
    with registry.temporarily(("good_name", 1)):
        assert "good_name" in registry
    assert "good_name" not in registry


def test_params_are_typed_and_frozen() -> None:
    sleep = OPS.get("sleep_op")
    params = sleep.Params(ms="5")
    assert params.ms == 5.0  # type: ignore[attr-defined]
    with pytest.raises(Exception, match="frozen"):
        params.ms = 1  # type: ignore[attr-defined,misc]


def test_backend_must_be_declared() -> None:
    op = OPS.get("noop_op")()
    with pytest.raises(RegistryError, match="uses no llm"):
        op.backend("llm")
