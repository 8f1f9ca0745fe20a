"""speaker_match_op: what the person a question names said comes ahead of what was said to them."""

from __future__ import annotations

from flowmem.ops.speaker_match_op import names

from flowmem.cli.explain import explain
from flowmem.schema.memory import Memory
from tests.unit.ops.conftest import Maker, ids, mem, put, run

WITH = "set_query_op >> retrieve_memory_op >> speaker_match_op >> fuse_rerank_op"
WITHOUT = "set_query_op >> retrieve_memory_op >> fuse_rerank_op"


def said(memory_id: str, speaker: str, text: str) -> Memory:
    return mem(memory_id, f"{speaker}: {text}", memory_type="conversation", metadata={"speaker": speaker})


CHAT = [
    said("c1", "Caroline", "Melanie, you should read a book about painting, it is lovely"),
    said("c2", "Caroline", "I read a book about painting and art history last month"),
    said("m1", "Melanie", "I read a book about painting last week, Charlotte's Web next"),
    said("m2", "Melanie", "We went camping at the lake"),
]


def app_with(make_app: Maker, flow: str, *overrides: str) -> object:
    return make_app(f"flow.personal_retrieve.flow_content={flow}", "op.fuse_rerank_op.params.fuse_score_threshold=-1",
                    "op.retrieve_memory_op.params.top_k=4", *overrides)  # fmt: skip


def test_the_named_speakers_words_come_first_and_are_explained(make_app: Maker) -> None:
    app = app_with(make_app, WITH, "op.speaker_match_op.params.ratio=3")
    put(app, CHAT)  # type: ignore[arg-type]
    response = run(app, query="What book has Melanie read?")  # type: ignore[arg-type]
    order = ids(response)
    assert order.index("m1") < order.index("c1") and order.index("m1") < order.index("c2")
    first = response.memories[0]
    assert first.scores["speaker_ratio"] == 3 and first.score_sources["speaker_ratio"] == "speaker_match_op"
    assert "said by the person the query names" in explain(response)
    assert all("speaker_ratio" not in m.scores for m in response.memories if m.metadata["speaker"] == "Caroline")


def test_no_speaker_named_or_every_speaker_named_changes_nothing(make_app: Maker) -> None:
    plain = app_with(make_app, WITHOUT)
    put(plain, CHAT)  # type: ignore[arg-type]
    app = app_with(make_app, WITH, "op.speaker_match_op.params.ratio=3")
    put(app, CHAT)  # type: ignore[arg-type]
    for query in ("what book did someone read?", "What did Caroline and Melanie both read?"):
        assert ids(run(app, query=query)) == ids(run(plain, query=query))  # type: ignore[arg-type]
        assert all("speaker_ratio" not in m.scores for m in run(app, query=query).memories)  # type: ignore[arg-type]


def test_names_match_whole_words_and_unspaced_scripts() -> None:
    assert names("What has Jon painted?", "Jon")
    assert not names("What has Jonathan painted?", "Jon")
    assert names("what has jon painted", "Jon")
    assert names("小明最近读了什么书？", "小明")


def test_without_the_op_the_other_speakers_words_win_here(make_app: Maker) -> None:
    # Guards the first test: on this chat plain recall ranks one of Caroline's turns above Melanie's answer.
    plain = app_with(make_app, WITHOUT)
    put(plain, CHAT)  # type: ignore[arg-type]
    order = ids(run(plain, query="What book has Melanie read?"))  # type: ignore[arg-type]
    assert min(order.index("c1"), order.index("c2")) < order.index("m1")
