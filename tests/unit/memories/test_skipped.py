"""Nothing dropped silently: every message an add leaves out is counted by reason (issue 23, point 5)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from flowmem import App
from flowmem.core.errors import InputError
from flowmem.memories import AddResult
from flowmem.memories.results import SKIPPED_IDS_KEPT
from flowmem.schema.actions import SkippedMessage
from flowmem.schema.memory import Message

EPHEMERAL = ["vector_store.default.backend=memory", "embedding_model.default.backend=hash"]
T0 = datetime(2024, 5, 6, 9, 0)


def said(message_id: str, content: str, name: str = "alice", role: str = "user", minutes: int = 0) -> dict[str, Any]:
    return {"message_id": message_id, "role": role, "name": name, "content": content,
            "time_created": (T0 + timedelta(minutes=minutes)).isoformat()}  # fmt: skip


def skipped(*pairs: tuple[str, str]) -> list[SkippedMessage]:
    return [SkippedMessage(message_id=i, reason=r) for i, r in pairs]


def test_add_result_counts_skips_by_reason_and_keeps_a_few_ids_of_each() -> None:
    result = AddResult()
    result.skip(
        skipped(("m1", "noise: pleasantry"), ("m2", "not the user's (name 'bob')"), ("m3", "noise: pleasantry"))
    )
    later = AddResult(messages=2)
    later.skip(skipped(*((f"b{i}", "not the user's (name 'bob')") for i in range(SKIPPED_IDS_KEPT + 5))))
    later.skip(skipped(("m0", "already memorized")))
    result.merge(later)
    assert result.skipped == {"noise: pleasantry": 2, "not the user's (name 'bob')": SKIPPED_IDS_KEPT + 6,
                              "already memorized": 1}  # fmt: skip
    assert result.already_memorized == 1
    bob = result.skipped_ids["not the user's (name 'bob')"]
    assert len(bob) == SKIPPED_IDS_KEPT and bob[:2] == ["m2", "b0"]  # bounded: examples, the first ones
    data = result.to_dict()
    assert data["skipped"] == {"not the user's (name 'bob')": SKIPPED_IDS_KEPT + 6, "noise: pleasantry": 2,
                               "already memorized": 1}  # fmt: skip
    assert list(data["skipped"]) == ["not the user's (name 'bob')", "noise: pleasantry", "already memorized"]
    assert data["skipped_ids"]["noise: pleasantry"] == ["m1", "m3"] and data["already_memorized"] == 1
    assert result.skipped_summary(examples=2, leave_out={"already memorized"}) == [
        f"{SKIPPED_IDS_KEPT + 6:>6}  not the user's (name 'bob')  e.g. m2, b0, …",
        "     2  noise: pleasantry  e.g. m1, m3",
    ]


NOT_THE_USERS = {"not the user's (role 'assistant')": 1, "not the user's (name 'bob')": 1, "empty": 1}
NOISE = {"noise: pleasantry": 1, "noise: question": 1}


@pytest.mark.parametrize(
    ("overrides", "left_out"),
    [
        ([], NOT_THE_USERS),  # the shipped offline profile: every user turn is a record, the pleasantry too
        (["op.info_filter_op.params.offline_score_threshold=1"], {**NOT_THE_USERS, **NOISE}),  # noise left out
    ],
)
def test_an_add_counts_every_message_it_leaves_out_with_its_reason(
    overrides: list[str], left_out: dict[str, int]
) -> None:
    messages = [
        said("m1", "I adopted a cat named Miso last week."),
        said("m2", "Lovely! What colour is she?", name="assistant", role="assistant", minutes=1),
        said("m3", "thanks!", minutes=2),
        said("m4", "Can you recommend a vet?", minutes=3),
        said("m5", "I started a new job at Acme.", name="bob", minutes=4),
        said("m6", "   ", minutes=5),
    ]
    with App(overrides=[*EPHEMERAL, *overrides]) as app:
        first = app.memories.sync.add(messages, user_id="alice", workspace_id="w")
        again = app.memories.sync.add(messages, user_id="alice", workspace_id="w")
    assert first.counts["add"] == 6 - sum(left_out.values()) and first.messages == 6
    assert first.skipped == left_out
    assert first.skipped_ids["not the user's (name 'bob')"] == ["m5"] and first.already_memorized == 0
    assert again.skipped == {"already memorized": 6} and again.to_dict()["skipped_ids"]["already memorized"][0] == "m1"


def test_messages_none_of_which_is_the_users_are_refused_naming_the_names_found() -> None:
    messages = [said(f"m{i}", "I live in Porto.", name="bob", minutes=i) for i in range(3)]
    messages.append(said("r", "Nice!", name="assistant", role="assistant", minutes=9))
    with App(overrides=EPHEMERAL) as app:
        with pytest.raises(InputError) as caught:
            app.memories.sync.add(messages, user_id="alice", workspace_id="w")
        assert app.memories.sync.list(workspace_id="w", limit=None).total == 0  # nothing written
        # A message without a name is the user's (a transcript of one side): accepted
        unnamed = app.memories.sync.add([said("u", "I live in Porto.", name="")], user_id="alice", workspace_id="w")
    message = str(caught.value)
    assert "no message of the 4 is from user 'alice'" in message
    assert "names found: 'bob' (3), besides 1 assistant messages" in message and "-u NAME" in message
    assert unnamed.counts["add"] == 1


def test_is_users_is_the_write_paths_rule() -> None:
    def msg(name: str, role: Any = "user") -> Message:
        return Message(role=role, name=name, content="x")

    assert msg("Alice ").is_users("alice") and msg("").is_users("alice")
    assert not msg("bob").is_users("alice") and not msg("alice", "assistant").is_users("alice")
    assert SkippedMessage.not_users(msg(" bob ")).reason == "not the user's (name 'bob')"
    assert SkippedMessage.not_users(msg("", "assistant")).reason == "not the user's (role 'assistant')"
