"""``flowmem eval locomo PATH``: evidence recall@k of a flow on LoCoMo, with an A/B baseline in the same run."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from flowmem.errors import InputError, Problem


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    evaluate = sub.add_parser("eval", help="evaluate flows on a benchmark")
    benchmarks = evaluate.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    locomo = benchmarks.add_parser(
        "locomo", parents=[common], help="evidence recall@k on a LoCoMo file",
        description="Ingest each conversation's turns, ask every question of categories 1-4, report evidence "
        "recall@k overall and per category, latency and LLM use.",
    )  # fmt: skip
    locomo.add_argument("path", metavar="PATH", help="a file in the LoCoMo format")
    locomo.add_argument("--flow", default="personal_retrieve", help="the flow to evaluate (default personal_retrieve)")
    locomo.add_argument("--k", default="1,5,10,20", help="the cut-offs, comma-separated (default 1,5,10,20)")
    locomo.add_argument(
        "--ingest", choices=["turns", "summary"], default="turns",
        help="turns: every turn a conversation memory; summary: the turns through personal_summary",
    )  # fmt: skip
    locomo.add_argument(
        "--compare", nargs="+", action="extend", default=[], metavar="key=value",
        help="also run a baseline: the same flow with these overrides",
    )  # fmt: skip
    locomo.add_argument("--compare-flow", metavar="NAME", help="also run this flow as the baseline")
    locomo.add_argument("--use-config-store", action="store_true", help="evaluate the configured vector store")
    locomo.add_argument("--json", action="store_true", help="print JSON instead of the markdown table")
    locomo.add_argument("-o", "--output", metavar="FILE", help="also write the JSON here")
    locomo.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides (both runs)")
    locomo.set_defaults(handler=cmd_locomo)


def cmd_locomo(args: argparse.Namespace) -> int:
    from flowmem.eval.locomo import load
    from flowmem.eval.report import markdown, summarize
    from flowmem.eval.runner import EmbeddingCache, RunSpec, run_locomo, stderr_progress

    try:
        ks = sorted({int(k) for k in args.k.split(",") if k.strip()})
    except ValueError:
        raise InputError(Problem("--k", f"expected whole numbers separated by commas, got {args.k!r}")) from None
    if not ks or ks[0] < 1:
        raise InputError(Problem("--k", f"cut-offs are whole numbers ≥ 1, got {args.k!r}"))
    conversations = load(args.path)
    specs = [RunSpec(args.flow, args.flow, tuple(args.overrides), args.ingest)]
    if args.compare or args.compare_flow:
        flow = args.compare_flow or args.flow
        label = "baseline" if flow == args.flow else flow
        specs.append(RunSpec(label, flow, (*args.overrides, *args.compare), args.ingest))
    cache = EmbeddingCache()
    progress = stderr_progress()

    async def run_all() -> list[dict[str, Any]]:
        summaries = []
        for spec in specs:
            result = await run_locomo(
                conversations, spec, config=args.config, plugins=args.plugin, top_k=max(ks),
                use_config_store=args.use_config_store, cache=cache, progress=progress,
            )  # fmt: skip
            summaries.append(summarize(result, ks))
        return summaries

    summaries = asyncio.run(run_all())
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    report: dict[str, Any] = {"benchmark": "locomo", "path": args.path, "k": ks, "runs": summaries}
    if len(summaries) == 2:
        first, second = summaries[0]["overall"], summaries[1]["overall"]
        report["difference"] = {key: round(first[key] - second[key], 4) for key in first}
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2, ensure_ascii=False)
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else markdown(summaries, ks))
    return 0
