"""Expanded keys: facts, resolved dates and times in words, built once for every write and found by words."""

from __future__ import annotations

import asyncio
from datetime import datetime

from flowmem import App
from flowmem.schema.memory import Memory
from flowmem.scoring.keys import offline_key, with_expanded_key

FAST = ["vector_store.default.backend=memory", "embedding_model.default.backend=hash"]
SAID = datetime(2023, 5, 8, 13, 56)  # a Monday


def turn(content: str, said: datetime = SAID, **fields: object) -> Memory:
    fields.setdefault("memory_type", "conversation")
    return Memory(workspace_id="w", target="alice", content=content, **fields).with_message_time(said)  # type: ignore[arg-type]


def test_a_relative_date_is_resolved_against_when_it_was_said() -> None:
    key = offline_key(turn("I went to a LGBTQ support group yesterday and it was so powerful."))
    assert key == "yesterday 7 May 2023 Sunday; said 8 May 2023 Monday"


def test_a_fact_is_keyed_in_the_words_questions_use() -> None:
    key = offline_key(turn("We moved into a flat in Alfama last month."))
    assert "lives in alfama" in key and "live" in key.split("; ") and "住在 alfama" in key
    assert "last month April 2023" in key
    # Told in the third person about the target (an observation): the same fact.
    observation = turn("Alice is a nurse at St Mary's Hospital.", memory_type="observation")
    assert "works as nurse" in offline_key(observation) and "works at st mary's hospital" in offline_key(observation)


def test_what_the_words_say_already_is_not_repeated() -> None:
    key = offline_key(turn("Dentist on Friday, May 17, at 9 am.").with_event_time(datetime(2023, 5, 17, 9)))
    assert "May 17" not in key  # written with digits: in the words already
    assert key == "牙医; happens 17 May 2023 Wednesday; said 8 May 2023 Monday"  # the dentist's other word only
    assert offline_key(Memory(workspace_id="w", content="likes green tea")) == ""  # no fact, no known time


def test_a_relative_day_the_written_date_contradicts_is_not_keyed() -> None:
    # Said on Wednesday 8 May 2024: "next Friday" alone could be the 10th; the written date says the 17th.
    wednesday = datetime(2024, 5, 8, 20, 0)
    key = offline_key(turn("Dentist appointment next Friday, May 17, at 9 am.", said=wednesday))
    assert "10 May" not in key
    key = offline_key(turn("I went hiking yesterday.", said=wednesday))
    assert "yesterday 7 May 2024 Tuesday" in key  # nothing written out: the relative day is keyed


def test_the_key_follows_the_words() -> None:
    old = with_expanded_key(turn("I live in Oakland."))
    assert "lives in oakland" in old.expanded_key
    edited = with_expanded_key(old.model_copy(update={"content": "I live in Berkeley."}))
    assert "oakland" not in edited.expanded_key and "lives in berkeley" in edited.expanded_key
    assert with_expanded_key(edited) is edited  # nothing to change: no copy


def test_every_write_path_stores_the_key_and_lexical_search_finds_it() -> None:
    async def main() -> None:
        async with App(overrides=FAST) as app:
            await app.memories.import_([turn("We moved into a flat in Alfama.", memory_id="flat")], workspace_id="w")
            await app.memories.add(text="I work as a nurse at St Mary's.", user_id="alice", workspace_id="w",
                                   timestamp=SAID)  # fmt: skip
            stored = {m.memory_id: m async for m in app.memories.export(workspace_id="w")}
            assert "lives in alfama" in stored["flat"].expanded_key
            [added] = [m for m in stored.values() if m.memory_id != "flat"]
            assert "works as nurse" in added.expanded_key and "said 8 May 2023 Monday" in added.expanded_key

            async def found(query: str) -> list[str]:
                return [m.memory_id for m in await app.vector_store().lexical_search("w", query, 5)]

            # Neither memory's words have "live" or "occupation": their keys do.
            assert await found("where do I live?") == ["flat"]
            assert await found("what is my occupation?") == [added.memory_id]
            edited = await app.memories.update("flat", "We like the flats in Graça.", workspace_id="w")
            assert edited.expanded_key == "said 8 May 2023 Monday"  # the edit dropped the home: so did the key
            assert await found("where do I live?") == []

    asyncio.run(main())


def test_a_record_from_before_keys_loads() -> None:
    record = turn("I live in Oakland.").to_record()
    record.pop("expanded_key")
    assert Memory.model_validate(record).expanded_key == ""


def test_a_merge_that_takes_the_new_words_takes_their_llm_key() -> None:
    from flowmem.ops.contra_repeat_op import _merge

    old = turn("Alice has a cat.", metadata={"llm_key": "pet cat", "slots": {}, "note": "kept"})
    new = turn("Alice has a grey cat named Mochi.", metadata={"llm_key": "pet cat Mochi"})
    # the old words stay keyed (test_write_path), their LLM key does not
    said = {"slots": {}, "note": "kept", "said_before": ["Alice has a cat."]}
    assert _merge(old, new, keep_text=False).metadata == {"llm_key": "pet cat Mochi", **said}
    plain = turn("Alice has a grey cat.")  # the new words have no LLM key: the old words' goes with them
    assert _merge(old, plain, keep_text=False).metadata == said
    assert _merge(old, new, keep_text=True).metadata == old.metadata  # the old words stay, and their key


def test_the_words_a_merge_replaced_are_keyed() -> None:
    merged = turn("Hiking is my favourite thing.", metadata={"said_before": ["I  love hiking on weekends", " ", 3]})
    assert offline_key(merged).startswith("I love hiking on weekends; said ")  # text only
    assert offline_key(merged.model_copy(update={"metadata": {"said_before": "not a list"}})).startswith("said ")


def test_an_image_caption_is_keyed_beside_the_words() -> None:
    shared = Memory(
        workspace_id="w", content="Here's what I just finished!", metadata={"caption": "a painting of  a sunset"}
    )
    assert offline_key(shared) == "a painting of a sunset"
    assert offline_key(shared.model_copy(update={"metadata": {"caption": 3}})) == ""  # not text: not a caption


def test_a_piece_of_a_turn_is_keyed_by_who_said_it() -> None:
    """A turn split into facts keeps its speaker in each piece's metadata; a piece that does not name them is keyed by
    them ("When is Melanie planning on going camping?" finds "We're thinking about going camping next month.")."""
    piece = Memory(workspace_id="w", content="We're thinking about going camping.", metadata={"speaker": "Melanie"})
    assert offline_key(piece) == "Melanie"
    said = Memory(workspace_id="w", content="Melanie: We're going camping.", metadata={"speaker": "Melanie"})
    assert offline_key(said) == ""  # said in its words already
