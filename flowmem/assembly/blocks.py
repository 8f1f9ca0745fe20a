"""Memory blocks: what ``context_assemble_op`` may put in front of the model, and how each is rendered.

A block takes its items from one context key (its ``source``) and renders them one line each
under an optional heading. ``priority`` orders them: 0 is the most important and is cut last; when
the blocks do not fit the budget, the highest number is truncated first (LlamaIndex's rule).

| source | context value | one item renders as |
|---|---|---|
| ``system_prompt`` | the op's ``system_prompt`` param (static text) | the text |
| ``facts`` | ``list[str]`` (``facts_block_op``) | ``- fact`` |
| ``memories`` | ``list[Memory]`` (retrieval ops) | ``- [time] content`` |
| ``entities`` | ``list[dict]``: name, kind, description, updated_at | ``- name (kind): description`` |
| ``triples`` | ``list[dict]``: subject, relation, object, valid_from/to | ``- subject relation object (since …)`` |
| ``summary`` | ``str``: what left the short-term window | the text |

Text sources (``system_prompt``, ``summary``) are one item that can be cut short at a token
boundary; list sources lose whole items from their tail, most important first being the producer's job.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from flowmem.schema.memory import Memory

BlockSource = Literal["system_prompt", "facts", "memories", "entities", "triples", "summary"]
BLOCK_SOURCES: tuple[str, ...] = get_args(BlockSource)
TEXT_SOURCES = frozenset({"system_prompt", "summary"})


class BlockSpec(BaseModel):
    """One block of the assembled context.

    Attributes:
        name: How the trace names the block.
        source: Where its items come from (see the module table).
        priority: 0 is the most important; higher numbers are truncated first.
        max_tokens: At most this many tokens for the block, whatever room is left (None: no cap of its own).
        heading: A line above the items, e.g. ``What you know about the user:`` ("" for none).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, description="how the trace names the block")
    source: BlockSource = Field(description="the context key (or the static system_prompt) its items come from")
    priority: int = Field(ge=0, description="0 is the most important; higher numbers are truncated first")
    max_tokens: int | None = Field(None, ge=1, description="cap of the block's own (None: none)")
    heading: str = Field("", description="a line above the items")


DEFAULT_BLOCKS: tuple[BlockSpec, ...] = (
    BlockSpec(name="static", source="system_prompt", priority=0),
    BlockSpec(name="facts", source="facts", priority=1, heading="What you know about the user:"),
    BlockSpec(name="memories", source="memories", priority=2, heading="Memories that may be relevant:"),
    BlockSpec(name="entities", source="entities", priority=3, heading="People, places and things mentioned:"),
    BlockSpec(name="triples", source="triples", priority=4, heading="Known relations:"),
    BlockSpec(name="summary", source="summary", priority=5, heading="Earlier in this conversation (summary):"),
)


def render_items(source: str, value: Any) -> list[str]:
    """The lines of a block's items from its context ``value`` (empty when there is nothing to show)."""
    if value is None:
        return []
    if source in TEXT_SOURCES:
        text = str(value).strip()
        return [text] if text else []
    items = list(value)
    render = _RENDERERS[source]
    return [line for line in (render(item) for item in items) if line]


def _one_line(text: object) -> str:
    return " ".join(str(text or "").split())


def _fact(item: Any) -> str:
    text = _one_line(item)
    return f"- {text}" if text else ""


def _memory(item: Any) -> str:
    text = item.display_line() if isinstance(item, Memory) else _one_line(item)
    return f"- {text}" if text else ""


def _entity(item: Any) -> str:
    if not isinstance(item, Mapping):
        return _fact(item)
    name, kind, description = (
        _one_line(item.get("name")),
        _one_line(item.get("kind")),
        _one_line(item.get("description")),
    )
    if not name:
        return ""
    head = f"{name} ({kind})" if kind else name
    return f"- {head}: {description}" if description else f"- {head}"


def _triple(item: Any) -> str:
    if not isinstance(item, Mapping):
        return _fact(item)
    parts = [_one_line(item.get(key)) for key in ("subject", "relation", "object")]
    if not all(parts):
        return ""
    start, end = _one_line(item.get("valid_from")), _one_line(item.get("valid_to"))
    when = f" (from {start or '?'} to {end})" if end else f" (since {start})" if start else ""
    return f"- {' '.join(parts)}{when}"


_RENDERERS = {"facts": _fact, "memories": _memory, "entities": _entity, "triples": _triple}
