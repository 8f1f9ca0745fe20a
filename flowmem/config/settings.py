"""Checking op and backend entries against what is registered, with messages that list valid choices."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from flowmem.config.schema import BackendEntry, Config, OpEntry
from flowmem.core.backend import BACKENDS, Backend, BackendKind, BackendParams
from flowmem.core.errors import Problem
from flowmem.core.suggest import did_you_mean, one_of, unknown
from flowmem.flow.op import OPS, Op, OpParams

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class OpSetting:
    """An op name as flows use it, resolved: its class, validated params and entry."""

    label: str
    op_cls: type[Op]
    params: OpParams
    entry: OpEntry


@dataclass(frozen=True)
class BackendSetting:
    """A backend entry, resolved: its implementation and validated params."""

    kind: BackendKind
    name: str
    backend_cls: type[Backend]
    params: BackendParams


def validate_params(
    model: type[M], values: Mapping[str, Any], owner: str, where: str
) -> tuple[M | None, list[Problem]]:
    """Validate ``values`` against ``model``; every error becomes one problem naming the param."""
    try:
        return model.model_validate(dict(values)), []
    except ValidationError as exc:
        return None, [Problem(where, _describe_error(error, model, owner)) for error in exc.errors()]


def _describe_error(error: Any, model: type[BaseModel], owner: str) -> str:
    loc = ".".join(str(part) for part in error["loc"])
    name = str(error["loc"][0]) if error["loc"] else ""
    fields = model.model_fields
    if error["type"] == "extra_forbidden":
        return f"{owner} has no param '{name}'{did_you_mean(name, fields)} ({one_of(fields)})"
    if error["type"] == "missing":
        return f"{owner} needs param '{loc}'"
    return f"{owner} param '{loc}': {error['msg']} (got {error['input']!r})"


def resolve_op(label: str, config: Config, where: str) -> tuple[OpSetting | None, list[Problem]]:
    """Resolve the op a flow names ``label``: a config entry, or a registered op with defaults."""
    entry = config.op.get(label)
    if entry is None:
        if label not in OPS:
            choices = set(OPS.names()) | set(config.op)
            return None, [Problem(where, unknown("op", label, choices))]
        entry = OpEntry()
    op_name = entry.backend or label
    if op_name not in OPS:
        return None, [Problem(where, unknown("op", op_name, OPS.names()) + f" (as backend of op entry '{label}')")]
    op_cls = OPS.get(op_name)
    params, problems = validate_params(op_cls.Params, entry.params, f"op '{label}'", where)
    for kind in op_cls.uses:
        chosen = getattr(entry, kind)
        configured = config.backends(kind)
        if chosen not in configured:
            problems.append(
                Problem(
                    where,
                    f"op '{label}' uses {kind} '{chosen}', which is not configured "
                    f"({one_of(configured)}); add {kind}.{chosen}.backend=… or set op.{label}.{kind}=…",
                )
            )
    if params is None or problems:
        return None, problems
    return OpSetting(label, op_cls, params, entry), []


# Backends that ship in flowmem.testing for users' tests, by kind: loaded only on request (plugin or import).
TEST_BACKENDS: dict[str, dict[str, str]] = {"llm": {"fake": "flowmem.testing.fake_llm"}}


def resolve_backend(kind: BackendKind, name: str, entry: BackendEntry) -> tuple[BackendSetting | None, list[Problem]]:
    """Resolve one ``llm``/``embedding_model``/``vector_store`` entry."""
    where = f"{kind}.{name}"
    registry = BACKENDS[kind]
    if entry.backend not in registry:
        message = unknown(registry.kind, entry.backend, registry.names())
        if entry.backend in TEST_BACKENDS.get(kind, {}):
            # Test fakes are not registered in production apps; say where this one lives.
            module = TEST_BACKENDS[kind][entry.backend]
            message += f"; '{entry.backend}' is a test fake: load it with --plugin {module} (or import {module})"
        return None, [Problem(where, message)]
    backend_cls = registry.get(entry.backend)
    params, problems = validate_params(backend_cls.Params, entry.params, f"{kind} backend '{entry.backend}'", where)
    if params is None:
        return None, problems
    return BackendSetting(kind, name, backend_cls, params), []
