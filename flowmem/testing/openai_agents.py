"""A scripted model for the OpenAI Agents SDK: runs ``Runner.run`` offline (tests, the README's example).

```python
from agents import Agent
from flowmem.testing.openai_agents import ScriptedModel, ToolCall

model = ScriptedModel([ToolCall("get_weather", {"city": "Lisbon"}), "It is sunny in Lisbon."])
agent = Agent(name="Assistant", model=model, tools=[get_weather])
```

Each model call takes the next step of the script: a string is the assistant's reply, a :class:`ToolCall` a call of
one of the agent's tools (the Runner runs it and calls the model again). After the script, it says
``"(no more replies)"``. ``model.inputs`` keeps the input items of every call, so a test sees what history reached
the model.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from flowmem.integrations import requires

with requires("openai_agents", "openai-agents"):
    from agents import Model, ModelResponse, ModelSettings, ModelTracing, Tool, Usage
    from agents.agent_output import AgentOutputSchemaBase
    from agents.handoffs import Handoff
    from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText
    from openai.types.responses.response_prompt_param import ResponsePromptParam

__all__ = ["ScriptedModel", "ToolCall"]


@dataclass(frozen=True)
class ToolCall:
    """A step of the script: call the agent's tool ``name`` with ``arguments``."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


class ScriptedModel(Model):
    """Replies from a script, in order (see the module docstring).

    Args:
        script: The replies (``str``) and tool calls (:class:`ToolCall`), one per model call.
    """

    def __init__(self, script: Sequence[str | ToolCall]):
        self.script = list(script)
        self.calls = 0
        self.inputs: list[list[TResponseInputItem]] = []

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> ModelResponse:
        self.inputs.append([{"role": "user", "content": input}] if isinstance(input, str) else list(input))
        step = self.script[self.calls] if self.calls < len(self.script) else "(no more replies)"
        self.calls += 1
        output: TResponseOutputItem
        if isinstance(step, ToolCall):
            output = ResponseFunctionToolCall(
                type="function_call", name=step.name, arguments=json.dumps(step.arguments),
                call_id=f"call_{self.calls}", id=f"fc_{self.calls}",
            )  # fmt: skip
        else:
            text = ResponseOutputText(type="output_text", text=step, annotations=[])
            output = ResponseOutputMessage(
                type="message", id=f"msg_{self.calls}", role="assistant", status="completed", content=[text]
            )
        return ModelResponse(output=[output], usage=Usage(requests=1), response_id=None)

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        for _ in ():  # an async generator, as the interface declares, that fails on its first step
            yield _
        raise NotImplementedError("ScriptedModel does not stream: use Runner.run, not Runner.run_streamed")
