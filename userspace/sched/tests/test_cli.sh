#!/bin/sh
# test_cli.sh - CLI smoke tests of gsync-sched (TAP): exit codes, --help of
# every subcommand, errors, --json parses back, files written.
# usage: test_cli.sh BINARY TOPOLOGY_DIR
BIN=$1
TOP=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
n=0
fail=0
t() { # t DESCRIPTION EXPECTED_RC CMD...
	desc=$1; want=$2; shift 2
	n=$((n + 1))
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq "$want" ]; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc (exit $rc, want $want)"
		sed 's/^/# /' "$TMP/err" | head -5
		fail=1
	fi
}
check() { # check DESCRIPTION CMD... (passes if CMD succeeds)
	desc=$1; shift
	n=$((n + 1))
	if "$@" >/dev/null 2>&1; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; fail=1; fi
}
jsonok() { # stdin must be JSON
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json,sys; json.load(sys.stdin)'
	else
		grep -q '^{' # no python: at least an object
	fi
}
P=$TOP/nine-city-private.json
Q=$TOP/nine-city-public.json

t "--help exits 0" 0 "$BIN" --help
check "--help has EXIT STATUS section" grep -q "EXIT STATUS" "$TMP/out"
for c in optimize simulate compare sweep paths validate generate bench; do
	t "$c --help exits 0" 0 "$BIN" $c --help
	check "$c --help shows SYNOPSIS" grep -q "SYNOPSIS" "$TMP/out"
done
t "help optimize exits 0" 0 "$BIN" help optimize
t "no command is a usage error" 2 "$BIN"
t "unknown command is a usage error" 2 "$BIN" frobnicate
t "unknown option is a usage error" 2 "$BIN" optimize "$P" --frob
t "option of another command is a usage error" 2 "$BIN" paths "$P" --seed 3
t "bad --size is a usage error" 2 "$BIN" optimize "$P" --size lots
t "bad --multicast is a usage error" 2 "$BIN" optimize "$P" --multicast some
t "missing topology file exits 3" 3 "$BIN" optimize "$TMP/nope.json"
printf '{"name":"x",\n "islands": [\n' >"$TMP/trunc.json"
t "truncated topology exits 3" 3 "$BIN" validate "$TMP/trunc.json"
check "truncated topology error names line and column" grep -q "line [0-9]*, column [0-9]*" "$TMP/err"
printf '{"name":"x","islands":[{"id":"A","egress_gbps":1,"ingress_gbps":1},{"id":"B","egress_gbps":1,"ingress_gbps":1}],"links":[{"a":"A","b":"B","latency_ms":-1,"bandwidth_gbps":1}]}' >"$TMP/neg.json"
t "negative latency exits 3" 3 "$BIN" validate "$TMP/neg.json"
check "negative latency error names the JSON path" grep -q "links\[0\].latency_ms: must be > 0" "$TMP/err"

t "validate shipped topologies" 0 sh -c "for f in $TOP/*.json; do $BIN validate \$f || exit 1; done"
t "paths exits 0" 0 "$BIN" paths "$P"
check "paths: header + 9 rows, symmetric, zero diagonal" sh -c "awk 'NR==1{n=NF; for(i=1;i<=NF;i++) id[i]=\$i; next}
	{ if (\$1 != id[NR-1] || NF != n+1) bad=1; for(j=2;j<=NF;j++) m[NR-1,j-1]=\$j }
	END { if (NR != n+1) bad=1; for(i=1;i<=n;i++){ if (m[i,i]+0 != 0) bad=1; for(j=1;j<=n;j++) if (m[i,j] != m[j,i]) bad=1 } exit bad }' $TMP/out"
t "paths --json" 0 "$BIN" paths "$Q" --json
check "paths --json parses" jsonok <"$TMP/out"

t "optimize -o --svg" 0 "$BIN" optimize "$P" -o "$TMP/s.json" --svg "$TMP/s.svg"
check "optimize wrote a schedule that validates" "$BIN" validate "$P" "$TMP/s.json"
check "optimize wrote an SVG" grep -q "<svg" "$TMP/s.svg"
t "optimize --json" 0 "$BIN" optimize "$Q" --json --seed 7
check "optimize --json parses" jsonok <"$TMP/out"
t "optimize --objective gossip" 0 "$BIN" optimize "$P" --objective gossip --target-rho 0.1
t "optimize --exhaustive" 0 "$BIN" optimize "$TOP/six-two-regions.json" --exhaustive
t "optimize with only unicast allowed" 0 "$BIN" optimize "$P" --patterns unicast,ring
t "simulate the optimizer's schedule" 0 "$BIN" simulate "$P" "$TMP/s.json"
t "simulate --json" 0 "$BIN" simulate "$P" "$TMP/s.json" --json
check "simulate --json parses" jsonok <"$TMP/out"
cat >"$TMP/mc.json" <<'J'
{"rounds":[{"cliques":[{"members":["AMS","FRA","LON"],"pattern":"multicast"}]}]}
J
t "multicast schedule on a network without multicast exits 4" 4 "$BIN" simulate "$Q" "$TMP/mc.json"
check "that error says which clique and why" grep -q "rounds\[0\].cliques\[0\]: pattern \"multicast\" is not feasible" "$TMP/err"
printf '{"rounds":[{"cliques":[{"members":["AMS","NOPE"]}]}]}' >"$TMP/bad.json"
t "schedule with unknown island exits 3" 3 "$BIN" simulate "$P" "$TMP/bad.json"
t "compare --json" 0 "$BIN" compare "$P" --json
check "compare --json parses" jsonok <"$TMP/out"
t "compare public variant" 0 "$BIN" compare "$Q"
check "compare lists the colocated datacenter" grep -q "colocated" "$TMP/out"
t "sweep reach --json --svg" 0 "$BIN" sweep "$P" --vary reach --values none,2,full --json --svg "$TMP/sw.svg"
check "sweep --json parses" jsonok <"$TMP/out"
check "sweep wrote a chart" grep -q "<polyline" "$TMP/sw.svg"
t "sweep without --vary is a usage error" 2 "$BIN" sweep "$P"
t "generate" 0 "$BIN" generate --islands 12 --seed 4 -o "$TMP/g.json"
check "generated topology validates" "$BIN" validate "$TMP/g.json"
echo "1..$n"
exit $fail
