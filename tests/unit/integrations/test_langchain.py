"""The LangChain adapters under the real langchain-core, offline on the hash embedder: ``FlowmemRetriever`` passes
LangChain's own standard retriever tests (langchain-tests); ``FlowmemChatMessageHistory`` (langchain-tests has no
chat-history suite) keeps messages exactly, sync and async, and flushes the user's words to long-term memory; both
run inside real runnables (``RunnableWithMessageHistory`` around a fake chat model, an LCEL retrieval chain)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.documents import Document
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompt_values import PromptValue
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langchain_core.runnables.history import RunnableWithMessageHistory

from flowmem.integrations.langchain import (
    MESSAGE_KEY,
    FlowmemChatMessageHistory,
    FlowmemRetriever,
    flowmem_message,
    langchain_message,
)
from flowmem.schema.memory import Message
from tests.unit.integrations import FAST, SMALL, MakeApp

if TYPE_CHECKING:
    from flowmem.integrations import AnyApp

FACTS = ["Tofu curry is my favourite vegetarian dish", "I play the cello in an orchestra",
         "I eat oatmeal for breakfast", "My sister Ana lives in Porto", "I eat salad for lunch",
         "I eat fish on Fridays"]  # fmt: skip
TURN: list[BaseMessage] = [
    HumanMessage("What's the weather in Lisbon?", name="alice", id="m1"),
    AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Lisbon"}, "id": "c1"}]),
    ToolMessage("Sunny, 24 C", tool_call_id="c1"),
    AIMessage("Sunny, 24 C.", additional_kwargs={"refusal": None}, response_metadata={"model": "fake"}),
]


@pytest.fixture
def app(make_app: MakeApp) -> Iterator[AnyApp]:
    with make_app(FAST) as opened:
        yield opened


@pytest.fixture(scope="module")
def seeded(make_app: MakeApp) -> Iterator[AnyApp]:
    with make_app(FAST) as opened:
        for fact in FACTS:
            opened.memories.sync.add([{"role": "user", "content": fact}], user_id="alice")
        yield opened


# -- the retriever: LangChain's standard tests --------------------------------------------------------
langchain_tests = pytest.importorskip("langchain_tests.integration_tests")


class TestFlowmemRetrieverStandard(langchain_tests.RetrieversIntegrationTests):
    """langchain-tests' retriever suite: ``k`` in the constructor and per call, sync and async Documents."""

    seeded_app: AnyApp | None = None

    @pytest.fixture(autouse=True)
    def _seeded(self, seeded: AnyApp) -> None:
        type(self).seeded_app = seeded

    @property
    def retriever_constructor(self) -> type[FlowmemRetriever]:
        return FlowmemRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"app": self.seeded_app, "user_id": "alice"}

    @property
    def retriever_query_example(self) -> str:
        return "what do I eat?"

    # pytest-asyncio (strict) runs only async tests marked for it: mark the suite's one, as LangChain's repos do
    # with asyncio_mode=auto; its body is the standard test's own.
    test_ainvoke_returns_documents = pytest.mark.asyncio(
        langchain_tests.RetrieversIntegrationTests.test_ainvoke_returns_documents
    )


def test_documents_carry_the_memorys_id_type_time_and_score(seeded: AnyApp) -> None:
    retriever = FlowmemRetriever(app=seeded, user_id="alice", k=2)
    docs = retriever.invoke("vegetarian tofu curry")
    assert len(docs) == 2 and docs[0].page_content == FACTS[0]
    memory = seeded.memories.sync.get(docs[0].metadata["id"])
    assert docs[0].id == memory.memory_id
    assert docs[0].metadata["type"] == memory.memory_type == "conversation"
    assert docs[0].metadata["time"] == memory.message_time.isoformat()  # type: ignore[union-attr]
    assert docs[0].metadata["score"] >= docs[1].metadata["score"] > 0
    assert asyncio.run(retriever.ainvoke("vegetarian tofu curry")) == docs
    assert FlowmemRetriever(app=seeded, user_id="bob").invoke("vegetarian tofu curry") == []  # scoped by user


# -- the chat message history -------------------------------------------------------------------------
def test_messages_round_trip_exactly_and_clear(app: AnyApp) -> None:
    history = FlowmemChatMessageHistory("trip", app, user_id="alice")
    assert isinstance(history, BaseChatMessageHistory)
    assert history.messages == []
    history.add_messages(TURN)
    assert history.messages == TURN  # tool calls, tool results, ids, names, kwargs: exactly
    history.add_user_message("And tomorrow?")
    history.add_ai_message("Rain.")
    assert history.messages[-2:] == [HumanMessage("And tomorrow?"), AIMessage("Rain.")]
    assert FlowmemChatMessageHistory("trip", app, user_id="bob").messages == []  # another user's session
    assert FlowmemChatMessageHistory("other", app, user_id="alice").messages == []
    [stored] = [m for m in app.memories.sync.session("trip", user_id="alice").messages if m.role == "tool"][:1]
    assert stored.content == "Sunny, 24 C"  # flowmem's own view: words beside the kept message
    history.clear()
    assert history.messages == []
    history.clear()  # clearing what is gone is no error


def test_async_calls(make_app: MakeApp) -> None:
    async def main() -> None:
        async with make_app(FAST) as app:
            history = FlowmemChatMessageHistory("trip", app, user_id="alice")
            assert await history.aget_messages() == []
            await history.aadd_messages(TURN)
            await history.aadd_messages([])
            assert await history.aget_messages() == TURN
            await history.aclear()
            assert await history.aget_messages() == []

    asyncio.run(main())


def test_the_window_flushes_the_users_words_to_long_term_memory(make_app: MakeApp) -> None:
    said = ["I moved to Lisbon last week.", "My dog is called Rex.", "I work as a nurse at the city hospital.",
            "I play the cello on Sundays.", "My sister Ana lives in Porto."]  # fmt: skip
    with make_app([*FAST, *SMALL]) as app:
        history = FlowmemChatMessageHistory("s1", app, user_id="alice", token_limit=120)
        for text in said:
            history.add_messages([HumanMessage(text), AIMessage("Noted!")])
        assert history.last is not None and app.memories.sync.session("s1", user_id="alice").flushed > 0
        memories = app.memories.sync.list(user_id="alice", limit=None).memories
        assert any("Lisbon" in m.content for m in memories)  # the oldest, flushed first
        assert not any("Noted" in m.content for m in memories)  # the assistant's words are not facts
        messages = history.messages
        assert isinstance(messages[0], SystemMessage) and "Lisbon" in messages[0].text  # the rolling summary
        assert messages[-1] == AIMessage("Noted!")
        docs = FlowmemRetriever(app=app, user_id="alice").invoke("where did I move to?")
        assert any("Lisbon" in d.page_content for d in docs)  # found in any later session


def test_messages_become_flowmem_messages_of_the_right_role() -> None:
    user = flowmem_message(HumanMessage("hi there"), "alice")
    assert (user.role, user.name, user.content) == ("user", "alice", "hi there")
    assert flowmem_message(HumanMessage("hi", name="bob"), "alice").name == "bob"  # another speaker stays himself
    call = flowmem_message(TURN[1], "alice")
    assert (call.role, call.name, call.content) == ("assistant", "assistant", 'get_weather({"city": "Lisbon"})')
    assert (flowmem_message(TURN[2], "alice").role, flowmem_message(SystemMessage("be brief"), "alice").role) == (
        "tool", "system",
    )  # fmt: skip
    assert flowmem_message(ChatMessage(role="assistant", content="ok"), "alice").role == "assistant"
    assert MESSAGE_KEY in user.metadata
    # what flowmem wrote itself (no kept message) comes back as a message of its role
    assert langchain_message(Message(role="user", content="hello")) == HumanMessage("hello")
    assert langchain_message(Message(role="tool", content="42")) == ChatMessage(role="tool", content="42")


# -- inside runnables ---------------------------------------------------------------------------------
class Spy:
    """Records the prompts a chain hands its model."""

    def __init__(self) -> None:
        self.prompts: list[PromptValue] = []

    def __call__(self, prompt: PromptValue) -> PromptValue:
        self.prompts.append(prompt)
        return prompt


def test_runnable_with_message_history_keeps_the_conversation_in_flowmem(app: AnyApp) -> None:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "You are helpful."), MessagesPlaceholder("history"), ("human", "{question}")]
    )
    model = GenericFakeChatModel(messages=iter(["Noted, Lisbon.", "You live in Lisbon.", "Rex."]))
    spy = Spy()
    chain = RunnableWithMessageHistory(
        prompt | RunnableLambda(spy) | model,  # type: ignore[arg-type]
        lambda session_id: FlowmemChatMessageHistory(session_id, app, user_id="alice"),
        input_messages_key="question",
        history_messages_key="history",
    )
    config: Any = {"configurable": {"session_id": "chat-1"}}
    assert chain.invoke({"question": "I live in Lisbon."}, config=config).content == "Noted, Lisbon."
    assert chain.invoke({"question": "Where do I live?"}, config=config).content == "You live in Lisbon."
    seen = spy.prompts[-1].to_messages()
    assert [m.text for m in seen[1:3]] == ["I live in Lisbon.", "Noted, Lisbon."]  # the history reached the model

    async def ask() -> BaseMessage:
        return await chain.ainvoke({"question": "My dog is Rex. His name?"}, config=config)

    assert asyncio.run(ask()).content == "Rex."
    stored = FlowmemChatMessageHistory("chat-1", app, user_id="alice").messages
    assert [m.type for m in stored] == ["human", "ai"] * 3 and stored[-2].text == "My dog is Rex. His name?"


def test_the_retriever_in_an_lcel_chain(seeded: AnyApp) -> None:
    prompt = ChatPromptTemplate.from_messages([("system", "Known about the user:\n{context}"), ("human", "{question}")])
    spy = Spy()

    def lines(docs: list[Document]) -> str:
        return "\n".join(f"- {d.page_content}" for d in docs)

    retriever = FlowmemRetriever(app=seeded, user_id="alice", k=2)
    chain = (
        {"context": retriever | lines, "question": RunnablePassthrough()}
        | prompt
        | RunnableLambda(spy)
        | GenericFakeChatModel(messages=iter(["Tofu curry.", "Tofu curry."]))
        | StrOutputParser()
    )
    assert chain.invoke("vegetarian tofu curry for dinner?") == "Tofu curry."
    assert f"- {FACTS[0]}" in spy.prompts[-1].to_messages()[0].text
    assert asyncio.run(chain.ainvoke("vegetarian tofu curry for dinner?")) == "Tofu curry."
    assert spy.prompts[-1] == spy.prompts[-2]
