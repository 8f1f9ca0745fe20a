"""Text output of the CLI."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined, to_jsonable_python

from flowmem.app import App
from flowmem.core.annotations import type_name
from flowmem.core.redact import redact
from flowmem.core.trace import Trace
from flowmem.flow.compile import CompiledFlow
from flowmem.flow.inputs import STANDARD_INPUTS
from flowmem.flow.op import Op
from flowmem.flow.response import Response
from flowmem.keys import KEYS, Key, key_named


def response(resp: Response) -> str:
    lines: list[str] = []
    if resp.answer:
        lines.append(resp.answer)
    elif resp.memories:
        lines += [f"{i}. {m.display_line()}" for i, m in enumerate(resp.memories, 1)]
    for key, value in resp.outputs.items():
        lines.append(f"{key}: {_scalar(value)}")
    if resp.warnings:
        lines.append("warnings:")
        lines += [f"  - {w}" for w in resp.warnings]
    if not lines:
        lines.append("(the flow returned no answer, memories or outputs)")
    return "\n".join(lines)


def _scalar(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(v, BaseModel) for v in value):
        return "".join(f"\n  - {v.model_dump_json(exclude_defaults=True)}" for v in value) or "[]"
    jsonable = to_jsonable_python(value, fallback=str)
    return jsonable if isinstance(jsonable, str) else json.dumps(jsonable, ensure_ascii=False)


def trace(t: Trace) -> str:
    usage = t.usage
    head = f"flow {t.flow} · run {t.flow_id} · {t.duration_ms:.3f} ms"
    if usage.llm_calls:
        head += f" · {usage.llm_calls} LLM calls, {usage.total_tokens} tokens"
    spans = sorted(t.spans, key=lambda s: s.position)
    # An op of an included flow says which: `retrieve_memory_op (personal_recall)`.
    names = [f"{span.op} ({span.flow})" if span.flow else span.op for span in spans]
    width = max([28, *map(len, names)])
    rows = [head, f"  {'#':>2}  {'op':<{width}} {'status':<9} {'start ms':>9} {'ms':>9}  notes"]
    for span, name in zip(spans, names, strict=True):
        notes = "; ".join([*(f"{k}={v}" for k, v in span.notes.items()), *span.warnings])
        timing = f"{span.start_ms:>9.3f} {span.duration_ms:>9.3f}"
        rows.append(f"  {span.position:>2}  {name:<{width}} {span.status:<9} {timing}  {notes}".rstrip())
    return "\n".join(rows)


def flow_row(flow: CompiledFlow) -> dict[str, Any]:
    return {
        "name": flow.name,
        "description": flow.entry.description,
        "flow": flow.text,
        "inputs": {
            "required": list(flow.required_inputs),
            "optional": sorted(k for k in flow.accepted_inputs if k not in flow.required_inputs),
        },
        "outputs": ["answer", "memories", *flow.outputs],
        "includes": list(flow.includes),
    }


def flows(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "(no flows configured)"
    out: list[str] = []
    for row in rows:
        out.append(f"{row['name']}" + (f" — {row['description']}" if row["description"] else ""))
        out.append(f"    {row['flow']}")
        if "problems" in row:
            out += [f"    ! {p}" for p in row["problems"]]
        else:
            required = ", ".join(row["inputs"]["required"]) or "none"
            out.append(f"    needs: {required}")
            if row["includes"]:
                out.append(f"    includes: {', '.join(row['includes'])}")
        if row.get("included_by"):
            out.append(f"    included by: {', '.join(row['included_by'])}")
        out.append("")
    return "\n".join(out).rstrip()


def op_row(name: str, op_cls: type[Op]) -> dict[str, Any]:
    params = []
    for param, info in op_cls.Params.model_fields.items():
        default = (
            info.get_default(call_default_factory=True)
            if info.default is not PydanticUndefined or (info.default_factory is not None)
            else None
        )
        params.append(
            {
                "name": param,
                "type": type_name(info.annotation),
                "default": to_jsonable_python(default, fallback=str),
                "required": info.is_required(),
                "description": info.description or "",
            }
        )
    return {
        "name": name,
        "summary": op_cls.summary(),
        "reads": [str(key) for key in op_cls.reads],  # names: a Key is a str subclass, which YAML cannot write
        "optional_reads": [str(key) for key in op_cls.optional_reads],
        "writes": [str(key) for key in op_cls.writes],
        "uses": list(op_cls.uses),
        "degradation": op_cls.degradation,
        "params": params,
        "module": op_cls.__module__,
    }


def ops(rows: list[dict[str, Any]]) -> str:
    out: list[str] = []
    for row in rows:
        out.append(f"{row['name']} — {row['summary']}")
        io = [f"reads: {', '.join(row['reads']) or '-'}"]
        if row["optional_reads"]:
            io.append(f"optional: {', '.join(row['optional_reads'])}")
        io.append(f"writes: {', '.join(row['writes']) or '-'}")
        if row["uses"]:
            io.append(f"uses: {', '.join(row['uses'])}")
        out.append("    " + " · ".join(io))
        if row["degradation"]:
            out.append(f"    on failure: {row['degradation']}")
        for p in row["params"]:
            default = "required" if p["required"] else f"= {p['default']!r}"
            doc = f"  — {p['description']}" if p["description"] else ""
            out.append(f"    {p['name']}: {p['type']} {default}{doc}")
        out.append("")
    return "\n".join(out).rstrip()


def key_rows(ops: list[tuple[str, type[Op]]]) -> list[dict[str, Any]]:
    """The catalogue of context keys (:mod:`flowmem.keys`), each with the ops that write and read it as their
    classes declare; a key an op declares outside the catalogue has a row too, and an op that declares a key with
    another type than the catalogue's is listed with its own."""
    rows: dict[str, dict[str, Any]] = {}

    def row(key: Key[Any]) -> dict[str, Any]:
        return rows.setdefault(
            str(key),
            {"name": str(key), "type": type_name(key.type), "doc": key.doc, "input": key in STANDARD_INPUTS,
             "written_by": [], "read_by": []},
        )  # fmt: skip

    for _, key in KEYS.items():
        row(key)
    for op_name, op_cls in ops:
        for field, declared in (("written_by", op_cls.writes), ("read_by", (*op_cls.reads, *op_cls.optional_reads))):
            for item in declared:
                key = key_named(item)
                entry = row(key)
                own = type_name(key.type)
                name = op_name if own == entry["type"] else f"{op_name} ({own})"
                if name not in entry[field]:
                    entry[field].append(name)
    return sorted(rows.values(), key=lambda r: r["name"])


def keys(rows: list[dict[str, Any]]) -> str:
    out: list[str] = []
    for row in rows:
        doc = f" — {row['doc']}" if row["doc"] else ""
        out.append(f"{row['name']}: {row['type']}{doc}")
        where = ["flow input"] if row["input"] else []
        where.append(f"written by: {', '.join(row['written_by']) or '-'}")
        where.append(f"read by: {', '.join(row['read_by']) or '-'}")
        out.append("    " + " · ".join(where))
    return "\n".join(out)


def resolved_config(app: App) -> dict[str, Any]:
    """The resolved config with every op's effective params (defaults filled in), secrets redacted."""
    data = app.config.model_dump(mode="json", exclude_none=True)
    ops_used = {label for flow in app.config.flow.values() for label in _op_labels(flow.flow_content)}
    for label in sorted(ops_used | set(app.config.op)):
        setting, _ = app.resolved.op(label, "config show")
        if setting is not None:
            entry = data["op"].setdefault(label, {})
            entry["backend"] = setting.op_cls.name
            entry["params"] = setting.params.model_dump(mode="json")
    redacted: dict[str, Any] = redact(data, app.resolved.secret_paths)
    return redacted


def _op_labels(text: str) -> list[str]:
    from flowmem.core.errors import FlowSyntaxError
    from flowmem.flow.expr import op_refs, parse_flow

    try:
        return [ref.name for ref in op_refs(parse_flow(text))]
    except FlowSyntaxError:
        return []
