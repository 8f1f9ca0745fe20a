"""Modules that mypy must refuse: each wrong line says which error it expects (checked by tests/unit/test_typecheck)."""
