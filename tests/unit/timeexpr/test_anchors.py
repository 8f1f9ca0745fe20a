"""Named events: a noun phrase defined with a time gives that time to a later text using it on its day."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from flowmem.schema.memory import Memory, Message
from flowmem.scoring.derive import event_times, memory_from_message, with_anchored_times
from flowmem.timeexpr.anchors import anchored, anchors_of

SAID = datetime(2025, 3, 15, 18, 30)  # a Saturday


def _derived(said: list[tuple[str, str, datetime]]) -> list[Memory]:
    """The memories of ``(message id, text, said at)`` messages of one user, in order."""
    return [
        memory_from_message(
            Message(message_id=mid, role="user", name="u", content=text, time_created=when),
            workspace_id="w",
            target="u",
            index=i,
        )
        for i, (mid, text, when) in enumerate(said)
    ]


def _anchors(text: str) -> dict[str, str]:
    found = anchors_of(text, event_times(text, SAID)).items()
    return {f"{owner} {name}": when.start.date().isoformat() for (owner, name), when in found}


@pytest.mark.parametrize(
    ("text", "anchors"),
    [
        ("my last day there is March 19", {"my last day": "2025-03-19"}),
        ("my birthday's August 4th btw", {"my birthday": "2025-08-04"}),
        ("the wedding is on the 12th, so excited", {"the wedding": "2025-04-12"}),
        ("Our housewarming will be next Saturday", {"my housewarming": "2025-03-22"}),
        ("婚礼定在国庆第二天，酒店都订好了", {"- 婚礼": "2025-10-02"}),
        ("the day is Friday", {}),  # 'day' names nothing of its own
        ("I went hiking on Sunday", {}),  # a time, but no name defined by it
    ],
)
def test_a_name_is_defined_by_a_copula_right_before_its_time(text: str, anchors: dict[str, str]) -> None:
    assert _anchors(text) == anchors


@pytest.mark.parametrize(
    ("text", "used"),
    [
        ("They're doing a send-off lunch on my last day which is sweet.", True),
        ("booked a table for my last day", True),
        ("before my last day I need to hand in the laptop", False),  # another time
        ("my last day was a blur", False),  # told about, not dated by a preposition of that day
        ("on the last day of the course", False),  # the same words, not the user's
    ],
)
def test_a_name_used_on_its_day_takes_its_time(text: str, used: bool) -> None:
    anchors = anchors_of("my last day there is March 19", event_times("my last day there is March 19", SAID))
    assert (anchored(text, anchors) is not None) is used


def test_memories_of_one_chat_take_the_time_of_a_name_an_earlier_fact_or_their_own_message_defined() -> None:
    said = [
        ("m1", "They're doing a send-off lunch on my last day", SAID),  # used before it is defined, in its message
        ("m1", "my last day there is March 19", SAID),
        ("m2", "picnic booked for my birthday, 12 people so far", datetime(2025, 3, 20, 9)),
        ("m3", "my birthday's April 4th btw", datetime(2025, 3, 21, 9)),
        ("m4", "cake ordered for my birthday", datetime(2025, 3, 22, 9)),
        ("m5", "ugh fat fingers. April 14", datetime(2025, 3, 22, 9, 1)),  # corrects the time of the name just used?
        ("m6", "the wedding is on the 20th", datetime(2025, 3, 23, 9)),
        ("m7", "sorry, I mean the 21st", datetime(2025, 3, 23, 9, 1)),  # corrects the name defined just before
        ("m8", "gifts for my birthday and a dress for the wedding", datetime(2025, 3, 24, 9)),
    ]
    memories = _derived(said)
    dated = [m.event_time.date().isoformat() if m.event_time else None for m in with_anchored_times(memories)]
    # the picnic came before the birthday was dated: it stays undated (nothing said then gave it a time)
    # m5 follows a message that used a name, not one that defined it: the birthday stays the 4th
    assert dated == ["2025-03-19", "2025-03-19", None, "2025-04-04", "2025-04-04", "2025-04-14", "2025-04-20",
                     "2025-04-21", "2025-04-04"]  # fmt: skip


@pytest.mark.parametrize(
    ("first", "later", "same"),
    [
        # a word of the event told before, once it has happened: that event's day (was undated, or the day it was said)
        ("Dinner with Sofia on Friday!", "the dinner with Sofia was so lovely", True),
        ("我周六要去参加小李的婚礼", "小李的婚礼太感人了", True),
        ("Big interview at Google tomorrow", "the Google interview went really well I think", True),
        # another time of the doing, or another event with the same people and things: its own day
        ("Went climbing with Marcus yesterday", "went climbing with Marcus again, my arms are dead", False),
        ("Saw Dr Haddad at the clinic this morning about my blood pressure, she put me on lisinopril",
         "Follow-up with Dr Haddad went ok, she bumped the lisinopril up", False),
    ],
)  # fmt: skip
def test_a_later_word_of_an_event_told_with_its_day_is_of_that_day(first: str, later: str, same: bool) -> None:
    said = [("m1", first, SAID), ("m2", later, SAID + timedelta(days=10))]
    memories = _derived(said)
    told, word = with_anchored_times(memories)
    assert told.event_time is not None and word.event_time is not None
    assert (word.event_time.date() == told.event_time.date()) is same
    if not same:  # told as done, undated: the day it was said
        assert word.event_time.date() == (SAID + timedelta(days=10)).date()
