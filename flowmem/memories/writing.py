"""Adding memories: messages through the write flow, or one text as given (see :meth:`Memories.add`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from flowmem.core.errors import DegradedError, InputError, Problem
from flowmem.keys import MEMORY_ACTIONS, SKIPPED_MESSAGES
from flowmem.memories.results import AddResult, strict_stop
from flowmem.schema.actions import ALREADY_MEMORIZED, SkippedMessage
from flowmem.schema.memory import Memory, Message, new_id
from flowmem.vector_store.rules import check_scope

if TYPE_CHECKING:
    from flowmem.memories.service import Memories
    from flowmem.vector_store.erasure import Fence

Progress = Callable[[int, int, AddResult], None]
WHOLE_WORKSPACE: Any = object()  # scope()'s user when the call is not scoped to one


async def add_messages(
    core: Memories,
    messages: list[Message],
    user_id: str,
    workspace_id: str,
    flow: str,
    batch: int,
    progress: Progress | None,
    strict: bool = False,
    write_fences: dict[str, Fence] | None = None,
) -> AddResult:
    """``write_fences``: the erasure fences of an earlier read these messages came from (a chat turn's session);
    by default each batch's run reads its own (flowmem.flow.executor.fence_writes)."""
    core.app.flow(flow)  # an invalid flow fails before anything is written
    messages = sorted(messages, key=lambda m: m.time_created)
    done = await core.store.memorized(workspace_id, user_id, [m.message_id for m in messages])
    todo = [m for m in messages if m.message_id not in done and not m.memorized]
    result = AddResult()
    result.skip(
        SkippedMessage(message_id=m.message_id, reason=ALREADY_MEMORIZED)
        for m in messages
        if m.message_id in done or m.memorized
    )
    for start in range(0, len(todo), batch):
        chunk = todo[start : start + batch]
        try:
            extra = {} if write_fences is None else {"write_fences": write_fences}
            response = await core.app.run(
                flow, strict=strict, messages=chunk, user_id=user_id, workspace_id=workspace_id, **extra
            )
        except DegradedError as exc:
            raise strict_stop(exc, result, f"messages {start + 1}-{start + len(chunk)} of {len(todo)}") from exc
        actions = response.output(MEMORY_ACTIONS) or []
        skipped = response.output(SKIPPED_MESSAGES) or []
        result.merge(
            AddResult(
                actions=list(actions), messages=len(chunk), warnings=list(response.warnings),
                degradations=list(response.degradations),
            )
        )  # fmt: skip
        result.skip(skipped)
        if progress is not None:
            progress(start + len(chunk), len(todo), result)
    return result


def check_users(messages: Sequence[Message], user_id: str) -> None:
    """Refuse messages none of which is the user's (:meth:`~flowmem.schema.memory.Message.is_users`), naming the
    names found: a whole file skipped for a wrong ``-u`` would otherwise store nothing and look like success."""
    if not messages or any(m.is_users(user_id) for m in messages):
        return
    names = Counter(repr(m.name.strip()) for m in messages if m.role == "user")  # none is empty: it would match
    found = [f"{name} ({n})" for name, n in names.most_common(5)]
    if len(names) > 5:
        found.append(f"{len(names) - 5} more")
    roles = Counter(m.role for m in messages if m.role != "user")
    others = ", ".join(f"{n} {role} messages" for role, n in roles.items())
    if others:
        found.append(f"besides {others}" if found else f"none ({others})")
    raise InputError(
        Problem(
            "messages",
            f"no message of the {len(messages)} is from user {user_id!r} (role 'user' and name {user_id!r}, or no "
            f"name); names found: {', '.join(found)}. Choose the user with -u NAME (user_id=NAME), or set each "
            "message's `name` to the user id",
        )
    )


async def add_text(
    core: Memories, text: str, user_id: str, workspace_id: str, timestamp: datetime | None, flow: str, strict: bool
) -> AddResult:
    from flowmem.scoring.derive import memory_from_message

    if not text.strip():
        raise InputError(Problem("text", "is empty; give the fact to remember"))
    fits(core, text, "text")
    message = Message(role="user", name=user_id, content=text, time_created=timestamp or now())
    memory = memory_from_message(
        message, workspace_id=workspace_id, target=user_id, user_id=user_id, memory_type="observation"
    )
    # Not from a chat message: no source (the same text again is then a plain repeat, skipped).
    memory = memory.model_copy(update={"memory_id": new_id(), "source": [], "metadata": {"added_as": "text"}})
    try:
        response = await core.app.run(
            flow, strict=strict, new_memories=[memory], messages=[], user_id=user_id, workspace_id=workspace_id
        )
    except DegradedError as exc:
        raise strict_stop(exc, AddResult(), "the text") from exc
    actions = response.output(MEMORY_ACTIONS) or []
    return AddResult(actions=list(actions), warnings=list(response.warnings), degradations=list(response.degradations))


def users_own(targets: Iterable[str], user_id: str | None) -> bool:
    """Whether a call scoped to ``user_id`` may see or change records about ``targets`` (a memory's ``target``,
    a history event's :attr:`~flowmem.schema.history.HistoryEvent.targets`): all of them are that user's.
    Unscoped (``None``), every record is. The one rule of user-scoped reads and edits (``flowmem mcp -u USER``):
    another user's memory is to them what a missing one is."""
    if user_id is None:
        return True
    found = list(targets)
    return bool(found) and all(target == user_id for target in found)


def scope(workspace_id: Any, user_id: Any = WHOLE_WORKSPACE, *, id_rule: bool = True) -> None:
    """:func:`~flowmem.vector_store.rules.check_scope` of the workspace and, when given, the user (the rule and
    its words are the store's, once)."""
    check_scope(workspace_id, id_rule=id_rule, **({} if user_id is WHOLE_WORKSPACE else {"user_id": user_id}))


def scope_user(workspace_id: Any, user_id: str | None, *, id_rule: bool = True) -> None:
    """:func:`scope` of a call that may be scoped to a user (``None``: the whole workspace)."""
    scope(workspace_id, WHOLE_WORKSPACE if user_id is None else user_id, id_rule=id_rule)


def numbered(core: Memories, items: Iterable[Memory | tuple[int, Memory]], source: str) -> Iterator[tuple[int, Memory]]:
    """``(line number, memory)`` pairs, each memory's text within the size limit (else an error naming its line)."""
    for number, item in enumerate(items, 1):
        pair = (number, item) if isinstance(item, Memory) else item
        fits(core, pair[1].content, f"{source} line {pair[0]}")
        yield pair


def parse_messages(messages: Sequence[Message | dict[str, Any]]) -> list[Message]:
    from pydantic import ValidationError

    found, problems = [], []
    for i, item in enumerate(messages):
        try:
            found.append(item if isinstance(item, Message) else Message.model_validate(item))
        except ValidationError as exc:
            problems.append(Problem(f"messages[{i}]", "; ".join(e["msg"] for e in exc.errors()[:3])))
    if problems:
        raise InputError(problems)
    return found


def now() -> datetime:
    return datetime.now().replace(microsecond=0)


def fits(core: Memories, text: str, what: str) -> None:
    """Refuse a memory text over ``limits.memory_max_chars`` (the rule every path shares:
    :mod:`flowmem.config.limits`)."""
    from flowmem.config.limits import too_long

    limit = core.app.config.limits.memory_max_chars
    reason = too_long("content", text, limit, "memory_max_chars")
    if reason:
        raise InputError(Problem(what, reason))
