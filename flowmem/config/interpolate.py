"""``${VAR}`` and ``${VAR:-default}`` in config values; ``$${`` writes a literal ``${``."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from flowmem.core.errors import Problem
from flowmem.core.redact import SECRET_VARIABLE

_REFERENCE = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def interpolate(
    value: Any, environ: Mapping[str, str] | None = None, path: tuple[str, ...] = ()
) -> tuple[Any, list[Problem], set[tuple[str, ...]], set[str]]:
    """Replace environment references in every string of ``value``.

    Returns:
        The new value, the problems (unset variables without a default, malformed references),
        the paths whose value came from a variable with a secret-looking name, and the values
        those variables gave (both to redact, see :mod:`flowmem.core.redact`).
    """
    env = os.environ if environ is None else environ
    problems: list[Problem] = []
    secrets: set[tuple[str, ...]] = set()
    secret_values: set[str] = set()

    def walk(item: Any, at: tuple[str, ...]) -> Any:
        if isinstance(item, dict):
            return {k: walk(v, (*at, str(k))) for k, v in item.items()}
        if isinstance(item, list):
            return [walk(v, (*at, str(i))) for i, v in enumerate(item)]
        if isinstance(item, str) and "$" in item:
            return substitute(item, at)
        return item

    def substitute(text: str, at: tuple[str, ...]) -> str:
        def replace(match: re.Match[str]) -> str:
            if match.group(0) == "$${":
                return "${"
            name, default = match.group(1), match.group(2)
            secret = SECRET_VARIABLE.search(name) is not None
            if secret:
                secrets.add(at)
            if name in env or default is not None:
                given = env[name] if name in env else str(default)
                if secret and given:
                    secret_values.add(given)
                return given
            problems.append(
                Problem(
                    ".".join(at),
                    f"environment variable {name} is not set (write ${{{name}:-default}} to give a default)",
                )
            )
            return ""

        if "${" in _REFERENCE.sub("", text):
            problems.append(Problem(".".join(at), f"malformed environment reference in {text!r}: write ${{NAME}}"))
            return text
        return _REFERENCE.sub(replace, text)

    return walk(value, path), problems, secrets, secret_values
