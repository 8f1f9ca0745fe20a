"""The assistant's replies that restate the user (flowmem.scoring.echo), and how the write path keeps them."""

from __future__ import annotations

import pytest

from flowmem import App
from flowmem.scoring.echo import restated_words, restates, said_back
from flowmem.scoring.restated import as_said_by_user
from tests.unit.ops.test_write_path import EPHEMERAL, T0, all_memories, message, summarize


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        ("Got it: Temescal, Mochi, and Sam. Is Mochi a recent addition?",
         "I live in Temescal with Sam and our cat Mochi"),
        ("Noted: Pepper now eats Hillside kidney care kibble, half a cup twice a day.",
         "Vet says Pepper should switch to the Hillside kidney care kibble, half a cup twice a day."),
        ("好的，记下了：你女儿9月1日开学，就读于实验中学一年级。", "下周一我女儿开学，进了实验小学一年级"),
        ("好的，记下了：你住在北京。", "我住在北京"),
        # no acknowledgement: most of its naming words are the user's, or a value of theirs with another word
        ("So the kids are with you Mondays and Wednesdays.", "kids are with me Mondays and Wednesdays now"),
    ],
)  # fmt: skip
def test_a_reply_that_says_the_user_s_words_back_restates_them(reply: str, said: str) -> None:
    assert restates(reply, [said])


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        ("That's exciting! Is she starting 3rd grade there?", "Maisie starts at Brookside Elementary next week"),
        ("Good night!", "good night!"),
        ("Got it.", "I live in Paris"),
        # an answer that uses the user's words is no restatement: most of what it names is its own
        ("Kyoto in July, exciting! It'll be hot and humid, and Gion Matsuri will be in full swing.",
         "Sam and I are planning a trip to Kyoto in July!"),
        ("Sure! Here's a plan: warm up for ten minutes, then run intervals, and stretch your calves and hamstrings "
         "after every session, twice a week, building up slowly over the next months until the race in the spring.",
         "I run twice a week"),
    ],
)  # fmt: skip
def test_questions_pleasantries_and_answers_restate_nothing(reply: str, said: str) -> None:
    assert not restates(reply, [said])


def test_what_a_reply_says_back_and_how_the_user_would_say_it() -> None:
    assert said_back("好的，记下了：你女儿9月1日开学") == "你女儿9月1日开学"
    assert said_back("Noted — Biscuit's shots on May 14.") == "Biscuit's shots on May 14."
    assert (
        as_said_by_user("Got it, you're vegetarian and your partner is Sam")
        == "Got it, I'm vegetarian and my partner is Sam"
    )
    assert as_said_by_user("你住在北京，你们") == "我住在北京，你们"


def test_a_restating_reply_is_kept_and_the_user_s_correction_reaches_it() -> None:
    with App(overrides=EPHEMERAL) as app:
        summarize(app, [
            message("u1", "Biscuit (my corgi) has his annual shots at Riverside Vets on the 14th", T0),
            message("a1", "Noted — Biscuit's vaccinations at Riverside Vets on May 14.", T0, role="assistant"),
            message("a2", "Anything else I can help with?", T0, role="assistant"),
            message("u2", "wait sorry, it's the 16th not the 14th", T0.replace(hour=10)),
        ])  # fmt: skip
        memories = all_memories(app)
    echo = {m.status: m for m in memories if m.metadata.get("restates") == "u1"}
    # said in the user's stead: the correction, said of the latest statement, rewrote it too ("May 14" is "the 14th")
    assert echo["expired"].content.endswith("on May 14.") and echo["valid"].content.endswith("on the 16th.")
    assert echo["valid"].event_time is not None and echo["valid"].event_time.day == 16
    assert not any("a2" in m.source for m in memories)  # a question is no restatement


def test_restating_replies_can_be_left_out() -> None:
    with App(overrides=[*EPHEMERAL, "op.info_filter_op.params.keep_restated=false"]) as app:
        result = summarize(app, [message("u1", "I live in Oakland", T0),
                                 message("a1", "Got it, you live in Oakland.", T0, role="assistant")])  # fmt: skip
        assert {m.metadata.get("role") for m in all_memories(app)} == {"user"}
    assert [s.reason for s in result.outputs["skipped_messages"]] == ["not the user's (role 'assistant')"]


@pytest.mark.parametrize(
    ("said", "reply", "day"),
    [
        # the noting is done; the thing noted is ahead ("I've noted" read as the tense put the 22nd in February)
        ("My sister's wedding is on the 22nd", "Lovely! I've noted your sister's wedding on Saturday the 22nd.", 22),
        ("I start at Acme on the 3rd", "Congrats! I'll remember that you start at Acme on June 3rd.", 3),
    ],
)  # fmt: skip
def test_a_restating_reply_dates_what_it_says_back_not_its_noting(said: str, reply: str, day: int) -> None:
    with App(overrides=EPHEMERAL) as app:
        summarize(app, [message("u1", said, T0), message("a1", reply, T0, role="assistant")])
        [echo] = [m for m in all_memories(app) if m.metadata.get("role") == "assistant"]
    assert echo.event_time is not None and echo.event_time > T0 and echo.event_time.day == day


def test_what_a_reply_says_back_leaves_its_reaction_and_its_noting_out() -> None:
    assert said_back("Lovely! I've noted your sister's wedding on Saturday the 22nd.") == (
        "your sister's wedding on Saturday the 22nd."
    )
    assert restated_words("Great! I'll remember that. Your exam is on the 14th.") == "Your exam is on the 14th."
