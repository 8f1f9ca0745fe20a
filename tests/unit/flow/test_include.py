"""Flows inside flows: a flow named in another's expression is expanded inline, and checked as expanded."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from flowmem import App
from flowmem.config import load_config
from flowmem.config.schema import FlowEntry
from flowmem.core.errors import Problem
from flowmem.flow.compile import CompiledFlow, check_flow
from flowmem.flow.expr import MAX_DEPTH, MAX_OPS, op_refs, parse_flow
from flowmem.flow.include import point_to_included
from flowmem.memories.flows import op_steps, variant
from tests.conftest import make_op


def check(name: str, flows: dict[str, str], op: dict[str, Any] | None = None) -> tuple[CompiledFlow | None, list[str]]:
    config = {"flow": {n: {"flow_content": text} for n, text in flows.items()}, "op": op or {}}
    resolved = load_config(config, environ={})
    compiled, problems = check_flow(name, resolved.config.flow[name], resolved)
    assert (compiled is None) == bool(problems)
    return compiled, [p.render() for p in problems]


@pytest.fixture
def keyed_ops(register: Callable[..., Any]) -> None:
    register(make_op("make_a_op", writes=("a",)))
    register(make_op("make_b_op", writes=("b",)))
    register(make_op("use_a_op", reads=("a",), writes=("c",)))
    register(make_op("use_c_op", reads=("c",), writes=("answer",)))


def test_an_included_flow_runs_as_if_written_out_in_parentheses(keyed_ops: None) -> None:
    flows = {"part": "make_a_op >> use_a_op", "whole": "make_b_op >> part >> use_c_op", "side": "make_b_op | part"}
    whole, problems = check("whole", flows)
    assert whole is not None and not problems
    # The same tree the written-out text parses to: a sequence in a sequence is spliced, as the parser does.
    assert whole.expression == parse_flow("make_b_op >> (make_a_op >> use_a_op) >> use_c_op")
    assert whole.expanded_text == "make_b_op >> make_a_op >> use_a_op >> use_c_op"
    assert whole.text == "make_b_op >> part >> use_c_op"  # what `flowmem flows` shows: as written
    assert whole.includes == ("part",)
    assert [(s.label, s.position, s.via) for s in op_steps(whole.root)] == [
        ("make_b_op", 1, ()),
        ("make_a_op", 2, ("part",)),
        ("use_a_op", 3, ("part",)),
        ("use_c_op", 4, ()),
    ]
    side, _ = check("side", flows)
    assert side is not None and side.expanded_text == "make_b_op | (make_a_op >> use_a_op)"


def test_flows_nest_and_one_flow_may_be_included_twice(keyed_ops: None) -> None:
    flows = {"inner": "make_a_op", "middle": "inner >> use_a_op", "outer": "middle >> (inner | make_b_op) >> use_c_op"}
    outer, problems = check("outer", flows)
    assert outer is not None and not problems
    assert outer.expanded_text == "make_a_op >> use_a_op >> (make_a_op | make_b_op) >> use_c_op"
    assert outer.includes == ("middle", "inner")
    assert [s.via for s in op_steps(outer.root)] == [("middle", "inner"), ("middle",), ("inner",), (), ()]


def test_a_cycle_is_one_problem_naming_it() -> None:
    _, problems = check("a", {"a": "noop_op >> b", "b": "c | noop_op", "c": "a"})
    assert len(problems) == 1
    assert "flows include each other (a → b → c → a); a flow cannot contain itself" in problems[0]
    assert problems[0].startswith("flow 'a': in flow 'c' (included: a → b → c): ")
    _, problems = check("me", {"me": "noop_op >> me"})
    assert problems == [
        "flow 'me': flow 'me' includes itself (me → me); a flow cannot contain itself (column 12)\n"
        "    noop_op >> me\n"
        "               ^"
    ]


def test_an_unknown_name_suggests_flows_as_well_as_ops() -> None:
    flows = {"personal_recall": "noop_op", "f": "noop_op >> personal_recal"}
    _, problems = check("f", flows)
    assert len(problems) == 1
    assert "unknown op 'personal_recal'; did you mean flow 'personal_recall'?" in problems[0]
    assert "personal_recall" in problems[0].split("; flows: ")[1]
    _, problems = check("f", {**flows, "f": "nop_op"})
    assert "unknown op 'nop_op'; did you mean 'noop_op'?" in problems[0]


def test_problems_inside_an_included_flow_point_into_its_text(keyed_ops: None) -> None:
    _, problems = check("f", {"part": "make_b_op >> (noop_op |", "f": "noop_op >> part"})
    assert len(problems) == 1
    assert problems[0].startswith("flow 'f': in flow 'part' (included: f → part): expected an op name after '|'")
    assert problems[0].endswith("    make_b_op >> (noop_op |\n                           ^")

    # A read nothing upstream provides, and an unknown name, two levels down.
    flows = {"deep": "noop_op >> use_a_op", "part": "noop_op | deep", "f": "make_b_op >> part"}
    _, problems = check("f", flows)
    assert problems == [
        "flow 'f': in flow 'deep' (included: f → part → deep): op 'use_a_op' reads 'a', which is not available: "
        "no op of this flow writes it, and it is not a flow input (column 12)\n"
        "    noop_op >> use_a_op\n"
        "               ^"
    ]
    _, problems = check("f", {**flows, "deep": "noop_op >> ghost_op"})
    assert problems[0].startswith("flow 'f': in flow 'deep' (included: f → part → deep): unknown op 'ghost_op'")
    assert problems[0].endswith("    noop_op >> ghost_op\n               ^")


def test_a_parallel_write_conflict_is_found_through_inclusion(keyed_ops: None) -> None:
    _, problems = check("f", {"part": "noop_op >> make_a_op", "f": "part | make_a_op"})
    assert problems == [
        "flow 'f': parallel branches 1 (noop_op >> make_a_op) and 2 (make_a_op) both write 'a'; "
        "run them in sequence or configure one to write another key"
    ]


def test_op_params_reach_an_op_wherever_it_is_included() -> None:
    flows = {"part": "sleep_op", "f": "sleep_op >> part"}
    compiled, _ = check("f", flows, op={"sleep_op": {"params": {"ms": 7}}})
    assert compiled is not None
    assert [s.setting.params.ms for s in op_steps(compiled.root)] == [7, 7]  # type: ignore[attr-defined]
    # And a run's own params (`POST /v1/flows/{name}/run` op_params) too.
    with App(config={"flow": {n: {"flow_content": text} for n, text in flows.items()}}) as app:
        changed = variant(app, "f", {"sleep_op": {"ms": 3}})
    assert [s.setting.params.ms for s in op_steps(changed.root)] == [3, 3]  # type: ignore[attr-defined]


def test_a_name_that_is_both_a_flow_and_an_op_is_refused_where_used() -> None:
    _, problems = check("f", {"noop_op": "sleep_op", "f": "noop_op >> sleep_op"})
    assert problems == [
        "flow 'f': 'noop_op' names both a flow and an op: rename the flow (a name in an expression is one or the "
        "other) (column 1)\n    noop_op >> sleep_op\n    ^"
    ]
    compiled, _ = check("noop_op", {"noop_op": "sleep_op"})  # a flow of an op's name, naming no flow, is fine
    assert compiled is not None


def test_limits_apply_to_the_expanded_flow() -> None:
    # Each level includes the one below twice: 2**10 ops, past MAX_OPS, from ten short texts.
    flows = {"l0": "noop_op", **{f"l{i}": f"l{i - 1} >> l{i - 1}" for i in range(1, 11)}}
    _, problems = check("l10", flows)
    assert len(problems) == 1 and f"more than {MAX_OPS} op occurrences once included flows are expanded" in problems[0]

    # Groups nested 30 deep in a flow, around a flow whose groups are nested 30 deep: past MAX_DEPTH once expanded.
    def nested(leaf: str) -> str:
        for i in range(30):
            leaf = f"noop_op {'>>' if i % 2 else '|'} ({leaf})"
        return leaf

    _, problems = check("outer", {"inner": nested("noop_op"), "outer": nested("inner")})
    assert len(problems) == 1 and f"groups nested more than {MAX_DEPTH} deep" in problems[0]

    chain = {f"c{i}": f"noop_op >> c{i + 1}" for i in range(MAX_DEPTH + 5)}
    chain[f"c{MAX_DEPTH + 5}"] = "noop_op"
    _, problems = check("c0", chain)
    assert len(problems) == 1 and f"flows included more than {MAX_DEPTH} deep" in problems[0]


def test_the_trace_says_which_included_flow_an_op_came_from() -> None:
    config = {"flow": {"part": {"flow_content": "echo_op"}, "f": {"flow_content": "noop_op >> part"}}}
    with App(config=config) as app:
        response = app.run_sync("f", query="hi")
    spans = [span.to_dict() for span in response.trace.spans]  # type: ignore[union-attr]
    assert [(s["op"], s["position"], s.get("in_flow")) for s in spans] == [("noop_op", 1, None), ("echo_op", 2, "part")]
    assert response.answer == "hi"


# The shipped flows written out in full, as they were before the recall branch became the flow `personal_recall`
# (since then dialogue_act_op joined the branch): each must expand to exactly these ops, in this shape.
_RECALL = (
    "((retrieve_memory_op | lexical_recall_op) >> recall_fuse_op >> semantic_rank_op >> neighbour_context_op"
    " >> speaker_match_op >> dialogue_act_op)"
)
SHIPPED_BEFORE = {
    "personal_retrieve": f"set_query_op >> (extract_time_op | {_RECALL}) >> fuse_rerank_op",
    "personal_context": f"set_query_op >> (extract_time_op | {_RECALL} | read_message_op) >> fuse_rerank_op",
    "personal_print": f"set_query_op >> (extract_time_op | {_RECALL}) >> fuse_rerank_op >> print_memory_op",
    "chat_context": (
        f"short_term_memory_op >> set_query_op >> (extract_time_op | {_RECALL} | facts_block_op | entity_memory_op"
        " | knowledge_triples_op) >> fuse_rerank_op >> context_assemble_op"
    ),
}


@pytest.mark.parametrize("name", sorted(SHIPPED_BEFORE))
def test_shipped_flows_expand_to_exactly_the_ops_they_had(name: str) -> None:
    with App() as app:
        compiled = app.flow(name)
    before = parse_flow(SHIPPED_BEFORE[name])
    assert compiled.expression == before
    assert [ref.name for ref in op_refs(compiled.expression)] == [ref.name for ref in op_refs(before)]


def test_every_shipped_flow_is_valid_on_its_own() -> None:
    with App() as app:
        assert {name: problems for name, problems in app.validate().items() if problems} == {}


def test_an_entry_checked_under_its_name_replaces_the_configured_one(keyed_ops: None) -> None:
    resolved = load_config({"flow": {"f": {"flow_content": "make_a_op"}}}, environ={})
    compiled, problems = check_flow("f", FlowEntry(flow_content="make_b_op"), resolved)
    assert compiled is not None and compiled.expanded_text == "make_b_op" and not problems


def _problems(flows: dict[str, str]) -> dict[str, list[Problem]]:
    resolved = load_config({"flow": {n: {"flow_content": text} for n, text in flows.items()}}, environ={})
    return {name: check_flow(name, entry, resolved)[1] for name, entry in resolved.config.flow.items()}


def test_an_invalid_included_flow_is_reported_once_and_its_includers_point_to_it() -> None:
    flows = {"part": "noop_op >> ghost_op", "a": "noop_op >> part", "b": "part | noop_op"}
    results = point_to_included(_problems(flows))
    assert [p.message for p in results["a"]] == ["includes flow 'part', which is invalid (see its problems)"]
    assert [p.message for p in results["b"]] == ["includes flow 'part', which is invalid (see its problems)"]
    [own] = results["part"]
    assert own.message.startswith("unknown op 'ghost_op'") and own.detail.endswith("^")


def test_a_problem_only_the_inclusion_makes_stays_with_the_including_flow(keyed_ops: None) -> None:
    # `deep` alone is valid; in `f` it is the second of two parallel branches writing 'a' through it.
    results = point_to_included(_problems({"deep": "make_a_op", "f": "(make_a_op | deep) >> use_a_op"}))
    assert results["deep"] == [] and len(results["f"]) == 1
    assert "includes flow" not in results["f"][0].message
    # `part` alone has a problem (a read nothing provides); the one `f` finds inside it is another (too many ops).
    part = " >> ".join(["use_a_op"] + ["noop_op"] * (MAX_OPS // 2))
    results = point_to_included(_problems({"part": part, "f": "make_a_op >> part >> part"}))
    assert [p.message.split(" (column")[0] for p in results["part"]] == [
        "op 'use_a_op' reads 'a', which is not available: no op of this flow writes it, and it is not a flow input"
    ]
    [found] = results["f"]
    assert f"more than {MAX_OPS} op occurrences" in found.message and found.inside == "part"
