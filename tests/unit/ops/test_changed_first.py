"""fuse_rerank_op's changed_margin: a memory said later that states a change about what a better-ranked, older memory
speaks of goes just above it when close in score — and nothing moves for a later memory that changes something else,
one far below, one said earlier, or with the margin off."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flowmem.schema.memory import Memory
from tests.unit.ops.conftest import Maker, ids, mem, run

FLOW = "set_query_op >> fuse_rerank_op"
FEB, SEP = datetime(2025, 2, 18, 19), datetime(2025, 9, 9, 20)


def scored(memory_id: str, content: str, recall: float, said: datetime) -> Memory:
    memory = mem(memory_id, content, memory_type="conversation", said=said)
    memory.set_score("recall", recall, "retrieve_memory_op")
    return memory


def fuse(make_app: Maker, memories: list[Memory], *overrides: str) -> Any:
    app = make_app(f"flow.t.flow_content={FLOW}", "flow.t.inputs=[memories]", *overrides)
    return run(app, "t", query="what does Maya do for work?", memories=[m.model_copy(deep=True) for m in memories])


OLD = scored("old", "my cousin Maya is a paramedic, works nights at St Jude's", 0.62, FEB)
NEW = scored("new", "Maya quit the paramedic job, she trains dogs now", 0.60, SEP)
FILLER = [scored(f"f{i}", f"memory about the garden {i}", 0.40 - i / 100, FEB) for i in range(4)]


def test_a_later_change_about_the_same_thing_goes_above_it(make_app: Maker) -> None:
    response = fuse(make_app, [OLD, NEW, *FILLER])
    assert ids(response)[:2] == ["new", "old"]
    moved = response.memories[0]
    assert moved.scores["changed_first"] == 1.0
    assert "above old" in moved.explain["changed_first"] and "paramed" in moved.explain["changed_first"]


def test_nothing_moves_without_a_change_about_it_or_far_below_or_said_earlier_or_off(make_app: Maker) -> None:
    other = scored("other", "the garden centre moved to Fridays now", 0.60, SEP)  # a change of something else
    assert ids(fuse(make_app, [OLD, other, *FILLER]))[:2] == ["old", "other"]
    far = scored("new", NEW.content, 0.30, SEP)  # well below: not within the margin
    assert ids(fuse(make_app, [OLD, far, *FILLER]))[0] == "old"
    earlier = scored("new", NEW.content, 0.60, datetime(2025, 1, 2))  # said before the other: no change of it
    assert ids(fuse(make_app, [OLD, earlier, *FILLER]))[:2] == ["old", "new"]
    assert ids(fuse(make_app, [OLD, NEW, *FILLER], "op.fuse_rerank_op.params.changed_margin=null"))[:2] == [
        "old",
        "new",
    ]


def ask(make_app: Maker, query: str, memories: list[Memory]) -> Any:
    app = make_app(f"flow.t.flow_content={FLOW}", "flow.t.inputs=[memories]")
    return run(app, "t", query=query, memories=[m.model_copy(deep=True) for m in memories])


def test_a_query_about_now_finds_the_later_of_two_statements_of_its_subject_with_other_values(make_app: Maker) -> None:
    # no word of change in the later one: the query's subject and a value of the same kind with another content
    old = scored("old", "£7.55 an hour at the garden centre, not bad", 0.62, FEB)
    new = scored("new", "£8.60 an hour at the garden centre", 0.60, SEP)
    response = ask(make_app, "how much do I earn an hour?", [old, new, *FILLER])
    assert ids(response)[:2] == ["new", "old"]
    assert "hour" in response.memories[0].explain["restated_first"]
    # not asked about now, nor about a name alone, nor a later event (not how things are), nor the same value again
    assert ids(ask(make_app, "how much did I earn an hour last year?", [old, new, *FILLER]))[:2] == ["old", "new"]
    grace = scored("old", "Grace is my sister, she lives in Oakland", 0.62, FEB)
    birthday = scored("new", "Grace turns 30 on Saturday, June 22", 0.60, SEP)
    assert ids(ask(make_app, "who is Grace?", [grace, birthday, *FILLER]))[:2] == ["old", "new"]
    knee = scored("old", "the physio says I can run 3 km at most, twice a week", 0.62, FEB)
    ran = scored("new", "ran 6 km along the marina this morning with no knee pain", 0.60, SEP)
    assert ids(ask(make_app, "how far can I run?", [knee, ran, *FILLER]))[:2] == ["old", "new"]
    same = scored("new", "still £7.55 an hour at the garden centre", 0.60, SEP)
    assert ids(ask(make_app, "how much do I earn an hour?", [old, same, *FILLER]))[:2] == ["old", "new"]


def test_a_term_most_candidates_hold_is_not_what_a_change_is_about(make_app: Maker) -> None:
    # memories written of the user: her name is in each, as "I" is in her own words; a change of her dentist
    # appointment is not a change of her knee, whatever the margin
    knee = scored("old", "Alice hurt her right knee on a trail run", 0.62, FEB)
    dentist = scored("new", "Alice moved her dentist appointment from Friday to Monday", 0.60, SEP)
    of_her = [scored(f"f{i}", f"Alice planted tomatoes in the garden {i}", 0.40 - i / 100, FEB) for i in range(4)]
    wide = "op.fuse_rerank_op.params.changed_margin=100"
    assert ids(fuse(make_app, [knee, dentist, *of_her], wide))[:2] == ["old", "new"]
    # the same pair among candidates that do not all name her: her name is what the change is about
    moved = fuse(make_app, [knee, dentist, *FILLER], wide)
    assert ids(moved)[:2] == ["new", "old"] and "alic" in moved.memories[0].explain["changed_first"]


def test_later_is_when_it_was_said_not_when_it_happens(make_app: Maker) -> None:
    # said before the older one, about an event after it: not the later statement of the two
    planned = scored("new", NEW.content, 0.60, datetime(2025, 1, 2)).with_event_time(datetime(2025, 12, 1))
    assert ids(fuse(make_app, [OLD, planned, *FILLER]))[:2] == ["old", "new"]


def test_a_query_about_the_past_is_answered_by_what_was_said_then_not_by_what_changed_it(make_app: Maker) -> None:
    # "when did…", "what did…": the older statement is the answer; what replaced it is the answer to a question of now
    for query in ("when did Maya start as a paramedic?", "what did Maya do for work last year?"):
        assert ids(ask(make_app, query, [OLD, NEW, *FILLER]))[:2] == ["old", "new"], query
    assert ids(ask(make_app, "what does Maya do for work?", [OLD, NEW, *FILLER]))[:2] == ["new", "old"]
