"""Issue 12: a changed fact expires only itself, wherever it is stored — through `flowmem ingest` and `store list`."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from flowmem import App
from flowmem.schema.memory import Memory
from tests.unit.cli.test_cli import run_cli

START = datetime(2024, 3, 4, 9, 0)  # a Monday

# A 40-message chat: the home and the dog's name said early in one message, among many other facts
# (several also about Milan, so the move is nowhere near the old home in vector space), the move late.
CHAT: list[tuple[str, str]] = [
    ("user", "Hi! I live in Milan with my dog Rex, in a small flat near the Navigli."),
    ("assistant", "Nice to meet you! Milan is lovely. How can I help?"),
    ("user", "I work as a nurse at the Niguarda hospital, mostly night shifts."),
    ("assistant", "Night shifts are tough. Anything I can do?"),
    ("user", "My sister Giulia is getting married in June in Florence."),
    ("assistant", "Congratulations to her!"),
    ("user", "I'm allergic to peanuts, so I always check labels."),
    ("assistant", "Good to know, I'll keep that in mind for recipes."),
    ("user", "I started learning Japanese last month, two evenings a week."),
    ("assistant", "がんばって! That's a great goal."),
    ("user", "My favourite restaurant in Milan is a tiny trattoria in Brera."),
    ("assistant", "Brera has great places."),
    ("user", "I run along the canal every Sunday morning, usually 10k."),
    ("assistant", "That's a nice routine."),
    ("user", "My best friend Marco plays bass in a jazz band."),
    ("assistant", "Do you go to his gigs?"),
    ("user", "Yes, I go to every gig of his at the Blue Note in Milan."),
    ("assistant", "Sounds fun!"),
    ("user", "I'm saving up to buy a used Vespa this summer."),
    ("assistant", "A classic choice."),
    ("user", "I hate the humidity of Milan summers, I'm always sweaty."),
    ("assistant", "August can be brutal there."),
    ("user", "My mom lives in Bari and I visit her at Christmas."),
    ("assistant", "Bari at Christmas sounds lovely."),
    ("user", "I have been reading a lot of Calvino lately, I love his cities."),
    ("assistant", "Invisible Cities is a classic."),
    ("user", "I'm thinking about a new job closer to the mountains."),
    ("assistant", "Any places in mind?"),
    ("user", "I got an offer from a hospital in Turin, I'm going to accept it."),
    ("assistant", "That's exciting news!"),
    ("user", "Packing up the flat has been exhausting, so many boxes."),
    ("assistant", "Moving is always a lot of work."),
    ("user", "I moved to Turin today!"),
    ("assistant", "Welcome to Turin! How does it feel?"),
    ("user", "I already love the view of the Alps from my balcony."),
    ("assistant", "That sounds beautiful."),
    ("user", "I want to find a climbing gym nearby for the weekends."),
    ("assistant", "Turin has several good ones."),
    ("user", "I signed up for a pottery class on Thursday evenings."),
    ("assistant", "Have fun with it!"),
]


def write_chat(path: Path) -> Path:
    lines = []
    for i, (role, content) in enumerate(CHAT):
        when = START + timedelta(days=2 * (i // 2), minutes=i % 2)
        name = "alice" if role == "user" else "assistant"
        lines.append(json.dumps({"message_id": f"m{i:02d}", "role": role, "name": name, "content": content,
                                 "time_created": when.isoformat()}))  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def store_list(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    code, out, err = run_cli(capsys, "store", "list", "-w", "demo", "--json", "--limit", "0")
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def test_milan_to_turin_keeps_the_dog(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FLOWMEM_HOME", str(tmp_path))
    code, _, err = run_cli(capsys, "ingest", str(write_chat(tmp_path / "chat.jsonl")), "-u", "alice", "-w", "demo")
    assert code == 0, err
    memories = store_list(capsys)
    by_status: dict[str, list[str]] = {"valid": [], "expired": []}
    for memory in memories:
        by_status[memory["status"]].append(memory["content"])
    [milan] = [m for m in memories if "I live in Milan" in m["content"]]
    [turin] = [m for m in memories if m["content"] == "I moved to Turin today!"]
    assert milan["status"] == "expired" and turin["status"] == "valid"
    assert milan["metadata"]["superseded_by"] == turin["memory_id"]
    assert "Rex" not in milan["content"]  # the dog's name is a fact of its own ...
    [rex] = [m for m in memories if "Rex" in m["content"]]
    assert rex["status"] == "valid" and rex["source"] == ["m00"]  # ... still valid, from the same message
    assert milan["source"] == ["m00"] and rex["memory_id"] != milan["memory_id"]
    assert by_status["expired"] == [milan["content"]]  # nothing else expired
    assert any("Niguarda" in c for c in by_status["valid"])

    code, out, err = run_cli(capsys, "store", "history", "-w", "demo", milan["memory_id"], "--json")
    assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    [expire] = [e for e in events if e["event"] == "expire"]
    assert expire["reason"] == f"residence: replaced by {turin['memory_id']} (milan → turin)"


def summarize(app: App, *texts: str) -> list[Memory]:
    for i, text in enumerate(texts):
        message = {"message_id": f"t{i}", "role": "user", "name": "alice", "content": text,
                   "time_created": (START + timedelta(days=i)).isoformat()}  # fmt: skip
        app.run_sync("personal_summary", messages=[message], user_id="alice", workspace_id="w")

    async def collect() -> list[Memory]:
        return [m async for batch in app.vector_store().iterate("w") for m in batch]

    return app.run_coroutine(collect())


def test_a_slot_added_by_config_supersedes_and_other_slots_stay() -> None:
    slot = "op.contra_repeat_op.params.slots.gym=['my gym is (?P<v>[A-Za-z ]+)']"
    with App(overrides=["vector_store.default.backend=memory", "op.contra_repeat_op.params.top_k=1", slot]) as app:
        memories = summarize(
            app,
            "My gym is Fitness First, I go there on Mondays and my partner Sam comes too.",
            "我的狗叫旺财，我在阿里巴巴工作。",
            "I love the new pottery studio downtown, the teachers are great.",
            "My gym is Virgin Active now.",
            "我现在在腾讯上班。",
        )
    status = {m.content: m.status for m in memories}
    assert status["My gym is Fitness First"] == "expired"  # found by its slot, not among the 1 nearest
    assert status["My gym is Virgin Active now."] == "valid"
    assert status["我在阿里巴巴工作。"] == "expired" and status["我现在在腾讯上班。"] == "valid"
    assert status["我的狗叫旺财"] == "valid"  # said in the same message as the old employer
    assert [c for c, s in status.items() if "Sam" in c and s == "valid"]
    slots = {m.content: m.metadata["slots"] for m in memories}
    assert slots["我现在在腾讯上班。"] == {"employer": "腾讯"} and slots["My gym is Virgin Active now."] == {
        "gym": "virgin active"
    }


@pytest.mark.parametrize(
    ("before", "after", "reason"),
    [
        ("I have a hamster named Nibbles.", "Nibbles passed away in April; now I have a rabbit called Clover.",
         "pet_name:hamster: nibbles ended"),
        ("我养了一只叫豆豆的仓鼠。", "豆豆四月去世了，现在我养了一只叫小白的兔子。", "pet_name:hamster: 豆豆 ended"),
    ],
)  # fmt: skip
def test_a_fact_that_ends_expires_and_a_new_pet_is_no_rewording_of_it(before: str, after: str, reason: str) -> None:
    with App(overrides=["vector_store.default.backend=memory"]) as app:
        memories = summarize(app, before, after)
        history = app.run_coroutine(app.vector_store().history("w"))
    # the old memory kept its words: the rabbit is another fact, not a rewording of the hamster
    assert {m.content: m.status for m in memories} == {before: "expired", after: "valid"}
    [expire] = [e for e in history if e.event == "expire"]
    new = next(m for m in memories if m.content == after)
    assert expire.reason == f"{reason}, said in {new.memory_id}"


def test_llm_observations_in_the_third_person_supersede_too() -> None:
    def facts(*contents: str) -> str:
        return json.dumps([{"message": 0, "content": c, "when_to_use": "", "keywords": []} for c in contents])

    replies = {
        "lasting personal information": '{"0": 3}',
        "Turin today": facts("Alice moved to Turin."),
        "Milan with my dog": facts("Alice lives in Milan.", "Alice's dog is called Rex."),
    }
    config = {"llm": {"default": {"backend": "fake", "params": {"by_prompt": replies, "replies": ["{}"]}}}}
    with App(config=config, overrides=["vector_store.default.backend=memory"]) as app:
        memories = summarize(app, "I live in Milan with my dog Rex.", "I moved to Turin today!")
    assert {m.content: (m.memory_type, m.status) for m in memories} == {
        "Alice lives in Milan.": ("observation", "expired"),
        "Alice's dog is called Rex.": ("observation", "valid"),
        "Alice moved to Turin.": ("observation", "valid"),
    }
    assert {m.content: m.metadata["slots"] for m in memories}["Alice's dog is called Rex."] == {"pet_name:dog": "rex"}


def test_an_edited_memory_is_superseded_by_its_new_words_not_its_old_ones() -> None:
    """memories.update drops the slots of the old words: the move expires the edited home, not the edited hobby."""
    with App(overrides=["vector_store.default.backend=memory"]) as app:
        first = {m.content: m for m in summarize(app, "I live in Milan.", "My cat Tom loves the sofa.")}
        app.memories.sync.update(first["I live in Milan."].memory_id, "I love pottery.", workspace_id="w")
        app.memories.sync.update(first["My cat Tom loves the sofa."].memory_id, "I live in Milan.", workspace_id="w")
        moved = {"message_id": "t9", "role": "user", "name": "alice", "content": "I moved to Turin today!",
                 "time_created": (START + timedelta(days=9)).isoformat()}  # fmt: skip
        app.run_sync("personal_summary", messages=[moved], user_id="alice", workspace_id="w")
        status = {m.content: m.status for m in app.memories.sync.list(workspace_id="w", user_id="alice").memories}
    assert status == {"I love pottery.": "valid", "I live in Milan.": "expired", "I moved to Turin today!": "valid"}


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("I work for Deloitte as an auditor", "handed in my resignation at Deloitte today, joining KPMG next month"),
        ("I'm a line cook at Nando's", "Quick update: I accepted the offer from Pizza Express, start date is the 3rd"),
        ("I drive a forklift at the Tesco depot", "I'm a delivery driver for DPD now, way better hours"),
        ("my job is at the council, planning department", "Onboarding at Arup this week, lots of paperwork"),
        ("I'm a receptionist at a vet clinic", "got hired as a dental nurse!! first shift tomorrow"),
        ("I'm a freelance photographer", "I took a full-time job as a photo editor at Reuters"),
        ("我在麦当劳打工", "麦当劳那边辞了，去肯德基了"),
        ("I pay 800 euros rent", "rent is now 850, the agency sent the letter"),
        ("rent: 1450", "rent went down to 1400 after I complained about the mould"),
        ("房租一个月3500", "房东涨房租了，现在4000一个月"),
        ("在一家奶茶店兼职", "奶茶店的兼职辞掉了，找了个家教的活"),
        ("我在4S店卖车", "4S店不干了，现在开滴滴"),
        ("我在一家外企做财务", "下个月开始去国企上班了，外企那边已经交接完了"),
        ("I live with my parents in Leeds", "finally got my own place, a studio in Manchester"),
        ("I live in Bristol, near the harbour", "we completed on the house in Bath last week!! finally homeowners"),
        ("I live in Paris", "I've been living in Berlin since January"),
        ("I stay in Shoreditch", "moving day went fine, I'm a Walthamstow girl now lol"),
        ("我家在成都", "我们全家搬到重庆了"),
        ("我在阿里做产品", "我被腾讯录了！！月底入职"),
        ("我在星巴克当咖啡师", "跳到瑞幸了，当店长"),
        ("my bank is Barclays", "switched my current account to Monzo, Barclays was useless"),
        ("I bank with HSBC", "closed my HSBC account, everything's with Starling now"),
        ("our car insurance is with Admiral", "renewed the car insurance with Direct Line this year, cheaper"),
    ],
)  # fmt: skip
def test_a_job_home_or_rent_changed_in_other_words_expires_the_old_one(before: str, after: str) -> None:
    assert status_after(before, after) == "expired"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("my bank is Barclays", "moved my savings to Marcus but kept the Barclays current account"),
        ("I shop at Tesco", "switched from Tesco own-brand coffee to Lavazza, still shop at Tesco though"),
        ("my GP is Dr Patel", "Dr Patel changed my prescription to sertraline"),
        ("I work at Google", "Google moved me to the London office"),
        ("my dentist is Dr Lee", "moved my appointment with Dr Lee to Friday"),
    ],
)  # fmt: skip
def test_a_change_that_names_the_old_provider_without_leaving_it_keeps_it(before: str, after: str) -> None:
    assert status_after(before, after) == "valid"


def status_after(before: str, after: str) -> str:
    """The status of the memory of ``before`` once ``after`` is said, a day later."""
    with App(overrides=["vector_store.default.backend=memory"]) as app:
        [status] = [m.status for m in summarize(app, before, after) if m.content == before]
    return status


@pytest.mark.parametrize(
    ("before", "after", "status"),
    [
        # a doing stopped, said in everyday words
        ("I drink coffee every morning", "not drinking coffee these days, it was wrecking my sleep", "expired"),
        ("I have a cat called Milo", "we had to give Milo away, the baby's allergic", "expired"),
        ("I eat meat", "I've cut out meat completely", "expired"),
        ("I'm a member at the golf club", "let my golf membership lapse", "expired"),
        ("我每周打两次羽毛球", "最近都没打球了，腰不好", "expired"),
        ("我抽烟", "我戒烟三个月了", "expired"),
        ("I'm on atorvastatin", "Dr Okafor took me off the atorvastatin", "expired"),  # mine, whoever ended it
        # someone's by name, said before of one of the speaker's people: theirs may be the same person
        ("My daughter plays violin", "Ella's given up the violin, it's all football now", "expired"),
        ("Grandma lives on her own in Hove", "Grandma's in a care home now, the one near Brighton station", "expired"),
        ("我爸住在老家", "我爸搬来跟我们住了", "expired"),
        # someone else stopped, or a doing lessened or lapsed: the speaker's own goes on
        ("I smoke", "my husband quit smoking", "valid"),
        ("我抽烟", "我老公戒烟三个月了", "valid"),
        ("I drink coffee", "my sister stopped drinking coffee", "valid"),
        ("I run every morning", "not running as far these days, knee's sore", "valid"),
        ("I go swimming on Fridays", "haven't been swimming lately, but I'll be back next week", "valid"),
        ("I have a cat called Milo", "gave Milo's old toys away to the shelter", "valid"),
        ("我每周打两次羽毛球", "最近都没下雨了，天气很好", "valid"),
        # another of the speaker's people, named by another tie, stopped or sold: theirs, not the one said before
        ("My sister is a nurse in Bristol", "her friend from uni just quit nursing to retrain as a teacher", "valid"),
        ("we have a Ford Focus", "my in-laws sold their Focus and got an electric car", "valid"),
        ("My sister is a nurse in Bristol", "my sister quit nursing, she's retraining as a teacher", "expired"),
    ],
)  # fmt: skip
def test_a_doing_stopped_is_the_speakers_only_when_the_speaker_stopped(before: str, after: str, status: str) -> None:
    assert status_after(before, after) == status


@pytest.mark.parametrize(
    ("before", "after", "status"),
    [
        ("I swim every Wednesday", "pool's shut so this Wednesday I'm swimming Thursday instead", "valid"),
        ("I swim every Wednesday", "this Wednesday's swim is moved to Thursday", "valid"),
        ("我每周三去游泳", "这周三的游泳改到周四了", "valid"),
        ("I have piano on Tuesdays", "piano's moved to Wednesday today only", "valid"),
        ("I do yoga every Monday", "yoga on Monday was so good", "valid"),
        ("I swim every Wednesday", "from this week swimming is on Thursdays", "expired"),
        ("choir is on Tuesday evenings", "choir moved to Wednesdays", "expired"),
        ("我每周三去游泳", "游泳改到每周四了", "expired"),
    ],
)  # fmt: skip
def test_one_day_of_a_weekly_habit_is_not_the_habit(before: str, after: str, status: str) -> None:
    """A day of a habit moved or told ("this Wednesday", "yoga on Monday was so good") is one event: no near-duplicate
    of the habit to merge into it (the merge put "这周三游泳馆关门" in place of "我每周三去游泳"), no change of it."""
    assert status_after(before, after) == status


def test_one_day_of_a_habit_is_no_near_duplicate_of_it() -> None:
    """ "这周三游泳馆关门" (one Wednesday) is no rewording of "我每周三去游泳" (every Wednesday): merged into it, the
    habit's words were replaced by the day's."""
    with App(overrides=["vector_store.default.backend=memory"]) as app:
        contents = [m.content for m in summarize(app, "我每周三去游泳", "这周三游泳馆关门，改周四去了")]
    assert "我每周三去游泳" in contents and "这周三游泳馆关门" in contents


@pytest.mark.parametrize(
    ("before", "after", "stays", "goes"),
    [
        # a clause with a subject of its own, joined by "and": what else the statement said stays
        ("my mum lives in Bath and my dad lives in Bristol", "mum's moved in with her sister in Wells",
         "my dad lives in Bristol", "Bath"),
        ("My daughter plays violin and my son plays football", "my son quit football, it's all gaming now",
         "My daughter plays violin", "football"),
        ("my flatmate Jess works at the BBC and my other flatmate Raj is a chef", "Jess got a job at Channel 4",
         "Raj is a chef", "BBC"),
        # of two days in one clause, the one said beside what moved
        ("I go to choir on Mondays and pottery on Thursdays", "pottery's moved to Wednesdays",
         "choir on Mondays", "pottery on Thursdays"),
    ],
)  # fmt: skip
def test_one_fact_of_a_statement_changes_and_the_others_stay(before: str, after: str, stays: str, goes: str) -> None:
    """Session 20's multi-fact probes: 4 of 25 lost every other fact of the statement with the one that changed."""
    with App(overrides=["vector_store.default.backend=memory"]) as app:
        valid = [m.content for m in summarize(app, before, after) if m.status == "valid"]
    assert any(stays in text for text in valid), valid
    assert not any(goes in text and stays in text for text in valid), valid
