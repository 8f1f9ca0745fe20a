"""The offline info score: appointments written without "I" are kept, a time word alone is not."""

from __future__ import annotations

import pytest

from flowmem.scoring.info import info_score

KEEP = 2  # info_filter_op's default threshold


@pytest.mark.parametrize(
    "text",
    [
        "Dinner with Sofia on Friday the 28th at 8 pm.",
        "Housewarming party on Saturday.",
        "Dentist appointment tomorrow at 3pm.",
        "Call with mom on Sunday evening.",
        "Team offsite meeting next week.",
        "Ok. Haircut on the 12th!",
        "28号周五晚上八点和索菲亚吃饭。",
        "和小李周五28号晚上8点吃饭",
        "下周三下午两点面试",
        "周六的聚会",
    ],
)
def test_an_appointment_without_a_first_person_word_is_kept(text: str) -> None:
    assert info_score(text) >= KEEP


@pytest.mark.parametrize(
    "text",
    [
        "The shop closes at 9 pm.",
        "Tomorrow is Friday.",
        "It rained all day yesterday.",
        "The Olympics are in 2028.",  # an event, but a year is no appointment
        "The conference is in March.",
        "Happy birthday!",  # an occasion without a time
        "Can you book a dinner table for Friday?",  # a question to the assistant
        "明天下雨",
        "会议室在三楼",
    ],
)
def test_a_time_without_an_activity_or_an_activity_without_a_date_is_not(text: str) -> None:
    assert info_score(text) < KEEP


def test_first_person_scores_are_unchanged() -> None:
    assert info_score("I'm flying to Chicago next Thursday") == 3
    assert info_score("I love hiking.") == 2
    assert info_score("thanks, that's helpful") == 0
