"""The LoCoMo long-term conversational memory benchmark (Maharana et al., ACL 2024): reading its files.

A file is a list of samples, each with a ``conversation`` (``speaker_a``, ``speaker_b``,
``session_N`` turn lists with ``dia_id``s like ``D1:3``, ``session_N_date_time`` like
``1:56 pm on 8 May, 2023``) and ``qa`` (question, evidence ``dia_id``s, category 1 multi-hop,
2 temporal, 3 open-domain, 4 single-hop, 5 adversarial). Evidence ids are normalised
(``D:11:26`` → ``D11:26``, ``D8:6; D9:17`` and ``D9:1 D4:4 D4:6`` → several ids, ``D30:05`` → ``D30:5``);
ids that still name no turn are kept apart (``Question.missing_evidence``) and reported, never a crash.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from flowmem.core.errors import InputError, Problem
from flowmem.schema.memory import Memory

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_SESSION = re.compile(r"^session_(\d+)$")
# One id (``D1:3``, ``D:11:26``, ``D 2 : 3``), a run of separators (``;``, ``,``, whitespace), or anything else —
# tried in that order at each position, so ``D9:1 D4:4 D4:6`` is three ids and ``D 2 : 3`` one.
_EVIDENCE_TOKEN = re.compile(r"(?P<id>D\s*:?\s*(\d+)\s*:\s*0*(\d+))|(?P<sep>[\s;,]+)|(?P<other>[^\s;,]+)")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: int
    when: datetime
    caption: str = ""


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: tuple[str, ...]
    missing_evidence: tuple[str, ...] = ()


@dataclass
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    turns: list[Turn]
    questions: list[Question] = field(default_factory=list)

    @property
    def last_time(self) -> datetime:
        return max(turn.when for turn in self.turns)


def normalise_dia_ids(raw: Any) -> list[str]:
    """Evidence ids in canonical ``D<session>:<turn>`` form; unparsable pieces are kept as given.

    A list item may hold several ids separated by ``;``, ``,`` or whitespace (``D8:6; D9:17``,
    ``D9:1 D4:4 D4:6``); a malformed id (``D:11:26``, ``D30:05``, ``D 2 : 3``) is repaired.
    """
    items = raw if isinstance(raw, list) else [raw]
    found: list[str] = []
    for item in items:
        for match in _EVIDENCE_TOKEN.finditer(str(item)):
            if match.group("id"):
                found.append(f"D{int(match.group(2))}:{int(match.group(3))}")
            elif match.group("other"):
                found.append(match.group("other"))
    return found


def parse_session_time(text: str) -> datetime:
    """``1:56 pm on 8 May, 2023`` → ``datetime(2023, 5, 8, 13, 56)``."""
    return datetime.strptime(" ".join(text.split()), "%I:%M %p on %d %B, %Y")


def load(path: str | Path) -> list[Conversation]:
    """Read a LoCoMo file.

    Raises:
        InputError: Not readable, not JSON, or not in the LoCoMo format (naming what is wrong).
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(Problem(str(path), f"cannot be read: {exc.strerror or exc}")) from None
    except json.JSONDecodeError as exc:
        raise InputError(Problem(str(path), f"is not JSON: {exc}")) from None
    if not isinstance(data, list):
        raise InputError(Problem(str(path), "a LoCoMo file is a JSON list of samples"))
    conversations = []
    for i, sample in enumerate(data):
        try:
            conversations.append(_conversation(sample, i))
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(Problem(f"{path} sample {i}", f"is not in the LoCoMo format: {exc!r}")) from None
    return conversations


def _conversation(sample: dict[str, Any], index: int) -> Conversation:
    conv = sample["conversation"]
    turns: list[Turn] = []
    for key, value in conv.items():
        match = _SESSION.match(key)
        if not match or not isinstance(value, list):
            continue
        session = int(match.group(1))
        when = parse_session_time(conv[f"{key}_date_time"])
        for turn in value:
            turns.append(
                Turn(
                    dia_id=normalise_dia_ids(turn["dia_id"])[0],
                    speaker=turn["speaker"],
                    text=turn["text"],
                    session=session,
                    when=when,
                    caption=turn.get("blip_caption") or "",
                )
            )
    known = {turn.dia_id for turn in turns}
    questions = []
    for qa in sample.get("qa", []):
        category = int(qa.get("category", 0))
        if category not in CATEGORIES:
            continue
        evidence = normalise_dia_ids(qa.get("evidence") or [])
        questions.append(
            Question(
                text=str(qa["question"]),
                category=category,
                evidence=tuple(e for e in evidence if e in known),
                missing_evidence=tuple(e for e in evidence if e not in known),
            )
        )
    sample_id = str(sample.get("sample_id") or f"sample-{index}")
    return Conversation(sample_id, (conv["speaker_a"], conv["speaker_b"]), turns, questions)


def turn_memories(conversation: Conversation, workspace: str, target: str) -> list[Memory]:
    """One ``conversation`` memory per turn; message time = its session's date (turns a second apart)."""
    memories = []
    for order, turn in enumerate(conversation.turns):
        said = turn.when + timedelta(seconds=order)
        memory = Memory(
            workspace_id=workspace,
            memory_id=turn.dia_id,
            target=target,
            memory_type="conversation",
            content=f"{turn.speaker}: {turn.text}",
            created_at=said,
            updated_at=said,
            source=[turn.dia_id],
            metadata={"dia_id": turn.dia_id, "speaker": turn.speaker, "session": turn.session,
                      **({"caption": turn.caption} if turn.caption else {})},
        ).with_message_time(said)  # fmt: skip
        memories.append(memory)
    return memories
