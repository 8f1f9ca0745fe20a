"""The embedding interface: texts in, unit-length float32 rows out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Literal

import numpy as np
from pydantic import Field

from flowmem.backend import Backend, BackendKind, BackendParams
from flowmem.vector_store.base import normalise

TextKind = Literal["query", "document"]


class EmbeddingParams(BackendParams):
    batch_size: int = Field(64, ge=1, description="texts per request / forward pass")


class EmbeddingModel(Backend):
    """Turns texts into vectors.

    ``kind`` tells asymmetric models (e5: ``query:``/``passage:``) which side a text is on;
    symmetric models ignore it. Implementations embed one batch in ``_embed_batch``; batching,
    normalisation and shape checks live here.
    """

    kind: ClassVar[BackendKind] = "embedding_model"
    params: EmbeddingParams

    @property
    def dims(self) -> int:
        """The width of the vectors this model returns."""
        raise NotImplementedError

    @property
    def model_id(self) -> str:
        """A name for the model, recorded with the vectors it made."""
        return f"{self.backend_name}:{self.dims}"

    async def embed(self, texts: Sequence[str], *, kind: TextKind = "document") -> np.ndarray:
        """Embed ``texts`` into a ``(len(texts), dims)`` float32 matrix of unit rows."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts; wrap a single text in a list")
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        size = self.params.batch_size
        parts = [await self._embed_batch(list(texts[i : i + size]), kind) for i in range(0, len(texts), size)]
        matrix = np.concatenate(parts) if len(parts) > 1 else parts[0]
        if matrix.shape != (len(texts), self.dims):
            raise ValueError(f"{self.backend_name} returned shape {matrix.shape}, expected {(len(texts), self.dims)}")
        return normalise(matrix)

    async def embed_one(self, text: str, *, kind: TextKind = "query") -> np.ndarray:
        """One text's unit vector (a query by default)."""
        matrix = await self.embed([text], kind=kind)
        row: np.ndarray = matrix[0]
        return row

    async def _embed_batch(self, texts: list[str], kind: TextKind) -> np.ndarray:
        raise NotImplementedError
