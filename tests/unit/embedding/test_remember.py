"""Each distinct text is computed once per call, and a model that remembers does not compute a text again."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np

from flowmem.embedding.base import EmbeddingModel
from flowmem.embedding.hash import HashEmbedding
from flowmem.embedding.local import LocalEmbedding


def _counted(model: EmbeddingModel) -> list[list[str]]:
    """The batches the model computes from now on."""
    inner = model._embed_batch
    batches: list[list[str]] = []

    async def counted(texts: list[str], kind: Any) -> np.ndarray:
        batches.append(list(texts))
        return await inner(texts, kind)

    model._embed_batch = counted  # type: ignore[method-assign]
    return batches


def test_a_text_repeated_in_one_call_is_computed_once_with_its_row_in_every_place() -> None:
    model = HashEmbedding()  # remembers nothing
    batches = _counted(model)
    texts = ["thanks!", "we moved to Lisbon", "thanks!", "ok", "thanks!"]
    matrix = asyncio.run(model.embed(texts))
    assert batches == [["thanks!", "we moved to Lisbon", "ok"]]
    assert model.computed == 3
    alone = asyncio.run(HashEmbedding().embed(["thanks!", "we moved to Lisbon", "ok"]))
    np.testing.assert_array_equal(matrix, alone[[0, 1, 0, 2, 0]])
    asyncio.run(model.embed(["thanks!"]))  # nothing kept: computed again
    assert batches[-1] == ["thanks!"] and model.computed == 4


def test_a_model_that_remembers_computes_only_texts_it_does_not_hold_and_drops_the_least_recently_used() -> None:
    model = HashEmbedding(HashEmbedding.Params(remember=2))
    batches = _counted(model)

    async def main() -> None:
        first = await model.embed(["a", "b"])
        again = await model.embed(["b", "a", "c"])  # c computed; b and a reused; a used last before c: b goes
        np.testing.assert_array_equal(again[:2], first[[1, 0]])
        await model.embed(["a", "c", "b"], kind="document")
        await model.embed(["a"], kind="query")  # another kind is another text
        assert batches == [["a", "b"], ["c"], ["b"], ["a"]]
        again[0] += 1  # the caller's rows are its own
        np.testing.assert_array_equal(await model.embed(["b"]), first[[1]])

    asyncio.run(main())
    assert model.computed == 5


def test_local_vectors_are_the_same_bits_alone_and_in_any_batch() -> None:
    """What makes remembering safe for the local engine (its default): a text's row does not depend on its
    batch."""
    texts = ["My partner Sam is over most of the time anyway.", "thanks!", "我们搬到了里斯本", "gym tues 7pm"]
    batched = asyncio.run(LocalEmbedding(LocalEmbedding.Params(remember=0)).embed(texts))
    alone = LocalEmbedding(LocalEmbedding.Params(remember=0))
    for text, row in zip(texts, batched, strict=True):
        np.testing.assert_array_equal(asyncio.run(alone.embed([text]))[0], row)
    model = LocalEmbedding()
    assert model.params.remember > 0
    batches = _counted(model)
    np.testing.assert_array_equal(asyncio.run(model.embed(texts[:2])), batched[:2])
    np.testing.assert_array_equal(asyncio.run(model.embed(texts[::-1])), batched[::-1])
    assert batches == [texts[:2], texts[3:1:-1]]
    assert model.computed == 4 and model.computations == 2 and model.cpu_seconds > 0


def test_embed_one_of_a_remembered_text_answers_at_once_with_a_row_of_its_own() -> None:
    """No task and no turn of the event loop for a vector the model holds: a flow's vector search then leaves
    before the searches of the branches beside it (issue 24)."""
    model = HashEmbedding(HashEmbedding.Params(remember=2))
    batches = _counted(model)
    first = asyncio.run(model.embed_one("where do I live?"))
    call = model.embed_one("where do I live?")
    try:
        call.send(None)  # runs to its end without suspending
    except StopIteration as done:
        row = done.value
    else:
        call.close()
        raise AssertionError("embed_one of a remembered text waited")
    np.testing.assert_array_equal(row, first)
    row += 1  # the caller's row is its own
    np.testing.assert_array_equal(asyncio.run(model.embed_one("where do I live?")), first)
    assert batches == [["where do I live?"]]
