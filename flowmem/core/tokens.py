"""Token counting: the one place every op counts and cuts tokens.

Which tokenizer, and why:

- ``o200k_base`` (the default) and ``cl100k_base`` are OpenAI's BPE encodings, run by ``tiktoken``
  (OpenAI's own implementation, so counts are exact for OpenAI models, not approximations). tiktoken
  downloads its rank files on first use, which fails offline; flowmem bundles the two files
  (:mod:`flowmem.core.encodings`, checked against tiktoken's pinned SHA-256) and builds the encodings from
  them, so counting never touches the network. ``o200k_base`` is the default because the default
  model (``gpt-4o-mini``) and every current OpenAI model (GPT-4o, GPT-4.1, GPT-5, o-series) use it.
- ``estimate`` is a character-ratio estimate (¼ token per ASCII character, one per other character:
  CJK text runs near one token per character, English near four characters per token). It is never
  picked for you: name it when no real tokenizer fits and an estimate is what you want.

How a deployment picks one: an ``openai_compatible`` LLM has ``params.tokenizer``; left unset, it
follows the model name (:func:`tokenizer_for_model`: gpt-4o/4.1/5/o-series → ``o200k_base``,
gpt-4/3.5 → ``cl100k_base``, anything else → the default). Ops that count tokens take a
``tokenizer`` param of their own; unset, they use their LLM's. A model with its own vocabulary
(Llama, Qwen, …) is counted with ``o200k_base``: close for budgeting, not exact — keep some headroom
in ``token_limit``. :func:`register_tokenizer` adds another (e.g. a ``tokenizers``-based one).

Speed: counts are cached per (tokenizer, text), so re-assembling a context over the same session
and memories re-counts only what is new.
"""

from __future__ import annotations

import base64
import hashlib
import lzma
import math
import threading
from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Protocol

from flowmem.core.errors import BackendUnavailableError
from flowmem.core.registry import Registry
from flowmem.core.suggest import unknown

if TYPE_CHECKING:
    import tiktoken

__all__ = [
    "DEFAULT_TOKENIZER",
    "REPLY_PRIMING_TOKENS",
    "TOKENIZERS",
    "TOKENS_PER_MESSAGE",
    "Tokenizer",
    "check_tokenizer_name",
    "count_message_tokens",
    "count_tokens",
    "get_tokenizer",
    "message_tokens",
    "register_tokenizer",
    "tokenizer_for_model",
    "truncate_to_tokens",
]

DEFAULT_TOKENIZER = "o200k_base"

# OpenAI's chat framing (its cookbook's count for gpt-3.5-turbo-0613 and later, gpt-4, gpt-4o):
# every message is wrapped as <|start|>{role}<|message|>{content}<|end|> — 3 tokens beyond role and
# content, 1 more when it carries a name — and every reply is primed with <|start|>assistant<|message|>.
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING_TOKENS = 3


class Tokenizer(Protocol):
    """What a tokenizer gives flowmem: a count and a cut, nothing else."""

    name: str
    exact: bool  # False for estimates, so traces can say "estimated"

    def count(self, text: str) -> int:
        """Tokens in ``text``."""
        ...

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` (cut at a character boundary) of at most ``max_tokens`` tokens."""
        ...


class TiktokenTokenizer:
    """An OpenAI BPE encoding run by tiktoken, built from a rank file bundled with flowmem.

    The rank file is read on first use (about half a second), not at import.
    """

    exact = True

    def __init__(self, name: str, *, pat_str: str, special_tokens: dict[str, int], sha256: str):
        self.name = name
        self._pat_str = pat_str
        self._special_tokens = special_tokens
        self._sha256 = sha256
        self._encoding: tiktoken.Encoding | None = None
        self._lock = threading.Lock()

    def _get(self) -> tiktoken.Encoding:
        if self._encoding is None:
            with self._lock:
                if self._encoding is None:
                    self._encoding = self._load()
        return self._encoding

    def _load(self) -> tiktoken.Encoding:
        try:
            import tiktoken
        except ImportError as exc:  # a dependency of flowmem: only a broken install lacks it
            raise BackendUnavailableError(
                f"tokenizer '{self.name}' needs the 'tiktoken' package: pip install 'tiktoken>=0.7'"
            ) from exc
        packed = resources.files("flowmem.core.encodings").joinpath(f"{self.name}.tiktoken.xz").read_bytes()
        data = lzma.decompress(packed)
        if hashlib.sha256(data).hexdigest() != self._sha256:
            raise BackendUnavailableError(
                f"tokenizer '{self.name}': the bundled rank file flowmem/core/encodings/{self.name}.tiktoken.xz is "
                f"damaged (its SHA-256 is not OpenAI's {self._sha256}); reinstall flowmem"
            )
        ranks = {
            base64.b64decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)
        }
        return tiktoken.Encoding(
            name=self.name, pat_str=self._pat_str, mergeable_ranks=ranks, special_tokens=self._special_tokens
        )

    def count(self, text: str) -> int:
        # encode_ordinary: "<|endoftext|>" typed by a user is text, counted as text, never a special token.
        return len(self._get().encode_ordinary(text))

    def truncate(self, text: str, max_tokens: int) -> str:
        encoding = self._get()
        ids = encoding.encode_ordinary(text)
        keep = min(max_tokens, len(ids))
        while keep > 0:
            # The bytes of a token prefix are a byte prefix of the text; dropping a trailing partial
            # character keeps it a string prefix. Re-encoding that prefix may merge differently at the
            # cut, so check and keep fewer tokens until it fits.
            prefix = encoding.decode_bytes(ids[:keep]).decode("utf-8", errors="ignore")
            over = len(encoding.encode_ordinary(prefix)) - max_tokens
            if over <= 0:
                return prefix
            keep -= over
        return ""


class EstimateTokenizer:
    """A character-ratio estimate: ¼ token per ASCII character, 1 per other character, rounded up."""

    name = "estimate"
    exact = False

    def count(self, text: str) -> int:
        ascii_chars = len(text.encode("ascii", errors="ignore"))
        return math.ceil(ascii_chars / 4) + (len(text) - ascii_chars)

    def truncate(self, text: str, max_tokens: int) -> str:
        # The count of a prefix grows with its length: binary search the longest prefix that fits.
        low, high = 0, len(text)
        while low < high:
            mid = (low + high + 1) // 2
            if self.count(text[:mid]) <= max_tokens:
                low = mid
            else:
                high = mid - 1
        return text[:low]


TOKENIZERS: Registry[Tokenizer] = Registry("tokenizer")


def register_tokenizer(tokenizer: Tokenizer) -> Tokenizer:
    """Register ``tokenizer`` under its ``name``; a taken name raises :class:`~flowmem.core.errors.RegistryError`."""
    return TOKENIZERS.add(tokenizer.name, tokenizer)


# The split patterns and special tokens are tiktoken's own (tiktoken_ext/openai_public.py, tiktoken 0.14),
# as are the hashes of the rank files.
register_tokenizer(
    TiktokenTokenizer(
        "o200k_base",
        pat_str="|".join(
            [
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        ),
        special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    )
)
register_tokenizer(
    TiktokenTokenizer(
        "cl100k_base",
        pat_str=(
            r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
            r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
        ),
        special_tokens={
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    )
)
register_tokenizer(EstimateTokenizer())


def check_tokenizer_name(name: str) -> str:
    """Return ``name`` if it is a registered tokenizer; for pydantic validators of ``tokenizer`` params.

    Raises:
        ValueError: Unknown name; the message suggests the closest and lists the valid ones.
    """
    if name not in TOKENIZERS:
        raise ValueError(unknown("tokenizer", name, TOKENIZERS.names()))
    return name


def get_tokenizer(name: str | None = None) -> Tokenizer:
    """The tokenizer registered as ``name`` (None: :data:`DEFAULT_TOKENIZER`).

    Raises:
        RegistryError: Unknown name (exit code 2), listing the valid ones.
    """
    return TOKENIZERS.get(name or DEFAULT_TOKENIZER)


def tokenizer_for_model(model: str) -> str:
    """The tokenizer an OpenAI-compatible ``model`` uses, by name; the default for models tiktoken does not know.

    ``openai/gpt-4o`` and ``gpt-4o-2024-08-06`` work as well as ``gpt-4o``. tiktoken's own model
    table decides (no download involved); an encoding flowmem does not bundle (r50k/p50k of the
    2020–2022 models) or an unknown model (a local Llama or Qwen) gets :data:`DEFAULT_TOKENIZER`.
    """
    from tiktoken.model import encoding_name_for_model

    bare = model.strip().rsplit("/", 1)[-1]
    try:
        name = encoding_name_for_model(bare)
    except KeyError:
        return DEFAULT_TOKENIZER
    # o200k_harmony (gpt-oss) is o200k_base's ranks plus special tokens: the same counts for text.
    if name == "o200k_harmony":
        return "o200k_base"
    return name if name in TOKENIZERS else DEFAULT_TOKENIZER


@lru_cache(maxsize=32768)
def _count(name: str, text: str) -> int:
    return TOKENIZERS.get(name).count(text)


def count_tokens(text: str, tokenizer: str | None = None) -> int:
    """Tokens in ``text`` by ``tokenizer`` (None: the default); cached per (tokenizer, text)."""
    if not text:
        return 0
    return _count(tokenizer or DEFAULT_TOKENIZER, text)


def truncate_to_tokens(text: str, max_tokens: int, tokenizer: str | None = None) -> str:
    """The longest prefix of ``text`` with at most ``max_tokens`` tokens (``text`` itself when it fits).

    The cut falls between characters, never inside one, and the result re-counts to at most
    ``max_tokens`` by the same tokenizer.

    Raises:
        ValueError: ``max_tokens`` is negative.
    """
    if max_tokens < 0:
        raise ValueError(f"max_tokens must be 0 or more, got {max_tokens}")
    if max_tokens == 0:
        return ""
    if count_tokens(text, tokenizer) <= max_tokens:
        return text
    return get_tokenizer(tokenizer).truncate(text, max_tokens)


def message_tokens(message: Mapping[str, str], tokenizer: str | None = None) -> int:
    """What one chat message adds to a request: its role, content, optional name and the framing around them."""
    total = TOKENS_PER_MESSAGE + count_tokens(message.get("role", ""), tokenizer)
    total += count_tokens(message.get("content", ""), tokenizer)
    if message.get("name"):
        total += TOKENS_PER_NAME + count_tokens(message["name"], tokenizer)
    return total


def count_message_tokens(messages: Iterable[Mapping[str, str]], tokenizer: str | None = None) -> int:
    """Prompt tokens of an OpenAI-style chat request with ``messages`` (OpenAI's framing overhead included).

    Equal to :data:`REPLY_PRIMING_TOKENS` plus :func:`message_tokens` of each message, so a budget
    can be filled message by message.
    """
    return REPLY_PRIMING_TOKENS + sum(message_tokens(message, tokenizer) for message in messages)
