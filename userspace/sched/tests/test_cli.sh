#!/bin/sh
# test_cli.sh - CLI smoke tests of gsync-sched (TAP): exit codes, --help of
# every subcommand, errors, --json parses back, files written, figures
# (checked by check_figure.py, next to this file).
# usage: test_cli.sh BINARY TOPOLOGY_DIR
BIN=$1
TOP=$2
HERE=$(dirname "$0")
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
fig() { python3 "$HERE/check_figure.py" "$@"; }
P=$TOP/nine-city-private.json
Q=$TOP/nine-city-public.json

t "--help exits 0" 0 "$BIN" --help
check "--help has EXIT STATUS section" grep -q "EXIT STATUS" "$TMP/out"
for c in optimize simulate compare sweep paths validate generate bench export; do
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

# Usage messages: exit 2, the command named, what was wrong, where help is.
msg() { # msg DESCRIPTION EXPECTED-STDERR-LINE CMD... (exit 2 and that line)
	desc=$1; want=$2; shift 2
	n=$((n + 1))
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq 2 ] && grep -qxF -- "$want" "$TMP/err" && [ ! -s "$TMP/out" ]; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc (exit $rc)"; echo "# want: $want"; sed 's/^/# got:  /' "$TMP/err" | head -3
		fail=1
	fi
}
msg "usage: no command" "gsync-sched: missing command" "$BIN"
msg "usage: the hint names --help" "Try 'gsync-sched --help'." "$BIN" frobnicate
msg "usage: unknown command" "gsync-sched: unknown command 'frobnicate'" "$BIN" frobnicate
msg "usage: help of an unknown command" "gsync-sched: no such command 'frob'" "$BIN" help frob
# every command of --help's COMMANDS section is known, has its page and
# names itself in a usage error with its own --help hint
cmds=$("$BIN" --help | sed -n '/^COMMANDS/,/^[A-Z]/p' | sed -n 's/^    \([a-z][a-z]*\)  .*/\1/p')
[ "$(echo $cmds | wc -w)" = 9 ] && echo "ok $((n = n + 1)) - --help lists 9 commands: $(echo $cmds)" ||
	{ echo "not ok $((n = n + 1)) - --help lists 9 commands (got: $(echo $cmds))"; fail=1; }
for c in $cmds; do
	t "$c --help exits 0" 0 "$BIN" "$c" --help
	check "$c --help is the $c page" grep -q "^    gsync-sched $c" "$TMP/out"
	msg "$c: an unknown option names the command and its help" \
		"gsync-sched $c: unknown option '--no-such-option'" "$BIN" "$c" --no-such-option
	check "$c: ... and says where help is" grep -qxF "Try 'gsync-sched $c --help'." "$TMP/err"
done
msg "an option of another command is named" \
	"gsync-sched paths: option '--seed' does not apply to this command" "$BIN" paths "$P" --seed 3
msg "a missing option value is named" "gsync-sched optimize: option '--seed' needs a value" "$BIN" optimize "$P" --seed
# integers are parsed as integers: no fractions, exponents, signs, hex,
# blanks or overflow, and the whole 64-bit range of --seed
for v in 1.5 1e3 -1 +1 0x10 " 7" "" 18446744073709551616 99999999999999999999999; do
	msg "--seed '$v' is refused" \
		"gsync-sched generate: bad --seed '$v' (an integer 0..18446744073709551615)" \
		"$BIN" generate --islands 3 --seed "$v"
done
t "--seed 18446744073709551615 (2^64-1) is accepted" 0 "$BIN" generate --islands 3 --seed 18446744073709551615 -o "$TMP/g1.json"
t "--seed 0 is accepted" 0 "$BIN" generate --islands 3 --seed 0 -o "$TMP/g0.json"
check "different 64-bit seeds give different topologies" bash -c "! cmp -s '$TMP/g1.json' '$TMP/g0.json'"
msg "--islands 0 is refused" "gsync-sched generate: bad --islands '0' (an integer 1..4096)" "$BIN" generate --islands 0
msg "--islands 4097 is refused" "gsync-sched generate: bad --islands '4097' (an integer 1..4096)" "$BIN" generate --islands 4097
msg "--islands 2.0 is refused" "gsync-sched generate: bad --islands '2.0' (an integer 1..4096)" "$BIN" generate --islands 2.0
msg "--max-rounds 0 is refused" "gsync-sched optimize: bad --max-rounds '0' (an integer 1..10000)" "$BIN" optimize "$P" --max-rounds 0
msg "--effort 1001 is refused" "gsync-sched optimize: bad --effort '1001' (an integer 1..1000)" "$BIN" optimize "$P" --effort 1001
msg "--effort 1e2 is refused" "gsync-sched compare: bad --effort '1e2' (an integer 1..1000)" "$BIN" compare "$P" --effort 1e2
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
check "optimize --svg: the optimum on nine-city-private (XML, a panel per round, every island, legend)" \
	fig schedule "$TMP/s.svg" "$P" "$TMP/s.json"
t "simulate --svg draws the optimizer's schedule" 0 "$BIN" simulate "$P" "$TMP/s.json" --svg "$TMP/sim.svg"
check "... and that figure checks too" fig schedule "$TMP/sim.svg" "$P" "$TMP/s.json"
t "optimize --multicast none -o (a schedule of several rounds)" 0 \
	"$BIN" optimize "$P" --multicast none -o "$TMP/s2.json"
check "... has 2 rounds with aggregators" python3 -c "import json; d=json.load(open('$TMP/s2.json')); assert len(d['rounds']) == 2 and any(c['pattern'] == 'aggregator' for r in d['rounds'] for c in r['cliques'])"
t "simulate --svg of it" 0 "$BIN" simulate "$P" "$TMP/s2.json" --multicast none --svg "$TMP/s2.svg"
check "its figure: 2 panels, every island in its clique's colour, aggregators marked, legend" \
	fig schedule "$TMP/s2.svg" "$P" "$TMP/s2.json"
"$BIN" simulate "$P" "$TMP/s2.json" --multicast none --svg "$TMP/s2b.svg" >/dev/null 2>&1
check "the same figure twice is the same bytes" cmp "$TMP/s2.svg" "$TMP/s2b.svg"
sed 's/\(<gs:node id="AMS" kind="island" clique="[0-9]*" x="\)/\19/' "$TMP/s2.svg" >"$TMP/bad.svg"
check "the figure check fails when an island's marker is missing" sh -c "! python3 '$HERE/check_figure.py' schedule '$TMP/bad.svg' '$P' '$TMP/s2.json'"
t "compare --svg on a topology without coordinates" 0 "$BIN" compare "$TOP/six-two-regions.json" --json --svg "$TMP/c.svg"
python3 -c "import json,sys; json.dump(json.load(open('$TMP/out'))['optimum'], sys.stdout)" >"$TMP/c.json" 2>/dev/null
check "its figure: islands on a circle, the optimum's panels" fig schedule "$TMP/c.svg" "$TOP/six-two-regions.json" "$TMP/c.json"
t "--svg to a full disk exits 1" 1 "$BIN" optimize "$P" --svg /dev/full
check "... saying so" grep -q "cannot write the figure /dev/full" "$TMP/err"
t "optimize --json" 0 "$BIN" optimize "$Q" --json --seed 7
check "optimize --json parses" jsonok <"$TMP/out"
# seeds are uint64: printed unsigned and exactly, also above 2^53 and 2^63
for v in 0 9007199254740993 9223372036854775808 18446744073709551615; do
	t "optimize --json --seed $v" 0 "$BIN" optimize "$Q" --json --seed "$v"
	check "... reports search.seed $v exactly" python3 -c \
		"import json; d=json.load(open('$TMP/out')); assert d['search']['seed'] == $v, d['search']"
done
t "generate --seed 9007199254740992 (2^53)" 0 "$BIN" generate --islands 6 --seed 9007199254740992 -o "$TMP/g53.json"
t "generate --seed 9007199254740993 (2^53+1)" 0 "$BIN" generate --islands 6 --seed 9007199254740993 -o "$TMP/g53b.json"
check "seeds 2^53 and 2^53+1 give different topologies" bash -c "! cmp -s '$TMP/g53.json' '$TMP/g53b.json'"
t "optimize --objective gossip" 0 "$BIN" optimize "$P" --objective gossip --target-rho 0.1
t "optimize --exhaustive" 0 "$BIN" optimize "$TOP/six-two-regions.json" --exhaustive
t "optimize with only unicast allowed" 0 "$BIN" optimize "$P" --patterns unicast,ring
t "simulate the optimizer's schedule" 0 "$BIN" simulate "$P" "$TMP/s.json"
t "simulate --json" 0 "$BIN" simulate "$P" "$TMP/s.json" --json
check "simulate --json parses" jsonok <"$TMP/out"
t "simulate --json at 100 Mbit/s access, 64 MiB" 0 "$BIN" simulate "$P" "$TMP/s.json" --json --size 64MiB --access-gbps 0.1
check "simulate --json has predicted_time_s (>= 64 MiB / 12.5 MB/s)" python3 -c "import json; d=json.load(open('$TMP/out')); assert d['predicted_time_s'] == d['result']['time_s'] and d['predicted_time_s'] > 5.36"
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
cp "$TMP/out" "$TMP/sw.json"
check "sweep --svg: a chart of 3 series with legend, round ticks with a unit, the --json values" \
	fig chart "$TMP/sw.svg" "$TMP/sw.json"
sed -E 's/(<gs:tick value="[0-9.]+" label=")[1-9][0-9.]*"/\1649"/' "$TMP/sw.svg" >"$TMP/bad.svg"
check "the chart check fails on a tick label that is not round" sh -c "! python3 '$HERE/check_figure.py' chart '$TMP/bad.svg' '$TMP/sw.json'"
t "sweep without --vary is a usage error" 2 "$BIN" sweep "$P"
t "sweep --kernel" 0 "$BIN" sweep "$P" --vary reach --values none,full --kernel
check "sweep --kernel: only patterns the kernel runs" sh -c "! grep -E 'ring|tree|inline|[0-9]+\+' '$TMP/out' | grep -v '^reach'"
t "generate" 0 "$BIN" generate --islands 12 --seed 4 -o "$TMP/g.json"
check "generated topology validates" "$BIN" validate "$TMP/g.json"

# ---- export and --apply (no kernel module needed: the failure path) ----
S=$TOP/six-two-regions.json
t "optimize --kernel -o" 0 "$BIN" optimize "$P" --kernel --multicast none -o "$TMP/k.json"
t "export to a file" 0 "$BIN" export "$TMP/k.json" "$P" -o "$TMP/k.gsched"
check "the blob starts with the magic GSCH" sh -c "[ \"\$(head -c 4 $TMP/k.gsched)\" = GSCH ]"
t "export -o - writes the same blob to stdout" 0 sh -c "'$BIN' export '$TMP/k.json' '$P' -o - > '$TMP/k2.gsched'"
check "the same bytes" cmp "$TMP/k.gsched" "$TMP/k2.gsched"
t "export --start-seq 1000 --ranks (reversed)" 0 sh -c "'$BIN' export '$TMP/k.json' '$P' --start-seq 1000 --ranks TYO,SIN,SEO,NYC,LON,LAX,FRA,BAR,AMS > '$TMP/k3.gsched'"
check "start_seq 1000 is at offset 8 (little-endian u64)" sh -c "[ \"\$(od -An -tu8 -j8 -N8 $TMP/k3.gsched | tr -d ' ')\" = 1000 ]"
# ---- clique groups (GSYNC_SCHF_CLIQUE_GROUPS): on by default ----
cat >"$TMP/grid.json" <<'J'
{"rounds":[{"cliques":[{"members":["AMS","BAR","FRA"],"pattern":"unicast"},{"members":["LAX","LON","NYC"],"pattern":"unicast"},{"members":["SEO","SIN","TYO"],"pattern":"unicast"}]},
 {"cliques":[{"members":["AMS","LAX","SEO"],"pattern":"multicast"},{"members":["BAR","LON","SIN"],"pattern":"rs_multicast"},{"members":["FRA","NYC","TYO"],"pattern":"unicast"}]}]}
J
hexat() { od -An -tx1 -j"$2" -N"$3" "$1" | tr -d ' \n'; }	# FILE OFFSET COUNT
Z12=000000000000000000000000	# 12 zero bytes
t "export of a 3x3 grid (6 cliques)" 0 "$BIN" export "$TMP/grid.json" "$P" -o "$TMP/g.gsched"
check "flags (offset 28) is GSYNC_SCHF_CLIQUE_GROUPS by default" test "$(hexat "$TMP/g.gsched" 28 4)" = 01000000
check "group_base (offset 64) is 0: from the group's address" test "$(hexat "$TMP/g.gsched" 64 16)" = "00000000$Z12"
t "export --no-clique-groups" 0 "$BIN" export "$TMP/grid.json" "$P" --no-clique-groups -o "$TMP/g0.gsched"
check "... flags 0" test "$(hexat "$TMP/g0.gsched" 28 4)" = 00000000
check "... and no other byte differs" sh -c "cmp -l '$TMP/g.gsched' '$TMP/g0.gsched' | awk 'END { exit !(NR == 1 && \$1 == 29) }'"
t "export --group-base 239.77.13.0" 0 "$BIN" export "$TMP/grid.json" "$P" --group-base 239.77.13.0 -o "$TMP/g4.gsched"
check "... the flag and group_base ef4d0d00, then zeros" \
	test "$(hexat "$TMP/g4.gsched" 28 4)/$(hexat "$TMP/g4.gsched" 64 16)" = "01000000/ef4d0d00$Z12"
t "export --group-base ff15::79:0" 0 "$BIN" export "$TMP/grid.json" "$P" --group-base ff15::79:0 -o "$TMP/g6.gsched"
check "... all 16 bytes" test "$(hexat "$TMP/g6.gsched" 64 16)" = ff150000000000000000000000790000
msg "export --group-base whose 6 clique addresses run out of IPv4 multicast" \
	"gsync-sched export: --group-base: the 6 clique addresses 239.255.255.252 + 0..5 are not all IPv4 multicast addresses a clique may use (224.0.1.0 to 239.255.255.255)" \
	"$BIN" export "$TMP/grid.json" "$P" --group-base 239.255.255.252 -o "$TMP/r.gsched"
msg "export --group-base below 224.0.1.0" \
	"gsync-sched export: bad --group-base '224.0.0.250': 224.0.0.250 is not an IPv4 multicast address a clique may use (224.0.1.0 to 239.255.255.255)" \
	"$BIN" export "$TMP/grid.json" "$P" --group-base 224.0.0.250 -o "$TMP/r.gsched"
msg "export --group-base of IPv6 unicast" \
	"gsync-sched export: bad --group-base '2001:db8::1': 2001:db8::1 is neither an IPv4 address (bytes 4..15 zero) nor IPv6 multicast (ff00::/8): clique addresses must be multicast" \
	"$BIN" export "$TMP/grid.json" "$P" --group-base 2001:db8::1 -o "$TMP/r.gsched"
msg "export --group-base whose IPv6 clique addresses carry" \
	"gsync-sched export: --group-base: the 6 clique addresses ff15::ffff:fffb + 0..5 carry out of the low 32 bits (clique i adds i to them, without carry)" \
	"$BIN" export "$TMP/grid.json" "$P" --group-base ff15::ffff:fffb -o "$TMP/r.gsched"
msg "export --group-base that is no address" \
	"gsync-sched export: bad --group-base 'nowhere' (an IPv4 or IPv6 address)" \
	"$BIN" export "$TMP/grid.json" "$P" --group-base nowhere -o "$TMP/r.gsched"
msg "export --group-base with --no-clique-groups" \
	"gsync-sched export: --group-base sets clique 0's address, --no-clique-groups has no clique addresses: give one of them" \
	"$BIN" export "$TMP/grid.json" "$P" --no-clique-groups --group-base 239.77.13.0 -o "$TMP/r.gsched"
msg "optimize --group-base without --apply" \
	"gsync-sched optimize: --ranks, --relay, --start-seq, --netns, --no-clique-groups and --group-base go with --apply" \
	"$BIN" optimize "$S" --group-base 239.77.13.0
msg "simulate takes no --no-clique-groups" \
	"gsync-sched simulate: option '--no-clique-groups' does not apply to this command" \
	"$BIN" simulate "$P" "$TMP/grid.json" --no-clique-groups
t "optimize --apply --no-clique-groups without the module exits 5 (the option is taken)" 5 \
	"$BIN" optimize "$S" --apply 42 --no-clique-groups --family-file "$TMP/no-such-family"
t "export --help" 0 "$BIN" export --help
check "... documents --no-clique-groups and --group-base" sh -c "grep -q -- '--no-clique-groups  ' '$TMP/out' && grep -q -- '--group-base ADDR  ' '$TMP/out'"
if script -qc true /dev/null >/dev/null 2>&1; then
	t "export refuses to write binary to a terminal" 0 script -qec "'$BIN' export '$TMP/k.json' '$P'; [ \$? -eq 2 ]" "$TMP/tty.log"
	check "and says why" grep -q "refusing to write a binary schedule to a terminal" "$TMP/tty.log"
fi
cat >"$TMP/ring.json" <<'J'
{"rounds":[{"cliques":[{"members":["AMS","FRA"],"pattern":"unicast"},{"members":["BAR","LON","NYC"],"pattern":"ring"}]}]}
J
t "export of a ring clique exits 4" 4 "$BIN" export "$TMP/ring.json" "$P" -o "$TMP/r.gsched"
check "naming the clique and the patterns the kernel runs" grep -q 'rounds\[0\].cliques\[1\]: pattern "ring" cannot be executed by the kernel (multicast, unicast, rs_multicast, aggregator)' "$TMP/err"
t "optimize without --kernel, no multicast, kernel patterns" 0 "$BIN" optimize "$P" --multicast none --patterns unicast,aggregator -o "$TMP/tl.json"
t "export of that weighted two-level optimum exits 4" 4 "$BIN" export "$TMP/tl.json" "$P" -o "$TMP/r.gsched"
check "a clique would count a group twice" grep -q "which would be counted twice" "$TMP/err"
t "simulate --kernel of a ring clique exits 4" 4 "$BIN" simulate "$P" "$TMP/ring.json" --kernel
check "with the same message as export" grep -q 'rounds\[0\].cliques\[1\]: pattern "ring" cannot be executed by the kernel' "$TMP/err"
t "export with a bad --ranks is a usage error" 2 "$BIN" export "$TMP/k.json" "$P" --ranks AMS,XYZ -o "$TMP/r.gsched"
check "naming the island" grep -q 'unknown island "XYZ"' "$TMP/err"
t "export with arguments swapped exits 3" 3 "$BIN" export "$P" "$TMP/k.json" -o "$TMP/r.gsched"
t "export --netns without --apply is a usage error" 2 "$BIN" export "$TMP/k.json" "$P" --netns x
t "export --apply with a bad target is a usage error" 2 "$BIN" export "$TMP/k.json" "$P" --apply 0xZZ
t "export --apply without the module exits 5" 5 "$BIN" export "$TMP/k.json" "$P" --apply 0x2a:3 --family-file "$TMP/no-such-family"
check "saying the module is not loaded" grep -q "gsync kernel module is not loaded" "$TMP/err"
check "and writing no blob to stdout" test ! -s "$TMP/out"
t "optimize --apply without the module exits 5" 5 "$BIN" optimize "$S" --apply 42 --family-file "$TMP/no-such-family"
check "after printing the optimum" grep -q "^optimum" "$TMP/out"

# ---- the operation size a schedule was optimized for ("bytes") ----
# tests/netns/t-schedule-wan.sh's case: 4 MiB, 200 Mbit/s access, no multicast
t "optimize --kernel --size 4MiB -o" 0 "$BIN" optimize "$P" --kernel --multicast none --size 4MiB \
	--access-gbps 0.2 -o "$TMP/b.json"
check "it records bytes 4194304 (an integer) and a chunk of at least 64 KiB" python3 -c "
import json; d = json.load(open('$TMP/b.json'))
assert d['bytes'] == 4194304 and type(d['bytes']) is int and d['chunk_bytes'] >= 65536, d"
t "validate reads the bytes key back" 0 "$BIN" validate "$P" "$TMP/b.json"
t "simulate --kernel without --size" 0 "$BIN" simulate "$P" "$TMP/b.json" --kernel --multicast none \
	--access-gbps 0.2 --json
check "... costs the size the schedule records" python3 -c "
import json; d = json.load(open('$TMP/out')); assert d['params']['bytes'] == 4194304, d['params']"
t "simulate --size overrides it" 0 "$BIN" simulate "$P" "$TMP/b.json" --kernel --multicast none --size 1MiB --json
check "... to 1 MiB" python3 -c "
import json; d = json.load(open('$TMP/out')); assert d['params']['bytes'] == 1048576, d['params']"
t "optimize without --size records the 256 MiB it optimized for" 0 "$BIN" optimize "$S" -o "$TMP/b256.json"
check "... bytes 268435456" python3 -c "
import json; assert json.load(open('$TMP/b256.json'))['bytes'] == 268435456"
for v in -1 0 1.5 4e6 4194304.0 '"4MiB"' null true; do
	sed "s/\"bytes\": 4194304/\"bytes\": $v/" "$TMP/b.json" >"$TMP/badbytes.json"
	t "bytes $v is refused (exit 3)" 3 "$BIN" validate "$P" "$TMP/badbytes.json"
	check "... saying bytes must be a positive integer" \
		grep -q 'badbytes.json: bytes: must be a positive integer' "$TMP/err"
done
sed '/"bytes"/d' "$TMP/b.json" >"$TMP/nobytes.json"
t "a schedule without bytes (older files) is valid" 0 "$BIN" validate "$P" "$TMP/nobytes.json"

# ---- export warns when rs_multicast has fewer blocks than members ----
t "export of the optimizer's 4 MiB schedule (one rs_multicast clique)" 0 \
	"$BIN" export "$TMP/b.json" "$P" --no-multicast -o "$TMP/b.gsched"
check "... gives no warning: the optimizer chose blocks that give every member one" test ! -s "$TMP/err"
t "... exported as t-schedule-wan.sh does (--chunk 65536)" 0 "$BIN" export "$TMP/b.json" "$P" --no-multicast \
	--chunk 65536 -o "$TMP/b.gsched"
check "... gives no warning" test ! -s "$TMP/err"
cat >"$TMP/rs1.json" <<'J'
{"chunk_bytes": 4194304, "rounds": [{"cliques": [{"members": ["AMS", "BAR", "FRA", "LAX", "LON", "NYC", "SEO", "SIN", "TYO"], "pattern": "rs_multicast"}]}]}
J
t "export of rs_multicast over 9 in one 4 MiB block (--size 4MiB) exits 0" 0 \
	"$BIN" export "$TMP/rs1.json" "$P" --size 4MiB -o "$TMP/rs1.gsched"
check "... warning in one line that names the fix, --chunk 262144" sh -c "[ \$(wc -l <'$TMP/err') = 1 ] &&
	grep -q '^gsync-sched export: warning: rounds\[0\]\.cliques\[0\]: rs_multicast over 9 members, but 4194304 bytes in blocks of 4194304 make 1 block, .*; export with --chunk 262144 or smaller\$' '$TMP/err'"
check "... and writes the blob" test -s "$TMP/rs1.gsched"
t "the same with --chunk 262144" 0 "$BIN" export "$TMP/rs1.json" "$P" --size 4MiB --chunk 262144 -o "$TMP/rs1.gsched"
check "... gives no warning" test ! -s "$TMP/err"
t "the same without --size (operation size unknown)" 0 "$BIN" export "$TMP/rs1.json" "$P" -o "$TMP/rs1.gsched"
check "... gives no warning" test ! -s "$TMP/err"
sed 's/"chunk_bytes"/"bytes": 4194304, "chunk_bytes"/' "$TMP/rs1.json" >"$TMP/rs1b.json"
t "the same with bytes 4194304 in the file" 0 "$BIN" export "$TMP/rs1b.json" "$P" -o "$TMP/rs1.gsched"
check "... warns (the file's bytes is the operation size)" grep -q "warning: .*--chunk 262144" "$TMP/err"
# ---- the block model: the default under --kernel ----
t "optimize, t-schedule-wan.sh's case again" 0 "$BIN" optimize "$P" --kernel --multicast none --size 4MiB \
	--access-gbps 0.2
check "by default (--kernel) one rs_multicast clique, 612.43 ms in 9 blocks" sh -c "
	grep -q '^optimum    1 round: 9 rs_multicast\$' '$TMP/out' &&
	grep -q '^time       612.43 ms per synchronization (pipelined, 9 chunks)' '$TMP/out'"
check "... of 466048 bytes (4 MiB / 9 rounded up to 16: one each), recording bytes" python3 -c "
import json; d = json.load(open('$TMP/b.json')); assert d['chunk_bytes'] == 466048 and d['bytes'] == 4194304, d"
check "... and says it used the block model" grep -q '^model      block model: rs_multicast members carry the blocks they own$' "$TMP/out"
t "optimize --no-block-model, the same case" 0 "$BIN" optimize "$P" --kernel --multicast none --size 4MiB \
	--access-gbps 0.2 --no-block-model -o "$TMP/nb.json"
check "... the old model: one rs_multicast clique in one 4 MiB chunk, 612.10 ms (M/9 each, whatever the blocks)" sh -c "
	grep -q '^optimum    1 round: 9 rs_multicast\$' '$TMP/out' &&
	grep -q '^time       612.10 ms per synchronization (pipelined, 1 chunks)' '$TMP/out' &&
	python3 -c \"import json; assert json.load(open('$TMP/nb.json'))['chunk_bytes'] == 4194304\""
check "... and says so" grep -q '^model      --no-block-model: rs_multicast members carry size/k each, whatever the blocks$' "$TMP/out"
t "export of the --no-block-model 4 MiB schedule" 0 "$BIN" export "$TMP/nb.json" "$P" --no-multicast -o "$TMP/b.gsched"
check "... warns: 1 block for 9 members, export with --chunk 262144" \
	grep -q "^gsync-sched export: warning: rounds\[0\]\.cliques\[0\]: rs_multicast over 9 members, but 4194304 bytes in blocks of 4194304 make 1 block, .*--chunk 262144 or smaller\$" "$TMP/err"
t "optimize --kernel --json" 0 "$BIN" optimize "$P" --kernel --multicast none --size 4MiB --access-gbps 0.2 --json
check "... has params.block_model true" python3 -c "
import json; assert json.load(open('$TMP/out'))['params']['block_model'] is True"
t "optimize --kernel --no-block-model --json" 0 "$BIN" optimize "$P" --kernel --multicast none --size 4MiB \
	--access-gbps 0.2 --no-block-model --json
check "... has no block_model key" python3 -c "
import json; assert 'block_model' not in json.load(open('$TMP/out'))['params']"
t "optimize --json without --kernel" 0 "$BIN" optimize "$S" --size 4MiB --json
check "... has no block_model key (off without --kernel)" python3 -c "
import json; assert 'block_model' not in json.load(open('$TMP/out'))['params']"
msg "--block-model with --no-block-model is a usage error" \
	"gsync-sched simulate: --block-model and --no-block-model: give one of them" \
	"$BIN" simulate "$P" "$TMP/nb.json" --kernel --block-model --no-block-model
t "simulate --no-block-model the old model's schedule" 0 "$BIN" simulate "$P" "$TMP/nb.json" --kernel --multicast none \
	--access-gbps 0.2 --no-block-model --json
cp "$TMP/out" "$TMP/sim0.json"
t "simulate --kernel the same schedule" 0 "$BIN" simulate "$P" "$TMP/nb.json" --kernel --multicast none \
	--access-gbps 0.2 --json
check "... charges one member the single 4 MiB block, as the kernel runs it: slower than M/9 each" python3 -c "
import json; a = json.load(open('$TMP/sim0.json')); b = json.load(open('$TMP/out'))
assert abs(a['predicted_time_s'] - 0.61210) < 5e-5 and b['predicted_time_s'] > a['predicted_time_s'] + 0.1, (a['predicted_time_s'], b['predicted_time_s'])"
"$BIN" optimize "$P" --kernel --multicast none --size 4MiB --access-gbps 0.2 --chunk 4KiB \
	-o "$TMP/b4k.json" >/dev/null 2>&1
"$BIN" optimize "$P" --kernel --multicast none --size 4MiB --access-gbps 0.2 --chunk 4MiB \
	-o "$TMP/b4m.json" >/dev/null 2>&1
check "--kernel: the optimum does not depend on --chunk (4 KiB and 4 MiB give the same file)" \
	cmp "$TMP/b4k.json" "$TMP/b4m.json"
# no rs_multicast clique with fewer blocks than members: at 4 KiB (one
# block) rs_multicast alone has no schedule; at 32 KiB (at most 8 blocks
# of 4 KiB) not one clique of nine but a 3x3 grid, three blocks a clique
t "optimize --kernel --patterns rs_multicast --size 4KiB: no schedule (exit 4)" 4 "$BIN" optimize "$P" --kernel \
	--patterns rs_multicast --size 4KiB
check "... saying so" grep -q "no feasible schedule" "$TMP/err"
t "optimize --kernel --patterns rs_multicast --size 32KiB" 0 "$BIN" optimize "$P" --kernel --patterns rs_multicast \
	--size 32KiB -o "$TMP/rs32.json"
check "... a 3x3 rs_multicast grid in blocks of 10928 bytes (3 per clique of three)" sh -c "
	grep -q '^optimum    2 rounds: 3x3 rs_multicast | 3x3 rs_multicast\$' '$TMP/out' &&
	python3 -c \"import json; assert json.load(open('$TMP/rs32.json'))['chunk_bytes'] == 10928\""
t "... exports" 0 "$BIN" export "$TMP/rs32.json" "$P" -o "$TMP/rs32.gsched"
check "... without a warning" test ! -s "$TMP/err"
t "optimize with a pattern no clique can run (multicast, no multicast) exits 4" 4 "$BIN" optimize "$Q" \
	--patterns multicast
# the chunk is chosen for every shape before the shapes are compared: on
# this generated topology the 2x3 multicast grid wins at the searching
# chunk (119.06 ms in 32 KiB blocks), one multicast clique in one 4 MiB
# block is faster (118.34 ms)
t "generate --islands 6 --seed 2" 0 "$BIN" generate --islands 6 --seed 2 -o "$TMP/g62.json"
t "optimize it --kernel --size 4MiB" 0 "$BIN" optimize "$TMP/g62.json" --kernel --size 4MiB
check "... one multicast clique in one 4 MiB block, 118.34 ms: each shape's chunk searched" sh -c "
	grep -q '^optimum    1 round: 6 multicast\$' '$TMP/out' &&
	grep -q '^time       118.34 ms per synchronization (pipelined, 1 chunks)' '$TMP/out'"
# the chunk search: four-line has no per-message overhead, so chunks tie;
# without --kernel --chunk is the incumbent and stays, under the block model
# every chunk from 4 KiB is tried and the smallest wins the tie
t "optimize four-line --size 64MiB" 0 "$BIN" optimize "$TOP/four-line.json" --size 64MiB
check "... keeps --chunk (4 MiB) on a tie" grep -q '^sync size  64 MiB, chunk 4 MiB,' "$TMP/out"
t "optimize four-line --size 64MiB --block-model" 0 "$BIN" optimize "$TOP/four-line.json" --size 64MiB --block-model
check "... takes the smallest chunk (4 KiB) on a tie" grep -q '^sync size  64 MiB, chunk 4 KiB,' "$TMP/out"
# without --kernel the shapes are searched once, at --chunk
t "optimize six-two-regions --size 4MiB" 0 "$BIN" optimize "$TOP/six-two-regions.json" --size 4MiB
check "... searches the shapes once, as before the block model: 53.11 ms" sh -c "
	grep -q '^optimum    2 rounds: 2x3 unicast | 3x2 unicast\$' '$TMP/out' &&
	grep -q '^time       53.11 ms per synchronization' '$TMP/out'"
# ---- rounds that overlap share the resources they both use ----
# A 3x3 grid of rs_multicast at 64 MiB on 50 Mbit/s access links: each
# round moves 2 x 2/3 M into every island (14.32 s), and pipelined rounds
# share that download, so the grid costs both (29.05 s; 29.04 s with M/3
# shares, --no-block-model), not one round's (the model said 14.77 s and
# the optimizer exported the grid, which took 82 s in the emulated WAN
# against 25.6 s for Gloo's ring).  In 512 blocks of 128 KiB the owners of
# each clique of three hold 171, 171 and 170 blocks.
cat > "$TMP/grid.json" <<'EOF'
{"format": "gsync-schedule/1", "topology": "nine-city-private", "name": "3x3 grid",
 "bytes": 67108864, "chunk_bytes": 131072,
 "rounds": [
  {"cliques": [{"members": ["FRA", "NYC", "SEO"], "pattern": "rs_multicast"},
               {"members": ["LON", "SIN", "TYO"], "pattern": "rs_multicast"},
               {"members": ["AMS", "BAR", "LAX"], "pattern": "rs_multicast"}]},
  {"cliques": [{"members": ["AMS", "FRA", "SIN"], "pattern": "rs_multicast"},
               {"members": ["LAX", "SEO", "TYO"], "pattern": "rs_multicast"},
               {"members": ["BAR", "LON", "NYC"], "pattern": "rs_multicast"}]}]}
EOF
t "simulate a 3x3 rs_multicast grid, 64 MiB, 50 Mbit/s access" 0 "$BIN" simulate "$P" "$TMP/grid.json" \
	--kernel --access-gbps 0.05 --json
check "... costs both rounds on each download: 29.05 s, a chunk per 55.95 ms on an ingress" python3 -c "
import json; d = json.load(open('$TMP/out')); r = d['result']
assert abs(d['predicted_time_s'] - 29.0538) < 5e-4, d['predicted_time_s']
assert abs(r['shared_stage_s'] - 0.05595) < 5e-5 and r['shared_bottleneck'].endswith(' ingress'), r"
t "simulate it --no-block-model" 0 "$BIN" simulate "$P" "$TMP/grid.json" --kernel --access-gbps 0.05 \
	--no-block-model --json
check "... M/3 shares: 29.04 s, a chunk per 55.92 ms" python3 -c "
import json; d = json.load(open('$TMP/out')); r = d['result']
assert abs(d['predicted_time_s'] - 29.0398) < 5e-4 and abs(r['shared_stage_s'] - 0.05592) < 5e-5, d"
t "simulate the grid, text" 0 "$BIN" simulate "$P" "$TMP/grid.json" --kernel --access-gbps 0.05
check "... has a line for every round's load together" grep -q '^all   -           -           55.95 ms    [A-Z]* ingress (every round.s load)$' "$TMP/out"
t "optimize nine-city, 64 MiB, 50 Mbit/s access, --kernel" 0 "$BIN" optimize "$P" --kernel --size 64MiB \
	--access-gbps 0.05
check "... one rs_multicast clique of nine, 19.40 s: a ring's bytes in two steps, not the grid" sh -c "
	grep -q '^optimum    1 round: 9 rs_multicast\$' '$TMP/out' &&
	grep -q '^time       19.403 s per synchronization' '$TMP/out'"
t "sweep --kernel" 0 "$BIN" sweep "$P" --vary reach --values none --kernel
check "... says it uses the block model in its header" grep -q '^model      block model' "$TMP/out"
t "sweep --kernel --no-block-model" 0 "$BIN" sweep "$P" --vary reach --values none --kernel --no-block-model
check "... says so in its header" grep -q '^model      --no-block-model' "$TMP/out"
t "compare --block-model" 0 "$BIN" compare "$S" --block-model
check "... says so in its header" grep -q '^model      block model' "$TMP/out"
t "compare" 0 "$BIN" compare "$S"
check "... without it, no model line (no --kernel)" sh -c "! grep -q '^model' '$TMP/out'"
t "export --block-model is a usage error (export has no model choice)" 2 "$BIN" export "$TMP/b.json" "$P" --block-model
t "validate --block-model is a usage error" 2 "$BIN" validate "$P" --block-model
# ---- the user's path: optimize --kernel, export without flags, and the
# blob runs as modelled: user_path.py (every shipped topology, six sizes) ----
python3 "$HERE/user_path.py" "$BIN" "$TOP" "$n" >"$TMP/user.tap" || fail=1
cat "$TMP/user.tap"
n=$((n + $(grep -c '^\(not \)\{0,1\}ok ' "$TMP/user.tap")))
t "optimize --apply --objective gossip is a usage error" 2 "$BIN" optimize "$S" --apply 42 --objective gossip
t "optimize --ranks without --apply is a usage error" 2 "$BIN" optimize "$S" --ranks E1
echo "1..$n"
exit $fail
