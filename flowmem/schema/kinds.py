"""The kinds of memories and their statuses: plain names, importable without pydantic (the CLI's parser uses them)."""

from __future__ import annotations

from typing import Literal

MemoryType = Literal["conversation", "observation", "obs_customized", "insight"]
MEMORY_TYPES: tuple[MemoryType, ...] = ("conversation", "observation", "obs_customized", "insight")
MemoryStatus = Literal["valid", "expired"]
MEMORY_STATUSES: tuple[MemoryStatus, ...] = ("valid", "expired")
