"""Change pairs generated from a grammar: who (the speaker, a relative or friend by name) × what (residence, employer,
job title, car, a weekly plan, a pet, a diet) × how the change is worded × a filler and a time, each with a control
in which someone else makes the same change. Two vocabularies, written before any development: ``dev`` (developed
on) and ``heldout`` (other people, values, first statements and change wordings; run once at the end).

    python flowmem/eval/data/generated-2026-11-28/generate.py dev > pairs.dev.jsonl
    python flowmem/eval/data/generated-2026-11-28/generate.py heldout > pairs.heldout.jsonl

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


def _worded(template: str, who: tuple[str, str, bool, str, str], name: str) -> str:
    _, _, third, possessive, objective = who
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
    return text[0].upper() + text[1:]


def scenarios(vocabulary: dict[str, Any], half: str) -> list[dict[str, Any]]:
    rng = random.Random(vocabulary["seed"])
    people = vocabulary["who"]
    out = []
    for what, (first, changes, olds, news) in vocabulary["what"].items():
        for who, person in people.items():
            for n, change in enumerate(changes):
                old, new = rng.choice(olds), rng.choice(news) if news else ""
                stated = _capitalised(_worded(first, person, person[0]).replace("{A}", old))
                timed = (
                    "" if any(w in change for w in ("now", "these days", " is ")) else rng.choice(vocabulary["time"])
                )
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

                base = {"lang": "en", "events": [], "unique": [], "questions": []}
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


if __name__ == "__main__":
    half = sys.argv[1] if len(sys.argv) > 1 else "dev"
    for scenario in scenarios({"dev": DEV, "heldout": HELDOUT}[half], half):
        print(json.dumps(scenario, ensure_ascii=False))
