"""Change pairs generated from a grammar: who (the speaker, a relative or friend by name) × what (residence, employer,
job title, car, a weekly plan, a pet, a diet) × how the change is worded × a filler and a time, each with a control
in which someone else makes the same change. Two vocabularies, written before any development: ``dev`` (developed
on) and ``heldout`` (other people, values, first statements and change wordings; run once at the end).

    python flowmem/eval/data/generated-2026-11-28/generate.py dev > pairs.dev.jsonl
    python flowmem/eval/data/generated-2026-11-28/generate.py heldout > pairs.heldout.jsonl
    python flowmem/eval/data/generated-2026-11-28/generate.py zh.dev > pairs-zh.dev.jsonl
    python flowmem/eval/data/generated-2026-11-28/generate.py zh.heldout > pairs-zh.heldout.jsonl

A first statement is said on 3 March 2025, the change on 7 April. Expected: the change expires the first statement
(its whole text is the key) and keeps the new value; in a control the first statement stays valid.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any

# who: (as the first statement names them, as a later one does, third person?, possessive, object)
DEV: dict[str, Any] = {
    "who": {
        "i": ("I", "I", False, "my", "me"),
        "sister": ("my sister Leah", "Leah", True, "her", "her"),
        "husband": ("my husband Tom", "Tom", True, "his", "him"),
    },
    # what: (first statement, change wordings, old values, new values or None)
    "what": {
        "residence": ("{S} live{s} in {A}", ["{T} moved to {B}", "{T} live{s} in {B} now", "{T} just moved to {B}",
                      "{T} relocated to {B}", "{T}'{re} living in {B} these days"], ["Bristol", "Leeds"],
                      ["Denver", "Austin"]),
        "employer": ("{S} work{s} at {A}", ["{T} started a new job at {B}", "{T} work{s} at {B} now",
                     "{T} left {A} and joined {B}", "{T}'{re} at {B} now", "first day at {B} for {M}"],
                     ["Dell", "Acme"], ["Lumen Health", "Globex"]),
        "title": ("{S}'{re} a {A}", ["{T}'{re} a {B} now", "{T} got promoted to {B}", "{T}'{re} working as a {B} now",
                  "{T} became a {B}"], ["nurse", "teacher"], ["paramedic", "sales rep"]),
        "car": ("{S} drive{s} a {A}", ["{T} sold the {A} and bought a {B}", "{T} drive{s} a {B} now",
                "{T} got a {B}, the {A} is gone"], ["Golf", "Corolla"], ["Tesla", "Kia Ceed"]),
        "schedule": ("{S} go{es} to yoga on {A}", ["yoga moved to {B} for {M}", "{T} go{es} to yoga on {B} now",
                     "{T} switched yoga to {B}"], ["Mondays", "Tuesdays"], ["Thursdays", "Fridays"]),
        "pet": ("{S} ha{ve} a cat called {A}", ["{O} cat {A} passed away", "{A} died last night, {T}'{re} heartbroken"],
                ["Mittens", "Luna"], None),
        "diet": ("{S}'{re} vegetarian", ["{T} eat{s} meat again", "{T}'{re} not vegetarian anymore",
                 "{T} stopped being vegetarian"], ["vegetarian"], None),
    },
    "time": ["", " last week", ", as of Monday"],
    "filler": ["", "btw ", "ok so "],
    "seed": 1,
}  # fmt: skip

HELDOUT: dict[str, Any] = {
    "who": {
        "i": ("I", "I", False, "my", "me"),
        "brother": ("my brother Sam", "Sam", True, "his", "him"),
        "wife": ("my wife Ana", "Ana", True, "her", "her"),
        "friend": ("my friend Priya", "Priya", True, "her", "her"),
    },
    "what": {
        "residence": ("{S}'{re} based in {A}", ["{T} moved out to {B}", "{T}'{re} in {B} now",
                      "{T} finally made the move to {B}", "{T} now live{s} in {B}", "{O} new place is in {B}"],
                      ["Glasgow", "Cork"], ["Lisbon", "Oslo"]),
        "employer": ("{S} work{s} for {A}", ["{T} quit {A}, {T}'{re} at {B} now", "{T} got a job at {B}",
                     "{T} now work{s} for {B}", "{T} switched jobs, {T}'{re} with {B} now"], ["Barclays", "Oracle"],
                     ["Monzo", "Stripe"]),
        "title": ("{S} work{s} as a {A}", ["{T}'{re} now a {B}", "{T} retrained as a {B}",
                  "{T} got a new role as {B}"], ["chef", "pharmacist"], ["baker", "data analyst"]),
        "car": ("{P} car is a {A}", ["{P} new car is a {B}", "{T} traded in the {A} for a {B}",
                "{T} replaced the {A} with a {B}"], ["Fiesta", "Civic"], ["Model 3", "Yaris"]),
        "schedule": ("{S} play{s} football on {A}", ["football is on {B} now for {M}",
                     "{T} play{s} football on {B} these days", "{T} moved football to {B}"],
                     ["Wednesdays", "Thursdays"], ["Sundays", "Saturdays"]),
        "pet": ("{S} ha{ve} a dog named {A}", ["we had to put {A} down", "{A} passed away this morning",
                "{O} dog {A} died"], ["Rex", "Bruno"], None),
        "diet": ("{S}'{re} vegan", ["{T}'{re} not vegan any more", "{T} gave up being vegan",
                 "{T} stopped being vegan"], ["vegan"], None),
    },
    "time": ["", " a few weeks ago", ", since the weekend"],
    "filler": ["", "so ", "update: "],
    "seed": 2,
}  # fmt: skip


ZH_DEV: dict[str, Any] = {
    "lang": "zh",
    "who": {
        "i": ("我", "我", False, "我的", "我"),
        "sister": ("我姐小丽", "小丽", True, "她的", "她"),
        "husband": ("我老公阿强", "阿强", True, "他的", "他"),
    },
    "what": {
        "residence": ("{S}住在{A}", ["{T}搬到{B}了", "{T}现在住{B}", "{T}刚搬去{B}", "{T}已经在{B}定居了"], ["杭州", "成都"],  # noqa: E501
                      ["深圳", "南京"]),
        "employer": ("{S}在{A}上班", ["{T}跳槽去{B}了", "{T}现在在{B}上班", "{T}从{A}离职了，去了{B}", "{T}入职{B}了"],
                     ["腾讯", "华为"], ["字节", "阿里"]),
        "title": ("{S}是{A}", ["{T}现在是{B}了", "{T}转行当{B}了"], ["护士", "老师"], ["医生", "销售"]),
        "car": ("{S}开的是{A}", ["{T}换了辆{B}", "{T}现在开{B}", "{T}把{A}卖了，买了辆{B}"], ["大众", "本田"],
                ["特斯拉", "比亚迪"]),
        "schedule": ("{S}每{A}去练瑜伽", ["{P}瑜伽课改到{B}了", "{T}现在每{B}去练瑜伽", "{T}把瑜伽换到{B}了"], ["周一", "周二"],  # noqa: E501
                     ["周四", "周五"]),
        "pet": ("{S}养了一只猫叫{A}", ["{O}猫{A}走了", "{A}昨天去世了，{T}很难过"], ["咪咪", "团团"], None),
        "diet": ("{S}吃素", ["{T}不吃素了", "{T}开始吃肉了", "{T}现在不吃素了"], ["素"], None),
    },
    "time": ["", "，上周的事", "，前天"],
    "filler": ["", "跟你说，", "对了，"],
    "seed": 3,
}  # fmt: skip

ZH_HELDOUT: dict[str, Any] = {
    "lang": "zh",
    "who": {
        "i": ("我", "我", False, "我的", "我"),
        "brother": ("我弟小军", "小军", True, "他的", "他"),
        "wife": ("我老婆小美", "小美", True, "她的", "她"),
        "friend": ("我朋友阿杰", "阿杰", True, "他的", "他"),
    },
    "what": {
        "residence": ("{S}在{A}住", ["{T}已经搬去{B}了", "{T}现在在{B}住", "{T}搬家了，新家在{B}"], ["武汉", "西安"],
                      ["广州", "厦门"]),
        "employer": ("{S}在{A}工作", ["{T}换工作了，现在在{B}", "{T}去{B}上班了", "{T}辞职了，下个月去{B}"], ["京东", "美团"],  # noqa: E501
                     ["小米", "网易"]),
        "title": ("{S}做{A}", ["{T}改行做{B}了", "{T}现在当{B}", "{T}不做{A}了，做{B}"], ["会计", "厨师"], ["律师", "司机"]),  # noqa: E501
        "car": ("{P}车是{A}", ["{P}新车是{B}", "{T}把{A}换成了{B}", "{T}买了辆{B}，{A}卖了"], ["丰田", "奥迪"],
                ["蔚来", "理想"]),
        "schedule": ("{S}每{A}踢球", ["{T}踢球改到{B}了", "{T}现在每{B}踢球", "{T}踢球换成{B}了"], ["周三", "周六"],
                     ["周日", "周二"]),
        "pet": ("{S}养了一条狗叫{A}", ["{A}今天走了", "{O}狗{A}去世了"], ["旺财", "豆豆"], None),
        "diet": ("{S}不吃辣", ["{T}现在能吃辣了", "{T}开始吃辣了"], ["辣"], None),
    },
    "time": ["", "，前几天的事", "，这个月开始"],
    "filler": ["", "告诉你，", "哦对，"],
    "seed": 4,
}  # fmt: skip


def _worded(template: str, who: tuple[str, str, bool, str, str], name: str) -> str:
    _, _, third, possessive, objective = who
    if possessive.endswith("的"):  # Chinese: no agreement
        whose = f"{name}的" if third else possessive
        return (
            template.replace("{S}", name)
            .replace("{T}", name)
            .replace("{O}", possessive)
            .replace("{M}", objective)
            .replace("{P}", whose)
        )
    whose = f"{name}'s" if third else possessive
    text = template.replace("{S}", name).replace("{T}", name).replace("{O}", possessive).replace("{M}", objective)
    text = text.replace("{P}", whose)
    if third:
        pairs = {"{s}": "s", "{es}": "es", "'{re}": "'s", "ha{ve}": "has"}
    else:
        pairs = {"{s}": "", "{es}": "", "'{re}": "'m", "ha{ve}": "have"}
    for key, value in pairs.items():
        text = text.replace(key, value)
    return text


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def scenarios(vocabulary: dict[str, Any], half: str) -> list[dict[str, Any]]:
    rng = random.Random(vocabulary["seed"])
    people = vocabulary["who"]
    out = []
    for what, (first, changes, olds, news) in vocabulary["what"].items():
        for who, person in people.items():
            for n, change in enumerate(changes):
                old, new = rng.choice(olds), rng.choice(news) if news else ""
                stated = _capitalised(_worded(first, person, person[0]).replace("{A}", old))
                present = ("now", "these days", " is ", "现在", "新家", "新车")  # no time beside a present
                timed = "" if any(w in change for w in present) else rng.choice(vocabulary["time"])
                filler = rng.choice(vocabulary["filler"])

                def said(
                    by: tuple[str, str, bool, str, str],
                    old: str = old,
                    new: str = new,
                    change: str = change,
                    filler: str = filler,
                    timed: str = timed,
                ) -> str:
                    worded = _worded(change, by, by[1]).replace("{A}", old).replace("{B}", new)
                    return _capitalised(filler + worded + timed)

                base = {"lang": vocabulary.get("lang", "en"), "events": [], "unique": [], "questions": []}
                messages = [{"content": stated, "time": "2025-03-03T10:00", "role": "user"}]
                out.append({"id": f"gen-{half}-{what}-{who}-{n}", "tags": ["generated", what, who], **base,
                            "messages": [*messages, {"content": said(person), "time": "2025-04-07T19:00"}],
                            "valid": [[new]] if new else [], "expired": [[stated]]})  # fmt: skip
                other = next(p for key, p in people.items() if key != who and (who == "i") != (key == "i"))
                if what == "pet":
                    continue  # another's pet of the same name would be the same pet
                control = said(other, old=rng.choice([o for o in olds if o != old] or olds))
                if old in control and what != "diet":
                    continue
                out.append({"id": f"gen-{half}-control-{what}-{who}-{n}", "tags": ["generated", "control", what, who],
                            **base, "messages": [*messages, {"content": control, "time": "2025-04-07T19:00"}],
                            "valid": [[stated]], "expired": []})  # fmt: skip
    return out


# A second English development grammar (written after the first was worked on, before any run of it): a change said
# with a pronoun after the person was named, a first statement of two facts of which one changes, a change after
# other news in the same message, a change said by what no longer holds, and a new value said as "my new …".
# Each: (first message, change message, expired key — {FIRST}: the first message whole —, kept keys). {X}: the old
# value, {Y}: the new one.
DEV2_PEOPLE = [("I", "I", "my", False), ("my sister Leah", "she", "her", True), ("my husband Tom", "he", "his", True)]
DEV2_CASES = [
    ("{S} live{s} in {X}", "{P} moved to {Y}", ["{FIRST}"], ["{Y}"], ("Bristol", "Denver")),
    ("{S} work{s} at {X}", "{P} started at {Y} on Monday", ["{FIRST}"], ["{Y}"], ("Acme", "Globex")),
    ("{S} live{s} in {X} and work{s} at Acme", "{P} moved to {Y} last week", ["{X}", "Acme"], ["Acme"],
     ("Leeds", "Austin")),
    ("{S} work{s} at {X} and play{s} tennis on Sundays", "{P} left {X} for {Y}", ["{X}", "tennis"], ["tennis"],
     ("Dell", "Lumen Health")),
    ("{S} live{s} in {X}", "Long week at work. Anyway {P} moved to {Y} on Saturday", ["{FIRST}"], ["{Y}"],
     ("York", "Denver")),
    ("{S} live{s} in {X}", "{P} do{es}n't live in {X} anymore, moved to {Y}", ["{FIRST}"], ["{Y}"],
     ("Cardiff", "Oslo")),
    ("{S} work{s} at {X}", "{O} new job is at {Y}", ["{FIRST}"], ["{Y}"], ("Acme", "Stripe")),
    ("{S} live{s} in {X}", "{O} new place is in {Y}", ["{FIRST}"], ["{Y}"], ("Bath", "Lisbon")),
    ("{S}'{re} a {X}", "{P} quit being a {X} and {be} a {Y} now", ["{FIRST}"], ["{Y}"], ("nurse", "paramedic")),
]  # fmt: skip


def dev2() -> list[dict[str, Any]]:
    out = []
    for n, (first, change, expired, kept, (old, new)) in enumerate(DEV2_CASES):
        for label, pronoun, possessive, third in DEV2_PEOPLE:
            pairs = {"{s}": "s" if third else "", "{es}": "es" if third else "", "'{re}": "'s" if third else "'m",
                     "{be}": "is" if third else "am", "do{es}n't": "doesn't" if third else "don't"}  # fmt: skip

            def fill(text: str, pairs: dict[str, str] = pairs, label: str = label, pronoun: str = pronoun,
                     possessive: str = possessive, old: str = old, new: str = new) -> str:  # fmt: skip
                for key, value in pairs.items():
                    text = text.replace(key, value)
                text = text.replace("{S}", label).replace("{P}", pronoun).replace("{O}", possessive)
                return _capitalised(text.replace("{X}", old).replace("{Y}", new))

            who = label.split()[-1].lower()
            out.append({
                "id": f"gen-dev2-{n}-{who}", "lang": "en", "tags": ["generated", "dev2", who],
                "messages": [{"content": fill(first), "time": "2025-03-03T10:00", "role": "user"},
                             {"content": fill(change), "time": "2025-04-07T19:00", "role": "user"}],
                "valid": [[fill(k).lower()] for k in kept],
                "expired": [[fill(first) if k == "{FIRST}" else fill(k).lower() for k in expired]],
                "events": [], "unique": [], "questions": [],
            })  # fmt: skip
    return out


# A third English development set (written after the second was worked on, before any run of it): other attributes
# (partner, school, phone provider, gym, commute), lower-case texting, a change deep in a long message, a relation
# alone ("my mum" → "mum moved"), and controls of two people of the speaker's (a named one's change leaves a relation's
# fact). Each: (first message, change message, expired keys or [], kept keys).
DEV3_CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("my boyfriend is Jake", "Jake and I broke up last month", ["my boyfriend is Jake"], ["broke up"]),
    ("I'm studying law at Leeds Uni", "I transferred to Bristol Uni in January", ["Leeds Uni"], ["Bristol Uni"]),
    ("I'm with Vodafone for my phone", "switched my phone to O2, way cheaper", ["with Vodafone"], ["O2"]),
    ("I go to PureGym on Fenwick St", "cancelled PureGym, joined The Gym Group instead", ["go to PureGym"],
     ["The Gym Group"]),
    ("I get the bus to work every day", "I cycle to work now, bus was always late", ["get the bus"], ["cycle"]),
    ("my sister leah lives in bristol", "leah moved to denver lol", ["leah lives in bristol"], ["denver"]),
    ("I live in Leeds", "Busy week! Kids are fine, work is mad, and oh I moved to York last weekend so that's that",
     ["I live in Leeds"], ["York"]),
    ("I work at Acme", "no longer at Acme, I'm at Globex now", ["I work at Acme"], ["Globex"]),
    ("my mum lives in Leeds", "mum moved to York in the summer", ["my mum lives in Leeds"], ["York"]),
    ("My dad works at the post office", "Dad retired last Friday!", ["works at the post office"], ["retired"]),
    ("my mum lives in Leeds", "Leah moved to Denver last week", [], ["my mum lives in Leeds"]),
    ("my brother Sam works at Acme", "my sister Leah started at Globex", [], ["my brother Sam works at Acme"]),
    ("I'm vegan", "my flatmate stopped being vegan", [], ["I'm vegan"]),
    ("my wife Ana drives a Golf", "I sold my Civic and got a Tesla", [], ["my wife Ana drives a Golf"]),
    ("I live in Leeds with my partner Jo", "Jo's sister moved to Leeds", [], ["I live in Leeds"]),
]  # fmt: skip


def dev3() -> list[dict[str, Any]]:
    return [
        {
            "id": f"gen-dev3-{n}",
            "lang": "en",
            "tags": ["generated", "dev3"] + ([] if expired else ["control"]),
            "messages": [
                {"content": first, "time": "2025-03-03T10:00", "role": "user"},
                {"content": change, "time": "2025-04-07T19:00", "role": "user"},
            ],
            "valid": [[k] for k in kept],
            "expired": [[k] for k in expired],
            "events": [],
            "unique": [],
            "questions": [],
        }
        for n, (first, change, expired, kept) in enumerate(DEV3_CASES)
    ]


if __name__ == "__main__":
    half = sys.argv[1] if len(sys.argv) > 1 else "dev"
    vocabularies = {"dev": DEV, "heldout": HELDOUT, "zh.dev": ZH_DEV, "zh.heldout": ZH_HELDOUT}
    made = {"dev2": dev2, "dev3": dev3}
    for scenario in made[half]() if half in made else scenarios(vocabularies[half], half):
        print(json.dumps(scenario, ensure_ascii=False))
