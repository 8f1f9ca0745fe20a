"""Loading a config in layers, later wins: package defaults → ``FLOWMEM_CONFIG`` → ``-c FILE|PRESET``
(repeatable) → ``key=value`` overrides. Then ``${ENV}`` interpolation, schema validation, and a check
of every op and backend entry against the registries. All problems are reported together.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from flowmem.config.interpolate import interpolate
from flowmem.config.overrides import Override, apply_override, parse_override
from flowmem.config.schema import ENTRY_MODELS, SECTIONS, SETTINGS_SECTIONS, Config
from flowmem.config.settings import BackendSetting, OpSetting, resolve_backend, resolve_op
from flowmem.core.backend import BACKEND_KINDS
from flowmem.core.errors import ConfigError, Problem
from flowmem.core.redact import SECRET_SETTING, redact_text, setting_secrets
from flowmem.core.safe_yaml import safe_load
from flowmem.core.suggest import did_you_mean, one_of, unknown
from flowmem.flow.plugins import load_builtins

ConfigSource = str | Path | Mapping[str, Any]
PRESET_PACKAGE = "flowmem.configs"
DEFAULT_PRESET = "default"


@dataclass
class ResolvedConfig:
    """A validated config with its resolved op and backend entries.

    Attributes:
        config: The merged, interpolated, validated config.
        layers: Where each layer came from, in order.
        secret_paths: Paths whose values came from secret variables and must not be printed.
        secret_values: Every secret value the config holds or its backends read (see :func:`_secret_values`):
            what every warning and error flowmem shows leaves out.
        ops: Resolved op entries of the ``op`` section, by name.
        backends: Resolved backend entries, by (kind, name).
    """

    config: Config
    layers: list[str] = field(default_factory=list)
    secret_paths: set[tuple[str, ...]] = field(default_factory=set)
    secret_values: set[str] = field(default_factory=set)
    ops: dict[str, OpSetting] = field(default_factory=dict)
    backends: dict[tuple[str, str], BackendSetting] = field(default_factory=dict)

    def op(self, label: str, where: str) -> tuple[OpSetting | None, list[Problem]]:
        """The resolved op a flow names ``label`` (a configured entry or a registered op with defaults)."""
        if label in self.ops:
            return self.ops[label], []
        return resolve_op(label, self.config, where)


def presets() -> list[str]:
    """Names of the shipped config presets (``configs/*.yaml``)."""
    return sorted(
        p.name[: -len(".yaml")] for p in resources.files(PRESET_PACKAGE).iterdir() if p.name.endswith(".yaml")
    )


def load_config(
    sources: ConfigSource | Sequence[ConfigSource] | None = None,
    overrides: Sequence[str] = (),
    *,
    environ: Mapping[str, str] | None = None,
    defaults: bool = True,
) -> ResolvedConfig:
    """Resolve a configuration.

    Args:
        sources: Config files (paths), preset names, or mappings, applied in order.
        overrides: ``key=value`` strings, applied last.
        environ: The environment for ``FLOWMEM_CONFIG`` and ``${ENV}`` (default: ``os.environ``).
        defaults: Start from the package's ``default`` preset.

    Raises:
        ConfigError: Every problem found, together.
    """
    load_builtins()  # the registries are checked below
    env = os.environ if environ is None else environ
    layers: list[ConfigSource] = [DEFAULT_PRESET] if defaults else []
    layers += [s for s in env.get("FLOWMEM_CONFIG", "").split(os.pathsep) if s.strip()]
    if isinstance(sources, (str, Path, Mapping)):
        layers.append(sources)
    elif sources is not None:
        layers.extend(sources)

    problems: list[Problem] = []
    tree: dict[str, Any] = {}
    described: list[str] = []
    for source in layers:
        layer, where = _read_layer(source, problems)
        described.append(where)
        if layer is not None:
            _merge_layer(tree, layer, where, problems)

    secret_values: set[str] = set()
    for text in overrides:
        key, _, raw = text.partition("=")
        if SECRET_SETTING.search(key.rsplit(".", 1)[-1]) and raw:
            secret_values.add(raw)  # `llm.default.params.api_key=sk-…` is as secret as ${OPENAI_API_KEY}
        try:
            override: Override = parse_override(text)
        except ConfigError as exc:
            problems.extend(exc.problems)
            continue
        problem = apply_override(tree, override)
        if problem:
            problems.append(problem)
        else:
            described.append(f"override {text}")

    tree, env_problems, secrets, env_secrets = interpolate(tree, env)
    secret_values |= env_secrets
    problems += env_problems
    if problems:
        raise _config_error(problems, secret_values)

    try:
        config = Config.model_validate(tree)
    except ValidationError as exc:
        raise _config_error([_schema_problem(e) for e in exc.errors()], secret_values) from None

    resolved = ResolvedConfig(config, described, secrets, secret_values)
    for label in config.op:
        setting, op_problems = resolve_op(label, config, f"op.{label}")
        problems += op_problems
        if setting:
            resolved.ops[label] = setting
    for kind in BACKEND_KINDS:
        for name, entry in config.backends(kind).items():
            backend, backend_problems = resolve_backend(kind, name, entry)
            problems += backend_problems
            if backend:
                resolved.backends[(kind, name)] = backend
    if problems:
        raise _config_error(problems, secret_values)
    resolved.secret_values |= _secret_values(resolved, env)
    return resolved


def _secret_values(resolved: ResolvedConfig, env: Mapping[str, str]) -> set[str]:
    """The secrets of a valid config beyond its secret variables: secret settings written as text, the
    service's API keys, and the variables its backends take a key from when none is set (``OPENAI_API_KEY``)."""
    config = resolved.config
    found = setting_secrets(config.model_dump(mode="json")) | {key.key for key in config.server.api_keys}
    for backend in resolved.backends.values():
        found |= {env[name] for name in backend.backend_cls.secret_variables if env.get(name)}
    return found


def _config_error(problems: list[Problem], secret_values: set[str]) -> ConfigError:
    """The error for ``problems``, with secrets and URL credentials left out of every message."""
    return ConfigError(
        [Problem(*(redact_text(part, secret_values) for part in (p.where, p.message, p.detail))) for p in problems]
    )


def _read_layer(source: ConfigSource, problems: list[Problem]) -> tuple[dict[str, Any] | None, str]:
    if isinstance(source, Mapping):
        return dict(source), "mapping"
    text = str(source)
    is_file = isinstance(source, Path) or text.endswith((".yaml", ".yml")) or os.sep in text or Path(text).is_file()
    if not is_file:
        where = f"preset '{text}'"
        available = presets()
        if text not in available:
            problems.append(
                Problem("-c", f"{unknown('config preset', text, available)}, or give a path to a YAML file")
            )
            return None, where
        body = resources.files(PRESET_PACKAGE).joinpath(f"{text}.yaml").read_text(encoding="utf-8")
    else:
        where = f"config file '{text}'"
        try:
            body = Path(text).expanduser().read_text(encoding="utf-8")
        except OSError as exc:
            problems.append(Problem(where, f"cannot be read: {exc.strerror or exc}"))
            return None, where
        except UnicodeDecodeError as exc:
            byte = exc.object[exc.start : exc.start + 1].hex()
            problems.append(Problem(where, f"not UTF-8 text (byte 0x{byte} at offset {exc.start}); save it as UTF-8"))
            return None, where
    try:
        data = safe_load(body)
    except yaml.YAMLError as exc:
        problems.append(Problem(where, "is not valid YAML: " + " ".join(str(exc).split())))
        return None, where
    if data is None:
        return {}, where
    if not isinstance(data, dict):
        problems.append(
            Problem(where, f"must be a mapping of sections ({one_of(SECTIONS)}), got {type(data).__name__}")
        )
        return None, where
    return data, where


def _merge_layer(tree: dict[str, Any], layer: dict[str, Any], where: str, problems: list[Problem]) -> None:
    for section, entries in layer.items():
        if section not in SECTIONS:
            problems.append(Problem(where, unknown("config section", str(section), SECTIONS)))
            continue
        if entries is None:
            continue
        if not isinstance(entries, dict):
            problems.append(
                Problem(where, f"section '{section}' must map names to entries, got {type(entries).__name__}")
            )
            continue
        target = tree.setdefault(section, {})
        for name, entry in entries.items():
            if entry is None:  # `name: null` removes an entry an earlier layer defined
                target.pop(name, None)
            elif isinstance(entry, dict) and isinstance(target.get(name), dict):
                target[name] = _deep_merge(target[name], entry)
            else:
                target[name] = entry


def _deep_merge(base: dict[str, Any], layer: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in layer.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _schema_problem(error: Any) -> Problem:
    loc = error["loc"]
    where = ".".join(str(part) for part in loc)
    if error["type"] == "extra_forbidden":
        choices: Sequence[str] = SECTIONS if len(loc) == 1 else ()
        if len(loc) == 3 and loc[0] in ENTRY_MODELS:
            choices = list(ENTRY_MODELS[loc[0]].model_fields)
        if len(loc) == 2 and loc[0] in SETTINGS_SECTIONS:
            choices = list(SETTINGS_SECTIONS[loc[0]].model_fields)
        name = str(loc[-1])
        return Problem(where, f"is not a known setting{did_you_mean(name, choices)} ({one_of(choices)})")
    if error["type"] == "missing":
        return Problem(where, "is required")
    return Problem(where, f"{error['msg']} (got {error['input']!r})")
