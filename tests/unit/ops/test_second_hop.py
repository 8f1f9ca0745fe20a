"""second_hop_op: a second search with what the first memories name (offline words, or the LLM's follow-up query)."""

from __future__ import annotations

from typing import Any

import pytest
from flowmem.ops.second_hop_op import bridge_words

from flowmem.schema.memory import Memory
from tests.unit.ops.conftest import Maker, ids, mem, put, run

WITH = "set_query_op >> retrieve_memory_op >> second_hop_op >> fuse_rerank_op"
WITHOUT = "set_query_op >> retrieve_memory_op >> fuse_rerank_op"
QUERY = "What did my mentor recommend?"
MEMORIES = [
    mem("who", "My mentor is Sarah Lindqvist"),
    mem("advice", "Sarah Lindqvist says apply for the fellowship"),  # never says "mentor" or "recommend"
    mem("d1", "mentor meetings happen on zoom"),
    mem("d2", "I recommend the pasta at Luigi's"),
    mem("d3", "my brother is a mentor too"),
    mem("d4", "the garden needs watering"),
]


def app_with(make_app: Maker, flow: str, *overrides: str, llm: dict[str, Any] | None = None) -> Any:
    app = make_app(
        f"flow.personal_retrieve.flow_content={flow}",
        "op.retrieve_memory_op.params.top_k=3",
        "op.second_hop_op.params.top_k=3",
        "op.second_hop_op.params.top_n=1",
        "op.fuse_rerank_op.params.fuse_score_threshold=-1",
        *overrides,
        llm=llm,
    )
    put(app, MEMORIES)
    return app


def span(response: Any) -> Any:
    return next(s for s in response.trace.spans if s.op == "second_hop_op")


def test_offline_second_hop_finds_what_the_first_memory_names(make_app: Maker) -> None:
    assert "advice" not in ids(run(app_with(make_app, WITHOUT), query=QUERY, top_k=10))
    response = run(app_with(make_app, WITH), query=QUERY, top_k=10)
    assert ids(response)[0] == "who"
    found = {m.memory_id: m for m in response.memories}
    assert "advice" in found
    notes = span(response).notes
    assert notes["source"] == "words" and notes["second_query"].startswith(QUERY)
    assert {"sarah", "lindqvist"} <= set(notes["second_query"].lower().split())
    assert "advice" in notes["added"]
    advice = found["advice"]
    assert advice.score_sources["hop"] == "second_hop_op" and advice.scores["rank"] == advice.scores["hop"]
    assert "second hop" in advice.explain["hop"]


def test_merge_formula_places_results_between_the_weakest_and_best_candidate(make_app: Maker) -> None:
    response = run(app_with(make_app, WITH, "op.second_hop_op.params.pull=0.5"), query=QUERY, top_k=10)
    by_id = {m.memory_id: m for m in response.memories}
    recalled = [m for m in response.memories if m.score_sources.get("recall") == "retrieve_memory_op"]
    floor = min(m.scores["recall"] for m in recalled)
    best = max(m.scores["recall"] for m in recalled)
    hop_results = [m for m in response.memories if "hop_similarity" in m.scores]
    low = min(m.scores["hop_similarity"] for m in hop_results)
    high = max(m.scores["hop_similarity"] for m in hop_results)
    advice = by_id["advice"]
    share = (advice.scores["hop_similarity"] - low) / (high - low)
    assert advice.scores["hop"] == pytest.approx(floor + 0.5 * share * (best - floor))
    # a candidate is never lowered: the best hit keeps its recall score as its base
    assert "hop" not in by_id["who"].scores or by_id["who"].scores["hop"] > by_id["who"].scores["recall"]


def test_llm_follow_up_query_is_used(make_app: Maker) -> None:
    app = app_with(make_app, WITH, llm={"replies": ["Sarah Lindqvist fellowship"]})
    response = run(app, query=QUERY, top_k=10)
    notes = span(response).notes
    assert notes == {**notes, "source": "llm", "second_query": "Sarah Lindqvist fellowship"}
    assert "advice" in ids(response) and response.usage.llm_calls == 1 and not response.warnings


def test_llm_none_means_no_second_hop(make_app: Maker) -> None:
    response = run(app_with(make_app, WITH, llm={"replies": ["NONE"]}), query=QUERY, top_k=10)
    assert span(response).notes["second_query"] == "" and "advice" not in ids(response)


def test_llm_failure_degrades_to_the_offline_words_with_a_warning(make_app: Maker) -> None:
    response = run(app_with(make_app, WITH, llm={"fail": "LLM server down"}), query=QUERY, top_k=10)
    assert span(response).notes["source"] == "words"
    assert "advice" in ids(response)
    assert any("second_hop_op" in w and "LLM server down" in w and "hits' words" in w for w in response.warnings)


def test_bridge_words_prefer_what_few_candidates_say() -> None:
    def turn(text: str) -> Memory:
        return Memory(workspace_id="w", content=text)

    hit = turn("Caroline: my mentor Sarah said hello")
    pool = [hit, turn("Caroline: hello there"), turn("Caroline: hello again"), turn("Melanie: hi Caroline")]
    found = bridge_words("what did my mentor say", [hit], pool, limit=2)
    assert found == ["sarah", "said"]  # rarest first; the speaker's name and "hello" are everywhere
    assert bridge_words("what did my mentor say", [hit], pool, limit=10)[-1] == "caroline"


def test_offline_vectors_move_the_query_toward_the_hits(make_app: Maker) -> None:
    app = app_with(make_app, WITH, "op.second_hop_op.params.offline=vectors")
    response = run(app, query=QUERY, top_k=10)
    notes = span(response).notes
    assert notes["source"] == "vectors" and notes["second_query"] == f"{QUERY} (moved toward who)"
    assert "advice" in notes["added"] and "advice" in ids(response)
    weak = app_with(
        make_app, WITH, "op.second_hop_op.params.offline=vectors", "op.second_hop_op.params.feedback_weight=0"
    )
    assert "advice" not in ids(run(weak, query=QUERY, top_k=10))  # β = 0: the first search again, nothing new
