"""The ``flowmem`` command line."""
