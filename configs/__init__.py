"""Shipped config presets: ``default.yaml`` and overlays selected with ``-c NAME``."""
