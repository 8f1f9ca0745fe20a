"""Secrets never printed: URL credentials, values of secret variables, secret settings — in config and messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowmem.config import load_config
from flowmem.core.errors import ConfigError
from flowmem.core.redact import REDACTED, redact, redact_text, redact_url


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http://elastic:pw@localhost:9200", "http://***@localhost:9200"),
        (
            "cannot reach Elasticsearch at https://tok@es.example:9243/x?y=a@b: refused",
            "cannot reach Elasticsearch at https://***@es.example:9243/x?y=a@b: refused",
        ),
        ("http://u:p@ss@h:1/x", "http://***@h:1/x"),  # an unescaped @ in the password
        ("hosts 'http://a:b@h' and 'http://c:d@e'", "hosts 'http://***@h' and 'http://***@e'"),
        ("host 'http:/elastic:pw@localhost' is not a URL", "host 'http:/***@localhost' is not a URL"),
        ("host 'elastic:pw@localhost:9200' is not a URL", "host '***@localhost:9200' is not a URL"),
        ("http://localhost:9200/a@b", "http://localhost:9200/a@b"),
        # an unescaped / or # in the password: the userinfo still runs to the last @ before the host
        ("http://elastic:pa/ss#w@localhost:9200", "http://***@localhost:9200"),
        (
            "cannot reach 'https://elastic:a#b/c@es.example:9243/idx': refused",
            "cannot reach 'https://***@es.example:9243/idx': refused",
        ),
        ("elastic:pa/ss#w@localhost:9200", "***@localhost:9200"),
        ("write to alice@example.com", "write to alice@example.com"),
    ],
)
def test_url_userinfo_is_redacted_wherever_it_sits(text: str, expected: str) -> None:
    assert redact_url(text) == expected


def test_secret_values_are_redacted_in_text_when_long_enough() -> None:
    text = "param 'timeout': not a number (got 'hunter22'); backend none"
    assert redact_text(text, {"hunter22", "none"}) == "param 'timeout': not a number (got '***'); backend none"


def test_redact_walks_mappings_and_lists() -> None:
    data = {
        "vector_store": {
            "default": {
                "params": {
                    "hosts": ["http://elastic:hunter22@localhost:9200", "http://other:9200"],
                    "api_key": "k",
                    "password": "",
                    "recall_key": "query",
                    "nested": [{"token": "t"}, {"note": "from a secret"}],
                }
            }
        }
    }
    secret = ("vector_store", "default", "params", "nested", "1", "note")
    params = redact(data, {secret})["vector_store"]["default"]["params"]
    assert params["hosts"] == ["http://***@localhost:9200", "http://other:9200"]
    assert params["api_key"] == REDACTED and params["password"] == ""  # nothing to hide in an empty value
    assert params["recall_key"] == "query"  # a context key, not a secret
    assert params["nested"] == [{"token": REDACTED}, {"note": REDACTED}]
    assert data["vector_store"]["default"]["params"]["api_key"] == "k"  # a copy: the input is untouched


def test_config_errors_leave_out_secret_values_and_url_credentials(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "vector_store:\n  default:\n    backend: memory\n    params: {bogus: '${ES_PASSWORD}'}\n"
        "llm:\n  default: {backend: openai_compatible, params: {base_url: 'http://u:hunter22@h/v1', timeout: x}}\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as info:
        load_config(
            str(path),
            ["llm.default.params.max_retries=${MY_API_TOKEN}"],
            environ={"ES_PASSWORD": "correct-horse", "MY_API_TOKEN": "tok-123456"},
        )
    message = str(info.value)
    assert "3 problems in the configuration" in message
    assert "correct-horse" not in message and "tok-123456" not in message and "hunter22" not in message


def test_secret_values_are_tracked_in_lists(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "vector_store:\n  es:\n    backend: elasticsearch\n"
        "    params: {hosts: ['http://elastic:${ES_PASSWORD}@localhost:9200']}\n",
        encoding="utf-8",
    )
    resolved = load_config(str(path), environ={"ES_PASSWORD": "correct-horse"})
    assert ("vector_store", "es", "params", "hosts", "0") in resolved.secret_paths
    assert resolved.secret_values == {"correct-horse"}


def test_config_show_hides_a_password_with_a_slash_or_a_hash(capsys: pytest.CaptureFixture[str]) -> None:
    from flowmem.cli.main import main

    host = "vector_store.default.params.hosts=['http://elastic:pa/ss#w0rd@localhost:9200']"
    assert main(["config", "show", "vector_store.default.backend=elasticsearch", host]) == 0
    shown = capsys.readouterr().out
    assert "http://***@localhost:9200" in shown and "pa/ss" not in shown and "w0rd" not in shown


def test_every_configured_secret_is_in_the_set() -> None:
    """Secret settings written as text, the service's keys, and $OPENAI_API_KEY, which openai_compatible
    backends send when their api_key is unset: a server's error may quote any of them."""
    config = {
        "llm": {"default": {"backend": "openai_compatible", "params": {"api_key": "sk-written-in-yaml"}}},
        "embedding_model": {"default": {"backend": "openai_compatible"}},
        "server": {"api_keys": [{"name": "app", "key": "service-key-0123456789", "workspaces": ["*"]}]},
    }
    resolved = load_config(config, environ={"OPENAI_API_KEY": "sk-from-the-environment"})
    assert resolved.secret_values == {"sk-written-in-yaml", "service-key-0123456789", "sk-from-the-environment"}
    assert "app" not in resolved.secret_values  # the key's name is shown in place of the key
