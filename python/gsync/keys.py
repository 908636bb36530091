"""Keys of keyed groups: the group secret, key files, fingerprints.

A keyed group (``GSYNC_KEY``; docs/security.md) seals every packet under
keys derived from a 32-byte group secret that every rank holds. The
secret travels out of band as a key file, as WireGuard's: the secret in
base64 (44 characters) and a newline, mode 0600. These functions read and
write such files with the rules of libgsync and ``gsyncctl key``: a file
that group or others may access is refused (:class:`PermissionError`),
and so is one that is no regular file or holds anything but one key
(:class:`ValueError`). A key's fingerprint names it without revealing it:
the first 8 bytes, big-endian, of BLAKE2s-256 over ``b"gsync fingerprint
v1"`` and the secret, as the kernel reports it (``Group.info()
["key_fingerprint"]``, ``gsyncctl key show``).

Python cannot promise that a secret is erased from memory (``bytes`` are
immutable and may be copied); the option values handed to the kernel are
built in a ``bytearray`` that is zeroed after the call.
"""
from __future__ import annotations

import base64
import binascii
import errno
import hashlib
import os
import secrets
import stat
import tempfile
from typing import Optional, Union

from . import _abi

PathLike = Union[str, "os.PathLike[str]"]

MODES = {"auth": _abi.KEY_AUTH, "encrypt": _abi.KEY_ENCRYPT}


def key_generate() -> bytes:
    """A new group secret: 32 random bytes from the OS (getrandom)."""
    return secrets.token_bytes(_abi.KEY_LEN)


def _secret(secret, what: str = "secret") -> bytes:
    if isinstance(secret, str):
        raise TypeError(f"{what}: the 32-byte secret as bytes (a str is taken as a key "
                        "file's path only by Group(key=) and Key.from_file)")
    try:
        raw = bytes(memoryview(secret).cast("B"))
    except TypeError:
        raise TypeError(f"{what}: expected 32 bytes, got {type(secret).__name__}") from None
    if len(raw) != _abi.KEY_LEN:
        raise ValueError(f"{what}: a group secret is {_abi.KEY_LEN} bytes, not {len(raw)}")
    return raw


def key_fingerprint(secret) -> int:
    """The secret's fingerprint as an integer (print it as ``f"{fp:016x}"``,
    16 hex digits, as gsyncctl and /proc/net/gsync do)."""
    d = hashlib.blake2s(_abi.KEY_FPR_LABEL + _secret(secret)).digest()
    return int.from_bytes(d[:8], "big")


def key_encode(secret) -> str:
    """The secret as a key file's text, without the newline: 44 characters."""
    return base64.b64encode(_secret(secret)).decode("ascii")


def key_decode(text: Union[str, bytes], what: str = "key") -> bytes:
    """The inverse of :func:`key_encode`: exactly 44 characters of
    canonical base64, optionally followed by one newline; ValueError
    otherwise."""
    if isinstance(text, str):
        try:
            text = text.encode("ascii")
        except UnicodeEncodeError:
            raise ValueError(f"{what}: not base64") from None
    if text.endswith(b"\n"):
        text = text[:-1]
    if len(text) != _abi.KEY_B64_LEN:
        raise ValueError(f"{what}: a key is {_abi.KEY_B64_LEN} characters of base64 "
                         "and a newline (gsyncctl key generate writes one)")
    try:
        raw = base64.b64decode(text, validate=True)
    except binascii.Error:
        raise ValueError(f"{what}: not base64") from None
    # b64decode takes non-zero bits after the last byte: only text that
    # encodes back to itself is a key, as in libgsync
    if len(raw) != _abi.KEY_LEN or base64.b64encode(raw) != text:
        raise ValueError(f"{what}: not the base64 of a {_abi.KEY_LEN}-byte key")
    return raw


def key_file_read(path: PathLike) -> bytes:
    """The secret of key file ``path``.

    Raises PermissionError (EACCES) if group or others may access the file
    (``chmod 600`` it), ValueError if it is no regular file or holds
    anything but one key, and what ``open`` raises (FileNotFoundError,
    ...)."""
    name = os.fspath(path)
    fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"key file {name}: not a regular file")
        if st.st_mode & 0o077:
            raise PermissionError(
                errno.EACCES, f"key file refused: group or others may access it "
                f"(mode {stat.S_IMODE(st.st_mode):04o}); a key file must be mode "
                f"0600 (chmod 600 it)", name)
        data = os.read(fd, _abi.KEY_B64_LEN + 2)
    finally:
        os.close(fd)
    return key_decode(data, f"key file {name}")


def key_file_write(path: PathLike, secret, overwrite: bool = False) -> None:
    """Write ``secret`` as key file ``path``, mode 0600 whatever the umask.

    Without ``overwrite`` the file must not exist (FileExistsError; a
    symbolic link is not followed); with it, a new file written beside
    ``path`` replaces it whole (rename), never keeping the old file's
    mode."""
    name = os.fspath(path)
    line = bytearray(key_encode(secret).encode("ascii") + b"\n")
    try:
        if overwrite:
            fd, tmp = tempfile.mkstemp(prefix=os.path.basename(name) + ".",
                                       dir=os.path.dirname(name) or ".")
            try:
                _put(fd, line)
                os.replace(tmp, name)
            except BaseException:
                os.unlink(tmp)
                raise
            return
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
                     os.O_CLOEXEC, 0o600)
        try:
            _put(fd, line)
        except BaseException:
            os.unlink(name)
            raise
    finally:
        line[:] = bytes(len(line))


def _put(fd: int, line: bytearray) -> None:
    try:
        os.fchmod(fd, 0o600)    # umask only takes bits away; this drops what it left
        view = memoryview(line)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


class Key:
    """A group secret with the mode and epoch to key a group with::

        gsync.Key(secret, mode="encrypt", epoch=1)
        gsync.Key.from_file("/etc/gsync/job.key", mode="auth")

    ``mode`` is ``"encrypt"`` (the payload encrypted, everything
    authenticated) or ``"auth"`` (integrity only: the payload in clear, so
    an aggregator on the path can read it; nobody can forge it).
    ``epoch`` numbers the key (0..2**32-1): the first key's every rank
    agrees on, a rotation's must be above the current one. The repr shows
    the fingerprint, never the secret."""

    __slots__ = ("secret", "mode", "epoch")

    def __init__(self, secret, mode: str = "encrypt", epoch: int = 1) -> None:
        if mode not in MODES:
            raise ValueError(f"key mode {mode!r}: 'encrypt' or 'auth'")
        if isinstance(epoch, bool) or not isinstance(epoch, int) or not 0 <= epoch < 1 << 32:
            raise ValueError(f"key epoch {epoch!r}: an integer in 0..{(1 << 32) - 1}")
        self.secret = _secret(secret)
        self.mode = mode
        self.epoch = epoch

    @classmethod
    def from_file(cls, path: PathLike, mode: str = "encrypt", epoch: int = 1) -> "Key":
        """The key of key file ``path`` (refused as :func:`key_file_read`
        refuses it)."""
        return cls(key_file_read(path), mode, epoch)

    @property
    def fingerprint(self) -> int:
        return key_fingerprint(self.secret)

    def option(self, start_seq: int = 0) -> bytearray:
        """The GSYNC_KEY option value (struct gsync_key), in a bytearray
        the caller zeroes once the kernel has it."""
        buf = bytearray(_abi.KEY.size)
        _abi.KEY.pack_into(buf, 0, MODES[self.mode], self.epoch, start_seq, self.secret,
                           bytes(16))
        return buf

    def __eq__(self, other) -> bool:
        return (isinstance(other, Key) and secrets.compare_digest(self.secret, other.secret)
                and (self.mode, self.epoch) == (other.mode, other.epoch))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"gsync.Key(mode={self.mode!r}, epoch={self.epoch}, "
                f"fingerprint={self.fingerprint:016x})")


KeyLike = Union[Key, bytes, bytearray, memoryview, str, "os.PathLike[str]"]


def as_key(key: KeyLike, mode: Optional[str] = None, epoch: Optional[int] = None) -> Key:
    """A Key from what ``Group(key=)`` takes: a Key (as it is), 32 bytes
    (the secret), or a str/PathLike naming a key file; ``mode`` and
    ``epoch`` for the last two (default encrypt, 1)."""
    if isinstance(key, Key):
        return key
    mode = "encrypt" if mode is None else mode
    epoch = 1 if epoch is None else epoch
    if isinstance(key, (str, os.PathLike)):
        return Key.from_file(key, mode, epoch)
    return Key(key, mode, epoch)
