"""flowmem's built-in ops, one module per op. Importing this package registers them all."""

from . import (
    append_memory_op,
    contra_repeat_op,
    entity_memory_op,
    extract_time_op,
    fuse_rerank_op,
    get_observation_op,
    info_filter_op,
    knowledge_triples_op,
    print_memory_op,
    read_message_op,
    retrieve_memory_op,
    semantic_rank_op,
    set_query_op,
    short_term_memory_op,
    update_vector_store_op,
)

__all__ = [
    "append_memory_op",
    "contra_repeat_op",
    "entity_memory_op",
    "extract_time_op",
    "fuse_rerank_op",
    "get_observation_op",
    "info_filter_op",
    "knowledge_triples_op",
    "print_memory_op",
    "read_message_op",
    "retrieve_memory_op",
    "semantic_rank_op",
    "set_query_op",
    "short_term_memory_op",
    "update_vector_store_op",
]
