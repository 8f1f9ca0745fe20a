"""A permanent fuzz suite for the ``flowmem`` command, run in process through ``main([...])``.

Every input a user can hand the CLI — flow expressions, ``key=value`` overrides, config files
(``-c``), JSONL files (as *bytes*) for ``ingest`` and ``store import``, ``--input`` values — is
generated both from the real grammar (op names from the registry, their params, config sections,
YAML fragments with aliases, dates and huge numbers) and as raw text, and every outcome must be a
success (exit 0) or a user error (exit 2) with exactly one ``flowmem: error:`` line — never a
traceback, an "internal error" or a hang (each example is timed).

Bounded for CI: derandomized, no example database, and a fixed number of examples per test
(``EXAMPLES`` below; 7 tests, 880 examples per run, well under a minute on two cores). Every command
runs against a throwaway local store and the ``hash`` embedder.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowmem.cli.main import main
from flowmem.config.schema import ENTRY_MODELS, SECTIONS, SETTINGS_SECTIONS
from flowmem.core.backend import BACKENDS
from flowmem.flow.inputs import STANDARD_INPUTS
from flowmem.flow.op import OPS
from flowmem.flow.plugins import load_builtins

load_builtins()

EXAMPLES = {"flow": 150, "override": 200, "config": 150, "jsonl": 100, "memories": 100, "input": 120, "query": 60}
PER_EXAMPLE = 15.0  # seconds: generous for a busy CI machine, far below a hang
FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,  # timed by hand (PER_EXAMPLE), so a slow shared machine is not a flaky failure
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)


@pytest.fixture(autouse=True)
def _throwaway_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FLOWMEM_HOME", str(tmp_path / "home"))  # nothing reaches the developer's own store


@contextlib.contextmanager
def throwaway_store() -> Iterator[tuple[Path, list[str]]]:
    with tempfile.TemporaryDirectory(prefix="flowmem-fuzz-") as directory:
        root = Path(directory)
        yield (
            root,
            [
                "vector_store.default.backend=local",
                f"vector_store.default.params.directory={root / 'store'}",
                "embedding_model.default.backend=hash",
            ],
        )


def invoke(*argv: str) -> tuple[int, str]:
    """Run ``flowmem argv…`` in process; (exit code, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse's own usage errors
            code = int(exc.code or 0)
    return code, err.getvalue()


def assert_clean(argv: tuple[str, ...], seconds: float = PER_EXAMPLE) -> int:
    start = time.monotonic()
    code, err = invoke(*argv)
    elapsed = time.monotonic() - start
    shown = " ".join(a if len(a) < 200 else a[:200] + "…" for a in argv)
    assert "Traceback" not in err and "internal error" not in err, f"flowmem {shown}\n{err}"
    assert code in (0, 2), f"exit {code}: flowmem {shown}\n{err}"
    if code == 2:
        argparse_error = "usage: flowmem" in err  # argparse: usage line, then `flowmem …: error: …`
        assert argparse_error or (err.startswith("flowmem: error: ") and err.count("flowmem: error:") == 1), err
    assert elapsed < seconds, f"{elapsed:.1f}s: flowmem {shown}"
    return code


# -- grammar ------------------------------------------------------------------------------------

OP_NAMES = sorted(OPS.names())
raw_text = st.text(max_size=40)
identifier = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,12}", fullmatch=True)

# Values that once broke a parser: dates that do not exist, numbers too big, aliases, tags, comments.
YAML_FRAGMENTS = [
    "3", "-1", "0", "2.5", "1e400", "nan", ".inf", "true", "no", "null", "~", "''", '""', "2024-05-04",
    "2024-13-45", "2024-02-30T25:61:00", "10:00", "0x1F", "0o17", "1_000", "9" * 5000, "-" + "9" * 4301,
    "'quoted # not a comment'", "a # comment", "${HOME}", "${NO_SUCH_VAR_FLOWMEM}",
    "${NO_SUCH_VAR_FLOWMEM:-fallback}", "${", "[", "{", "]", "}", "&a [1, 2]", "*a", "&a [*a]",
    "!!python/object:os.system", "!!binary aGk=", "|", ">-", "@home", "%TAG", "---", "...", "\t", "\x00", "\ufeff",
    "é", "日本語", "a: b: c",
]  # fmt: skip
yaml_scalar = st.one_of(
    st.sampled_from(YAML_FRAGMENTS),
    st.sampled_from(YAML_FRAGMENTS),  # twice: as likely as raw text and numbers together
    raw_text,
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
)
yaml_value = st.recursive(
    yaml_scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.dictionaries(identifier, inner, max_size=3).map(lambda d: "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}"),  # noqa: E501
        st.integers(min_value=1, max_value=300).map(lambda n: "[" * n + "]" * n),  # deep nesting
    ),
    max_leaves=8,
)  # fmt: skip

ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)


def _param_names(section: str, name: str) -> list[str]:
    if section == "op" and name in OPS:
        return list(OPS.get(name).Params.model_fields)
    registry = BACKENDS.get(section) if section in BACKENDS else None
    if registry is not None and name in registry:
        return list(registry.get(name).Params.model_fields)
    return []


DEFAULT_BACKENDS = {"llm": "none", "embedding_model": "local", "vector_store": "local"}  # configs/default.yaml


@st.composite
def valid_key(draw: st.DrawFn) -> str:
    """A path the schema has: an op's param, a default backend's param, an entry field, a limit."""
    kind = draw(st.sampled_from(["op", "backend", "field", "settings"]))
    if kind == "op":
        op = draw(st.sampled_from(OP_NAMES))
        return f"op.{op}.params.{draw(st.sampled_from(_param_names('op', op) or ['x']))}"
    if kind == "backend":
        section = draw(st.sampled_from(sorted(DEFAULT_BACKENDS)))
        params = _param_names(section, DEFAULT_BACKENDS[section]) or ["x"]
        return f"{section}.default.params.{draw(st.sampled_from(params))}"
    if kind == "settings":
        section = draw(st.sampled_from(sorted(SETTINGS_SECTIONS)))
        return f"{section}.{draw(st.sampled_from(sorted(SETTINGS_SECTIONS[section].model_fields)))}"
    section = draw(st.sampled_from(sorted(ENTRY_MODELS)))
    name = {"op": draw(st.sampled_from(OP_NAMES)), "flow": "fz"}.get(section, "default")
    return f"{section}.{name}.{draw(st.sampled_from(sorted(ENTRY_MODELS[section].model_fields)))}"


@st.composite
def bent_key(draw: st.DrawFn) -> str:
    """A valid path with a part misspelt, doubled, extended or removed."""
    parts = draw(valid_key()).split(".")
    how = draw(st.sampled_from(["rename", "extend", "drop", "dots", "upper", "section"]))
    if how == "rename":
        parts[draw(st.integers(0, len(parts) - 1))] = draw(identifier)
    elif how == "extend":
        parts += draw(st.lists(identifier, min_size=1, max_size=2))
    elif how == "drop":
        parts.pop(draw(st.integers(0, len(parts) - 1)))
    elif how == "section":
        parts[0] = draw(st.sampled_from([*SECTIONS, "nope", ""]))
    key = ".".join(parts)
    return {"dots": key.replace(".", "..", 1), "upper": key.upper()}.get(how, key)


override_key = st.one_of(valid_key(), valid_key(), bent_key())


override = st.one_of(
    st.builds(lambda k, v: f"{k}={v}", override_key, yaml_scalar),
    st.builds(lambda k, v: f"{k}={v}", override_key, yaml_value),
    st.builds(lambda k, v: f"{k}={v}", override_key, raw_text),
    raw_text.map(lambda t: t if "=" in t else t + "=1"),
)


def flow_expr() -> st.SearchStrategy[str]:
    atom = st.one_of(st.sampled_from(OP_NAMES), identifier, st.sampled_from(["", "1", "'x'", "op()", "a.b", "#"]))
    return st.recursive(
        atom,
        lambda inner: st.one_of(
            st.builds(lambda a, b: f"{a} >> {b}", inner, inner),
            st.builds(lambda a, b: f"{a} | {b}", inner, inner),
            inner.map(lambda a: f"({a})"),
            st.builds(lambda a, junk: f"{a} {junk}", inner, st.sampled_from(["#c", ">>", "|", "(", ")", "+", "\n"])),
        ),
        max_leaves=12,
    )


# -- flows and overrides (config/flow parsing) --------------------------------------------------


@settings(FUZZ, max_examples=EXAMPLES["flow"])
@given(expr=st.one_of(flow_expr(), raw_text))
def test_fuzz_flow_expressions(expr: str) -> None:
    assert_clean(("validate", f"flow.fz.flow_content={expr}"))


@settings(FUZZ, max_examples=EXAMPLES["override"])
@given(overrides=st.lists(override, min_size=1, max_size=3), command=st.sampled_from(["validate", "show"]))
def test_fuzz_overrides(overrides: list[str], command: str) -> None:
    argv = ("config", "show") if command == "show" else ("validate",)
    assert_clean((*argv, *overrides))


@st.composite
def config_document(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        key = draw(override_key)
        parts = key.split(".")
        text = ""
        for depth, part in enumerate(parts):
            text += "  " * depth + f"{part}:" + ("\n" if depth < len(parts) - 1 else "")
        lines.append(f"{text} {draw(st.one_of(yaml_scalar, yaml_value))}")
    body = "\n".join(lines)
    return draw(st.one_of(st.just(body), st.just(ALIAS_BOMB), raw_text, st.just(body + "\n" + draw(raw_text))))


@settings(FUZZ, max_examples=EXAMPLES["config"])
@given(document=config_document())
def test_fuzz_config_files(document: str) -> None:
    with tempfile.TemporaryDirectory(prefix="flowmem-fuzz-") as directory:
        path = Path(directory) / "fuzz.yaml"
        path.write_text(document, encoding="utf-8", errors="surrogatepass")
        assert_clean(("config", "show", "-c", str(path)))


# -- JSONL (bytes) for ingest and store import ----------------------------------------------------

json_leaf = st.one_of(
    st.none(), st.booleans(), st.text(max_size=30), st.floats(allow_nan=False),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 1714816800, 10**20, 2024, 13, 99, "2024-05-04T10:00:00Z", "2024-13-45", "1714816800",
                     "2024-05-04T10:00:00+14:00", "9999-12-31T23:59:59", "0001-01-01", ""]),
)  # fmt: skip
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
MESSAGE_FIELDS = ["message_id", "role", "name", "content", "time_created", "memorized", "metadata"]
MEMORY_FIELDS = [
    "memory_id", "workspace_id", "target", "memory_type", "when_to_use", "content", "keywords", "created_at",
    "updated_at", "msg_year", "msg_month", "msg_day", "msg_week", "msg_weekday", "msg_hour", "event_year",
    "event_start", "event_end", "status", "source", "metadata", "vector",
]  # fmt: skip
BYTE_TWEAKS = [
    lambda b: b,
    lambda b: b"\xef\xbb\xbf" + b,  # BOM
    lambda b: b[: len(b) // 2],  # cut mid-record (maybe mid-character)
    lambda b: b.replace(b'"', b'"\xff', 1),  # invalid UTF-8
    lambda b: b.replace(b"a", b"\xc3\xa9"),
    lambda b: b.replace(b"}", b', "n": ' + b"9" * 4400 + b"}", 1),  # over Python's int-string limit
    lambda b: b.replace(b"}", b', "n": ' + b"[" * 3000 + b"]" * 3000 + b"}", 1),  # deep nesting
    lambda b: b.replace(b"}", b', "n": 1e999}', 1),
    lambda b: b + b"\r",
    lambda b: b.replace(b"\n", b"\r\n"),
]


def record_line(fields: list[str], base: dict[str, object]) -> st.SearchStrategy[bytes]:
    @st.composite
    def build(draw: st.DrawFn) -> bytes:
        record = dict(base)
        for name in draw(st.lists(st.sampled_from(fields), max_size=4, unique=True)):
            record[name] = draw(json_value)
        if draw(st.booleans()):
            record.pop(draw(st.sampled_from(sorted(record))), None)
        line = json.dumps(record, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass") + b"\n"
        return draw(st.sampled_from(BYTE_TWEAKS))(line)

    return build()


raw_line = st.binary(max_size=60).map(lambda b: b + b"\n")
message_lines = st.lists(
    st.one_of(record_line(MESSAGE_FIELDS, {"role": "user", "name": "alice", "content": "Alice likes tea"}), raw_line),
    min_size=1,
    max_size=4,
)
memory_lines = st.lists(
    st.one_of(record_line(MEMORY_FIELDS, {"workspace_id": "default", "content": "Alice likes tea"}), raw_line),
    min_size=1,
    max_size=4,
)


@settings(FUZZ, max_examples=EXAMPLES["jsonl"])
@given(lines=message_lines, skip_bad=st.booleans())
def test_fuzz_ingest_messages(lines: list[bytes], skip_bad: bool) -> None:
    with throwaway_store() as (root, store):
        path = root / "chat.jsonl"
        path.write_bytes(b"".join(lines))
        assert_clean(("ingest", str(path), "-u", "alice", *(["--skip-bad"] if skip_bad else []), *store))


@settings(FUZZ, max_examples=EXAMPLES["memories"])
@given(lines=memory_lines, skip_bad=st.booleans(), command=st.sampled_from(["store import", "ingest --memories"]))
def test_fuzz_import_memories(lines: list[bytes], skip_bad: bool, command: str) -> None:
    with throwaway_store() as (root, store):
        path = root / "memories.jsonl"
        path.write_bytes(b"".join(lines))
        argv = (*command.split(), str(path), *(["--skip-bad"] if skip_bad else []), *store)
        if assert_clean(argv) == 0:  # what was imported reads back
            assert_clean(("store", "export", "-w", "default", "-o", str(root / "out.jsonl"), *store))


# -- --input values and queries ------------------------------------------------------------------


@settings(FUZZ, max_examples=EXAMPLES["input"])
@given(
    key=st.one_of(st.sampled_from(sorted(STANDARD_INPUTS)), identifier, raw_text),
    value=st.one_of(yaml_value, raw_text),
    flow=st.sampled_from(["set_query", "personal_retrieve"]),
)
def test_fuzz_input_values(key: str, value: str, flow: str) -> None:
    with throwaway_store() as (_, store):
        assert_clean(
            ("run", flow, "-q", "what did I do last weekend?", "-u", "alice", f"--input={key}={value}", *store)
        )


@settings(FUZZ, max_examples=EXAMPLES["query"])
@given(
    query=st.one_of(
        raw_text,
        st.text(min_size=3_990, max_size=4_010),
        st.sampled_from(["", " ", "\x00", "last weekend", "下周五", "2024-13-45", "9" * 5000, "x" * 5_000_000]),
    )
)
def test_fuzz_queries(query: str) -> None:
    with throwaway_store() as (_, store):
        assert_clean(("run", "personal_retrieve", f"--query={query}", "-u", "alice", *store))
