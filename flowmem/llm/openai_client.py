"""What the OpenAI-compatible backends (LLM, embeddings) share: the client, and errors that say what happened."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flowmem.core.errors import BackendUnavailableError, FlowmemError
from flowmem.core.redact import redact_url

OPENAI_URL = "https://api.openai.com/v1"
# Where the client takes the API key from when a backend's `api_key` is unset (the backends declare it secret).
API_KEY_VARIABLE = "OPENAI_API_KEY"
# openai is one of flowmem's own dependencies: missing only from an environment set up by hand.
INSTALL_HINT = "pip install 'openai>=1.40'"


def import_openai(what: str) -> Any:
    """The ``openai`` package, or an error naming it and how to install it (every import of it goes here).

    Args:
        what: Who needs it, e.g. ``llm backend openai_compatible``.
    """
    try:
        import openai
    except ImportError:
        raise BackendUnavailableError(
            f"{what} needs the openai package, which is not installed: {INSTALL_HINT}"
        ) from None
    return openai


def make_client(what: str, base_url: str | None, api_key: str | None, timeout: float, max_retries: int) -> Any:
    """An ``openai.AsyncOpenAI``; ``what`` (e.g. ``llm backend openai_compatible``) names the user of it."""
    return import_openai(what).AsyncOpenAI(
        base_url=base_url,
        # The client insists on a key; local servers ignore it.
        api_key=api_key or os.environ.get(API_KEY_VARIABLE) or "not-needed",
        timeout=timeout,
        max_retries=max_retries,
    )


@contextmanager
def server_errors(server: str, where: str | None, model: str, timeout: float) -> Iterator[None]:
    """Turn the ``openai`` package's errors into flowmem's: unreachable, timed out, refused, no such model.

    Args:
        server: What the server is, for messages ("LLM server", "embedding server").
        where: Its base URL (``None``: OpenAI's).
        model: The model asked for.
        timeout: The request timeout, for the message when it runs out.
    """
    openai = import_openai(f"talking to the {server}")
    at = redact_url(where or OPENAI_URL)
    try:
        yield
    except openai.APITimeoutError:
        raise BackendUnavailableError(f"the {server} at {at} did not answer within {timeout:g} s") from None
    except openai.APIConnectionError as exc:
        cause = f" ({exc.__cause__})" if exc.__cause__ else ""
        raise BackendUnavailableError(f"cannot reach the {server} at {at}: {exc}{cause}") from None
    except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
        raise BackendUnavailableError(f"the {server} at {at} refused the API key: {exc}") from None
    except openai.NotFoundError as exc:
        raise BackendUnavailableError(f"the {server} at {at} does not serve model '{model}': {exc}") from None
    except openai.APIStatusError as exc:
        message = str(exc.message).removeprefix(f"Error code: {exc.status_code} - ")
        raise FlowmemError(f"the {server} at {at} answered {exc.status_code}: {message}") from None
