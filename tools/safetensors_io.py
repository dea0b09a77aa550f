"""safetensors_io.py: write and read safetensors files with numpy only (no safetensors package).

Used by the fixture generators in tools/ to hand PyTorch's numbers to the C++ tests.
"""
import json
import os
import struct

import numpy as np

_DTYPES = {np.dtype("float32"): "F32", np.dtype("float64"): "F64", np.dtype("int32"): "I32",
           np.dtype("int64"): "I64", np.dtype("uint8"): "U8", np.dtype("uint16"): "U16"}
_NP = {v: k for k, v in _DTYPES.items()}


def _as_numpy(x):
    if hasattr(x, "detach"):  # a torch tensor
        x = x.detach().cpu().contiguous().numpy()
    x = np.asarray(x)
    # np.ascontiguousarray would turn a 0-d array into shape (1,); keep scalars scalar.
    return x if x.flags.c_contiguous else np.ascontiguousarray(x)


def save(path, tensors, metadata=None):
    """tensors: {name: numpy array or torch tensor}; metadata: {str: str}."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    for name in sorted(tensors):
        a = _as_numpy(tensors[name])
        if a.dtype not in _DTYPES:
            raise ValueError(f"{name}: unsupported dtype {a.dtype}")
        b = a.astype(a.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": _DTYPES[a.dtype], "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    h = json.dumps(header).encode()
    h += b" " * ((8 - (len(h) + 8) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def read_header(path):
    """({name: (dtype, shape, data offset, nbytes)}, metadata, where the data starts), reading only
    the header; ValueError naming what is wrong when the file is not a safetensors file."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise ValueError("shorter than 8 bytes")
        (n,) = struct.unpack("<Q", head)
        if n > size - 8:
            raise ValueError("its header length runs past the end")
        try:
            header = json.loads(f.read(n))
            meta = header.pop("__metadata__", {}) or {}
            tensors = {k: (v["dtype"], v["shape"], v["data_offsets"][0],
                           v["data_offsets"][1] - v["data_offsets"][0]) for k, v in header.items()}
        except (ValueError, KeyError, TypeError, AttributeError):
            raise ValueError("its header is not a JSON table of tensors")
    return tensors, meta, 8 + n


def load(path):
    """Returns ({name: numpy array}, metadata)."""
    tensors, meta, base = read_header(path)
    with open(path, "rb") as f:
        f.seek(base)
        data = f.read()
    out = {}
    for name, (dtype, shape, offset, nbytes) in tensors.items():
        out[name] = np.frombuffer(data[offset:offset + nbytes], dtype=_NP[dtype]).reshape(shape)
    return out, meta
