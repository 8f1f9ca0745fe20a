"""flowmem.core.tokens: exact offline counts for OpenAI's encodings, truncation, chat framing, picking by model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flowmem.core.errors import BackendUnavailableError, RegistryError
from flowmem.core.tokens import (
    DEFAULT_TOKENIZER,
    TiktokenTokenizer,
    check_tokenizer_name,
    count_message_tokens,
    count_tokens,
    get_tokenizer,
    message_tokens,
    tokenizer_for_model,
    truncate_to_tokens,
)
from flowmem.llm.openai_compatible import OpenAIChatParams, OpenAICompatibleLLM
from flowmem.testing.fake_llm import FakeLLM

# Counts by OpenAI's tokenizer (its ids, where shown, are the well-known ones: "hello world" is
# [24912, 2375] in o200k_base and [15339, 1917] in cl100k_base); checked against an independent
# implementation when these were written.
KNOWN = [
    ("hello world", 2, 2),
    ("tiktoken is great!", 6, 6),
    ("Alice moved to Berlin in 2023 and loves hiking.", 12, 12),
    ("我周末喜欢去爬山。", 9, 13),
]


@pytest.mark.parametrize(("text", "o200k", "cl100k"), KNOWN)
def test_counts_equal_openai_tokenizers(text: str, o200k: int, cl100k: int) -> None:
    assert count_tokens(text, "o200k_base") == o200k
    assert count_tokens(text, "cl100k_base") == cl100k
    assert count_tokens(text) == o200k  # the default is o200k_base


def test_default_is_o200k_and_empty_text_is_free() -> None:
    assert DEFAULT_TOKENIZER == "o200k_base"
    assert count_tokens("") == 0


def test_special_tokens_typed_by_a_user_count_as_text() -> None:
    # Not one special token (and no error): "<|endoftext|>" in a message is just characters.
    assert count_tokens("<|endoftext|>", "o200k_base") > 1
    assert count_tokens("<|endoftext|>", "cl100k_base") > 1


def test_loading_an_encoding_needs_no_network(tmp_path: Path) -> None:
    # A fresh process whose sockets refuse to connect, with an empty tiktoken cache: counts all the same.
    code = (
        "import socket\n"
        "def refuse(*a, **k): raise OSError('flowmem.core.tokens tried to reach the network')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "from flowmem.core.tokens import count_tokens\n"
        "print(count_tokens('hello world', 'o200k_base'), count_tokens('hello world', 'cl100k_base'))\n"
    )
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "2"]


def test_a_rank_file_whose_hash_differs_is_refused() -> None:
    wrong = TiktokenTokenizer("cl100k_base", pat_str=r"\S+|\s+", special_tokens={}, sha256="0" * 64)
    with pytest.raises(BackendUnavailableError, match=r"cl100k_base\.tiktoken\.xz is damaged"):
        wrong.count("hello")


def test_the_estimate_is_named_and_not_exact() -> None:
    estimate = get_tokenizer("estimate")
    assert not estimate.exact
    assert get_tokenizer("o200k_base").exact
    assert count_tokens("abcdefgh", "estimate") == 2  # four ASCII characters a token
    assert count_tokens("我周末", "estimate") == 3  # one token per other character


def test_unknown_tokenizer_names_the_valid_ones() -> None:
    with pytest.raises(RegistryError, match=r"unknown tokenizer 'o200k'.*did you mean 'o200k_base'.*cl100k_base"):
        count_tokens("hello", "o200k")
    with pytest.raises(ValueError, match="valid: cl100k_base, estimate, o200k_base"):
        check_tokenizer_name("gpt2")


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from(list("ab Z9,.!\n\t'é你好🙂")), max_size=80),
    limit=st.integers(min_value=0, max_value=30),
    tokenizer=st.sampled_from(["o200k_base", "cl100k_base", "estimate"]),
)
def test_truncate_returns_a_prefix_within_the_limit(text: str, limit: int, tokenizer: str) -> None:
    cut = truncate_to_tokens(text, limit, tokenizer)
    assert text.startswith(cut)
    assert count_tokens(cut, tokenizer) <= limit
    if count_tokens(text, tokenizer) <= limit:
        assert cut == text


def test_truncate_keeps_as_many_tokens_as_fit() -> None:
    text = "Alice moved to Berlin in 2023 and loves hiking."
    assert truncate_to_tokens(text, 3, "o200k_base") == "Alice moved to"
    assert truncate_to_tokens(text, 100) == text
    assert truncate_to_tokens(text, 0) == ""
    with pytest.raises(ValueError, match="0 or more"):
        truncate_to_tokens(text, -1)


def test_chat_framing_follows_openai() -> None:
    # OpenAI's cookbook: 3 tokens a message (+1 for a name) and 3 priming the reply.
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "hello world"},
    ]
    expected = 3 + (3 + 1 + 6) + (3 + 1 + 2)
    assert count_message_tokens(messages) == expected
    assert count_message_tokens(messages) == 3 + sum(message_tokens(m) for m in messages)
    named = {"role": "user", "name": "alice", "content": "hello world"}
    assert message_tokens(named) == message_tokens(messages[1]) + 1 + count_tokens("alice")


@pytest.mark.parametrize(
    ("model", "tokenizer"),
    [
        ("gpt-4o-mini", "o200k_base"),
        ("gpt-4o-2024-08-06", "o200k_base"),
        ("openai/gpt-4.1", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-3.5-turbo", "cl100k_base"),
        ("qwen2.5-7b-instruct", DEFAULT_TOKENIZER),  # not an OpenAI model: the default
    ],
)
def test_model_names_pick_their_encoding(model: str, tokenizer: str) -> None:
    assert tokenizer_for_model(model) == tokenizer


def test_llm_backends_say_which_tokenizer_counts_for_them() -> None:
    assert OpenAICompatibleLLM(OpenAIChatParams(model="gpt-4-turbo")).tokenizer == "cl100k_base"
    assert OpenAICompatibleLLM(OpenAIChatParams(model="gpt-4-turbo", tokenizer="estimate")).tokenizer == "estimate"
    assert FakeLLM().tokenizer == DEFAULT_TOKENIZER
    with pytest.raises(ValueError, match="unknown tokenizer 'o200k'"):
        OpenAIChatParams(tokenizer="o200k")
