"""flowmem's built-in ops, one module per op. Importing this package registers them all."""

from . import set_query_op

__all__ = ["set_query_op"]
