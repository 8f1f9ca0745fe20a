"""``key=value`` overrides such as ``op.fuse_rerank_op.params.fuse_time_ratio=3``.

The key is a dotted path of identifiers; the value is YAML (``3`` is an int, ``true`` a bool,
``[a, b]`` a list, ``{x: 1}`` a mapping). Where the setting is text (a flow expression, a
description, a ``language`` param), the value is taken verbatim, so ``language=no`` stays
``"no"`` and ``description=@home`` is ``"@home"`` although it is not valid YAML.
A path below a mapping param sets one entry and keeps the others:
``op.fuse_rerank_op.params.fuse_ratio_dict.insight=1.0`` changes the insight ratio only (the
op's default mapping is the starting point when no layer set the param).
Every path is checked against the config schema and the registered ops and backends before it
is applied; a wrong one is a :class:`~flowmem.core.errors.ConfigError` saying what would be valid.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

import yaml
from pydantic import BaseModel

from flowmem.config.schema import BACKEND_SECTIONS, ENTRY_MODELS, SECTIONS, SETTINGS_SECTIONS
from flowmem.core.annotations import accepts_mapping, allows_none, is_text
from flowmem.core.backend import BACKENDS
from flowmem.core.errors import ConfigError, Problem
from flowmem.core.safe_yaml import safe_load
from flowmem.core.suggest import did_you_mean, one_of, unknown
from flowmem.flow.op import OPS

SEGMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


@dataclass(frozen=True)
class Override:
    """One parsed ``path=value`` override."""

    text: str
    path: tuple[str, ...]
    value: Any
    raw: str
    yaml_error: str | None = None  # why ``raw`` is not YAML; fine where the setting is text


def parse_override(text: str) -> Override:
    """Parse ``a.b.c=value``.

    A value that is not valid YAML is kept as text: it is an error only where the setting is not
    text (:func:`apply_override` decides).

    Raises:
        ConfigError: No ``=``, or a malformed path (empty, spaces, dots at the ends, bad characters).
    """
    where = f"override {text!r}"
    if not isinstance(text, str) or "=" not in text:
        raise ConfigError(Problem(where, "expected key=value, e.g. op.fuse_rerank_op.params.fuse_time_ratio=3"))
    key, raw = text.split("=", 1)
    path = tuple(key.split("."))
    bad = [segment for segment in path if not SEGMENT.match(segment)]
    if bad or len(path) < 2:
        reason = (
            f"'{bad[0]}' is not a valid path segment (letters, digits, _ and -, not starting with a digit)"
            if bad
            else "the key needs a section and a name, e.g. op.<op>.params.<param>=value "
            "(flow inputs are not overrides: on the CLI give them with --input key=value)"
        )
        raise ConfigError(Problem(where, f"malformed key '{key}': {reason}"))
    try:
        value = safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError as exc:
        return Override(text, path, None, raw, yaml_error=" ".join(str(exc).split()))
    return Override(text, path, value, raw)


def apply_override(tree: dict[str, Any], override: Override) -> Problem | None:
    """Check ``override``'s path against the schema and set it in ``tree`` (a raw config mapping).

    Returns:
        A problem, or ``None`` when the override was applied.
    """
    where = f"override '{override.text}'"
    error, annotation = check_path(tree, override.path)
    if error:
        return Problem(where, error)
    value = override.value
    if is_text(annotation) and not (override.yaml_error is None and value is None and allows_none(annotation)):
        value = override.raw  # text settings are taken verbatim: `prefix=hi ` keeps its space, `language=no` is "no"
    elif override.yaml_error is not None:
        return Problem(where, f"the value is not valid YAML: {override.yaml_error}")
    node = tree
    for depth, segment in enumerate(override.path[:-1]):
        child = node.get(segment)
        if child is None:
            child = node[segment] = _param_default(tree, override.path[: depth + 1])
        elif not isinstance(child, dict):
            prefix = ".".join(override.path[: depth + 1])
            return Problem(where, f"'{prefix}' holds {type(child).__name__} value, not a mapping")
        node = child
    node[override.path[-1]] = value
    return None


def check_path(tree: dict[str, Any], path: tuple[str, ...]) -> tuple[str | None, Any]:
    """Whether ``path`` names a setting the schema has. Returns (error or None, the setting's type)."""
    section = path[0]
    if section not in SECTIONS:
        return unknown("config section", section, SECTIONS), None
    name = path[1]
    if section in SETTINGS_SECTIONS:  # plain settings (`limits.query_max_chars=…`), not named entries
        fields = SETTINGS_SECTIONS[section].model_fields
        if name not in fields:
            return f"{section} has no setting '{name}'{did_you_mean(name, fields)} ({one_of(fields)})", None
        if len(path) > 2:
            return f"'{section}.{name}' is not a mapping, so nothing can be set below it", None
        return None, fields[name].annotation
    entries = tree.get(section) or {}
    if section == "op" and name not in entries and name not in OPS and path[2:] != ("backend",):
        choices = set(OPS.names()) | set(entries)
        return (
            f"{unknown('op', name, choices)}; to add an op under a new name set op.{name}.backend=<registered op>",
            None,
        )
    if len(path) == 2:
        return None, dict
    model = ENTRY_MODELS[section]
    field = path[2]
    if field not in model.model_fields:
        fields = model.model_fields
        return f"{section} entries have no field '{field}'{did_you_mean(field, fields)} ({one_of(fields)})", None
    annotation: Any = model.model_fields[field].annotation
    depth = 3
    if field == "params" and len(path) > 3:
        params_model, owner = _params_model(tree, section, name)
        if params_model is None:
            return None, Any  # the implementation is unknown yet; full validation reports it
        param = path[3]
        if param not in params_model.model_fields:
            fields = params_model.model_fields
            return f"{owner} has no param '{param}'{did_you_mean(param, fields)} ({one_of(fields)})", None
        annotation, depth = params_model.model_fields[param].annotation, 4
    if len(path) > depth:
        if not accepts_mapping(annotation):
            return f"'{'.'.join(path[:depth])}' is not a mapping, so nothing can be set below it", None
        return None, Any
    return None, annotation


def _param_default(tree: dict[str, Any], prefix: tuple[str, ...]) -> dict[str, Any]:
    """What a mapping param holds before an override sets one entry of it: its declared default
    (``fuse_ratio_dict.insight=1.0`` changes one ratio, not all four); ``{}`` for anything else."""
    if len(prefix) != 4 or prefix[2] != "params":
        return {}
    params_model, _ = _params_model(tree, prefix[0], prefix[1])
    info = params_model.model_fields.get(prefix[3]) if params_model is not None else None
    if info is None or info.is_required():
        return {}
    default = info.get_default(call_default_factory=True)
    if isinstance(default, BaseModel):
        default = default.model_dump(mode="json")
    return copy.deepcopy(default) if isinstance(default, dict) else {}


def _params_model(tree: dict[str, Any], section: str, name: str) -> tuple[type[BaseModel] | None, str]:
    entry = (tree.get(section) or {}).get(name) or {}
    backend = entry.get("backend") if isinstance(entry, dict) else None
    if section == "op":
        op_name = backend or name
        return (OPS.get(op_name).Params, f"op '{op_name}'") if op_name in OPS else (None, "")
    if section in BACKEND_SECTIONS and isinstance(backend, str):
        registry = BACKENDS[section]
        if backend in registry:
            return registry.get(backend).Params, f"{section} backend '{backend}'"
    return None, ""
