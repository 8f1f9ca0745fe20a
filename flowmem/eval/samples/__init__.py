"""Bundled sample data: the memories of Alice Chen and a chat with her assistant.

``memories.jsonl`` holds ready-made memories (workspace ``"demo"``, target ``"alice"``, plus a
few about her partner under target ``"sam"``) from January to June 2024, for the read path;
``chat.jsonl`` holds about six weeks of chat (2024-04-22 to 2024-06-01) for the write path.
The demo's reference "now" is :data:`DEMO_NOW`, Wednesday 2024-06-12 20:00, so "last weekend"
means Saturday 8 and Sunday 9 June 2024. See ``README.md`` next to these files for the story.

```python
from flowmem.eval.samples import load_memories, load_messages

memories = load_memories()  # list[Memory]
messages = load_messages()  # list[Message], oldest first
```
"""

from __future__ import annotations

from datetime import datetime
from importlib.resources import as_file, files
from pathlib import Path

from flowmem.schema.jsonl import read_jsonl
from flowmem.schema.memory import Memory, Message

__all__ = ["DEMO_NOW", "DEMO_TARGET", "DEMO_WORKSPACE", "chat_path", "load_memories", "load_messages", "memories_path"]

DEMO_NOW = datetime(2024, 6, 12, 20, 0)
"""The reference "now" of the demo: Wednesday 2024-06-12 20:00 (naive wall-clock time)."""
DEMO_WORKSPACE = "demo"
DEMO_TARGET = "alice"


def _path(name: str) -> Path:
    resource = files("flowmem.eval.samples").joinpath(name)
    # The package is a plain directory when installed (wheel or editable), so this path stays valid.
    with as_file(resource) as path:
        return Path(path)


def memories_path() -> Path:
    """The path of ``memories.jsonl``."""
    return _path("memories.jsonl")


def chat_path() -> Path:
    """The path of ``chat.jsonl``."""
    return _path("chat.jsonl")


def load_memories() -> list[Memory]:
    """Every sample memory, in the file's order (by ``created_at``)."""
    path = memories_path()
    with path.open(encoding="utf-8") as stream:
        return [memory for _, memory in read_jsonl(stream, Memory, source=str(path))]


def load_messages() -> list[Message]:
    """Every sample chat message, oldest first."""
    path = chat_path()
    with path.open(encoding="utf-8") as stream:
        return [message for _, message in read_jsonl(stream, Message, source=str(path))]
