#!/usr/bin/env bash
# Check in the test VM what gsync(7) and gsyncctl(8) state about behaviour
# that no header says (TAP):
#
#   flock /tmp/gsync-vm.lock tests/vm/run --timeout 600 --islands 2 -- \
#       man/tests/vm-facts.sh
#
#  - GSYNC_JOIN with ifindex 0 and no route covering the group address
#    fails with ENODEV; with a route, or with the interface's index, it
#    succeeds;
#  - the group's port may equal the members' port;
#  - a zero-length sendmsg is EINVAL;
#  - a rank may submit before its peer has joined: both complete;
#  - gsyncctl stats --format prometheus and watch on the real /proc files.
. "$(dirname "$0")/../../tests/netns/lib.sh"
tmp=$(mktemp -d)
G=userspace/gsyncctl/gsyncctl
py() { python3 - "$@"; }

# -- ifindex 0 needs a multicast route ------------------------------------
ip netns add gs-noroute
ip -n gs-noroute link set lo up
ip -n gs-noroute link add nr0 type veth peer name nr1
ip -n gs-noroute addr add 198.19.0.1/24 dev nr0
ip -n gs-noroute link set nr0 up
ip -n gs-noroute link set nr1 up
join_err() { # IFINDEX: errno of GSYNC_JOIN (0 on success)
	ip netns exec gs-noroute python3 - "$1" <<'PY'
import sys; sys.path.insert(0, "tests/netns")
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
ifi=$(ip -n gs-noroute -o link show nr0 | cut -d: -f1)
gs_ok "gsync(7): ifindex 0 without a route to the group is ENODEV ($(join_err 0))" test "$(join_err 0)" = 19
gs_ok "gsync(7): the interface's index works without a route" test "$(join_err "$ifi")" = 0
ip -n gs-noroute route add 224.0.0.0/4 dev nr0
gs_ok "gsync(7): ifindex 0 with a multicast route works" test "$(join_err 0)" = 0
ip netns del gs-noroute

# -- group port = member port ---------------------------------------------
gs_group "$tmp/port" "gsync(7): the group port may equal the members' port" \
	--members "$(gs_members 4 7300)" --mcast 239.77.5.5:7300 --dtypes fp32 --ops sum --sizes 1000

# -- zero-length operation ------------------------------------------------
gs_ok "gsync(7): a zero-length sendmsg is EINVAL" gs_exec i0 python3 - <<'PY'
import errno, sys; sys.path.insert(0, "tests/netns")
import gsync_py as g
s = g.open_socket()
g.join(s, 2, 0, [("198.18.0.1", 7400), ("198.18.0.2", 7400)], ("239.77.5.6", 7401))
try:
    g.submit(s, 1, b"", g.FP32, g.SUM)
    sys.exit(1)
except OSError as e:
    sys.exit(0 if e.errno == errno.EINVAL else 2)
PY

# -- rank 0 submits before rank 1 joins; gsyncctl on the real files --------
m=$(gs_members 4 7500)
gs_exec i0 python3 tests/netns/gsync_py.py run --rank 0 --members "$m" --mcast 239.77.5.7:7501 \
	--group 77 --dtypes fp32 --ops sum --sizes 5000 --timeout-ms 60000 > "$tmp/early0" 2>&1 &
r0=$!
# wait until rank 0 has submitted operation 1 (inflight 1 in /proc/net/gsync)
for _ in $(seq 600); do
	gs_exec i0 $G show --json 2>/dev/null | grep -q '"inflight":1' && break
	sleep 0.1
done
gs_ok "rank 0 submitted before rank 1 joined" bash -c "ip netns exec gs-i0 $G show --json | grep -q '\"inflight\":1'"
gs_exec i0 $G stats --format prometheus > "$tmp/prom" 2>&1
gs_ok "gsyncctl(8): stats --format prometheus parses (real /proc/net/gsync)" py "$tmp/prom" <<'PY'
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
gs_exec i1 python3 tests/netns/gsync_py.py run --rank 1 --members "$m" --mcast 239.77.5.7:7501 \
	--group 77 --dtypes fp32 --ops sum --sizes 5000 --timeout-ms 60000 > "$tmp/early1" 2>&1
rc1=$?
wait $r0
rc0=$?
gs_ok "gsync(7): a rank may submit before its peer joined: both complete ($rc0 $rc1)" test "$rc0$rc1" = 00
gs_ok "... with the same bits" test "$(grep -h '^digest' "$tmp/early0" "$tmp/early1" | sort -u | wc -l)" = 1
cat "$tmp/early0" "$tmp/early1" | grep -v '^digest' | head -5 | gs_diag

# watch: one interval on the real file (no sockets left: the empty table)
gs_ok "gsyncctl(8): watch --count 1 on the real files" bash -c \
	"ip netns exec gs-i0 $G watch --count 1 --interval 0.2 | grep -q 'rates over'"
rm -rf "$tmp"
exit $GS_FAILED
