"""Where the embedded store keeps its files by default."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def data_home() -> Path:
    """``$FLOWMEM_HOME``, else the user's data directory + ``/flowmem``."""
    explicit = os.environ.get("FLOWMEM_HOME")
    if explicit:
        return Path(explicit).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "flowmem"
