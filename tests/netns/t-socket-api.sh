#!/usr/bin/env bash
# The socket API as a user sees it: every GSYNC_JOIN and sendmsg error,
# MSG_DONTWAIT, SO_RCVTIMEO/SO_SNDTIMEO, poll readiness, the window, truncated
# receives and in-order results (tests/netns/socket_api.py).
. "$(dirname "$0")/lib.sh"
gs_islands_up 2
tmp=$(mktemp -d)
a0=$(gs_addr4 i0) a1=$(gs_addr4 i1)
gs_exec i0 python3 tests/netns/socket_api.py "$a0" "$a1" "$tmp/go" > "$tmp/r0" 2>&1 &
p0=$!
for _ in $(seq 600); do [ -e "$tmp/go" ] && break; sleep 0.05; done
gs_exec i1 python3 - "$a0" "$a1" <<'PY' > "$tmp/r1" 2>&1
import sys
sys.path.insert(0, "tests/netns")
import gsync_py as g
s = g.open_socket()
g.join(s, 5, 1, [(sys.argv[1], 7300), (sys.argv[2], 7300)], ("239.77.3.1", 7301),
       window=2, max_op_bytes=4096, op_timeout_ms=30000)
for seq in (1, 2):
    g.submit(s, seq, bytes(16), g.FP32, g.SUM)
for seq in (1, 2):
    assert g.collect(s, 16)[:2] == (seq, 0)
PY
gs_ok "rank 1 completed both operations" test $? = 0
wait $p0
rc=$?
cat "$tmp/r0"
[ "$rc" = 0 ] || { echo "not ok - socket_api.py exited $rc"; tail -n 5 "$tmp/r1" | gs_diag; GS_FAILED=1; }
rm -rf "$tmp"
exit $GS_FAILED
