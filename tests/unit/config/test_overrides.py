"""``key=value`` overrides: parsing, schema checks, and the shapes they never accept."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flowmem.config.overrides import SEGMENT, apply_override, parse_override
from flowmem.core.errors import ConfigError


def test_values_are_yaml() -> None:
    assert parse_override("op.a.params.x=3").value == 3
    assert parse_override("op.a.params.x=0.5").value == 0.5
    assert parse_override("op.a.params.x=true").value is True
    assert parse_override("op.a.params.x=[1, 2]").value == [1, 2]
    assert parse_override("op.a.params.x={insight: 3}").value == {"insight": 3}
    assert parse_override("op.a.params.x=null").value is None
    assert parse_override("flow.mine.flow_content=a_op >> b_op").value == "a_op >> b_op"
    assert parse_override("flow.mine.description=a=b").value == "a=b"  # only the first = splits


@pytest.mark.parametrize(
    "text",
    [
        "novalue",
        "=3",
        "op..x=1",
        ".op.x=1",
        "op.x.=1",
        "op x.y=1",
        "op.x y=1",
        "1op.x=1",
        "op=1",
        "op.x.params.é=1",
        "op.x.params.[0]=1",
    ],
)
def test_malformed_keys_are_rejected(text: str) -> None:
    with pytest.raises(ConfigError):
        parse_override(text)


def test_invalid_yaml_value_is_rejected_where_the_setting_is_not_text() -> None:
    problem = apply_override({}, parse_override("op.sleep_op.params.ms=[1, 2"))
    assert problem is not None and "the value is not valid YAML" in problem.message
    problem = apply_override({}, parse_override("op.fuse_rerank_op.params.fuse_ratio_dict={a: &a [*a]}"))
    assert problem is not None and "alias *a refers to itself" in problem.message


@pytest.mark.parametrize(
    "text",
    ["flow.mine.description=@home", "flow.mine.flow_content=`echo`", "op.echo_op.params.prefix=[unclosed", "x.y=%"],
)
def test_text_that_is_not_yaml_parses(text: str) -> None:
    assert parse_override(text).raw == text.split("=", 1)[1]


def test_text_settings_take_values_that_are_not_yaml_verbatim() -> None:
    tree: dict = {}
    assert apply_override(tree, parse_override("flow.mine.description=@home")) is None
    assert apply_override(tree, parse_override("op.echo_op.params.prefix=[unclosed: ")) is None
    assert apply_override(tree, parse_override("op.extract_time_op.params.language=%zh")) is None
    assert tree["flow"]["mine"]["description"] == "@home"
    assert tree["op"]["echo_op"]["params"]["prefix"] == "[unclosed: "
    assert tree["op"]["extract_time_op"]["params"]["language"] == "%zh"  # verbatim; validation refuses it later


def test_a_path_below_a_mapping_param_sets_one_entry() -> None:
    tree: dict = {}
    assert apply_override(tree, parse_override("op.fuse_rerank_op.params.fuse_ratio_dict.insight=1.0")) is None
    assert tree["op"]["fuse_rerank_op"]["params"]["fuse_ratio_dict"] == {
        "conversation": 0.5,
        "observation": 1.0,
        "obs_customized": 1.2,
        "insight": 1.0,
    }
    # What an earlier layer set is the starting point, not the op's default.
    tree = {"op": {"fuse_rerank_op": {"params": {"fuse_ratio_dict": {"insight": 3.0, "conversation": 0.1}}}}}
    assert apply_override(tree, parse_override("op.fuse_rerank_op.params.fuse_ratio_dict.insight=1.0")) is None
    assert tree["op"]["fuse_rerank_op"]["params"]["fuse_ratio_dict"] == {"insight": 1.0, "conversation": 0.1}


def test_unknown_section_lists_sections() -> None:
    problem = apply_override({}, parse_override("x.y=1"))
    assert problem is not None
    assert "unknown config section 'x'" in problem.message
    assert "flow, limits, llm, op, server, tracing, vector_store" in problem.message


def test_unknown_op_lists_ops_and_suggests() -> None:
    problem = apply_override({}, parse_override("op.set_qery_op.params.x=1"))
    assert problem is not None
    assert "unknown op 'set_qery_op'" in problem.message
    assert "did you mean 'set_query_op'" in problem.message
    assert "valid:" in problem.message and "sleep_op" in problem.message


def test_unknown_param_suggests_the_right_one() -> None:
    problem = apply_override({}, parse_override("op.sleep_op.params.msec=3"))
    assert problem is not None
    assert "op 'sleep_op' has no param 'msec'; did you mean 'ms'?" in problem.message


def test_unknown_entry_field_suggests() -> None:
    problem = apply_override({}, parse_override("flow.mine.flow_contnt=a"))
    assert problem is not None
    assert "did you mean 'flow_content'" in problem.message


def test_new_flow_and_op_alias_are_allowed() -> None:
    tree: dict = {}
    assert apply_override(tree, parse_override("flow.mine.flow_content=a_op >> b_op")) is None
    assert apply_override(tree, parse_override("op.nap_op.backend=sleep_op")) is None
    assert apply_override(tree, parse_override("op.nap_op.params.ms=5")) is None
    assert tree == {
        "flow": {"mine": {"flow_content": "a_op >> b_op"}},
        "op": {"nap_op": {"backend": "sleep_op", "params": {"ms": 5}}},
    }


def test_text_settings_take_the_raw_value() -> None:
    tree: dict = {}
    assert apply_override(tree, parse_override("flow.mine.description=yes")) is None
    assert apply_override(tree, parse_override("op.echo_op.params.prefix=123")) is None
    assert tree["flow"]["mine"]["description"] == "yes"
    assert tree["op"]["echo_op"]["params"]["prefix"] == "123"


def test_paths_below_scalars_are_rejected() -> None:
    problem = apply_override({}, parse_override("op.sleep_op.params.ms.x=1"))
    assert problem is not None and "not a mapping" in problem.message
    problem = apply_override({}, parse_override("flow.mine.description.x=1"))
    assert problem is not None and "not a mapping" in problem.message


segment = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,8}", fullmatch=True)


@given(st.text(max_size=80))
@settings(max_examples=500)
def test_never_accepts_a_malformed_path(text: str) -> None:
    try:
        override = parse_override(text)
    except ConfigError:
        return
    key = text.split("=", 1)[0]
    assert len(override.path) >= 2
    assert all(SEGMENT.match(s) for s in override.path)
    assert ".".join(override.path) == key


@given(st.lists(segment, min_size=2, max_size=5), st.text(alphabet="abc123 ._-", max_size=10))
def test_well_formed_paths_parse_back(path: list[str], raw: str) -> None:
    override = parse_override(".".join(path) + "=" + raw)
    assert list(override.path) == path
    assert override.raw == raw
