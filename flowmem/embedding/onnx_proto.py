"""The few ONNX protobuf messages a model graph needs, written as bytes for onnxruntime to load.

onnxruntime takes a model as the bytes of an ``onnx.ModelProto``; building one with the ``onnx`` package would add it
and ``protobuf`` (~35 MB) to the install for ~70 lines of encoding. Only what :mod:`flowmem.embedding.e5_onnx`
writes is here: nodes with int, float and ints attributes, tensors as raw little-endian data, inputs and outputs
with named or fixed dimensions, opset imports. Field numbers are those of ``onnx/onnx.proto`` (IR version 9).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

FLOAT, UINT8, INT64 = 1, 2, 7  # TensorProto.DataType
_TENSOR_TYPES = {np.dtype(np.float32): FLOAT, np.dtype(np.uint8): UINT8, np.dtype(np.int64): INT64}
_ATTRIBUTE_FLOAT, _ATTRIBUTE_INT, _ATTRIBUTE_INTS = 1, 2, 7  # AttributeProto.AttributeType


def _varint(value: int) -> bytes:
    if value < 0:  # int64 fields: two's complement in ten bytes
        value += 1 << 64
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _int(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def _bytes(number: int, value: bytes | str) -> bytes:
    data = value.encode() if isinstance(value, str) else value
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _float(number: int, value: float) -> bytes:
    return _varint(number << 3 | 5) + struct.pack("<f", value)


@dataclass
class Graph:
    """A graph built node by node; :meth:`model` gives the bytes of the model holding it."""

    name: str
    _nodes: list[bytes] = field(default_factory=list)
    _initializers: list[bytes] = field(default_factory=list)
    _inputs: list[bytes] = field(default_factory=list)
    _outputs: list[bytes] = field(default_factory=list)

    def node(
        self,
        op: str,
        inputs: Sequence[str],
        outputs: Sequence[str],
        domain: str = "",
        **attributes: float | int | Sequence[int],
    ) -> str:
        """Add a node; returns its first output's name. Attributes: int, float, or a tuple/list of ints."""
        body = b"".join(_bytes(1, name) for name in inputs) + b"".join(_bytes(2, name) for name in outputs)
        body += _bytes(4, op)
        for key, value in attributes.items():
            body += _bytes(5, _attribute(key, value))
        if domain:
            body += _bytes(7, domain)
        self._nodes.append(body)
        return outputs[0]

    def constant(self, name: str, value: np.ndarray) -> str:
        """Add an initializer (a float32, uint8 or int64 array); returns its name."""
        array = np.ascontiguousarray(value)
        body = b"".join(_int(1, d) for d in array.shape) + _int(2, _TENSOR_TYPES[array.dtype]) + _bytes(8, name)
        self._initializers.append(body + _bytes(9, array.astype(array.dtype.newbyteorder("<")).tobytes()))
        return name

    def input(self, name: str, elem_type: int, shape: Sequence[int | str]) -> str:
        self._inputs.append(_value_info(name, elem_type, shape))
        return name

    def output(self, name: str, elem_type: int, shape: Sequence[int | str]) -> None:
        self._outputs.append(_value_info(name, elem_type, shape))

    def model(self, opsets: dict[str, int], ir_version: int = 9) -> bytes:
        graph = b"".join(_bytes(1, n) for n in self._nodes) + _bytes(2, self.name)
        graph += b"".join(_bytes(5, t) for t in self._initializers)
        graph += b"".join(_bytes(11, v) for v in self._inputs) + b"".join(_bytes(12, v) for v in self._outputs)
        out = _int(1, ir_version) + _bytes(2, "flowmem") + _bytes(7, graph)
        for domain, version in opsets.items():
            out += _bytes(8, _bytes(1, domain) + _int(2, version))
        return out


def _attribute(name: str, value: float | int | Sequence[int]) -> bytes:
    if isinstance(value, int):
        return _bytes(1, name) + _int(3, int(value)) + _int(20, _ATTRIBUTE_INT)
    if isinstance(value, float):
        return _bytes(1, name) + _float(2, value) + _int(20, _ATTRIBUTE_FLOAT)
    return _bytes(1, name) + b"".join(_int(8, v) for v in value) + _int(20, _ATTRIBUTE_INTS)


def _value_info(name: str, elem_type: int, shape: Sequence[int | str]) -> bytes:
    dims = b"".join(_bytes(1, _bytes(2, d) if isinstance(d, str) else _int(1, d)) for d in shape)
    tensor_type = _int(1, elem_type) + _bytes(2, dims)
    return _bytes(1, name) + _bytes(2, _bytes(1, tensor_type))
