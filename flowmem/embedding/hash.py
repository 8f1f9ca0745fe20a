"""The ``hash`` embedding model: deterministic feature hashing, for tests and offline demos.

Each word (lower-cased, any script) and each character trigram inside a word is hashed
(BLAKE2b, so the same in every process) to a dimension and a sign. Texts that share words get
similar vectors; nothing else is understood. CJK text, which has no spaces, contributes its
character unigrams and bigrams instead.
"""

from __future__ import annotations

import hashlib
import itertools
import re

import numpy as np
from pydantic import Field

from flowmem.core.backend import register_backend
from flowmem.embedding.base import EmbeddingModel, EmbeddingParams, TextKind

_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


class HashParams(EmbeddingParams):
    dims: int = Field(384, ge=8, le=4096, description="vector width")


@register_backend("embedding_model", "hash")
class HashEmbedding(EmbeddingModel):
    """Feature hashing of words and character trigrams."""

    Params = HashParams
    params: HashParams

    def known_dims(self) -> int:
        return self.params.dims

    @property
    def model_id(self) -> str:
        return f"hash:{self.params.dims}"

    async def _embed_batch(self, texts: list[str], kind: TextKind) -> np.ndarray:
        matrix = np.zeros((len(texts), self.dims), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _features(text):
                digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                matrix[row, value % self.dims] += weight if (value >> 63) & 1 else -weight
        return matrix


def _features(text: str) -> list[tuple[str, float]]:
    features: list[tuple[str, float]] = []
    for word in _WORD.findall(text.lower()):
        if _CJK.search(word):
            chars = [c for c in word if not c.isspace()]
            features += [(f"c:{c}", 0.7) for c in chars]
            features += [(f"b:{a}{b}", 1.0) for a, b in itertools.pairwise(chars)]
            continue
        features.append((f"w:{word}", 1.0))
        padded = f"<{word}>"
        features += [(f"t:{padded[i : i + 3]}", 0.4) for i in range(len(padded) - 2)]
    return features
