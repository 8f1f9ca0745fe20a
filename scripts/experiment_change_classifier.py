"""Experiment: can a classifier over (older, newer) statement pairs read the changes the rules miss?

Session 22's test of the idea that a learned reader of change would generalise where the wording rules do not.
Nothing here ships: the figures it prints are why (see BENCHMARKS.md, "Issue 23, session 22").

Each development scenario (``shipped`` and ``dev``; a ``*.heldout.jsonl`` is refused) is stored through the default
write path, and every stored memory is paired with the ``TOP_K`` older statements of the same speaker nearest to it
(what ``contra_repeat_op`` compares with). An older memory holding one of the scenario's ``expired`` facts (and none
of its ``valid`` or ``events`` facts) should have been superseded by one of the newer statements paired with it: a
positive *bag*; which message changed it the scenarios do not say, so the fit is multiple-instance (noisy-or). One
holding a ``valid`` or ``events`` fact (and no ``expired`` one) must be superseded by none of them: a negative bag.

The features are what the two statements are to each other, not their wording: cosine, margin below the newer
one's best match, nearest or not, whether each tells a state or an event, whether the newer one is a statement,
slots read by the rules on either side and in common, another value of one kind, shared words, days apart, length.
Optionally (``--directions``) three directions of the embedding space fitted on the training folds: newer minus
older, newer alone, older alone (positive pairs' mean minus negative pairs').

Reported: 5-fold cross-validation by scenario, on every labelled bag and on the *residue* (the bags whose memory the
rules left valid: what a classifier would be asked about), as bag AUC and, per threshold, positives caught against
negatives that would wrongly be superseded.

Usage: python scripts/experiment_change_classifier.py [--directions]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from flowmem import App
from flowmem.eval.updates import Scenario, holds, load, resolve
from flowmem.eval.updates_run import USER, messages_of
from flowmem.schema.memory import Memory
from flowmem.scoring.acts import dialogue_act
from flowmem.scoring.aspect import tells_state
from flowmem.scoring.slots import stored_slots
from flowmem.scoring.supersede import same_speaker
from flowmem.scoring.tokens import query_terms
from flowmem.scoring.values import differ as values_differ

TOP_K = 5
Model = tuple[np.ndarray, np.ndarray, np.ndarray]  # weights, mean, scale
FOLDS = 5
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
FEATURES = (
    "bias", "similarity", "below_best", "nearest", "old_state", "new_state", "old_event", "new_event", "new_tells",
    "old_slots", "new_slots", "same_slot", "other_value", "shared_words", "days_apart", "new_longer",
)  # fmt: skip


@dataclass
class Bag:
    label: int  # 1: the older memory should have been superseded; 0: it must stay
    left_valid: bool  # the rules left it valid
    scenario: str
    features: np.ndarray  # one row per newer statement paired with it
    vectors: np.ndarray  # (pairs, 2, dim): older, newer


def pair_features(old: Memory, new: Memory, similarity: float, best: float, rank: int) -> list[float]:
    mine, theirs = stored_slots(new), stored_slots(old)
    words_old, words_new = set(query_terms(old.content)), set(query_terms(new.content))
    shared = len(words_old & words_new) / max(1, min(len(words_old), len(words_new)))
    days = abs((new.created_at - old.created_at).total_seconds()) / 86400
    return [
        1.0, similarity, best - similarity, float(rank == 1), float(tells_state(old.content)),
        float(tells_state(new.content)), float(old.event_time is not None), float(new.event_time is not None),
        float(dialogue_act(new.content) == "statement"), float(bool(theirs)), float(bool(mine)),
        float(bool(mine.keys() & theirs.keys())), float(values_differ(new.content, old.content)), shared,
        math.log1p(days), math.log1p(len(new.content)) - math.log1p(len(old.content)),
    ]  # fmt: skip


def development_files() -> list[Path]:
    files = [*resolve("shipped"), *resolve("dev")]
    if any("heldout" in f.name for f in files):
        raise SystemExit("refusing to read a held-out file")
    return files


def label(memory: Memory, scenario: Scenario) -> int | None:
    stays = [*scenario.valid, *(e.fact for e in scenario.events)]
    gone = any(holds(memory, fact) for fact in scenario.expired)
    kept = any(holds(memory, fact) for fact in stays)
    return 1 if gone and not kept else 0 if kept and not gone else None


def older_of(old: Memory, new: Memory) -> bool:
    return old.created_at < new.created_at and same_speaker(old, new) and not set(old.source) & set(new.source)


async def bags_of(app: App, scenario: Scenario) -> list[Bag]:
    workspace = f"experiment-{scenario.id}"
    await app.memories.add(messages_of(scenario), user_id=USER, workspace_id=workspace, flow="personal_summary")
    memories = sorted(
        (await app.memories.list(workspace_id=workspace, user_id=USER, limit=None)).memories, key=lambda m: m.created_at
    )
    if not memories:
        return []
    vectors = np.asarray(await app.embedding_model().embed([m.content for m in memories], kind="document"))
    rows: dict[int, list[tuple[list[float], int]]] = {}
    for j, new in enumerate(memories):
        olds = [i for i, old in enumerate(memories) if older_of(old, new)]
        sims = {i: float(vectors[i] @ vectors[j]) for i in olds}
        nearest = sorted(olds, key=lambda i: sims[i], reverse=True)[:TOP_K]
        for rank, i in enumerate(nearest, 1):
            rows.setdefault(i, []).append((pair_features(memories[i], new, sims[i], sims[nearest[0]], rank), j))
    bags = []
    for i, pairs in rows.items():
        kind = label(memories[i], scenario)
        if kind == 0:  # only a newer statement that does not say again what must stay would lose it when it supersedes
            facts = [f for f in [*scenario.valid, *(e.fact for e in scenario.events)] if holds(memories[i], f)]
            pairs = [(f, j) for f, j in pairs if not all(holds(memories[j], fact) for fact in facts)]
        if kind is not None and pairs:
            bags.append(Bag(kind, memories[i].status == "valid", scenario.id, np.asarray([f for f, _ in pairs]),
                            np.stack([np.stack([vectors[i], vectors[j]]) for _, j in pairs])))  # fmt: skip
    return bags


async def collect(files: Sequence[Path]) -> list[Bag]:
    bags: list[Bag] = []
    async with App(overrides=["vector_store.default.backend=memory"]) as app:
        for path in files:
            for scenario in load(path):
                bags += await bags_of(app, scenario)
    return bags


def directions(train: list[Bag]) -> np.ndarray:
    """Positive pairs' mean minus negative pairs': of newer - older, of newer, of older (unit vectors)."""
    pos = np.concatenate([b.vectors for b in train if b.label])
    neg = np.concatenate([b.vectors for b in train if not b.label])
    dirs = [(pos[:, 1] - pos[:, 0]).mean(0) - (neg[:, 1] - neg[:, 0]).mean(0),
            pos[:, 1].mean(0) - neg[:, 1].mean(0), pos[:, 0].mean(0) - neg[:, 0].mean(0)]  # fmt: skip
    return np.stack([d / np.linalg.norm(d) for d in dirs])


def design(bag: Bag, dirs: np.ndarray | None) -> np.ndarray:
    if dirs is None:
        return bag.features
    v = bag.vectors
    return np.concatenate([bag.features, np.stack([(v[:, 1] - v[:, 0]) @ dirs[0], v[:, 1] @ dirs[1],
                                                    v[:, 0] @ dirs[2]], axis=1)], axis=1)  # fmt: skip


def fit(xs: list[tuple[int, np.ndarray]], *, l2: float = 1.0, steps: int = 1500, rate: float = 0.05) -> Model:
    """Noisy-or logistic regression: a positive bag is superseded when any of its pairs is; a negative, by none."""
    stacked = np.concatenate([x for _, x in xs])
    mean, scale = stacked.mean(axis=0), stacked.std(axis=0)
    mean[0], scale[0] = 0.0, 1.0
    scale[scale == 0] = 1.0
    data = [(y, (x - mean) / scale) for y, x in xs]
    positives = max(1, sum(y for y, _ in data))
    negatives = max(1, len(data) - positives)
    weights = np.zeros(stacked.shape[1])
    for _ in range(steps):
        grad = l2 * weights / len(data)
        for y, x in data:
            p = 1 / (1 + np.exp(-np.clip(x @ weights, -30, 30)))
            if y:
                none = float(np.prod(1 - p))
                grad -= (none / max(1e-9, 1 - none)) * (p[:, None] * x).sum(axis=0) / positives
            else:
                grad += (p[:, None] * x).sum(axis=0) / negatives
        weights -= rate * grad
    return weights, mean, scale


def bag_probability(model: Model, x: np.ndarray) -> float:
    weights, mean, scale = model
    return float((1 / (1 + np.exp(-np.clip(((x - mean) / scale) @ weights, -30, 30)))).max())


def cross_validate(bags: list[Bag], use_directions: bool) -> dict[str, object]:
    scenarios = sorted({b.scenario for b in bags})
    random.Random(0).shuffle(scenarios)
    fold = {s: i % FOLDS for i, s in enumerate(scenarios)}
    scored: list[tuple[int, float]] = []
    for k in range(FOLDS):
        train = [b for b in bags if fold[b.scenario] != k]
        dirs = directions(train) if use_directions else None
        model = fit([(b.label, design(b, dirs)) for b in train])
        scored += [(b.label, bag_probability(model, design(b, dirs))) for b in bags if fold[b.scenario] == k]
    pos = np.asarray([s for y, s in scored if y])
    neg = np.asarray([s for y, s in scored if not y])
    auc = float(
        ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg))
    )
    return {
        "positive_bags": len(pos),
        "negative_bags": len(neg),
        "auc": round(auc, 3),
        "at_threshold": {
            str(t): {"positives_caught": int((pos >= t).sum()), "negatives_superseded": int((neg >= t).sum())}
            for t in THRESHOLDS
        },
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--directions", action="store_true", help="add three fitted directions of the embeddings")
    args = parser.parse_args(argv)
    bags = asyncio.run(collect(development_files()))
    report = {
        "features": list(FEATURES) + (["newer_minus_older", "newer", "older"] if args.directions else []),
        "every_labelled_bag": cross_validate(bags, args.directions),
        "residue_left_valid_by_the_rules": cross_validate([b for b in bags if b.left_valid], args.directions),
    }
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
