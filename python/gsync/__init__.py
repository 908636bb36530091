"""gsync: all-reduce of training buffers between compute islands over a WAN.

Pure Python over the AF_GSYNC kernel socket (no compiled extension)::

    import gsync
    with gsync.Group(rank, ["198.18.0.1:7000", "198.18.0.2:7000"],
                     mcast="239.1.1.1:7100") as g:
        g.all_reduce_(grads, op="avg")

``gsync.Group.from_env()`` reads ``GSYNC_RANK``, ``GSYNC_MEMBERS`` and
``GSYNC_MCAST`` (and ``GSYNC_KEY_FILE`` for a keyed group). A keyed group
authenticates (and by default encrypts) its traffic under a secret every
rank holds: ``gsync.Group(..., key="/etc/gsync/job.key")``, the file from
``gsync.key_file_write(path, gsync.key_generate())`` or ``gsyncctl key
generate``. PyTorch helpers (DDP comm hook, DiLoCo outer sync) are in
``gsync.torch``. ``python -m gsync info`` says whether the module is loaded
and lists the groups of this network namespace.
"""
from __future__ import annotations

from ._abi import (DTYPE_BF16, DTYPE_FP16, DTYPE_FP32, DTYPE_INT32, OP_AVG, OP_MAX,
                   OP_MIN, OP_SUM)
from .buffers import as_buffer, dtype_code, op_code
from .config import Config, from_env, make_config, parse_endpoint, parse_members
from .errors import (GsyncAborted, GsyncClosed, GsyncError, GsyncKeyRejected, GsyncMismatch,
                     GsyncTimeout, ModuleNotLoaded, error_for)
from .group import Future, Group, family, open_socket
from .keys import Key, key_file_read, key_file_write, key_fingerprint, key_generate
from .schedule import compile_schedule

__version__ = "0.2.0"

__all__ = [
    "Group", "Future", "family", "open_socket", "from_env", "make_config", "Config",
    "parse_endpoint", "parse_members", "as_buffer", "dtype_code", "op_code",
    "compile_schedule",
    "Key", "key_generate", "key_file_write", "key_file_read", "key_fingerprint",
    "GsyncError", "GsyncTimeout", "GsyncMismatch", "GsyncAborted", "GsyncClosed",
    "GsyncKeyRejected",
    "ModuleNotLoaded", "error_for",
    "DTYPE_FP32", "DTYPE_BF16", "DTYPE_FP16", "DTYPE_INT32",
    "OP_SUM", "OP_AVG", "OP_MIN", "OP_MAX",
]
