"""Embedding models. Importing this package registers the built-in backends."""

from flowmem.embedding import hash, local, openai_compatible
from flowmem.embedding.base import EmbeddingModel, EmbeddingParams, TextKind

__all__ = ["EmbeddingModel", "EmbeddingParams", "TextKind", "hash", "local", "openai_compatible"]
