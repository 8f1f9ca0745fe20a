"""Plain names shared by the schema and the CLI's parser, importable without pydantic: the kinds of
memories, their statuses, and the workspace a call uses when it names none."""

from __future__ import annotations

from typing import Literal

MemoryType = Literal["conversation", "observation", "obs_customized", "insight"]
MEMORY_TYPES: tuple[MemoryType, ...] = ("conversation", "observation", "obs_customized", "insight")
MemoryStatus = Literal["valid", "expired"]
MEMORY_STATUSES: tuple[MemoryStatus, ...] = ("valid", "expired")
DEFAULT_WORKSPACE = "default"
