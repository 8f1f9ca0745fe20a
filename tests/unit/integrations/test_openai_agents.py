"""``FlowmemSession`` under the real OpenAI Agents SDK: ``Runner.run`` of an ``Agent`` with ``session=``, driven
offline by :class:`~flowmem.testing.openai_agents.ScriptedModel`; items round-trip exactly, the history reaches the
model on the next run, and the user's words become long-term memories when the window flushes."""

from __future__ import annotations

import asyncio

import pytest

agents = pytest.importorskip("agents")

from agents import Agent, Runner, function_tool  # noqa: E402
from agents.memory import Session, SessionSettings  # noqa: E402

from flowmem.integrations.openai_agents import FlowmemSession, item_message, message_item  # noqa: E402
from flowmem.testing.openai_agents import ScriptedModel, ToolCall  # noqa: E402
from tests.unit.integrations import FAST, SMALL, MakeApp  # noqa: E402

agents.set_tracing_disabled(True)


@function_tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}, 24 C"


def test_a_run_stores_every_item_and_the_next_run_sees_them(make_app: MakeApp) -> None:
    async def main() -> None:
        async with make_app(FAST) as app:
            session = FlowmemSession("trip", app, user_id="alice")
            assert isinstance(session, Session)  # the SDK's runtime-checkable protocol
            model = ScriptedModel([ToolCall("get_weather", {"city": "Lisbon"}), "Sunny, 24 C.", "Rex, your dog."])
            agent = Agent(name="Assistant", model=model, tools=[get_weather])
            first = await Runner.run(agent, "I moved to Lisbon. What's the weather like?", session=session)
            assert first.final_output == "Sunny, 24 C."
            items = await session.get_items()
            assert items == first.to_input_list()  # user message, tool call, tool output, reply: exactly
            assert [i.get("type", "message") for i in items] == ["message", "function_call",
                                                                 "function_call_output", "message"]  # fmt: skip
            second = await Runner.run(agent, "My dog is called Rex. What's his name?", session=session)
            assert second.final_output == "Rex, your dog."
            assert model.inputs[-1][: len(items)] == items  # the history reached the model
            assert len(await session.get_items()) == len(items) + 2
            assert await session.get_items(limit=2) == (await session.get_items())[-2:]
            session.session_settings = SessionSettings(limit=1)
            assert len(await session.get_items()) == 1

            popped = await session.pop_item()
            assert popped == second.to_input_list()[-1]
            session.session_settings = None
            assert (await session.get_items())[-1] == second.to_input_list()[-2]
            await session.clear_session()
            assert await session.get_items() == []
            assert await session.pop_item() is None

    asyncio.run(main())


def test_the_window_flushes_the_users_words_to_long_term_memory(make_app: MakeApp) -> None:
    said = ["I moved to Lisbon last week.", "My dog is called Rex.", "I work as a nurse at the city hospital.",
            "I play the cello on Sundays.", "My sister Ana lives in Porto."]  # fmt: skip

    async def main() -> None:
        async with make_app([*FAST, *SMALL]) as app:
            session = FlowmemSession("s1", app, user_id="alice", token_limit=120)
            agent = Agent(name="Assistant", model=ScriptedModel(["Noted!"] * len(said)))
            for text in said:
                await Runner.run(agent, text, session=session)
            assert session.last is not None  # what the last add_items did (Runner adds input and output apart)
            assert (await app.memories.session("s1", user_id="alice")).flushed > 0
            memories = (await app.memories.list(user_id="alice", limit=None)).memories
            assert any("Lisbon" in m.content for m in memories)  # the oldest, flushed first
            assert not any("Noted" in m.content for m in memories)  # the assistant's words are not facts
            items = await session.get_items()
            assert items[0]["role"] == "system" and "Lisbon" in str(items[0]["content"])  # the rolling summary
            assert items[-1]["role"] == "assistant"
            found = await app.memories.search("where do I live?", user_id="alice")
            assert any("Lisbon" in m.content for m in found.memories)  # in any later session, too

    asyncio.run(main())


def test_items_become_messages_of_the_right_role() -> None:
    user = item_message({"role": "user", "content": [{"type": "input_text", "text": "hi there"}]}, "alice")
    assert (user.role, user.name, user.content) == ("user", "alice", "hi there")
    call = item_message({"type": "function_call", "name": "f", "arguments": '{"x": 1}', "call_id": "c1"}, "alice")
    assert (call.role, call.content) == ("tool", 'f({"x": 1})')
    output = item_message({"type": "function_call_output", "call_id": "c1", "output": "42"}, "alice")
    assert (output.role, output.content) == ("tool", "42")
    developer = item_message({"role": "developer", "content": "be brief"}, "alice")
    assert developer.role == "system" and message_item(developer) == {"role": "developer", "content": "be brief"}
