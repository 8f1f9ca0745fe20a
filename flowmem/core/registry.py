"""Explicit name → object registries.

Importing a module only registers what it defines; nothing is discovered by scanning.
Registering a name twice raises, and a failed lookup lists the valid names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

from flowmem.core.errors import RegistryError
from flowmem.core.suggest import unknown

T = TypeVar("T")

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
NAME_PATTERN = re.compile(r"^[a-z_][a-z0-9_]*$")


def snake_case(name: str) -> str:
    """``FuseRerankOp`` → ``fuse_rerank_op``; ``LLMRankOp`` → ``llm_rank_op``."""
    return _CAMEL_BOUNDARY.sub("_", name).lower()


class Registry(Generic[T]):
    """A named collection of registered objects of one kind (ops, LLM backends, …).

    Args:
        kind: What the registry holds, used in messages ("op", "llm backend").
    """

    def __init__(self, kind: str):
        self.kind = kind
        self._items: dict[str, T] = {}

    def add(self, name: str, item: T) -> T:
        """Register ``item`` under ``name``.

        Raises:
            RegistryError: The name is taken or not a valid snake_case identifier.
        """
        if not NAME_PATTERN.match(name):
            raise RegistryError(f"cannot register {self.kind} '{name}': names are snake_case identifiers")
        if name in self._items and self._items[name] is not item:
            raise RegistryError(
                f"{self.kind} '{name}' is already registered (by {_describe(self._items[name])}); "
                f"cannot register {_describe(item)} under the same name"
            )
        self._items[name] = item
        return item

    def remove(self, name: str) -> None:
        """Unregister ``name`` (mainly for tests)."""
        self._items.pop(name, None)

    def get(self, name: str) -> T:
        """Look ``name`` up.

        Raises:
            RegistryError: Unknown name; the message suggests the closest one and lists all.
        """
        try:
            return self._items[name]
        except KeyError:
            raise RegistryError(unknown(self.kind, name, self._items)) from None

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._items))

    def __len__(self) -> int:
        return len(self._items)

    def items(self) -> list[tuple[str, T]]:
        return sorted(self._items.items())

    def names(self) -> list[str]:
        return sorted(self._items)

    @contextmanager
    def temporarily(self, *named: tuple[str, T]) -> Iterator[None]:
        """Register items for the duration of a ``with`` block (tests, notebooks)."""
        added: list[str] = []
        try:
            for name, item in named:
                self.add(name, item)
                added.append(name)
            yield
        finally:
            for name in added:
                self.remove(name)


def _describe(item: object) -> str:
    module = getattr(item, "__module__", "?")
    qualname = getattr(item, "__qualname__", repr(item))
    return f"{module}.{qualname}"
