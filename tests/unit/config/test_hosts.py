"""Host names and web origins in one normal form: settings and headers compare equal (flowmem.config.hosts)."""

from __future__ import annotations

import pytest

from flowmem.config.hosts import header_host, host_name, origin_host, web_origin


def test_configured_names_and_origins_are_normalised_or_refused_with_the_shape() -> None:
    assert [host_name(n) for n in ("Memory.Example.com.", "[::1]", "10.0.0.5", "*")] == [
        "memory.example.com", "::1", "10.0.0.5", "*"]  # fmt: skip
    for bad in ("http://memory.example.com", "memory.example.com:8765", "a/b", ""):
        with pytest.raises(ValueError, match="no scheme, port or path"):
            host_name(bad)
    assert web_origin("HTTP://App.test:3000/") == "http://app.test:3000" and web_origin("*") == "*"
    for bad in ("app.test", "ftp://app.test", "http://app.test/page"):
        with pytest.raises(ValueError, match="scheme://host"):
            web_origin(bad)


def test_header_values_give_their_host_name_or_none() -> None:
    assert header_host("LOCALHOST:8765") == "localhost" and header_host("[::1]:8765") == "::1"
    assert header_host("127.0.0.1") == "127.0.0.1" and header_host("memory.test.") == "memory.test"
    for bad in ("a:1, b:2", "[::1", "[::1]x", "host:port", "", "::1"):
        assert header_host(bad) is None, bad
    assert origin_host("http://Localhost:3000") == "localhost" and origin_host("null") is None
