"""Element types of hcl.Array: names, sizes, the hcl_dtype of the three the built-ins take, the DLPack codes, and
typed scalars for kernel arguments."""

import struct

from . import _hcl

# name -> (itemsize, struct format or None, hcl_dtype or None, DLPack (code, bits), NumPy name or None)
_TABLE = {
    "float32": (4, "<f", 0, (2, 32), "float32"),
    "float16": (2, "<e", 1, (2, 16), "float16"),
    "bfloat16": (2, None, 2, (4, 16), None),
    "float64": (8, "<d", None, (2, 64), "float64"),
    "int8": (1, "<b", None, (0, 8), "int8"),
    "int16": (2, "<h", None, (0, 16), "int16"),
    "int32": (4, "<i", None, (0, 32), "int32"),
    "int64": (8, "<q", None, (0, 64), "int64"),
    "uint8": (1, "<B", None, (1, 8), "uint8"),
    "uint16": (2, "<H", None, (1, 16), "uint16"),
    "uint32": (4, "<I", None, (1, 32), "uint32"),
    "uint64": (8, "<Q", None, (1, 64), "uint64"),
}
_ALIASES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64", "half": "float16",
            "float": "float32", "double": "float64"}
_FROM_DL = {v[3]: k for k, v in _TABLE.items()}


def dtype_name(dtype):
    """The canonical name of a dtype given as a name ("float32", "f16", "bf16"), a NumPy dtype or a torch dtype."""
    if isinstance(dtype, str):
        name = _ALIASES.get(dtype, dtype)
    else:
        name = str(getattr(dtype, "name", None) or dtype)
        name = name.replace("torch.", "")
        name = _ALIASES.get(name, name)
    if name not in _TABLE:
        raise TypeError(f"hcl: dtype {dtype!r} is not one of {', '.join(_TABLE)}")
    return name


def itemsize(name):
    return _TABLE[name][0]


def hcl_dtype(name, what="this call"):
    """The hcl_dtype value of a type the built-ins take (float32, float16, bfloat16); TypeError otherwise."""
    code = _TABLE[name][2]
    if code is None:
        raise TypeError(f"hcl: {what} takes float32, float16 or bfloat16, not {name}")
    return code


def dlpack_code(name):
    return _TABLE[name][3]


def from_dlpack_code(code, bits, lanes):
    if lanes != 1 or (code, bits) not in _FROM_DL:
        raise TypeError(f"hcl: DLPack type (code {code}, bits {bits}, lanes {lanes}) has no hcl dtype")
    return _FROM_DL[(code, bits)]


def numpy_name(name):
    return _TABLE[name][4]


def _scalar(name):
    fmt = _TABLE[name][1]

    def make(value):
        if name == "bfloat16":
            data = struct.pack("<H", _hcl.f32_to_bf16(float(value)))
        else:
            try:
                data = struct.pack(fmt, value)
            except struct.error as e:
                raise OverflowError(f"hcl.{name}({value!r}): {e}") from None
        return _hcl.Scalar(data, name)

    make.__name__ = name
    make.__doc__ = f"A {name} kernel argument (its bytes as the kernel sees them)."
    return make


scalars = {name: _scalar(name) for name in _TABLE}
