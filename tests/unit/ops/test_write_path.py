"""The write path: personal_summary and `flowmem ingest`, offline (local e5 embeddings, no LLM)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from flowmem import App
from flowmem.eval.samples import chat_path
from flowmem.schema.memory import Memory
from flowmem.scoring.keys import offline_key
from flowmem.scoring.slots import read_slots
from tests.unit.cli.test_cli import run_cli

EPHEMERAL = ["vector_store.default.backend=memory"]


def message(message_id: str, content: str, when: datetime, role: str = "user") -> dict[str, Any]:
    return {"message_id": message_id, "role": role, "name": "alice" if role == "user" else "assistant",
            "content": content, "time_created": when.isoformat()}  # fmt: skip


def summarize(app: App, messages: list[dict[str, Any]], workspace: str = "w") -> Any:
    return app.run_sync("personal_summary", messages=messages, user_id="alice", workspace_id=workspace)


def all_memories(app: App, workspace: str = "w") -> list[Memory]:
    async def collect() -> list[Memory]:
        return [m async for batch in app.vector_store().iterate(workspace) for m in batch]

    return app.run_coroutine(collect())


T0 = datetime(2024, 5, 6, 9, 0)  # a Monday
# What the sample chat expires, on every store (the words before a memory's first comma): Oakland → Berkeley (the cat's
# name, said with it, stays); vegetarian, said in English and in Chinese → fish, and the assistant's restatement of it
SAMPLE_EXPIRED = {"I live in Oakland", "Also", "因为我吃素。", "Noted. I'll keep food suggestions vegetarian."}


def test_messages_become_time_stamped_memories() -> None:
    with App(overrides=EPHEMERAL) as app:
        response = summarize(app, [
            message("m1", "Yesterday I ran 5k around Lake Merritt in 31:20, my best time so far.", T0),
            message("m2", "Great job! Keep it up.", T0 + timedelta(minutes=1), role="assistant"),
            message("m3", "thanks!", T0 + timedelta(minutes=2)),
            message("m4", "I'm flying to Chicago next Thursday for a design conference.", T0 + timedelta(minutes=3)),
        ])  # fmt: skip
        memories = {m.source[0]: m for m in all_memories(app)}
    assert response.answer.startswith("added 3, updated 0, expired 0, skipped 0; 4 messages memorized")
    assert set(memories) == {"m1", "m3", "m4"}  # every user turn is a record, the pleasantry too; not the assistant's
    assert read_slots(memories["m3"]) == {} and memories["m3"].event_start is None  # a record, but no fact
    run = memories["m1"]
    assert (run.msg_year, run.msg_month, run.msg_day, run.msg_weekday, run.msg_hour) == (2024, 5, 6, 1, 9)
    assert (run.event_year, run.event_month, run.event_day) == (2024, 5, 5)  # "yesterday", from the message's time
    assert memories["m4"].event_start == datetime(2024, 5, 9)  # "next Thursday": the coming one (timeexpr rules)
    assert run.memory_type == "conversation" and run.target == "alice" and run.keywords


def test_a_memory_keeps_who_said_its_turn_in_which_session_and_what_its_image_shows() -> None:
    said = message("m1", "Here's what I finished last night!", T0)
    said["metadata"] = {"speaker": "Caroline", "session": 3, "caption": "a painting of a sunset over a lake",
                        "crm_ticket": "T-9"}  # fmt: skip
    with App(overrides=EPHEMERAL) as app:
        summarize(app, [said])
        [memory] = all_memories(app)
    assert memory.metadata["speaker"] == "Caroline" and memory.metadata["session"] == 3
    assert memory.metadata["caption"] == "a painting of a sunset over a lake" and "sunset" in memory.expanded_key
    assert "crm_ticket" not in memory.metadata  # the caller's other keys stay on the message


def test_two_turns_stay_two_records_and_the_same_words_again_add_nothing() -> None:
    """Issue 23 point 1, the turn is the record: a turn that sounds like an earlier one is its own memory, in its own
    words; the same words again add nothing new (the turn joins the sources of the memory that holds them)."""
    with App(overrides=EPHEMERAL) as app:
        summarize(app, [message("a", "I love hiking, it's my favourite way to spend a weekend.", T0)])
        second = summarize(app, [message("b", "Hiking is honestly my favourite thing.", T0 + timedelta(days=9))])
        third = summarize(app, [message("c", "Hiking is honestly my favourite thing.", T0 + timedelta(days=10))])
        memories = {m.source[0]: m for m in all_memories(app)}
        history = app.run_coroutine(app.vector_store().history("w"))
    assert "added 1" in second.answer and "updated 1" in third.answer
    assert memories["a"].content == "I love hiking, it's my favourite way to spend a weekend."
    assert memories["b"].content == "Hiking is honestly my favourite thing." and memories["b"].source == ["b", "c"]
    assert [e.event for e in history] == ["add", "add", "update"] and "the same again" in history[2].reason


MINUTE = timedelta(minutes=1)


def test_turns_that_only_sound_alike_stay_two_and_one_fact_said_again_is_one() -> None:
    """Two turns that sound alike and state no fact in common (no slot, event or value both name) are two records;
    a paraphrase naming the same person and place is one fact said again: one memory (LoCoMo dev's research into
    adoption agencies was folded into the next thing Caroline said, two turns later, and lost)."""
    research, goal = (
        message("a", "Caroline: Researching adoption agencies — it's been a dream to have a family and give a loving "
                "home to kids who need it.", T0),
        message("b", "Caroline: Thanks, Mel! My goal is to give kids a loving home. I'm truly grateful for all the "
                "support I've got from friends and mentors. Now the hard work starts to turn my dream into a reality. "
                "And here's the adoption agency I'm looking at.", T0 + MINUTE),
    )  # fmt: skip
    for said in (research, goal):
        said["metadata"] = {"speaker": "Caroline", "session": 2}
    with App(overrides=EPHEMERAL) as app:
        summarize(app, [research, goal])
        summarize(app, [message("c", "My sister Emma lives in Berlin.", T0 + timedelta(days=1)),
                        message("d", "Emma, my sister, is based in Berlin.", T0 + timedelta(days=30))])  # fmt: skip
        sources = sorted(m.source for m in all_memories(app))
    assert sources == [["a"], ["b"], ["c", "d"]]


def test_a_near_duplicate_fact_updates_and_keeps_the_words_it_replaced_findable() -> None:
    """A fact said again in other words (an observation: `flowmem add`, an LLM's fact) is one memory with the newer
    wording and both messages among its sources, and the words it replaced stay in its key (said_before): a question
    in the earlier words still finds it. The same words again add nothing; wording that comes back leaves the list; a
    replaced image caption joins it. (Said within one week: "a weekend" is the same coming weekend each time.)"""
    from flowmem.schema.memory import Message
    from flowmem.scoring.derive import memory_from_message
    from flowmem.vector_store.filters import MemoryFilter

    def fact(message_id: str, content: str, when: datetime, caption: str = "") -> Memory:
        said = Message(message_id=message_id, role="user", name="alice", content=content, time_created=when,
                       metadata={"caption": caption} if caption else {})  # fmt: skip
        return memory_from_message(said, workspace_id="w", target="alice", memory_type="observation")

    def add(memory: Memory) -> None:
        app.run_sync("personal_add", new_memories=[memory], user_id="alice", workspace_id="w", messages=[])

    first = "I love hiking, it's my favourite way to spend a weekend."
    with App(overrides=EPHEMERAL) as app:
        add(fact("a", first, T0, "a trail through a pine forest"))
        add(fact("b", "Hiking is honestly my favourite thing.", T0 + timedelta(days=1), "boots on a summit cairn"))
        [merged] = all_memories(app)
        found = app.run_coroutine(app.vector_store().lexical_search("w", "weekend pine", 5, MemoryFilter()))
        add(fact("b2", "Hiking is honestly my favourite thing.", T0 + timedelta(days=2)))
        add(fact("c", first, T0 + timedelta(days=3)))
        [back] = all_memories(app)
    assert merged.content == "Hiking is honestly my favourite thing." and merged.source == ["a", "b"]
    assert merged.metadata["said_before"] == [first, "a trail through a pine forest"]
    assert merged.metadata["caption"] == "boots on a summit cairn"
    assert "spend a weekend" in merged.expanded_key and [m.memory_id for m in found] == [merged.memory_id]
    assert back.content == first and back.source == ["a", "b", "b2", "c"]
    assert back.metadata["said_before"] == ["a trail through a pine forest", "Hiking is honestly my favourite thing."]


def test_a_move_expires_the_old_home_and_history_shows_it() -> None:
    with App(overrides=EPHEMERAL) as app:
        summarize(app, [message("p", "I live in Paris, in a tiny flat near the canal.", T0)])
        response = summarize(app, [message("b", "Big news: I moved to Berlin last month!", T0 + timedelta(days=60))])
        memories = {m.source[0]: m for m in all_memories(app)}
        history = app.run_coroutine(app.vector_store().history("w", memories["p"].memory_id))
        answer = app.run_sync("personal_retrieve", query="where do I live?", user_id="alice", workspace_id="w",
                              timestamp=T0 + timedelta(days=61))  # fmt: skip
    assert "expired 1" in response.answer
    assert memories["p"].status == "expired" and memories["b"].status == "valid"
    assert [(e.event, e.reason) for e in history] == [
        ("add", "new"),
        ("expire", f"residence: replaced by {memories['b'].memory_id} (paris → berlin)"),
    ]
    assert [m.memory_id for m in answer.memories] == [memories["b"].memory_id]  # retrieval skips expired memories


def test_keep_both_policy() -> None:
    with App(overrides=[*EPHEMERAL, "op.contra_repeat_op.params.policy=keep_both"]) as app:
        summarize(app, [message("p", "I live in Paris.", T0)])
        summarize(app, [message("b", "I moved to Berlin.", T0 + timedelta(days=1))])
        assert {m.status for m in all_memories(app)} == {"valid"}


def test_sample_chat_ingest_is_resumable_and_answers_time_scoped_questions(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FLOWMEM_HOME", str(tmp_path))
    code, _, err = run_cli(capsys, "ingest", str(chat_path()), "-u", "alice", "-w", "demo")
    assert code == 0, err
    lines = err.strip().splitlines()
    summary = next(line for line in lines if line.startswith("add "))
    assert "messages 261" in summary and "expire 4" in summary
    # Every message that is no memory is counted after the summary, per reason, with a few ids: every user turn is
    # a record (the pleasantries too), and so are the 9 replies that restate the user ("Got it: Temescal, Mochi, and
    # Sam.", chat-0006): only the assistant's other replies are left out
    at = lines.index(summary) + 1
    assert lines[at:] == [
        "skipped 121 of the 261 messages, by reason:",
        "   121  not the user's (role 'assistant')  e.g. chat-0002, chat-0004, chat-0008, …",
    ]
    code, _, err = run_cli(capsys, "ingest", str(chat_path()), "-u", "alice", "-w", "demo")
    assert err.strip().splitlines()[-1] == "messages already memorized 261"  # twice adds nothing
    with App() as app:
        memories = all_memories(app, "demo")
        expired = {m.content.split(",")[0] for m in memories if m.status == "expired"}
        assert expired == SAMPLE_EXPIRED
        restated = {m.source[0]: m.metadata["restates"] for m in memories if m.metadata.get("restates")}
        assert restated["chat-0006"] == "chat-0005" and len(restated) == 9
        assert all(m.msg_year == 2024 and m.msg_day > 0 for m in memories)
        assert sum(m.event_year > 0 for m in memories) >= 20
        response = app.run_sync("personal_retrieve", query="what did I do last weekend?", user_id="alice",
                                workspace_id="demo", timestamp=datetime(2024, 5, 15, 10))  # fmt: skip
    top = response.memories[:3]
    assert all(m.scores["time_match"] == 1.0 for m in top)
    assert any("外婆" in m.content for m in top)


WRITER = """
import sys
from flowmem.cli.main import main
sys.exit(main(["ingest", sys.argv[1], "-u", "alice", "-w", "demo", "--batch", "10"]))
"""


def test_killed_ingest_then_rerun_loses_nothing_and_duplicates_nothing(tmp_path: Path) -> None:
    killed, clean = tmp_path / "killed", tmp_path / "clean"

    def ingest(home: Path) -> subprocess.Popen[str]:
        return subprocess.Popen([sys.executable, "-c", WRITER, str(chat_path())], stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "FLOWMEM_HOME": str(home)})  # fmt: skip

    writer = ingest(killed)
    assert writer.stderr is not None
    for _ in range(8):  # let it get through several batches, then kill it mid-run
        writer.stderr.readline()
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait(timeout=60)
    for home in (killed, clean):
        finished = ingest(home)
        _, err = finished.communicate(timeout=300)
        assert finished.returncode == 0, err

    def state(home: Path) -> list[tuple[str, str, str]]:
        os.environ["FLOWMEM_HOME"] = str(home)
        try:
            with App() as app:
                return sorted((m.memory_id, m.status, m.content) for m in all_memories(app, "demo"))
        finally:
            os.environ.pop("FLOWMEM_HOME", None)

    assert state(killed) == state(clean)
    assert len(state(clean)) > 40


def test_ingest_bad_lines_and_memories_mode(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "chat.jsonl"
    bad.write_text(json.dumps(message("m1", "I live in Lisbon.", T0), default=str) + "\n{oops\n")
    code, _, err = run_cli(capsys, "ingest", str(bad), "-u", "alice", *EPHEMERAL)
    assert code == 2 and f"{bad} line 2" in err and "Traceback" not in err
    code, _, err = run_cli(capsys, "ingest", str(bad), "-u", "alice", "--skip-bad", *EPHEMERAL)
    assert code == 0 and "add 1" in err
    code, _, err = run_cli(capsys, "ingest", str(bad), *EPHEMERAL)
    assert code == 2 and "-u/--user" in err
    memories = tmp_path / "memories.jsonl"
    memories.write_text(json.dumps({"workspace_id": "w", "content": "Alice likes tea"}) + "\n")
    code, _, err = run_cli(capsys, "ingest", str(memories), "--memories", "-w", "w", *EPHEMERAL)
    assert code == 0 and "add 1" in err


def test_store_history_and_delete_by_source_message(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FLOWMEM_HOME", str(tmp_path))
    chat = tmp_path / "chat.jsonl"
    chat.write_text("".join(json.dumps(m, default=str) + "\n" for m in [
        message("p", "I live in Paris.", T0), message("b", "I moved to Berlin.", T0 + timedelta(days=3)),
    ]))  # fmt: skip
    assert run_cli(capsys, "ingest", str(chat), "-u", "alice")[0] == 0
    with App() as app:
        paris = next(m for m in all_memories(app, "default") if m.source == ["p"])
    code, out, _ = run_cli(capsys, "store", "history", paris.memory_id)
    assert code == 0
    assert [line.split()[2] for line in out.splitlines()[::2]] == ["add", "expire"]
    assert "expired: [valid] I live in Paris." in out
    code, out, _ = run_cli(capsys, "store", "history", paris.memory_id, "--json")
    assert [json.loads(line)["event"] for line in out.splitlines()] == ["add", "expire"]
    code, out, _ = run_cli(capsys, "store", "delete", "--source-message", "b", "-u", "alice")
    assert code == 0 and "deleted 1 of 1" in out
    with App() as app:
        assert [m.source for m in all_memories(app, "default")] == [["p"]]
    code, out, _ = run_cli(capsys, "store", "history")
    assert "delete" in out and "derived from b" in out
    code, _, err = run_cli(capsys, "store", "delete")
    assert code == 2 and "--source-message" in err


# -- the LLM paths, with the fake LLM ----------------------------------------------------------


def llm_app(replies: dict[str, str], *overrides: str) -> App:
    return App(
        config={"llm": {"default": {"backend": "fake", "params": {"by_prompt": replies, "replies": ["{}"]}}}},
        overrides=[*EPHEMERAL, *overrides],
    )


CHAT = [
    message("m0", "I adopted a grey cat called Mochi in February.", T0),
    message("m1", "Can you recommend a podcast?", T0 + timedelta(minutes=1)),
    message("m2", "My sister Grace is a nurse in San Rafael.", T0 + timedelta(minutes=2)),
]


@pytest.mark.parametrize(
    ("scores", "kept"),
    [('{"0": 3, "1": 0, "2": 2}', ["m0", "m2"]), ('```json\n[3, 0, 1]\n```', ["m0"]),
     ('{"0": 3, "1": "high", "7": 3}', ["m0", "m2"]), ("no idea", ["m0", "m2"])],
)  # fmt: skip
def test_info_filter_llm_scores(scores: str, kept: list[str]) -> None:
    # A message the reply leaves unscored gets its offline score, held to offline_score_threshold (1 here: m1, a
    # question, scores 0 offline; the shipped 0 would keep it as a record whatever the reply).
    replies = {"lasting personal information": scores, "facts worth remembering": "[]"}
    with llm_app(replies, "op.info_filter_op.params.offline_score_threshold=1") as app:
        response = summarize(app, CHAT)
        assert sorted(m.source[0] for m in all_memories(app)) == kept
    if scores != '{"0": 3, "1": 0, "2": 2}' and scores != "```json\n[3, 0, 1]\n```":
        assert any("offline score" in w for w in response.warnings)  # unscored messages fell back, with a warning


def test_get_observation_llm_facts_and_fallback() -> None:
    facts = json.dumps([
        {"message": 0, "content": "Alice adopted a grey cat named Mochi in February.", "when_to_use": "pets",
         "keywords": ["cat", "Mochi"]},
        {"message": 0, "content": "Alice's favourite podcast is about design.", "when_to_use": "media", "keywords": []},
        {"message": 9, "content": "out of range"}, {"content": "no message index"},
    ])  # fmt: skip
    with llm_app({"lasting personal information": '{"0": 3, "1": 0, "2": 3}', "facts worth remembering": facts}) as app:
        response = summarize(app, CHAT)
        memories = all_memories(app)
    by_type = {m.memory_type: [] for m in memories}
    for m in memories:
        by_type[m.memory_type].append(m)
    assert sorted(m.content for m in by_type["observation"]) == [
        "Alice adopted a grey cat named Mochi in February.",
        "Alice's favourite podcast is about design.",
    ]
    assert [m.source for m in by_type["conversation"]] == [["m2"]]  # the LLM left m2 out: kept as said
    assert any("no usable facts for 1 of 2" in w for w in response.warnings)
    assert response.usage.llm_calls == 2


def test_get_observation_llm_key_is_stored_beside_the_offline_key_and_dropped_by_an_edit() -> None:
    facts = json.dumps([
        {"message": 0, "content": "Alice adopted a grey cat named Mochi in February.", "when_to_use": "pets",
         "keywords": ["cat"], "key": "  pet cat Mochi;   rescue kitten; adopted February 2024 "},
        {"message": 2, "content": "Alice's sister Grace is a nurse in San Rafael.", "when_to_use": "family"},
    ])  # fmt: skip
    with llm_app({"lasting personal information": '{"0": 3, "1": 0, "2": 3}', "facts worth remembering": facts}) as app:
        summarize(app, CHAT)
        by_source = {m.source[0]: m for m in all_memories(app)}
        cat, grace = by_source["m0"], by_source["m2"]
        assert cat.metadata["llm_key"] == "pet cat Mochi; rescue kitten; adopted February 2024"
        rules_only = offline_key(cat)
        assert "said 6 May 2024 Monday" in rules_only
        assert cat.expanded_key == f"{rules_only}; pet cat Mochi; rescue kitten; adopted February 2024"
        assert "llm_key" not in grace.metadata and grace.expanded_key == offline_key(grace)

        async def found(query: str) -> list[str]:
            return [m.memory_id for m in await app.vector_store().lexical_search("w", query, 5)]

        assert app.run_coroutine(found("a rescue kitten?")) == [cat.memory_id]  # only in the LLM's key
        edited = app.run_coroutine(app.memories.update(cat.memory_id, "Alice has a black cat.", workspace_id="w"))
        assert "llm_key" not in edited.metadata and "Mochi" not in edited.expanded_key
        assert app.run_coroutine(found("a rescue kitten?")) == []


@pytest.mark.parametrize(
    ("decision", "statuses"),
    [('{"action": "expire", "target": 0}', ["expired", "valid"]), ('{"action": "skip", "target": 0}', ["valid"]),
     ('{"action": "add", "target": null}', ["valid", "valid"]), ("garbage", ["valid", "valid"])],
)  # fmt: skip
def test_contra_repeat_llm_policy(decision: str, statuses: list[str]) -> None:
    replies = {"lasting personal information": '{"0": 3}', "facts worth remembering": "[]", "consistent": decision}
    with llm_app(replies, "op.contra_repeat_op.params.policy=llm") as app:
        summarize(app, [message("a", "I work at Brightledger as a designer.", T0)])
        response = summarize(app, [message("b", "I joined a new startup called Foxglove.", T0 + timedelta(days=30))])
        memories = sorted(all_memories(app), key=lambda m: m.created_at)
    assert [m.status for m in memories] == statuses
    if decision == "garbage":
        assert any("decided by the rules" in w for w in response.warnings)


def test_offline_the_heuristics_threshold_keeps_first_person_statements_its_word_lists_miss() -> None:
    chat = [
        message("m0", "My go-to is an oat milk cortado btw.", T0),  # offline score 1: no life-topic word
        message("m1", "I know, I know", T0 + timedelta(minutes=1)),  # an acknowledgement: 0
        message("m2", "Can you recommend a podcast?", T0 + timedelta(minutes=2)),  # a question: 0
    ]
    with App(overrides=EPHEMERAL) as app:  # the shipped offline profile, offline_score_threshold 0: every turn
        summarize(app, chat)
        assert sorted(m.source[0] for m in all_memories(app)) == ["m0", "m1", "m2"]
    with App(overrides=[*EPHEMERAL, "op.info_filter_op.params.offline_score_threshold=1"]) as app:
        response = summarize(app, chat)
        assert [m.source[0] for m in all_memories(app)] == ["m0"]
        reasons = {s.message_id: s.reason for s in response.outputs["skipped_messages"]}
        assert reasons == {"m1": "noise: pleasantry", "m2": "noise: question"}  # left out, and said why
    with App(overrides=[*EPHEMERAL, "op.info_filter_op.params.offline_score_threshold=2"]) as app:
        summarize(app, chat)
        assert all_memories(app) == []


def test_pleasantries_kept_as_records_state_no_fact_and_supersede_nothing() -> None:
    """The turn is the record (issue 23): noise is kept as said, but no slot fact or event comes of it."""
    noise = ["thanks!", "ok cool", "haha yes", "I know, I know", "We made it!", "Can you recommend a podcast?"]
    with App(overrides=EPHEMERAL) as app:
        summarize(app, [message("home", "I live in Paris, in a tiny flat near the canal.", T0)])
        response = summarize(app, [message(f"n{i}", text, T0 + timedelta(days=1, minutes=i))
                                   for i, text in enumerate(noise)])  # fmt: skip
        memories = {m.source[0]: m for m in all_memories(app)}
    assert "expired 0" in response.answer
    assert memories["home"].status == "valid" and read_slots(memories["home"]) == {"residence": "paris"}
    assert {m.content for key, m in memories.items() if key != "home"} == set(noise)
    assert all(read_slots(m) == {} for key, m in memories.items() if key != "home")


def test_with_an_llm_its_scores_meet_the_ops_threshold_and_unscored_messages_the_offline_one() -> None:
    # The LLM scores m0 and m1 (3 and 1) and leaves m2 unscored: m1's LLM 1 is under the op's 2; m2 falls back to
    # its offline score (1), held to the offline threshold (1 here; the shipped profile's 0 keeps every turn).
    chat = [*CHAT[:2], message("m2", "My go-to is an oat milk cortado btw.", T0 + timedelta(minutes=2))]
    chat[1] = message("m1", "I walked to work today.", T0 + timedelta(minutes=1))
    replies = {"lasting personal information": '{"0": 3, "1": 1}', "facts worth remembering": "[]"}
    with llm_app(replies, "op.info_filter_op.params.offline_score_threshold=1") as app:
        summarize(app, chat)
        assert sorted(m.source[0] for m in all_memories(app)) == ["m0", "m2"]


def test_the_same_activity_on_two_days_is_two_events_and_a_repeat_on_one_day_is_one() -> None:
    """Issue 23: 'Yesterday I went climbing with Marcus' said on 3 and 17 March is two climbing days, not one
    memory with the first date; the same words again on the same day are a repeat (one memory)."""
    climb = "Yesterday I went climbing with Marcus"
    march3, march17 = datetime(2025, 3, 3, 20), datetime(2025, 3, 17, 20)
    with App(overrides=EPHEMERAL) as app:
        summarize(app, [message("m1", climb, march3), message("m2", climb, march17)])
        summarize(app, [message("m3", climb, march17 + timedelta(hours=1))])  # the same day again: one event
        climbs = [m for m in all_memories(app) if "climbing" in m.content and m.status == "valid"]
    days = sorted((m.event_time.date() if m.event_time else None) for m in climbs)
    assert [str(d) for d in days] == ["2025-03-02", "2025-03-16"]


def test_a_near_duplicate_must_share_its_content_words_not_only_its_vector() -> None:
    """Turns that only sound alike are two records (LoCoMo's pottery class was replaced by the piano at cosine
    0.93); a paraphrase of one fact shares most of its content words, in English and in Chinese."""
    from flowmem.ops.contra_repeat_op import same_words

    def said(text: str) -> Memory:
        return Memory(workspace_id="w", content=text)

    pottery = said("Melanie: Wow, Caroline! That's great! I just signed up for a pottery class")
    piano = said("Caroline: Wow, Melanie! I'm getting creative too, just learning the piano")
    assert not same_words(pottery, piano, 0.5)
    assert same_words(pottery, piano, 0.0)  # 0: the cosine alone decides, as before
    assert same_words(said("My sister Emma lives in Berlin."), said("Emma, my sister, is based in Berlin."), 0.5)
    assert same_words(said("我是素食者。"), said("我吃素。"), 0.5)
    # Two texts that each say several things of their own are two facts, however many words they share (session 15: the
    # uncle's old Jetta was merged into the BYD he bought, and its words left the record)
    jetta = said("我舅那辆开了十年的老捷达还是很皮实")
    byd = said("我舅上个月又买了辆比亚迪，给我舅妈上下班开，他自己还开捷达")
    assert not same_words(byd, jetta, 0.5)
    hiking = said("I love hiking, it's my favourite way to spend a weekend.")
    assert same_words(said("Hiking is honestly my favourite thing."), hiking, 0.5)  # shorter: adds two words of its own

    # Who says a turn and whom it is said to are no words it shares with another (LoCoMo's turns carry the speaker's
    # label and call the listener by name); what it says still is.
    def turn(text: str) -> Memory:
        return Memory(workspace_id="w", content=text, metadata={"speaker": text.split(":")[0]})

    assert same_words(said("Caroline: Hey Mel! Good to see you!"), said("Caroline: Wow, Mel. That was great!"), 0.5)
    assert not same_words(turn("Caroline: Hey Mel! Good to see you!"), turn("Caroline: Wow, Mel. That was great!"), 0.5)
    assert not same_words(said("Thanks, Melanie! You rock."), said("Wow, Melanie, that painting is lovely!"), 0.5)
    assert same_words(
        turn("Caroline: Yay! Next month I'm having an LGBTQ art show with my paintings - can't wait!"),
        turn("Caroline: I'm putting together an LGBTQ art show next month and I'm gonna show my paintings."),
        0.5,
    )


def test_an_attribute_replaced_takes_its_clause_not_the_whole_message() -> None:
    """ "Olu has moved to the Berlin office, so my new manager is Hannah Reyes", then "I report to Craig Bell now": the
    manager clause is over, Olu's move is still true (attribute statements are not split into facts when written)."""
    from flowmem.schema.memory import Message

    def said(message_id: str, content: str, days: int) -> Message:
        return Message(message_id=message_id, role="user", name="alice", content=content,
                       time_created=T0 + timedelta(days=days))  # fmt: skip

    with App(overrides=EPHEMERAL) as app:
        summarize(app, [said("m1", "Team reshuffle: Olu has moved to the Berlin office, so my new manager is Hannah "
                                   "Reyes.", 0)])  # fmt: skip
        summarize(app, [said("m2", "Hannah's left Fenwick. I report to Craig Bell now.", 30)])
        memories = all_memories(app)
    valid = [m.content for m in memories if m.status == "valid"]
    assert any("Berlin office" in text and "Hannah" not in text for text in valid), valid
    assert not any("manager is Hannah" in text for text in valid), valid


@pytest.mark.parametrize(
    ("first", "then", "kept", "gone"),
    [
        # a turn that says several things of the user: the clause of the home goes, the job stays current
        ("北漂第三年，在望京一家互联网公司做运营，住在天通苑，单程一个半小时。", "受不了了，搬到了酒仙桥，跟人合租。",
         "在望京一家互联网公司做运营", "天通苑"),
        ("me and sam rent a 1-bed in Headingley, leeds. sam's a nurse at the LGI", "GOT THE KEYS to our house in "
         "Haxby today!!!", "sam's a nurse at the LGI", "Headingley"),
        # what completes the home's clause goes with it; a statement of the slot in other words leaves nothing
        ("I live in Paris, in a tiny flat near the canal.", "Big news: I moved to Berlin last month!", None, "Paris"),
        ("红烧肉、清蒸鱼，还特意给我做了素的红烧豆腐，因为我吃素。", "I've decided to start eating fish again.",
         "红烧肉、清蒸鱼", "吃素"),
    ],
)  # fmt: skip
def test_a_slot_replaced_takes_its_clause_and_leaves_what_else_the_turn_said(
    first: str, then: str, kept: str | None, gone: str
) -> None:
    from flowmem.schema.memory import Message

    def said(message_id: str, content: str, days: int) -> Message:
        return Message(message_id=message_id, role="user", name="alice", content=content,
                       time_created=T0 + timedelta(days=days))  # fmt: skip

    with App(overrides=EPHEMERAL) as app:
        summarize(app, [said("m1", first, 0)])
        summarize(app, [said("m2", then, 30)])
        memories = all_memories(app)
    assert {m.status for m in memories if gone in m.content and "m1" in m.source} == {"expired"}
    left = [m.content for m in memories if m.status == "valid" and "m1" in m.source]
    assert not any(gone in text for text in left), left
    assert (kept is None and not left) or any(kept and kept in text for text in left), left


def test_what_a_change_left_of_an_older_memory_is_replaced_later_in_the_same_batch() -> None:
    """A memory a change derives (what else a turn said) has no vector until the batch is written; a later message of
    the same batch holding its slot still replaces it (the whole chat sent in one call)."""
    from flowmem.schema.memory import Message

    said = [
        "我妈今年八十二，一个人住在无锡老房子，请了个住家保姆王阿姨照顾她。",
        "王阿姨年底要回安徽老家，不干了，我们在到处找新保姆。",
        "和我哥商量好了，妈下周一搬进颐和养老院。",
    ]
    with App(overrides=EPHEMERAL) as app:
        summarize(app, [Message(message_id=f"m{i}", role="user", name="alice", content=text,
                                time_created=T0 + timedelta(days=30 * i)) for i, text in enumerate(said)])  # fmt: skip
        memories = all_memories(app)
    valid = [m.content for m in memories if m.status == "valid"]
    assert not any("无锡老房子" in text or "保姆王阿姨" in text for text in valid), valid
    assert any("颐和养老院" in text for text in valid), valid
