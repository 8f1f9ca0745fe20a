"""Offline context assembly: a 200-message session and 10k memories → context messages within a token budget.

A fresh `local` store with 10k synthetic memories (the `spread` shape of bench_retrieve.py: vectors near their
sayings, a quarter of them observations, the facts block's kind), a 200-message chat session (varied lengths,
English and Chinese) and a rolling summary. The flow measured is the offline path of a chat turn that
this repository's ops own: retrieval (personal_retrieve's ops), the facts block and
`context_assemble_op`, with the shipped defaults (offline e5 embedder, no LLM):

    set_query_op >> (extract_time_op | (retrieve_memory_op >> semantic_rank_op) | facts_block_op)
    >> fuse_rerank_op >> context_assemble_op

(`--flow NAME` measures another configured flow given the same inputs.) Reports p50/p95 of the whole
flow, of one query embedding (measured apart; retrieval and the facts block ask for it at
once and share one computation, `embed_one`), and of `context_assemble_op` alone (its trace span)
at each token limit; plus the assembled tokens. Each turn's query is new and the session moves on
by one message per turn, as in a chat, so token counts are cached only for what repeats (the history and the memories).

Then the shipped `chat_context` flow, turn by turn through `app.memories.context`, on a session built to
the same length in a store of its own (short-term window, flushes through the write flow, retrieval,
blocks, assembly): turns with and without a flush apart.

Usage: python scripts/bench_context.py [--memories 10000] [--messages 200] [--runs 200] [--limits 1000,4000]
Target (issue 15): p50 ≤ 30 ms offline for 200 messages and 10k memories, excluding LLM calls.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from datetime import timedelta
from typing import Any

from bench_retrieve import BATCH, NOW, QUESTIONS, synthetic
from benchlib import machine, percentiles

from flowmem import App
from flowmem.core.tokens import count_message_tokens
from flowmem.schema.memory import Message

FLOW = (
    "set_query_op >> (extract_time_op | (retrieve_memory_op >> semantic_rank_op) | facts_block_op)"
    " >> fuse_rerank_op >> context_assemble_op"
)
TARGET_P50_MS = 30.0
LINES = [
    "I went hiking in the Alps last weekend with my sister and we got caught in the rain on the way down.",
    "Can you suggest a vegetarian restaurant near the office?",
    "Sure — there is a nice place two blocks away that does a great mushroom risotto and seasonal salads.",
    "我周末喜欢去爬山，上周去了香山。",
    "Remind me to call the dentist on Thursday.",
    "My knee still hurts a little after the long descent; should I rest or keep walking?",
]


def session(n: int) -> list[Message]:
    start = NOW - timedelta(hours=n)
    return [
        Message(
            message_id=f"s{i}",
            role="user" if i % 2 == 0 else "assistant",
            name="alice" if i % 2 == 0 else "assistant",
            content=f"{LINES[i % len(LINES)]} (turn {i})" + (" More detail." * (i % 7)),
            time_created=start + timedelta(hours=i),
        )
        for i in range(n)
    ]


async def measure(app: App, flow: str, limit: int, history: list[Message], runs: int) -> dict[str, Any]:
    embedder = app.embedding_model()
    summary = "Alice talked about hiking trips, her knee, vegetarian food and her sister's visit. " * 6
    flow_ms, embed_ms, assemble_ms, tokens = [], [], [], []
    for i in range(runs + 10):  # the first 10 warm up (model, index, caches)
        question = f"{QUESTIONS[i % len(QUESTIONS)]} (turn {i})"
        turn = [*history[1:], Message(message_id=f"q{i}", role="user", name="alice", content=question)]
        history = turn
        started = time.perf_counter()
        await embedder.embed_one(question, kind="query")
        embedded = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        response = await app.run(
            flow, query=question, user_id="alice", workspace_id="bench", timestamp=NOW, chat_history=turn,
            summary=summary,
        )  # fmt: skip
        elapsed = (time.perf_counter() - started) * 1000
        if i < 10:
            continue
        messages = response.outputs["context_messages"]
        assert count_message_tokens(messages) <= limit, "the context must fit its token limit"
        flow_ms.append(elapsed)
        embed_ms.append(embedded)
        tokens.append(count_message_tokens(messages))
        assert response.trace is not None
        span = next(s for s in response.trace.spans if s.op == "context_assemble_op")
        assemble_ms.append(span.duration_ms)
    return {
        "token_limit": limit,
        "flow_ms": percentiles(flow_ms, 50, 95),
        "query_embedding_ms": percentiles(embed_ms, 50, 95),
        "context_assemble_op_ms": percentiles(assemble_ms, 50, 95),
        "context_tokens": percentiles([float(t) for t in tokens], 50),
    }


async def measure_chat_context(directory: str, limit: int, messages: int, runs: int) -> dict[str, Any]:
    """Turns of the shipped `chat_context` flow (app.memories.context) on a session already `messages` long.

    The session is built turn by turn first (message + the assistant's reply), so the window holds what
    the flow keeps and the rest was flushed through the write flow. A turn that flushes also writes
    long-term memories (embedding them): those turns are counted apart, as ingest rather than assembly.
    """
    overrides = [f"vector_store.default.params.directory={directory}", "vector_store.default.params.synchronous=normal"]
    async with App(overrides=overrides) as app:
        if "context_assemble_op" not in app.resolved.config.flow["chat_context"].flow_content:
            return {"skipped": "the chat_context flow does not assemble a context (no context_assemble_op)"}
        history = session(messages)

        async def turn(i: int, text: str, reply: str | None) -> tuple[float, Any]:
            started = time.perf_counter()
            result = await app.memories.context(
                text, user_id="alice", session_id="bench", workspace_id="bench", token_limit=limit, reply=reply,
                timestamp=NOW + timedelta(minutes=i),
            )  # fmt: skip
            return (time.perf_counter() - started) * 1000, result

        for i in range(0, messages - 1, 2):
            await turn(i, history[i].content, history[i - 1].content if i else None)
        plain: list[float] = []
        flushing: list[float] = []
        assemble_ms: list[float] = []
        for i in range(runs):
            elapsed, result = await turn(messages + i, f"{QUESTIONS[i % len(QUESTIONS)]} (turn {i})", "Noted.")
            assert count_message_tokens(result.messages) <= limit, "the context must fit its token limit"
            (flushing if result.flushed_messages else plain).append(elapsed)
            trace = result.response.trace
            spans = [s for s in trace.spans if s.op == "context_assemble_op"] if trace is not None else []
            assemble_ms += [s.duration_ms for s in spans]
    return {
        "token_limit": limit,
        "turn_ms_without_flush": percentiles(plain, 50, 95) if len(plain) > 1 else None,
        "turns_with_flush": len(flushing),
        "turn_ms_with_flush": percentiles(flushing, 50, 95) if len(flushing) > 1 else None,
        "context_assemble_op_ms": percentiles(assemble_ms, 50, 95) if len(assemble_ms) > 1 else None,
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    limits = [int(x) for x in args.limits.split(",")]
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as directory:
        config: dict[str, Any] = {}
        if args.flow == "context_bench":
            config["flow"] = {
                "context_bench": {
                    "flow_content": FLOW,
                    "inputs": ["chat_history", "summary"],
                    "outputs": ["context_messages"],
                }
            }
        for limit in limits:
            overrides = [
                f"vector_store.default.params.directory={directory}",
                "vector_store.default.params.synchronous=normal",
                f"op.context_assemble_op.params.token_limit={limit}",
            ]
            async with App(config=config, overrides=overrides) as app:
                if not results:
                    memories = await synthetic("spread", args.memories, app.embedding_model())
                    for i in range(0, len(memories), BATCH):
                        await app.vector_store().upsert("bench", memories[i : i + BATCH])
                results.append(await measure(app, args.flow, limit, session(args.messages), args.runs))
        chat = None
        if not args.no_chat_context:
            with tempfile.TemporaryDirectory() as chat_directory:
                chat = await measure_chat_context(chat_directory, limits[0], args.messages, args.runs)
    at_target = results[0]["flow_ms"]["p50"]
    return {
        "benchmark": "context",
        "machine": machine(),
        "config": "shipped default: local store, local e5 embeddings (offline), no LLM",
        "flow": FLOW if args.flow == "context_bench" else args.flow,
        "memories": args.memories,
        "session_messages": args.messages,
        "runs": args.runs,
        "by_limit": results,
        "chat_context": chat,
        "targets": {"flow_p50_ms": TARGET_P50_MS},
        "meets_targets": {"flow_p50": at_target <= TARGET_P50_MS},
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--limits", default="4000,1000", help="token limits to measure (the first decides the target)")
    parser.add_argument("--flow", default="context_bench", help="a configured flow to measure instead")
    parser.add_argument("--no-chat-context", action="store_true", help="skip the chat_context turns")
    print(json.dumps(asyncio.run(main(parser.parse_args())), indent=2, ensure_ascii=False))
