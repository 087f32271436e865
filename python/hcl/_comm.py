"""Communicators (hcl/hcl_comm.h) on arrays: NCCL-shaped collectives on HCL buffers."""

from . import _hcl
from . import _dtypes
from ._array import Array

_OPS = {"sum": 0, "prod": 1, "max": 2, "min": 3}


def _buf(x):
    if x is None:
        return None, None
    if not isinstance(x, Array):
        raise TypeError(f"hcl.Comm: buffers are hcl.Arrays, not {type(x).__name__}")
    if x.offset != 0 or not x.is_contiguous:
        raise ValueError("hcl.Comm: arrays must be contiguous and start at their buffer's first byte")
    return x._buf, x


def _count_type(send, recv, count):
    ref = send if send is not None else recv
    t = _dtypes.hcl_dtype(ref.dtype, "a collective")
    return t, (ref.size if count is None else int(count))


class _Ops:
    """The collectives, as methods of hcl.Comm (each blocks only as long as its engine's call does; comm.finish()
    waits for the queue)."""

    @staticmethod
    def all_reduce(comm, send, recv, op="sum", count=None, queue=None):
        (sb, s), (rb, r) = _buf(send), _buf(recv)
        t, n = _count_type(s, r, count)
        comm._collective("all_reduce", queue, t, 0, _OPS[op], n, sb, rb)

    @staticmethod
    def reduce(comm, send, recv, root, op="sum", count=None, queue=None):
        (sb, s), (rb, r) = _buf(send), _buf(recv)
        t, n = _count_type(s, r, count)
        comm._collective("reduce", queue, t, root, _OPS[op], n, sb, rb)

    @staticmethod
    def broadcast(comm, send, recv, root, count=None, queue=None):
        (sb, s), (rb, r) = _buf(send), _buf(recv)
        t, n = _count_type(r, s, count) if count is None and r is not None else _count_type(s, r, count)
        comm._collective("broadcast", queue, t, root, 0, n, sb, rb)

    @staticmethod
    def all_gather(comm, send, recv, count=None, queue=None):
        (sb, s), (rb, r) = _buf(send), _buf(recv)
        t, n = _count_type(s, r, count)
        comm._collective("all_gather", queue, t, 0, 0, n, sb, rb)

    @staticmethod
    def reduce_scatter(comm, send, recv, op="sum", count=None, queue=None):
        (sb, s), (rb, r) = _buf(send), _buf(recv)
        t, n = _count_type(r, s, count)
        comm._collective("reduce_scatter", queue, t, 0, _OPS[op], n, sb, rb)

    @staticmethod
    def send(comm, x, peer, count=None, queue=None):
        b, a = _buf(x)
        t, n = _count_type(a, None, count)
        comm._collective("send", queue, t, peer, 0, n, b, None)

    @staticmethod
    def recv(comm, x, peer, count=None, queue=None):
        b, a = _buf(x)
        t, n = _count_type(None, a, count)
        comm._collective("recv", queue, t, peer, 0, n, None, b)


# The collectives become methods of hcl.Comm (a heap type of the extension, open to new attributes).
for _name in ("all_reduce", "reduce", "broadcast", "all_gather", "reduce_scatter", "send", "recv"):
    setattr(_hcl.Comm, _name, getattr(_Ops, _name))


def comm_create_all(devices, engine=None):
    """One communicator over devices of this process: a list of hcl.Comm, rank i on devices[i] (hcl_comm_create_all;
    engine None: nccl for CUDA devices, rccl for HIP ones, else staged)."""
    return _hcl._comm_create_all(list(devices), engine)


def comm_get_id(device, engine=None):
    """A new communicator id (bytes) for ranks on device's backend, to hand to every rank (hcl_comm_get_id)."""
    return _hcl._comm_get_id(device, engine)


def comm_create(device, size, rank, comm_id):
    """Join rank `rank` of `size` of the communicator of `comm_id` (hcl_comm_create; waits for every rank)."""
    return _hcl._comm_create(device, size, rank, comm_id)
