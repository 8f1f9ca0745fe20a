"""Plain names shared by the schema and the CLI's parser, importable without pydantic: the kinds of
memories, their statuses, and the workspace a call uses when it names none."""

from __future__ import annotations

from typing import Literal

MemoryType = Literal["conversation", "observation", "obs_customized", "insight", "entity"]
MEMORY_TYPES: tuple[MemoryType, ...] = ("conversation", "observation", "obs_customized", "insight", "entity")
# What a person said or what was concluded from it: the memories retrieval recalls and the write path compares new
# memories with. An ``entity`` memory is the rolling description of one person, place or thing the user mentions
# (``entity_memory_op``): derived from these, delivered through the ``entities`` context block, so recalling it too
# would say the same thing twice, and comparing new memories with it could skip a new fact as its "duplicate".
RECALLED_TYPES: tuple[MemoryType, ...] = ("conversation", "observation", "obs_customized", "insight")
MemoryStatus = Literal["valid", "expired"]
MEMORY_STATUSES: tuple[MemoryStatus, ...] = ("valid", "expired")
DEFAULT_WORKSPACE = "default"
