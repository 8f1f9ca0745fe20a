"""Chinese time expressions (simplified and the common traditional forms).

Readings (see :mod:`flowmem.timeexpr.en` for the shared ones):

- 上/这/本/下 + 周/星期/礼拜 count ISO weeks: 上周三 is the Wednesday of the previous ISO week,
  下周五 the Friday of the next; 上上周 two weeks back. 周末 alone is the latest weekend that
  has begun, 上周末 the weekend of the previous ISO week.
- Bare names follow the tense (:mod:`flowmem.timeexpr.pick`); past, and neutral wording in a
  query: 周三/星期三 is the latest Wednesday on or before today, 五月 the latest May up to the
  current month, 5号 the latest 5th on or before today, 夏天 the latest summer that has begun,
  周末 the latest weekend that has begun; future (要, 会, 打算…) the first on or after today;
  neutral in a message the coming one when it is near, else the nearer. 周五28号 is a 28th that
  is a Friday.
- Holidays (春节, 除夕, 中秋, 母亲节…): :mod:`flowmem.timeexpr.holidays`; ranges (3号到7号,
  周一至周三): :mod:`flowmem.timeexpr.ranges`.
- 去年/今年/明年 + month or season place it in that calendar year (去年夏天 = summer of last
  year; 去年冬天 = December of last year to February); 今年冬天 and 这个冬天 are the current
  winter in January or February.
- Parts of the day: 凌晨 00–06, 早上/早晨/清晨/上午 06–12, 中午 11–14, 下午 12–18,
  傍晚/晚上/夜里 18–24; 昨晚 is yesterday 18–24. Alone they mean today (下午 = this afternoon).
- Hours: 下午三点 = 15:00, 晚上八点 = 20:00; a bare 三点 follows the bare-hour heuristic of
  :mod:`flowmem.timeexpr.mention`. A Chinese-numeral hour with 点 and no 半/分/钟/part of the day
  (一点 is also "a little"), or with 时 (一时 is also "a moment"), only counts beside a day
  (今天三点).
- Counts: 三天前, 两周前, 三个月前, 两年后, 五分钟前, 半小时前, 两个半小时前, 半个月前 (fifteen days),
  半年前 (six months back, a month); 两周后, 两周前 as "in two weeks", "two weeks ago" in English (a week, or
  in a message the day).
  三月前 reads as March ("before March"), not as a count. Vague ones (前几天, 最近,
  这两天) give nothing (a message's event is dated by them: :mod:`flowmem.timeexpr.vague`).
- Habits name no time: an expression right after a word of recurrence (每, 每天/每日/每晚/每周/每月/每年/
  每个, 天天, and one of these with a weekday: 每周三) is left out — 每天早上, 天天晚上, 每个周末, 每周三下午三点.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from flowmem.timeexpr import calendar as cal
from flowmem.timeexpr import pick
from flowmem.timeexpr.calendar import Season, Span
from flowmem.timeexpr.mention import Builder, Context, Mention, PartOfDay, Rule, TimeOfDay, weeks_from_today
from flowmem.timeexpr.numerals import ZH_NOT_AFTER_NUMBER, ZH_NUMERAL_CHARS, zh_number

_MODIFIER = r"(?P<mod>上上|上|这|這|本|下下|下)"
_MOD_OFFSETS = {"上上": -2, "上": -1, "这": 0, "這": 0, "本": 0, "下": 1, "下下": 2}
# 晚上/早上 end in 上: 晚上周末 is 晚上 + 周末, not 上周末.
_NOT_AFTER_PART = r"(?<![晚早])"
_WEEK = r"(?:周|週|星期|礼拜|禮拜)"
_WEEKDAYS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "日": 7, "天": 7}
_WEEKDAYS.update({str(number): number for number in range(1, 8)})
# After a counting word these are not dates: 之前天气 (weather before), 以后天天 (every day after).
_NOT_AFTER_WORD = r"(?<![以之然最目])"
_MONTH_NUMBER = r"(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])"
_DAY_NUMBER = r"(?:[12]\d|3[01]|0?[1-9]|[二三]?十[一二三四五六七八九]?|[一二三四五六七八九])"
_PART_WORDS: dict[str, PartOfDay] = {
    "凌晨": "early", "清晨": "morning", "早上": "morning", "早晨": "morning", "上午": "morning",
    "中午": "noon", "下午": "afternoon", "傍晚": "evening", "晚上": "evening", "夜里": "evening",
    "夜晚": "evening", "晚间": "evening",
}  # fmt: skip
_PART = "|".join(_PART_WORDS)


_DAY_WORDS = re.compile(
    rf"大前天|大后天|大後天|{_NOT_AFTER_WORD}前天|{_NOT_AFTER_WORD}[后後]天|昨天|昨日|昨儿(?:个)?|今天|今日|今儿(?:个)?"
    r"|明天|明日|明儿(?:个)?"
)
_DAY_OFFSETS = {"大前": -3, "前": -2, "昨": -1, "今": 0, "明": 1, "后": 2, "後": 2, "大后": 3, "大後": 3}


def _day_word(match: re.Match[str], ctx: Context) -> Mention | None:
    word = match.group()
    key = word[:2] if word.startswith("大") else word[0]
    return Mention(match.start(), match.end(), anchor=cal.day_span(ctx.today + timedelta(days=_DAY_OFFSETS[key])))


_DAY_PART = re.compile(rf"{_NOT_AFTER_WORD}(?P<d>[今昨明前])(?P<p>早|晚|夜)(?:上|里)?")


def _day_part(match: re.Match[str], ctx: Context) -> Mention | None:
    day = ctx.today + timedelta(days=_DAY_OFFSETS[match["d"]])
    part: PartOfDay = "morning" if match["p"] == "早" else "evening"
    return Mention(match.start(), match.end(), anchor=cal.day_span(day), tod=TimeOfDay(part=part))


_PART_RE = re.compile(_PART)


def _part_of_day(match: re.Match[str], ctx: Context) -> Mention | None:
    return Mention(match.start(), match.end(), tod=TimeOfDay(part=_PART_WORDS[match.group()]))


_HOUR = re.compile(
    rf"(?P<part>{_PART})?{ZH_NOT_AFTER_NUMBER}(?P<h>\d{{1,2}}|[零〇两兩一二三四五六七八九十]{{1,3}})"
    r"(?P<unit>点钟|點鐘|点|點|时|時)(?P<sfx>半|整|一刻|三刻|[0-5]?\d分|[零〇一二三四五六七八九十]{1,3}分)?"
)


def _hour(match: re.Match[str], ctx: Context) -> Mention | None:
    hour = zh_number(match["h"])
    if hour is None or hour > 24:
        return None
    numeral = not match["h"].isascii()
    part = _PART_WORDS[match["part"]] if match["part"] else None
    # 一点 is also "a little" and 一时 "a moment": such hours need a day or a part of the day beside them.
    qualified = part or match["sfx"] or match["unit"].endswith(("钟", "鐘"))
    vague = numeral and (match["unit"] in ("时", "時") or not qualified)
    literal = not numeral and (hour == 0 or hour > 12 or match["h"].startswith("0"))
    tod = TimeOfDay(part=part, hour=hour, literal=literal)
    return Mention(match.start(), match.end(), tod=tod, standalone=not vague)


def _in_week(match: re.Match[str], ctx: Context) -> date:
    """A day of the ISO week the modifier (上/这/下…) points to."""
    return ctx.today + timedelta(weeks=_MOD_OFFSETS[match["mod"]])


_WEEKDAY_RE = re.compile(rf"{_NOT_AFTER_PART}(?:{_MODIFIER}(?:个|個)?)?{_WEEK}(?P<wd>[一二三四五六日天1-7])")
# After 周 + a numeral, these make the numeral a count: 一周五天 (five days a week), 周三次 (three times a week).
_COUNTED = ("天", "次", "遍", "个", "個")


def _weekday(match: re.Match[str], ctx: Context) -> Mention | None:
    text, end = ctx.text, match.end()
    if match["wd"] not in "日天" and (text.startswith(_COUNTED, end) or _counted_times(text, match)):
        return None  # how often, not which day; 日 and 天 are never counts (周日回老家 is Sunday)
    weekday = _WEEKDAYS[match["wd"]]
    if match["mod"] is None:
        return Mention(match.start(), match.end(), weekday=weekday)
    day = cal.weekday_in_week(_in_week(match, ctx), weekday)
    return Mention(match.start(), match.end(), anchor=cal.day_span(day))


def _counted_times(text: str, match: re.Match[str]) -> bool:
    """Whether 回 after the weekday's numeral counts times: only after a count of weeks or 每 (一周三回, 每周两回);
    else 回 is "go back" (周三回去复查, 周四回老家) and the weekday a day."""
    return text.startswith("回", match.end()) and match["mod"] is None and text[: match.start()].endswith(_PER)


_PER = ("一", "两", "二", "每", "1")  # right before the week word: 一周, 两周, 每周


# 周五28号: the day's digits follow the weekday's numeral, which the day rule's lookbehind refuses.
_WEEKDAY_DAY_RE = re.compile(
    rf"{_NOT_AFTER_PART}{_WEEK}(?P<wd>[一二三四五六日天])\s*(?P<d>[12]\d|3[01]|0?[1-9])(?:号|號|日)"
)


def _weekday_day(match: re.Match[str], ctx: Context) -> Mention | None:
    return Mention(match.start(), match.end(), weekday=_WEEKDAYS[match["wd"]], day=int(match["d"]))


_WEEK_RE = re.compile(rf"{_NOT_AFTER_PART}{_MODIFIER}(?:个|個)?{_WEEK}(?![一二三四五六日天1-7末围圍到边邊全期])")


def _week(match: re.Match[str], ctx: Context) -> Mention | None:
    return Mention(match.start(), match.end(), anchor=cal.week_span(_in_week(match, ctx)))


_WEEKEND_RE = re.compile(rf"(?:{_NOT_AFTER_PART}{_MODIFIER}(?:个|個)?)?(?:周末|週末)")


def _weekend(match: re.Match[str], ctx: Context) -> Mention | None:
    if match["mod"] is None:
        return Mention(match.start(), match.end(), weekend=True)  # which one: by tense (flowmem.timeexpr.pick)
    return Mention(match.start(), match.end(), anchor=cal.weekend_span(_in_week(match, ctx)))


_MONTH_REL = re.compile(rf"{_NOT_AFTER_PART}{_MODIFIER}(?:个|個)?月(?:份)?")


def _month_relative(match: re.Match[str], ctx: Context) -> Mention | None:
    year, month = cal.add_months(ctx.today.year, ctx.today.month, _MOD_OFFSETS[match["mod"]])
    return Mention(match.start(), match.end(), anchor=cal.month_span(year, month))


_MONTH_DAY = re.compile(rf"{ZH_NOT_AFTER_NUMBER}(?P<m>{_MONTH_NUMBER})(?:月份|月)(?:(?P<d>{_DAY_NUMBER})(?:日|号|號))?")


def _month_day(match: re.Match[str], ctx: Context) -> Mention | None:
    month = zh_number(match["m"])
    day = zh_number(match["d"]) if match["d"] else None
    if month is None or not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
        return None
    return Mention(match.start(), match.end(), month=month, day=day)


# A date in numbers, the month first as Chinese writes it (3/28考试, 4/2复查); not a fraction or a score
# (1/2杯, 8/10分).
_NUMERIC_DATE = re.compile(r"(?<![\dA-Za-z/.:-])(?P<m>1[0-2]|0?[1-9])/(?P<d>[12]\d|3[01]|0?[1-9])(?![\dA-Za-z/%.:])")
_NOT_A_DATE_AFTER = re.compile(r"\s*(?:杯|分|个|份|块|斤|公斤|次|人|颗|片|瓶|碗|勺|克|毫|粒)")


def _numeric_date(match: re.Match[str], ctx: Context) -> Mention | None:
    if _NOT_A_DATE_AFTER.match(ctx.text, match.end()):
        return None
    return Mention(match.start(), match.end(), month=int(match["m"]), day=int(match["d"]))


# 三号楼 is building 3 and 五号线 metro line 5, not dates.
_DAY_RE = re.compile(
    rf"{ZH_NOT_AFTER_NUMBER}(?:(?P<d>{_DAY_NUMBER})(?:号|號)(?![线線楼樓房床门門位机機车車院厅廳馆館店台窗柜桌座码碼])"
    r"|(?P<d2>[12]\d|3[01]|0?[1-9])日)"
)


def _day(match: re.Match[str], ctx: Context) -> Mention | None:
    day = zh_number(match["d"] or match["d2"])
    return Mention(match.start(), match.end(), day=day) if day is not None and 1 <= day <= 31 else None


_YEAR_RE = re.compile(
    r"(?<![\d])(?:(?P<y>\d{4}|[零〇○一二三四五六七八九]{4})年(?![代级級])"
    rf"|(?P<yy>\d{{2}})年(?=\d{{1,2}}月|{_MONTH_NUMBER}月))"
)


def _year(match: re.Match[str], ctx: Context) -> Mention | None:
    year = zh_number(match["y"]) if match["y"] else 2000 + int(match["yy"])
    if year is None or not 1 <= year <= 9999:
        return None
    return Mention(match.start(), match.end(), anchor=cal.year_span(year), explicit=True)


# 去年这个时候, 下个月这时候, 上周的这个时候: the same day a year, a month or a week away (the month's last day
# when it has no such day), as "this time last year"
_SAME_TIME = re.compile(
    r"(?P<when>前年|去年|明年|上个月|上個月|下个月|下個月|上周|上週|下周|下週|上个星期|上個星期|下个星期|下個星期)的?"
    r"(?:这个时候|這個時候|这时候|這時候|这会儿|這會兒|此时|此時)"
)
_SAME_TIME_MONTHS = {"前年": -24, "去年": -12, "明年": 12, "上个月": -1, "上個月": -1, "下个月": 1, "下個月": 1}


def _same_time(match: re.Match[str], ctx: Context) -> Mention | None:
    when = match["when"]
    if when not in _SAME_TIME_MONTHS:  # a week
        days = -7 if when[0] == "上" else 7
        return Mention(match.start(), match.end(), anchor=cal.day_span(ctx.today + timedelta(days=days)))
    day = cal.same_day_months_away(ctx.today, _SAME_TIME_MONTHS[when])
    return Mention(match.start(), match.end(), anchor=cal.day_span(day))


_YEAR_REL = re.compile(rf"大前年|前年|去年|今年|明年|大[后後]年|{_NOT_AFTER_WORD}[后後]年")
_YEAR_OFFSETS = {"大前年": -3, "前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2, "後年": 2}


def _year_relative(match: re.Match[str], ctx: Context) -> Mention | None:
    offset = _YEAR_OFFSETS.get(match.group(), 3)
    return Mention(match.start(), match.end(), anchor=cal.year_span(ctx.today.year + offset))


_COUNT_RE = re.compile(
    rf"{ZH_NOT_AFTER_NUMBER}(?:(?P<n>\d{{1,3}}|[{ZH_NUMERAL_CHARS}]{{1,4}})(?:个|個)?(?P<half>半)?|(?P<only_half>半))(?:个|個)?"
    r"(?P<unit>分钟|分鐘|小时|小時|钟头|鐘頭|天|日|周|週|星期|礼拜|禮拜|月|年)(?P<half_after>半)?(?:以|之)?(?P<dir>前|后|後)"
)
_COUNT_UNITS = {"分": "minute", "小": "hour", "钟": "hour", "鐘": "hour", "天": "day", "日": "day", "月": "month"}


def _count(match: re.Match[str], ctx: Context) -> Mention | None:
    unit = _COUNT_UNITS.get(match["unit"][0], "year" if match["unit"] == "年" else "week")
    if unit == "month" and "个" not in match.group() and "個" not in match.group():
        return None  # 三月前 is "before March"; a count of months needs 个 (三个月前)
    count = 0 if match["only_half"] else zh_number(match["n"] or "")
    if count is None:
        return None
    if match["only_half"] or match["half"] or match["half_after"]:
        # Half units: 半小时 = 30 minutes, 两个半小时 = 150 minutes, 半年 = 6 months, 一年半 = 18 months.
        if unit == "hour":
            unit, count = "minute", count * 60 + 30
        elif unit == "year":
            unit, count = "month", count * 12 + 6
        elif unit == "month":
            unit, count = "day", count * 30 + 15  # 半个月前: a fortnight or so, told as the day it counts back to
        else:
            return None
    sign = -1 if match["dir"] == "前" else 1
    if unit == "week":
        return Mention(match.start(), match.end(), anchor=weeks_from_today(ctx, sign * count))
    return Mention(match.start(), match.end(), anchor=_offset_span(unit, sign * count, ctx))


def _offset_span(unit: str, offset: int, ctx: Context) -> Span:
    if unit in ("hour", "minute"):
        return cal.hour_span_at(ctx.now + timedelta(**{f"{unit}s": offset}))
    if unit == "day":
        return cal.day_span(ctx.today + timedelta(days=offset))
    if unit == "week":
        return cal.week_span(ctx.today + timedelta(weeks=offset))
    if unit == "month":
        return cal.month_span(*cal.add_months(ctx.today.year, ctx.today.month, offset))
    return cal.year_span(ctx.today.year + offset)


_SEASON_RE = re.compile(r"(?P<this>这个|這個|今年)?(?P<s>[春夏秋冬])(?:天|季)")
_SEASONS: dict[str, Season] = {"春": "spring", "夏": "summer", "秋": "autumn", "冬": "winter"}


def _season(match: re.Match[str], ctx: Context) -> Mention | None:
    season = _SEASONS[match["s"]]
    if match["this"]:
        return Mention(match.start(), match.end(), anchor=cal.season_span(season, cal.season_this(ctx.today, season)))
    return Mention(match.start(), match.end(), season=season)


# A word of recurrence right before an expression (每天早上, 天天晚上, 每个周末, 每周三下午): a habit, not a time.
_HABIT = re.compile(rf"(?:每(?:天|日|晚|周|週|月|年|个|個|逢)?|天天)(?:{_WEEK}[一二三四五六日天1-7])?的?$")
_HABIT_REACH = 8  # the longest such word: 每个星期三的


# 七月的第一个周末, 下个月第一个周一, 这个月最后一个周五: the nth one of a month (a month named alone is the one the
# clause's tense points to, as 七月 is).
_NTH_OF_MONTH = re.compile(
    rf"(?:{_NOT_AFTER_PART}{_MODIFIER}(?:个|個)?月|{ZH_NOT_AFTER_NUMBER}(?P<m>{_MONTH_NUMBER})月)(?:份)?的?"
    rf"(?:第(?P<n>[一二三四1-4])(?:个|個)|(?P<last>最后一个|最後一個))(?P<what>周末|週末|{_WEEK}[一二三四五六日天])"
)


def _nth_of_month(match: re.Match[str], ctx: Context) -> Mention | None:
    if match["m"]:
        number = zh_number(match["m"])
        if number is None or not 1 <= number <= 12:
            return None
        span = pick.month(ctx.today, number, ctx.tense.at(match.start()))
        year, month = span.start.year, span.start.month
    else:
        year, month = cal.add_months(ctx.today.year, ctx.today.month, _MOD_OFFSETS[match["mod"]])
    what = match["what"]
    weekday = 6 if what.endswith("末") else _WEEKDAYS[what[-1]]
    day = cal.nth_weekday(year, month, weekday, -1 if match["last"] else zh_number(match["n"]) or 0)
    if day is None:
        return None
    span = cal.weekend_span(day) if what.endswith("末") else cal.day_span(day)
    return Mention(match.start(), match.end(), anchor=span)


def _unless_habit(build: Builder) -> Builder:
    """``build``, except for a match right after a word of recurrence (:data:`_HABIT`)."""

    def checked(match: re.Match[str], ctx: Context) -> Mention | None:
        if _HABIT.search(ctx.text[max(0, match.start() - _HABIT_REACH) : match.start()]):
            return None
        return build(match, ctx)

    return checked


RULES: tuple[Rule, ...] = tuple(
    Rule(name, pattern, _unless_habit(build))
    for name, pattern, build in (
        ("zh_day_word", _DAY_WORDS, _day_word),
        ("zh_day_part", _DAY_PART, _day_part),
        ("zh_part_of_day", _PART_RE, _part_of_day),
        ("zh_hour", _HOUR, _hour),
        ("zh_weekday", _WEEKDAY_RE, _weekday),
        ("zh_weekday_day", _WEEKDAY_DAY_RE, _weekday_day),
        ("zh_week", _WEEK_RE, _week),
        ("zh_weekend", _WEEKEND_RE, _weekend),
        ("zh_month_relative", _MONTH_REL, _month_relative),
        ("zh_month_day", _MONTH_DAY, _month_day),
        ("zh_numeric_date", _NUMERIC_DATE, _numeric_date),
        ("zh_day", _DAY_RE, _day),
        ("zh_year", _YEAR_RE, _year),
        ("zh_year_relative", _YEAR_REL, _year_relative),
        ("zh_same_time", _SAME_TIME, _same_time),
        ("zh_count", _COUNT_RE, _count),
        ("zh_season", _SEASON_RE, _season),
        ("zh_nth_of_month", _NTH_OF_MONTH, _nth_of_month),
    )
)

CONNECTOR = r"[\s,，的]*"
"""What may stand between two mentions of one time (昨天 下午, 去年的夏天)."""
