"""The memory service behind ``app.memories``: add, search, get, list, update, delete, history, forget,
export and import — one async core (:class:`Memories`) and its blocking facade (:class:`SyncMemories`)."""

from flowmem.memories.results import AddResult, ForgetResult, MemoryPage, SearchResult
from flowmem.memories.service import Memories
from flowmem.memories.sync import SyncMemories

__all__ = ["AddResult", "ForgetResult", "Memories", "MemoryPage", "SearchResult", "SyncMemories"]
