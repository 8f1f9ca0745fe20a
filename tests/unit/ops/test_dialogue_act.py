"""dialogue_act_op: turns that tell come ahead of turns that only ask or talk about the listener."""

from __future__ import annotations

import math

import pytest
from flowmem.ops.dialogue_act_op import dialogue_act

from flowmem.cli.explain import explain
from flowmem.schema.memory import Memory
from flowmem.scoring.priors import spread
from tests.unit.ops.conftest import Maker, ids, mem, put, run

WITH = "set_query_op >> retrieve_memory_op >> dialogue_act_op >> fuse_rerank_op"
WITHOUT = "set_query_op >> retrieve_memory_op >> fuse_rerank_op"
QUERY = "What book did Melanie read last week?"


def said(memory_id: str, speaker: str, text: str, memory_type: str = "conversation") -> Memory:
    return mem(memory_id, f"{speaker}: {text}", memory_type=memory_type, metadata={"speaker": speaker})


CHAT = [
    said("ask", "Melanie", "Oh! What book did you read last week?"),
    said("you", "Melanie", "Your book last week was great, you read so much"),
    said("tell", "Melanie", "I read Charlotte's Web, lovely"),
    said("other", "Melanie", "We went camping at the lake"),
]


def app_with(make_app: Maker, flow: str, *overrides: str) -> object:
    return make_app(f"flow.personal_retrieve.flow_content={flow}", "op.fuse_rerank_op.params.fuse_score_threshold=-1",
                    "op.retrieve_memory_op.params.top_k=4", *overrides)  # fmt: skip


def test_acts_of_english_and_chinese_turns() -> None:
    assert dialogue_act("Cool! What did it look like?") == "question"
    assert dialogue_act("Wow, Mel! Did you see that band?") == "question"
    assert dialogue_act("You're doing something amazing! Your kids are lucky.") == "addressed"
    assert dialogue_act("You\u2019re great, your art rocks") == "addressed"  # a curly apostrophe
    assert dialogue_act("I signed up for a pottery class yesterday.") == "statement"
    # A statement with a question at its end still tells something.
    assert dialogue_act("Wow! I just signed up for a pottery class yesterday. What about you?") == "statement"
    assert dialogue_act("You know, I love it and my kids love it too") == "statement"  # more first person
    assert dialogue_act("好啊！你去哪儿了？") == "question"
    assert dialogue_act("你做得很好，你的孩子很幸运。") == "addressed"
    assert dialogue_act("我昨天和你说的那本书，我读完了。") == "statement"


def test_without_the_op_the_question_and_the_address_rank_above_the_statement(make_app: Maker) -> None:
    # Guards the next test: plain recall puts the turns that echo the query's words above the answer.
    plain = app_with(make_app, WITHOUT)
    put(plain, CHAT)  # type: ignore[arg-type]
    order = ids(run(plain, query=QUERY))  # type: ignore[arg-type]
    assert order.index("ask") < order.index("tell") and order.index("you") < order.index("tell")


def test_the_statement_comes_first_and_the_shift_is_explained(make_app: Maker) -> None:
    plain = app_with(make_app, WITHOUT)
    put(plain, CHAT)  # type: ignore[arg-type]
    bases = {m.memory_id: m.scores["recall"] for m in run(plain, query=QUERY).memories}  # type: ignore[arg-type]
    app = app_with(make_app, WITH, "op.dialogue_act_op.params.ratio=0.1")
    put(app, CHAT)  # type: ignore[arg-type]
    response = run(app, query=QUERY)  # type: ignore[arg-type]
    assert ids(response)[0] == "tell"
    by_id = {m.memory_id: m for m in response.memories}
    sigma = spread(list(bases.values()))
    for moved in ("ask", "you"):
        memory = by_id[moved]
        assert memory.scores["dialogue_act_shift"] == pytest.approx(sigma * math.log(0.1))
        assert memory.score_sources["dialogue_act_shift"] == "dialogue_act_op"
        assert memory.scores["rank"] == pytest.approx(bases[moved] + sigma * math.log(0.1))
    assert "dialogue_act_shift" not in by_id["tell"].scores and "dialogue_act_shift" not in by_id["other"].scores
    text = explain(response)
    assert "only asks: states nothing" in text and "speaks mostly to the listener" in text


def test_memories_of_other_types_are_left_alone(make_app: Maker) -> None:
    observations = [said(m.memory_id, "Melanie", m.content.split(": ", 1)[1], "observation") for m in CHAT]
    plain = app_with(make_app, WITHOUT)
    put(plain, observations)  # type: ignore[arg-type]
    app = app_with(make_app, WITH, "op.dialogue_act_op.params.ratio=0.1")
    put(app, observations)  # type: ignore[arg-type]
    response = run(app, query=QUERY)  # type: ignore[arg-type]
    assert ids(response) == ids(run(plain, query=QUERY))  # type: ignore[arg-type]
    assert all("dialogue_act_shift" not in m.scores for m in response.memories)
