"""Vector stores. Importing this package registers the built-in backends (``memory``, ``local``, ``elasticsearch``)."""

from flowmem.vector_store import elasticsearch, local, memory
from flowmem.vector_store.base import DimensionMismatchError, ScopeError, VectorStore
from flowmem.vector_store.filters import MemoryFilter

__all__ = ["DimensionMismatchError", "MemoryFilter", "ScopeError", "VectorStore", "elasticsearch", "local", "memory"]
