"""gsync-py-info [--json], or python -m gsync info [--json]: is the gsync
module loaded, which address family it registered, and the gsync sockets
(groups) and namespace counters of this network namespace.

Exit status: 0 the module is loaded; 3 it is not; 2 a usage error;
1 the module's /proc files could not be read or parsed."""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List

from . import __version__, _abi
from .errors import ModuleNotLoaded
from .group import family


def read_proc(path: str = _abi.PROC_SOCKETS) -> List[Dict[str, str]]:
    """/proc/net/gsync as a list of {column: value}; columns by name (the
    module may add or reorder them)."""
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines:
        return []
    cols = lines[0].split()
    rows = []
    for ln in lines[1:]:
        vals = ln.split()
        if len(vals) != len(cols):
            raise ValueError(f"{path}: a row has {len(vals)} fields, the header {len(cols)}")
        rows.append(dict(zip(cols, vals)))
    return rows


def read_stats(path: str = _abi.PROC_STATS) -> Dict[str, str]:
    out = {}
    with open(path) as f:
        for ln in f:
            k, _, v = ln.strip().partition(" ")
            if k:
                out[k] = v.strip()
    return out


def info(family_path: str = _abi.FAMILY_PATH, proc: str = _abi.PROC_SOCKETS,
         stats: str = _abi.PROC_STATS) -> Dict[str, Any]:
    d: Dict[str, Any] = {"version": __version__, "module_loaded": False, "family": None,
                         "netns": None, "sockets": [], "namespace_stats": {}}
    try:
        d["netns"] = os.readlink("/proc/self/ns/net")
    except OSError:
        pass
    try:
        d["family"] = family(family_path)
        d["module_loaded"] = True
    except ModuleNotLoaded:
        return d
    try:
        d["sockets"] = read_proc(proc)
    except FileNotFoundError:
        d["error"] = f"{proc} is missing although the family file exists"
    try:
        d["namespace_stats"] = read_stats(stats)
    except FileNotFoundError:
        pass
    return d


def _print_text(d: Dict[str, Any]) -> None:
    print(f"gsync python package {d['version']}")
    if not d["module_loaded"]:
        print("module: not loaded (no /sys/module/gsync/parameters/family); "
              "load it with 'modprobe gsync' (packages) or "
              "'modprobe -a udp_tunnel libchacha20poly1305; "
              "insmod gsync.ko'")
        return
    print(f"module: loaded, address family {d['family']}")
    print(f"network namespace: {d['netns']}")
    socks = d["sockets"]
    groups: Dict[str, List[Dict[str, str]]] = {}
    for s in socks:
        groups.setdefault(s.get("group", "?"), []).append(s)
    print(f"sockets: {len(socks)}; groups: "
          f"{len([g for g in groups if g not in ('0x0', '?')])}")
    for s in socks:
        print(f"  id {s.get('id')} state {s.get('state')} group {s.get('group')} "
              f"rank {s.get('rank')}/{s.get('nranks')} next_seq {s.get('next_seq')} "
              f"inflight {s.get('inflight')} completed {s.get('ops_completed')} "
              f"failed {s.get('ops_failed')} timeouts {s.get('timeouts')}{_key_text(s)}")
    if "error" in d:
        print("error: " + d["error"])


def _key_text(s: Dict[str, str]) -> str:
    """A socket's key, where the module has the columns (never the key
    itself: the kernel cannot show it): " key none", or the mode, the
    epoch it sends with, a rotation installed and the fingerprint."""
    if "key_mode" not in s:
        return ""
    mode = s["key_mode"]
    if mode in ("none", "-"):
        return " key none"
    text = f" key {mode} epoch {s.get('key_epoch')}"
    if s.get("key_next_epoch", "0") not in ("0", "-"):
        text += f" (next {s['key_next_epoch']})"
    return text + f" fingerprint {s.get('key_fingerprint')}"


def _parser(prog: str) -> argparse.ArgumentParser:
    return argparse.ArgumentParser(prog=prog, description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)


def _add_info_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (keys: version, module_loaded, family, "
                        "netns, sockets, namespace_stats) instead of text")


def _run_info(a: argparse.Namespace, prog: str) -> int:
    try:
        d = info()
    except (OSError, ValueError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 1
    if a.json:
        json.dump(d, sys.stdout, indent=1)
        print()
    else:
        _print_text(d)
    return 0 if d["module_loaded"] else 3


def main(argv=None) -> int:
    """python -m gsync COMMAND: today the only command is info."""
    ap = _parser("python -m gsync")
    sub = ap.add_subparsers(dest="cmd")
    p = sub.add_parser("info", help="module, family, sockets of this network namespace")
    _add_info_args(p)
    a = ap.parse_args(argv)
    if a.cmd != "info":
        ap.print_help()
        return 2
    return _run_info(a, "python -m gsync info")


def info_main(argv=None) -> int:
    """gsync-py-info: the info command as its own program (no subcommand)."""
    ap = _parser("gsync-py-info")
    _add_info_args(ap)
    return _run_info(ap.parse_args(argv), "gsync-py-info")


if __name__ == "__main__":
    sys.exit(main())
