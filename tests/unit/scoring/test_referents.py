"""Who "he" and "she" are: a turn using a pronoun is keyed with the person named last before it."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from flowmem.schema.memory import Memory
from flowmem.scoring.keys import offline_key
from flowmem.scoring.referents import (
    KNOWN_AS,
    REFERS_TO,
    introduced,
    people_named,
    resolved,
    uses_pronoun,
    with_referents,
)


@pytest.mark.parametrize(
    ("text", "people"),
    [
        ("I've been seeing someone, his name is Marcus", ["Marcus"]),
        ("my sister Cleo is a nurse", ["Cleo"]),
        ("went climbing with Marcus", ["Marcus"]),
        ("Ana and I went out", ["Ana"]),
        ("yesterday Priya said hi", ["Priya"]),
        ("我男朋友叫小林，是医生", ["小林"]),
        ("Tomorrow is busy", []),  # a sentence's first word is capitalised whatever it is
        ("I live in Austin", []),  # a place: nothing says a person
    ],
)
def test_people_are_named_by_how_they_are_said(text: str, people: list[str]) -> None:
    assert list(dict.fromkeys(people_named(text))) == people


@pytest.mark.parametrize(
    ("text", "uses"),
    [
        ("Really well. He's a physical therapist and makes the best dal", True),
        ("She's a nurse", True),
        ("她辞职了", True),
        ("the shell was empty", False),  # "he" inside a word
        ("I told them everything", False),
    ],
)
def test_a_pronoun_opening_a_clause_refers(text: str, uses: bool) -> None:
    assert uses_pronoun(text) is uses


def _memory(text: str, minutes: int) -> Memory:
    said = datetime(2025, 3, 6, 20) + timedelta(minutes=minutes)
    return Memory(workspace_id="w", memory_id=f"m{minutes}", target="u", content=text, created_at=said,
                  updated_at=said).with_message_time(said)  # fmt: skip


def test_a_turn_using_a_pronoun_keeps_the_person_named_last_before_it() -> None:
    chat = [
        _memory("I've been seeing someone, his name is Marcus", 0),
        _memory("dinner was lovely", 1),
        _memory("Really well. He's a physical therapist and makes the best dal", 2),  # two turns on: still Marcus
        _memory("my sister Cleo called", 3),
        _memory("she's moving to Leeds", 4),  # the person named last
        _memory("I told Cleo's friend Ben he's welcome", 5),  # names someone itself: no guess
    ]
    kept = with_referents(chat)
    assert [m.metadata.get(REFERS_TO) for m in kept] == [None, None, ["Marcus"], None, ["Cleo"], None]
    assert "Marcus" in offline_key(kept[2])  # found by "what does Marcus do?"
    assert "Marcus" not in offline_key(chat[2])


@pytest.mark.parametrize(
    ("text", "people"),
    [
        ("Talked to my sister Leah tonight", {"Leah": "sister"}),
        ("Leah, my sister, lives in Rome", {"Leah": "sister"}),
        ("our neighbour Priya fed the cat", {"Priya": "neighbour"}),
        ("My brother Tom and I went fishing", {"Tom": "brother"}),
        ("我男朋友叫小林", {"小林": "男朋友"}),
        ("my boss is great", {}),  # no name
        ("我妈今天在家", {}),  # no 叫: 今天 is no one
        ("went climbing with Marcus", {}),  # a person, but not who he is to the speaker
    ],
)
def test_who_a_name_is_to_the_speaker_is_read_from_how_the_chat_introduces_it(
    text: str, people: dict[str, str]
) -> None:
    assert introduced(text) == people


def test_a_turn_naming_someone_the_chat_introduced_is_keyed_with_who_they_are() -> None:
    chat = [
        _memory("Talked to my sister Leah tonight. She teaches chemistry at Westbrook High", 0),
        _memory("Leah left teaching!! She's a sales rep for a lab equipment company now", 1),
        _memory("Leah and my sister went out", 2),  # says the relation itself: nothing to add
        _memory("Marcus and Leah came round", 3),
        _memory("我男朋友叫小林", 4),
        _memory("小林下个月去深圳上班", 5),
    ]
    kept = with_referents(chat)
    assert [m.metadata.get(KNOWN_AS) for m in kept] == [None, ["sister"], None, ["sister"], None, ["男朋友"]]
    assert "sister" in offline_key(kept[1]) and "sister" not in offline_key(chat[1])  # "what does my sister do?"
    assert "boyfriend" in offline_key(kept[5])  # the relation's other words too (flowmem.scoring.relations)


def _chat(*texts: str) -> list[Memory]:
    at = datetime(2025, 3, 1, 9)
    return with_referents(
        [
            Memory(memory_id=f"m{i}", content=text, target="u", workspace_id="w", memory_type="conversation",
                   created_at=at + timedelta(days=i))
            for i, text in enumerate(texts)
        ]
    )  # fmt: skip


@pytest.mark.parametrize(
    ("texts", "refers_to", "reads"),
    [
        (("my boyfriend works in Leeds", "he got transferred to York"), ["my boyfriend"],
         "My boyfriend got transferred to York"),
        (("我男朋友在上海工作", "他调到杭州了，我们周末见"), ["我男朋友"], "我男朋友调到杭州了，我们周末见"),
        # the last person spoken of whom the pronoun can stand for: not "my dad" for "she"
        (("my sister is a nurse", "my dad is a chef", "she quit nursing"), ["my sister"], "My sister quit nursing"),
        (("I've been seeing someone, his name is Marcus", "Really well. He's a physical therapist"), ["Marcus"],
         "Really well. Marcus's a physical therapist"),
        (("my sister Leah is a nurse", "and she quit"), ["Leah"], "and Leah quit"),
        (("my parents live in Cork", "she moved"), None, "she moved"),  # several people: not "she"
        (("我姐在上海工作", "他调到杭州了"), None, "他调到杭州了"),
        # a turn that speaks of someone itself: its pronoun is its own person's
        (("my sister lives in Rome", "my brother called, he moved"), None, "my brother called, he moved"),
    ],
)  # fmt: skip
def test_a_pronoun_is_read_as_the_person_it_stands_for(
    texts: tuple[str, ...], refers_to: list[str] | None, reads: str
) -> None:
    last = _chat(*texts)[-1]
    assert last.metadata.get(REFERS_TO) == refers_to
    assert resolved(last) == reads


def test_a_relation_said_alone_keys_the_pronoun_turn_with_it() -> None:
    last = _chat("my boyfriend works in Leeds", "he got transferred to York")[-1]
    assert last.metadata[KNOWN_AS] == ["boyfriend"]
    assert "boyfriend" in offline_key(last)
