"""Inputs that once ended in a traceback, a hang or a leaked secret: each now ends in one message and exit 2."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.unit.cli.test_cli import TESTING, run_cli

BIG_INT = "9" * 5000


def assert_user_error(code: int, err: str, *fragments: str) -> None:
    assert code == 2, err
    assert err.startswith("flowmem: error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


# -- point 1: one message, exit 2 --------------------------------------------------------------


def test_invalid_date_in_an_override(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "validate", "op.set_query_op.params.timestamp=2024-13-45")
    assert_user_error(code, err, "'2024-13-45' is not a valid date", "month must be in 1..12")


def test_invalid_date_in_a_config_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("op:\n  set_query_op:\n    params: {timestamp: 2024-02-30}\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "validate", "-c", str(path))
    assert_user_error(code, err, f"config file '{path}'", "'2024-02-30' is not a valid date", "line 3")


def test_a_flow_nested_3000_deep(capsys: pytest.CaptureFixture[str]) -> None:
    flow = "(" * 3000 + "set_query_op" + ")" * 3000
    code, _, err = run_cli(capsys, "validate", f"flow.deep.flow_content={flow}")
    assert_user_error(code, err, "flow 'deep': parentheses nested more than 50 deep (column 51)")
    assert len(err) < 1000  # a window of the text around the caret, not all 6,000 characters


def test_a_5000_op_chain_is_refused_by_a_limit(capsys: pytest.CaptureFixture[str]) -> None:
    flow = ">>".join(["set_query_op"] * 1200)  # shorter than 20,000 characters: the op limit decides
    code, _, err = run_cli(capsys, "validate", f"flow.long.flow_content={flow}")
    assert_user_error(code, err, "flow expression has 1200 op names; at most 500 are allowed")
    assert "RecursionError" not in err
    flow = ">>".join(["a"] * 5000)
    code, _, err = run_cli(capsys, "validate", f"flow.long.flow_content={flow}")
    assert_user_error(code, err, "flow expression has 5000 op names; at most 500 are allowed")


def test_a_500_op_chain_runs(capsys: pytest.CaptureFixture[str]) -> None:
    flow = " >> ".join(["noop_op"] * 499 + ["set_query_op"])
    code, out, err = run_cli(
        capsys, "run", "long", "-q", "q", *TESTING, f"flow.long.flow_content={flow}", "flow.long.outputs=[query]"
    )
    assert code == 0, err
    assert "query: q" in out


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["validate", f"op.fuse_rerank_op.params.fuse_time_ratio={BIG_INT}"], "has 5,000 digits; at most 4,300"),
        (["validate", f"flow.f.flow_content=set_query_op >> {BIG_INT}"], "expected an op name, found a number"),
        (["run", "set_query", "-q", "x", "--input", f"top_k={BIG_INT}"], "input 'top_k'"),
    ],
)
def test_integers_beyond_pythons_digit_limit(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    code, _, err = run_cli(capsys, *argv)
    assert_user_error(code, err, fragment)
    assert "set_int_max_str_digits" not in err


def test_integer_beyond_the_digit_limit_in_a_config_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(f"op:\n  retrieve_memory_op:\n    params: {{top_k: {BIG_INT}}}\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "validate", "-c", str(path))
    assert_user_error(code, err, "has 5,000 digits; at most 4,300 are supported")


def test_invalid_utf8_in_a_config_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"op:\n  x: \xff\xfe\n")
    code, _, err = run_cli(capsys, "validate", "-c", str(path))
    assert_user_error(code, err, f"config file '{path}': not UTF-8 text (byte 0xff at offset 9); save it as UTF-8")


PLUGIN = '''
from flowmem.flow.op import Op, register_op


@register_op
class HelloFileOp(Op):
    """Answer hello."""

    writes = ("answer",)

    async def execute(self, ctx):
        ctx["answer"] = "hello from a plugin file"
'''


def flowmem(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flowmem", *argv], capture_output=True, text=True, cwd=cwd, timeout=60, check=False
    )


def test_plugin_given_as_a_py_file(tmp_path: Path) -> None:
    (tmp_path / "my_ops.py").write_text(PLUGIN, encoding="utf-8")
    result = flowmem("run", "hi", "--plugin", "./my_ops.py", "flow.hi.flow_content=hello_file_op", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "hello from a plugin file"


@pytest.mark.parametrize(
    ("plugin", "fragment"),
    [
        ("./missing.py", "plugin file './missing.py' does not exist; give a .py file or a module name"),
        ("../x", "plugin file '../x' does not exist"),
        (".relative", "is neither a module name (e.g. mypkg.ops) nor a path to a .py file"),
        ("./broken.py", "plugin file './broken.py' failed while importing: ZeroDivisionError: division by zero"),
    ],
)
def test_plugin_mistakes(tmp_path: Path, plugin: str, fragment: str) -> None:
    (tmp_path / "broken.py").write_text("1 / 0\n", encoding="utf-8")
    result = flowmem("ops", "--plugin", plugin, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert fragment in result.stderr


def test_openai_preset_without_the_openai_package(tmp_path: Path) -> None:
    # sys.modules[name] = None makes `import openai` fail as if the package were not installed.
    script = (
        "import sys; sys.modules['openai'] = None\nfrom flowmem.cli.main import main\nsys.exit(main(sys.argv[1:]))\n"
    )
    argv = ["run", "personal_retrieve", "-q", "hi", "-u", "alice", "-c", "openai"]
    argv += ["vector_store.default={backend: memory}", "llm.default={backend: none}"]
    result = subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "ModuleNotFoundError" not in result.stderr
    assert "embedding_model backend openai_compatible needs the openai package, which is not installed" in result.stderr
    assert "pip install '" in result.stderr  # the install hint


def test_an_internal_error_is_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from flowmem.cli import commands

    def broken(args: object) -> int:
        raise RuntimeError("a bug\nover two lines")

    monkeypatch.setattr(commands, "ops", broken)
    code, _, err = run_cli(capsys, "ops")
    assert code == 1
    assert err == "flowmem: internal error: RuntimeError: a bug over two lines (run with -vv for the traceback)\n"
    code, _, err = run_cli(capsys, "-vv", "ops")
    assert "Traceback" in err and err.endswith("(run with -vv for the traceback)\n")


# -- point 2: YAML alias bombs are refused at once ----------------------------------------------


def laughs(levels: str, value: str) -> str:
    """Nine or ten nested lists of aliases of the list before ("billion laughs"): tiny text, 9⁹ values."""
    width = 10 if len(value) == 3 else 9
    parts = [f"a: &a [{','.join([value] * width)}]"]
    parts += [f"{n}: &{n} [{','.join(['*' + b] * width)}]" for b, n in itertools.pairwise(levels)]
    return "{" + ", ".join(parts) + "}"


LAUGHS = laughs("abcdefghi", "x")


def bounded_flowmem(*argv: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    """The command with 1 GiB of address space and 30 s: the old code needed 1.2 GB and 26 s for these."""
    import resource
    import time

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    started = time.perf_counter()
    try:
        result = subprocess.run(
            [sys.executable, "-m", "flowmem", *argv],
            capture_output=True,
            text=True,
            cwd=cwd,
            timeout=30,
            check=False,
            preexec_fn=limit,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("flowmem took more than 30 s")
    return result, time.perf_counter() - started


def test_alias_bomb_in_an_override(tmp_path: Path) -> None:
    override = f"op.fuse_rerank_op.params={LAUGHS}"
    assert len(override) < 350
    result, seconds = bounded_flowmem("config", "show", override, cwd=tmp_path)
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert "aliases expand to more than 10,000 values" in result.stderr
    assert seconds < 10  # mostly interpreter start-up; the refusal itself takes milliseconds


def test_alias_bomb_in_a_config_file(tmp_path: Path) -> None:
    text = f"op:\n  fuse_rerank_op:\n    params:\n      fuse_ratio_dict: {laughs('abcdefghij', 'lol')}\n"
    assert len(text) < 500
    (tmp_path / "bomb.yaml").write_text(text, encoding="utf-8")
    result, seconds = bounded_flowmem("validate", "-c", "bomb.yaml", cwd=tmp_path)
    assert result.returncode == 2, result.stderr[-2000:]
    assert "config file 'bomb.yaml': is not valid YAML: aliases expand to more than 10,000 values" in result.stderr
    assert seconds < 10


def test_alias_bomb_in_an_input_value(tmp_path: Path) -> None:
    result, seconds = bounded_flowmem("run", "set_query", "-q", "x", "--input", f"top_k={LAUGHS}", cwd=tmp_path)
    assert result.returncode == 2, result.stderr[-2000:]
    assert "input 'top_k'" in result.stderr  # not YAML it accepts: the text itself, which is no integer
    assert len(result.stderr) < 1000
    assert seconds < 10


def test_deep_yaml_in_a_config_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text("op: {fuse_rerank_op: {params: {fuse_ratio_dict: " + "[" * 3000 + "]" * 3000 + "}}}\n")
    code, _, err = run_cli(capsys, "validate", "-c", str(path))
    assert_user_error(code, err, "is not valid YAML: nested more than 100 levels deep")


# -- point 3: secrets stay out of `config show` and error messages ------------------------------


def test_config_show_redacts_a_secret_inside_a_list(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ES_PASSWORD", "correct-horse")
    path = tmp_path / "es.yaml"
    path.write_text(
        "vector_store:\n  default:\n    backend: elasticsearch\n"
        '    params:\n      hosts: ["http://elastic:${ES_PASSWORD}@localhost:9200", "http://other:9200"]\n',
        encoding="utf-8",
    )
    code, out, err = run_cli(capsys, "config", "show", "-c", str(path))
    assert code == 0, err
    assert "correct-horse" not in out
    assert "- '***'\n      - http://other:9200" in out


def test_config_show_redacts_credentials_in_urls(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FLOWMEM_ES_URL", "http://elastic:correct-horse@localhost:9200")
    code, out, err = run_cli(
        capsys,
        "config",
        "show",
        "-c",
        "elasticsearch",
        "-c",
        "openai",
        "llm.default.params.base_url=https://me:pw@llm.ex/v1",
    )
    assert code == 0, err
    assert "correct-horse" not in out and "me:pw" not in out
    assert "hosts: http://***@localhost:9200" in out
    assert "base_url: https://***@llm.ex/v1" in out


def test_unreachable_servers_are_named_without_credentials(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://elastic:correct-horse@127.0.0.1:{port}"
    result = subprocess.run(
        [sys.executable, "-m", "flowmem", "store", "stats", "-c", "elasticsearch"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
        env={**os.environ, "FLOWMEM_ES_URL": url},
    )
    assert result.returncode == 2, result.stderr
    assert "correct-horse" not in result.stderr
    assert f"cannot reach Elasticsearch at http://***@127.0.0.1:{port}" in result.stderr
    result = flowmem(
        "run", "personal_retrieve", "-q", "hi", "-u", "alice", "vector_store.default={backend: memory}",
        "embedding_model.default={backend: openai_compatible, "
        f"params: {{base_url: 'http://me:correct-horse@127.0.0.1:{port}/v1', max_retries: 0}}}}",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "correct-horse" not in result.stderr
    assert f"cannot reach the embedding server at http://***@127.0.0.1:{port}/v1" in result.stderr


def test_a_search_with_the_node_down_says_one_line_and_leaves_no_task_pending(tmp_path: Path) -> None:
    # The word branch fails at once; the vector branch, cancelled while embedding the query, left that
    # computation running past the event loop ("Task was destroyed but it is pending!").
    result = subprocess.run(
        [sys.executable, "-m", "flowmem", "search", "where do I live?", "-u", "alice", "-c", "elasticsearch"],
        capture_output=True, text=True, cwd=tmp_path, timeout=60, check=False,
        env={**os.environ, "FLOWMEM_ES_URL": "http://127.0.0.1:1"},
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("flowmem: error: cannot reach Elasticsearch at http://127.0.0.1:1")
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


# -- point 4: a flow expression has no comments -------------------------------------------------


def test_a_comment_in_a_flow_is_refused_with_its_column(capsys: pytest.CaptureFixture[str]) -> None:
    flow = "set_query_op # >> retrieve_memory_op"
    code, _, err = run_cli(capsys, "run", "f", "-q", "x", f"flow.f.flow_content={flow}", "flow.f.outputs=[query]")
    assert_user_error(code, err, "flow 'f': '#' is not allowed: a flow expression has no comments", "(column 14)")
    assert err.splitlines()[-2:] == [f"    {flow}", "                 ^"]
    code, out, err = run_cli(capsys, "validate", f"flow.f.flow_content={flow}")
    assert code == 2 and "BAD f" in out


# -- point 5: overrides take text verbatim and set one entry of a mapping -------------------------


def test_text_overrides_that_are_not_yaml_are_taken_verbatim(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(
        capsys,
        "run",
        "greet",
        "-q",
        "bob",
        *TESTING,
        "flow.greet.flow_content=echo_op",
        "flow.greet.description=@home: where `echo` runs",
        "op.echo_op.params.prefix=@",
    )
    assert code == 0, err
    assert out.strip() == "@bob"
    code, out, err = run_cli(capsys, "flows", *TESTING, "flow.greet.flow_content=echo_op", "flow.greet.description=@x")
    assert code == 0, err
    assert "greet — @x" in out


def test_an_override_below_a_mapping_param_sets_one_entry(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "config", "show", "op.fuse_rerank_op.params.fuse_ratio_dict.insight=1.0")
    assert code == 0, err
    data = yaml.safe_load(out)
    assert data["op"]["fuse_rerank_op"]["params"]["fuse_ratio_dict"] == {
        "conversation": 0.5,
        "observation": 1.0,
        "obs_customized": 1.2,
        "insight": 1.0,
    }
