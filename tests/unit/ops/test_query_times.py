"""The query's time expressions are found once per run (set_query_op's ``query_times``), and read by the ops
that need them: the same times as each op finding them itself, and its own when its text is not the query."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from flowmem.timeexpr import extract_all
from flowmem.timeexpr import query as query_times
from flowmem.timeexpr.query import QueryTimes, times_in
from tests.unit.ops.conftest import NOW, Maker, mem, put, run

FLOW = (
    "set_query_op >> (extract_time_op | ((retrieve_memory_op | lexical_recall_op) >> recall_fuse_op"
    " >> semantic_rank_op)) >> fuse_rerank_op"
)


def test_times_in_uses_what_was_found_only_for_the_same_text_and_time() -> None:
    known = QueryTimes.of("what did I do last weekend?", NOW)
    assert [t.expression for t in known.found] == ["last weekend"]
    assert times_in("what did I do last weekend?", NOW, known) == extract_all("what did I do last weekend?", NOW)
    assert times_in("what did I do yesterday?", NOW, known) == extract_all("what did I do yesterday?", NOW)
    later = datetime(2024, 7, 1, 9)
    assert times_in("what did I do last weekend?", later, known) == extract_all("what did I do last weekend?", later)
    assert times_in("where do I live?", NOW, None) == []


def test_the_retrieval_flow_finds_the_query_times_once(make_app: Maker, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(f"flow.t.flow_content={FLOW}", "op.retrieve_memory_op.params.time_recall_k=5")
    put(app, [mem("hike", "went hiking with Ana", memory_type="conversation", said=datetime(2024, 6, 8, 10)),
              mem("cook", "cooked a curry", memory_type="conversation", said=datetime(2024, 5, 1, 10))])  # fmt: skip
    before = run(app, "t", query="who went hiking with me last weekend?")
    calls: list[Any] = []

    def counted(text: str, now: datetime) -> Any:
        calls.append(text)
        return extract_all(text, now)

    monkeypatch.setattr(query_times, "extract_all", counted)
    after = run(app, "t", query="who went hiking with me last weekend?")
    # set_query_op's only: retrieve_memory_op, lexical_recall_op and semantic_rank_op read it
    assert calls == ["who went hiking with me last weekend?"]
    assert [(m.memory_id, m.scores, m.explain) for m in after.memories] == [
        (m.memory_id, m.scores, m.explain) for m in before.memories
    ]
    assert after.memories[0].memory_id == "hike" and after.memories[0].scores.get("time_recall") == 1.0
