"""Exceptions raised by gsync.

Every error of an operation or of the socket is an :class:`OSError`
subclass carrying ``errno`` and, where an operation is concerned, the
operation's sequence number in ``seq`` (``None`` if no operation was
involved, e.g. a refused ``GSYNC_JOIN``).
"""
from __future__ import annotations

import errno as _errno
import os
from typing import Optional

# What an operation status means for an all-reduce (libgsync's
# gsync_strerror() wording, so C and Python users read the same thing).
_MEANING = {
    _errno.ETIMEDOUT: "a peer the operation waits for sent nothing for op_timeout_ms",
    _errno.EPROTO: "ranks disagreed on length, dtype, op or schedule of this operation",
    _errno.ECONNABORTED: "a peer aborted the operation",
    _errno.EKEYREJECTED: "a peer the operation waits for sends only packets that do not "
                         "authenticate: its key differs from this rank's, or one has none",
}


class GsyncError(OSError):
    """An error of gsync: ``errno`` as for any OSError, ``seq`` the
    operation it concerns (or None)."""

    seq: Optional[int]

    def __init__(self, err: int, message: Optional[str] = None,
                 seq: Optional[int] = None) -> None:
        if message is None:
            message = _MEANING.get(err) or os.strerror(err)
        if seq is not None:
            message = f"{message} (operation seq {seq})"
        super().__init__(err, message)
        self.seq = seq

    def __reduce__(self):  # picklable across processes
        return (_rebuild, (type(self), self.errno, self.strerror, self.seq))


def _rebuild(cls, err, message, seq):
    e = cls.__new__(cls)
    OSError.__init__(e, err, message)
    e.seq = seq
    return e


class GsyncTimeout(GsyncError, TimeoutError):
    """ETIMEDOUT: a peer the operation waits for sent nothing for
    ``op_timeout_ms`` (a dead or partitioned rank, or ranks that submit too
    far apart)."""


class GsyncMismatch(GsyncError):
    """EPROTO: the ranks submitted different lengths, dtypes, operators or
    schedules for the same sequence number."""


class GsyncAborted(GsyncError, ConnectionAbortedError):
    """ECONNABORTED: a peer aborted the operation."""


class GsyncKeyRejected(GsyncError, PermissionError):
    """EKEYREJECTED: a peer the operation waits for sent, for
    ``op_timeout_ms``, only packets that do not authenticate (keyed groups:
    its key differs from this rank's, or one of the two has none)."""


class GsyncClosed(GsyncError):
    """The group was closed (or abandoned) while the operation was in
    flight; its result was never collected."""

    def __init__(self, message: str = "the group was closed", seq: Optional[int] = None):
        super().__init__(_errno.ESHUTDOWN, message, seq)


class ModuleNotLoaded(GsyncError, FileNotFoundError):
    """The gsync kernel module is not loaded (no family file in sysfs)."""

    def __init__(self, path: str):
        super().__init__(_errno.ENOENT,
                         f"the gsync kernel module is not loaded ({path} is missing); "
                         "load it with 'modprobe gsync' (packages) or "
                         "'modprobe -a udp_tunnel libchacha20poly1305; "
                         "insmod gsync.ko'")


_BY_ERRNO = {
    _errno.ETIMEDOUT: GsyncTimeout,
    _errno.EPROTO: GsyncMismatch,
    _errno.ECONNABORTED: GsyncAborted,
    _errno.EKEYREJECTED: GsyncKeyRejected,
}


def error_for(err: int, seq: Optional[int] = None,
              message: Optional[str] = None) -> GsyncError:
    """The exception for a positive errno: an operation status from
    GSYNC_CMSG_RESULT or the errno of a failed system call."""
    cls = _BY_ERRNO.get(err, GsyncError)
    return cls(err, message, seq)
