"""flowmem.assembly: filling a token budget by priority, system vs user insertion, never over the limit."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowmem.assembly import MIN_TOKEN_LIMIT, Assembly, assemble
from flowmem.assembly.blocks import DEFAULT_BLOCKS, BlockSpec, render_items
from flowmem.core.tokens import count_message_tokens, count_tokens

STATIC = BlockSpec(name="static", source="system_prompt", priority=0)
FACTS = BlockSpec(name="facts", source="facts", priority=1, heading="Facts:")
MEMORIES = BlockSpec(name="memories", source="memories", priority=2, heading="Memories:")
SUMMARY = BlockSpec(name="summary", source="summary", priority=3, heading="Summary:")


def facts(n: int, word: str = "fact") -> list[str]:
    return render_items("facts", [f"Alice {word} number {i} is about hiking in the Alps" for i in range(n)])


def chat(n: int) -> list[dict[str, str]]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " * 8} for i in range(n)]


def outcome(result: Assembly, name: str) -> tuple[str, int]:
    block = next(b for b in result.blocks if b.name == name)
    return block.status, block.items_kept


def test_lowest_priority_is_truncated_first_then_the_next() -> None:
    blocks = [(STATIC, ["You are Alice's assistant."]), (FACTS, facts(10)), (MEMORIES, facts(10, "memory"))]
    full = assemble(blocks=blocks, history=[], query="hi", token_limit=2000)
    assert [outcome(full, n) for n in ("static", "facts", "memories")] == [("kept", 1), ("kept", 10), ("kept", 10)]
    # A budget that holds the static text, all the facts and a few memories: the memories lose first.
    room = next(b.tokens for b in full.blocks if b.name == "memories")
    fewer = assemble(blocks=blocks, history=[], query="hi", token_limit=full.tokens - room // 2)
    assert outcome(fewer, "static") == ("kept", 1)
    assert outcome(fewer, "facts") == ("kept", 10)
    status, kept = outcome(fewer, "memories")
    assert status == "truncated" and 0 < kept < 10
    assert fewer.messages[0]["content"].count("memory number") == kept
    assert "memory number 0 " in fewer.messages[0]["content"]  # the head stays, the tail goes
    # Tighter still: the memories are cut whole, then the facts lose their tail.
    tight = assemble(blocks=blocks, history=[], query="hi", token_limit=full.tokens - room - 40)
    assert outcome(tight, "memories") == ("cut", 0)
    assert outcome(tight, "facts")[0] == "truncated"
    assert outcome(tight, "static") == ("kept", 1)


def test_priority_decides_not_the_order_of_the_list() -> None:
    low_first = [(MEMORIES, facts(10, "memory")), (FACTS, facts(10))]
    result = assemble(blocks=low_first, history=[], query="hi", token_limit=100)
    assert outcome(result, "facts")[0] == "truncated"
    assert outcome(result, "memories") == ("cut", 0)


def test_max_tokens_caps_a_block_even_with_room_left() -> None:
    capped = FACTS.model_copy(update={"max_tokens": 40})
    result = assemble(blocks=[(capped, facts(10))], history=[], query="hi", token_limit=4000)
    block = result.blocks[0]
    assert block.status == "truncated" and block.tokens <= 40
    assert "max_tokens 40" in block.why


def test_a_text_block_is_cut_at_a_token_boundary() -> None:
    summary = "They talked about Berlin, hiking and tea. " * 40
    result = assemble(blocks=[(SUMMARY, render_items("summary", summary))], history=[], query="hi", token_limit=120)
    block = result.blocks[0]
    assert block.status == "truncated" and block.items_kept == 1
    text = result.messages[0]["content"].removeprefix("Summary:\n")
    assert summary.startswith(text) and len(text) < len(summary)
    assert result.tokens <= 120


def test_system_insertion_puts_blocks_in_a_leading_system_message() -> None:
    result = assemble(
        blocks=[(STATIC, ["Be brief."]), (FACTS, facts(2))], history=chat(2), query="Where to hike?", token_limit=1000
    )
    roles = [m["role"] for m in result.messages]
    assert roles == ["system", "user", "assistant", "user"]
    assert result.messages[0]["content"].startswith("Be brief.\n\nFacts:\n- Alice fact number 0")
    assert result.messages[-1] == {"role": "user", "content": "Where to hike?"}


def test_user_insertion_puts_blocks_into_the_new_user_message() -> None:
    result = assemble(
        blocks=[(STATIC, ["Be brief."]), (FACTS, facts(2))],
        history=chat(2),
        query="Where to hike?",
        token_limit=1000,
        insert_method="user",
    )
    assert [m["role"] for m in result.messages] == ["user", "assistant", "user"]
    last = result.messages[-1]["content"]
    assert last.startswith("<memory>\nBe brief.\n\nFacts:\n") and last.endswith("</memory>\n\nWhere to hike?")
    # Without a new message: into the latest user message of the history.
    no_query = assemble(blocks=[(FACTS, facts(2))], history=chat(3), query=None, token_limit=1000, insert_method="user")
    assert no_query.messages[-1]["content"].startswith("<memory>\nFacts:") and no_query.messages[-1]["role"] == "user"


def test_history_is_newest_first_without_holes_and_gets_what_blocks_leave() -> None:
    history = chat(40)
    alone = assemble(blocks=[], history=history, query="hi", token_limit=300, history_ratio=0.5)
    # No blocks: the history takes its half, then the rest too.
    assert alone.history.kept > 0 and alone.messages[:-1] == history[-alone.history.kept :]
    assert alone.tokens <= 300 and alone.tokens + 30 > 300
    with_facts = assemble(blocks=[(FACTS, facts(40))], history=history, query="hi", token_limit=300)
    assert 0 < with_facts.history.kept < alone.history.kept
    assert with_facts.messages[1:-1] == history[-with_facts.history.kept :]
    assert "did not fit" in with_facts.history.why


def test_the_new_message_is_sent_once_and_tool_messages_are_left_out() -> None:
    history = [*chat(2), {"role": "tool", "content": "42"}, {"role": "user", "content": "Where to hike?"}]
    result = assemble(blocks=[], history=history, query="Where to hike?", token_limit=500)
    assert [m["content"] for m in result.messages].count("Where to hike?") == 1
    assert all(m["role"] != "tool" for m in result.messages)
    assert result.history.skipped == 1


def test_a_new_message_over_the_whole_budget_is_cut_to_fit() -> None:
    query = "Tell me everything about my trips. " * 100
    result = assemble(blocks=[(FACTS, facts(5))], history=chat(4), query=query, token_limit=64)
    assert result.query_truncated and result.tokens <= 64
    assert query.startswith(result.messages[-1]["content"])


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError, match=f"at least {MIN_TOKEN_LIMIT}"):
        assemble(blocks=[], history=[], query="hi", token_limit=MIN_TOKEN_LIMIT - 1)
    with pytest.raises(ValueError, match="between 0 and 1"):
        assemble(blocks=[], history=[], query="hi", token_limit=100, history_ratio=1.5)


WORDS = st.sampled_from(["tea", "hiking", "Berlin", "我", "周末", "🙂", "\n", "  ", "3.14", "<|endoftext|>", "Alice's"])
TEXT = st.lists(WORDS, max_size=30).map(" ".join)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    history=st.lists(
        st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system", "tool"]), "content": TEXT}),
        max_size=25,
    ),
    block_items=st.lists(st.lists(TEXT, max_size=8), min_size=6, max_size=6),
    priorities=st.lists(st.integers(0, 5), min_size=6, max_size=6),
    caps=st.lists(st.one_of(st.none(), st.integers(1, 200)), min_size=6, max_size=6),
    query=st.one_of(st.none(), TEXT),
    token_limit=st.integers(MIN_TOKEN_LIMIT, 700),
    insert_method=st.sampled_from(["system", "user"]),
    history_ratio=st.floats(0.0, 1.0),
    tokenizer=st.sampled_from(["o200k_base", "cl100k_base", "estimate"]),
)
def test_the_assembled_context_never_exceeds_token_limit(
    history: list[dict[str, str]],
    block_items: list[list[str]],
    priorities: list[int],
    caps: list[int | None],
    query: str | None,
    token_limit: int,
    insert_method: str,
    history_ratio: float,
    tokenizer: str,
) -> None:
    blocks = []
    for spec, items, priority, cap in zip(DEFAULT_BLOCKS, block_items, priorities, caps, strict=True):
        spec = spec.model_copy(update={"priority": priority, "max_tokens": cap})
        value = " ".join(items) if spec.source in ("system_prompt", "summary") else items
        blocks.append((spec, render_items(spec.source, value)))
    result = assemble(
        blocks=blocks,
        history=history,
        query=query,
        token_limit=token_limit,
        insert_method=insert_method,  # type: ignore[arg-type]
        history_ratio=history_ratio,
        tokenizer=tokenizer,
    )
    assert count_message_tokens(result.messages, tokenizer) <= token_limit
    assert result.tokens == count_message_tokens(result.messages, tokenizer)
    if query is not None:  # the new message is last, whole unless it alone was over the limit
        assert result.messages[-1]["role"] == "user"
        assert result.messages[-1]["content"].endswith(query) or result.query_truncated
    # The kept history is the newest usable messages, without holes.
    usable = [m for m in history if m["role"] != "tool"]
    if query is not None and usable and usable[-1]["role"] == "user" and usable[-1]["content"].strip() == query.strip():
        usable.pop()
    body = result.messages[:-1] if query is not None else list(result.messages)
    placed = any(block.items_kept for block in result.blocks)
    if placed and result.insert_method == "system":
        body = body[1:]
    if query is not None or result.insert_method == "system":
        assert body == usable[len(usable) - len(body) :]
    for block in result.blocks:
        assert block.status in ("kept", "truncated", "cut", "empty")
        if block.items_total == 0:
            assert block.status == "empty"


def test_counts_in_the_report_match_the_tokenizer() -> None:
    result = assemble(blocks=[(STATIC, ["Be brief."])], history=[], query="Where to hike?", token_limit=100)
    assert result.query_tokens == count_tokens("Where to hike?")
    assert result.trace()["blocks"][0]["tokens"] >= count_tokens("Be brief.")
