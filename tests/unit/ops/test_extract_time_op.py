"""extract_time_op: the gate, the LLM path with tolerant parsing, the rules, and degradation."""

from __future__ import annotations

from datetime import datetime

import pytest

from flowmem.timeexpr.model import ExtractedTime
from tests.unit.ops.conftest import NOW, Maker, run


def extracted(response: object) -> dict | None:
    span = next(s for s in response.trace.spans if s.op == "extract_time_op")  # type: ignore[attr-defined]
    return span.notes.get("time")


def test_no_time_words_costs_nothing(make_app: Maker) -> None:
    app = make_app(llm={"replies": ['{"year": 1999}']})
    response = run(app, "personal_retrieve", query="what is my favourite food?")
    assert extracted(response) == "no time words"
    assert response.usage.llm_calls == 0


def test_rules_without_llm(make_app: Maker) -> None:
    response = run(make_app(), query="what did I do last weekend?")
    time = extracted(response)
    assert time["source"] == "rules" and time["granularity"] == "weekend"
    assert (time["start"], time["end"]) == ("2024-06-08T00:00:00", "2024-06-10T00:00:00")
    chinese = extracted(run(make_app(), query="上周三我吃了什么？"))
    assert chinese["start"] == "2024-06-05T00:00:00" and chinese["granularity"] == "day"


@pytest.mark.parametrize(
    ("reply", "start", "end"),
    [
        ('{"year": 2024, "month": 6, "day": 9}', datetime(2024, 6, 9), datetime(2024, 6, 10)),
        ('```json\n{"year": "2024", "week": "23"}\n```', datetime(2024, 6, 3), datetime(2024, 6, 10)),
        ('The time is {"年": 2024, "月": 5}.', datetime(2024, 5, 1), datetime(2024, 6, 1)),
        ('{"month": 3}', datetime(2024, 3, 1), datetime(2024, 4, 1)),
        ('{"month": 9}', datetime(2023, 9, 1), datetime(2023, 10, 1)),  # no year, would be future: last year's
    ],
)
def test_llm_path_reads_replies_tolerantly(make_app: Maker, reply: str, start: datetime, end: datetime) -> None:
    app = make_app(llm={"by_prompt": {"Question: what did I do last weekend": reply}, "replies": ["{}"]})
    response = run(app, query="what did I do last weekend?")  # the LLM's reply wins over the rules
    time = extracted(response)
    assert time["source"] == "llm"
    assert (time["start"], time["end"]) == (start.isoformat(), end.isoformat())
    call = app.backend("llm").calls[0]  # type: ignore[attr-defined]
    assert call.json_mode
    assert call.messages[0].role == "system" and "JSON" in call.messages[0].content
    assert [m.role for m in call.messages[1:-1]] == ["user", "assistant"] * 4  # few-shot examples
    assert "Asked at: 2024-06-12 20:00:00 Wednesday" in call.messages[-1].content
    assert response.usage.llm_calls >= 1 and response.usage.total_tokens > 0


@pytest.mark.parametrize("reply", ["{}", "no idea", '{"year": "soon"}', '{"month": 13}'])
def test_unusable_llm_reply_falls_back_to_rules(make_app: Maker, reply: str) -> None:
    app = make_app(llm={"replies": [reply]})
    response = run(app, query="what did I do last weekend?")
    time = extracted(response)
    assert time["source"] == "rules" and time["granularity"] == "weekend"


def test_llm_failure_degrades_to_rules_with_a_warning(make_app: Maker) -> None:
    app = make_app(llm={"fail": "connection refused"})
    response = run(app, query="what did I do yesterday?")
    span = next(s for s in response.trace.spans if s.op == "extract_time_op")
    assert span.status == "degraded"
    assert any(w.startswith("extract_time_op: BackendUnavailableError: connection refused") for w in response.warnings)
    assert any("uses the offline rules instead of the LLM" in w for w in response.warnings)


def test_chinese_prompt(make_app: Maker) -> None:
    app = make_app("op.extract_time_op.params.language=zh", llm={"replies": ['{"year": 2024, "month": 6, "day": 11}']})
    response = run(app, query="我昨天做了什么？")
    assert extracted(response)["start"] == "2024-06-11T00:00:00"
    assert "提问时间" in app.backend("llm").calls[0].messages[-1].content  # type: ignore[attr-defined]


def test_result_type_in_context(make_app: Maker) -> None:
    # fuse_rerank_op gets an ExtractedTime (not a dict): its note says which expression it used.
    response = run(make_app(), query="what did I do yesterday?")
    fuse = next(s for s in response.trace.spans if s.op == "fuse_rerank_op")
    assert fuse.notes["time"] == "yesterday"
    assert isinstance(ExtractedTime.model_validate({**_model(extracted(response))}), ExtractedTime)


def _model(flat: dict) -> dict:
    parts = {k: flat[k] for k in ("year", "month", "day", "week", "weekday", "hour") if k in flat}
    return {"parts": parts, **{k: flat[k] for k in ("start", "end", "expression", "granularity", "source")}}


assert NOW.weekday() == 2
