"""numpy's BLAS (OpenBLAS, as numpy's wheels bundle it) run on its caller's thread.

OpenBLAS computes a large product on a pool of threads that spin-wait for work between products: beside the
embedding model's threads and a server's event loop on shared cores they wait for a core the others hold (a 10k x
384 by 50 product left the pool's second thread using a whole core through a 50 ms sleep). flowmem's products
therefore run on one thread: a server makes BLAS single-threaded for its whole process (:func:`single_threaded`);
a library call that wants one product done so, in a process that is not flowmem's alone, asks for it around that
product (:func:`one_thread`), leaving the process's own setting as it was.
"""

from __future__ import annotations

import ctypes
import glob
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import numpy as np

_SETTERS = ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_", "openblas_set_num_threads")
_GETTERS = ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_", "openblas_get_num_threads")
_lock = threading.Lock()  # one product's setting and restoring at a time


@lru_cache(maxsize=1)
def _openblas() -> tuple[Any, Any] | None:
    """numpy's OpenBLAS thread-count setter and getter, or ``None`` (another BLAS, or none found)."""
    folder = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for path in glob.glob(os.path.join(folder, "*openblas*")):
        library = ctypes.CDLL(path)
        setter = next((f for name in _SETTERS if (f := getattr(library, name, None)) is not None), None)
        getter = next((f for name in _GETTERS if (f := getattr(library, name, None)) is not None), None)
        if setter is not None and getter is not None:
            return setter, getter
    return None


def single_threaded() -> bool:
    """Make numpy's OpenBLAS compute each product on its caller's thread, for the whole process (True if it could)."""
    found = _openblas()
    if found is None:
        return False
    found[0](1)
    return True


def available() -> bool:
    """Whether products can be made to run on one thread (:func:`one_thread` does what it says)."""
    return _openblas() is not None


@contextmanager
def one_thread() -> Iterator[None]:
    """The products inside run on their caller's thread; the process's setting is restored after."""
    found = _openblas()
    if found is None:
        yield
        return
    setter, getter = found
    with _lock:
        before = getter()
        setter(1)
        try:
            yield
        finally:
            setter(before)
