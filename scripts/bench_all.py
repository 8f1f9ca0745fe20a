"""Run every benchmark and the LoCoMo dev evaluation, and write BENCHMARKS.md from what they print.

Runs, each as its own process: the engine, store, retrieve, context and ingest benchmarks
(`scripts/bench_*.py`), `flowmem eval updates` on the shipped scenarios, `flowmem eval questions` on the
bundled sample's questions, and `flowmem eval locomo` on the dev data — the default flow against the
plain-vector baseline in one run, plus one run per default that is switched off, to show what each
contributes. Comparisons are ratios measured in the
same run. The embedding-model comparison (`scripts/compare_embedders.py`, which needs a virtualenv
per candidate) is included as last measured, from `scripts/embedding_comparison.md`.

Usage: python scripts/bench_all.py [--quick] [--no-elasticsearch] [--output BENCHMARKS.md]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import machine

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
LOCOMO = REPO.parent / "shared" / "data" / "locomo" / "locomo_dev.json"
_BOTH = "(retrieve_memory_op | lexical_recall_op) >> recall_fuse_op"
_SHIPPED_TAIL = "semantic_rank_op >> neighbour_context_op >> speaker_match_op >> dialogue_act_op"


def _recall(branch: str) -> str:
    """The override that makes the recall branch (the flow ``personal_recall``, which personal_retrieve includes)
    ``branch``; the rest as shipped."""
    return f"flow.personal_recall.flow_content={branch}"


ABLATIONS = {
    "semantic_rank_op offline scorer `recall` instead of `lexical`": [
        "op.semantic_rank_op.params.offline_scorer=recall"
    ],
    "retrieve_memory_op `time_recall_k=0`": ["op.retrieve_memory_op.params.time_recall_k=0"],
    "retrieve_memory_op `top_k=20` instead of the shipped 40": ["op.retrieve_memory_op.params.top_k=20"],
    "fuse_rerank_op `fuse_time_ratio=2`": ["op.fuse_rerank_op.params.fuse_time_ratio=2"],
    # Issue 14's pieces, one switched off (or, for second_hop_op, on) at a time.
    "without word recall (`lexical_recall_op`, `recall_fuse_op`)": [_recall(f"retrieve_memory_op >> {_SHIPPED_TAIL}")],
    "`recall_fuse_op` method `rrf` instead of `union`": ["op.recall_fuse_op.params.method=rrf"],
    "`recall_fuse_op` method `linear` instead of `union`": ["op.recall_fuse_op.params.method=linear"],
    "without `neighbour_context_op`": [_recall(f"{_BOTH} >> semantic_rank_op >> speaker_match_op >> dialogue_act_op")],
    "without `speaker_match_op`": [_recall(f"{_BOTH} >> semantic_rank_op >> neighbour_context_op >> dialogue_act_op")],
    "without `dialogue_act_op`": [_recall(f"{_BOTH} >> semantic_rank_op >> neighbour_context_op >> speaker_match_op")],
    "with `second_hop_op` (shipped, off by default)": [_recall(f"{_BOTH} >> {_SHIPPED_TAIL} >> second_hop_op")],
    "fuse_rerank_op `type_ratio_mode=multiply` (the seed's)": ["op.fuse_rerank_op.params.type_ratio_mode=multiply"],
    "semantic_rank_op `overlap_text=content` (no expanded key)": ["op.semantic_rank_op.params.overlap_text=content"],
    "the session-start flow (none of issue 14's pieces)": [_recall("retrieve_memory_op >> semantic_rank_op")],
}


def run_json(argv: list[str]) -> dict[str, Any]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, cwd=REPO, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout)
    result["_seconds"] = round(time.perf_counter() - started, 1)
    print(f"  {' '.join(argv)}: {result['_seconds']} s", file=sys.stderr)
    return result


def evaluate(*extra: str) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run(
            [sys.executable, "-m", "flowmem", "eval", "locomo", str(LOCOMO), "-o", out.name, "--json", *extra],
            cwd=REPO, capture_output=True, text=True, check=True,
        )  # fmt: skip
        result: dict[str, Any] = json.loads(Path(out.name).read_text())
        return result


def fmt(value: Any, unit: str = "") -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        text = f"{value:,.1f}" if value >= 100 else f"{value:.2f}" if value >= 1 else f"{value:.3f}"
    else:
        text = f"{value:,}"
    return f"{text}{unit}"


def ok(met: Any) -> str:
    return "met" if met else "not met" if met is not None else "–"


def startup_section(r: dict[str, Any]) -> list[str]:
    return [
        "## Start-up",
        "",
        f"Command: `python scripts/bench_startup.py --runs {r['runs']}` — each a new process; medians.",
        f"Targets: `flowmem --version` ≤ 8× `python -c pass` — {ok(r['met']['version'])}; a cold"
        f" `{r['search_command']}` on the bundled sample ≤ 1.5 s — {ok(r['met']['cold_search'])}.",
        "",
        "| command | median |",
        "|---|---|",
        f"| `python -c pass` | {fmt(r['python_c_pass_s'] * 1000)} ms |",
        f"| `flowmem --version` | {fmt(r['flowmem_version_s'] * 1000)} ms ({r['version_vs_bare']}×) |",
        f"| cold `flowmem search` (config, store, embedding model, one query) | {fmt(r['cold_search_s'])} s |",
        "",
    ]


def serve_section(runs: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """``scripts/bench_serve.py``: a real ``flowmem serve`` under 16 clients, 90 % search / 10 % add."""
    lines = [
        "## `flowmem serve` under load (`scripts/bench_serve.py`)",
        "",
        "16 clients (in the benchmark's process, on the same 2 cores as the server), 90 % `POST /v1/search` /",
        "10 % `POST /v1/memories` for 60 s, 8 users with 25 memories each to start, offline local e5 embedder;",
        "then every acknowledged add is looked up. Targets: ≥ 60 searches/s and search p99 ≤ 250 ms, 0 errors,",
        "0 acknowledged adds missing (the local store, and the same run against Elasticsearch, whose JVM shares",
        "the 2 cores). Searches ask 8 questions over and over; simultaneous identical searches share one query",
        "embedding (`embed_one`), so `--queries unique` (every search's text distinct) shows the service when no",
        "two agents ask alike: the e5 embedder, one core's worth, is then the limit.",
        "",
        "| store | command | requests/s | searches/s | search p50 / p95 / p99 (ms) | add p50 / p99 (ms) | errors"
        " | acknowledged adds missing | load before | targets |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for command, r in runs:
        search, add = r["search_ms"], r["add_ms"]
        met = (r["searches_per_s"] >= 60 and search.get("p99", float("inf")) <= 250 and r["errors"] == 0
               and r["acknowledged_adds_missing"] == 0)  # fmt: skip
        lines.append(
            f"| {r['setup']['store']} | `{command}` | {fmt(r['requests_per_s'])} | {fmt(r['searches_per_s'])} |"
            f" {fmt(search.get('p50'))} / {fmt(search.get('p95'))} / {fmt(search.get('p99'))} |"
            f" {fmt(add.get('p50'))} / {fmt(add.get('p99'))} | {r['errors']} |"
            f" {r['acknowledged_adds_missing']} of {r['acknowledged_adds']} | {r['load_average_before'][0]} |"
            f" {'met' if met else 'not met'} |"
        )
    return [*lines, ""]


def engine_section(r: dict[str, Any]) -> list[str]:
    return [
        "## Engine overhead",
        "",
        f"Command: `python scripts/bench_engine.py --runs {r['runs_per_flow']}` — no-op ops through"
        " `await app.run(...)`.",
        "Target: p50 ≤ 25 µs per op and ≤ 0.5 ms per 10-op flow — " + ok(r["meets_targets"]) + ".",
        "",
        "| measure | p50 | p95 |",
        "|---|---|---|",
        f"| whole 10-op sequence | {fmt(r['flow_10_ops']['p50'])} µs | {fmt(r['flow_10_ops']['p95'])} µs |",
        f"| per op in it | {fmt(r['per_op_in_10_op_flow']['p50'])} µs | {fmt(r['per_op_in_10_op_flow']['p95'])} µs |",
        f"| one more op (marginal) | {fmt(r['marginal_per_op']['p50'])} µs | {fmt(r['marginal_per_op']['p95'])} µs |",
        f"| 1-op flow | {fmt(r['flow_1_op']['p50'])} µs | {fmt(r['flow_1_op']['p95'])} µs |",
        f"| 10 parallel branches | {fmt(r['flow_10_parallel_branches']['p50'])} µs | "
        f"{fmt(r['flow_10_parallel_branches']['p95'])} µs |",
        "",
    ]


def store_section(results: list[tuple[str, dict[str, Any]]]) -> list[str]:
    lines = [
        "## Vector stores",
        "",
        "Random 384-dim unit vectors, upserts of 1,000, search top_k=10 over 200 queries after a warm-up.",
        "Targets: local search p50 ≤ 2 ms @10k and ≤ 15 ms @100k, local ingest ≥ 20,000/s; Elasticsearch kNN p50",
        "≤ 15 ms @100k, bulk ≥ 2,000/s.",
    ]
    for store in ("local", "elasticsearch"):
        runs = [(command, r) for command, r in results if store in r["results"]]
        if not runs:
            continue
        lines += [
            "",
            "| store | mode | size | ingest /s | search p50 / p95 (ms) | with type filter p50 | recall@10 "
            "| after merges p50 |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for _, r in runs:
            for size, by_mode in r["results"][store].items():
                modes = by_mode.items() if store == "local" else [(r["setup"].get("ingest", ""), by_mode)]
                for mode, x in modes:
                    if not isinstance(x, dict) or "ingest" not in x:
                        continue
                    merged = x.get("after_background_merges", {}).get("search_ms", {}).get("p50")
                    lines.append(
                        f"| {store} | {mode} | {int(size):,} | {fmt(x['ingest']['memories_per_s'])} | "
                        f"{fmt(x['search_ms']['p50'])} / {fmt(x['search_ms']['p95'])} | "
                        f"{fmt(x['search_ms_with_type_filter']['p50'])} | {fmt(x['search_ms'].get('recall_at_10'))} | "
                        f"{fmt(merged)} |"
                    )
        lines.append("")
        for command, r in runs:
            measured = [(name, t) for name, t in r["targets"].items() if t["measured"] is not None]
            verdicts = "; ".join(f"{name} {fmt(t['measured'])} ({ok(t['met'])})" for name, t in measured)
            lines.append(f"- `{command}`: {verdicts}.")
    return [*lines, ""]


def retrieve_section(r: dict[str, Any]) -> list[str]:
    at_10k = [x for x in r["results"] if x["memories"] == 10_000]
    sizes = ",".join(sorted({str(x["memories"]) for x in r["results"]}, key=int))
    lines = [
        "## Retrieval end to end",
        "",
        f"`personal_retrieve` with the shipped defaults ({r['config']}) over four shapes of synthetic store (chat",
        "turns spread in time, a bulk import within 3 s, notes over months, 100 users in one workspace); the query",
        "embedding is measured apart. Target (issue 24): without the embedding p50 ≤ 5 ms at 10k on every shape — "
        + ok(bool(at_10k) and all(x["flow_without_embedding_ms"]["p50"] <= 5 for x in at_10k))
        + ".",
        f"Command: `python scripts/bench_retrieve.py --sizes {sizes}`",
        "",
        "| shape | memories | embedder | flow p50 / p95 | query embedding p50 / p95 | without embedding p50 / p95 |",
        "|---|---|---|---|---|---|",
    ]
    for x in r["results"]:
        lines.append(
            f"| {x['shape']} | {x['memories']:,} | {x['embedder']} | "
            f"{fmt(x['flow_ms']['p50'])} / {fmt(x['flow_ms']['p95'])} ms | "
            f"{fmt(x['query_embedding_ms']['p50'])} / {fmt(x['query_embedding_ms']['p95'])} ms | "
            f"{fmt(x['flow_without_embedding_ms']['p50'])} / {fmt(x['flow_without_embedding_ms']['p95'])} ms |"
        )
    p = r["parallel_llm_branches"]["flow_ms"]
    lines += [
        "",
        f"Two 300 ms LLM calls in parallel branches (fake LLM): p50 {fmt(p['p50'])} ms, p95 {fmt(p['p95'])} ms — "
        f"{p['p50'] / 600:.2f}× the 600 ms they would take in sequence (target ≤ 350 ms: "
        f"{ok(r['parallel_meets_target_350ms'])}). Per-op medians: the script's JSON (`op_median_ms`).",
        "",
    ]
    return lines


def context_section(r: dict[str, Any]) -> list[str]:
    lines = [
        "## Context assembly",
        "",
        f"A {r['session_messages']}-message session and {r['memories']:,} memories through retrieval, the facts block",
        "and `context_assemble_op` (shipped defaults, offline, no LLM; retrieval and the facts block share one "
        "query embedding). Target p50 ≤ "
        f"{fmt(r['targets']['flow_p50_ms'])} ms — {ok(r['meets_targets']['flow_p50'])}. "
        "Command: `python scripts/bench_context.py`",
        "",
        "| token limit | flow p50 / p95 | query embedding p50 | context_assemble_op p50 / p95 | tokens p50 |",
        "|---|---|---|---|---|",
    ]
    for x in r["by_limit"]:
        lines.append(
            f"| {x['token_limit']:,} | {fmt(x['flow_ms']['p50'])} / {fmt(x['flow_ms']['p95'])} ms | "
            f"{fmt(x['query_embedding_ms']['p50'])} ms | {fmt(x['context_assemble_op_ms']['p50'])} / "
            f"{fmt(x['context_assemble_op_ms']['p95'])} ms | {fmt(x['context_tokens']['p50'])} |"
        )
    chat = r.get("chat_context") or {}
    if chat.get("skipped"):
        lines += ["", f"`chat_context`: not measured ({chat['skipped']})."]
    elif chat:
        plain, flush, assemble = (
            chat["turn_ms_without_flush"],
            chat["turn_ms_with_flush"],
            chat["context_assemble_op_ms"],
        )
        lines += [
            "",
            f"The shipped `chat_context` flow (`app.memories.context`, token limit {chat['token_limit']:,}), a turn on "
            f"a {r['session_messages']}-message session: p50 {fmt(plain and plain['p50'])} / p95 "
            f"{fmt(plain and plain['p95'])} ms without a flush; {chat['turns_with_flush']} turns flushed to long-term "
            f"memory (p50 {fmt(flush and flush['p50'])} ms); "
            f"context_assemble_op p50 {fmt(assemble and assemble['p50'])} ms.",
        ]
    return [*lines, ""]


def ingest_section(r: dict[str, Any], prefilled: dict[str, Any]) -> list[str]:
    lines = [
        "## Offline ingest",
        "",
        "The sample chat four times over through `personal_summary` in batches of 50, shipped defaults, into an "
        "empty store and into one holding 10,000 memories of the same user (`--prefill 10000`).",
        f"Target ≥ {r['target_messages_per_s']} messages/s offline. Command: `python scripts/bench_ingest.py`",
        "",
        "| store | messages | messages/s | embedding share | texts embedded (per message) "
        "| messages/s without embedding | decisions |",
        "|---|---|---|---|---|---|---|",
    ]
    rows = [*r["results"].items(), *((f"{s}, 10,000 before", x) for s, x in prefilled["results"].items())]
    for store, x in rows:
        decisions = ", ".join(f"{k} {v}" for k, v in sorted(x["decisions"].items()))
        lines.append(
            f"| {store} | {x['messages']:,} | {fmt(x['messages_per_s'])} | {x['embedding_share']:.0%} | "
            f"{x['texts_embedded']:,} ({x['texts_embedded_per_message']}) | "
            f"{fmt(x['messages_per_s_without_embedding'])} | {decisions} |"
        )
    return [*lines, ""]


def locomo_section(main: dict[str, Any], ablations: dict[str, dict[str, Any]], summary: dict[str, Any]) -> list[str]:
    default, baseline = main["runs"]
    ks = [f"R@{k}" for k in main["k"]]
    lines = [
        "## LoCoMo dev evaluation",
        "",
        "Evidence recall@k on `../shared/data/locomo/locomo_dev.json` (231 questions of categories 1–4), offline,",
        "the baseline in the same run. Command: `flowmem eval locomo ../shared/data/locomo/locomo_dev.json "
        "--compare-flow vector_baseline`",
        "",
        "| category | n | "
        + " | ".join(f"default {k}" for k in ks)
        + " | "
        + " | ".join(f"baseline {k}" for k in ks)
        + " |",
        "|" + "---|" * (2 + 2 * len(ks)),
    ]
    rows = [("overall", default["questions_with_evidence"], default["overall"], baseline["overall"])]
    rows += [(name, cat["n"], cat, baseline["per_category"][name]) for name, cat in default["per_category"].items()]
    for name, n, a, b in rows:
        lines.append(f"| {name} | {n} | " + " | ".join(f"{a[k]:.3f}" for k in ks) + " | "
                     + " | ".join(f"{b[k]:.3f}" for k in ks) + " |")  # fmt: skip
    r10 = "R@10"
    lines += [
        "",
        f"Default vs baseline, overall {r10}: {default['overall'][r10]:.3f} vs {baseline['overall'][r10]:.3f} "
        f"({default['overall'][r10] / baseline['overall'][r10]:.2f}×). Latency per question p50 "
        f"{default['latency_ms']['p50']} ms (baseline {baseline['latency_ms']['p50']} ms). "
        + missing_evidence(default),
        "",
        "What each default contributes (one switched off at a time):",
        "",
        "| change | " + " | ".join(ks) + " |",
        "|---|" + "---|" * len(ks),
        "| default `personal_retrieve` | " + " | ".join(f"{default['overall'][k]:.3f}" for k in ks) + " |",
    ]
    for label, result in ablations.items():
        run = result["runs"][0]["overall"]
        lines.append(f"| {label} | " + " | ".join(f"{run[k]:.3f}" for k in ks) + " |")
    s_default, s_baseline = summary["runs"]
    lines += [
        "",
        "With `--ingest summary` (the turns through `personal_summary`, offline): default "
        + ", ".join(f"{k} {s_default['overall'][k]:.3f}" for k in ks)
        + "; baseline "
        + ", ".join(f"{k} {s_baseline['overall'][k]:.3f}" for k in ks)
        + ".",
        "",
    ]
    return lines


def missing_evidence(run: dict[str, Any]) -> str:
    """The data's evidence ids that name no turn (not scored), with up to three examples."""
    count = run.get("missing_evidence_ids", 0)
    examples = ", ".join(f"{e['sample_id']} `{e['evidence']}`" for e in run.get("missing_evidence_examples", [])[:3])
    return f"Evidence ids that name no turn (not scored): {count}" + (f" (e.g. {examples})." if count else ".")


QUESTION_HEADS = (("right first", "right_first"), ("R@1", "R@1"), ("R@3", "R@3"), ("R@5", "R@5"), ("R@10", "R@10"),
                  ("MRR", "MRR"))  # fmt: skip


def questions_section(r: dict[str, Any]) -> list[str]:
    """``flowmem eval questions sample``: is the memory that answers a question on the bundled sample first?"""
    runs = r["runs"]
    main, *_ = runs
    langs = ", ".join(f"{lang} {figures['n']}" for lang, figures in main["per_language"].items())
    lines = [
        "## The sample's questions: right memory first (`flowmem eval questions`)",
        "",
        f"The {main['overall']['n']} questions shipped on the bundled sample ({langs};",
        "`flowmem/eval/samples/questions.jsonl`, CC0) — natural wording, each with the memories that answer it — asked",
        "of the sample's memories in an ephemeral store, offline, the baseline in the same run. Target: the right",
        "memory first for ≥ 70 % of the questions. Command: `flowmem eval questions sample --compare-flow"
        " vector_baseline`",
        "",
        "| questions | n | "
        + " | ".join(f"{run['label']} {head}" for run in runs for head, _ in QUESTION_HEADS)
        + " |",
        "|---|---|" + "---|" * (len(runs) * len(QUESTION_HEADS)),
    ]
    groups = [("overall", "overall", None), *(("lang " + lang, "per_language", lang) for lang in main["per_language"])]
    groups += [("tag generic", "per_tag", "generic"), ("tag time", "per_tag", "time")]
    for name, key, sub in groups:
        if sub is not None and sub not in main[key]:
            continue
        figures = [run[key] if sub is None else run[key][sub] for run in runs]
        cells = [f"{f[k]:.3f}" for f in figures for _, k in QUESTION_HEADS]
        lines.append(f"| {name} | {figures[0]['n']} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Right memory first: "
        + "; ".join(f"{run['label']} {run['overall']['right_first']:.1%}" for run in runs)
        + f" (latency p50 {', '.join(str(run['latency_ms'].get('p50')) for run in runs)} ms)."
        + " `flowmem eval questions sample` lists every question whose answer is not first.",
        "",
    ]
    return lines


UPDATE_FIGURES = (
    ("stale facts", "stale_rate", "stale", "expired", "≤ 5 %"),
    ("wrongly expired", "wrongly_expired_rate", "wrongly_expired", "valid", "≤ 2 %"),
    ("event-date accuracy", "event_date_accuracy", "events_right", "events", "≥ 95 %"),
    ("duplicates", "duplicate_rate", "duplicated", "unique", "≤ 5 %"),
    ("lost facts", "lost_rate", "lost", "facts", ""),
)


def updates_section(r: dict[str, Any]) -> list[str]:
    """``flowmem eval updates shipped``: the write path's five figures, and the baseline without contra_repeat_op."""
    runs = r["runs"]
    count = runs[0]["scenarios"]
    langs = ", ".join(f"{lang} {sum(s['lang'] == lang for s in runs[0]['per_scenario'])}" for lang in ("en", "zh"))
    lines = [
        "## Write path: updates, expiries, event dates (`flowmem eval updates`)",
        "",
        f"The {count} shipped scenarios ({langs}; `flowmem/eval/data/updates.jsonl`, CC0) through the write flow,",
        "offline (no LLM, local e5 embeddings), and the baseline in the same run: `contra_repeat_op` replaced by",
        "`append_memory_op` (every new memory added). Command: `flowmem eval updates shipped`",
        "",
        "| figure | target | " + " | ".join(run["label"] for run in runs) + " |",
        "|---|---|" + "---|" * len(runs),
    ]
    for name, key, part, whole, target in UPDATE_FIGURES:
        cells = []
        for run in runs:
            overall = run["overall"]
            value = overall[key]
            shown = "–" if value is None else f"{value * 100:.1f} %"
            cells.append(f"{shown} ({overall[part]}/{overall[whole]})")
        lines.append(f"| {name} | {target} | " + " | ".join(cells) + " |")
    failing = sum(1 for s in runs[0]["per_scenario"] if s["failures"])
    lines += ["", f"{failing} of {count} scenarios have a failure with `{runs[0]['label']}` (`flowmem eval updates "
              "shipped` lists each one); with an LLM: `flowmem eval updates shipped -c openai`.", ""]  # fmt: skip
    return lines


def main(args: argparse.Namespace) -> None:
    sizes = "1000,10000" if args.quick else "1000,10000,100000"
    store_sizes = "10000" if args.quick else "10000,100000"
    started = time.perf_counter()
    startup = run_json(["scripts/bench_startup.py", "--runs", "5"])
    engine = run_json(["scripts/bench_engine.py", "--runs", "5000" if args.quick else "20000"])
    stores = [(f"python scripts/bench_store.py --stores local --sizes {store_sizes}",
               run_json(["scripts/bench_store.py", "--stores", "local", "--sizes", store_sizes]))]  # fmt: skip
    if not args.no_elasticsearch:
        for extra in ([], ["--no-bulk-load"]):
            argv = ["scripts/bench_store.py", "--stores", "elasticsearch", "--sizes", store_sizes, *extra]
            stores.append((f"python {' '.join(argv)}", run_json(argv)))
    retrieve = run_json(["scripts/bench_retrieve.py", "--sizes", sizes])
    context = run_json(["scripts/bench_context.py", "--runs", "50" if args.quick else "200"])
    ingest_stores = "local" if args.no_elasticsearch else "local,elasticsearch"
    ingest = run_json(["scripts/bench_ingest.py", "--stores", ingest_stores])
    ingest_10k = run_json(["scripts/bench_ingest.py", "--stores", "local", "--prefill", "10000"])
    locomo = evaluate("--compare-flow", "vector_baseline")
    ablations = {label: evaluate(*overrides) for label, overrides in ABLATIONS.items()}
    summary = evaluate("--ingest", "summary", "--compare-flow", "vector_baseline")
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        argv = ["eval", "questions", "sample", "--compare-flow", "vector_baseline", "-o", out.name]
        subprocess.run([sys.executable, "-m", "flowmem", *argv], cwd=REPO, capture_output=True, text=True, check=True)
        questions = json.loads(Path(out.name).read_text())
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([sys.executable, "-m", "flowmem", "eval", "updates", "shipped", "-o", out.name],
                       cwd=REPO, capture_output=True, text=True, check=True)  # fmt: skip
        updates = json.loads(Path(out.name).read_text())
    serve = []
    serve_runs = [["--store", "local"], ["--store", "local", "--queries", "unique"]]
    if not args.no_elasticsearch:
        serve_runs += [["--store", "elasticsearch"], ["--store", "elasticsearch", "--queries", "unique"]]
    for options in serve_runs:
        argv = ["scripts/bench_serve.py", *options, "--json"]
        serve.append((f"python {' '.join(argv[:-1])}", run_json(argv)))
    facts = machine()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout
    lines = [
        "# Benchmarks",
        "",
        "Written by `python scripts/bench_all.py` — every figure below comes from the run it describes.",
        "",
        f"Machine: {facts['cpu']}, {facts['cores']} cores, {facts['memory_gib']} GiB, {facts['os']}, "
        f"Python {facts['python']}; {facts['date']}; commit {commit.strip()}; "
        f"{round(time.perf_counter() - started)} s in all.",
        "",
        *startup_section(startup),
        *engine_section(engine),
        *store_section(stores),
        *retrieve_section(retrieve),
        *context_section(context),
        *ingest_section(ingest, ingest_10k),
        *locomo_section(locomo, ablations, summary),
        *questions_section(questions),
        *updates_section(updates),
        *serve_section(serve),
        (HERE / "benchmark_notes.md").read_text(encoding="utf-8").rstrip(),
        "",
        (HERE / "embedding_comparison.md").read_text(encoding="utf-8").rstrip(),
        "",
    ]
    Path(args.output).write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (no 100k), fewer runs")
    parser.add_argument("--no-elasticsearch", action="store_true", help="leave Elasticsearch out")
    parser.add_argument("--output", default=str(REPO / "BENCHMARKS.md"), help="where to write (default BENCHMARKS.md)")
    main(parser.parse_args())
