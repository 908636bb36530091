"""Schedules for GSYNC_SCHEDULE: kernel blobs and gsync-schedule/1 JSON.

A *blob* (``uapi/linux/gsync_sched.h``; what ``gsync-sched export``
writes) is loaded as is. A *JSON* schedule (``docs/schedules.md``) is
converted here for the subset the kernel executes directly: patterns
``multicast``, ``unicast``, ``rs_multicast`` and ``aggregator`` at a member
island. Members and aggregators are island ids mapped to ranks by
``ranks=[id, ...]`` (rank order) or by the order of a topology's
``islands`` array, or plain rank numbers. Given a topology, its
multicast capability is applied as ``gsync-sched export`` applies it: a
``multicast`` clique with an island that has none is refused, and
``rs_multicast`` (any member without) and ``aggregator`` (the aggregator
without) cliques return results by unicast. Anything that needs the cost
model or more of the topology (``auto``, an omitted aggregator,
aggregation at a network node with ``--relay``) is refused with a pointer
to ``gsync-sched export``, whose blob can then be loaded.

Clique groups (``GSYNC_SCHF_CLIQUE_GROUPS``: clique i multicasts to an
address of its own, ``group_base`` + i, or the group's address + 1 + i
when ``group_base`` is all zero) are off unless asked for with
``clique_groups=True`` (and optionally ``group_base=``), unlike
``gsync-sched export``, which sets them by default: a rank joins one
multicast group per clique it is in, so those addresses must be free for
the job, which only the caller knows. :func:`check_clique_groups` holds
the kernel's rules on them.
"""
from __future__ import annotations

import ipaddress
import json
import os
import struct
from typing import Any, Dict, Iterable, List, Optional, Sequence

from . import _abi


def is_blob(data: bytes) -> bool:
    return len(data) >= 4 and struct.unpack_from("=I", data)[0] == _abi.SCHED_MAGIC


# ---- clique groups (GSYNC_SCHF_CLIQUE_GROUPS) ------------------------------------
_V4_CLIQUE_FIRST, _V4_CLIQUE_LAST = 0xE0000100, 0xEFFFFFFF   # 224.0.1.0, 239.255.255.255


def base_bytes(group_base: Any) -> bytes:
    """``group_base`` as the header holds it: None gives 16 zero bytes
    (the group's address + 1); an address (text or :mod:`ipaddress`
    object, IPv4 or IPv6) its bytes, IPv4 in the first 4; 16 bytes stay
    as they are."""
    if group_base is None:
        return bytes(16)
    if isinstance(group_base, (bytes, bytearray, memoryview)):
        b = bytes(group_base)
        if len(b) != 16:
            raise ValueError(f"group_base: {len(b)} bytes, expected 16")
        return b
    if not isinstance(group_base, (str, ipaddress.IPv4Address, ipaddress.IPv6Address)):
        raise TypeError("group_base: an address (text or ipaddress), 16 bytes, or None")
    try:
        b = ipaddress.ip_address(group_base).packed.ljust(16, b"\0")
    except ValueError:
        raise ValueError(f"group_base {group_base!r}: not an IPv4 or IPv6 address") from None
    if not any(b):
        raise ValueError(f"group_base {group_base!r}: all zero stands for the group's "
                         "address + 1; give None for that")
    return b


def _low32(b: bytes) -> int:
    return int.from_bytes(b[-4:], "big")


def _addr(prefix: bytes, low: int) -> str:
    return str(ipaddress.ip_address(prefix + (low & 0xFFFFFFFF).to_bytes(4, "big")))


def _check_range(prefix: bytes, first: int, n: int, what: str) -> None:
    """Clique addresses ``prefix`` + (first .. first+n-1) in the low 32
    bits; prefix b"" for IPv4, the first 12 bytes for IPv6."""
    start, last = _addr(prefix, first), first + n - 1
    if not prefix:
        if _V4_CLIQUE_FIRST <= first and last <= _V4_CLIQUE_LAST:
            return
        if n == 1:
            raise ValueError(f"{what}: {start} is not an IPv4 multicast address a clique may "
                             "use (224.0.1.0 to 239.255.255.255)")
        raise ValueError(f"{what}: the {n} clique addresses {start} + 0..{n - 1} are not all "
                         "IPv4 multicast addresses a clique may use (224.0.1.0 to "
                         "239.255.255.255)")
    if prefix[0] != 0xFF:
        raise ValueError(f"{what}: {start} is not IPv6 multicast (ff00::/8): clique addresses "
                         "must be multicast")
    if last > 0xFFFFFFFF:
        raise ValueError(f"{what}: the {n} clique addresses {start} + 0..{n - 1} carry out of "
                         "the low 32 bits (clique i adds i to them, without carry)")


def _check_any_group(base: bytes, n: int) -> None:
    """An explicit base, the group unknown: its family from its shape
    (IPv4: bytes 4..15 zero, unless the first byte is 0xff, which only
    IPv6 multicast can start with)."""
    if not any(base[4:]) and base[0] != 0xFF:
        _check_range(b"", _low32(base[:4]), n, "group_base")
    elif base[0] != 0xFF:
        raise ValueError(f"group_base: {ipaddress.ip_address(base)} is neither an IPv4 address "
                         "(bytes 4..15 zero) nor IPv6 multicast (ff00::/8): clique addresses "
                         "must be multicast")
    else:
        _check_range(base[:12], _low32(base), n, "group_base")


def _check_in_group(base: bytes, n: int, group: str) -> None:
    """The kernel's check against the group's multicast address."""
    raw = ipaddress.ip_address(group.split("%")[0]).packed
    alen = len(raw)
    if any(base[alen:]):
        raise ValueError(f"group_base: not an IPv4 address (bytes 4..15 must be 0), but the "
                         f"group {group} is IPv4")
    if alen == 16 and any(base) and base[0] != 0xFF:
        raise ValueError(f"group_base: {ipaddress.ip_address(base)} is not IPv6 multicast "
                         f"(ff00::/8), but the group {group} is IPv6")
    if any(base):
        prefix, first, what = base[:alen - 4], _low32(base[:alen]), "group_base"
    else:
        prefix, first = raw[:alen - 4], _low32(raw) + 1
        what = f"group_base 0 (the group's address {group} + 1)"
    _check_range(prefix, first, n, what)
    own = _low32(raw)
    if prefix == raw[:alen - 4] and first <= own <= first + n - 1:
        raise ValueError(f"{what}: clique {own - first}'s address is {group}, the group's own")


def check_clique_groups(flags: int, group_base: bytes, ncliques: int,
                        group: Optional[str] = None) -> None:
    """The kernel's rules on a header's ``flags`` and ``group_base``
    (``uapi/linux/gsync_sched.h``, "Clique groups"); ValueError naming the
    rule broken. No flag but ``SCHF_CLIQUE_GROUPS``; ``group_base`` 0
    without it. With it, clique i (of ``ncliques``) multicasts to
    ``group_base`` with i added to its low 32 bits: IPv4 (the first 4
    bytes, the rest 0) in 224.0.1.0..239.255.255.255, IPv6 multicast
    (ff00::/8) with no carry out of those bits. ``group``: the group's
    multicast address (text), if known; then also the family, the derived
    base (all zero: the group's address + 1) and that no clique address
    is the group's own. Without it what holds for any group is checked
    (an explicit base only), as ``gsync-sched export`` does."""
    if flags & ~_abi.SCHF_ALL:
        raise ValueError(f"flags: unknown flags {flags & ~_abi.SCHF_ALL:#x} (this library "
                         f"knows {_abi.SCHF_ALL:#x}, SCHF_CLIQUE_GROUPS)")
    base = bytes(group_base)
    if not flags & _abi.SCHF_CLIQUE_GROUPS:
        if any(base):
            raise ValueError("group_base: set without SCHF_CLIQUE_GROUPS in flags (it must be "
                             "0 then)")
        return
    n = max(ncliques, 1)
    if group is not None:
        _check_in_group(base, n, group)
    elif any(base):
        _check_any_group(base, n)


def build_blob(nranks: int, rounds: Sequence[Sequence[Dict[str, Any]]],
               block_bytes: int = 1 << 20, idle: Iterable[int] = (),
               start_seq: int = 0, clique_groups: bool = False,
               group_base: Any = None) -> bytes:
    """The blob of ``rounds``: lists of cliques, each a dict with
    ``members`` (ranks), ``pattern`` (a name), and optionally
    ``aggregator`` (a rank), ``flags`` and ``rate_kbit`` (the members'
    sending rate in 1000 bit/s). ``clique_groups=True`` sets
    GSYNC_SCHF_CLIQUE_GROUPS: clique i (in blob order) multicasts to the
    group's address + 1 + i, or to ``group_base`` + i (see
    :func:`base_bytes`; it needs ``clique_groups``)."""
    base = base_bytes(group_base)
    if any(base) and not clique_groups:
        raise ValueError("group_base is clique 0's address: it needs clique_groups=True")
    flags = _abi.SCHF_CLIQUE_GROUPS if clique_groups else 0
    cliques: List[bytes] = []
    members: List[int] = []
    for r, rnd in enumerate(rounds):
        for c in rnd:
            m = sorted(c["members"])
            cliques.append(_abi.SCHED_CLIQUE.pack(
                r, _abi.SCHED_PATTERNS[c["pattern"]], c.get("flags", 0), len(members),
                len(m), c.get("aggregator", 0), 0, c.get("rate_kbit", 0)))
            members.extend(m)
    bits = bytearray(32)
    for r in idle:
        bits[r // 8] |= 1 << (r % 8)
    check_clique_groups(flags, base, len(cliques))
    hdr = _abi.SCHED_HDR.pack(_abi.SCHED_MAGIC, _abi.SCHED_VERSION, _abi.SCHED_HDR.size,
                              start_seq, block_bytes, nranks, len(rounds), len(cliques),
                              len(members), flags, bytes(bits), base)
    return hdr + b"".join(cliques) + struct.pack("=%dH" % len(members), *members)


def parse_blob(blob: bytes) -> Dict[str, Any]:
    """The header fields and cliques of a blob (structure, and the rules
    on ``flags`` and ``group_base`` that hold in any group, see
    :func:`check_clique_groups`; the kernel checks the semantics)."""
    if len(blob) < _abi.SCHED_HDR.size or not is_blob(blob):
        raise ValueError("not a gsync schedule blob (bad magic or too short)")
    (magic, ver, hlen, start_seq, block, nranks, nrounds, ncl, nm, flags, idle_bits,
     base) = _abi.SCHED_HDR.unpack_from(blob)
    if ver != _abi.SCHED_VERSION or hlen != _abi.SCHED_HDR.size:
        raise ValueError(f"schedule blob version {ver}/header {hlen}: this library "
                         f"knows version {_abi.SCHED_VERSION}")
    want = _abi.SCHED_HDR.size + ncl * _abi.SCHED_CLIQUE.size + 2 * nm
    if len(blob) != want:
        raise ValueError(f"schedule blob of {len(blob)} bytes, its header says {want}")
    check_clique_groups(flags, base, ncl)
    mem = struct.unpack_from("=%dH" % nm, blob, _abi.SCHED_HDR.size + ncl * _abi.SCHED_CLIQUE.size)
    names = {v: k for k, v in _abi.SCHED_PATTERNS.items()}
    rounds: List[List[Dict[str, Any]]] = [[] for _ in range(nrounds)]
    for i in range(ncl):
        rnd, pat, cflags, first, n, agg, _a, rate = _abi.SCHED_CLIQUE.unpack_from(
            blob, _abi.SCHED_HDR.size + i * _abi.SCHED_CLIQUE.size)
        if rnd >= nrounds or first + n > nm:
            raise ValueError(f"schedule blob clique {i}: round or members out of range")
        rounds[rnd].append({"members": list(mem[first:first + n]),
                            "pattern": names.get(pat, pat), "aggregator": agg,
                            "flags": cflags, "rate_kbit": rate})
    return {"nranks": nranks, "rounds": rounds, "block_bytes": block,
            "start_seq": start_seq, "flags": flags, "group_base": base,
            "idle": [r for r in range(min(nranks, 256)) if idle_bits[r // 8] >> (r % 8) & 1]}


def _block_bytes(chunk: float) -> int:
    b = int(min(max(-(-chunk // 1), _abi.SCHED_MIN_BLOCK), 1 << 30))
    return (b + 15) & ~15


def _load_topology(topology: Any) -> Optional[Dict[str, Any]]:
    if isinstance(topology, (str, os.PathLike)):
        with open(topology) as f:
            return json.load(f)
    return topology


def _multicast_islands(topo: Dict[str, Any]) -> set:
    """Ids of the islands whose sends are multicast in ``topo``: their own
    ``multicast`` if given, else the network-wide one (default none);
    mode ``full`` or ``reach`` (docs/topology-format.md)."""
    net = topo.get("multicast") or {"mode": "none"}
    return {str(isl["id"]) for isl in topo.get("islands", [])
            if (isl.get("multicast") or net).get("mode", "none") != "none"}


def _rank_map(ranks: Optional[Iterable[str]], topo: Any) -> Optional[Dict[str, int]]:
    if ranks is not None:
        ids = list(ranks)
    elif topo is not None:
        ids = [isl["id"] for isl in topo.get("islands", [])]
        if not ids:
            raise ValueError("topology: no islands")
    else:
        return None
    if len(set(ids)) != len(ids):
        raise ValueError("ranks: an island is listed twice")
    return {str(i): r for r, i in enumerate(ids)}


def from_json(doc: Dict[str, Any], *, ranks: Optional[Iterable[str]] = None,
              topology: Any = None, start_seq: int = 0, unicast: bool = False,
              nranks: Optional[int] = None, clique_groups: bool = False,
              group_base: Any = None) -> bytes:
    """Convert a gsync-schedule/1 document to a blob (see the module doc).

    ``unicast=True`` (a group joined without multicast) refuses
    ``multicast`` cliques and sends the results of ``rs_multicast`` and
    ``aggregator`` cliques by unicast (GSYNC_SCF_UNICAST), as ``gsync-sched
    export --no-multicast`` does. ``clique_groups`` and ``group_base`` as
    in :func:`build_blob` (off by default; ``clique_groups=True`` gives
    the blob of ``gsync-sched export``, ``False`` that of ``export
    --no-clique-groups``)."""
    fmt = doc.get("format", "gsync-schedule/1")
    if fmt != "gsync-schedule/1":
        raise ValueError(f"format {fmt!r}: expected gsync-schedule/1")
    topo = _load_topology(topology)
    rmap = _rank_map(ranks, topo)
    # Ranks whose island has no multicast in the topology (none known
    # without one: the group's mode decides).
    no_mc: Dict[int, str] = {}
    if topo is not None and rmap is not None:
        has = _multicast_islands(topo)
        no_mc = {r: i for i, r in rmap.items() if i not in has}

    def rank_of(v: Any, path: str) -> int:
        if isinstance(v, int) and not isinstance(v, bool):
            r = v
        elif rmap is None:
            raise ValueError(f"{path}: island {v!r}: give ranks=[island ids in rank order] "
                             "or topology= to map islands to ranks")
        elif str(v) not in rmap:
            raise ValueError(f"{path}: unknown island {v!r}")
        else:
            r = rmap[str(v)]
        if nranks is not None and not 0 <= r < nranks:
            raise ValueError(f"{path}: rank {r} outside the group's 0..{nranks - 1}")
        return r

    rounds_in = doc.get("rounds")
    if not isinstance(rounds_in, list) or not rounds_in:
        raise ValueError("rounds: required, a non-empty list")
    n = nranks if nranks is not None else (len(rmap) if rmap else None)
    out_rounds: List[List[Dict[str, Any]]] = []
    cover = None
    for ri, rnd in enumerate(rounds_in):
        cl = rnd.get("cliques") if isinstance(rnd, dict) else None
        if not isinstance(cl, list) or not cl:
            raise ValueError(f"rounds[{ri}].cliques: required, a non-empty list")
        seen: Dict[int, int] = {}
        out: List[Dict[str, Any]] = []
        for ci, c in enumerate(cl):
            path = f"rounds[{ri}].cliques[{ci}]"
            mem = c.get("members")
            if not isinstance(mem, list) or not mem:
                raise ValueError(f"{path}.members: required, a non-empty list")
            ms = [rank_of(m, f"{path}.members[{k}]") for k, m in enumerate(mem)]
            if len(set(ms)) != len(ms):
                raise ValueError(f"{path}.members: a rank is listed twice")
            for r in ms:
                if r in seen:
                    raise ValueError(f"{path}: rank {r} is in two cliques of the same round "
                                     f"(also rounds[{ri}].cliques[{seen[r]}])")
                seen[r] = ci
            if len(ms) < 2:
                continue  # a clique of one island is a no-op
            pat = c.get("pattern", "auto")
            if pat not in _abi.SCHED_PATTERNS:
                raise ValueError(f"{path}: pattern {pat!r} cannot be converted here "
                                 "(multicast, unicast, rs_multicast, aggregator); use "
                                 "'gsync-sched export' and load its blob")
            q: Dict[str, Any] = {"members": sorted(ms), "pattern": pat, "flags": 0,
                                 "aggregator": 0, "_order": ms, "_weights": c.get("weights"),
                                 "_path": path}
            lacks = [r for r in ms if r in no_mc]
            if pat == "multicast" and unicast:
                raise ValueError(f"{path}: pattern multicast in a unicast group")
            if pat == "multicast" and lacks:
                raise ValueError(f"{path}: pattern multicast needs multicast, which island "
                                 f"{no_mc[lacks[0]]!r} does not have in this topology (use "
                                 "unicast, rs_multicast or aggregator)")
            if pat == "rs_multicast" and (unicast or lacks):
                q["flags"] = _abi.SCF_UNICAST
            if pat == "aggregator" and unicast:
                q["flags"] = _abi.SCF_UNICAST
            if pat == "aggregator":
                if "aggregator" not in c:
                    raise ValueError(f"{path}: aggregator omitted; give a member island or "
                                     "use 'gsync-sched export' (which chooses one)")
                agg = rank_of(c["aggregator"], f"{path}.aggregator")
                if agg not in ms:
                    raise ValueError(f"{path}.aggregator: {c['aggregator']!r} is not a member; "
                                     "aggregation at a network node needs a relay rank "
                                     "('gsync-sched export --relay')")
                q["aggregator"] = agg
                if agg in no_mc:     # it sends the results
                    q["flags"] = _abi.SCF_UNICAST
            out.append(q)
        if out:
            out_rounds.append(out)
    if not out_rounds:
        raise ValueError("rounds: no clique has two or more members")
    if len(out_rounds) > _abi.SCHED_MAX_ROUNDS:
        raise ValueError(f"rounds: {len(out_rounds)} rounds; the kernel runs at most "
                         f"{_abi.SCHED_MAX_ROUNDS}")
    if n is None:
        n = 1 + max(r for rnd in out_rounds for q in rnd for r in q["members"])
    # Coverage: nothing counted twice, everything covered at the end, and
    # given weights equal to the shares the kernel's sums imply.
    cover = [{r} for r in range(n)]
    for rnd in out_rounds:
        new = {}
        for q in rnd:
            union: set = set()
            for r in q["members"]:
                if union & cover[r]:
                    raise ValueError(f"{q['_path']}: rank {r}'s value covers ranks another "
                                     "member's value covers too (counted twice)")
                union |= cover[r]
            w = q["_weights"]
            if w is not None:
                if len(w) != len(q["_order"]):
                    raise ValueError(f"{q['_path']}.weights: one weight per member")
                total = len(union)
                for k, r in enumerate(q["_order"]):
                    share = len(cover[r]) / total
                    if abs(float(w[k]) - share) > 1e-6:
                        raise ValueError(
                            f"{q['_path']}.weights[{k}]: {w[k]} for rank {r}, but its value "
                            f"holds {len(cover[r])} of the {total} contributions (share "
                            f"{share:.6g}): the kernel sums, so its weights are these shares")
            for r in q["members"]:
                new[r] = union
        for r, u in new.items():
            cover[r] = u
    full = set(range(n))
    for r in range(n):
        if cover[r] != full:
            raise ValueError(f"after the last round rank {r} covers only "
                             f"{sorted(cover[r])}: not an all-reduce")
    rounds_blob = [[{k: v for k, v in q.items() if not k.startswith("_")} for q in rnd]
                   for rnd in out_rounds]
    return build_blob(n, rounds_blob, _block_bytes(float(doc.get("chunk_bytes", 1 << 20))),
                      start_seq=start_seq, clique_groups=clique_groups, group_base=group_base)


def _check_for_group(blob: bytes, group: Optional[str]) -> bytes:
    if group is not None:
        info = parse_blob(blob)
        check_clique_groups(info["flags"], info["group_base"],
                            sum(len(r) for r in info["rounds"]), group)
    return blob


def compile_schedule(schedule: Any, *, ranks: Optional[Iterable[str]] = None,
                     topology: Any = None, start_seq: Optional[int] = None,
                     unicast: bool = False, nranks: Optional[int] = None,
                     clique_groups: Optional[bool] = None, group_base: Any = None,
                     group: Optional[str] = None) -> bytes:
    """A blob from ``schedule``: blob bytes, a JSON dict or string, or a
    path to either. ``start_seq`` overrides the blob's. ``clique_groups``
    and ``group_base`` (JSON only: a blob carries its own) as in
    :func:`from_json`. ``group``: the multicast address of the group the
    blob is for (text), to check its clique addresses against it as the
    kernel will (:func:`check_clique_groups`)."""
    data: Any = schedule
    if isinstance(schedule, (str, os.PathLike)) and not (
            isinstance(schedule, str) and schedule.lstrip().startswith("{")):
        with open(schedule, "rb") as f:
            data = f.read()
    if isinstance(data, (bytes, bytearray, memoryview)):
        data = bytes(data)
        if is_blob(data):
            info = parse_blob(data)
            if nranks is not None and info["nranks"] != nranks:
                raise ValueError(f"schedule for {info['nranks']} ranks, the group has {nranks}")
            if clique_groups is not None or group_base is not None:
                raise ValueError("clique_groups and group_base apply to JSON schedules; a blob "
                                 "carries its own (gsync-sched export --no-clique-groups, "
                                 "--group-base)")
            if start_seq is not None:
                data = data[:8] + struct.pack("=Q", start_seq) + data[16:]
            return _check_for_group(data, group)
        try:
            data = json.loads(data)
        except ValueError:
            raise ValueError("schedule: neither a blob (magic GSCH) nor JSON") from None
    if isinstance(data, str):
        data = json.loads(data)
    if not isinstance(data, dict):
        raise TypeError("schedule: expected a blob, a JSON object, or a path")
    return _check_for_group(from_json(data, ranks=ranks, topology=topology,
                                      start_seq=start_seq or 0, unicast=unicast, nranks=nranks,
                                      clique_groups=bool(clique_groups),
                                      group_base=group_base), group)
