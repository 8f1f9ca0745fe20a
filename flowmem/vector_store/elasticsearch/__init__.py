"""The Elasticsearch vector store (``backend: elasticsearch``).

Importing this package registers the backend (:mod:`~flowmem.vector_store.elasticsearch.store`);
the ``elasticsearch`` client itself is imported only when a store is created."""

from flowmem.vector_store.elasticsearch.store import ElasticsearchStore

__all__ = ["ElasticsearchStore"]
