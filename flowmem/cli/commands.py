"""The CLI's commands. Each takes the parsed arguments and returns an exit code."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import yaml

from flowmem.cli import render
from flowmem.cli.explain import explain
from flowmem.cli.options import checked_workspace, open_app
from flowmem.core.annotations import is_text
from flowmem.core.errors import FlowValidationError, InputError, Problem
from flowmem.core.safe_yaml import safe_load
from flowmem.flow.include import point_to_included
from flowmem.flow.inputs import STANDARD_INPUTS
from flowmem.flow.op import OPS
from flowmem.flow.plugins import load_builtins, load_plugins


def run(args: argparse.Namespace) -> int:
    inputs = _inputs(args)
    with open_app(args) as app:
        response = app.run_sync(args.flow, **inputs)
    if args.json:
        print(json.dumps(response.to_dict(trace=args.trace or args.explain), ensure_ascii=False, indent=2))
    elif args.explain:
        print(explain(response))
    else:
        print(render.response(response))
    if args.trace and not args.json and response.trace is not None:
        print(render.trace(response.trace), file=sys.stderr)
    return 0


def _inputs(args: argparse.Namespace) -> dict[str, Any]:
    inputs: dict[str, Any] = {}
    problems: list[Problem] = []
    for text in args.input:
        key, sep, raw = text.partition("=")
        if not sep or not key.strip():
            problems.append(Problem(f"--input {text!r}", "expected key=value, e.g. --input top_k=5"))
            continue
        spec = STANDARD_INPUTS.get(key)
        if spec is not None and is_text(spec.type):
            inputs[key] = raw
            continue
        try:
            inputs[key] = safe_load(raw) if raw.strip() else raw
        except yaml.YAMLError:
            inputs[key] = raw
    checked_workspace(args.workspace_id)  # `-w ""` is a mistake, not "no -w"
    for key in ("query", "user_id", "workspace_id"):
        value = getattr(args, key)
        if value is not None:
            inputs[key] = value
    if problems:
        raise InputError(problems)
    return inputs


def flows(args: argparse.Namespace) -> int:
    with open_app(args) as app:
        rows: list[dict[str, Any]] = []
        for name in app.flow_names:
            entry = app.config.flow[name]
            try:
                compiled = app.flow(name)
            except FlowValidationError as exc:
                rows.append(
                    {
                        "name": name,
                        "description": entry.description,
                        "flow": entry.flow_content,
                        "problems": [p.render() for p in exc.problems],
                    }
                )
                continue
            rows.append(render.flow_row(compiled))
    for row in rows:
        row["included_by"] = [other["name"] for other in rows if row["name"] in other.get("includes", ())]
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        print(render.flows(rows))
    return 0


def ops(args: argparse.Namespace) -> int:
    load_builtins()
    load_plugins(args.plugin)
    rows = [render.op_row(name, op_cls) for name, op_cls in OPS.items()]
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        print(render.ops(rows))
    return 0


def keys(args: argparse.Namespace) -> int:
    load_builtins()
    load_plugins(args.plugin)
    rows = render.key_rows(OPS.items())
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        print(render.keys(rows))
    return 0


def config_show(args: argparse.Namespace) -> int:
    with open_app(args) as app:
        data = render.resolved_config(app)
    print(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120).rstrip())
    return 0


def validate(args: argparse.Namespace) -> int:
    with open_app(args) as app:
        results = point_to_included(app.validate())
    problems = [p for found in results.values() for p in found]
    for name, found in results.items():
        print(f"{'ok ' if not found else 'BAD'} {name}")
    if problems:
        raise FlowValidationError(problems)
    print(f"all {len(results)} flows are valid")
    return 0
