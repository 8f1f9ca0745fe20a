"""A prior ratio weighed against the relevance spread of one query's candidates (one rule for every op that uses it).

A prior such as "an insight is twice as likely to be wanted" or "a question rarely holds the answer" is a
likelihood ratio ``r``. Multiplying a score by ``r`` is only right when the score's differences are of the
order of the score itself; an embedder's cosines sit in a narrow band of their own (the offline e5 model puts
nearly every memory between 0.72 and 0.83), so a flat factor decides alone. Read as log-odds over standard
scores instead, a ratio ``r`` moves a memory by ``σ · ln r``, σ being the population standard deviation of
the candidates' scores for this query: it breaks near-ties and does not override a clear relevance lead.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def spread(bases: Sequence[float]) -> float:
    """The population standard deviation of ``bases`` (0.0 for fewer than two)."""
    if len(bases) < 2:
        return 0.0
    mean = sum(bases) / len(bases)
    return math.sqrt(sum((b - mean) ** 2 for b in bases) / len(bases))


def prior_shift(ratio: float, sigma: float, base: float) -> float:
    """What a prior ratio adds to ``base``: ``σ · ln ratio``; a ratio of 0 (or less) takes the whole base."""
    if ratio <= 0:
        return -base
    return sigma * math.log(ratio)
