"""Flow inputs: the values a caller gives a flow run (query, scope, messages, timestamp, …).

Standard inputs are defined here, once, with their types. A flow may accept more
(``flow.<name>.inputs`` in the config); those are passed through untyped. Which inputs a flow
*requires* is derived from its ops: every required read that no upstream op writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Annotated, Any

from pydantic import AfterValidator, Field, TypeAdapter

from flowmem.schema.memory import Message
from flowmem.schema.timeparts import WallClock


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


@dataclass(frozen=True)
class InputSpec:
    """A named flow input.

    Attributes:
        name: The input's key in the context.
        type: The Python type values are validated (and coerced) to.
        description: One line for ``flowmem flows`` and error messages.
        default: Used when the caller gives nothing; ``MISSING`` for none.
        cli: The CLI option that sets it, if it has a dedicated one.
    """

    name: str
    type: Any
    description: str
    default: Any = MISSING
    cli: str = ""

    @cached_property
    def adapter(self) -> TypeAdapter[Any]:
        return TypeAdapter(self.type)

    @property
    def has_default(self) -> bool:
        return self.default is not MISSING

    def hint(self) -> str:
        how = f"{self.cli} or --input {self.name}=…" if self.cli else f"--input {self.name}=…"
        return f"give it with {how} (CLI) or {self.name}=… (Python)"


STANDARD_INPUTS: dict[str, InputSpec] = {}


def define_input(name: str, type_: Any, description: str, *, default: Any = MISSING, cli: str = "") -> InputSpec:
    """Define a standard flow input every flow accepts. Redefining a name raises ``ValueError``."""
    if name in STANDARD_INPUTS:
        raise ValueError(f"flow input '{name}' is already defined")
    spec = InputSpec(name, type_, description, default, cli)
    STANDARD_INPUTS[name] = spec
    return spec


def _named(what: str) -> AfterValidator:
    """An id of the call's scope, by the store's rule and in its words (a blank user would match every unnamed
    message, and every memory without a target)."""

    def check(value: str) -> str:
        from flowmem.vector_store.rules import scope_problem

        problem = scope_problem(what, value)
        if problem is not None:
            raise ValueError(problem.message)
        return value

    return AfterValidator(check)


UserId = Annotated[str, _named("user")]
SessionId = Annotated[str, _named("session")]
WorkspaceId = Annotated[str, _named("workspace")]


define_input("query", str, "the question, or text to recall memories for", cli="-q/--query")
define_input("user_id", UserId, "whose memories: the person the memories are about", cli="-u/--user")
define_input(
    "workspace_id", WorkspaceId, "tenant scope; no read or write leaves it", default="default", cli="-w/--workspace"
)
define_input("messages", list[Message], "chat messages (role, name, content, time_created, memorized)")
define_input("timestamp", WallClock, "when the query is asked (default: now; wall-clock time, zone dropped)")
define_input("top_k", Annotated[int, Field(ge=1)], "how many memories to return (1 or more)")
# No dedicated `flowmem run` option: `--input session_id=…` there (`flowmem context` has its own -s/--session).
define_input("session_id", SessionId, "the chat session whose short-term memory a flow reads and updates")
define_input("reply", str, "the assistant's answer to the session's previous message (recorded before the new one)")
define_input(
    "session_messages", list[Message], "messages appended to the chat session as given, instead of query and reply"
)
# Set by the engine when a flow writes to a store (flow.executor.fence_writes); a caller passes the one of an
# earlier flow whose reads a later write depends on (a chat turn's flush). Not for users: no CLI option.
define_input(
    "write_fences",
    Any,
    "the erasure fences the flow's writes are prepared under, per vector store (set by the engine)",
    default=None,
)
