"""The embedded vector store (``backend: local``): one directory on disk, safe against a crash mid-write.

Importing this package registers the backend (:mod:`~flowmem.vector_store.local.store`)."""

from flowmem.vector_store.local.store import LocalStore

__all__ = ["LocalStore"]
