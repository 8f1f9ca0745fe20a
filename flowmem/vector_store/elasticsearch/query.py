"""The pure half of the Elasticsearch store: what it sends and reads back (the index mappings,
documents, ids, filters, scores); its settings are in :mod:`~flowmem.vector_store.elasticsearch.params`.

Plain data and functions, no client and no I/O, so the translation can be read (and tested) on
its own. :mod:`flowmem.vector_store.elasticsearch` does the talking.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from flowmem.schema.history import HistoryEvent
from flowmem.schema.memory import Memory
from flowmem.vector_store.elasticsearch.lexical import LEXICAL_FIELD, LEXICAL_MAPPING, LEXICAL_VERSION, META_KEY
from flowmem.vector_store.elasticsearch.params import MAX_CANDIDATES
from flowmem.vector_store.elasticsearch.params import (
    ElasticsearchStoreParams as ElasticsearchStoreParams,  # kept importable here
)
from flowmem.vector_store.filters import (
    PART_FIELDS,
    UNREAD_SLOTS,
    FilterSpec,
    MemoryFilter,
    event_span,
    second,
    slot_keywords,
    stored_slots,
)
from flowmem.vector_store.lexical_text import lexical_document
from flowmem.vector_store.rules import UnsupportedFilterError

VECTOR_FIELD = "vector"
# Indexed, never read back: times computed from a memory's fields so time-range filters are plain
# `range` queries (message time from the msg_* parts; the event span, see filters.event_span).
DERIVED_FIELD = "derived"
# Indexed, never read back: the slots of metadata["slots"] (which is not parsed), as keywords ``names`` and
# ``values``, and ``read``: whether the memory has them stored (documents from before this field have not).
SLOTS_FIELD = "slot_index"
# The indexed field behind each filter subject (filters.SUBJECT_TYPES): what this store can filter on.
# Time-part conditions test the part fields themselves; a span is two fields, `<name>_from` and `<name>_until`.
FILTER_FIELDS: dict[str, str] = {
    "target": "target",
    "memory_type": "memory_type",
    "status": "status",
    "parts": "parts",
    "created_at": "created_at",
    "said_at": f"{DERIVED_FIELD}.said_at",
    "event_span": f"{DERIVED_FIELD}.happens",
    "source": "source",
    "slot_names": f"{SLOTS_FIELD}.names",
    "slot_values": f"{SLOTS_FIELD}.values",
}
# Similarities a `dense_vector` field may use, and how to turn its `_score` back into a cosine.
SIMILARITIES = ("dot_product", "cosine", "l2_norm", "max_inner_product")
# `index_options` types whose scores are approximate (quantised vectors) unless rescored with floats.
QUANTISED_TYPES = frozenset({"int8_hnsw", "int4_hnsw", "bbq_hnsw", "int8_flat", "int4_flat", "bbq_flat"})
# Elasticsearch's own ceiling of `size` (by default) of one search; of `num_candidates`: es_params.MAX_CANDIDATES.
MAX_PAGE = 10_000
# The write path's two indices beside the memories index, named from it by these suffixes.
HISTORY_SUFFIX = "-history"
MESSAGES_SUFFIX = "-messages"
# Indexed, never read back: orders events that share a `time` in the order they were recorded.
SEQ_FIELD = "seq"
# Indexed, never read back: the `target`s of a history event's records (a user's history is found by it).
TARGET_FIELD = "target"

_KEYWORD: dict[str, Any] = {"type": "keyword"}
_TEXT: dict[str, Any] = {"type": "text", "analyzer": "standard"}
_DATE: dict[str, Any] = {"type": "date"}


def doc_id(workspace_id: str, key: str) -> str:
    """The document ``_id`` of a workspace's memory, history event or message: sha256 hex of
    ``len(workspace_id) NUL workspace_id NUL key`` (``key`` is the memory, event or message id).

    Two workspaces can use the same memory id without ever touching each other's document (the
    length prefix keeps the pair unambiguous even if an id contains NUL), and the id stays 64
    characters whatever the inputs' length (Elasticsearch caps ids at 512 bytes).
    """
    return hashlib.sha256(f"{len(workspace_id)}\x00{workspace_id}\x00{key}".encode()).hexdigest()


def mappings(dims: int, similarity: str, index_options: dict[str, Any]) -> dict[str, Any]:
    """The explicit, ``dynamic: strict`` mapping of a flowmem index.

    ``metadata`` is an object with ``enabled: false``: kept verbatim in ``_source`` (any JSON
    round-trips exactly), never parsed into fields, so odd metadata can neither fail a write on a
    type conflict nor grow the mapping.
    """
    return {
        "dynamic": "strict",
        "properties": properties(dims, similarity, index_options),
        "_meta": {META_KEY: LEXICAL_VERSION},  # its documents hold the current lexical text (see es_lexical)
    }


def properties(dims: int, similarity: str, index_options: dict[str, Any]) -> dict[str, Any]:
    """The mapping's ``properties``: one entry per stored field of :class:`~flowmem.schema.memory.Memory`."""
    props: dict[str, Any] = {
        "memory_id": _KEYWORD,
        "workspace_id": _KEYWORD,
        "target": _KEYWORD,
        "memory_type": _KEYWORD,
        "status": _KEYWORD,
        "source": _KEYWORD,
        "keywords": _KEYWORD,
        "content": _TEXT,
        "when_to_use": _TEXT,
        # Kept to round-trip; searched through the lexical field, which holds it (lexical_text.lexical_document).
        "expanded_key": {"type": "text", "index": False},
        "created_at": _DATE,
        "updated_at": _DATE,
        "event_start": _DATE,
        "event_end": _DATE,
        "metadata": {"type": "object", "enabled": False},
        DERIVED_FIELD: {"properties": {"said_at": _DATE, "happens_from": _DATE, "happens_until": _DATE}},
        SLOTS_FIELD: {"properties": {"names": _KEYWORD, "values": _KEYWORD, "read": {"type": "boolean"}}},
        LEXICAL_FIELD: LEXICAL_MAPPING,
        VECTOR_FIELD: {
            "type": "dense_vector",
            "dims": dims,
            "index": True,
            "similarity": similarity,
            "index_options": dict(index_options),
        },
    }
    props.update({part: {"type": "integer"} for part in PART_FIELDS})
    return props


def history_properties() -> dict[str, Any]:
    """The ``properties`` of the history index (its mapping is ``dynamic: strict`` too).

    ``old``/``new`` are memory records kept verbatim (``enabled: false``, like a memory's
    ``metadata``): any record round-trips exactly and none can fail on a type conflict. Their
    ``target``s are indexed beside them (:data:`TARGET_FIELD`), so a user's history can be found;
    events written before that lack the field (``forget`` reads their records instead).
    """
    return {
        "event_id": _KEYWORD,
        "workspace_id": _KEYWORD,
        "memory_id": _KEYWORD,
        TARGET_FIELD: _KEYWORD,
        "event": _KEYWORD,
        "flow_id": _KEYWORD,
        "time": _DATE,
        "reason": _TEXT,
        "old": {"type": "object", "enabled": False},
        "new": {"type": "object", "enabled": False},
        SEQ_FIELD: {"type": "long"},
    }


def messages_properties() -> dict[str, Any]:
    """The ``properties`` of the message ledger index: which messages of which user the write path has memorized.

    ``user_id`` was added with per-user ledger keys; a ledger without it gains it (``put_mapping``),
    and its entries without it are legacy ones (see :func:`legacy_ledger_query`).
    """
    return {"workspace_id": _KEYWORD, "user_id": _KEYWORD, "message_id": _KEYWORD, "memorized_at": _DATE}


def message_doc_id(workspace_id: str, user_id: str, message_id: str) -> str:
    """The ``_id`` of a ledger entry: one per (workspace, user, message), length-prefixed so no two
    triples share it (two users may both send ``m1``)."""
    return doc_id(workspace_id, f"{len(user_id)}\x00{user_id}\x00{message_id}")


def history_doc(event: HistoryEvent, seq: int) -> dict[str, Any]:
    """The ``_source`` of a history event: the event as JSON plus its recording order ``seq`` and
    the ``target``s of its records (:attr:`HistoryEvent.targets`)."""
    doc = event.model_dump(mode="json")
    doc[SEQ_FIELD] = seq
    doc[TARGET_FIELD] = event.targets
    return doc


def event_from_source(source: dict[str, Any]) -> HistoryEvent:
    """A history event from a document's ``_source``."""
    source.pop(SEQ_FIELD, None)
    source.pop(TARGET_FIELD, None)
    return HistoryEvent.model_validate(source)


def message_doc(workspace_id: str, user_id: str, message_id: str, memorized_at: datetime | str) -> dict[str, Any]:
    """The ``_source`` of a memorized message's ledger entry (``memorized_at`` as a datetime or ISO text)."""
    when = memorized_at if isinstance(memorized_at, str) else iso(memorized_at)
    return {"workspace_id": workspace_id, "user_id": user_id, "message_id": message_id, "memorized_at": when}


def history_query(workspace_id: str, memory_id: str | None) -> dict[str, Any]:
    """The events of a workspace, or of one of its memories."""
    clauses: list[dict[str, Any]] = [{"term": {"workspace_id": workspace_id}}]
    if memory_id is not None:
        clauses.append({"term": {"memory_id": memory_id}})
    return {"bool": {"filter": clauses}}


# Events of one write share a `time` (to the second), so `seq` (the order they were recorded in)
# breaks the tie; `event_id` makes the order total, so `search_after` never skips or repeats one.
HISTORY_NEWEST_FIRST: list[dict[str, Any]] = [{"time": "desc"}, {SEQ_FIELD: "desc"}, {"event_id": "desc"}]


def memorized_query(workspace_id: str, user_id: str, message_ids: list[str]) -> dict[str, Any]:
    """The ledger entries of a user's messages in a workspace (by document id, and the workspace and user terms)."""
    ids = [message_doc_id(workspace_id, user_id, message_id) for message_id in message_ids]
    terms = [{"term": {"workspace_id": workspace_id}}, {"term": {"user_id": user_id}}]
    return {"bool": {"filter": [*terms, {"ids": {"values": ids}}]}}


def legacy_ledger_query() -> dict[str, Any]:
    """Ledger entries written before the ledger was per user: they have no ``user_id``."""
    return {"bool": {"must_not": [{"exists": {"field": "user_id"}}]}}


# Legacy entries are unique by (workspace, message), so this order is total for `search_after`.
LEGACY_LEDGER_ORDER: list[dict[str, Any]] = [{"workspace_id": "asc"}, {"message_id": "asc"}]


def derived_from_query(workspace_id: str, message_ids: list[str]) -> dict[str, Any]:
    """Memories of a workspace (any status) derived from any of these messages."""
    return {"bool": {"filter": [{"term": {"workspace_id": workspace_id}}, {"terms": {"source": message_ids}}]}}


def to_doc(memory: Memory, vector: np.ndarray) -> dict[str, Any]:
    """The ``_source`` of a memory: its record (naive ISO datetimes, no scores) plus the unit vector.

    The vector stays a float32 numpy row; the orjson serializer writes it as shortest float32
    decimals, which read back to the very same float32 values.
    """
    doc = memory.to_record()
    said, span = memory.message_time, event_span(memory)
    doc[DERIVED_FIELD] = {
        "said_at": None if said is None else iso(said),
        "happens_from": None if span is None else iso(span[0]),
        "happens_until": None if span is None else iso(span[1]),
    }
    doc[SLOTS_FIELD] = slot_index(memory)
    doc[LEXICAL_FIELD] = lexical_document(memory)
    doc[VECTOR_FIELD] = vector
    return doc


def slot_index(memory: Memory) -> dict[str, Any]:
    """What :data:`SLOTS_FIELD` holds for a memory."""
    slots = stored_slots(memory.metadata)
    return {"names": list(slots or ()), "values": list(slot_keywords(slots)["slot_values"]), "read": slots is not None}


def excluded_source(with_vectors: bool) -> list[str]:
    """The ``_source`` fields a read leaves out: derived times and lexical text always, the vector unless asked for."""
    fields = [DERIVED_FIELD, SLOTS_FIELD, LEXICAL_FIELD]
    return fields if with_vectors else [*fields, VECTOR_FIELD]


def vectors_excluded(settings: dict[str, Any]) -> bool:
    """Whether an index keeps its vectors out of the stored ``_source``, from a ``get_settings``
    answer (with ``include_defaults``; one index).

    Indices created by Elasticsearch 9.2+ do by default (``index.mapping.exclude_source_vectors``);
    reads that want the vectors must then ask for them (:func:`search_source`, :data:`KEEP_VECTORS`).
    Older servers do not know the setting: their answer lacks it, and they never exclude.
    """
    for index_settings in settings.values():
        for group in ("settings", "defaults"):
            found = index_settings.get(group, {}).get("index", {}).get("mapping", {}).get("exclude_source_vectors")
            if found is not None:
                return str(found).lower() == "true"
    return False


# The query parameter with which a read gets excluded vectors back (9.2+ only: older servers refuse it).
KEEP_VECTORS = {"_source_exclude_vectors": "false"}


def search_source(with_vectors: bool, vectors_excluded: bool) -> dict[str, Any]:
    """The ``_source`` filter of a search body: :func:`excluded_source`, and the vectors back when
    wanted from an index that excludes them (this body key, unlike the query parameter, is
    accepted by 8.19 and 9.x servers alike; it is still only sent where needed)."""
    source: dict[str, Any] = {"excludes": excluded_source(with_vectors)}
    if with_vectors and vectors_excluded:
        source["exclude_vectors"] = False
    return source


def from_source(source: dict[str, Any], scores: dict[str, float] | None = None) -> Memory:
    """A memory from a document's ``_source`` (with its vector if ``_source`` has one)."""
    source.pop(DERIVED_FIELD, None)
    source.pop(SLOTS_FIELD, None)
    source.pop(LEXICAL_FIELD, None)
    memory = Memory.model_validate(source)
    if scores:
        memory.scores = scores
    return memory


def iso(value: datetime) -> str:
    """A naive wall-clock datetime as Elasticsearch reads it (no zone, so read as UTC: wall clock kept)."""
    return value.isoformat()


def epoch_millis(value: datetime) -> int:
    """A naive wall-clock datetime as the milliseconds a ``date`` field sorts by (read as UTC, as :func:`iso`)."""
    return (value - datetime(1970, 1, 1)) // timedelta(milliseconds=1)


def filter_clauses(workspace_id: str, filters: MemoryFilter) -> list[dict[str, Any]]:
    """The query clauses (ANDed, non-scoring) for a workspace scope plus a :class:`MemoryFilter`,
    each condition built from its :class:`~flowmem.vector_store.filters.FilterSpec`.

    The workspace term always comes first: no query this store sends lacks it. Time bounds go out
    floored to the whole second, and ``x > t`` as ``x >= t + 1 s``: with the index's millisecond
    dates that compares exactly as :meth:`MemoryFilter.matches` does (to the whole second).

    Raises:
        UnsupportedFilterError: A condition on a subject without a field here (the store base
            refuses those first; this guards a caller that bypasses it).
    """
    clauses: list[dict[str, Any]] = [{"term": {"workspace_id": workspace_id}}]
    for _name, spec, value in filters.conditions():
        clauses.extend(_condition(spec, value))
    return clauses


def _condition(spec: FilterSpec, value: Any) -> list[dict[str, Any]]:
    kind, field = spec.kind, FILTER_FIELDS.get(spec.subject)
    if field is None:
        raise UnsupportedFilterError(f"the elasticsearch store cannot filter on {spec.subject}")
    if kind == "one_of":
        return [{"terms": {field: list(value)}}]
    if kind == "parts":
        return [{"term": {name: part}} for name, part in value]
    if kind == "contains":
        return [{"term": {field: value}}]
    if kind == "shares":
        shares: dict[str, Any] = {"terms": {field: [v for v in value if v != UNREAD_SLOTS]}}
        if spec.subject != "slot_names" or UNREAD_SLOTS not in value:
            return [shares]
        # Unread: not stored with the memory (read false), or a document from before the field (no read at all).
        unread = {"bool": {"must_not": [{"term": {f"{SLOTS_FIELD}.read": True}}]}}
        return [{"bool": {"should": [shares, unread], "minimum_should_match": 1}}]
    if kind == "at_least":
        return [{"range": {field: {"gte": iso(second(value))}}}]
    if kind == "before":
        return [{"range": {field: {"lt": iso(second(value))}}}]
    if kind == "within":
        return [{"range": {field: {"gte": iso(second(value[0])), "lt": iso(second(value[1]))}}}]
    # overlaps: the span [from, until) overlaps [low, high): from < high and until > low
    low, high = value
    return [
        {"range": {f"{field}_from": {"lt": iso(second(high))}}},
        {"range": {f"{field}_until": {"gte": iso(second(low) + timedelta(seconds=1))}}},
    ]


def bool_query(workspace_id: str, filters: MemoryFilter) -> dict[str, Any]:
    """A ``bool`` query of :func:`filter_clauses` (filter context: no scoring, cacheable)."""
    return {"bool": {"filter": filter_clauses(workspace_id, filters)}}


def candidates(top_k: int, configured: int | None) -> int:
    """``num_candidates`` for a kNN search of ``top_k``: the setting, else max(100, 10·k); never below k."""
    wanted = configured if configured is not None else max(100, 10 * top_k)
    return min(max(wanted, top_k), MAX_CANDIDATES)


def cosine_from_score(similarity: str, score: float) -> float:
    """The cosine similarity behind a kNN ``_score`` (vectors are unit length, so all four agree).

    Elasticsearch scores ``cosine`` and ``dot_product`` as ``(1 + cos) / 2``, ``l2_norm`` as
    ``1 / (1 + d²)`` with ``d² = 2 - 2·cos``, and ``max_inner_product`` as ``dot + 1`` (dot ≥ 0)
    or ``1 / (1 - dot)``.
    """
    if similarity in ("cosine", "dot_product"):
        return 2.0 * score - 1.0
    if similarity == "l2_norm":
        return 1.0 - (1.0 / score - 1.0) / 2.0
    if similarity == "max_inner_product":
        return score - 1.0 if score >= 1.0 else 1.0 - 1.0 / score
    raise ValueError(f"unknown similarity {similarity!r}; known: {', '.join(SIMILARITIES)}")


def knn_clause(
    query: np.ndarray,
    top_k: int,
    num_candidates: int,
    clauses: list[dict[str, Any]],
    index_options: dict[str, Any],
) -> dict[str, Any]:
    """The ``knn`` search option: filters inside the clause (a pre-filter, so k hits survive them).

    Quantised ``index_options`` get a float rescore of 2× oversampled candidates, unless the index
    options configure their own ``rescore_vector``: that keeps the scores exact cosines.
    """
    knn: dict[str, Any] = {
        "field": VECTOR_FIELD,
        "query_vector": query.tolist(),
        "k": top_k,
        "num_candidates": num_candidates,
        "filter": clauses,
    }
    if index_options.get("type") in QUANTISED_TYPES and "rescore_vector" not in index_options:
        knn["rescore_vector"] = {"oversample": 2.0}
    return knn


def short_reason(error: Any, limit: int = 300) -> str:
    """``type: reason`` of an Elasticsearch error object and its innermost cause, in at most ~``limit`` characters.

    The cause is kept whole (it is usually the useful part, e.g. "out of range of int"); the outer
    reason is trimmed and loses the hashed document id, which means nothing to a reader.
    """
    if not isinstance(error, dict):
        return _trim(" ".join(str(error).split()), limit)
    reason = re.sub(r" ?in document with id '[^']*'", "", str(error.get("reason", "")))
    text = _trim(" ".join(f"{error.get('type', 'error')}: {reason}".split()), limit // 2)
    cause, inner = error.get("caused_by"), None
    while isinstance(cause, dict):
        inner, cause = cause, cause.get("caused_by")
    if inner is not None and inner.get("reason"):
        first_line = " ".join(str(inner["reason"]).splitlines()[0].split())
        text += f" (caused by {inner.get('type', 'error')}: {_trim(first_line, limit // 2)})"
    return text


def _trim(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
