"""flowmem's built-in ops, one module per op. Importing this package registers them all."""

from . import (
    extract_time_op,
    fuse_rerank_op,
    print_memory_op,
    read_message_op,
    retrieve_memory_op,
    semantic_rank_op,
    set_query_op,
)

__all__ = [
    "extract_time_op",
    "fuse_rerank_op",
    "print_memory_op",
    "read_message_op",
    "retrieve_memory_op",
    "semantic_rank_op",
    "set_query_op",
]
