"""Flows inside flows: a flow expression may name another configured flow wherever an op could stand.

With ``flow.personal_recall.flow_content: (retrieve_memory_op | lexical_recall_op) >> recall_fuse_op``,
``set_query_op >> (extract_time_op | personal_recall) >> fuse_rerank_op`` runs exactly what
``set_query_op >> (extract_time_op | ((retrieve_memory_op | lexical_recall_op) >> recall_fuse_op)) >> fuse_rerank_op``
runs: the included flow is expanded inline, as if its text stood there in parentheses. So validation (reads,
parallel writes), op params (``op.<name>.params.…`` reach an op wherever it is included) and the trace all see
the expanded flow; an included flow's own ``inputs``, ``outputs`` and ``description`` play no part in the
including flow.

A name in an expression is a flow when a flow of that name is configured, an op when an op is (registered, or
an ``op.<name>`` entry); a name that is both is refused where it is used (rename the flow), never guessed.
A flow that includes itself, directly or through others, is refused with the cycle named. The limits of
:mod:`flowmem.flow.expr` (:data:`MAX_OPS` op occurrences, groups nested :data:`MAX_DEPTH` deep) apply to the
expanded flow, and flows may be included at most :data:`MAX_DEPTH` deep.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from flowmem.config.schema import FlowEntry
from flowmem.core.errors import FlowSyntaxError, Problem, caret_under
from flowmem.core.suggest import did_you_mean, one_of
from flowmem.flow.expr import MAX_DEPTH, MAX_OPS, Node, OpRef, Parallel, Sequence, _children_if, parse_flow


@dataclass
class Expansion:
    """A flow's expression with the flows it names expanded, or the problems found doing so.

    Attributes:
        root: The expanded flow's name.
        written: Its expression as written (included flows as names); None when its text does not parse.
        expression: The expanded expression (ops only); None when there were problems.
        includes: The flows it includes, directly or through others, in the order first met.
        problems: Syntax errors (its own or an included flow's), unknown names, cycles, names that are both a
            flow and an op, and limits passed.
        texts: Each flow's text as the parser saw it, for carets.
    """

    root: str
    written: Node | None = None
    expression: Node | None = None
    includes: tuple[str, ...] = ()
    problems: list[Problem] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)

    def locate(self, problem: Problem, ref: OpRef) -> Problem:
        """``problem`` about the op ``ref``, with a caret under it in the text of the flow it was written in."""
        return _located(
            self.root, problem.where, problem.message, self.texts[ref.via[-1] if ref.via else self.root], ref
        )


def expand_flow(name: str, flows: Mapping[str, FlowEntry], ops: Collection[str]) -> Expansion:
    """Parse flow ``name`` and expand every flow it names, recursively.

    Args:
        name: A key of ``flows``.
        flows: Every configured flow.
        ops: Every name an op can be used by (registered ops and ``op`` entries).
    """
    return _Expander(name, flows, ops).run()


class _Stop(Exception):
    """A limit was passed: expanding further could only cost time (a flow included twice at each level doubles)."""


class _Expander:
    def __init__(self, root: str, flows: Mapping[str, FlowEntry], ops: Collection[str]):
        self.flows = flows
        self.ops = ops
        self.where = f"flow '{root}'"
        self.result = Expansion(root)
        self.parsed: dict[str, Node | None] = {}
        self.count = 0

    def run(self) -> Expansion:
        result = self.result
        result.written = self._parse(result.root, ())
        if result.written is None:
            return result
        try:
            expression = self._node(result.written, (), 0, None)
        except _Stop:
            expression = None
        if not result.problems:
            result.expression = expression
        return result

    def _parse(self, name: str, via: tuple[str, ...]) -> Node | None:
        if name in self.parsed:
            return self.parsed[name]
        text = self.flows[name].flow_content
        if isinstance(text, str):
            self.result.texts[name] = text.replace("\r", " ").replace("\n", " ").replace("\t", " ")
        try:
            node: Node | None = parse_flow(text, where=self.where)
        except FlowSyntaxError as exc:
            node = None
            self.result.problems += [
                Problem(p.where, self._in(via) + p.message, p.detail, _inside(via)) for p in exc.problems
            ]
        self.parsed[name] = node
        return node

    def _in(self, via: tuple[str, ...]) -> str:
        return _included_in(self.result.root, via)

    def _node(self, node: Node, via: tuple[str, ...], level: int, parent: type | None) -> Node | None:
        """``node`` expanded; ``level`` is how deep its parent sits in the expanded tree (0: the top)."""
        if isinstance(node, OpRef):
            return self._ref(node, via, level, parent)
        # A group of the parent's own kind is spliced into it (`a >> (b >> c)` is `a >> b >> c`): no new level.
        own = level if type(node) is parent else level + 1
        if own > MAX_DEPTH + 1:
            self._problem(f"groups nested more than {MAX_DEPTH} deep once included flows are expanded", via, None)
            raise _Stop
        children = node.steps if isinstance(node, Sequence) else node.branches
        expanded = [self._node(child, via, own, type(node)) for child in children]
        if any(child is None for child in expanded):
            return None
        parts = tuple(part for child in expanded if child is not None for part in _children_if(child, type(node)))
        return Sequence(parts) if isinstance(node, Sequence) else Parallel(parts)

    def _ref(self, ref: OpRef, via: tuple[str, ...], level: int, parent: type | None) -> Node | None:
        name = ref.name
        is_flow, is_op = name in self.flows, name in self.ops
        if is_flow and is_op:
            message = (
                f"'{name}' names both a flow and an op: rename the flow (a name in an expression is one or the other)"
            )
            self._problem(message, via, ref)
            return None
        if is_op:
            self.count += 1
            if self.count > MAX_OPS:
                self._problem(f"more than {MAX_OPS} op occurrences once included flows are expanded", via, ref)
                raise _Stop
            return OpRef(name, ref.column, via)
        if not is_flow:
            self._problem(self._unknown(name), via, ref)
            return None
        chain = (self.result.root, *via)
        if name in chain:
            cycle = " → ".join((*chain[chain.index(name) :], name))
            message = f"flow '{name}' includes itself" if cycle == f"{name} → {name}" else "flows include each other"
            self._problem(f"{message} ({cycle}); a flow cannot contain itself", via, ref)
            return None
        if len(via) >= MAX_DEPTH:
            self._problem(f"flows included more than {MAX_DEPTH} deep", via, ref)
            raise _Stop
        if name not in self.result.includes:
            self.result.includes += (name,)
        included = self._parse(name, (*via, name))
        return None if included is None else self._node(included, (*via, name), level, parent)

    def _unknown(self, name: str) -> str:
        ops = sorted(self.ops)
        flows = sorted(set(self.flows) - {self.result.root})
        close = did_you_mean(name, [*ops, *flows])
        if close and close.split("'")[1] in flows:
            close = close.replace("did you mean '", "did you mean flow '")
        return f"unknown op '{name}'{close} ({one_of(ops)}; flows: {', '.join(flows) or 'none'})"

    def _problem(self, message: str, via: tuple[str, ...], ref: OpRef | None) -> None:
        if ref is None:
            self.result.problems.append(Problem(self.where, self._in(via) + message, inside=_inside(via)))
            return
        text = self.result.texts[via[-1] if via else self.result.root]
        self.result.problems.append(_located(self.result.root, self.where, message, text, ref, via))


def _inside(via: tuple[str, ...]) -> str:
    """The included flow whose text a problem lies in (``Problem.inside``): the last of ``via``, or none."""
    return via[-1] if via else ""


def _included_in(root: str, via: tuple[str, ...]) -> str:
    return f"in flow '{via[-1]}' (included: {' → '.join((root, *via))}): " if via else ""


def _located(root: str, where: str, message: str, text: str, ref: OpRef, via: tuple[str, ...] | None = None) -> Problem:
    via = ref.via if via is None else via
    message = f"{_included_in(root, via)}{message} (column {ref.column + 1})"
    return Problem(where, message, caret_under(text, ref.column), _inside(via))


def point_to_included(results: Mapping[str, list[Problem]]) -> dict[str, list[Problem]]:
    """Every flow's problems (``App.validate``), each invalid included flow's problems said once, under it.

    Every configured flow is checked alone too, so a typo in ``personal_recall`` is one of its own problems;
    in each flow including it, the problems inside it become one line pointing there (``flowmem validate``
    listed the typo, with every valid name, once per including flow). A problem inside an included flow that
    the flow does not have alone (a limit only the expansion passes) stays where it is.
    """
    out: dict[str, list[Problem]] = {}
    for name, problems in results.items():
        kept: list[Problem] = []
        for problem in problems:
            inside = problem.inside
            if not inside or not any(_same_place(problem, own) for own in results.get(inside, ())):
                kept.append(problem)
            elif not any(k.inside == inside for k in kept):
                kept.append(Problem(problem.where, f"includes flow '{inside}', which is invalid (see its problems)",
                                    inside=inside))  # fmt: skip
        out[name] = kept
    return out


def _same_place(included: Problem, own: Problem) -> bool:
    """Whether a problem found through inclusion is one the included flow has alone: the same caret, and the
    same words up to the first ';' once the "in flow 'x' (included: …): " prefix is gone (an unknown name's
    list of valid flows differs: a flow is never offered to itself)."""
    core = included.message.split("): ", 1)[1] if included.message.startswith("in flow '") else included.message
    return included.detail == own.detail and core.split(";")[0] == own.message.split(";")[0]
