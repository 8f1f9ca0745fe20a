"""Turning a flow's config entry into a runnable plan, finding every problem first.

Checked before anything runs, and reported together, on the flow with the flows it includes expanded
(:mod:`flowmem.flow.include`): syntax; unknown ops (with "did you mean", flows too); unknown or ill-typed
params; backends an op uses that are not configured; reads that no upstream op writes and no input
provides; a read whose type (:mod:`flowmem.keys`) does not accept the type of the op or input providing the key;
two parallel branches writing one key, or one branch reading a key another branch writes at the same time;
outputs nobody writes, and an output an op writes as a type the catalogue's key does not accept (a caller reads
it with that key: ``response.output(MEMORY_ACTIONS)``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from flowmem.config.limits import input_problems
from flowmem.config.loader import ResolvedConfig
from flowmem.config.schema import FlowEntry, Limits
from flowmem.config.settings import OpSetting
from flowmem.core.annotations import type_name
from flowmem.core.errors import FlowValidationError, InputError, Problem
from flowmem.core.suggest import shown, unknown
from flowmem.flow.expr import Node, OpRef, Parallel, Sequence, format_flow, op_refs
from flowmem.flow.include import Expansion, expand_flow
from flowmem.flow.inputs import STANDARD_INPUTS, InputSpec
from flowmem.flow.op import OPS
from flowmem.keys import accepts, key_named


class OpStep:
    """One op occurrence in a compiled flow; a fresh op instance is made from it on every run."""

    __slots__ = ("backend_names", "label", "position", "setting", "timeout", "via")

    def __init__(self, setting: OpSetting, position: int, via: tuple[str, ...] = ()):
        self.setting = setting
        self.label = setting.label
        self.position = position
        self.via = via  # the included flows it came from (empty: written in the flow itself)
        self.timeout = setting.entry.timeout
        self.backend_names: dict[str, str] = {kind: getattr(setting.entry, kind) for kind in setting.op_cls.uses}


class SeqStep:
    __slots__ = ("steps",)

    def __init__(self, steps: tuple[Step, ...]):
        self.steps = steps


class ParStep:
    __slots__ = ("branches",)

    def __init__(self, branches: tuple[Step, ...]):
        self.branches = branches


Step = OpStep | SeqStep | ParStep


def op_steps(step: Step) -> Iterator[OpStep]:
    """Every op occurrence of a compiled flow (or of one of its steps), in order."""
    if isinstance(step, OpStep):
        yield step
        return
    children = step.steps if isinstance(step, SeqStep) else step.branches
    for child in children:
        yield from op_steps(child)


@dataclass
class CompiledFlow:
    """A validated flow, ready to run any number of times (concurrently, too).

    Attributes:
        name: The flow's name.
        entry: Its config entry.
        expression: The expression that runs: the included flows expanded (see :mod:`flowmem.flow.include`).
        written: The expression as written (included flows by name).
        includes: The flows it includes, directly or through others.
        root: The runtime plan.
        accepted_inputs: Every input the flow takes, standard and declared.
        required_inputs: Inputs a run must give (reads no upstream op writes, without a default).
        writers: For each context key, the ops that write it (used in messages).
        outputs: The names of the extra outputs in ``Response.outputs``.
        output_keys: Each output's name → the context key it returns (``flow.<name>.outputs`` may rename one).
        secrets: The config's secret values, redacted from every warning and error of a run.
        stores_written: The vector stores its ops write to (``writes_store``), by config name: each run of the
            flow reads their erasure fences first (:func:`flowmem.flow.executor.fence_writes`).
    """

    name: str
    entry: FlowEntry
    expression: Node
    root: Step
    accepted_inputs: dict[str, InputSpec]
    required_inputs: tuple[str, ...]
    writers: dict[str, tuple[str, ...]] = field(default_factory=dict)
    outputs: tuple[str, ...] = ()
    output_keys: dict[str, str] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    written: Node | None = None
    includes: tuple[str, ...] = ()
    secrets: frozenset[str] = frozenset()
    stores_written: frozenset[str] = frozenset()

    @property
    def text(self) -> str:
        """The flow as written (included flows by name), in canonical form."""
        return format_flow(self.written or self.expression)

    @property
    def expanded_text(self) -> str:
        """The flow as it runs: every included flow written out."""
        return format_flow(self.expression)

    def prepare_inputs(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Validate and complete a run's inputs.

        Raises:
            InputError: Unknown, ill-typed or missing inputs, all together.
        """
        problems: list[Problem] = []
        values: dict[str, Any] = {}
        where = f"flow '{self.name}'"
        for key, value in given.items():
            spec = self.accepted_inputs.get(key)
            if spec is None:
                problems.append(Problem(where, unknown("input", key, self.accepted_inputs)))
            elif value is not None:
                try:
                    values[key] = spec.adapter.validate_python(value)
                except ValidationError as exc:
                    reason = exc.errors()[0]["msg"]
                    problems.append(Problem(where, f"input '{key}': {reason} (got {shown(value)})"))
        problems += input_problems(values, self.limits, where)
        for key, spec in self.accepted_inputs.items():
            if key not in values and spec.has_default:
                values[key] = spec.default
        for key in self.required_inputs:
            if key not in values and given.get(key) is None:  # missing, or null (a bad value is said above)
                spec = self.accepted_inputs[key]
                null = ", not null" if key in given else ""
                problems.append(Problem(where, f"needs input '{key}' ({spec.description}){null}; {spec.hint()}"))
        if problems:
            raise InputError(problems)
        return values


def compile_flow(name: str, entry: FlowEntry, resolved: ResolvedConfig) -> CompiledFlow:
    """Compile one flow.

    Raises:
        FlowValidationError: With every problem found (a syntax error among them).
    """
    compiled, problems = check_flow(name, entry, resolved)
    if compiled is None:
        raise FlowValidationError(problems)
    return compiled


def check_flow(name: str, entry: FlowEntry, resolved: ResolvedConfig) -> tuple[CompiledFlow | None, list[Problem]]:
    """Compile one flow, returning the problems instead of raising."""
    where = f"flow '{name}'"
    flows = {**resolved.config.flow, name: entry}  # `entry` may be a variant of the configured one
    expansion = expand_flow(name, flows, set(OPS.names()) | set(resolved.config.op))
    expression = expansion.expression
    if expression is None:
        return None, expansion.problems

    problems: list[Problem] = []
    settings: dict[str, OpSetting] = {}
    for ref in op_refs(expression):
        if ref.name in settings:
            continue
        setting, op_problems = resolved.op(ref.name, where)
        problems += [expansion.locate(p, ref) for p in op_problems]
        if setting is not None:
            settings[ref.name] = setting
    if problems:
        return None, problems

    accepted = dict(STANDARD_INPUTS)
    for extra in entry.inputs:
        accepted.setdefault(extra, InputSpec(extra, Any, f"an input of flow '{name}'"))
    analysis = _Analysis(where, expansion, settings, accepted)
    root = analysis.build(expression)
    written = analysis.walk(expression, {})[0]
    output_keys = entry.output_keys
    for output, key in output_keys.items():
        if key not in written and key not in accepted:
            problems.append(
                Problem(where, f"{_output(output, key)} is written by no op of the flow and is not an input")
            )
        elif key in written:
            problems += analysis.output_problems(output, key, written[key])
    problems = analysis.problems + problems
    if problems:
        return None, problems
    required = tuple(k for k in analysis.required if not accepted[k].has_default)
    compiled = CompiledFlow(
        name=name,
        entry=entry,
        expression=expression,
        root=root,
        accepted_inputs=accepted,
        required_inputs=required,
        writers={k: tuple(v) for k, v in analysis.writers.items()},
        outputs=tuple(output_keys),
        output_keys=output_keys,
        limits=resolved.config.limits,
        written=expansion.written,
        includes=expansion.includes,
        secrets=frozenset(resolved.secret_values),
        stores_written=frozenset(
            step.backend_names.get("vector_store", "default")
            for step in op_steps(root)
            if step.setting.op_cls.writes_store
        ),
    )
    return compiled, []


class _Analysis:
    """Builds the runtime plan and checks the data flow between ops."""

    def __init__(
        self, where: str, expansion: Expansion, settings: dict[str, OpSetting], accepted: dict[str, InputSpec]
    ):
        self.where = where
        self.expansion = expansion
        self.settings = settings
        self.accepted = accepted
        self.problems: list[Problem] = []
        self.required: list[str] = []
        self.writers: dict[str, list[str]] = {}
        self._positions = 0
        self.keys = {name: setting.op_cls.io(setting.params) for name, setting in settings.items()}
        for ref_name, keys in self.keys.items():
            for key in keys.writes:
                self.writers.setdefault(key, []).append(ref_name)

    def build(self, node: Node) -> Step:
        if isinstance(node, OpRef):
            self._positions += 1
            return OpStep(self.settings[node.name], self._positions, node.via)
        if isinstance(node, Sequence):
            return SeqStep(tuple(self.build(s) for s in node.steps))
        return ParStep(tuple(self.build(b) for b in node.branches))

    def walk(self, node: Node, available: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
        """Check ``node`` given the keys ``available`` before it (key → the op that wrote it last).

        Returns:
            The keys it writes (key → the op that writes it last), and the keys it reads from outside itself
            (key → reading op).
        """
        if isinstance(node, OpRef):
            return self._walk_op(node, available)
        if isinstance(node, Sequence):
            written: dict[str, str] = {}
            outside: dict[str, str] = {}
            for step in node.steps:
                step_writes, step_reads = self.walk(step, {**available, **written})
                for key, reader in step_reads.items():
                    if key not in written:
                        outside.setdefault(key, reader)
                written.update(step_writes)
            return written, outside
        branch_results = [self.walk(branch, available) for branch in node.branches]
        self._check_branches(node, branch_results)
        written, outside = {}, {}
        for branch_writes, branch_reads in branch_results:
            written.update(branch_writes)
            for key, reader in branch_reads.items():
                outside.setdefault(key, reader)
        return written, outside

    def _walk_op(self, ref: OpRef, available: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
        keys = self.keys[ref.name]
        reads = {key: ref.name for key in (*keys.reads, *keys.optional_reads)}
        for key in reads:
            self._check_type(ref, key, available.get(key))
        for key in keys.reads:
            if key in available:
                continue
            if key in self.accepted:
                if key not in self.required:
                    self.required.append(key)
                continue
            del reads[key]  # reported here; not again as a race with a parallel branch
            writers = [w for w in self.writers.get(key, []) if w != ref.name]
            why = (
                f"it is written by {', '.join(writers)}, which does not run before it"
                if writers
                else ("no op of this flow writes it")
            )
            message = f"op '{ref.name}' reads '{key}', which is not available: {why}, and it is not a flow input"
            self.problems.append(self.expansion.locate(Problem(self.where, message), ref))
        return dict.fromkeys(keys.writes, ref.name), reads

    def _check_type(self, ref: OpRef, key: str, writer: str | None) -> None:
        """A problem when what provides ``key`` to ``ref`` (the op ``writer``, else the flow input) has a type the
        reader does not accept."""
        wanted = self.keys[ref.name].typed(key)
        if writer is not None:
            given, source = self.keys[writer].typed(key, written=True).type, f"op '{writer}' writes it as"
        elif key in self.accepted:
            given, source = self.accepted[key].type, f"the flow input '{key}' is"
        else:
            return
        if not accepts(wanted.type, given):
            message = (
                f"op '{ref.name}' reads '{key}' as {type_name(wanted.type)}, but {source} {type_name(given)}; "
                "wire it to a key of that type or change one op's type"
            )
            self.problems.append(self.expansion.locate(Problem(self.where, message), ref))

    def output_problems(self, name: str, key: str, writer: str) -> list[Problem]:
        """A problem when the op ``writer`` writes the output ``key`` (returned as ``name``) as a type the catalogue's
        key does not accept: a caller reads an output with that key (``response.output(MEMORY_ACTIONS)``)."""
        catalogued, given = key_named(key).type, self.keys[writer].typed(key, written=True).type
        if accepts(catalogued, given):
            return []
        message = (
            f"{_output(name, key)} is {type_name(catalogued)} in the catalogue of keys (flowmem.keys), but op "
            f"'{writer}' writes it as {type_name(given)}; write it under a key of its own and return that as '{name}' "
            f"(outputs: [{{{name}: the_key}}])"
        )
        return [Problem(self.where, message)]

    def _check_branches(self, node: Parallel, results: list[tuple[dict[str, str], dict[str, str]]]) -> None:
        for i, (writes_i, _) in enumerate(results):
            for j, (writes_j, reads_j) in enumerate(results):
                if j == i:
                    continue
                if j > i:
                    for key in sorted(writes_i.keys() & writes_j.keys()):
                        self.problems.append(
                            Problem(
                                self.where,
                                f"parallel branches {i + 1} ({_describe(node.branches[i])}) and {j + 1} "
                                f"({_describe(node.branches[j])}) both write '{key}'; run them in sequence "
                                "or configure one to write another key",
                            )
                        )
                for key in sorted(writes_i.keys() & reads_j.keys()):
                    self.problems.append(
                        Problem(
                            self.where,
                            f"op '{reads_j[key]}' (parallel branch {j + 1}) reads '{key}' while branch {i + 1} "
                            f"({_describe(node.branches[i])}) writes it at the same time",
                        )
                    )


def _output(name: str, key: str) -> str:
    return f"output '{name}'" + (f" (the key '{key}')" if key != name else "")


def _describe(node: Node) -> str:
    return format_flow(node)
