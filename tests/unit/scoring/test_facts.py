"""One fact per memory offline: :func:`flowmem.scoring.facts.split_facts`."""

from __future__ import annotations

from datetime import datetime

import pytest

from flowmem.schema.memory import Message
from flowmem.scoring.derive import memory_from_message
from flowmem.scoring.facts import several_times, split_facts


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        (
            "Hi! I live in Milan with my dog Rex, in a small flat near the Navigli.",
            ["Hi! I live in Milan, in a small flat near the Navigli.", "my dog Rex"],
        ),
        (
            "I live in Oakland, in Temescal, with my cat Mochi. My partner Sam is over most of the time anyway.",
            ["I live in Oakland, in Temescal.", "my cat Mochi", "My partner Sam is over most of the time anyway."],
        ),
        (
            "I live in Milan, and my sister lives in Rome. Dr. Rossi is my doctor.",
            ["I live in Milan", "my sister lives in Rome.", "Dr. Rossi is my doctor."],
        ),
        (
            "I work as a nurse at the city hospital and I love risotto. It's my comfort food.",
            ["I work as a nurse at the city hospital", "I love risotto. It's my comfort food."],
        ),
        ("我住在米兰，我的狗叫旺财。我在医院工作。", ["我住在米兰", "我的狗叫旺财。", "我在医院工作。"]),
        ("我和我的狗旺财住在米兰。", ["我住在米兰。", "我的狗旺财"]),
        (  # the clauses after the first go on with its 我
            "我叫小林，是人民医院的护士，养了两只猫，叫汤姆和杰瑞。",
            ["我叫小林", "是人民医院的护士", "养了两只猫，叫汤姆和杰瑞。"],
        ),
        (
            "I moved to Turin today! Housewarming party on Saturday.",
            ["I moved to Turin today!", "Housewarming party on Saturday."],
        ),
        (  # a clause cut at its commas where each side names its own time: one event time per memory
            "I told my manager on Thursday, my last day there is March 19, and I start at Corvane on the 31st.",
            ["I told my manager on Thursday", "my last day there is March 19", "I start at Corvane on the 31st."],
        ),
        (
            "红烧肉、清蒸鱼，还特意给我做了素的红烧豆腐，因为我吃素。",
            ["红烧肉、清蒸鱼，还特意给我做了素的红烧豆腐", "因为我吃素。"],
        ),
    ],
)
def test_a_message_with_several_facts_is_split_in_its_own_words(text: str, facts: list[str]) -> None:
    assert split_facts(text) == facts


@pytest.mark.parametrize(
    "text",
    [
        "Great news! I moved to Turin today!",  # a leading exclamation stays with the fact
        "I went hiking with Tom and my sister on Saturday.",  # "and my sister" is no clause of its own
        "I went hiking with my sister Anna.",  # a companion is split off only from a single-valued fact
        "I'm flying to Chicago next Thursday for a design conference. Can you suggest a hotel?",
        "I love hiking, it's my favourite way to spend a weekend.",
        "thanks! I have a 3.5 GPA now.",
    ],
)
def test_a_message_with_one_fact_stays_whole(text: str) -> None:
    assert split_facts(text) == [text]


def test_the_threshold_decides_what_is_a_fact() -> None:
    text = "I moved to Turin. I was so tired."  # (an acknowledgement, "I know, right?", scores 0 and is no fact)
    assert split_facts(text) == [text]
    assert split_facts(text, min_info=1) == ["I moved to Turin.", "I was so tired."]


@pytest.mark.parametrize(
    ("text", "several"),
    [
        ("体检改到28号了，25号要开会", True),
        ("I moved today! Housewarming on Saturday.", True),
        ("My flight to Chengdu is on 15th, very early morning 6am", False),  # a time of day refines the day
        ("I went hiking on Sunday with Ana", False),
        # one date written across a comma ("in March, the 14th") is one time: cut there, "the 14th" was read in the
        # month it was said
        ("my exam is in March, the 14th", False),
        ("I told my boss on Monday, my exam is in March, the 14th", True),
    ],
)
def test_a_message_naming_several_times_is_split_like_a_changeable_fact(text: str, several: bool) -> None:
    assert several_times(text) is several
    assert (len(split_facts(text)) > 1) is several


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        # texting drops the "I": a leading part with no fact words of its own but a time of its own is an event, and
        # its time is not the next fact's (one event time per memory)
        (
            "Emailed the Clayhouse people yesterday, my last class there is June 3, and then I'm done with clay.",
            ["Emailed the Clayhouse people yesterday", "my last class there is June 3, and then I'm done with clay."],
        ),
        # without a time of its own it still leads into the fact after it
        ("Great news! I got the job at Lumen on Monday.", ["Great news! I got the job at Lumen on Monday."]),
        # leading English clauses that each name a date of their own are one event each (session 15)
        (
            "the old cabinets got ripped out on Friday, the plumber is coming Wednesday to move the sink, and we're "
            "living on takeout.",
            [
                "the old cabinets got ripped out on Friday",
                "the plumber is coming Wednesday to move the sink, and we're living on takeout.",
            ],
        ),
        # "we" after a bare comma goes on about what the clause before named (the choir rehearses)
        (
            "I sing alto in the St Wilfrid's choir, we rehearse Thursday evenings at 7, and I'm learning Spanish.",
            ["I sing alto in the St Wilfrid's choir, we rehearse Thursday evenings at 7", "I'm learning Spanish."],
        ),
        # ... and so is the last of them (it was lost before session 18, and the message stayed whole)
        (
            "The plumber came on Tuesday but he has to come back next Friday",
            ["The plumber came on Tuesday", "he has to come back next Friday"],
        ),
    ],
)
def test_a_leading_part_with_a_time_of_its_own_is_a_fact_of_its_own(text: str, facts: list[str]) -> None:
    assert split_facts(text) == facts


def test_a_message_no_part_of_which_is_a_fact_of_its_own_is_split_by_its_dated_sentences() -> None:
    # third person, no 我: no part scores as a fact, yet two sentences name two dates (one event time per memory)
    first = "王阿姨把房子卖了 新房东姓赵，第一次见面就说明年要涨房租。"
    second = "合同倒是继续有效，到明年五月，今年还是三千二。"
    assert split_facts(first + second) == [first, second]
    assert split_facts("Great news! See you Friday.") == ["Great news! See you Friday."]  # one date: whole
    # …and two clauses of one sentence that each name a date, a bare time said of the clause before it
    assert split_facts("决定了，跳！今天提的离职，最后一天是十二月二十七号。") == [
        "决定了，跳！今天提的离职",
        "最后一天是十二月二十七号。",
    ]
    assert split_facts("哦不对 不是周一 是周二") == ["哦不对 不是周一 是周二"]


@pytest.mark.parametrize(
    "text",
    [
        "New custody arrangement from this week: kids with me Mon, Wed and every other weekend.",
        "Finally no more nights! From December I'm on long days, 7:30am to 8pm, mostly Mon/Wed/Fri. Still on 4A.",
    ],
)
def test_a_list_of_times_is_one_fact_not_one_per_time(text: str) -> None:
    """A piece after a comma that is only more times of the one before ("…Mon, Wed and every other weekend", "long
    days, 7:30am to 8pm") lists them: cut off, the list lost its days (session 15, the second fresh set)."""
    assert split_facts(text) == [text]


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        (  # a doing after another, each with its own day, joined by a word and no subject: texting drops the "I"
            "Went climbing Sunday and then bouldering yesterday",
            ["Went climbing Sunday", "bouldering yesterday"],
        ),
        (
            "interview at Google went great on Monday and they want me back Friday for the final round",
            ["interview at Google went great on Monday", "they want me back Friday for the final round"],
        ),
        ("We'll do dinner Friday then the zoo Saturday", ["We'll do dinner Friday", "the zoo Saturday"]),
    ],
)
def test_a_clause_is_cut_at_a_joining_word_between_two_times(text: str, facts: list[str]) -> None:
    """One event time per memory: two doings joined by "and (then)" / "then" / "but", each with a day of its own,
    are two facts, as two clauses joined by a comma are (session 20: the second was dated by the first day)."""
    assert split_facts(text) == facts


@pytest.mark.parametrize(
    "text",
    [
        "The school change my class, now is tuesday and thursday 6pm because of my shifts in the hotel.",
        "I play bridge at the Seaview club on Monday and Thursday afternoons with my partner Vera",
        "I'm off between Monday and Friday",
    ],
)
def test_times_joined_by_and_are_one_list_not_two_doings(text: str) -> None:
    """ "tuesday and thursday 6pm": a time right before the joining word and another right after it list times."""
    assert split_facts(text) == [text]


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("Went climbing on Sunday and then bouldering on Tuesday", ["2025-03-09", "2025-03-11"]),
        ("Went climbing on Sunday, bouldering on Tuesday", ["2025-03-09", "2025-03-11"]),
        ("We were in Rome from the 3rd and then Florence till the 10th", ["2025-03-03", "2025-03-10"]),
        ("We'll do dinner Friday then the zoo Saturday", ["2025-03-14", "2025-03-15"]),
    ],
)
def test_a_piece_cut_from_a_clause_takes_its_tense_from_the_clause(text: str, days: list[str]) -> None:
    """ "bouldering on Tuesday" has no verb of its own: cut from "Went climbing on Sunday, …", said on a Wednesday, it
    is the Tuesday just gone (read alone it was the coming one)."""
    said = datetime(2025, 3, 12, 14)  # a Wednesday
    message = Message(message_id="m", role="user", name="u", content=text, time_created=said)
    dated = [
        memory_from_message(message, workspace_id="w", target="u", index=i, content=fact, event_text=fact)
        for i, fact in enumerate(split_facts(text))
    ]
    assert [m.event_time.date().isoformat() if m.event_time else None for m in dated] == days
