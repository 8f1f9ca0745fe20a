"""A server bounds embedding calls: later callers queue, and the local engine leaves a core to the rest."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from typing import Any

import numpy as np
import pytest

from flowmem.embedding.hash import HashEmbedding


def _peak_in_flight(calls: int | None, requests: int = 6) -> int:
    model = HashEmbedding()
    if calls is not None:
        model.limit_concurrency(calls)
    inner = model._embed_batch
    state = {"now": 0, "peak": 0}

    async def slow_batch(texts: list[str], kind: Any) -> np.ndarray:
        state["now"] += 1
        state["peak"] = max(state["peak"], state["now"])
        await asyncio.sleep(0.01)
        state["now"] -= 1
        return await inner(texts, kind)

    model._embed_batch = slow_batch  # type: ignore[method-assign]

    async def main() -> None:
        await asyncio.gather(*(model.embed([f"text {i}"]) for i in range(requests)))

    asyncio.run(main())
    return state["peak"]


def test_limit_concurrency_makes_later_calls_wait() -> None:
    assert _peak_in_flight(None) == 6
    assert _peak_in_flight(1) == 1
    assert _peak_in_flight(2) == 2


def test_queued_counts_the_calls_waiting_for_their_turn_and_those_waiting_are_computed_together() -> None:
    model = HashEmbedding()
    model.limit_concurrency(1)
    inner = model._embed_batch
    seen: list[tuple[int, list[str]]] = []
    release = asyncio.Event()

    async def slow_batch(texts: list[str], kind: Any) -> np.ndarray:
        seen.append((model.queued, list(texts)))
        await release.wait()
        return await inner(texts, kind)

    model._embed_batch = slow_batch  # type: ignore[method-assign]

    async def main() -> tuple[int, list[Any]]:
        calls = [asyncio.ensure_future(model.embed([f"text {i}"])) for i in range(4)]
        calls.append(asyncio.ensure_future(model.embed(["a query"], kind="query")))
        calls.append(asyncio.ensure_future(model.embed(["text 1", "text 5"])))
        await asyncio.sleep(0.01)
        waiting = model.queued  # the first runs, five wait
        calls[3].cancel()  # one gives up while it waits: no longer counted, not computed
        await asyncio.sleep(0.01)
        release.set()
        return waiting, await asyncio.gather(*calls, return_exceptions=True)

    waiting, results = asyncio.run(main())
    assert waiting == 5
    # As each computation started: how many still waited, and the texts computed together (the query first: the
    # documents before it had waited less than query_first_ms; then the waiting documents joined, text 1 once).
    assert seen == [(5, ["text 0"]), (3, ["a query"]), (0, ["text 1", "text 2", "text 5"])]
    assert model.queued == 0
    assert isinstance(results[3], asyncio.CancelledError)
    # Five calls had a turn (the cancelled one never did); four of them waited ~20 ms for it, behind the first
    # computation, which ran until released.
    assert model.turns_taken == 5
    assert 0.06 < model.waited_seconds < 1
    assert model.computing_seconds > 0.015
    alone = HashEmbedding()
    for texts, kind, rows in [(["text 2"], "document", results[2]), (["a query"], "query", results[4]),
                              (["text 1", "text 5"], "document", results[5])]:  # fmt: skip
        np.testing.assert_array_equal(rows, asyncio.run(alone.embed(texts, kind=kind)))  # type: ignore[arg-type]


def test_waiting_calls_are_joined_up_to_the_server_batch_and_a_larger_call_goes_whole() -> None:
    model = HashEmbedding()
    model.limit_concurrency(1, joined=2)  # server.embedder_batch
    inner = model._embed_batch
    seen: list[list[str]] = []
    release = asyncio.Event()

    async def slow_batch(texts: list[str], kind: Any) -> np.ndarray:
        seen.append(list(texts))
        await release.wait()
        return await inner(texts, kind)

    model._embed_batch = slow_batch  # type: ignore[method-assign]

    async def main() -> None:
        calls = [asyncio.ensure_future(model.embed([f"q{i}"], kind="query")) for i in range(4)]
        calls.append(asyncio.ensure_future(model.embed(["a", "b", "c"], kind="query")))
        calls.append(asyncio.ensure_future(model.embed(["q4"], kind="query")))
        await asyncio.sleep(0.01)
        release.set()
        await asyncio.gather(*calls)

    asyncio.run(main())
    # In order of arrival, at most two texts joined (a later call that fits joins past one that does not); the
    # call of three texts alone and whole, not split.
    assert seen == [["q0"], ["q1", "q2"], ["q3", "q4"], ["a", "b", "c"]]


def test_a_call_cancelled_during_its_computation_leaves_the_rows_to_the_others_of_its_group() -> None:
    model = HashEmbedding()
    model.limit_concurrency(1)
    inner = model._embed_batch
    gates: list[asyncio.Event] = []  # one per computation: set to let it finish
    computing: list[asyncio.Task[Any]] = []

    async def slow(texts: list[str], kind: Any) -> np.ndarray:
        gates.append(gate := asyncio.Event())
        computing.append(asyncio.current_task())  # type: ignore[arg-type]
        await gate.wait()
        return await inner(texts, kind)

    model._embed_batch = slow  # type: ignore[method-assign]

    async def main() -> None:
        first = asyncio.ensure_future(model.embed(["x"]))
        a, b = asyncio.ensure_future(model.embed(["a"])), asyncio.ensure_future(model.embed(["b"]))
        await asyncio.sleep(0.01)
        gates[0].set()
        await first
        await asyncio.sleep(0.01)
        assert len(computing) == 2  # a and b, together
        a.cancel()
        await asyncio.sleep(0.01)
        assert not computing[1].done()  # b still waits for it
        b.cancel()
        await asyncio.gather(a, b, return_exceptions=True)
        assert computing[1].done()  # nobody waits: cancelled, not left pending past the loop
        c = asyncio.ensure_future(model.embed(["c"]))  # the turn is free again
        await asyncio.sleep(0.01)
        gates[2].set()
        np.testing.assert_array_equal(await c, await HashEmbedding().embed(["c"]))

    asyncio.run(main())


def test_limit_concurrency_refuses_zero() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        HashEmbedding().limit_concurrency(0)


def test_local_engine_in_a_server_leaves_a_core_to_the_rest() -> None:
    probe = (
        "import asyncio, os\n"
        "from flowmem.embedding.local import LocalEmbedding\n"
        "from flowmem.embedding.local import LocalEmbeddingParams\n"
        "m = LocalEmbedding(LocalEmbeddingParams(runtime='engine')); m.limit_concurrency(1)\n"
        "asyncio.run(m.embed(['hello'], kind='query'))\n"
        "print(os.environ.get('OMP_NUM_THREADS'))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120,
                          check=True)  # fmt: skip
    assert done.stdout.strip() == str(max(1, (os.cpu_count() or 1) - 1))


def test_simultaneous_calls_for_one_text_share_one_computation_and_later_ones_compute_afresh() -> None:
    model = HashEmbedding()
    inner = model._embed_batch
    batches: list[list[str]] = []

    async def counted(texts: list[str], kind: Any) -> np.ndarray:
        batches.append(list(texts))
        await asyncio.sleep(0.01)
        return await inner(texts, kind)

    model._embed_batch = counted  # type: ignore[method-assign]

    async def main() -> None:
        # The parallel branches of one flow ask for the query's vector at once: one computation.
        a, b, other = await asyncio.gather(
            model.embed_one("where do I live?"), model.embed_one("where do I live?"), model.embed_one("my job?")
        )
        assert np.array_equal(a, b) and not np.array_equal(a, other)
        assert sorted(map(tuple, batches)) == [("my job?",), ("where do I live?",)]
        await model.embed_one("where do I live?")  # nothing kept once a call ends
        assert len(batches) == 3
        passage = await model.embed_one("where do I live?", kind="passage")  # another kind is another text
        assert len(batches) == 4 and passage.shape == a.shape

    asyncio.run(main())


def test_local_calls_allowed_at_once_run_on_their_own_threads_with_the_same_results() -> None:
    from flowmem.embedding.local import LocalEmbedding, LocalEmbeddingParams

    texts = [f"what did I do on day {i} with my sister?" for i in range(8)]
    # the engine's own results (the numpy forward's: test_e5_numpy; onnxruntime's: test_e5_onnx)
    engine_only = LocalEmbeddingParams(runtime="engine", numpy_queries_from=0)
    serial = LocalEmbedding(engine_only)
    parallel = LocalEmbedding(engine_only)
    parallel.limit_concurrency(2)
    threads: set[str] = set()
    inner = parallel._embed_sync

    def recorded(batch: list[str], kind: Any) -> np.ndarray:
        threads.add(threading.current_thread().name)
        return inner(batch, kind)

    parallel._embed_sync = recorded  # type: ignore[method-assign]

    async def main() -> tuple[np.ndarray, list[np.ndarray]]:
        expected = await serial.embed(texts, kind="query")
        rows = await asyncio.gather(*(parallel.embed_one(text) for text in texts))
        await serial.aclose()
        await parallel.aclose()
        return expected, rows

    expected, rows = asyncio.run(main())
    assert len(threads) == 2  # two calls at once, each on its own worker with its own engine
    np.testing.assert_array_equal(np.stack(rows), expected)  # bit for bit what one engine computes


def test_a_server_allows_one_embedding_call_per_core_unless_configured() -> None:
    from flowmem.config.schema import MAX_AUTO_EMBEDDER_CALLS, Server

    assert Server().embedding_calls() == min(os.cpu_count() or 1, MAX_AUTO_EMBEDDER_CALLS)
    assert Server(embedder_concurrency=1).embedding_calls() == 1


def test_a_cancelled_embed_one_leaves_no_task_behind_unless_another_caller_waits() -> None:
    """`flowmem search -c elasticsearch` with the node down ended with "Task was destroyed but it is pending!":
    the lexical branch failed, the vector branch was cancelled while embedding the query, and its shared
    computation went on with nobody waiting, past the end of the event loop."""
    model = HashEmbedding()
    inner = model._embed_batch
    release = asyncio.Event()

    async def slow(texts: list[str], kind: Any) -> np.ndarray:
        await release.wait()
        return await inner(texts, kind)

    model._embed_batch = slow  # type: ignore[method-assign]

    async def main() -> None:
        alone = asyncio.ensure_future(model.embed_one("where do I live?"))
        await asyncio.sleep(0.01)
        alone.cancel()
        await asyncio.gather(alone, return_exceptions=True)
        assert not model._inflight and asyncio.all_tasks() == {asyncio.current_task()}  # its computation ended too

        first = asyncio.ensure_future(model.embed_one("my job?"))
        second = asyncio.ensure_future(model.embed_one("my job?"))
        await asyncio.sleep(0.01)
        first.cancel()
        await asyncio.gather(first, return_exceptions=True)
        release.set()
        assert (await second).shape == (model.dims,)  # the other caller still gets the shared result

    asyncio.run(main())


def _turn_order(patience: float, held: float = 0.0) -> list[str]:
    """The order in which a document call and a query call, both waiting behind a running one, get the model."""
    from flowmem.embedding.turns import Turns

    order: list[str] = []
    release = asyncio.Event()

    async def compute(texts: list[str], kind: str) -> np.ndarray:
        if texts == ["running"]:
            await release.wait()
        order.extend(texts)
        return np.zeros((len(texts), 2), dtype=np.float32)

    async def main() -> None:
        turns: Turns[str] = Turns(1, 8, compute, first="query", patience=patience)
        running = asyncio.ensure_future(turns.rows(["running"], "document"))
        await asyncio.sleep(0)
        document = asyncio.ensure_future(turns.rows(["an add's text"], "document"))
        await asyncio.sleep(0)
        query = asyncio.ensure_future(turns.rows(["a search"], "query"))
        await asyncio.sleep(held)  # how long the document has waited when the model is free
        release.set()
        await asyncio.gather(running, document, query)

    asyncio.run(main())
    return order


def test_a_query_goes_before_documents_that_have_not_waited_long_and_after_those_that_have() -> None:
    assert _turn_order(patience=1.0) == ["running", "a search", "an add's text"]  # someone waits on the search
    assert _turn_order(patience=0.0) == ["running", "an add's text", "a search"]  # in order of arrival
    assert _turn_order(patience=0.05, held=0.1) == ["running", "an add's text", "a search"]  # the add waited enough
