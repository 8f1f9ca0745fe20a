"""``flowmem eval locomo PATH``: evidence recall@k of a flow on LoCoMo, with an A/B baseline in the same run.

``flowmem eval updates FILE|shipped|dev|heldout …``: what the write path stores after chats that change, repeat and
date facts, and whether search then answers the scenarios' questions; beside a naive baseline, each file on its own.

``flowmem eval questions FILE|sample``: is the memory that answers a user's question ranked first?
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from flowmem.core.errors import InputError, Problem
from flowmem.schema.kinds import SEARCH_FLOW, WRITE_FLOW


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    evaluate = sub.add_parser("eval", help="evaluate flows on a benchmark")
    benchmarks = evaluate.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    locomo = benchmarks.add_parser(
        "locomo", parents=[common], help="evidence recall@k on a LoCoMo file",
        description="Ingest each conversation's turns, ask every question of categories 1-4, report evidence "
        "recall@k overall and per category, latency and LLM use.",
    )  # fmt: skip
    locomo.add_argument("path", metavar="PATH", help="a file in the LoCoMo format")
    locomo.add_argument("--flow", default=SEARCH_FLOW, help=f"the flow to evaluate (default {SEARCH_FLOW})")
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
    locomo.add_argument(
        "--compare-ingest", choices=["turns", "summary"],
        help="also run a baseline ingested this way (the write path against raw turns in one run)",
    )  # fmt: skip
    locomo.add_argument("--use-config-store", action="store_true", help="evaluate the configured vector store")
    locomo.add_argument("--json", action="store_true", help="print JSON instead of the markdown table")
    locomo.add_argument("-o", "--output", metavar="FILE", help="also write the JSON here")
    locomo.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides (both runs)")
    locomo.set_defaults(handler=cmd_locomo)
    updates = benchmarks.add_parser(
        "updates", parents=[common], help="are superseded facts expired, event dates right, repeats merged?",
        description="Send each scenario's chat through the write flow and check the user's memories after it: "
        "stale-fact rate, wrongly-expired rate, event-date accuracy, duplicate rate and lost facts, per scenario "
        "and overall; then ask the scenarios' questions with the search flow (right first, in top 5, MRR@10). "
        "Beside a baseline without contra_repeat_op (every new memory added) and a naive baseline (every user "
        "turn stored as said, plain vector recall). Several files are each reported on their own. Scenario "
        "format and matching rules: flowmem/eval/updates.py.",
    )  # fmt: skip
    updates.add_argument(
        "paths", nargs="+", metavar="FILE",
        help="scenario files (JSONL), then any key=value config overrides; 'shipped' for the 57 that come with "
        "flowmem (CC0), 'dev' / 'heldout' for every file of that half of flowmem/eval/data/scenarios-2026/",
    )  # fmt: skip
    updates.add_argument("--flow", default=WRITE_FLOW, help=f"the write flow (default {WRITE_FLOW})")
    updates.add_argument(
        "--search-flow",
        default=SEARCH_FLOW,
        help=f"the flow questions are asked with (default {SEARCH_FLOW})",
    )
    updates.add_argument("--batch", type=int, default=50, help="messages per flow run, as ingest (default 50)")
    updates.add_argument("--no-baseline", action="store_true", help="skip the baseline without contra_repeat_op")
    updates.add_argument(
        "--naive", action=argparse.BooleanOptionalAction, default=True,
        help="also run the naive baseline: every user turn stored as said, questions by vector_baseline (default on)",
    )  # fmt: skip
    updates.add_argument(
        "--compare", nargs="+", action="extend", default=[], metavar="key=value",
        help="also run the write flow with these overrides",
    )  # fmt: skip
    updates.add_argument("--json", action="store_true", help="print JSON (every scenario) instead of markdown")
    updates.add_argument("-o", "--output", metavar="FILE", help="also write the JSON here")
    updates.set_defaults(handler=cmd_updates, overrides=[])
    questions = benchmarks.add_parser(
        "questions", parents=[common], help="right memory first, recall@k and MRR on questions with known answers",
        description="Store the memories in an ephemeral store, ask every question, and report the share whose "
        "first memory answers it, recall@k of the answering memories and MRR, overall, per language and per tag. "
        "Question format: flowmem/eval/questions.py.",
    )  # fmt: skip
    questions.add_argument(
        "path", metavar="FILE", help="questions (JSONL), or 'sample' for the 65 on the bundled sample (CC0)"
    )
    questions.add_argument("--memories", metavar="FILE", help="the memories (JSONL; default the bundled sample)")
    questions.add_argument("--flow", default=SEARCH_FLOW, help=f"the flow to evaluate (default {SEARCH_FLOW})")
    questions.add_argument("--k", default="1,3,5,10", help="the cut-offs, comma-separated (default 1,3,5,10)")
    questions.add_argument(
        "--compare", nargs="+", action="extend", default=[], metavar="key=value",
        help="also run a baseline: the same flow with these overrides",
    )  # fmt: skip
    questions.add_argument("--compare-flow", metavar="NAME", help="also run this flow as the baseline")
    questions.add_argument("--json", action="store_true", help="print JSON (every question) instead of markdown")
    questions.add_argument("-o", "--output", metavar="FILE", help="also write the JSON here")
    questions.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides (every run)")
    questions.set_defaults(handler=cmd_questions)


def parse_ks(text: str) -> list[int]:
    """``--k 1,5,10`` → ``[1, 5, 10]``; anything else is an InputError naming the option."""
    try:
        ks = sorted({int(k) for k in text.split(",") if k.strip()})
    except ValueError:
        raise InputError(Problem("--k", f"expected whole numbers separated by commas, got {text!r}")) from None
    if not ks or ks[0] < 1:
        raise InputError(Problem("--k", f"cut-offs are whole numbers ≥ 1, got {text!r}"))
    return ks


def cmd_locomo(args: argparse.Namespace) -> int:
    from flowmem.eval.locomo import load
    from flowmem.eval.report import markdown, summarize
    from flowmem.eval.runner import EmbeddingCache, run_locomo, stderr_progress

    ks = parse_ks(args.k)
    conversations = load(args.path)
    specs = run_specs(args, args.ingest)
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


def run_specs(args: argparse.Namespace, ingest: Any = "turns") -> list[Any]:
    """The flow under test, and the baseline of ``--compare`` / ``--compare-flow`` / ``--compare-ingest`` when given
    (``--compare-ingest``: the same flow and overrides, the conversations ingested the other way)."""
    from flowmem.eval.runner import RunSpec

    compare_ingest = getattr(args, "compare_ingest", None) or ingest
    label = f"{args.flow} ({ingest})" if compare_ingest != ingest else args.flow
    specs = [RunSpec(label, args.flow, tuple(args.overrides), ingest)]
    if args.compare or args.compare_flow or compare_ingest != ingest:
        flow = args.compare_flow or args.flow
        label = "baseline" if flow == args.flow else flow
        label = f"{label} ({compare_ingest})" if compare_ingest != ingest else label
        specs.append(RunSpec(label, flow, (*args.overrides, *args.compare), compare_ingest))
    return specs


def cmd_questions(args: argparse.Namespace) -> int:
    from flowmem.eval.questions import check_answers, load, shipped_questions_path
    from flowmem.eval.questions_run import QuestionsRun, markdown, run_questions
    from flowmem.eval.runner import EmbeddingCache, stderr_progress
    from flowmem.eval.samples import load_memories, memories_path
    from flowmem.schema.jsonl import read_jsonl
    from flowmem.schema.memory import Memory

    ks = parse_ks(args.k)
    path = str(shipped_questions_path()) if args.path == "sample" else args.path
    questions = load(path)
    if args.memories:
        try:
            with open(args.memories, encoding="utf-8") as stream:
                memories = [m for _, m in read_jsonl(stream, Memory, source=args.memories)]
        except OSError as exc:
            raise InputError(Problem(args.memories, f"cannot read the memories: {exc.strerror or exc}")) from None
    else:
        memories = load_memories()
    if not memories:
        raise InputError(Problem(args.memories or str(memories_path()), "holds no memories"))
    check_answers(questions, memories, path)
    cache = EmbeddingCache()
    progress = stderr_progress()

    async def run_all() -> list[QuestionsRun]:
        return [
            await run_questions(questions, memories, spec, config=args.config, plugins=args.plugin, top_k=max(ks),
                                cache=cache, progress=progress)
            for spec in run_specs(args)
        ]  # fmt: skip

    runs = asyncio.run(run_all())
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    report: dict[str, Any] = {"benchmark": "questions", "path": path, "memories": args.memories or "sample",
                              "k": ks, "runs": [run.to_dict(ks) for run in runs]}  # fmt: skip
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2, ensure_ascii=False)
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else markdown(runs, ks))
    return 0


def cmd_updates(args: argparse.Namespace) -> int:
    """Every file on its own: its runs in ``runs``, the naive baseline in ``naive_baseline``.

    One file: the JSON is that file's report (``path``, ``runs``, ``naive_baseline``) as it was before several
    files; several: ``files``, a list of them.
    """
    from flowmem.cli.store import is_override
    from flowmem.eval.runner import stderr_progress
    from flowmem.eval.updates import load, resolve
    from flowmem.eval.updates_run import BASELINE_FLOW, UpdatesRun, UpdatesSpec, markdown, naive_spec, run_updates

    if args.batch < 1:
        raise InputError(Problem("--batch", f"must be at least 1, got {args.batch}"))
    overrides = (*args.overrides, *(token for token in args.paths if is_override(token)))
    names = [token for token in args.paths if not is_override(token)]
    if not names:
        raise InputError(Problem("FILE", "give at least one scenario file, or shipped, dev or heldout"))
    paths = list(dict.fromkeys(str(path) for name in names for path in resolve(name)))
    files = [(path, load(path)) for path in paths]  # every file checked before any run
    specs = [UpdatesSpec(args.flow, args.flow, overrides, search_flow=args.search_flow)]
    if not args.no_baseline:
        specs.append(UpdatesSpec("baseline (no contra_repeat_op)", BASELINE_FLOW, overrides,
                                 search_flow=args.search_flow))  # fmt: skip
    if args.compare:
        specs.append(UpdatesSpec("compare", args.flow, (*overrides, *args.compare), search_flow=args.search_flow))
    if args.naive:
        specs.append(naive_spec(overrides))
    show = stderr_progress()

    async def run_all() -> list[list[UpdatesRun]]:
        results = []
        for path, scenarios in files:

            def progress(message: str, name: str = Path(path).name) -> None:
                show(message if len(files) == 1 else f"{name}: {message}")

            results.append([await run_updates(scenarios, spec, config=args.config, plugins=args.plugin,
                                              batch=args.batch, progress=progress) for spec in specs])  # fmt: skip
        return results

    results = asyncio.run(run_all())
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    reports: list[dict[str, Any]] = []
    sections: list[str] = []
    for (path, _), runs in zip(files, results, strict=True):
        written = [run for run in runs if run.spec.ingest == "flow"]
        naive = next((run.to_dict() for run in runs if run.spec.ingest == "turns"), None)
        reports.append({"path": path, "runs": [run.to_dict() for run in written], "naive_baseline": naive})
        sections.append(markdown(runs) if len(files) == 1 else f"## {path}\n\n{markdown(runs)}")
    report: dict[str, Any] = {"benchmark": "updates", "search_flow": args.search_flow}
    report.update(reports[0] if len(reports) == 1 else {"files": reports})
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2, ensure_ascii=False)
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else "\n\n".join(sections))
    return 0
