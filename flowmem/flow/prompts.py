"""Prompts live in YAML files beside the ops that use them (``ops/prompts/<name>.yaml``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from flowmem.core.safe_yaml import safe_load


@dataclass(frozen=True)
class Prompt:
    """A system prompt, a user-message template (``str.format`` fields) and optional few-shot examples."""

    system: str
    user: str
    examples: list[dict[str, str]] = field(default_factory=list)


@cache
def load_prompt(name: str) -> Prompt:
    """``ops/prompts/<name>.yaml`` with keys ``system``, ``user`` and optionally ``examples``."""
    text = resources.files("flowmem.ops").joinpath(f"prompts/{name}.yaml").read_text(encoding="utf-8")
    data = safe_load(text)
    return Prompt(system=data["system"].strip(), user=data["user"].strip(), examples=data.get("examples") or [])
