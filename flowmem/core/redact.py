"""Keeping secrets out of everything flowmem prints: ``config show``, error messages, logs and stats.

One set of rules, used everywhere:

- **URLs**: the userinfo of every URL, wherever it sits in a text, becomes ``***``
  (``http://elastic:pw@host:9200`` → ``http://***@host:9200``). ``FLOWMEM_ES_URL`` and the
  ``base_url`` of a server may carry credentials; a user name alone can be a token.
- **Secret variables**: a value that came from an environment variable with a secret-looking name
  (:data:`SECRET_VARIABLE`: ``${ES_PASSWORD}``, ``${OPENAI_API_KEY}``) is replaced whole where it
  sits, in nested mappings and lists alike; in free text (error messages) every occurrence of such a
  value of at least :data:`MIN_SECRET_LENGTH` characters is replaced.
- **Secret settings**: the value of a setting with a secret-looking name (:data:`SECRET_SETTING`:
  ``api_key``, ``password``, ``token``, …) is replaced, unless it is empty.

Every warning, degradation and error flowmem shows passes through :func:`redact_text` with the set of
every secret value the config holds (:attr:`flowmem.config.loader.ResolvedConfig.secret_values`: secret
settings and variables, the service's API keys, and the environment variables backends fall back to): a
server that echoes the key it was sent ("Incorrect API key provided: sk-…") must not make flowmem print it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Any

REDACTED = "***"
# Names of environment variables whose values are secrets (broad: a variable's name says what it holds).
SECRET_VARIABLE = re.compile(r"key|token|secret|password|passwd|credential|auth", re.IGNORECASE)
# Names of settings whose values are secrets (narrow: `recall_key` is a context key, not a secret).
SECRET_SETTING = re.compile(r"api_?key|password|passwd|secret|token|credential|authorization", re.IGNORECASE)
# Shorter values are redacted where they sit but not searched for in text, where they would
# blank out ordinary words (an API key of "none" or "x" for a local server).
MIN_SECRET_LENGTH = 6

# scheme://userinfo@ — userinfo runs to the last @ before the host: a password may hold an unescaped @, / or #
# (`http://elastic:pa/ss#w@host`). Only a host with a port before the first / ? # (`http://host:9200/a@b`)
# ends the authority there, so an @ in its path stays. A mistyped scheme (`http:/`) and a bare
# `user:password@host` count too: they are what a user would mistype.
_URL = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*:/{1,3})(?P<rest>[^\s'\"]*)")
_HOST_PORT = re.compile(r"(?:[\w.-]+|\[[0-9A-Fa-f:.]+\]):\d+")
_BARE_USERINFO = re.compile(r"(?<![\w/.:@-])[^\s/?#@:'\"]+:[^\s/@'\"][^\s@'\"]*@(?=[\w\[])")

Path = tuple[str, ...]


def redact_url(text: str) -> str:
    """``text`` with the userinfo of every URL in it replaced by ``***``."""
    if "@" not in text:
        return text
    text = _URL.sub(_without_userinfo, text)
    return _BARE_USERINFO.sub(f"{REDACTED}@", text)


def _without_userinfo(url: re.Match[str]) -> str:
    rest = url.group("rest")
    at = rest.rfind("@")
    head = rest[: min((i for i in map(rest.find, "/?#") if i >= 0), default=len(rest))]
    if at >= len(head) and _HOST_PORT.fullmatch(head.rpartition("@")[2]):
        at = head.rfind("@")  # `host:port/…`: the authority ends at the path, and an @ in the path is not userinfo
    if at < 0:
        return url.group(0)
    return f"{url.group('scheme')}{REDACTED}@{rest[at + 1 :]}"


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` (an error message, a log line) with URL userinfo and every known secret value redacted.

    Args:
        text: The text.
        secrets: Secret values (e.g. of ``${ES_PASSWORD}``); those shorter than :data:`MIN_SECRET_LENGTH`
            are left alone.
    """
    for secret in sorted({s for s in secrets if len(s) >= MIN_SECRET_LENGTH}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return redact_url(text)


def setting_secrets(value: Any) -> set[str]:
    """The values of every secret setting (:data:`SECRET_SETTING`) in ``value`` (nested mappings and lists)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str) and item and SECRET_SETTING.search(str(key)):
                found.add(item)
            else:
                found |= setting_secrets(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            found |= setting_secrets(item)
    return found


def redact(value: Any, secret_paths: Collection[Path] = (), *, path: Path = ()) -> Any:
    """A copy of ``value`` (nested mappings, lists, scalars) with every secret redacted.

    Args:
        value: The data, e.g. a config dumped to plain data.
        secret_paths: Paths (keys and list indexes as text) whose values came from secret variables.
        path: Where ``value`` sits (for recursion).
    """
    if path in secret_paths and value not in (None, ""):
        return REDACTED
    if isinstance(value, dict):
        return {
            key: REDACTED
            if SECRET_SETTING.search(str(key)) and item not in (None, "")
            else redact(item, secret_paths, path=(*path, str(key)))
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [redact(item, secret_paths, path=(*path, str(i))) for i, item in enumerate(value)]
    if isinstance(value, str):
        return redact_url(value)
    return value
