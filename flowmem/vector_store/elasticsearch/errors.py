"""The Elasticsearch store's errors, and turning the client's exceptions into flowmem's.

An unreachable host, a timeout, or a server that does not answer as Elasticsearch is a
:class:`~flowmem.core.errors.BackendUnavailableError` (exit code 2 at the CLI: the user's to fix), as
is a refusal for the credentials or for the client's API version (each naming what to do). Any
other answer is an :class:`ElasticsearchError` with the status and the server's short reason.
"""

from __future__ import annotations

from typing import Any

from flowmem.core.errors import BackendUnavailableError, FlowmemError
from flowmem.vector_store.elasticsearch import query as q


class ElasticsearchError(FlowmemError):
    """Elasticsearch refused or failed a request (the message has its status and reason)."""

    exit_code = 1


class BulkWriteError(ElasticsearchError):
    """Some documents of a bulk write failed; the others were written.

    Attributes:
        failures: Id of each failed memory (or history event, or message) → why Elasticsearch rejected it.
        succeeded: How many actions of the same call succeeded.
    """

    def __init__(
        self,
        action: str,
        index: str,
        failures: dict[str, str],
        succeeded: int,
        *,
        noun: tuple[str, str] = ("memory", "memories"),
    ):
        self.failures = failures
        self.succeeded = succeeded
        shown = list(failures.items())[:20]
        what = f"1 {noun[0]}" if len(failures) == 1 else f"{len(failures)} {noun[1]}"
        lines = [f"{what} failed to {action} in Elasticsearch index '{index}' ({succeeded} succeeded):"]
        lines += [f"  {failed_id}: {reason}" for failed_id, reason in shown]
        if len(failures) > len(shown):
            lines.append(f"  … and {len(failures) - len(shown)} more")
        super().__init__("\n".join(lines))


def translate(exc: Exception, url: str, request_timeout: float, index: str) -> FlowmemError | None:
    """The flowmem error for a client exception of a request on ``index`` (None: not the client's, re-raise it)."""
    import elastic_transport
    from elasticsearch import ApiError, UnsupportedProductError

    if isinstance(exc, elastic_transport.ConnectionTimeout):
        reason = f"no answer within {request_timeout:g} s ({exc.message})"
        return BackendUnavailableError(f"cannot reach Elasticsearch at {url}: {reason}")
    if isinstance(exc, elastic_transport.ConnectionError):
        return BackendUnavailableError(f"cannot reach Elasticsearch at {url}: {exc.message}")
    if isinstance(exc, UnsupportedProductError):
        return BackendUnavailableError(f"{url} does not answer as Elasticsearch: {exc.message}")
    if isinstance(exc, ApiError):
        status, reason = exc.meta.status, q.short_reason(error_body(exc.body) or exc.message)
        if status in (401, 403):
            return BackendUnavailableError(
                f"Elasticsearch at {url} refused access ({status}): {reason}; check the credentials"
            )
        if error_type(exc.body) == "media_type_header_exception":
            # A 9.x client's `compatible-with=9` headers at an 8.x server (REST compatibility goes one way).
            return BackendUnavailableError(
                f"Elasticsearch at {url} does not speak the API version of the installed Python client "
                f"(elasticsearch {client_version()}): {reason}; for an 8.x server install the 8.x client, "
                "pip install 'elasticsearch[async]>=8.19,<9' (it talks to 9.x servers too)"
            )
        return ElasticsearchError(f"Elasticsearch at {url} answered {status} for index '{index}': {reason}")
    if isinstance(exc, elastic_transport.TransportError):
        return ElasticsearchError(f"Elasticsearch at {url}: {exc}")
    return None


def client_version() -> str:
    """The installed Python client's version."""
    from importlib.metadata import version

    return version("elasticsearch")


def error_body(body: Any) -> Any:
    """The ``error`` object of an error response's body (the body itself if it has none)."""
    return body.get("error") if isinstance(body, dict) and "error" in body else body


def error_type(body: Any) -> str | None:
    """The ``error.type`` of an error response's body, if it has one."""
    error = error_body(body)
    return error.get("type") if isinstance(error, dict) else None
