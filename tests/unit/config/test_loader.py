"""Layered config loading: defaults, FLOWMEM_CONFIG, -c files and presets, overrides, ${ENV}."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowmem.config import load_config, presets
from flowmem.core.errors import ConfigError


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_package_defaults_load() -> None:
    resolved = load_config(environ={})
    assert "set_query" in resolved.config.flow
    assert resolved.config.llm["default"].backend == "none"
    assert "default" in presets()


def test_layers_later_wins(tmp_path: Path) -> None:
    env_file = write(tmp_path, "env.yaml", "op: {sleep_op: {params: {ms: 1}, timeout: 9}}")
    cli_file = write(tmp_path, "cli.yaml", "op: {sleep_op: {params: {ms: 2}}}")
    resolved = load_config([str(cli_file)], ["op.sleep_op.params.ms=3"], environ={"FLOWMEM_CONFIG": str(env_file)})
    entry = resolved.config.op["sleep_op"]
    assert entry.params == {"ms": 3}
    assert entry.timeout == 9  # deep merge keeps what later layers do not touch
    assert resolved.ops["sleep_op"].params.ms == 3.0  # type: ignore[attr-defined]
    assert resolved.layers[:3] == ["preset 'default'", f"config file '{env_file}'", f"config file '{cli_file}'"]


def test_null_entry_removes_an_inherited_one(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", "flow: {set_query: null}")
    assert "set_query" not in load_config(str(path), environ={}).config.flow


def test_env_interpolation_with_defaults_and_escape(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "c.yaml",
        "flow:\n  f:\n    flow_content: ${FLOW:-noop_op}\n    description: '$${NOT} ${WHO}'\n",
    )
    resolved = load_config(str(path), environ={"WHO": "alice"})
    assert resolved.config.flow["f"].flow_content == "noop_op"
    assert resolved.config.flow["f"].description == "${NOT} alice"


def test_unset_env_var_is_an_error_naming_it(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", "flow: {f: {flow_content: '${MISSING_FLOW}'}}")
    with pytest.raises(ConfigError, match="MISSING_FLOW is not set"):
        load_config(str(path), environ={})


def test_secret_env_paths_are_tracked(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", "flow: {f: {flow_content: noop_op, description: '${API_KEY}'}}")
    resolved = load_config(str(path), environ={"API_KEY": "sk-1"})
    assert ("flow", "f", "description") in resolved.secret_paths


def test_all_problems_are_reported_together(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "c.yaml",
        "bogus: {}\nop:\n  sleep_op: {params: {ms: -1, nope: 1}}\n  ghost_op: {}\nllm:\n  x: {backend: gpt}\n",
    )
    with pytest.raises(ConfigError) as info:
        load_config(str(path), environ={})
    text = str(info.value)
    assert "unknown config section 'bogus'" in text
    assert len(info.value.problems) == 1  # the section error stops before the schema check
    path.write_text("op:\n  sleep_op: {params: {ms: -1, nope: 1}}\n  ghost_op: {}\nllm:\n  x: {backend: gpt}\n")
    with pytest.raises(ConfigError) as info:
        load_config(str(path), environ={})
    text = str(info.value)
    assert "op 'sleep_op' param 'ms'" in text
    assert "op 'sleep_op' has no param 'nope'" in text
    assert "unknown op 'ghost_op'" in text
    assert "unknown llm backend 'gpt' (valid: fake, none, openai_compatible)" in text
    assert len(info.value.problems) == 4


def test_schema_errors_suggest(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", "flow: {f: {flow_contnt: noop_op}}")
    with pytest.raises(ConfigError) as info:
        load_config(str(path), environ={})
    assert "did you mean 'flow_content'" in str(info.value)
    assert "flow.f.flow_content: is required" in str(info.value)


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("[1, 2]", "must be a mapping of sections"),
        ("flow: [a]", "must map names to entries"),
        ("flow: {f: {flow_content: 'a'", "not valid YAML"),
    ],
)
def test_malformed_files(tmp_path: Path, body: str, fragment: str) -> None:
    path = write(tmp_path, "c.yaml", body)
    with pytest.raises(ConfigError, match=fragment):
        load_config(str(path), environ={})


def test_unknown_preset_and_missing_file() -> None:
    with pytest.raises(ConfigError, match=r"unknown config preset 'defualt'; did you mean 'default'"):
        load_config("defualt", environ={})
    with pytest.raises(ConfigError, match="cannot be read"):
        load_config("/nonexistent/flowmem.yaml", environ={})


def test_mapping_sources_and_no_defaults() -> None:
    resolved = load_config({"flow": {"f": {"flow_content": "noop_op"}}}, defaults=False, environ={})
    assert list(resolved.config.flow) == ["f"]
    assert resolved.config.llm == {}
