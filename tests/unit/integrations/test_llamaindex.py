"""The LlamaIndex adapters under the real llama-index-core, offline (hash embedder, MockLLM, no network: LlamaIndex
ships its tokenizer and NLTK caches, and these tests refuse any connection). ``FlowmemMemoryBlock`` is a block of
``Memory`` (recalled lines in the prompt, truncation by priority, ejected messages written to flowmem);
``FlowmemChatStore`` keeps messages exactly, sync and async, under ``ChatMemoryBuffer`` and chat engines, and flushes
the user's words to long-term memory."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.base.llms.types import TextBlock, ToolCallBlock
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms import ChatMessage, MessageRole, MockLLM
from llama_index.core.memory import ChatMemoryBuffer, Memory
from llama_index.core.storage.chat_store import BaseChatStore

from flowmem.core.errors import InputError
from flowmem.integrations.llamaindex import (
    MESSAGE_KEY,
    FlowmemChatStore,
    FlowmemMemoryBlock,
    flowmem_message,
    llamaindex_message,
)
from flowmem.schema.memory import Message
from tests.unit.integrations import FAST, SMALL, MakeApp

if TYPE_CHECKING:
    from flowmem.integrations import AnyApp

FACTS = ["Tofu curry is my favourite vegetarian dish", "I play the cello in an orchestra",
         "I eat salad for lunch", "My sister Ana lives in Porto"]  # fmt: skip
SAID_AT = "2025-03-15T10:00:00"  # a Saturday
TURN = [
    ChatMessage(role="user", content="What's the weather in Lisbon?", additional_kwargs={"name": "alice"}),
    ChatMessage(
        role="assistant",
        blocks=[ToolCallBlock(tool_call_id="c1", tool_name="get_weather", tool_kwargs={"city": "Lisbon"})],
    ),
    ChatMessage(role="tool", content="Sunny, 24 C", additional_kwargs={"tool_call_id": "c1"}),
    ChatMessage(role="assistant", content="Sunny, 24 C."),
]


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection LlamaIndex (or anything else) tries is a failure of the test — but to the loopback
    ``flowmem serve`` of the remote runs."""
    connect, getaddrinfo = socket.socket.connect, socket.getaddrinfo

    def loopback_only(real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            address = args[1] if real is connect else args[0]
            host = address[0] if isinstance(address, tuple) else address
            if host not in ("127.0.0.1", b"127.0.0.1"):
                raise AssertionError(f"a network call was tried: {args[:2]}")
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(socket.socket, "connect", loopback_only(connect))
    monkeypatch.setattr(socket, "getaddrinfo", loopback_only(getaddrinfo))


@pytest.fixture
def app(make_app: MakeApp) -> Iterator[AnyApp]:
    with make_app(FAST) as opened:
        for fact in FACTS:
            # said at a fixed time: the recalled lines carry it, and a weekday's name changes their token count
            opened.memories.sync.add([{"role": "user", "content": fact, "time_created": SAID_AT}], user_id="alice")
        yield opened


# -- the memory block ---------------------------------------------------------------------------------
def test_memory_puts_what_flowmem_recalls_for_the_latest_user_message_in_the_prompt(app: AnyApp) -> None:
    block = FlowmemMemoryBlock(app=app, user_id="alice", top_k=2)
    memory = Memory.from_defaults(session_id="s1", memory_blocks=[block])
    memory.put(ChatMessage(role="user", content="Which vegetarian dish do I like?"))
    system, user = memory.get()
    assert system.role == MessageRole.SYSTEM and user.content == "Which vegetarian dish do I like?"
    assert "<flowmem>" in (system.content or "") and f"] {FACTS[0]}\n" in (system.content or "")
    assert (system.content or "").count("\n- [") == 2  # top_k lines, each with when it was said
    assert asyncio.run(block.aget([])) == ""  # no user message, no recall
    assert FlowmemMemoryBlock(app=app, user_id="bob").name == "flowmem"


def test_a_chat_engine_sends_the_recalled_memories_to_the_llm(app: AnyApp) -> None:
    memory = Memory.from_defaults(session_id="s1", memory_blocks=[FlowmemMemoryBlock(app=app, user_id="alice")])
    engine = SimpleChatEngine.from_defaults(llm=MockLLM(), memory=memory)
    reply = str(engine.chat("What vegetarian dish should I cook tonight?"))
    assert FACTS[0] in reply  # MockLLM answers with the prompt it was given: the memory reached the model


def test_priority_truncation_drops_the_lowest_ranked_memories_first(app: AnyApp) -> None:
    ranked = FlowmemMemoryBlock(app=app, user_id="alice", priority=1)
    content = asyncio.run(ranked.aget([ChatMessage(role="user", content="vegetarian dish")]))
    lines = content.splitlines()
    assert len(lines) >= 2 and FACTS[0] in lines[0]
    assert asyncio.run(ranked.atruncate(content, 1)) == "\n".join(lines[:-1])
    assert asyncio.run(ranked.atruncate(content, 10_000)) is None
    # inside Memory: a budget one token short of every line keeps the best ones of a priority-1 block (the budget is
    # counted from what was recalled: how many lines come back and how long they are is not this test's business)
    asked = ChatMessage(role="user", content="vegetarian dish")
    sizer = Memory.from_defaults(session_id="s2")
    budget = sizer._estimate_token_count(content) + sizer._estimate_token_count(asked) - 1
    memory = Memory.from_defaults(session_id="s2", memory_blocks=[ranked], token_limit=budget, token_flush_size=1)
    memory.put(asked)
    system = memory.get()[0].content or ""
    assert FACTS[0] in system and 1 <= system.count("\n- [") < len(lines)


def test_messages_ejected_from_the_queue_become_flowmem_memories(make_app: MakeApp) -> None:
    with make_app(FAST) as app:
        block = FlowmemMemoryBlock(app=app, user_id="alice")
        memory = Memory.from_defaults(
            session_id="s1", memory_blocks=[block], token_limit=80, chat_history_token_ratio=0.5, token_flush_size=20
        )
        said = ["I moved to Lisbon last week.", "My dog is called Rex.", "I work as a nurse at the city hospital.",
                "I play the cello on Sundays.", "My sister Ana lives in Porto."]  # fmt: skip
        for text in said:
            memory.put_messages([ChatMessage(role="user", content=text), ChatMessage(role="assistant", content="Ok!")])
        memories = app.memories.sync.list(user_id="alice", limit=None).memories
        assert any("Lisbon" in m.content for m in memories)  # the oldest turn left the queue for flowmem
        assert not any("Ok!" in m.content for m in memories)
        quiet = FlowmemMemoryBlock(app=app, user_id="bob", accept_short_term_memory=False)
        asyncio.run(quiet.aput([ChatMessage(role="user", content="I am Bob")], from_short_term_memory=True))
        asyncio.run(block.aput([ChatMessage(role="assistant", content="Hello")]))  # nothing of the user's: no write
        assert app.memories.sync.list(user_id="bob").memories == []


# -- the chat store -----------------------------------------------------------------------------------
def test_the_chat_store_contract(app: AnyApp) -> None:
    store = FlowmemChatStore(app=app, user_id="alice")
    assert isinstance(store, BaseChatStore)
    assert store.get_messages("trip") == [] and store.get_keys() == []
    store.set_messages("trip", TURN)
    assert store.get_messages("trip") == TURN  # tool call blocks, roles, additional kwargs: exactly
    store.add_message("trip", ChatMessage(role="user", content="And tomorrow?"))
    assert store.get_messages("trip")[-1].content == "And tomorrow?"
    assert store.get_keys() == ["trip"]
    assert FlowmemChatStore(app=app, user_id="bob").get_messages("trip") == []  # another user's sessions
    assert store.delete_last_message("trip") == ChatMessage(role="user", content="And tomorrow?")
    assert store.delete_message("trip", 3) == TURN[3]  # the newest, by index
    assert store.delete_message("trip", 99) is None
    with pytest.raises(InputError, match=r"newest message of a session only: 2 \(or delete_last_message\), not 0"):
        store.delete_message("trip", 0)
    store.set_messages("trip", TURN[:1])  # replaces the window
    assert store.get_messages("trip") == TURN[:1]
    assert store.delete_messages("trip") == TURN[:1]
    assert store.get_messages("trip") == [] and store.delete_messages("trip") is None
    assert store.get_keys() == []  # the sessions it wrote that still exist
    assert "app" not in store.to_dict()  # serialisable without the AnyApp


def test_the_chat_store_async_calls(make_app: MakeApp) -> None:
    async def main() -> None:
        async with make_app(FAST) as app:
            store = FlowmemChatStore(app=app, user_id="alice")
            await store.aset_messages("trip", TURN[:2])
            await store.async_add_message("trip", TURN[2])
            await store.aadd_messages("trip", TURN[3:])
            assert await store.aget_messages("trip") == TURN
            assert await store.adelete_message("trip", 3) == TURN[3]
            assert await store.adelete_last_message("trip") == TURN[2]
            assert await store.aget_keys() == ["trip"]
            assert await store.adelete_messages("trip") == TURN[:2]

    asyncio.run(main())


def test_a_chat_engine_keeps_its_history_in_flowmem_and_flushes_the_users_words(make_app: MakeApp) -> None:
    said = ["I moved to Lisbon last week.", "My dog is called Rex.", "I work as a nurse at the city hospital.",
            "I play the cello on Sundays."]  # fmt: skip
    with make_app([*FAST, *SMALL]) as app:
        store = FlowmemChatStore(app=app, user_id="alice", token_limit=120)
        buffer = ChatMemoryBuffer.from_defaults(chat_store=store, chat_store_key="chat-1", token_limit=3000)
        engine = SimpleChatEngine.from_defaults(llm=MockLLM(max_tokens=3), memory=buffer)
        for text in said:
            engine.chat(text)
        assert app.memories.sync.session("chat-1", user_id="alice").flushed > 0
        assert any("Lisbon" in m.content for m in app.memories.sync.list(user_id="alice", limit=None).memories)
        history = store.get_messages("chat-1")
        assert history[0].role == MessageRole.SYSTEM and "Lisbon" in (history[0].content or "")  # the summary
        assert history[-2].content == said[-1] and history[-1].role == MessageRole.ASSISTANT
        reply = str(SimpleChatEngine.from_defaults(llm=MockLLM(), memory=buffer).chat("What did I say?"))
        assert said[-1] in reply  # the window reached the model


def test_messages_become_flowmem_messages_of_the_right_role() -> None:
    user = flowmem_message(TURN[0], "alice")
    assert (user.role, user.name, user.content) == ("user", "alice", "What's the weather in Lisbon?")
    assert (flowmem_message(TURN[1], "alice").role, flowmem_message(TURN[1], "alice").content) == ("assistant", "")
    assert flowmem_message(TURN[2], "alice").role == "tool"
    assert flowmem_message(ChatMessage(role="developer", content="be brief"), "alice").role == "system"
    assert flowmem_message(ChatMessage(role="model", content="hi"), "alice").role == "assistant"
    assert MESSAGE_KEY in user.metadata
    written = llamaindex_message(Message(role="user", content="hello"))  # written by flowmem itself
    assert (written.role, written.blocks) == (MessageRole.USER, [TextBlock(text="hello")])
