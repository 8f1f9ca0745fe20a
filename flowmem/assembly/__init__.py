"""Fill a token budget with memory blocks and chat history: the rule behind ``context_assemble_op``.

The budget, in the order it is spent (every count by :mod:`flowmem.core.tokens`, OpenAI's chat framing included):

1. **The new user message** (``query``) and the reply priming always go in. A message longer than
   the whole budget is cut to fit (said in the report and as a warning by the op).
2. **Chat history** gets up to ``history_ratio`` of what is left: whole messages, newest first,
   stopping at the first that does not fit (so the kept history has no holes).
3. **Blocks** fill what the history left, by priority: 0 first. A block that does not fit whole
   keeps the whole items (lines) from its head that fit, a text block (static text, summary) is cut
   at a token boundary, and a block with no room left is cut. So when the blocks are over budget the
   lowest-priority block loses first, then the next (LlamaIndex's rule).
4. **The rest goes back to the history**: older messages, while they fit.

The result is checked with :func:`flowmem.core.tokens.count_message_tokens` and trimmed (lowest-priority
block's last item, then the oldest history message) until it fits, so it NEVER exceeds
``token_limit``, even where token counts of concatenated lines are not exactly additive.

``insert_method="system"`` puts the blocks in a system message first; ``"user"`` puts them into the
new user message (or the latest user message of the history when there is no new one) between
``<memory>`` tags, as LlamaIndex does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from flowmem.assembly.blocks import TEXT_SOURCES, BlockSpec
from flowmem.core.tokens import (
    REPLY_PRIMING_TOKENS,
    TOKENS_PER_MESSAGE,
    count_message_tokens,
    count_tokens,
    message_tokens,
    truncate_to_tokens,
)

InsertMethod = Literal["system", "user"]
BLOCK_SEPARATOR = "\n\n"
USER_OPEN, USER_CLOSE = "<memory>\n", "\n</memory>\n\n"
MIN_TOKEN_LIMIT = 16  # the reply priming and an empty user message need 8; below 16 nothing useful fits


@dataclass
class BlockOutcome:
    """What happened to one block: ``kept`` whole, ``truncated``, ``cut`` (none of it) or ``empty`` (no items)."""

    name: str
    source: str
    priority: int
    status: str = "empty"
    items_kept: int = 0
    items_total: int = 0
    tokens: int = 0
    full_tokens: int = 0
    why: str = ""
    lines: list[str] = field(default_factory=list, repr=False)
    heading: str = field(default="", repr=False)


@dataclass
class HistoryOutcome:
    """How much of the chat history went in (newest first) and why the rest did not."""

    kept: int = 0
    total: int = 0
    tokens: int = 0
    reserved: int = 0
    skipped: int = 0
    why: str = ""


@dataclass
class Assembly:
    """The assembled ``messages`` and a report of every decision."""

    messages: list[dict[str, str]]
    tokens: int
    token_limit: int
    insert_method: str
    blocks: list[BlockOutcome]
    history: HistoryOutcome
    query_tokens: int = 0
    query_truncated: bool = False
    notes: list[str] = field(default_factory=list)

    def trace(self) -> dict[str, Any]:
        """A JSON-ready summary for the op's trace span (``--explain`` renders it)."""
        blocks = [{k: v for k, v in asdict(b).items() if k not in ("lines", "heading")} for b in self.blocks]
        return {
            "tokens": self.tokens,
            "token_limit": self.token_limit,
            "insert_method": self.insert_method,
            "query_tokens": self.query_tokens,
            "query_truncated": self.query_truncated,
            "history": asdict(self.history),
            "blocks": blocks,
            "notes": list(self.notes),
        }


def assemble(
    *,
    blocks: Sequence[tuple[BlockSpec, list[str]]],
    history: Sequence[Mapping[str, str]],
    query: str | None,
    token_limit: int,
    insert_method: InsertMethod = "system",
    history_ratio: float = 0.5,
    tokenizer: str | None = None,
) -> Assembly:
    """Fill ``token_limit`` with ``query``, ``history`` (oldest first, ``role``/``content``) and ``blocks``.

    ``blocks`` pairs each spec with its rendered items (:func:`flowmem.assembly.blocks.render_items`).

    Raises:
        ValueError: ``token_limit`` below :data:`MIN_TOKEN_LIMIT` or ``history_ratio`` outside 0–1.
    """
    if token_limit < MIN_TOKEN_LIMIT:
        raise ValueError(f"token_limit must be at least {MIN_TOKEN_LIMIT}, got {token_limit}")
    if not 0.0 <= history_ratio <= 1.0:
        raise ValueError(f"history_ratio must be between 0 and 1, got {history_ratio}")
    builder = _Builder(tokenizer, token_limit, insert_method)
    builder.place_query(query)
    builder.place_history(list(history), history_ratio)
    builder.fill_blocks(blocks)
    builder.extend_history()
    return builder.finish()


class _Builder:
    def __init__(self, tokenizer: str | None, token_limit: int, insert_method: InsertMethod):
        self.tok = tokenizer
        self.limit = token_limit
        self.method: InsertMethod = insert_method
        self.query: str | None = None
        self.query_truncated = False
        self.history: list[Mapping[str, str]] = []
        self.start = 0  # index of the oldest history message kept
        self.outcome = HistoryOutcome()
        self.outcomes: list[BlockOutcome] = []
        self.notes: list[str] = []

    def count(self, text: str) -> int:
        return count_tokens(text, self.tok)

    # -- 1. the new user message -----------------------------------------------------------------
    def place_query(self, query: str | None) -> None:
        if query is None:
            return
        room = self.limit - REPLY_PRIMING_TOKENS - TOKENS_PER_MESSAGE - self.count("user")
        if self.count(query) > room:
            query = truncate_to_tokens(query, room, self.tok)
            self.query_truncated = True
        self.query = query

    def fixed_tokens(self) -> int:
        if self.query is None:
            return REPLY_PRIMING_TOKENS
        return REPLY_PRIMING_TOKENS + message_tokens({"role": "user", "content": self.query}, self.tok)

    # -- 2. the history's share ---------------------------------------------------------------------
    def place_history(self, history: list[Mapping[str, str]], ratio: float) -> None:
        usable = [m for m in history if m.get("role") in ("user", "assistant", "system")]
        self.outcome.skipped = len(history) - len(usable)
        if usable and self.query is not None and _same(usable[-1], self.query):
            usable.pop()  # the new message is already in the window: send it once, as the new message
            self.notes.append("the history's last message is the new message: sent once")
        self.history = usable
        self.outcome.total = len(usable)
        self.outcome.reserved = int((self.limit - self.fixed_tokens()) * ratio)
        self.start = self._take_newest(len(usable), self.outcome.reserved)

    def _take_newest(self, start: int, room: int) -> int:
        """Extend the kept history from ``start`` to older messages while they fit in ``room``; the new start."""
        while start > 0:
            cost = message_tokens(self.history[start - 1], self.tok)
            if cost > room:
                break
            room -= cost
            start -= 1
        return start

    def history_tokens(self) -> int:
        return sum(message_tokens(m, self.tok) for m in self.history[self.start :])

    # -- 3. blocks by priority ------------------------------------------------------------------------
    def fill_blocks(self, blocks: Sequence[tuple[BlockSpec, list[str]]]) -> None:
        self.outcomes = [
            BlockOutcome(spec.name, spec.source, spec.priority, items_total=len(items), heading=spec.heading)
            for spec, items in blocks
        ]
        if self.method == "user" and self.query is None and not self._latest_user_kept():
            self.method = "system"
            self.notes.append(
                "insert_method user: no user message to insert into, so the blocks went into a system message"
            )
        overhead = (
            TOKENS_PER_MESSAGE + self.count("system")
            if self.method == "system"
            else self.count(USER_OPEN) + self.count(USER_CLOSE)
        )
        room = self.limit - self.fixed_tokens() - self.history_tokens() - overhead
        separator = self.count(BLOCK_SEPARATOR)
        used, placed = 0, 0
        order = sorted(range(len(blocks)), key=lambda i: (blocks[i][0].priority, i))
        for i in order:
            spec, items = blocks[i]
            outcome = self.outcomes[i]
            if not items:
                outcome.why = "nothing to show"
                continue
            head = self.count(spec.heading) + 1 if spec.heading else 0
            costs = [self.count(item) + 1 for item in items]  # +1: the line break after it
            outcome.full_tokens = head + sum(costs)
            sep = separator if placed else 0
            left = max(room - used - sep, 0)
            cap = spec.max_tokens if spec.max_tokens is not None else left
            here = min(cap, left)
            limited_by = (
                f"max_tokens {spec.max_tokens}" if cap < left else f"{left} tokens left after higher priorities"
            )
            self._fit(outcome, spec, items, costs, head, here, limited_by)
            if outcome.lines:
                used += sep + outcome.tokens
                placed += 1

    def _fit(
        self, outcome: BlockOutcome, spec: BlockSpec, items: list[str], costs: list[int], head: int, here: int, why: str
    ) -> None:
        if outcome.full_tokens <= here:
            outcome.status, outcome.lines, outcome.items_kept = "kept", list(items), len(items)
            outcome.tokens = outcome.full_tokens
            outcome.why = "fits whole" if len(items) == 1 else f"all {len(items)} items fit"
            return
        kept, total = 0, head
        while kept < len(items) and total + costs[kept] <= here:
            total += costs[kept]
            kept += 1
        if kept:
            outcome.status, outcome.lines, outcome.items_kept, outcome.tokens = "truncated", items[:kept], kept, total
            outcome.why = f"{why}: kept the first {kept} of {_items(len(items))}, dropped the last {len(items) - kept}"
            return
        text_room = here - head - 1
        if spec.source in TEXT_SOURCES and text_room > 0:
            cut = truncate_to_tokens(items[0], text_room, self.tok)
            if cut.strip():
                outcome.status, outcome.lines, outcome.items_kept = "truncated", [cut], 1
                outcome.tokens = head + self.count(cut) + 1
                outcome.why = f"{why}: text cut to {outcome.tokens} of {outcome.full_tokens} tokens"
                return
        outcome.status, outcome.lines, outcome.items_kept, outcome.tokens = "cut", [], 0, 0
        outcome.why = f"{why}: needs {outcome.full_tokens}"

    def blocks_text(self) -> str:
        rendered = []
        for outcome in self.outcomes:
            if outcome.lines:
                lines = [outcome.heading, *outcome.lines] if outcome.heading else outcome.lines
                rendered.append("\n".join(lines))
        return BLOCK_SEPARATOR.join(rendered)

    # -- 4. what is left goes back to the history -----------------------------------------------------------
    def extend_history(self) -> None:
        room = self.limit - count_message_tokens(self.messages(), self.tok)
        self.start = self._take_newest(self.start, room)

    # -- the messages, checked ------------------------------------------------------------------------
    def _latest_user_kept(self) -> int | None:
        for i in range(len(self.history) - 1, self.start - 1, -1):
            if self.history[i].get("role") == "user":
                return i
        return None

    def messages(self) -> list[dict[str, str]]:
        history = [{"role": m["role"], "content": m.get("content", "")} for m in self.history[self.start :]]
        tail = [{"role": "user", "content": self.query}] if self.query is not None else []
        text = self.blocks_text()
        if not text:
            return history + tail
        if self.method == "system":
            return [{"role": "system", "content": text}, *history, *tail]
        wrapped = f"{USER_OPEN}{text}{USER_CLOSE}"
        if tail:
            tail[0]["content"] = wrapped + tail[0]["content"]
        else:
            latest = self._latest_user_kept()
            if latest is None:  # trimming took the only user message: the blocks still need a place
                self.method = "system"
                self.notes.append("insert_method user: the user message was trimmed away; blocks sent as system")
                return [{"role": "system", "content": text}, *history]
            history[latest - self.start]["content"] = wrapped + history[latest - self.start]["content"]
        return history + tail

    def finish(self) -> Assembly:
        messages = self.messages()
        total = count_message_tokens(messages, self.tok)
        while total > self.limit and self._trim(total - self.limit):
            messages = self.messages()
            total = count_message_tokens(messages, self.tok)
        kept = len(self.history) - self.start
        self.outcome.kept = kept
        self.outcome.tokens = self.history_tokens()
        older = self.start
        self.outcome.why = (
            f"kept the newest {kept} of {self.outcome.total} messages; the {older} older did not fit"
            if older
            else f"all {self.outcome.total} messages fit"
        )
        return Assembly(
            messages=messages,
            tokens=total,
            token_limit=self.limit,
            insert_method=self.method,
            blocks=self.outcomes,
            history=self.outcome,
            query_tokens=self.count(self.query) if self.query is not None else 0,
            query_truncated=self.query_truncated,
            notes=self.notes,
        )

    def _trim(self, excess: int) -> bool:
        """Trim a little: the lowest-priority block's last item, else the oldest message; False: nothing left."""
        placed = [o for o in self.outcomes if o.lines]
        if placed:
            outcome = max(placed, key=lambda o: (o.priority, self.outcomes.index(o)))
            if len(outcome.lines) > 1 or outcome.source not in TEXT_SOURCES:
                outcome.lines.pop()
            else:
                shorter = truncate_to_tokens(outcome.lines[0], max(self.count(outcome.lines[0]) - excess, 0), self.tok)
                outcome.lines = [shorter] if shorter.strip() else []
            outcome.items_kept = len(outcome.lines)
            outcome.status = "truncated" if outcome.lines else "cut"
            outcome.tokens = self.count("\n".join([outcome.heading, *outcome.lines])) if outcome.lines else 0
            outcome.why += "; trimmed to fit the exact count"
            return True
        if self.start < len(self.history):
            self.start += 1
            return True
        return False


def _same(message: Mapping[str, str], query: str) -> bool:
    return message.get("role") == "user" and message.get("content", "").strip() == query.strip()


def _items(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"
