"""The op contract and the op registry.

An op is a class that does one thing to a flow run's context::

    @register_op
    class SetQueryOp(Op):
        \"\"\"Put the query and its timestamp into the context.\"\"\"

        class Params(OpParams):
            timestamp: datetime | None = None

        params: Params
        reads = (QUERY,)
        optional_reads = (TIMESTAMP,)
        writes = (QUERY, TIMESTAMP)

        async def execute(self, ctx: OpContext) -> None:
            ctx[TIMESTAMP] = self.params.timestamp or ctx.get(TIMESTAMP) or datetime.now()

The keys are :mod:`flowmem.keys`' (``QUERY: Key[str]``): a :class:`~flowmem.keys.Key` is the key's name and its
type, so mypy checks what ``execute`` reads and writes, and flow compilation checks that every reader accepts the
type its writer writes.

It is registered under its snake_case class name (``set_query_op``); flows name it so. Every
occurrence of an op in a flow, in every run, is a fresh instance: ops keep no state between
occurrences. ``Params`` is validated once, when the flow is compiled.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, overload

from pydantic import BaseModel, ConfigDict

from flowmem.core.backend import BACKEND_KINDS, Backend, BackendKind
from flowmem.core.errors import RegistryError
from flowmem.core.registry import Registry, snake_case
from flowmem.embedding.base import EmbeddingModel
from flowmem.flow.context import OpContext
from flowmem.keys import WRITE_FENCES, Key, key_named
from flowmem.llm.base import LLM
from flowmem.vector_store.base import Fence, VectorStore

BackendResolver = Callable[[BackendKind, str], Backend]


@dataclass(frozen=True)
class OpIO:
    """The context keys one configured op reads and writes (each a :class:`~flowmem.keys.Key` or a key's name)."""

    reads: tuple[str, ...]
    optional_reads: tuple[str, ...]
    writes: tuple[str, ...]

    def typed(self, name: str, *, written: bool = False) -> Key[Any]:
        """The key ``name`` with the type this op reads it as (``written``: writes it as): the :class:`Key` it
        declares, else the catalogue's (:func:`flowmem.keys.key_named`)."""
        declared = self.writes if written else (*self.reads, *self.optional_reads, *self.writes)
        own = [key for key in declared if key == name and isinstance(key, Key)]
        return own[0] if own else key_named(name)


class OpParams(BaseModel):
    """Base of every op's typed ``Params``: unknown keys are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)


class Op:
    """Base class of all ops.

    Class attributes a subclass sets:
        Params: A subclass of :class:`OpParams` with the op's params and defaults.
        reads: Context keys the op needs; validation checks an upstream op or an input provides each, with a type
            the op accepts. A :class:`~flowmem.keys.Key` (``MEMORIES``) carries its type; a plain name stands
            for the catalogue's key of that name (:mod:`flowmem.keys`).
        optional_reads: Context keys the op uses when present.
        writes: Context keys the op writes. Two parallel branches may not write the same key.
        uses: Backend kinds the op needs (``"llm"``, ``"embedding_model"``, ``"vector_store"``).
        writes_store: The op writes to its vector store (a flow holding one is a write: read-only API keys
            may not run it).
        degradation: If set, a failure of ``execute`` does not fail the flow: it becomes a warning
            in the trace and the response, and ``degrade`` runs instead. The text says what the op
            does then (shown by ``flowmem ops``).

    Attributes:
        params: This occurrence's validated params.
        label: The name this op has in the flow (its config entry; usually its registered name).
    """

    name: ClassVar[str] = ""
    Params: ClassVar[type[OpParams]] = OpParams
    reads: ClassVar[tuple[str, ...]] = ()
    optional_reads: ClassVar[tuple[str, ...]] = ()
    writes: ClassVar[tuple[str, ...]] = ()
    uses: ClassVar[tuple[BackendKind, ...]] = ()
    writes_store: ClassVar[bool] = False
    degradation: ClassVar[str | None] = None

    params: OpParams

    def __init__(
        self,
        params: OpParams | None = None,
        *,
        label: str = "",
        backends: BackendResolver | None = None,
        backend_names: Mapping[str, str] | None = None,
    ):
        self.params = params if params is not None else self.Params()
        self.label = label or self.name or snake_case(type(self).__name__)
        self._resolve = backends
        self._backend_names = backend_names or {}
        self.keys = type(self).io(self.params)

    @classmethod
    def io(cls, params: OpParams) -> OpIO:
        """The keys this op reads and writes with ``params``.

        The class attributes, unless a param names a key (``retrieve_memory_op``'s ``recall_key``):
        then the op overrides this so validation and the context see the real key.
        """
        return OpIO(cls.reads, cls.optional_reads, cls.writes)

    async def execute(self, ctx: OpContext) -> None:
        """Do the op's work: read from ``ctx``, write to ``ctx``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement execute()")

    async def degrade(self, ctx: OpContext, error: BaseException) -> None:
        """What to do instead when ``execute`` failed and the op declares a ``degradation``."""

    # -- backends ----------------------------------------------------------------------------
    def backend(self, kind: BackendKind) -> Backend:
        """The backend of ``kind`` configured for this op (``op.<label>.<kind>``, default ``default``)."""
        if kind not in self.uses:
            raise RegistryError(f"op '{self.label}' uses no {kind}; declare it in `uses` ({type(self).__name__})")
        if self._resolve is None:
            raise RegistryError(f"op '{self.label}' was created without backends; run it through a flow")
        return self._resolve(kind, self._backend_names.get(kind, "default"))

    @property
    def llm(self) -> LLM:
        """The op's configured LLM (``op.<label>.llm``); check ``.available`` before calling it."""
        backend = self.backend("llm")
        assert isinstance(backend, LLM)
        return backend

    @property
    def embedding_model(self) -> EmbeddingModel:
        """The op's configured embedding model (``op.<label>.embedding_model``)."""
        backend = self.backend("embedding_model")
        assert isinstance(backend, EmbeddingModel)
        return backend

    @property
    def vector_store(self) -> VectorStore:
        """The op's configured vector store (``op.<label>.vector_store``)."""
        backend = self.backend("vector_store")
        assert isinstance(backend, VectorStore)
        return backend

    def write_fence(self, ctx: OpContext) -> Fence | None:
        """The erasure fence of the op's vector store for this run (:func:`flowmem.flow.executor.fence_writes`), to
        pass to its writes; an op that writes declares ``write_fences`` in its ``optional_reads``."""
        fences = ctx.get(WRITE_FENCES) or {}
        return fences.get(self._backend_names.get("vector_store", "default"))

    # -- documentation -----------------------------------------------------------------------
    @classmethod
    def summary(cls) -> str:
        """The first line of the op's docstring."""
        doc = inspect.getdoc(cls) or ""
        first = doc.strip().splitlines()[0] if doc.strip() else ""
        return first.replace("``", "`")  # docstrings use reST literals; terminals read Markdown-ish


OPS: Registry[type[Op]] = Registry("op")

OpT = TypeVar("OpT", bound=type[Op])


@overload
def register_op(cls: OpT, /) -> OpT: ...
@overload
def register_op(*, name: str | None = None, registry: Registry[type[Op]] | None = None) -> Callable[[OpT], OpT]: ...


def register_op(
    cls: OpT | None = None, /, *, name: str | None = None, registry: Registry[type[Op]] | None = None
) -> OpT | Callable[[OpT], OpT]:
    """Register an op class under ``name`` (default: its snake_case class name).

    The class is checked here, so a malformed op fails at import rather than mid-flow.

    Raises:
        RegistryError: The name is taken.
        TypeError: The class breaks the op contract.
    """

    def decorator(op_cls: OpT) -> OpT:
        check_op_class(op_cls)
        op_name = name or snake_case(op_cls.__name__)
        (registry or OPS).add(op_name, op_cls)
        if not op_cls.__dict__.get("name"):
            op_cls.name = op_name
        return op_cls

    return decorator(cls) if cls is not None else decorator


def check_op_class(cls: Any) -> None:
    """Raise ``TypeError`` when ``cls`` is not a well-formed op."""
    if not (isinstance(cls, type) and issubclass(cls, Op)):
        raise TypeError(f"@register_op needs an Op subclass, got {cls!r}")
    where = f"{cls.__module__}.{cls.__qualname__}"
    if not (isinstance(cls.Params, type) and issubclass(cls.Params, OpParams)):
        raise TypeError(f"{where}.Params must subclass flowmem.OpParams")
    if cls.Params.model_config.get("extra") != "forbid":
        raise TypeError(f"{where}.Params must keep extra='forbid' so typos in params are errors")
    for attr in ("reads", "optional_reads", "writes", "uses"):
        value = getattr(cls, attr)
        if not (isinstance(value, tuple) and all(isinstance(v, str) for v in value)):
            raise TypeError(f"{where}.{attr} must be a tuple of strings, got {value!r}")
    bad_kinds = [k for k in cls.uses if k not in BACKEND_KINDS]
    if bad_kinds:
        raise TypeError(f"{where}.uses names unknown backend kinds {bad_kinds}; valid: {', '.join(BACKEND_KINDS)}")
    if cls.execute is Op.execute or not inspect.iscoroutinefunction(cls.execute):
        raise TypeError(f"{where} must define `async def execute(self, ctx)`")
