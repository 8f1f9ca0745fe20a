"""Test helpers that ship with flowmem so users can test their own flows and ops with them.

- :mod:`flowmem.testing.ops`: small ops (``noop_op``, ``sleep_op``, ``echo_op``, ``fail_op``,
  ``flaky_answer_op``); import the module (or pass it as a plugin) to register them.
"""
