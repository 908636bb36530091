#!/usr/bin/env bash
# What gsync(7), gsyncctl(8) and docs/transport.md ("Writing a client
# without libgsync") state about behaviour that no header says:
#  - GSYNC_JOIN with ifindex 0 and no route covering the group address
#    fails with ENODEV; with the interface's index, or with a route, it
#    succeeds;
#  - the group's port may equal the members' port;
#  - a zero-length sendmsg is EINVAL;
#  - a rank may submit before its peer has joined: both complete, alike;
#  - gsyncctl stats --format prometheus and watch on the real /proc files.
. "$(dirname "$0")/lib.sh"
G=userspace/gsyncctl/gsyncctl
[ -x "$G" ] || make -s -C userspace/gsyncctl gsyncctl >/dev/null
gs_islands_up 2
tmp=$(mktemp -d)
a0=$(gs_addr4 i0) a1=$(gs_addr4 i1)

# -- ifindex 0 needs a multicast route --------------------------------------
# A namespace of its own (gs-*: gs_islands_down removes it if we die) with
# one address and no route but its subnet's.
ns=gs-noroute
ip netns add $ns
ip -n $ns link set lo up
ip -n $ns link add nr0 type veth peer name nr1
ip -n $ns addr add 198.19.0.1/24 dev nr0
ip -n $ns link set nr0 up
ip -n $ns link set nr1 up
join_err() { # IFINDEX: errno of GSYNC_JOIN (0 on success)
	ip netns exec $ns python3 - "$1" <<'PY'
import sys
sys.path.insert(0, "tests/netns")
import gsync_py as g
s = g.open_socket()
try:
    g.join(s, 1, 0, [("198.19.0.1", 7000), ("198.19.0.2", 7000)], ("239.1.2.3", 7100),
           ifindex=int(sys.argv[1]))
    print(0)
except OSError as e:
    print(e.errno)
PY
}
ifi=$(ip -n $ns -o link show nr0 | cut -d: -f1)
gs_ok "no route covers 224.0.0.0/4 in $ns" test -z "$(ip -n $ns route show match 239.1.2.3)"
e=$(join_err 0)
gs_ok "gsync(7): ifindex 0 without a route to the group is ENODEV (19; got $e)" test "$e" = 19
e=$(join_err "$ifi")
gs_ok "gsync(7): the interface's index ($ifi) works without a route (got $e)" test "$e" = 0
ip -n $ns route add 224.0.0.0/4 dev nr0
e=$(join_err 0)
gs_ok "gsync(7): ifindex 0 with a multicast route works (got $e)" test "$e" = 0
ip netns del $ns

# -- group port = member port -----------------------------------------------
gs_group "$tmp/port" "gsync(7): the group port may equal the members' port (7300)" \
	--members "$(gs_members 4 7300)" --mcast 239.77.5.5:7300 --dtypes fp32 --ops sum --sizes 1000

# -- zero-length operation ----------------------------------------------------
zero_len() {
	gs_exec i0 python3 - "$a0" "$a1" <<'PY'
import errno, sys
sys.path.insert(0, "tests/netns")
import gsync_py as g
s = g.open_socket()
g.join(s, 2, 0, [(sys.argv[1], 7400), (sys.argv[2], 7400)], ("239.77.5.6", 7401))
try:
    g.submit(s, 1, b"", g.FP32, g.SUM)
    print("sendmsg of 0 bytes succeeded")
    sys.exit(1)
except OSError as e:
    if e.errno != errno.EINVAL:
        print(f"sendmsg of 0 bytes: errno {e.errno}, want EINVAL ({errno.EINVAL})")
        sys.exit(1)
# refused, not submitted: seq 1 is still the next one, 4 bytes go through
g.submit(s, 1, bytes(4), g.FP32, g.SUM)
PY
}
gs_ok "gsync(7): a zero-length sendmsg is EINVAL, and seq 1 stays next" zero_len

# -- rank 0 submits before rank 1 joins; gsyncctl on the real files ----------
m=$(gs_members 4 7500)
gs_exec i0 python3 tests/netns/gsync_py.py run --rank 0 --members "$m" --mcast 239.77.5.7:7501 \
	--group 77 --dtypes fp32 --ops sum --sizes 5000 --timeout-ms 60000 > "$tmp/early0" 2>&1 &
r0=$!
inflight1() { [ "$(gs_proc_sum i0 inflight)" = 1 ]; }
gs_ok "rank 0 submitted before rank 1 joined (inflight 1 in /proc/net/gsync)" gs_until 60 inflight1
gs_ok "gsyncctl(8): show --json on the real file shows it" \
	bash -c "ip netns exec $(gs_ns i0) $G show --json | grep -q '\"inflight\":1'"
gs_exec i0 $G stats --format prometheus > "$tmp/prom" 2>&1
gs_ok "gsyncctl(8): stats --format prometheus parses (real /proc/net/gsync)" python3 - "$tmp/prom" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
inflight = [s for s in fams["gsync_inflight_operations"].samples if s.labels["group"] == "0x4d"]
assert len(inflight) == 1 and inflight[0].value == 1 and inflight[0].labels["rank"] == "0", inflight
assert fams["gsync_operations_submitted"].type == "counter"   # the parser strips _total
# Every line of the real /proc/net/gsync_stats has a family of its own.
assert fams["gsync_namespace_operations_submitted"].type == "counter"
assert fams["gsync_memory_bytes"].type == "gauge" and fams["gsync_groups_live"].type == "gauge"
assert "gsync_namespace_stat" not in fams, fams.get("gsync_namespace_stat")
PY
grep -E '^gsync_(inflight_operations|namespace_stat)' "$tmp/prom" | head -5 | gs_diag
gs_exec i1 python3 tests/netns/gsync_py.py run --rank 1 --members "$m" --mcast 239.77.5.7:7501 \
	--group 77 --dtypes fp32 --ops sum --sizes 5000 --timeout-ms 60000 > "$tmp/early1" 2>&1
rc1=$?
wait $r0
rc0=$?
gs_ok "gsync(7): a rank may submit before its peer joined: both complete (exit $rc0 $rc1)" \
	test "$rc0$rc1" = 00
gs_ok "... with the same bits" \
	test "$(grep -h '^digest' "$tmp/early0" "$tmp/early1" | sort -u | wc -l)" = 1
cat "$tmp/early0" "$tmp/early1" | grep -v '^digest' | head -5 | gs_diag

# watch: one interval on the real file; both processes exited, so no socket
# is left (a lingering group has none): the header and the empty table.
gs_exec i0 $G watch --count 1 --interval 0.2 > "$tmp/watch" 2>&1
rc=$?
gs_ok "gsyncctl(8): watch --count 1 on the real files (exit $rc)" test "$rc" = 0
gs_ok "... prints the interval it measured (>= 0.2 s)" \
	grep -qxE 'gsync sockets: rates over (0\.[2-9]|[1-9][0-9]*\.[0-9]) s' "$tmp/watch"
gs_ok "... and no socket" grep -qx '(no gsync sockets in a group)' "$tmp/watch"
gs_diag < "$tmp/watch"
rm -rf "$tmp"
exit $GS_FAILED
