"""How host names and web origins are written: in ``server.allowed_hosts``/``server.cors_origins``, and in the
``Host`` and ``Origin`` headers of requests. One normal form for both, so a setting and a header compare equal.

A host name is lowercase, without a port, brackets (IPv6) or a trailing dot: ``localhost``, ``::1``,
``memory.example.com``. A web origin is ``scheme://host[:port]``, lowercase, with no path.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

ANY = "*"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_BINDS = ("0.0.0.0", "::", "")
ORIGIN_SCHEMES = ("http", "https")


def host_name(text: str) -> str:
    """``text`` (a configured host name) in normal form.

    Raises:
        ValueError: It has a scheme, a path or a port, or is empty.
    """
    name = _normal(text.strip().strip("[]"))
    if name == ANY:
        return name
    if not name or "/" in name or (":" in name and not _is_ipv6(name)):
        raise ValueError(f"{text!r} is not a host name: give the name alone, e.g. memory.example.com or 10.0.0.5 "
                         "(no scheme, port or path)")  # fmt: skip
    return name


def web_origin(text: str) -> str:
    """``text`` (a configured web origin) in normal form (``*``: any page).

    Raises:
        ValueError: It is not ``scheme://host[:port]`` with scheme http or https.
    """
    if text.strip() == ANY:
        return ANY
    parts = urlsplit(text.strip().rstrip("/").lower())
    if parts.scheme not in ORIGIN_SCHEMES or not parts.hostname or parts.path or parts.query or parts.fragment:
        raise ValueError(f"{text!r} is not a web origin: give scheme://host[:port] with scheme "
                         f"{' or '.join(ORIGIN_SCHEMES)}, e.g. http://localhost:3000 (no path)")  # fmt: skip
    return f"{parts.scheme}://{parts.netloc}"


def header_host(value: str) -> str | None:
    """The host name of a ``Host`` header (its port dropped); None when it is not one."""
    value = value.strip()
    if value.startswith("["):
        inside, bracket, rest = value[1:].partition("]")
        return _normal(inside) if bracket and (not rest or rest[1:].isdigit()) and rest[:1] in ("", ":") else None
    name, colon, port = value.rpartition(":")
    if not colon:
        name = value
    elif not port.isdigit():
        return None
    return _normal(name) if name and "/" not in name and ":" not in name else None


def origin_host(value: str) -> str | None:
    """The host name of an ``Origin`` header; None when it names none (``null``, a malformed value)."""
    try:
        parts = urlsplit(value.strip())
        hostname = parts.hostname
    except ValueError:
        return None
    return _normal(hostname) if parts.scheme in ORIGIN_SCHEMES and hostname else None


def _normal(name: str) -> str:
    return name.lower().rstrip(".")


def _is_ipv6(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).version == 6
    except ValueError:
        return False
