"""Group configuration: endpoints, members, tunables, the GSYNC_JOIN blob,
and the launcher environment (``GSYNC_RANK``, ``GSYNC_MEMBERS``,
``GSYNC_MCAST``, ``GSYNC_KEY_FILE``, ...).

Nothing here touches the kernel; every rule ``GSYNC_JOIN`` enforces (see
``uapi/linux/gsync.h``) is checked first so that a mistake is named in
Python (``ValueError``) instead of coming back as a bare EINVAL.
"""
from __future__ import annotations

import dataclasses
import hashlib
import ipaddress
import os
import socket
import struct
from typing import Iterable, Mapping, Optional, Sequence, Tuple, Union

from . import _abi

Endpoint = Tuple[str, int, int]
"""(numeric address, port, IPv6 scope id) as used throughout gsync."""

EndpointLike = Union[str, Tuple[str, int], Tuple[str, int, int]]

TUNABLES = ("window", "mtu", "max_op_bytes", "op_timeout_ms", "repair_ms",
            "pacing_rate", "ttl", "ifindex", "ifname", "mcast_loop", "group_id")


def parse_endpoint(ep: EndpointLike, what: str = "endpoint") -> Endpoint:
    """Parse ``"198.18.0.1:7000"``, ``"[2001:2::1]:7000"``,
    ``"[fe80::1%eth0]:7000"`` or a tuple ``(host, port[, scope_id])``.

    Addresses are numeric only (no name resolution: every rank must mean
    the same endpoint); the port is mandatory, 1..65535.
    """
    scope: Union[int, str] = 0
    if isinstance(ep, tuple):
        if len(ep) not in (2, 3):
            raise ValueError(f"{what}: a tuple must be (host, port) or (host, port, scope_id)")
        host, port = ep[0], ep[1]
        if len(ep) == 3:
            scope = ep[2]
        if not isinstance(port, int) or isinstance(port, bool):
            raise ValueError(f"{what}: port {port!r} is not an integer")
    elif isinstance(ep, str):
        text = ep.strip()
        if text.startswith("["):
            close = text.find("]")
            if close < 0 or text[close + 1:close + 2] != ":":
                raise ValueError(f"{what} {ep!r}: expected [IPv6]:PORT")
            host, port_s = text[1:close], text[close + 2:]
        else:
            host, sep, port_s = text.rpartition(":")
            if not sep or ":" in host:
                raise ValueError(f"{what} {ep!r}: expected ADDR:PORT (IPv6 as [ADDR]:PORT)")
        if not port_s.isdigit():
            raise ValueError(f"{what} {ep!r}: the port must be a number")
        port = int(port_s)
    else:
        raise TypeError(f"{what}: expected 'addr:port' or (addr, port), got {type(ep).__name__}")
    if not isinstance(host, str):
        raise ValueError(f"{what}: host {host!r} is not a string")
    if "%" in host:
        host, scope = host.split("%", 1)
    if not 1 <= port <= 65535:
        raise ValueError(f"{what} {ep!r}: port {port} outside 1..65535")
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(f"{what} {ep!r}: {host!r} is not a numeric IPv4/IPv6 address") from None
    if isinstance(scope, str):
        if scope.isdigit():
            scope = int(scope)
        elif scope:
            try:
                scope = socket.if_nametoindex(scope)
            except OSError:
                raise ValueError(f"{what} {ep!r}: no interface {scope!r}") from None
        else:
            scope = 0
    if scope and addr.version != 6:
        raise ValueError(f"{what} {ep!r}: a scope id needs an IPv6 address")
    return (str(addr), port, int(scope))


def format_endpoint(ep: Endpoint) -> str:
    host, port, scope = ep
    if ":" in host:
        return f"[{host}{'%' + str(scope) if scope else ''}]:{port}"
    return f"{host}:{port}"


def parse_members(members: Union[str, Iterable[EndpointLike]]) -> list:
    """Members in rank order: a comma-separated string or an iterable of
    endpoints. Checks what GSYNC_JOIN checks: 2..256 ranks, unicast
    addresses of one family, no duplicate endpoint."""
    if isinstance(members, str):
        items = [m for m in (x.strip() for x in members.split(",")) if m]
    else:
        items = list(members)
    out = [parse_endpoint(m, f"members[{i}]") for i, m in enumerate(items)]
    if not 2 <= len(out) <= _abi.MAX_RANKS:
        raise ValueError(f"members: {len(out)} ranks; a group has 2..{_abi.MAX_RANKS}")
    fams = set()
    seen = {}
    for i, ep in enumerate(out):
        a = ipaddress.ip_address(ep[0])
        fams.add(a.version)
        if a.is_multicast or a.is_unspecified:
            raise ValueError(f"members[{i}] {format_endpoint(ep)}: a member must be a "
                             "unicast address (the multicast group goes in mcast=)")
        if ep in seen:
            raise ValueError(f"members[{i}] {format_endpoint(ep)}: the same endpoint as "
                             f"members[{seen[ep]}]")
        seen[ep] = i
    if len(fams) > 1:
        raise ValueError("members: IPv4 and IPv6 addresses mixed; a group uses one family")
    return out


def pack_addr(ep: Endpoint) -> bytes:
    host, port, scope = ep
    if ":" in host:
        fam, raw = socket.AF_INET6, socket.inet_pton(socket.AF_INET6, host)
    else:
        fam, raw = socket.AF_INET, socket.inet_aton(host) + bytes(12)
    return _abi.ADDR.pack(fam, struct.pack("!H", port), scope, raw)


@dataclasses.dataclass
class Config:
    """Everything GSYNC_JOIN carries, in Python types. Zero tunables mean
    the kernel's defaults (window 4, MTU of the interface, 64 MiB largest
    operation, 10 s timeout, 20 ms repair interval, adaptive sending rate)."""

    rank: int
    members: list
    mcast: Optional[Endpoint] = None
    group_id: int = 0
    window: int = 0
    mtu: int = 0
    max_op_bytes: int = 0
    op_timeout_ms: int = 0
    repair_ms: int = 0
    pacing_rate: int = 0
    ttl: int = 0
    ifindex: int = 0
    mcast_loop: bool = False

    @property
    def nranks(self) -> int:
        return len(self.members)

    @property
    def unicast(self) -> bool:
        return self.mcast is None

    @property
    def flags(self) -> int:
        return ((_abi.JOIN_UNICAST if self.mcast is None else 0)
                | (_abi.JOIN_MCAST_LOOP if self.mcast_loop else 0))

    def effective_window(self) -> int:
        return self.window or 4

    def effective_max_op_bytes(self) -> int:
        return self.max_op_bytes or (64 << 20)

    def join_blob(self) -> bytes:
        """The GSYNC_JOIN option value: struct gsync_join + members."""
        m = pack_addr(self.mcast) if self.mcast else bytes(_abi.ADDR.size)
        hdr = _abi.JOIN.pack(self.group_id, self.rank, self.nranks, self.flags, m,
                             self.ifindex, self.ttl, bytes(3), self.mtu, self.window,
                             self.max_op_bytes, self.op_timeout_ms, self.repair_ms, 0,
                             self.pacing_rate, bytes(16))
        return hdr + b"".join(pack_addr(ep) for ep in self.members)


def _int(name: str, v, lo: int, hi: int, zero_ok: bool = True) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{name} must be an integer, got {type(v).__name__}")
    if v == 0 and zero_ok:
        return 0
    if not lo <= v <= hi:
        raise ValueError(f"{name}={v} outside {lo}..{hi}" + (" (or 0 for the default)" if zero_ok else ""))
    return v


def default_group_id(members: Sequence[Endpoint], mcast: Optional[Endpoint]) -> int:
    """A group id every rank derives alike from the member list and the
    multicast group (the first 8 bytes of a SHA-256, nonzero)."""
    text = ",".join(format_endpoint(m) for m in members)
    text += "|" + (format_endpoint(mcast) if mcast else "unicast")
    gid = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    return gid or 1


def make_config(rank: int, members, mcast: Optional[EndpointLike] = None,
                unicast: bool = False, **tunables) -> Config:
    """Validate the arguments of :class:`gsync.Group` and build a Config.

    Exactly one of ``mcast="G:P"`` (multicast group) and ``unicast=True``
    (unicast fan-out, no multicast) must be given.
    """
    unknown = set(tunables) - set(TUNABLES)
    if unknown:
        raise TypeError(f"unknown tunable(s) {', '.join(sorted(unknown))}; "
                        f"known: {', '.join(TUNABLES)}")
    mem = parse_members(members)
    if isinstance(rank, bool) or not isinstance(rank, int):
        raise TypeError(f"rank must be an integer, got {type(rank).__name__}")
    if not 0 <= rank < len(mem):
        raise ValueError(f"rank {rank} outside 0..{len(mem) - 1} ({len(mem)} members)")
    if mcast is not None and unicast:
        raise ValueError("give mcast= or unicast=True, not both")
    if mcast is None and not unicast:
        raise ValueError("give mcast='GROUP:PORT' for multicast or unicast=True for "
                         "unicast fan-out")
    g = None
    if mcast is not None:
        g = parse_endpoint(mcast, "mcast")
        ga = ipaddress.ip_address(g[0])
        if not ga.is_multicast:
            raise ValueError(f"mcast {format_endpoint(g)}: not a multicast address "
                             "(224.0.0.0/4 or ff00::/8)")
        if ga.version != ipaddress.ip_address(mem[0][0]).version:
            raise ValueError("mcast and members must be the same address family")
    cfg = Config(rank=rank, members=mem, mcast=g)
    t = dict(tunables)
    cfg.window = _int("window", t.get("window", 0), 1, _abi.MAX_WINDOW)
    cfg.mtu = _int("mtu", t.get("mtu", 0), 576, 65535)
    cfg.max_op_bytes = _int("max_op_bytes", t.get("max_op_bytes", 0), 1, _abi.MAX_OP_BYTES)
    cfg.op_timeout_ms = _int("op_timeout_ms", t.get("op_timeout_ms", 0), 10, 3600000)
    cfg.repair_ms = _int("repair_ms", t.get("repair_ms", 0), 1, cfg.op_timeout_ms or 10000)
    cfg.pacing_rate = _int("pacing_rate", t.get("pacing_rate", 0), 0, (1 << 64) - 1)
    cfg.ttl = _int("ttl", t.get("ttl", 0), 0, 255)
    ifindex = t.get("ifindex", 0)
    ifname = t.get("ifname")
    if ifname is not None:
        if ifindex:
            raise ValueError("give ifindex= or ifname=, not both")
        try:
            ifindex = socket.if_nametoindex(ifname)
        except OSError:
            raise ValueError(f"ifname={ifname!r}: no such interface in this network "
                             "namespace") from None
    cfg.ifindex = _int("ifindex", ifindex, 0, (1 << 32) - 1)
    cfg.mcast_loop = bool(t.get("mcast_loop", False))
    if cfg.mcast_loop and g is None:
        raise ValueError("mcast_loop=True needs a multicast group (mcast=)")
    gid = t.get("group_id")
    if gid is None:
        gid = default_group_id(mem, g)
    cfg.group_id = _int("group_id", gid, 0, (1 << 64) - 1)
    return cfg


def _env_int(env: Mapping[str, str], name: str) -> int:
    text = env.get(name)
    if text is None or not text.strip():
        raise ValueError(f"{name} is not set")
    try:
        return int(text.strip(), 0)
    except ValueError:
        raise ValueError(f"{name}={text!r} is not an integer") from None


def from_env(env: Optional[Mapping[str, str]] = None) -> dict:
    """The Group arguments a launcher put in the environment.

    ``GSYNC_RANK`` (this rank, 0-based), ``GSYNC_MEMBERS`` (``addr:port``
    of every rank in rank order, comma-separated), ``GSYNC_MCAST``
    (``group:port``, or ``unicast`` for unicast fan-out); optional:
    ``GSYNC_GROUP_ID``, ``GSYNC_IFNAME``, ``GSYNC_WINDOW``,
    ``GSYNC_TIMEOUT_MS`` (op_timeout_ms), ``GSYNC_PACING_RATE`` (bytes/s);
    for a keyed group ``GSYNC_KEY_FILE`` (the path of the key file every
    rank was given; ``key=``) and ``GSYNC_KEY_MODE`` (``encrypt``, the
    default, or ``auth``; then ``key=`` is a :class:`gsync.Key` read from
    the file here).
    Returns keyword arguments for :class:`gsync.Group`.
    """
    env = os.environ if env is None else env
    kw: dict = {"rank": _env_int(env, "GSYNC_RANK")}
    members = env.get("GSYNC_MEMBERS", "").strip()
    if not members:
        raise ValueError("GSYNC_MEMBERS is not set (addr:port of every rank, comma-separated)")
    kw["members"] = members
    if "GSYNC_MCAST" not in env:
        raise ValueError("GSYNC_MCAST is not set (GROUP:PORT, or 'unicast')")
    mc = env["GSYNC_MCAST"].strip()
    if mc.lower() in ("unicast", "none", ""):
        kw["unicast"] = True
    else:
        kw["mcast"] = mc
    for var, key in (("GSYNC_GROUP_ID", "group_id"), ("GSYNC_WINDOW", "window"),
                     ("GSYNC_TIMEOUT_MS", "op_timeout_ms"),
                     ("GSYNC_PACING_RATE", "pacing_rate")):
        if env.get(var, "").strip():
            kw[key] = _env_int(env, var)
    if env.get("GSYNC_IFNAME", "").strip():
        kw["ifname"] = env["GSYNC_IFNAME"].strip()
    path = env.get("GSYNC_KEY_FILE", "").strip()
    mode = env.get("GSYNC_KEY_MODE", "").strip()
    if mode and not path:
        raise ValueError("GSYNC_KEY_MODE is set without GSYNC_KEY_FILE")
    if mode and mode not in ("auth", "encrypt"):
        raise ValueError(f"GSYNC_KEY_MODE={mode!r}: 'encrypt' or 'auth'")
    if path:
        from .keys import Key
        kw["key"] = Key.from_file(path, mode) if mode else path
    return kw
