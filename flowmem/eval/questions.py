"""Questions for ``flowmem eval questions``: what a user asks, and the memories that answer it.

A question file is JSONL, one question per line::

    {"id": "q05", "question": "what did I do last weekend?", "answers": ["alice-0082", "alice-0084"],
     "asked_at": "2024-06-12T20:00", "lang": "en", "tags": ["time"], "user": "alice"}

``answers`` are memory ids of the memories file; every one must name a valid (not expired) memory
of the question's ``user`` (default ``alice``), or the file is refused — a typo must not pass for a
miss. ``asked_at`` is the query timestamp; without it a question is asked at the newest
``updated_at`` of the memories. The questions shipped with flowmem, on the bundled sample
(``flowmem/eval/samples/questions.jsonl``, CC0), are described in ``flowmem/eval/samples/README.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from flowmem.core.errors import InputError, Problem
from flowmem.eval.records import load_records
from flowmem.schema.memory import Memory


class Question(BaseModel):
    """One question and the ids of the memories that answer it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    answers: list[str] = Field(min_length=1)
    asked_at: datetime | None = None
    lang: Literal["en", "zh"] = "en"
    tags: list[str] = Field(default_factory=list)
    user: str = "alice"


def shipped_questions_path() -> Path:
    """The questions on the bundled sample (``flowmem/eval/samples/questions.jsonl``, CC0)."""
    return Path(str(resources.files("flowmem.eval.samples").joinpath("questions.jsonl")))


def load(path: str | Path) -> list[Question]:
    """The questions of a JSONL file; every bad line is reported at once (with its number).

    Raises:
        InputError: The file is missing, lines are not questions, or two share an id.
    """
    return load_records(path, Question, "question")


def check_answers(questions: Sequence[Question], memories: Sequence[Memory], source: str) -> None:
    """Refuse answers that name no valid memory of the question's user, every one at once.

    Raises:
        InputError: Naming each question, the id, and why it cannot be an answer.
    """
    by_id = {memory.memory_id: memory for memory in memories}
    problems = []
    for question in questions:
        where = f"{source} question {question.id}"
        for answer in question.answers:
            memory = by_id.get(answer)
            if memory is None:
                examples = ", ".join(list(by_id)[:3])
                problems.append(Problem(where, f"answer {answer!r} names no memory (ids are like {examples})"))
            elif memory.status != "valid":
                problems.append(Problem(where, f"answer {answer!r} is {memory.status}; an answer is a valid memory"))
            elif memory.target != question.user:
                why = f"is about {memory.target!r}, not the asking user {question.user!r} (add a 'user' field)"
                problems.append(Problem(where, f"answer {answer!r} {why}"))
    if problems:
        raise InputError(problems)
