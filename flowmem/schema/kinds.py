"""Plain names shared by the schema and the CLI's parser, importable without pydantic: the kinds of
memories, their statuses, and the workspace and flows a call uses when it names none."""

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

# The shipped flows (configs/default.yaml) the memory service, the CLI, the HTTP API and the evaluation harness
# run when a caller names none: named here once.
SEARCH_FLOW = "personal_retrieve"  # recall a user's memories for a query (read-only)
WRITE_FLOW = "personal_summary"  # chat messages into memories
ADD_TEXT_FLOW = "personal_add"  # one fact, stored as given
CONTEXT_FLOW = "chat_context"  # a chat turn: the session's window and the memories for the prompt
APPEND_FLOW = "session_append"  # messages appended to a chat session as given
