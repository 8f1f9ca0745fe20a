"""OpenAI's BPE encodings, bundled so token counting works offline.

``o200k_base.tiktoken.xz`` and ``cl100k_base.tiktoken.xz`` are OpenAI's published ``.tiktoken`` rank
files (MIT, © OpenAI; the ones ``tiktoken`` downloads on first use), xz-compressed. tiktoken itself
ships without them and fetches them from OpenAI's blob storage, which an offline machine cannot
reach; :mod:`flowmem.core.tokens` loads these instead and checks each one's SHA-256 against the hash
tiktoken pins for the same file (``tiktoken_ext/openai_public.py``), so a damaged or swapped file is
refused rather than counted with.
"""
