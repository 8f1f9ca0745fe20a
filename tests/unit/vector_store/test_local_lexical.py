"""Lexical search on the ``local`` store: older files gain the index on open; scores equal the memory store's."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from flowmem.testing.conformance import memory
from flowmem.vector_store.lexical_text import BM25Index, lexical_document
from flowmem.vector_store.local import db as local_db
from flowmem.vector_store.local import lexical as local_lexical
from flowmem.vector_store.local.store import LocalStore
from flowmem.vector_store.memory import MemoryStore

TEXTS = {
    "home": "I moved to Lisbon in May",
    "job": "I work as a nurse at the Lisbon city hospital",
    "dog": "我养了一只小狗，叫豆豆",
    "city": "我住在北京",
    "other": "Nothing to see here",
}


def _store(directory: Path) -> LocalStore:
    return LocalStore(LocalStore.Params(directory=str(directory), synchronous="normal"))


def _write(directory: Path) -> None:
    async def main() -> None:
        store = _store(directory)
        try:
            await store.upsert("w", [memory("w", key, i, content=text) for i, (key, text) in enumerate(TEXTS.items())])
            await store.upsert("v", [memory("v", "home", 9, content="Lisbon Lisbon")])
        finally:
            await store.aclose()

    asyncio.run(main())


def _search(directory: Path, text: str) -> list[str]:
    async def main() -> list[str]:
        store = _store(directory)
        try:
            return [m.memory_id for m in await store.lexical_search("w", text, 10)]
        finally:
            await store.aclose()

    return asyncio.run(main())


@pytest.mark.parametrize("old_schema", ["3", "2"])
def test_a_file_from_before_the_lexical_index_gains_it_on_open(tmp_path: Path, old_schema: str) -> None:
    _write(tmp_path)
    path = tmp_path / local_db.FILE_NAME
    conn = sqlite3.connect(path)
    with conn:  # what a file of the older schema looks like: no lexical tables (schema 2: no sessions either)
        for table in ("lexical", "lexical_docs"):
            conn.execute(f"DROP TABLE {table}")
        if old_schema == "2":
            conn.execute("DROP TABLE sessions")
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (old_schema,))
    conn.close()

    assert _search(tmp_path, "Where is the hospital in Lisbon?") == ["job", "home"]
    # "home" by its expanded key: "I moved to Lisbon" states a residence, keyed "住在 lisbon" (flowmem.scoring.keys).
    assert _search(tmp_path, "我住在哪里") == ["city", "home"]
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == local_db.SCHEMA_VERSION
        assert conn.execute("SELECT count(*) FROM lexical_docs").fetchone()[0] == len(TEXTS) + 1
    finally:
        conn.close()


def test_local_and_memory_stores_give_the_same_scores(tmp_path: Path) -> None:
    async def scores(store: MemoryStore | LocalStore) -> dict[str, list[tuple[str, float]]]:
        try:
            await store.upsert("w", [memory("w", key, i, content=text) for i, (key, text) in enumerate(TEXTS.items())])
            await store.upsert("v", [memory("v", "home", 9, content="Lisbon Lisbon")])
            await store.upsert("w", [memory("w", "other", 4, content="Lisbon again, the city of light")])
            await store.delete("w", ["dog"])
            found = {}
            for query in ("Lisbon city", "where do I live in Lisbon", "我住在北京", "小狗"):
                found[query] = [(m.memory_id, m.scores["lexical"]) for m in await store.lexical_search("w", query, 10)]
            return found
        finally:
            await store.aclose()

    local = asyncio.run(scores(_store(tmp_path)))
    in_memory = asyncio.run(scores(MemoryStore()))
    assert local.keys() == in_memory.keys()
    for query, hits in local.items():
        assert [i for i, _ in hits] == [i for i, _ in in_memory[query]], query
        assert [s for _, s in hits] == [s for _, s in in_memory[query]], query  # the same floats
    assert local["小狗"] == []  # deleted


def test_a_second_handle_sees_the_others_lexical_writes_and_deletes(tmp_path: Path) -> None:
    async def main() -> None:
        writer, reader = _store(tmp_path), _store(tmp_path)
        try:
            await writer.upsert("w", [memory("w", "a", 1, content="I play tennis")])
            assert [m.memory_id for m in await reader.lexical_search("w", "tennis", 5)] == ["a"]  # loads its index
            await writer.upsert(
                "w", [memory("w", "a", 1, content="I play chess"), memory("w", "b", 2, content="tennis")]
            )
            assert [m.memory_id for m in await reader.lexical_search("w", "tennis", 5)] == ["b"]  # caught up
            assert [m.memory_id for m in await reader.lexical_search("w", "chess", 5)] == ["a"]
            await writer.delete("w", ["b"])
            await writer.forget("w")
            assert await reader.lexical_search("w", "tennis chess", 5) == []
        finally:
            await writer.aclose()
            await reader.aclose()

    asyncio.run(main())


def test_a_rewrite_with_the_same_text_leaves_the_lexical_index_as_it_is() -> None:
    # An expiry or the same words again rewrites a memory with the text it had: its FTS5 entry is not deleted and
    # inserted again (1,000 slot holders expired at once took a third of a write); a changed text replaces the entry.
    conn = sqlite3.connect(":memory:")
    local_lexical.create(conn)
    tennis, chess = memory("w", "a", 1, content="I play tennis"), memory("w", "b", 2, content="I play chess")
    local_lexical.put(conn, "w", [tennis, chess])
    before = conn.total_changes
    local_lexical.put(conn, "w", [tennis.model_copy(update={"status": "expired"})])
    assert conn.total_changes == before  # no row of the index (nor of FTS5's own tables) written
    golf = chess.model_copy(update={"content": "I play golf"})
    local_lexical.put(conn, "w", [golf])
    assert conn.total_changes > before
    assert local_lexical.texts(conn, "w", ["a", "b", "c"]) == {
        "a": lexical_document(tennis),
        "b": lexical_document(golf),
    }
    assert conn.execute("SELECT rowid FROM lexical WHERE lexical MATCH 'golf'").fetchall() == [(2,)]
    conn.close()


def test_bm25_index_put_again_with_the_same_terms_keeps_the_scores() -> None:
    index, fresh = BM25Index(), BM25Index()
    for bm25 in (index, fresh):
        bm25.put("a", "i play tennis")
        bm25.put("b", "tennis tennis club")
    index.put("a", "i play tennis")  # the same terms: left as it is
    index.put("b", "chess club")
    fresh.put("b", "chess club")
    assert index.top(["tennis", "club"], 5) == fresh.top(["tennis", "club"], 5)
    assert [i for i, _ in index.top(["tennis"], 5)] == ["a"]
