"""A slot stated in other words (:mod:`flowmem.scoring.frames`): another name right after the same words as a new slot
value is read as the older value of that slot — only for names, only of the speaker, never for a frame of function
words."""

from __future__ import annotations

from flowmem.scoring.frames import analogous_slots, frame_of, slot_frames
from flowmem.scoring.slots import slots_of

NEW = "First day at Quill & Co tomorrow, so nervous"


def test_the_frame_is_the_words_before_the_value() -> None:
    assert slots_of(NEW) == {"employer": "quill & co"}
    assert frame_of(NEW, "quill & co") == ("day", "at")


def test_another_name_in_the_same_words_states_the_slot() -> None:
    old = "Twelve-hour day at Harbor Logistics again, inventory week"
    assert analogous_slots(slot_frames(NEW, slots_of(NEW)), old, {}) == {"employer": "harbor logistics"}


def test_the_same_name_is_no_other_value() -> None:
    assert analogous_slots(slot_frames(NEW, slots_of(NEW)), "Long day at Quill & Co, they showed me around", {}) == {}


def test_what_someone_else_does_is_not_the_speakers() -> None:
    assert analogous_slots(slot_frames(NEW, slots_of(NEW)), "My brother had a long day at Harbor Logistics", {}) == {}


def test_other_words_before_the_name_state_nothing() -> None:
    assert analogous_slots(slot_frames(NEW, slots_of(NEW)), "Dinner at Harbor Logistics' canteen was awful", {}) == {}


def test_a_slot_already_held_is_left_alone() -> None:
    old = "Twelve-hour day at Harbor Logistics again"
    assert analogous_slots(slot_frames(NEW, slots_of(NEW)), old, {"employer": "harbor logistics"}) == {}


def test_a_value_that_is_not_a_name_has_no_frame() -> None:
    said = "I work as a nurse"
    assert slots_of(said) == {"job_title": "nurse"}
    assert frame_of(said, "nurse") is None
    assert analogous_slots(slot_frames(said, slots_of(said)), "I work as a Barista", {}) == {}


def test_a_frame_of_function_words_is_no_frame() -> None:
    said = "I'm working at the Ritz now"
    value = slots_of(said)["employer"]
    assert frame_of(said, value) is None
