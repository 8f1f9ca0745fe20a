"""Labelled event times of chat messages (and a few questions): text, said-at → date or range.

Written for flowmem (CC0). Each case names its ``kind``; the expected range is written by hand in
a compact form (see :func:`expected_range`). Said-at times are in 2025, where 24 March is a Monday
and 28 March and 28 February are both Fridays (so "Friday the 28th" needs the direction). Messages
resolve as the write path reads them (:func:`flowmem.scoring.derive.event_time`: ``lean="neutral"``,
with no tense in the wording the coming occurrence of a near name, else the nearer; a count of
weeks ahead is a day), questions (kind ``query-…``, ``lean="past"``) as the query path does.

Kinds not covered (the rules do not read them; see the docstring of scripts/eval_time_table.py):
vague times ("a few days ago", "recently", 最近, 前几天: the write path dates a message by some of them,
:mod:`flowmem.timeexpr.vague`, tested in test_vague.py), habits ("every Friday", 每周三), durations
("for three days"), fiscal or school calendars, holidays outside the table (Diwali, Ramadan, Easter
in the Orthodox reckoning), time zones, and Chinese counts written with 个 left out of months.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import NamedTuple

from flowmem.scoring.derive import event_time
from flowmem.timeexpr import extract_all, extract_time

MON = datetime(2025, 3, 24, 10, 0)  # Monday, ISO 2025-W13
WED = datetime(2025, 3, 26, 10, 0)  # Wednesday
SAT = datetime(2025, 3, 29, 11, 0)  # Saturday
APR10 = datetime(2025, 4, 10, 9, 0)  # Thursday
MAY20 = datetime(2025, 5, 20, 9, 0)  # Tuesday before Memorial Day (26 May)
JUN2 = datetime(2025, 6, 2, 9, 0)  # Monday after Memorial Day
JAN10 = datetime(2025, 1, 10, 9, 0)  # Friday, before the Lunar New Year (29 January)
NOV3 = datetime(2025, 11, 3, 9, 0)  # Monday
MAR15 = datetime(2025, 3, 15, 10, 0)  # Saturday (issue 23's report was said then)
AUG26 = datetime(2024, 8, 26, 21, 0)  # Monday, a week before the school year
DEC2 = datetime(2024, 12, 2, 22, 0)  # Monday


class MessageCase(NamedTuple):
    kind: str
    text: str
    said: datetime
    expected: str
    lean: str = "neutral"

    @property
    def id(self) -> str:
        return f"{self.kind}: {self.text} @{self.said:%Y-%m-%d}"


def expected_range(spec: str) -> tuple[datetime, datetime]:
    """``[start, end)`` of a compact spec.

    ``2025-03-28`` a day; ``2025-03-28T20`` an hour; ``2025-03-26 06-12`` hours of a day;
    ``2025-03-03..2025-03-07`` the days from one to the other, both included; ``2025-06`` a month;
    ``2025`` a year; ``W2025-03-24`` the ISO week of that Monday; ``WE2025-03-29`` that weekend.
    """
    if ".." in spec:
        first, last = spec.split("..")
        return datetime.fromisoformat(first), datetime.fromisoformat(last) + timedelta(days=1)
    if spec.startswith("WE"):
        start = datetime.fromisoformat(spec[2:])
        return start, start + timedelta(days=2)
    if spec.startswith("W"):
        start = datetime.fromisoformat(spec[1:])
        return start, start + timedelta(days=7)
    if " " in spec:
        day, hours = spec.split(" ")
        first_hour, last_hour = (int(h) for h in hours.split("-"))
        base = datetime.fromisoformat(day)
        return base + timedelta(hours=first_hour), base + timedelta(hours=last_hour)
    if "T" in spec:
        start = datetime.fromisoformat(spec + ":00")
        return start, start + timedelta(hours=1)
    if len(spec) == 4:
        return datetime(int(spec), 1, 1), datetime(int(spec) + 1, 1, 1)
    if len(spec) == 7:
        year, month = (int(x) for x in spec.split("-"))
        return datetime(year, month, 1), datetime(year + month // 12, month % 12 + 1, 1)
    start = datetime.fromisoformat(spec)
    return start, start + timedelta(days=1)


def is_right(case: MessageCase) -> bool:
    """Whether flowmem reads ``case`` as labelled: its (first) time, and every time when it lists several."""
    specs = case.expected.split(" | ")
    if resolved(case) != expected_range(specs[0]):
        return False
    return len(specs) == 1 or resolved_all(case) == [expected_range(spec) for spec in specs]


def resolved_all(case: MessageCase) -> list[tuple[datetime, datetime]]:
    """``[start, end)`` of every expression of a message, in text order, as the write path reads them."""
    return [(found.start, found.end) for found in extract_all(case.text, case.said, lean="neutral", weeks_ahead="day")]


def resolved(case: MessageCase) -> tuple[datetime, datetime] | None:
    """``[start, end)`` as flowmem reads the case: a message as the write path, a question as the query path."""
    if case.lean == "neutral":
        found = event_time(case.text, case.said)
    else:
        found = extract_time(case.text, case.said, lean=case.lean)  # type: ignore[arg-type]
    return (found.start, found.end) if found is not None else None


C = MessageCase
EN: list[MessageCase] = [
    # -- weekdays with past wording: the latest one on or before the day it was said ------------
    C("weekday-past", "I went to the gym on Monday.", WED, "2025-03-24"),
    C("weekday-past", "On Tuesday I met Anna for coffee.", WED, "2025-03-25"),
    C("weekday-past", "We watched a movie on Sunday.", WED, "2025-03-23"),
    C("weekday-past", "I visited grandma on Saturday.", WED, "2025-03-22"),
    C("weekday-past", "I was sick on Friday.", WED, "2025-03-21"),
    C("weekday-past", "I had a long call with my boss on Thursday.", WED, "2025-03-20"),
    C("weekday-past", "I saw Tom on Thursday.", SAT, "2025-03-27"),
    C("weekday-past", "We played tennis on Tuesday.", SAT, "2025-03-25"),
    C("weekday-past", "I finished the report on Wednesday.", SAT, "2025-03-26"),
    C("weekday-past", "My sister called on Sunday.", SAT, "2025-03-23"),
    C("weekday-past", "I bought new shoes on Friday.", MON, "2025-03-21"),
    C("weekday-past", "We cooked dinner together on Saturday.", MON, "2025-03-22"),
    C("weekday-past", "I ran 10 km on Sunday.", MON, "2025-03-23"),
    C("weekday-past", "I forgot my keys at the office on Wednesday.", MON, "2025-03-19"),
    C("weekday-past", "Tom got promoted on Tuesday.", MON, "2025-03-18"),
    C("weekday-past", "I took the train to Lyon on Thursday.", APR10, "2025-04-10"),
    C("weekday-past", "I ate sushi with Bea on Monday.", APR10, "2025-04-07"),
    C("weekday-past", "I already paid the plumber on Friday.", APR10, "2025-04-04"),
    # -- weekdays with future or plan wording: the next one (today counts) --------------------------
    C("weekday-future", "I will go to the dentist on Friday.", WED, "2025-03-28"),
    C("weekday-future", "We're meeting on Monday.", WED, "2025-03-31"),
    C("weekday-future", "I'm flying to Boston on Tuesday.", WED, "2025-04-01"),
    C("weekday-future", "Let's have lunch on Thursday.", WED, "2025-03-27"),
    C("weekday-future", "I plan to visit mom on Sunday.", WED, "2025-03-30"),
    C("weekday-future", "I'm looking forward to the talk on Saturday.", WED, "2025-03-29"),
    C("weekday-future", "I'll call the bank on Monday.", SAT, "2025-03-31"),
    C("weekday-future", "We are going to the zoo on Sunday.", SAT, "2025-03-30"),
    C("weekday-future", "My interview is scheduled on Wednesday.", SAT, "2025-04-02"),
    C("weekday-future", "I have to submit the form on Friday.", SAT, "2025-04-04"),
    C("weekday-future", "I want to try the new ramen place on Thursday.", MON, "2025-03-27"),
    C("weekday-future", "Anna is coming over on Saturday.", MON, "2025-03-29"),
    C("weekday-future", "I booked a massage for Tuesday.", MON, "2025-03-25"),
    C("weekday-future", "Don't forget the recital on Sunday.", MON, "2025-03-30"),
    C("weekday-future", "I'm gonna repaint the kitchen on Saturday.", APR10, "2025-04-12"),
    C("weekday-future", "We will sign the lease on Monday.", APR10, "2025-04-14"),
    C("weekday-future", "The kids are starting swim class on Wednesday.", APR10, "2025-04-16"),
    C("weekday-future", "I need to renew my passport on Friday.", APR10, "2025-04-11"),
    C("weekday-future", "My exam is on Friday.", SAT, "2025-04-04"),
    C("weekday-future", "Friday after next is Mia's recital.", WED, "2025-04-04"),  # a week after the coming one
    C("weekday-past", "We met Monday before last.", WED, "2025-03-17"),  # a week before the last one
    C("weekday-future", "We're off to Crete a week on Friday.", WED, "2025-04-04"),  # British: a week after Friday
    C("weekday-future", "dentist is Tuesday week", WED, "2025-04-08"),  # British: a week after the coming Tuesday
    C("weekday-future", "see you Friday week!", WED, "2025-04-04"),
    C("weekday-future", "The dentist moved my appointment from Tuesday to Friday.", WED, "2025-03-28"),  # not a range
    # -- weekdays with neutral wording: the coming one (today counts); the past is told in the past tense
    # (these seven and three Chinese ones below were the nearer one, a past day, before issue 12's review)
    C("weekday-neutral", "I give the talk on Saturday.", WED, "2025-03-29"),
    C("weekday-neutral", "The team lunch on Friday.", WED, "2025-03-28"),
    C("weekday-neutral", "Dinner with Sam on Thursday.", WED, "2025-03-27"),
    C("weekday-neutral", "The board meeting on Monday.", WED, "2025-03-31"),
    C("weekday-neutral", "My yoga class on Tuesday.", WED, "2025-04-01"),
    C("weekday-neutral", "The party on Sunday.", WED, "2025-03-30"),
    C("weekday-neutral", "The match on Saturday.", MON, "2025-03-29"),
    C("weekday-neutral", "My shift on Thursday.", MON, "2025-03-27"),
    C("weekday-neutral", "The piano lesson on Wednesday.", MON, "2025-03-26"),
    C("weekday-neutral", "The exam on Friday.", MON, "2025-03-28"),
    C("weekday-neutral", "The concert on Friday.", SAT, "2025-04-04"),
    C("weekday-neutral", "Brunch on Tuesday.", SAT, "2025-04-01"),
    C("weekday-neutral", "The quiz on Wednesday.", SAT, "2025-04-02"),
    C("weekday-neutral", "Book club on Monday.", SAT, "2025-03-31"),
    C("weekday-neutral", "My check-up on Saturday.", SAT, "2025-03-29"),
    C("weekday-neutral", "The school trip on Friday.", APR10, "2025-04-11"),
    C("weekday-neutral", "Housewarming party on Saturday.", MON, "2025-03-29"),
    C("weekday-neutral", "Party on Saturday!", SAT, "2025-03-29"),  # today's
    C("day-of-month", "Dentist on the 28th.", SAT, "2025-04-28"),  # no past wording: the coming 28th
    C("weekday-past", "The party on Saturday was so much fun.", MON, "2025-03-22"),
    # -- a day of the month alone --------------------------------------------------------------------
    C("day-of-month", "My exam is on the 28th.", MON, "2025-03-28"),
    C("day-of-month", "I paid the rent on the 1st.", MON, "2025-03-01"),
    C("day-of-month", "The package arrives on the 2nd.", MON, "2025-04-02"),
    C("day-of-month", "I will move flats on the 15th.", MON, "2025-04-15"),
    C("day-of-month", "I started the new job on the 10th.", MON, "2025-03-10"),
    C("day-of-month", "The invoice is due on the 31st.", MON, "2025-03-31"),
    C("day-of-month", "We got the keys on the 20th.", MON, "2025-03-20"),
    C("day-of-month", "Her birthday party is on the 5th.", MON, "2025-04-05"),
    C("day-of-month", "I flew back on the 3rd.", APR10, "2025-04-03"),
    C("day-of-month", "The vet appointment on the 12th.", APR10, "2025-04-12"),
    C("day-of-month", "The recital on the 25th.", APR10, "2025-04-25"),
    C("day-of-month", "I'll be home on the 30th.", APR10, "2025-04-30"),
    C("day-of-month", "My dentist appointment is on the 28th.", APR10, "2025-04-28"),  # "is": a schedule
    C("day-of-month", "no wait, it's the 13th, I misread the ticket.", NOV3, "2025-11-13"),  # alone: nothing after
    C("day-of-month", "I'm sure it's the 13th at 7.", NOV3, "2025-11-13T07"),
    C("day-of-month", "I've got two weeks off before I start at Corvane on the 31st.", MAR15, "2025-03-31"),  # having
    C("day-of-month", "I got the keys on the 12th.", MAR15, "2025-03-12"),
    C("day-of-month", "My flight to Chengdu is on 15th, very early morning 6am", NOV3, "2025-11-15"),  # no article
    # -- a weekday and a day of the month: the date where both hold --------------------------------
    C("weekday+day", "On Friday the 28th at 8 pm we are having dinner at Marco's.", MON, "2025-03-28T20"),
    C("weekday+day", "Dinner on Friday the 28th.", MON, "2025-03-28"),
    C("weekday+day", "We met on Friday the 28th.", APR10, "2025-03-28"),
    C("weekday+day", "I'll see you on Friday the 28th.", APR10, "2025-11-28"),
    C("weekday+day", "I'm seeing the dentist on Saturday the 5th.", MON, "2025-04-05"),
    C("weekday+day", "We moved in on Monday the 3rd.", MON, "2025-03-03"),
    C("weekday+day", "The race on Sunday the 30th.", MON, "2025-03-30"),
    C("weekday+day", "The wedding is on Thursday, May 1.", MON, "2025-05-01"),
    C("weekday+day", "I started on Friday, March 7.", MON, "2025-03-07"),
    C("weekday+day", "We arrived on Thursday the 20th.", MON, "2025-03-20"),
    C("weekday+day", "The launch is on Tuesday the 1st.", MON, "2025-04-01"),
    C("weekday+day", "The gala on Saturday the 29th at 7pm.", MON, "2025-03-29T19"),
    C("weekday+day", "I'll fly out on Friday the 13th.", MON, "2025-06-13"),
    C("weekday+day", "I went skiing on Friday the 14th.", MON, "2025-03-14"),
    C("weekday+day", "On Wednesday the 9th I will present.", MON, "2025-04-09"),
    # -- month names without a year ------------------------------------------------------------------
    C("month-no-year", "I want to visit Japan in June.", MON, "2025-06"),
    C("month-no-year", "I was in Rome in June.", MON, "2024-06"),
    C("month-no-year", "The wedding in June.", MON, "2025-06"),
    C("month-no-year", "The conference in November.", MON, "2024-11"),
    C("month-no-year", "We'll renovate the bathroom in November.", MON, "2025-11"),
    C("month-no-year", "I ran the Berlin marathon in September.", MON, "2024-09"),
    C("month-no-year", "I am going to Iceland in August.", MON, "2025-08"),
    C("month-no-year", "Our anniversary trip in April.", MON, "2025-04"),
    C("month-no-year", "I started piano in January.", MON, "2025-01"),
    C("month-no-year", "My sister's graduation in July.", NOV3, "2025-07"),
    C("month-no-year", "The ski week in February.", NOV3, "2026-02"),
    C("month-no-year", "I will start the course on May 5th.", MON, "2025-05-05"),
    C("month-no-year", "I visited the museum on May 5th.", MON, "2024-05-05"),
    C("month-no-year", "Her due date is April 14.", MON, "2025-04-14"),
    C("month-no-year", "I adopted Rex on December 2.", MON, "2024-12-02"),
    C("month-no-year", "The deadline on March 10.", MON, "2025-03-10"),
    # -- counts from the day it was said -------------------------------------------------------------
    C("relative-offset", "I'm leaving in two weeks.", WED, "2025-04-09"),  # a day: was the ISO week (issue 12)
    C("relative-offset", "My sister's wedding is in two weeks.", datetime(2025, 6, 10, 9), "2025-06-24"),
    C(
        "relative-offset", "Two weeks ago I started pottery.", WED, "2025-03-12"
    ),  # counted back: a day too (was the week)
    C("relative-offset", "I quit my job a week ago.", WED, "2025-03-19"),
    C("relative-offset", "I got the flu 3 days ago.", WED, "2025-03-23"),
    C("relative-offset", "The results come in 3 days.", WED, "2025-03-29"),
    C("relative-offset", "We broke up two months ago.", WED, "2025-01"),
    C("relative-offset", "I'll know in a month.", WED, "2025-04"),
    C("relative-offset", "I moved here a year ago.", WED, "2024"),
    C("relative-offset", "I landed 5 hours ago.", WED, "2025-03-26T05"),
    C("relative-offset", "The movers arrive in 2 hours.", WED, "2025-03-26T12"),
    C("relative-offset", "I adopted a cat two days ago.", WED, "2025-03-24"),
    C("relative-offset", "In ten days I start at Acme.", WED, "2025-04-05"),
    C("relative-offset", "Three weeks ago I ran a half marathon.", WED, "2025-03-05"),
    C("relative-offset", "I'm having surgery in 3 weeks.", WED, "2025-04-16"),  # a day: was the ISO week
    C("relative-offset", "I met him yesterday.", WED, "2025-03-25"),
    C("relative-offset", "I have a doctor's appointment tomorrow.", WED, "2025-03-27"),
    C("relative-offset", "The day after tomorrow we fly to Oslo.", WED, "2025-03-28"),
    C("relative-offset", "I bought the car last week.", WED, "W2025-03-17"),
    C("relative-offset", "I start the new job next week.", WED, "W2025-03-31"),
    C("relative-offset", "We went hiking last weekend.", WED, "WE2025-03-22"),
    C("relative-offset", "I'm moving next month.", WED, "2025-04"),
    C("relative-offset", "I got married last year.", WED, "2024"),
    C("relative-offset", "I'll see my brother next Friday.", WED, "2025-03-28"),
    C("relative-offset", "I saw a concert last Saturday.", WED, "2025-03-22"),
    # -- parts of the day ----------------------------------------------------------------------------
    C("parts-of-day", "I slept badly last night.", WED, "2025-03-25 18-24"),
    C("parts-of-day", "I went for a run this morning.", WED, "2025-03-26 06-12"),
    C("parts-of-day", "We're going out tonight.", WED, "2025-03-26 18-24"),
    # texting's day words: read as the words they shorten
    C("texting", "dentist tmrw at 9, ugh", WED, "2025-03-27T09"),
    C("texting", "yday was a write-off, flat tire on the ring road", WED, "2025-03-25"),
    C("texting", "picking up the keys tmr", WED, "2025-03-27"),
    C("texting", "got the keys fri", MON, "2025-03-21"),  # no "on": an abbreviation that is no word of its own
    C("relative-offset", "Moved into the new place this weekend, boxes everywhere", MON, "WE2025-03-22"),  # just gone
    C("relative-offset", "we're moving this weekend", MON, "WE2025-03-29"),
    # weekdays counted from another day, and the nth one of a month (WED is Wednesday 26 March 2025)
    C("weekday-counted", "two Saturdays ago we had the party", WED, "2025-03-15"),
    C("weekday-counted", "3 Fridays ago I handed in my notice", WED, "2025-03-07"),
    C("weekday-counted", "the recital is a week from Friday", WED, "2025-04-04"),
    C("weekday-counted", "we fly out two weeks from tomorrow", WED, "2025-04-10"),
    C("weekday-counted", "the race is the first weekend of May", WED, "WE2025-05-03"),
    C("weekday-counted", "payday is the last Friday of the month", WED, "2025-03-28"),
    C("weekday-counted", "we met on the second Tuesday in February", WED, "2025-02-11"),
    C("weekday-counted", "school starts the first Monday of next month", WED, "2025-04-07"),
    C("parts-of-day", "I have a meeting this afternoon.", WED, "2025-03-26 12-18"),
    C("parts-of-day", "I called mom yesterday morning.", WED, "2025-03-25 06-12"),
    C("parts-of-day", "Let's meet tomorrow evening.", WED, "2025-03-27 18-24"),
    C("parts-of-day", "We're going dancing Friday night.", WED, "2025-03-28 18-24"),
    C("parts-of-day", "I had a migraine on Monday night.", WED, "2025-03-24 18-24"),
    C("parts-of-day", "I'm picking her up tomorrow at 3pm.", WED, "2025-03-27T15"),
    C("parts-of-day", "I woke up at 6am today.", WED, "2025-03-26T06"),
    C("parts-of-day", "Yesterday at 9pm the power went out.", WED, "2025-03-25T21"),
    C("parts-of-day", "The movie starts at 8 pm tonight.", WED, "2025-03-26T20"),
    C("parts-of-day", "Lunch at noon today.", WED, "2025-03-26T12"),
    C("parts-of-day", "I'm meeting Lea on Saturday afternoon.", WED, "2025-03-29 12-18"),
    # -- ranges --------------------------------------------------------------------------------------
    C("range", "I was in Rome from the 3rd to the 7th.", MON, "2025-03-03..2025-03-07"),
    C("range", "I'll be in Rome from the 3rd to the 7th.", MON, "2025-04-03..2025-04-07"),
    C("range", "I'll be off from Monday to Wednesday.", WED, "2025-03-31..2025-04-02"),
    C("range", "We stayed at the lake from Friday to Sunday.", WED, "2025-03-21..2025-03-23"),
    C("range", "The festival runs May 3-7.", MON, "2025-05-03..2025-05-07"),
    C("range", "I will travel between May 3 and May 7.", MON, "2025-05-03..2025-05-07"),
    C("range", "We were in Lisbon from March 10 to March 14.", MON, "2025-03-10..2025-03-14"),
    C("range", "I'll be away from April 28 to May 2.", MON, "2025-04-28..2025-05-02"),
    C("range", "The course runs from the 14th until the 18th.", APR10, "2025-04-14..2025-04-18"),
    C("range", "The workshop is tomorrow from 3pm to 5pm.", WED, "2025-03-27 15-17"),
    C("range", "I'm booked from Tuesday through Thursday.", SAT, "2025-04-01..2025-04-03"),
    C("range", "We camped June 6-9, 2024.", MON, "2024-06-06..2024-06-09"),
    # -- named holidays ------------------------------------------------------------------------------
    C("holiday", "Memorial Day weekend was fun.", JUN2, "2025-05-24..2025-05-26"),
    C("holiday", "We're going camping Memorial Day weekend.", MAY20, "2025-05-24..2025-05-26"),
    C("holiday", "We spent Christmas at my parents'.", MON, "2024-12-25"),
    C("holiday", "I'll visit my parents on Christmas.", MON, "2025-12-25"),
    C("holiday", "Christmas at my parents' place.", MON, "2024-12-25"),
    C("holiday", "We always fight on Christmas Eve; this year I'll stay home.", NOV3, "2025-12-24"),
    C("holiday", "We're hosting Thanksgiving this year.", MON, "2025-11-27"),
    C("holiday", "I proposed on Valentine's Day.", MON, "2025-02-14"),
    C("holiday", "We'll hunt eggs on Easter.", MON, "2025-04-20"),
    C("holiday", "I was in Paris for Easter.", APR10, "2024-03-31"),
    C("holiday", "Good Friday is a day off for me.", APR10, "2025-04-18"),
    C("holiday", "I'll cook brunch for Mother's Day.", APR10, "2025-05-11"),
    C("holiday", "I'm taking dad fishing on Father's Day.", APR10, "2025-06-15"),
    C("holiday", "We watched fireworks on Independence Day.", NOV3, "2025-07-04"),
    C("holiday", "The barbecue on Labor Day.", NOV3, "2025-09-01"),
    C("holiday", "I dressed as a witch for Halloween.", NOV3, "2025-10-31"),
    C("holiday", "We'll throw a party on New Year's Eve.", NOV3, "2025-12-31"),
    C("holiday", "I quit smoking on New Year's Day.", MON, "2025-01-01"),
    C("holiday", "We'll have dumplings on Lunar New Year's Eve.", JAN10, "2025-01-28"),
    C("holiday", "We're flying to Taipei for Lunar New Year.", NOV3, "2026-02-17"),
    C("holiday", "I saw lanterns at the Lantern Festival.", MON, "2025-02-12"),
    C("holiday", "We'll eat mooncakes at the Mid-Autumn Festival.", MON, "2025-10-06"),
    C("holiday", "We raced boats at the Dragon Boat Festival last year.", MON, "2024-06-10"),
    C("holiday", "Last Christmas I gave you my heart.", MON, "2024-12-25"),
    C("holiday", "Next Thanksgiving we'll go to Texas.", MON, "2025-11-27"),
    C("holiday", "I got engaged on Christmas 2022.", MON, "2022-12-25"),
    C("holiday", "This Halloween I'll be a ghost.", MON, "2025-10-31"),
    C("holiday", "Labor Day weekend we'll go to the lake.", MAY20, "2025-08-30..2025-09-01"),
    C("holiday", "We drove to my aunt's for Thanksgiving weekend.", NOV3, "2024-11-28..2024-12-01"),
    # -- questions (queries lean past) ---------------------------------------------------------------
    C("query-weekday", "what did I do on Saturday?", WED, "2025-03-22", "past"),
    C("query-weekday", "what am I doing on Saturday?", WED, "2025-03-29", "past"),
    C("query-weekday+day", "what's on Friday the 28th?", datetime(2025, 3, 25, 9), "2025-03-28", "past"),
    C("query-weekday+day", "what did we do on Friday the 28th?", APR10, "2025-03-28", "past"),
    C("query-holiday", "what did I do on Christmas?", MON, "2024-12-25", "past"),
    C("query-holiday", "what did I do Memorial Day weekend?", JUN2, "2025-05-24..2025-05-26", "past"),
    C("query-range", "where was I from the 3rd to the 7th?", MON, "2025-03-03..2025-03-07", "past"),
    C("query-month", "what are my plans for June?", MON, "2025-06", "past"),
    C("query-offset", "what am I doing in two weeks?", WED, "W2025-04-07", "past"),  # a question: the week
]

ZH: list[MessageCase] = [
    # -- 星期: 过去 / 将来 / 中性 -----------------------------------------------------------------------
    C("zh-weekday-past", "我周一去了健身房", WED, "2025-03-24"),
    C("zh-weekday-past", "周二我和小李吃了火锅", WED, "2025-03-25"),
    C("zh-weekday-past", "星期天我们看了一场电影", WED, "2025-03-23"),
    C("zh-weekday-past", "周六我去看了外婆", WED, "2025-03-22"),
    C("zh-weekday-past", "礼拜五我发烧了", WED, "2025-03-21"),
    C("zh-weekday-past", "周四我见过王老师", SAT, "2025-03-27"),
    C("zh-weekday-past", "周日我已经交了房租", MON, "2025-03-23"),
    C("zh-weekday-past", "星期三我把报告写完了", SAT, "2025-03-26"),
    C("zh-weekday-past", "周五我买了一双新鞋", MON, "2025-03-21"),
    C("zh-weekday-past", "周二老板表扬了我", MON, "2025-03-18"),
    C("zh-weekday-past", "我们周四刚从三亚回来", WED, "2025-03-20"),  # 刚 + verb: just did
    C("zh-weekday-neutral", "周日回老家", WED, "2025-03-30"),  # 回 is "go back" here, not a count of times
    C("zh-weekday-future", "我周五要去看牙医", WED, "2025-03-28"),
    C("zh-weekday-future", "周一我们会见面", WED, "2025-03-31"),
    C("zh-weekday-future", "周二我要飞去上海", WED, "2025-04-01"),
    C("zh-weekday-future", "周日我打算去看妈妈", WED, "2025-03-30"),
    C("zh-weekday-future", "星期六我准备搬家", WED, "2025-03-29"),
    C("zh-weekday-future", "周一记得给银行打电话", SAT, "2025-03-31"),
    C("zh-weekday-future", "礼拜三我约了面试", SAT, "2025-04-02"),
    C("zh-weekday-future", "周四我想去那家新开的拉面店", MON, "2025-03-27"),
    C("zh-weekday-future", "周六小安会来我家", MON, "2025-03-29"),
    C("zh-weekday-future", "周二我预约了按摩", MON, "2025-03-25"),
    C("zh-weekday-neutral", "周六的讲座", WED, "2025-03-29"),
    C("zh-weekday-neutral", "周五的团建", WED, "2025-03-28"),
    C("zh-weekday-neutral", "周一的董事会", WED, "2025-03-31"),
    C("zh-weekday-neutral", "周日的聚会", WED, "2025-03-30"),
    C("zh-weekday-neutral", "周四的瑜伽课", MON, "2025-03-27"),
    C("zh-weekday-neutral", "星期五的考试", MON, "2025-03-28"),
    C("zh-weekday-neutral", "周二的早午餐", SAT, "2025-04-01"),
    C("zh-weekday-neutral", "周一开会", SAT, "2025-03-31"),
    # -- 几号 / 周五28号 ---------------------------------------------------------------------------------
    C("zh-day-of-month", "我28号考试", MON, "2025-03-28"),
    C("zh-day-of-month", "1号我交了房租", MON, "2025-03-01"),
    C("zh-day-of-month", "快递2号到", MON, "2025-04-02"),
    C("zh-day-of-month", "我15号要搬家", MON, "2025-04-15"),
    C("zh-day-of-month", "10号我开始了新工作", MON, "2025-03-10"),
    C("zh-day-of-month", "她的生日派对在5号", MON, "2025-04-05"),
    C("zh-day-of-month", "我3号已经回来了", APR10, "2025-04-03"),
    C("zh-day-of-month", "三十号我会在家", APR10, "2025-04-30"),
    C("zh-weekday+day", "周五28号晚上八点我们去吃饭", MON, "2025-03-28T20"),
    C("zh-weekday+day", "周五28号的晚饭", MON, "2025-03-28"),
    C("zh-weekday+day", "周五28号我们见过面", APR10, "2025-03-28"),
    C("zh-weekday+day", "周五28号我会去找你", APR10, "2025-11-28"),
    C("zh-weekday+day", "周六5号我要去看牙医", MON, "2025-04-05"),
    C("zh-weekday+day", "周一3号我们搬进了新家", MON, "2025-03-03"),
    C("zh-weekday+day", "星期日30号的比赛", MON, "2025-03-30"),
    C("zh-weekday+day", "周四20号我们到了", MON, "2025-03-20"),
    # -- 月份 (不带年) ---------------------------------------------------------------------------------
    C("zh-month-no-year", "六月我想去日本", MON, "2025-06"),
    C("zh-month-no-year", "我六月去了罗马", MON, "2024-06"),
    C("zh-month-no-year", "六月的婚礼", MON, "2025-06"),
    C("zh-month-no-year", "十一月的会议", MON, "2024-11"),
    C("zh-month-no-year", "我们十一月要装修浴室", MON, "2025-11"),
    C("zh-month-no-year", "九月我跑了柏林马拉松", MON, "2024-09"),
    C("zh-month-no-year", "一月我开始学钢琴了", MON, "2025-01"),
    C("zh-month-no-year", "5月5日我要开始上课", MON, "2025-05-05"),
    C("zh-month-no-year", "5月5日我去了博物馆", MON, "2024-05-05"),
    C("zh-month-no-year", "预产期是4月14日", MON, "2025-04-14"),
    C("zh-month-no-year", "十二月二号我领养了小黑", MON, "2024-12-02"),
    C("zh-month-no-year", "二月的滑雪周", NOV3, "2026-02"),
    # -- 相对时间 ------------------------------------------------------------------------------------
    C("zh-relative-offset", "我两周后出发", WED, "2025-04-09"),  # a day: was the ISO week
    C("zh-relative-offset", "一周前我辞职了", WED, "2025-03-19"),
    C("zh-relative-offset", "三天前我得了流感", WED, "2025-03-23"),
    C("zh-relative-offset", "三天后出结果", WED, "2025-03-29"),
    C("zh-relative-offset", "两个月前我们分手了", WED, "2025-01"),
    C("zh-relative-offset", "一年前我搬到了这里", WED, "2024"),
    C("zh-relative-offset", "五个小时前我落地了", WED, "2025-03-26T05"),
    C("zh-relative-offset", "两天前我领养了一只猫", WED, "2025-03-24"),
    C("zh-relative-offset", "昨天我见了他", WED, "2025-03-25"),
    C("zh-relative-offset", "明天我要去看医生", WED, "2025-03-27"),
    C("zh-relative-offset", "后天我们飞奥斯陆", WED, "2025-03-28"),
    C("zh-relative-offset", "上周我买了车", WED, "W2025-03-17"),
    C("zh-relative-offset", "下周我开始新工作", WED, "W2025-03-31"),
    C("zh-relative-offset", "上周末我们去爬山了", WED, "WE2025-03-22"),
    C("zh-relative-offset", "下个月我要搬家", WED, "2025-04"),
    C("zh-relative-offset", "去年我结婚了", WED, "2024"),
    C("zh-relative-offset", "下周五我去见哥哥", WED, "2025-04-04"),
    C("zh-relative-offset", "上周六我看了演唱会", WED, "2025-03-22"),
    C("zh-relative-offset", "三周后我要做手术", WED, "2025-04-16"),  # a day: was the ISO week
    C("zh-relative-offset", "周末我们去爬山了", WED, "WE2025-03-22"),
    C("zh-relative-offset", "周末我们要去爬山", WED, "WE2025-03-29"),
    # -- 一天中的时段 ---------------------------------------------------------------------------------
    C("zh-parts-of-day", "昨晚我没睡好", WED, "2025-03-25 18-24"),
    C("zh-parts-of-day", "今早我去跑步了", WED, "2025-03-26 06-12"),
    C("zh-parts-of-day", "今天下午我有个会", WED, "2025-03-26 12-18"),
    C("zh-parts-of-day", "昨天早上我给妈妈打了电话", WED, "2025-03-25 06-12"),
    C("zh-parts-of-day", "明天晚上见", WED, "2025-03-27 18-24"),
    C("zh-parts-of-day", "周五晚上我们要去跳舞", WED, "2025-03-28 18-24"),
    C("zh-parts-of-day", "明天下午三点我去接她", WED, "2025-03-27T15"),
    C("zh-parts-of-day", "昨天晚上九点停电了", WED, "2025-03-25T21"),
    C("zh-parts-of-day", "今晚八点电影开始", WED, "2025-03-26T20"),
    C("zh-parts-of-day", "周六下午我要见莉娅", WED, "2025-03-29 12-18"),
    # -- 区间 ----------------------------------------------------------------------------------------
    C("zh-range", "3号到7号我在罗马待了一周", MON, "2025-03-03..2025-03-07"),
    C("zh-range", "3号到7号我会在罗马", MON, "2025-04-03..2025-04-07"),
    C("zh-range", "下周一到周三我休假", WED, "2025-03-31..2025-04-02"),
    C("zh-range", "周五到周日我们在湖边住了", WED, "2025-03-21..2025-03-23"),
    C("zh-range", "5月3日至7日我要去旅行", MON, "2025-05-03..2025-05-07"),
    C("zh-range", "考研初试是12月20、21号两天，还有一百天", NOV3, "2025-12-20..2025-12-21"),  # listed days of one month
    C("zh-range", "5月1号和2号放假", MON, "2025-05-01..2025-05-02"),
    # 改到…了: the 了 tells that the plan moved, not that the day is past; the next clause has its own time
    C("zh-day", "体检改到28号了，25号要开会", datetime(2025, 3, 18, 17), "2025-03-28 | 2025-03-25"),
    C("zh-range", "3月10日到3月14日我们在里斯本", MON, "2025-03-10..2025-03-14"),
    C("zh-range", "4月28日到5月2日我不在", MON, "2025-04-28..2025-05-02"),
    C("zh-range", "明天下午三点到五点有个工作坊", WED, "2025-03-27 15-17"),
    # -- 节日 ----------------------------------------------------------------------------------------
    C("zh-holiday", "除夕我们要回老家", JAN10, "2025-01-28"),
    C("zh-holiday", "春节我们去了海南", MON, "2025-01-29"),
    C("zh-holiday", "春节我们要去台北", NOV3, "2026-02-17"),
    C("zh-holiday", "元宵节我看了花灯", MON, "2025-02-12"),
    C("zh-holiday", "春节的第三天我们去了外婆家", MON, "2025-01-31"),  # a day counted from the holiday's first
    # 定在: set for (订好了 is the next clause's)
    C("zh-holiday", "婚礼定在国庆第二天，酒店都订好了", JUN2, "2025-10-02"),
    C("zh-holiday", "体检定在五一", MON, "2025-05-01"),
    C("zh-holiday", "清明节要去扫墓", MON, "2025-04-04"),
    C("zh-holiday", "端午节我们会包粽子", MON, "2025-05-31"),
    C("zh-holiday", "中秋节我们要吃月饼", MON, "2025-10-06"),
    C("zh-holiday", "国庆节我去了北京", NOV3, "2025-10-01"),
    C("zh-holiday", "母亲节我要给妈妈做饭", APR10, "2025-05-11"),
    C("zh-holiday", "父亲节我们带爸爸去钓鱼", APR10, "2025-06-15"),
    C("zh-holiday", "情人节我求婚了", MON, "2025-02-14"),
    C("zh-holiday", "圣诞节我们去了爸妈家", MON, "2024-12-25"),
    C("zh-holiday", "平安夜我要待在家里", NOV3, "2025-12-24"),
    C("zh-holiday", "元旦我戒烟了", MON, "2025-01-01"),
    C("zh-holiday", "七夕我们要去看电影", MON, "2025-08-29"),
    C("zh-holiday", "重阳节我们去爬山了", NOV3, "2025-10-29"),
    C("zh-holiday", "劳动节我要去旅游", MON, "2025-05-01"),
    C("zh-holiday", "去年春节我在广州", MON, "2024-02-10"),
    C("zh-holiday", "2024年中秋节我在杭州", MON, "2024-09-17"),
    C("zh-holiday", "今年母亲节我要回家", MON, "2025-05-11"),
    C("zh-holiday", "万圣节我扮成了女巫", NOV3, "2025-10-31"),
    C("zh-holiday", "感恩节我们会做火鸡", NOV3, "2025-11-27"),
    C("zh-weekday-future", "医生说下下周三回去复查", WED, "2025-04-09"),  # 回去 is going back, not 三回 (three times)
    C("zh-weekday-counted", "五月的第一个周末有比赛", WED, "WE2025-05-03"),
    C("zh-weekday-counted", "下个月第一个周一开学", WED, "2025-04-07"),
    C("zh-weekday-counted", "这个月最后一个周五发工资", WED, "2025-03-28"),
    C("zh-weekday-counted", "二月第二个周二我们见过面", WED, "2025-02-11"),
    # -- 问题 (查询偏向过去) ---------------------------------------------------------------------------
    C("zh-query", "周六我做了什么", WED, "2025-03-22", "past"),
    C("zh-query", "周六我要做什么", WED, "2025-03-29", "past"),
    C("zh-query", "春节我去了哪里", MON, "2025-01-29", "past"),
    C("zh-query", "3号到7号我在哪", MON, "2025-03-03..2025-03-07", "past"),
    C("zh-query", "两周后我有什么安排", WED, "W2025-04-07", "past"),
]

# -- several clauses, each with its own tense (issue 23, point 4) ---------------------------------------
# A date is read with the tense of the clause that holds it, not of another clause of the sentence.
# ``A | B`` lists every expression of the message in order (:func:`flowmem.timeexpr.extract_all`, as the
# write path reads it); the memory of the whole message stores the first (:func:`event_time`). Written
# before the fix; every third case went to CLAUSES_HELD_OUT, which was not run while the fix was made.
CLAUSES: list[MessageCase] = [
    C("clauses", "Also I told my manager at Dell, my last day there is March 19", MAR15, "2025-03-19"),
    C("clauses", "I told my manager that my last day there is March 19.", MAR15, "2025-03-19"),
    C("clauses", "I already paid the deposit, the wedding is on June 7.", MAR15, "2025-06-07"),
    C("clauses", "I'll send you the photos we took on Sunday.", MAR15, "2025-03-09"),
    C("clauses", "I'm going to frame the picture, we took it in January.", MAR15, "2025-01"),
    C("clauses", "I'll tell you more because I met her last Friday.", MAR15, "2025-03-14"),
    C("clauses", "When I saw him this Monday, he said he is moving.", MAR15, "2025-03-10"),
    C("clauses", "The friend who visited me on Monday is moving to Berlin.", MAR15, "2025-03-10"),
    C("clauses", "The course which I finished in February starts again in May.", MAR15, "2025-02 | 2025-05"),
    C("clauses", "I met Ana on Monday and we will meet again on Friday.", MAR15, "2025-03-10 | 2025-03-21"),
    C("clauses", "He mentioned the deadline is April 2.", MAR15, "2025-04-02"),
    C("clauses", "My lease ends in February, I signed it back in 2024.", MAR15, "2026-02 | 2024"),
    # a clause spliced on with a comma, with a subject and a verb of its own, does not take the tense of the clause
    # before it; a fragment without a subject ("on the 3rd with Anna") does
    C("clauses", "I already inform HR, my contract finish on 31 Dec, then I go back home.", NOV3, "2025-12-31"),
    C("clauses", "I finished the course already, my exam results come out on the 20th", MAR15, "2025-03-20"),
    C("clauses", "I was in Paris, on the 3rd with Anna", MAR15, "2025-03-03"),
    # a date in numbers without its year: a first number that cannot be the month tells the order, else month first
    # after a word that leads to a date
    C("numeric", "exam on 3/28", MAR15, "2025-03-28"),
    # "this Friday" said on a Saturday: the coming one, unless told in the past
    C("weekday", "party this fri", MAR15, "2025-03-21"),
    C("weekday", "this friday was so much fun", MAR15, "2025-03-14"),
    C("numeric", "flight 28/3 at 6am", MAR15, "2025-03-28T06"),
    C("numeric", "moved in on 3/1, loving it", MAR15, "2025-03-01"),
    C("numeric", "3/28考试", MAR15, "2025-03-28"),
    # its verb contracted onto its subject is a verb of its own ("The party is on the 22nd, …" was read right)
    C("clauses", "The party's on the 22nd, I already bought a dress", MAR15, "2025-03-22"),
    C("zh-clauses", "跟经理说了，最后一天是3月19号", MAR15, "2025-03-19"),
    C("zh-clauses", "我已经跟房东说了，25号搬走", MAR15, "2025-03-25"),
    C("zh-clauses", "我们周一见过面，周五还要再见", MAR15, "2025-03-10 | 2025-03-21"),
    C("zh-clauses", "我周五要交的报告，周二已经写完了", MAR15, "2025-03-21 | 2025-03-11"),
    C("zh-clauses", "我们周二看过的那套房子，周日要再去看一次", MAR15, "2025-03-11 | 2025-03-16"),
    C("zh-clauses", "虽然上周五下了雨，这周日我们还是要去爬山", MAR15, "2025-03-07 | 2025-03-16"),
    C("zh-clauses", "我们周二吵了一架，他说周日会来道歉", MAR15, "2025-03-11 | 2025-03-16"),
    # added with the fix: a verb of saying with a run of aspect markers (说过了) ends at the last one
    C("zh-clauses", "老板已经说过了周五不用来", MAR15, "2025-03-21"),
    # a Chinese time word with a verb after it in its own comma segment is that clause's (三月份结婚: neutral, the
    # coming March), not the next one's (已经订好了); a time word alone before the comma goes with the next clause
    C("zh-clauses", "三月份结婚，酒席已经订好了", NOV3, "2026-03"),
    C("zh-clauses", "三月份，我们去了一趟日本", NOV3, "2025-03"),
    # the same with the time word in digits (9月1日, 15号, 10月): it was read as no Chinese time word, so the clause
    # before the comma decided (搬完家了: last year's 1 September)
    C("zh-clauses", "搬完家了，9月1日开学", AUG26, "2024-09-01"),
    C("zh-clauses", "票买好了，15号出发", MON, "2025-04-15"),
    C("zh-clauses", "10月去云南", MAR15, "2025-10"),
    C("zh-clauses", "好的，记下了：你女儿9月1日开学", AUG26, "2024-09-01"),
    # a plan moved (session 13): the time it was moved to is the event's, future whatever the tense of the verb that
    # moved it, and the one kept when the message names the old time too
    C("clauses", "we've postponed the housewarming to the 21st, too much to unpack", MAR15, "2025-03-21"),
    C("clauses", "physio cancelled Thursday, they moved me to Monday", MAR15, "2025-03-17"),
    # a progressive of going or coming with its "is" left out is a plan (session 15): not the tense of another clause
    C("clauses", "landlord emailed, rent going up to 1525 from feb 1. ugh", JAN10, "2025-02-01"),
    C("clauses", "we were going out on Saturday but it rained", MAR15, "2025-03-15"),
    C("zh-clauses", "搬家推迟到7月1号了", MAR15, "2025-07-01"),
    # arranging or hearing of an event (booked, rang, 订好了) is done before it: the event's time is the one ahead
    C("clauses", "Booked the vet yesterday for Biscuit's jabs on Friday", MAR15, "2025-03-21"),
    C("clauses", "Mum rang last night - her operation is scheduled for April 2nd", MAR15, "2025-04-02"),
    C("zh-clauses", "昨天订好了机票，下个月5号飞成都", MAR15, "2025-04-05"),
    # written as held-out (session 13): 2 of 6 right on their first run (the confirmation and the garage's 20th read as
    # past, the Chinese April a year back, the confirmation's yesterday the date); the rules they showed wrong were
    # fixed (a day word is no tense cue for another time, "the car goes in" is a clause of its own, 马拉松在… too), so
    # they are development cases now
    C("clauses", "I emailed the school this morning, parents' evening is on the 27th", MAR15, "2025-03-27"),
    C("clauses", "Got the confirmation yesterday: my driving test is April 9", MAR15, "2025-04-09"),
    C("clauses", "ordered the cake today for Maya's party next Saturday", MAR15, "2025-03-22"),
    C("clauses", "I called the garage on Monday, the car goes in on the 20th", MAR15, "2025-03-20"),
    C("zh-clauses", "上周打电话约了牙医，下周四去", MAR15, "2025-03-20"),
    C("zh-clauses", "今天报了名，马拉松在四月二十号", MAR15, "2025-04-20"),
    # session 16, from fresh2's development half: a weekday names which of the two nearest dates (not the year it last
    # fell on it, 2014); an event's state with its day is the event ("Married Saturday"); 就…了 after a month is a
    # state to come, not a thing done; a date in a clause after another's is its own
    C("clauses", "Signed up for the Mersey Marathon 🏃 Sunday April 27!", JAN10, "2025-04-27"),
    C("clauses", "We did it!! Married Saturday, best day ever.", MON, "2025-03-22"),
    C("zh-clauses", "儿子豆豆九月就上小学了，时间过得真快。", AUG26, "2024-09"),
    C("zh-clauses", "决定了，跳！今天提的离职，最后一天是十二月二十七号。", DEC2, "2024-12-02 | 2024-12-27"),
]
CLAUSES_HELD_OUT: list[MessageCase] = [
    # written with the comma-splice cases above, before the change ran on them
    C("clauses", "Mum already moved out, her lease finish on the 30th", MAR15, "2025-03-30"),
    C("clauses", "I was at the clinic, my next checkup be on the 22nd", MAR15, "2025-03-22"),
    C("clauses", "She said the party is on the 28th.", MAR15, "2025-03-28"),
    C("clauses", "I will return the jacket that I bought on March 2.", MAR15, "2025-03-02"),
    C("clauses", "She told me that she is leaving next Friday.", MAR15, "2025-03-21"),
    C("clauses", "The dentist, who I saw on the 3rd, wants to see me again.", MAR15, "2025-03-03"),
    C("clauses", "The package that was shipped on Tuesday arrives on Friday.", MAR15, "2025-03-11 | 2025-03-21"),
    C("clauses", "When we met on Monday, she said the results come on the 20th.", MAR15, "2025-03-10 | 2025-03-20"),
    C("zh-clauses", "她说过派对在28号", MAR15, "2025-03-28"),
    C("zh-clauses", "因为周三加了班，所以周日要补觉", MAR15, "2025-03-12 | 2025-03-16"),
    C("zh-clauses", "我跟妈妈说过了，4月2号回家", MAR15, "2025-04-02"),
    # written with the 三月份结婚 cases (session 12), before the change ran on them
    C("zh-clauses", "五月份去云南，机票已经买好了", NOV3, "2026-05"),
    C("zh-clauses", "周三，我们去看了房子", MAR15, "2025-03-12"),
    # a verb with no aspect word after a yearly name: a plan; the 是…的 form: done (session 14)
    C("zh-month", "八月份打算领养一只狗", NOV3, "2026-08"),
    C("zh-month", "八月份领养一只狗", NOV3, "2026-08"),
    C("zh-month", "八月份领养的狗", NOV3, "2025-08"),
    C("zh-month", "五月份去的云南", NOV3, "2025-05"),
    # written with the moved-plan cases (session 13), before the change ran on them
    C("clauses", "the interview got pushed back to Thursday", MAR15, "2025-03-20"),
    C("clauses", "They rescheduled my MRI for the 2nd", MAR15, "2025-04-02"),
    C("clauses", "we moved the party to next Saturday because of the rain", MAR15, "2025-03-22"),
    C("clauses", "The vet moved Biscuit's jab to the 28th", MAR15, "2025-03-28"),
    C("zh-clauses", "婚礼改到五一了", MAR15, "2025-05-01"),
    C("zh-clauses", "面试提前到周三了", MAR15, "2025-03-19"),
    # written with the arranging cases after the first held-out six below were seen (session 13), before the change
    # ran on them
    C("clauses", "Rang the clinic this morning and my scan is on Thursday", MAR15, "2025-03-20"),
    C("clauses", "We paid the deposit last week, the cottage is ours from April 4", MAR15, "2025-04-04"),
    C("clauses", "Heard yesterday that the reunion is on the 29th", MAR15, "2025-03-29"),
    C("clauses", "Signed the contract on Monday, the new job starts on the 1st", MAR15, "2025-04-01"),
    C("zh-clauses", "昨天收到通知，面试在下周二", MAR15, "2025-03-18"),
    C("zh-clauses", "上个月报的名，考试定在五月十号", MAR15, "2025-05-10"),
]
# Written in session 18 as probes in voices the table lacked (texting, a day told against another, "since", "till",
# parts of a week or month told from now); each was wrong before the rule it names.
PROBES: list[MessageCase] = [
    C("weekday-ordinal", "got a parking ticket on Tues 4th, so annoying", WED, "2025-03-04"),
    C("since", "I've been off work since Monday with flu", WED, "2025-03-24"),
    C("since", "since the 3rd I've been on antibiotics", WED, "2025-03-03"),
    C("since", "It's been three weeks since the surgery", WED, "2025-03-05"),
    C("ago-today", "three years ago today we met", WED, "2022-03-26"),
    C("day-against-day", "ok so the party is sat not fri", WED, "2025-03-29"),
    C("day-against-day", "the party is on Saturday, not Friday", WED, "2025-03-29"),
    C("part-from-now", "Saw the specialist earlier this week, all clear", WED, "2025-03-24..2025-03-26"),
    C("part-from-now", "later this week I'm seeing the GP", WED, "2025-03-27..2025-03-30"),
    C("part-from-now", "earlier this month I got promoted", WED, "2025-03-01..2025-03-26"),
    C("week-of-month", "the last week of June we're in Crete", WED, "2025-06-24..2025-06-30"),
    C("week-of-month", "the conference is the first week of June", WED, "2025-06-01..2025-06-07"),
    C("until", "the pool's closed for refurb till summer", WED, "2025-06-01..2025-08-31"),
    C("until", "I was off work until Monday", WED, "2025-03-24"),
    C("zh-since", "自从周一就一直咳嗽", WED, "2025-03-24"),
    # session 20's probes in other voices (texting, British, spelt-out days, Chinese colloquial)
    C("weekday-texted", "Parents evening is next Weds", WED, "2025-04-02"),
    C("weekday-texted", "Gig is Sat night (can't wait)", WED, "2025-03-29 18-24"),
    C("day-word", "the night before last I couldn't sleep at all", WED, "2025-03-24 18-24"),
    C("day-word", "this time next week I'll be in Crete!", WED, "2025-04-02"),
    C("day-word", "appt w/ GP 2moro 9am", WED, "2025-03-27T09"),
    C("day-of-month-word", "On the twenty-first I have my scan", WED, "2025-04-21"),
    C("day-of-month-word", "rent is due on the first.", WED, "2025-04-01"),
    C("zh-relative-offset", "半个月前换了工作", WED, "2025-03-11"),
    C("zh-holiday", "清明回老家扫墓", WED, "2025-04-04"),
]
# Session 22's probes, in voices and kinds the table was thin on (British holidays, counts of days and weeks, parts of a
# month, numeric dates, Chinese 大后天 / 下下周 / 礼拜, holidays by the lunar calendar), written together and split
# before any was run: the last hex digit of sha256(text) even -> PROBES_S22 (developed on), odd -> PROBES_S22_HELD_OUT
# (run once, at the end of the session).
PROBES_S22: list[MessageCase] = [
    C("weekend-count", "the weekend after next we're camping in the Peaks", WED, "WE2025-04-05"),
    C("relative-offset", "in a fortnight I fly to Lisbon", WED, "2025-04-09"),
    C("day-word", "got my blood results back the day before yesterday", WED, "2025-03-24"),
    C("holiday", "Boxing Day we're at my in-laws' as usual", WED, "2025-12-26"),
    C("holiday", "Easter Monday we're heading to the coast", WED, "2025-04-21"),
    C("numeric-date", "we got the keys on 3/3", WED, "2025-03-03"),
    C("range", "I'll be in Berlin from the 7th to the 11th of April", WED, "2025-04-07..2025-04-11"),
    C("weekday-future", "this coming Sunday we're taking Mum out for lunch", WED, "2025-03-30"),
    C("month-relative", "had an MRI last month, all clear", WED, "2025-02"),
    C("parts-of-day", "tonight at 8 I've got book club", WED, "2025-03-26T20"),
    C("weekend", "last weekend we went down to Brighton", WED, "WE2025-03-22"),
    C("zh-day-word", "大后天去体检", WED, "2025-03-29"),
    C("zh-weekday", "下下周三开会", WED, "2025-04-09"),
    C("zh-weekday", "上上周六搬的家", WED, "2025-03-15"),
    C("zh-day-of-month", "下个月五号交房租", WED, "2025-04-05"),
    C("zh-holiday", "国庆节回老家", WED, "2025-10-01"),
    C("zh-holiday", "端午节去看划龙舟", WED, "2025-05-31"),
    C("zh-holiday", "中秋节回家吃饭", WED, "2025-10-06"),
    C("zh-relative-offset", "两周前换了工作", WED, "2025-03-12"),
    C("zh-parts-of-day", "昨天下午去银行办了卡", WED, "2025-03-25 12-18"),
    C("zh-day-of-month", "4月18号考试", WED, "2025-04-18"),
    C("zh-month", "去年十二月买的车", WED, "2024-12"),
    C("zh-month", "明年三月结婚", WED, "2026-03"),
    C("zh-parts-of-day", "明早八点的航班", WED, "2025-03-27T08"),
    C("zh-lunar", "正月十五那天看了灯会", WED, "2025-02-12"),
    C("zh-range", "3号到5号在上海出差", WED, "2025-04-03..2025-04-05"),
    C("zh-day-of-month", "七号那天搬家", WED, "2025-04-07"),
    C("zh-part-of-month", "上个月中旬去了趟成都", WED, "2025-02-11..2025-02-20"),
    C("zh-parts-of-day", "后天晚上看电影", WED, "2025-03-28 18-24"),
    C("weekday-past", "on Monday I handed in my notice", WED, "2025-03-24"),
    # written after the first run, at the edges of the rules it led to: a lunar holiday by its lunar date, and the
    # Gregorian date those words also begin (八月十五号)
    C("zh-holiday", "八月十五回家吃月饼", WED, "2025-10-06"),
    C("zh-day-of-month", "八月十五号交论文", WED, "2025-08-15"),
    C("holiday", "Boxing Day sales were mad", WED, "2024-12-26"),
    # and from the whole-message date probes' development half (flowmem/eval/data/dates-2026-11-27): any day of the
    # lunar calendar when its words say lunar, and British "a week today" without its "from"
    C("zh-lunar", "腊月二十八回老家，票已经抢到了", JAN10, "2025-01-27"),
    C("zh-lunar", "农历八月初三是我妈生日", WED, "2025-09-24"),
    C("zh-lunar", "正月初五接财神", WED, "2025-02-02"),
    C("weekday-future", "we fly out a week Saturday", MON, "2025-04-05"),
    C("relative-offset", "I start the new job a week today", MON, "2025-03-31"),
    C("day-word", "off sick for a week today", MON, "2025-03-24"),
    # from the second batch's development half: the same day a month or a year away
    C("day-word", "this time last year I was in hospital with my appendix", WED, "2024-03-26"),
    C("day-word", "this time next month we'll be in Japan", datetime(2024, 3, 31, 10, 0), "2024-04-30"),
    # from a development scenario's stored time (fresh2, the car insurance): a subjectless present after a comma is a
    # clause of its own, not the past participle before it
    C("clauses", "Insured with Larkspur Mutual, renews in July.", datetime(2024, 3, 11, 8, 0), "2024-07"),
    C(
        "clauses",
        "Moved out last week, lease ends on the 30th",
        datetime(2024, 3, 11, 8, 0),
        "W2024-03-04 | 2024-03-30",
    ),
    # from the third date batch's development half (dates moved and corrected): "the 19th" before "because", "had to
    # move" as "moved", a Chinese copula segment after a correction, "coming Tuesday week"
    C(
        "clauses",
        "Organisers moved the half marathon to the 19th because of the road works",
        datetime(2025, 10, 5, 20),
        "2025-10-19",
    ),
    C(
        "clauses",
        "we had to move the wedding to the 14th of June because the barn double booked",
        datetime(2025, 2, 2),
        "2025-06-14",
    ),
    C("zh-clauses", "不对，是七月十三号，我记错了", datetime(2025, 7, 1, 9), "2025-07-13"),
    C("weekday-future", "the boiler man's coming Tuesday week", datetime(2025, 2, 10, 18), "2025-02-18"),
    # from the fourth (several events in one message): a pronoun with its verb contracted onto it opens a clause
    C(
        "clauses",
        "I started the course last week and I've got my first assignment due on the 6th of October",
        datetime(2025, 9, 23, 20),
        "W2025-09-15 | 2025-10-06",
    ),
    # from the fifth: Easter Saturday; 小年 (腊月二十三), and 那天 after a day's name, which is "the day of" it,
    # not past; but not a poor harvest year (的小年)
    C("holiday", "my cousin's wedding is on Easter Saturday", datetime(2025, 4, 9, 20), "2025-04-19"),
    C("zh-lunar", "小年那天回老家", datetime(2025, 1, 15, 20), "2025-01-22"),
    C("zh-relative", "今年是苹果的小年", datetime(2025, 3, 1, 20), "2025"),
    # from the sixth (plans moved in other words): "now" before a time is the plan's time now; a holiday's name before
    # the event it names gives way to the day the text gives ("xmas do fri 12th"), not when it gives none
    C("weekday+day", "xmas do now thurs 11th, venue messed up", datetime(2025, 12, 2, 12), "2025-12-11"),
    C("weekday+day", "xmas do fri 12th", datetime(2025, 12, 1, 12), "2025-12-12"),
    C("holiday", "Christmas party at Jess's!", datetime(2025, 12, 1, 12), "2025-12-25"),
    # from the seventh (colloquial Chinese): 大年初二 is the first lunar month's second day; 过 as the verb "spend"
    # is no past (在婆婆家过), as a verb's aspect it is (去过); 去年这个时候 is that same day
    C("zh-lunar", "大年初二回娘家", datetime(2025, 1, 8, 20), "2025-01-30"),
    C("zh-holiday", "除夕那天在婆婆家过", datetime(2025, 1, 8, 20), "2025-01-28"),
    C("zh-holiday", "春节去过三亚", datetime(2025, 1, 8, 20), "2024-02-10"),
    C("zh-relative", "去年这个时候我还在上海上班", datetime(2025, 6, 4, 20), "2024-06-04"),
]
PROBES_S22_HELD_OUT: list[MessageCase] = [
    C("day-word", "the day after tomorrow is my theory exam", WED, "2025-03-28"),
    C("day-of-month", "Mum's op is on the 14th of next month", WED, "2025-04-14"),
    C("day-of-month", "we moved in on the 2nd of this month", WED, "2025-03-02"),
    C("holiday", "New Year's Eve party at Sam's, you coming?", WED, "2025-12-31"),
    C("holiday", "he proposed on Valentine's Day!!", WED, "2025-02-14"),
    C("holiday", "Christmas Eve we're doing the big meal at ours", WED, "2025-12-24"),
    C("holiday", "I'm working Good Friday, gutted", WED, "2025-04-18"),
    C("day-of-month", "my birthday was on the 9th, had a quiet one", WED, "2025-03-09"),
    C("day-of-month", "the car's MOT is due on the 3rd", WED, "2025-04-03"),
    C("day-word", "passed my driving test yesterday!!", WED, "2025-03-25"),
    C("weekday+day", "moving day is Sat 12th April", WED, "2025-04-12"),
    C("numeric-date", "graduation is on 14/07", WED, "2025-07-14"),
    C("relative-offset", "three weeks ago I broke my wrist falling off the bike", WED, "2025-03-05"),
    C("relative-offset", "two days ago the boiler packed in", WED, "2025-03-24"),
    C("relative-offset", "in 10 days I start at the new place", WED, "2025-04-05"),
    C("month-no-year", "we're going to Japan in May", WED, "2025-05"),
    C("weekday-of-month", "the first Monday in April is the house inspection", WED, "2025-04-07"),
    C("weekday-of-month", "the last Friday of April we fly out to Greece", WED, "2025-04-25"),
    C("parts-of-day", "at 7 tomorrow morning my flight leaves", WED, "2025-03-27T07"),
    C("day-of-month", "the 30th is our anniversary", WED, "2025-03-30"),
    C("weekend", "this weekend I'm finally painting the hall", WED, "WE2025-03-29"),
    C("zh-parts-of-day", "前天晚上发烧了", WED, "2025-03-24 18-24"),
    C("zh-weekday", "这周五交报告", WED, "2025-03-28"),
    C("zh-holiday", "五一去杭州玩", WED, "2025-05-01"),
    C("zh-holiday", "元宵节那天吃了汤圆", WED, "2025-02-12"),
    C("zh-relative-offset", "三天后出院", WED, "2025-03-29"),
    C("zh-weekday", "礼拜六去爬山", WED, "2025-03-29"),
    C("zh-weekday", "上礼拜天去看了外婆", WED, "2025-03-23"),
    C("zh-month", "今年七月份毕业", WED, "2025-07"),
    C("zh-parts-of-day", "今晚七点吃饭", WED, "2025-03-26T19"),
    C("zh-weekday", "周一去了医院", WED, "2025-03-24"),
    C("zh-part-of-month", "下个月初搬家", WED, "2025-04-01..2025-04-10"),
    C("zh-holiday", "圣诞节去了哈尔滨", WED, "2024-12-25"),
    C("weekday-future", "on Friday I'm getting my hair cut", WED, "2025-03-28"),
]
KNOWN_MISSES: dict[str, str] = {
    "the weekend after next we're camping in the Peaks": (
        "a convention: 'next weekend' said on a weekday is the weekend of next week here (5-6 April said on 26 March), "
        "so 'after next' is the one after it; the probe's writer counted from the coming weekend"
    ),
    "Signed the contract on Monday, the new job starts on the 1st": (
        "held out, missed: both times are read right, but signing is not among the verbs of arranging, so the memory "
        "takes the first (Monday), the signing's, not the job's start"
    ),
    "上个月报的名，考试定在五月十号": (
        "held out, missed: both times are read right, but 报的名 (a 的 construction) is not among the forms of "
        "arranging (报了名, 报名), so the memory takes the first (last month)"
    ),
    "When we met on Monday, she said the results come on the 20th.": (
        "reported speech with no 'that' and no tense word of its own: the nearest cue is 'said', the saying's"
    ),
}
"""Cases the rules still get wrong (text → why); the table marks them as expected failures."""

# -- a later time inside the first narrows it (session 24) -------------------------------------------------
# "this weekend … on Saturday": the memory's event is on the narrower time, not the span the message named first.
NARROWED: list[MessageCase] = [
    C("narrowed", "this weekend it's her birthday so we're taking her to the coast on Saturday", WED, "2025-03-29"),
    C("narrowed", "next week I'm in Leeds, Tuesday probably", MON, "2025-04-01"),
    C("narrowed", "in April, on the 14th, we close on the house", MAR15, "2025-04-14"),
    C("narrowed", "这周末周六去爬山", WED, "2025-03-29"),
    C("narrowed", "下周要去深圳出差，周三走", MON, "2025-04-02"),
    C("narrowed", "next weekend we're at the lake, Sunday we drive back", WED, "2025-04-06"),
    # a day said of another time than the week is left alone ("tomorrow")
    C("narrowed", "next week I'm in Leeds, leaving tomorrow", MON, "W2025-03-31"),
    # not inside: the first time stays ("on Saturday, and again next week")
    C("narrowed", "went to the coast on Saturday, and again next week", MON, "2025-03-22"),
]

ALL: list[MessageCase] = EN + ZH + CLAUSES + CLAUSES_HELD_OUT + PROBES + PROBES_S22 + PROBES_S22_HELD_OUT + NARROWED
