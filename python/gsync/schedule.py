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
"""
from __future__ import annotations

import json
import os
import struct
from typing import Any, Dict, Iterable, List, Optional, Sequence

from . import _abi


def is_blob(data: bytes) -> bool:
    return len(data) >= 4 and struct.unpack_from("=I", data)[0] == _abi.SCHED_MAGIC


def build_blob(nranks: int, rounds: Sequence[Sequence[Dict[str, Any]]],
               block_bytes: int = 1 << 20, idle: Iterable[int] = (),
               start_seq: int = 0) -> bytes:
    """The blob of ``rounds``: lists of cliques, each a dict with
    ``members`` (ranks), ``pattern`` (a name), and optionally
    ``aggregator`` (a rank), ``flags`` and ``rate_kbit`` (the members'
    sending rate in 1000 bit/s)."""
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
    hdr = _abi.SCHED_HDR.pack(_abi.SCHED_MAGIC, _abi.SCHED_VERSION, _abi.SCHED_HDR.size,
                              start_seq, block_bytes, nranks, len(rounds), len(cliques),
                              len(members), 0, bytes(bits), 0, 0)
    return hdr + b"".join(cliques) + struct.pack("=%dH" % len(members), *members)


def parse_blob(blob: bytes) -> Dict[str, Any]:
    """The header fields and cliques of a blob (structure only; the kernel
    checks the semantics)."""
    if len(blob) < _abi.SCHED_HDR.size or not is_blob(blob):
        raise ValueError("not a gsync schedule blob (bad magic or too short)")
    (magic, ver, hlen, start_seq, block, nranks, nrounds, ncl, nm, flags, idle_bits,
     _r0, _r1) = _abi.SCHED_HDR.unpack_from(blob)
    if ver != _abi.SCHED_VERSION or hlen != _abi.SCHED_HDR.size:
        raise ValueError(f"schedule blob version {ver}/header {hlen}: this library "
                         f"knows version {_abi.SCHED_VERSION}")
    want = _abi.SCHED_HDR.size + ncl * _abi.SCHED_CLIQUE.size + 2 * nm
    if len(blob) != want:
        raise ValueError(f"schedule blob of {len(blob)} bytes, its header says {want}")
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
            "start_seq": start_seq, "flags": flags,
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
              nranks: Optional[int] = None) -> bytes:
    """Convert a gsync-schedule/1 document to a blob (see the module doc).

    ``unicast=True`` (a group joined without multicast) refuses
    ``multicast`` cliques and sends the results of ``rs_multicast`` and
    ``aggregator`` cliques by unicast (GSYNC_SCF_UNICAST), as ``gsync-sched
    export --no-multicast`` does."""
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
                      start_seq=start_seq)


def compile_schedule(schedule: Any, *, ranks: Optional[Iterable[str]] = None,
                     topology: Any = None, start_seq: Optional[int] = None,
                     unicast: bool = False, nranks: Optional[int] = None) -> bytes:
    """A blob from ``schedule``: blob bytes, a JSON dict or string, or a
    path to either. ``start_seq`` overrides the blob's."""
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
            if start_seq is not None:
                data = data[:8] + struct.pack("=Q", start_seq) + data[16:]
            return data
        try:
            data = json.loads(data)
        except ValueError:
            raise ValueError("schedule: neither a blob (magic GSCH) nor JSON") from None
    if isinstance(data, str):
        data = json.loads(data)
    if not isinstance(data, dict):
        raise TypeError("schedule: expected a blob, a JSON object, or a path")
    return from_json(data, ranks=ranks, topology=topology, start_seq=start_seq or 0,
                     unicast=unicast, nranks=nranks)
