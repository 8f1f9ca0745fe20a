"""What every layer may use: the error tree, registries, the run trace, secrets redaction, token counting,
the backend contract and small helpers. Imports nothing else of flowmem."""
