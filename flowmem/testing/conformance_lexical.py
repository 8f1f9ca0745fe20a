"""Part of the vector store conformance suite: lexical (BM25) search, alike on every store.

Every store must: stay inside the workspace and honour filters exactly as vector search does;
rank a memory with all the query's words above one with some, and a rarer word above a common
one; find Chinese by Chinese; reflect updates and deletes at once; and order a fixed corpus the
same way as every other store. Stores may share an index with other tests (Elasticsearch), so the
words of each test carry a random tag: their document frequencies are the test's own, and the
fixed corpus is built so its order holds whatever else the index holds (equal document lengths,
orders decided by matched terms and their rarity).

:class:`~flowmem.testing.conformance.VectorStoreConformance` includes these tests.
"""

from __future__ import annotations

import random
import string

from flowmem.testing.store_harness import StoreHarness, memory
from flowmem.vector_store.base import VectorStore
from flowmem.vector_store.filters import MemoryFilter

# The fixed corpus: each document four terms long. Query "apple cherry date": apple is in 5
# documents, cherry in 4, date in 3 — so the order below holds at any collection size.
RANKING_CORPUS = {
    "a": "apple cherry date xa",
    "b": "apple date xb xbb",
    "c": "apple cherry xc xcc",
    "d": "date xd xdd xddd",
    "e": "cherry cherry xe xee",
    "f": "apple xf xff xfff",
    "g": "xg xgg xggg xgggg",
    "h": "cherry xh xhh xhhh",
    "i": "apple xi xii xiii",
}
RANKING_QUERY = "apple cherry date"
RANKING_ORDER = ["a", "b", "c", "e", "d", "h", "f", "i"]  # f and i tie: by memory id


def _tagged(text: str, tag: str) -> str:
    return " ".join(f"{word}{tag}" for word in text.split())


def _tag() -> str:
    return "".join(random.choices(string.ascii_lowercase, k=8))


def _ids(found: list) -> list[str]:  # type: ignore[type-arg]
    return [m.memory_id for m in found]


class LexicalConformance(StoreHarness):
    """Lexical search on every store (mixed into :class:`~flowmem.testing.conformance.VectorStoreConformance`)."""

    def test_lexical_fixed_corpus_ranks_alike_on_every_store(self) -> None:
        async def case(store: VectorStore) -> None:
            ws, tag = self.workspace(), _tag()
            docs = [
                memory(ws, key, i, content=_tagged(text, tag)) for i, (key, text) in enumerate(RANKING_CORPUS.items())
            ]
            await store.upsert(ws, docs)
            found = await store.lexical_search(ws, _tagged(RANKING_QUERY, tag), 20)
            assert _ids(found) == RANKING_ORDER
            scores = [m.scores["lexical"] for m in found]
            assert all(s > 0 for s in scores) and scores == sorted(scores, reverse=True)
            assert all(m.vector is None and set(m.scores) == {"lexical"} for m in found)
            assert _ids(await store.lexical_search(ws, _tagged(RANKING_QUERY, tag), 3)) == RANKING_ORDER[:3]
            assert await store.lexical_search(ws, _tagged(RANKING_QUERY, tag), 0) == []

        self.run_case(case)

    def test_lexical_exact_terms_rank_above_partial_and_rare_above_common(self) -> None:
        async def case(store: VectorStore) -> None:
            ws, tag = self.workspace(), _tag()
            texts = {
                "all": "Caroline went to the pottery{t} class{t} on Sunday",
                "part": "Caroline likes her class{t} at school",
                # longer than "rare": the rarer word must win on its own, whatever the index's average length
                # (an index shared with other cases — thousands of short turns — changes it)
                "common": "A class{t} about cooking for the whole family",
                "rare": "A pottery{t} wheel for the studio",
            }
            more = {f"filler{i}": f"another class{{t}} number {i}" for i in range(6)}  # class{t} is common
            memories = [memory(ws, k, i, content=v.format(t=tag)) for i, (k, v) in enumerate({**texts, **more}.items())]
            await store.upsert(ws, memories)
            found = _ids(await store.lexical_search(ws, f"Which pottery{tag} class{tag} did Caroline take?", 20))
            assert found[0] == "all"
            assert found.index("rare") < found.index("common")  # pottery is rarer than class

        self.run_case(case)

    def test_lexical_stays_in_scope_and_honours_filters(self) -> None:
        async def case(store: VectorStore) -> None:
            ws, other, tag = self.workspace(), self.workspace(), _tag()
            word = f"lisbon{tag}"
            mine = [
                memory(ws, "alice-valid", 1, content=f"Alice moved to {word}", target="alice"),
                memory(ws, "alice-old", 2, content=f"Alice lived near {word}", target="alice", status="expired"),
                memory(ws, "bob", 3, content=f"Bob visited {word}", target="bob", memory_type="insight"),
            ]
            await store.upsert(ws, mine)
            await store.upsert(other, [memory(other, "alice-valid", 1, content=f"{word} {word}", target="alice")])
            everything = await store.lexical_search(ws, word, 10)
            assert sorted(_ids(everything)) == ["alice-old", "alice-valid", "bob"]
            assert all(m.workspace_id == ws for m in everything)
            flt = MemoryFilter(target="alice", status="valid")
            assert _ids(await store.lexical_search(ws, word, 10, flt)) == ["alice-valid"]
            for condition in (MemoryFilter(status="expired"), MemoryFilter(memory_type="insight")):
                expected = sorted(m.memory_id for m in mine if condition.matches(m))
                assert sorted(_ids(await store.lexical_search(ws, word, 10, condition))) == expected
            [theirs] = await store.lexical_search(other, word, 10)
            assert theirs.workspace_id == other and theirs.content == f"{word} {word}"
            assert await store.lexical_search(self.workspace(), word, 10) == []

        self.run_case(case)

    def test_lexical_chinese_finds_chinese(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            memories = [
                memory(ws, "beijing", 1, content="我住在北京，在一家银行工作"),
                memory(ws, "dog", 2, content="我养了一只小狗，叫豆豆"),
                memory(ws, "english", 3, content="I live in Beijing"),
                memory(ws, "bank", 4, content="北方的天气很干燥"),
            ]
            await store.upsert(ws, memories)
            found = _ids(await store.lexical_search(ws, "我住在哪里？", 10))
            # the two statements of where one lives come first, in either order: the English one is keyed in Chinese
            # too (住在 beijing), and which is first then turns on their lengths (an index's BM25 statistics)
            assert set(found[:2]) == {"beijing", "english"}, found
            assert _ids(await store.lexical_search(ws, "北京", 10))[0] == "beijing"  # the pair ranks above 北 alone
            assert _ids(await store.lexical_search(ws, "小狗叫什么名字", 10))[0] == "dog"
            assert await store.lexical_search(ws, "我的是什么", 10) == []  # stop words only

        self.run_case(case)

    def test_lexical_finds_a_relation_by_any_of_its_words(self) -> None:
        async def case(store: VectorStore) -> None:
            ws = self.workspace()
            memories = [
                memory(ws, "manager", 1, content="Dana is Alice's manager at Brightledger."),
                memory(ws, "sister", 2, content="Alice's younger sister Grace is a nurse."),
                memory(ws, "grandma", 3, content="Alice 的外婆今年八十五岁。"),
                memory(ws, "other", 4, content="Alice went hiking on Saturday."),
            ]
            await store.upsert(ws, memories)
            # The store keys each memory with its relation's other words (flowmem.scoring.relations), in both languages.
            assert _ids(await store.lexical_search(ws, "who's my boss?", 10)) == ["manager"]
            assert _ids(await store.lexical_search(ws, "我妹妹是做什么工作的？", 10))[:1] == ["sister"]
            assert _ids(await store.lexical_search(ws, "how old is my grandma?", 10))[:1] == ["grandma"]

        self.run_case(case)

    def test_lexical_reflects_updates_and_deletes(self) -> None:
        async def case(store: VectorStore) -> None:
            ws, tag = self.workspace(), _tag()
            old, new = f"tennis{tag}", f"chess{tag}"
            await store.upsert(
                ws, [memory(ws, "hobby", 1, content=f"I play {old}"), memory(ws, "x", 2, content="other")]
            )
            assert _ids(await store.lexical_search(ws, old, 5)) == ["hobby"]
            changed = memory(ws, "hobby", 1, content=f"I play {new} now", keywords=[f"board{tag}"])
            await store.upsert(ws, [changed])
            assert await store.lexical_search(ws, old, 5) == []
            [found] = await store.lexical_search(ws, new, 5)
            assert found.content == f"I play {new} now"
            assert _ids(await store.lexical_search(ws, f"board{tag}", 5)) == ["hobby"]  # keywords are indexed
            await store.write(ws, deleted=["hobby"])
            assert await store.lexical_search(ws, new, 5) == []
            await store.upsert(ws, [memory(ws, "again", 3, content=f"{new}")])
            await store.forget(ws)
            assert await store.lexical_search(ws, new, 5) == []

        self.run_case(case)
