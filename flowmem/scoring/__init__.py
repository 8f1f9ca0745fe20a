"""Shared pieces of the retrieval ops' scoring: time matching and near-miss records."""

from flowmem.scoring.near_miss import near_miss
from flowmem.scoring.time_match import time_match

__all__ = ["near_miss", "time_match"]
