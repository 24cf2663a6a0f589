"""Reads a tensor through DLPack (``__dlpack__``): the producer's capsule
holds a DLManagedTensor (dlpack.h, the unversioned ABI every producer
offers); its DLTensor gives the data pointer, device, dtype, shape and
strides. The capsule is not consumed: it is kept alive while the operand is
in use and its destructor returns the tensor to the producer."""

import ctypes

KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED = 1, 2, 3, 13
# DLDataTypeCode -> the name NumPy and PyTorch give its types.
_TYPE_CODES = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 5: "complex",
               6: "bool"}
# DLPack 1.0's FP8 codes of OCP's e4m3 (no infinities) and e5m2.
_FLOAT8_CODES = {10: "float8_e4m3fn", 12: "float8_e5m2"}
_CAPSULE_NAME = b"dltensor"


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


_api = ctypes.pythonapi
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def compact_strides(shape):
    """Row-major strides (in elements) of a compact array."""
    strides, step = [], 1
    for extent in reversed(shape):
        strides.insert(0, step)
        step *= extent
    return tuple(strides)


class View:
    """What the operand needs of a DLPack tensor; `capsule` keeps the
    producer's tensor alive."""

    def __init__(self, capsule, pointer, device_type, device_id, dtype,
                 shape, strides):
        self.capsule = capsule
        self.pointer, self.device_type, self.device_id = \
            pointer, device_type, device_id
        self.dtype, self.shape, self.strides = dtype, shape, strides


def read(name, tensor, stream):
    """The DLPack view of `tensor`, exported for `stream` (a CUstream
    handle: the producer orders its pending work before it, as the DLPack
    protocol asks)."""
    # DLPack numbers CUDA's legacy default stream 1; 0 is not allowed.
    try:
        capsule = tensor.__dlpack__(stream=stream or 1)
    except (BufferError, RuntimeError, TypeError) as e:
        raise TypeError(f"{name} cannot be exported through DLPack: {e}") \
            from None
    if not _api.PyCapsule_IsValid(capsule, _CAPSULE_NAME):
        raise TypeError(f"{name}.__dlpack__() did not return a 'dltensor' "
                        f"capsule (already consumed, or not DLPack)")
    managed = DLManagedTensor.from_address(
        _api.PyCapsule_GetPointer(capsule, _CAPSULE_NAME))
    t = managed.dl_tensor
    code, bits, lanes = t.dtype.code, t.dtype.bits, t.dtype.lanes
    if code in _FLOAT8_CODES and bits == 8 and lanes == 1:
        dtype = _FLOAT8_CODES[code]
    elif code in _TYPE_CODES and lanes == 1:
        dtype = "bool" if code == 6 else f"{_TYPE_CODES[code]}{bits}"
    else:
        dtype = f"DLPack type (code {code}, {bits} bits, {lanes} lanes)"
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = tuple(t.strides[i] for i in range(t.ndim)) if t.strides \
        else compact_strides(shape)  # NULL: compact row-major
    pointer = (t.data or 0) + t.byte_offset
    return View(capsule, pointer, t.device.device_type, t.device.device_id,
                dtype, shape, strides)
