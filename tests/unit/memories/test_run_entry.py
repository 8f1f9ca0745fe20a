"""One way to run a flow: ``memories.flows.run_in_workspace`` (``POST /v1/flows/{name}/run``) runs through
:meth:`App.run_inputs` like :meth:`App.run`, so a closed app runs nothing, with or without changed op params."""

from __future__ import annotations

import asyncio

import pytest

from flowmem.app import App
from flowmem.core.errors import FlowmemError
from flowmem.memories.flows import run_in_workspace

FAST = ["embedding_model.default.backend=hash", "llm.default.backend=none", "vector_store.default.backend=memory"]
INPUTS = {"query": "tea", "user_id": "alice"}


def test_a_flow_runs_in_a_workspace_through_the_app_and_not_once_it_is_closed() -> None:
    async def main() -> None:
        app = App(overrides=FAST)
        response = await run_in_workspace(app, "personal_retrieve", INPUTS, workspace_id="w")
        assert response.memories == []
        changed = {"fuse_rerank_op": {"fuse_time_ratio": 3}}
        await run_in_workspace(app, "personal_retrieve", INPUTS, workspace_id="w", op_params=changed)
        await app.aclose()
        for op_params in (None, changed):
            with pytest.raises(FlowmemError, match="this App is closed"):
                await run_in_workspace(app, "personal_retrieve", INPUTS, workspace_id="w", op_params=op_params)

    asyncio.run(main())
