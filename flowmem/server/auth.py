"""Who may call: API keys from ``server.api_keys``, each bound to workspaces, read-only or read-write.

One rule, used by the HTTP routes and the MCP tools alike: a request presents a key
(``Authorization: Bearer KEY`` or ``X-API-Key: KEY``); no key or an unknown one is 401, a workspace
outside the key's list or a write with a read-only key is 403 — checked before the memory service is
called, so nothing is read or written. With no keys configured, every caller may use every workspace
(the server then binds to loopback only: :func:`check_bind`).

Keys are compared in constant time and never logged or echoed: errors and logs name the key's
``name``. A request with two ``Authorization`` (or two ``X-API-Key``) headers is refused (400): a proxy
or a framework reading the first could then disagree with the check reading the last.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from flowmem.config.schema import ApiKey
from flowmem.core.errors import ConfigError, FlowmemError, InputError, Problem

ALL = "*"


class AuthError(FlowmemError):
    """A request without a valid key (401) or beyond what its key allows (403)."""

    exit_code = 2

    def __init__(self, status: int, message: str):
        self.status = status
        super().__init__(message)


@dataclass(frozen=True)
class Grant:
    """What the caller's key allows.

    Attributes:
        name: The key's name (``"local"`` when the server has no keys).
        workspaces: The workspaces it may use (``("*",)``: every one).
        read_only: It may not write.
    """

    name: str
    workspaces: tuple[str, ...]
    read_only: bool = False

    def check(self, workspace_id: str, *, write: bool = False) -> None:
        """Raise :class:`AuthError` (403) unless this key may use ``workspace_id`` (and write, if ``write``)."""
        if ALL not in self.workspaces and workspace_id not in self.workspaces:
            # The message names only the caller's own workspaces: nothing about who else exists.
            raise AuthError(
                403, f"key '{self.name}' may not use workspace '{workspace_id}' (it may use: {self.allowed()})"
            )
        if write and self.read_only:
            raise AuthError(403, f"key '{self.name}' is read-only; this request writes (use a read-write key)")

    def allowed(self) -> str:
        return "every workspace" if ALL in self.workspaces else ", ".join(self.workspaces)


OPEN = Grant("local", (ALL,))


class Keyring:
    """The configured keys, looked up by what a request presents."""

    def __init__(self, keys: Sequence[ApiKey]):
        self._keys = list(keys)

    @property
    def open(self) -> bool:
        """No keys are configured: every caller may use every workspace."""
        return not self._keys

    @property
    def secrets(self) -> set[str]:
        """The key values (to redact from anything printed)."""
        return {k.key for k in self._keys}

    def grant(self, headers: Mapping[str, str]) -> Grant:
        """The grant of the key in ``headers`` (case-insensitive names; ``items()`` gives every header, a
        repeated one too, as Starlette's ``Headers`` does).

        Raises:
            AuthError: 401 when keys are configured and none, or an unknown one, is presented.
            InputError: Keys are configured and a key header is sent twice (400).
        """
        if self.open:
            return OPEN
        presented = _presented(headers)
        if presented is None:
            raise AuthError(401, "no API key: send 'Authorization: Bearer KEY' (or 'X-API-Key: KEY')")
        found = None
        for key in self._keys:  # every key compared, in constant time: no timing hint of a near match
            if hmac.compare_digest(key.key.encode(), presented.encode()):
                found = key
        if found is None:
            raise AuthError(401, "the API key is not valid")
        return Grant(found.name, tuple(found.workspaces), found.read_only)


# The headers a key may come in, by lower-case name.
_KEY_HEADERS = {"authorization": "Authorization", "x-api-key": "X-API-Key"}


def _presented(headers: Mapping[str, str]) -> str | None:
    lowered: dict[str, str] = {}
    for name, value in headers.items():
        name = name.lower()
        if name in lowered and name in _KEY_HEADERS:
            raise InputError(Problem(_KEY_HEADERS[name], "is sent twice; send the API key once, in one header"))
        lowered[name] = value
    value = lowered.get("authorization", "")
    scheme, _, token = value.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    api_key = lowered.get("x-api-key", "").strip()
    return api_key or None


def check_bind(host: str, keyring: Keyring) -> None:
    """Refuse to listen beyond this machine without API keys.

    Raises:
        ConfigError: ``host`` is not a loopback address and no keys are configured.
    """
    if keyring.open and not is_loopback(host):
        raise ConfigError(
            Problem(
                "--host",
                f"{host} is reachable from other machines, and no server.api_keys are configured: anyone could read "
                "and erase every memory. Add keys (see `flowmem serve --help`) or bind to 127.0.0.1",
            )
        )


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (``localhost`` counts)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
