"""Running any configured flow in a workspace, some ops' params changed for one call: what the HTTP service's
``POST /v1/flows/{name}/run`` calls (``flowmem run`` does the same with ``key=value`` overrides at start-up).

The variant is compiled from the app's resolved config with the changed params; the app itself, its
cached flows and its backends are left as they are, so concurrent calls with different params never
see each other's. It runs through :meth:`~flowmem.flow.runtime.Runtime.run_inputs`, the one run entry (a closed
app runs nothing).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from flowmem.config.schema import OpEntry
from flowmem.core.errors import FlowmemError, InputError, Problem
from flowmem.core.suggest import one_of, unknown
from flowmem.flow.compile import CompiledFlow, compile_flow, op_steps
from flowmem.flow.response import Response

if TYPE_CHECKING:
    from flowmem.flow.runtime import Runtime

OpParams = Mapping[str, Mapping[str, Any]]


async def run_in_workspace(
    app: Runtime,
    flow: str,
    inputs: Mapping[str, Any] | None = None,
    *,
    workspace_id: str,
    op_params: OpParams | None = None,
) -> Response:
    """Run ``flow`` in ``workspace_id`` with ``inputs``, the ops' params of ``op_params`` changed for this call.

    Args:
        inputs: The flow's inputs (``query``, ``user_id``, ``messages``, …); the workspace is ``workspace_id``
            (an input naming another is an error).
        op_params: ``{op label: {param: value}}`` over the configured params, e.g.
            ``{"fuse_rerank_op": {"fuse_time_ratio": 3}}``.

    Raises:
        ConfigError: No such flow.
        FlowValidationError: A param the op does not have, or of the wrong type (nothing ran).
        InputError: Bad inputs (nothing ran).
    """
    given = dict(inputs or {})
    named = given.get("workspace_id", workspace_id)
    if named != workspace_id:
        raise InputError(
            Problem("inputs.workspace_id", f"names workspace {named!r} but the call is in {workspace_id!r}; drop it")
        )
    given["workspace_id"] = workspace_id
    return await app.run_inputs(variant(app, flow, op_params) if op_params else flow, given)


def writes_memories(app: Runtime, flow: str) -> bool:
    """Whether ``flow`` writes memories: it holds an op that writes to its store (``CompiledFlow.stores_written``).

    Raises:
        ConfigError: No such flow.
    """
    return bool(app.flow(flow).stores_written)


def read_only_flows(app: Runtime) -> list[str]:
    """The configured flows that write to no store, sorted (a flow that does not compile is left out)."""
    found = []
    for name in app.flow_names:
        try:
            if not writes_memories(app, name):
                found.append(name)
        except FlowmemError:
            continue
    return found


def check_read_only(app: Runtime, flow: str) -> None:
    """The read-only policy of search, its one owner (``app.memories.search``; the CLI, HTTP and MCP call that):
    a flow that writes memories (or a chat session) is not a search.

    Raises:
        ConfigError: No such flow.
        InputError: ``flow`` writes; the message lists the read-only flows.
    """
    if writes_memories(app, flow):
        choices = one_of(read_only_flows(app)).removeprefix("valid: ")
        raise InputError(Problem("flow", f"'{flow}' writes memories; search runs a read-only flow: {choices}"))


def variant(app: Runtime, flow: str, op_params: OpParams) -> CompiledFlow:
    """``flow`` compiled with the params of ``op_params`` over the app's (the app is not changed)."""
    base = app.flow(flow)  # an unknown or invalid flow fails as it would without params
    labels = {step.label for step in op_steps(base.root)}
    problems = [
        Problem(f"op_params.{label}", f"{unknown('op', label, labels)}: the ops of flow '{flow}'")
        for label in op_params
        if label not in labels
    ]
    if problems:
        raise InputError(problems)
    config = app.config.model_copy(deep=True)
    for label, params in op_params.items():
        entry = config.op.setdefault(label, OpEntry())
        entry.params = {**entry.params, **params}
    ops = {label: setting for label, setting in app.resolved.ops.items() if label not in op_params}
    resolved = dataclasses.replace(app.resolved, config=config, ops=ops)
    return compile_flow(flow, base.entry, resolved)
