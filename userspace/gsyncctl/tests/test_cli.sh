#!/bin/sh
# test_cli.sh - gsyncctl against fixture /proc directories (TAP): good,
# newer (extra/reordered columns) and malformed files; every failure must be
# a clear message and a non-zero exit, never a crash (the binary is built
# with ASan/UBSan, which exit non-zero on any memory error).
# usage: test_cli.sh BINARY FIXTURE_DIR TOPOLOGY_DIR
BIN=$1
FX=$2
TOP=${3:-../../topologies}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
n=0
fail=0
pass() { n=$((n + 1)); echo "ok $n - gsyncctl: $1"; }
flunk() { n=$((n + 1)); echo "not ok $n - gsyncctl: $1"; fail=1; }
# t DESCRIPTION EXPECTED_RC CMD... : exit status check (stdout/err kept)
t() {
	desc=$1; want=$2; shift 2
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq "$want" ]; then pass "$desc"
	else flunk "$desc (exit $rc, want $want)"; sed 's/^/# /' "$TMP/err" | head -5; fi
}
# has DESCRIPTION FILE PATTERN : the last command's FILE (out|err) matches
has() {
	if grep -q -- "$3" "$TMP/$2"; then pass "$1"
	else flunk "$1 (no '$3' in std$2)"; sed 's/^/# /' "$TMP/$2" | head -5; fi
}
json() { # the last stdout is one valid JSON document; then run a python check
	if python3 -c "import json,sys; d=json.load(open('$TMP/out')); sys.exit(0 if ($2) else 1)" 2>"$TMP/py"
	then pass "$1"; else flunk "$1"; sed 's/^/# /' "$TMP/py" | tail -3; fi
}
G="$BIN --proc-dir"

# ---- help ----
t "--help exits 0" 0 $BIN --help
has "--help has an EXIT STATUS section" out "EXIT STATUS"
for c in family show stats schedule key; do
	t "help $c exits 0" 0 $BIN help $c
	has "help $c is the $c page" out "gsyncctl $c -"
	t "$c --help is the same page" 0 $BIN $c --help
	has "$c --help names the command" out "gsyncctl $c -"
done
for c in load show clear; do
	t "help schedule $c exits 0" 0 $BIN help schedule $c
	has "help schedule $c is the page" out "gsyncctl schedule $c -"
	t "schedule $c --help is the same page" 0 $BIN schedule $c --help
	has "and has an EXIT STATUS section" out "EXIT STATUS"
done
for c in generate show set; do
	t "help key $c exits 0" 0 $BIN help key $c
	has "help key $c is the page" out "gsyncctl key $c -"
	t "key $c --help is the same page" 0 $BIN key $c --help
	has "and has an EXIT STATUS section" out "EXIT STATUS"
done
t "help of an unknown key subcommand is a usage error" 2 $BIN help key frob
t "help of an unknown schedule subcommand is a usage error" 2 $BIN help schedule frob
t "help of an unknown command is a usage error" 2 $BIN help frobnicate
t "no command is a usage error" 2 $BIN
t "an unknown command is a usage error" 2 $BIN frobnicate
has "and says so" err "unknown command 'frobnicate'"
t "an unknown option is a usage error" 2 $BIN --frob show
t "--netns without a name is a usage error" 2 $BIN show --netns
t "--id with garbage is a usage error" 2 $BIN show --id x1
t "--id with family is a usage error" 2 $BIN family --id 1
t "extra arguments are a usage error" 2 $BIN show extra
t "--version exits 0" 0 $BIN --version

# ---- family ----
t "family from a fixture" 0 $BIN --family-file "$FX/family-25" family
has "prints 25" out "^25$"
t "family --json" 0 $BIN --family-file "$FX/family-25" family --json
json "family --json is {\"family\": 25}" "d == {'family': 25}"
t "family: garbage file is an error (1)" 1 $BIN --family-file "$FX/family-garbage" family
t "family: missing file means not loaded (3)" 3 $BIN --family-file "$FX/nonexistent" family
has "family: says the module is not loaded" err "not loaded"

# ---- good files ----
t "show: good file" 0 $G "$FX/good" show
has "show: header line" out "^ID  *INODE  *UID  *STATE  *GROUP  *RANK"
has "show: a joined socket, rank 1/4, group in hex" out "joined  *0x1122334455667788  *1/4"
has "show: an unconfigured socket shows rank -" out "unconfigured  *0x0  *- "
t "show --json" 0 $G "$FX/good" show --json
json "show --json: 3 sockets, typed values" \
	"len(d['sockets']) == 3 and d['sockets'][1]['group'] == '0x1122334455667788' and d['sockets'][1]['tx_bytes'] == 18446744073709551615 and d['sockets'][0]['state'] == 'unconfigured'"
t "show --id 3" 0 $G "$FX/good" show --id 3
has "show --id 3 shows socket 3" out "failed"
if grep -q joined "$TMP/out"; then flunk "show --id 3 hides the others"; else pass "show --id 3 hides the others"; fi
t "show --id 99 (no such socket) is not an error" 0 $G "$FX/good" show --id 99
has "and says there is none" out "no gsync sockets with that id"
t "stats: good files" 0 $G "$FX/good" stats
has "stats: namespace totals" out "namespace: sockets_open 3 sockets_created 7"
has "stats: non-zero drops by reason" out "drops  *5 (short 1, dup 4)"
has "stats: drops of the failed socket" out "drops  *9 (nomem 9)"
t "stats --json" 0 $G "$FX/good" stats --json
json "stats --json: drops object with all 11 reasons and total" \
	"d['namespace']['sockets_open'] == 3 and len(d['sockets'][1]['drops']) == 11 and d['sockets'][1]['drops']['dup'] == 4 and d['sockets'][1]['drops_total'] == 5 and 'drop_dup' not in d['sockets'][1]"
t "show: no sockets" 0 $G "$FX/no-sockets" show
has "show: says there are none" out "no gsync sockets in this network namespace"
t "show --json: no sockets" 0 $G "$FX/no-sockets" show --json
json "show --json: empty list" "d == {'sockets': []}"
t "show: '-' for not-applicable fields" 0 $G "$FX/dash-fields" show --json
json "'-' becomes null in JSON" "d['sockets'][0]['rank'] is None and d['sockets'][0]['group'] is None"

# ---- newer module: more and reordered columns ----
t "show: extra columns are ignored" 0 $G "$FX/extra-columns" show
has "show: still the right values" out "joined  *0x1122334455667788  *1/4  *11  *2  *9  *1"
t "show --json: extra columns included" 0 $G "$FX/extra-columns" show --json
json "show --json: unknown numeric and text columns typed" \
	"d['sockets'][0]['rtt_us'] == 1234 and d['sockets'][0]['engine'] == 'cpu'"
t "stats: extra columns" 0 $G "$FX/extra-columns" stats
has "stats: a new drop reason is counted" out "drops  *11 (short 1, dup 4, checksum 6)"
has "stats: an unknown counter is listed as other" out "rtt_us  *1234  *(other)"
has "stats: a new namespace counter is shown" out "reduce_jobs  *42"
t "stats: namespace totals of closed groups, no socket open" 0 $G "$FX/namespace-totals" stats
has "stats: the namespace's gauges on one line" out "namespace: sockets_open 0 sockets_created 4 mem_bytes 0 linger_takeovers 1 groups_live 0$"
has "stats: totals after every socket closed" out "ops_completed  *11"
has "stats: totals of counters sockets do not show" out "sched_ops  *6"
has "stats: namespace drops summed by reason" out "drops  *9 (version 2, stale 7)"
has "stats: no sockets" out "no gsync sockets"
t "stats --json: namespace totals" 0 $G "$FX/namespace-totals" stats --json
json "stats --json: the totals by name" "d['namespace']['ops_completed'] == 11 and d['namespace']['drop_stale'] == 7"
# The namespace's UDP counters (DIR/snmp, DIR/snmp6): where packets for a
# gsync group that has ended are counted, labelled as all UDP. The Udp:
# line, not UdpLite's (99, 98, 97 in the fixture); a file or counter that
# is missing or malformed is left out, never an error.
U='^udp (all UDP of the namespace, not only gsync):'
t "stats: UDP counters of snmp and snmp6" 0 $G "$FX/udp" stats
has "stats: one line of the namespace's UDP counters, labelled all UDP" out \
	"$U UdpNoPorts 17 UdpIgnoredMulti 4 Udp6NoPorts 3 Udp6IgnoredMulti 2\$"
t "stats --json: UDP counters" 0 $G "$FX/udp" stats --json
json "stats --json: the udp object, by nstat's names" \
	"d['udp'] == {'UdpNoPorts': 17, 'UdpIgnoredMulti': 4, 'Udp6NoPorts': 3, 'Udp6IgnoredMulti': 2}"
t "stats: IPv4 only, a kernel without IgnoredMulti" 0 $G "$FX/udp-v4" stats
has "stats: only the counters there are" out "$U UdpNoPorts 5\$"
t "stats: malformed snmp and snmp6" 0 $G "$FX/udp-bad" stats
nohas() { # DESCRIPTION FILE PATTERN: the last command's FILE does not match
	if grep -q -- "$3" "$TMP/$2"; then flunk "$1 ('$3' in std$2)"; else pass "$1"; fi
}
nohas "stats: malformed UDP counters are left out" out "^udp "
t "stats: no snmp files" 0 $G "$FX/good" stats
nohas "stats: no UDP line without snmp files" out "^udp "
t "stats --json: no snmp files" 0 $G "$FX/good" stats --json
json "stats --json: an empty udp object without snmp files" "d['udp'] == {}"
t "stats --json: extra columns" 0 $G "$FX/extra-columns" stats --json
json "stats --json: new drop reason in drops" "d['sockets'][0]['drops']['checksum'] == 6 and d['namespace']['reduce_jobs'] == 42"
t "show: the table" 0 $G "$FX/good" show
has "show: the heading, numbers right-aligned under it" out "^ID  INODE  UID   STATE         GROUP               RANK  NEXT_SEQ  INFLIGHT  OPS  FAILED\$"
has "show: a row's cells aligned" out "^ 2  40124  1000  joined        0x1122334455667788   1/4        11         2    9  1\$"
nohas "show: no line ends in a space" out " \$"
t "show: columns in reverse order" 0 $G "$FX/reordered" show
has "show: values follow their names, not positions" out "2  *40124  *1000  *joined  *0x1122334455667788  *1/4  *11  *2  *9  *1"

# ---- malformed ----
bad() { # bad NAME CMD PATTERN
	t "$2 on $1 fails with 1" 1 $G "$FX/$1" $2
	has "$2 on $1: clear message" err "$3"
	if [ -s "$TMP/out" ]; then flunk "$2 on $1 prints nothing on stdout"; else pass "$2 on $1 prints nothing on stdout"; fi
}
bad old-format show "no column 'group'"
bad missing-tx-bytes stats "no column 'tx_bytes'"
t "show works without tx_bytes (it does not need it)" 0 $G "$FX/missing-tx-bytes" show
bad row-extra-field show "line 3 has 34 fields, the header has 33 columns"
bad row-missing-field stats "line 3 has 32 fields"
bad garbage-number show "column 'tx_bytes': '12x' is not a valid number"
bad overflow-number show "'18446744073709551616' is not a valid number"
bad negative-number show "'-3' is not a valid number"
bad garbage-group show "'0xZZ' is not a valid hex number"
bad garbage-state show "'Joined!' is not a valid state"
bad empty-file show "empty file"
bad dup-column show "column 'id' appears twice"
bad blank-line show "line 3: blank line"
bad stats-garbage stats "gsync_stats: line 1: 'abc' is not a number"
bad stats-empty stats "gsync_stats: empty file"
bad stats-three-fields stats "expected \"name value\""
bad stats-missing stats "gsync_stats: No such file"
mkdir -p "$TMP/nul"
printf 'id inode\n1\0002\n' > "$TMP/nul/gsync"
t "a file with a NUL byte fails with 1" 1 $G "$TMP/nul" show
mkdir -p "$TMP/dir/gsync"
t "gsync being a directory fails with 1" 1 $G "$TMP/dir" show
has "with the reason" err "Is a directory"
t "no /proc/net/gsync: module not loaded (3)" 3 $G "$FX/no-module" show
has "show: says the module is not loaded" err "module is not loaded"
t "stats without the module (3)" 3 $G "$FX/no-module" stats

# ---- netns ----
t "--netns of a missing namespace fails with 1" 1 $BIN --netns gsyncctl-test-no-such-ns show
has "and names it" err "network namespace 'gsyncctl-test-no-such-ns'"
# Entering our own namespace by path exercises setns() without creating one.
if $BIN --netns /proc/self/ns/net --proc-dir "$FX/good" show >/dev/null 2>"$TMP/err"; then
	pass "--netns PATH enters a namespace (setns) and then reads"
elif grep -q "CAP_SYS_ADMIN" "$TMP/err"; then
	pass "--netns PATH without CAP_SYS_ADMIN fails clearly # SKIP not privileged"
else
	flunk "--netns PATH"; sed 's/^/# /' "$TMP/err"
fi

# ---- schedule (no kernel module needed: show, and the failure paths) ----
# mkblob FILE NRANKS "ROUND,PATTERN,FLAGS,AGGREGATOR,MEMBERS..." ...
# (header.flags from $SCHF, default 0; group_base from $GBASE, an address)
mkblob() {
	python3 - "$@" <<'PY'
import os, socket, struct, sys
out, nranks, cl, mem = sys.argv[1], int(sys.argv[2]), [], []
flags, base = int(os.environ.get('SCHF', '0')), os.environ.get('GBASE')
if base:
    base = socket.inet_pton(socket.AF_INET6 if ':' in base else socket.AF_INET, base).ljust(16, b'\0')
for d in sys.argv[3:]:
    r, pat, fl, agg, ms = d.split(',')
    ms = [int(x) for x in ms.split()]
    cl.append(struct.pack('<HBBHHHHI', int(r), int(pat), int(fl), len(mem), len(ms), int(agg), 0, 0))
    mem += ms
nrounds = max(int(d.split(',')[0]) for d in sys.argv[3:]) + 1
hdr = struct.pack('<IHHQIHHHHI32s16s', 0x48435347, 1, 80, 0, 65536, nranks, nrounds, len(cl),
                  len(mem), flags, bytes(32), base or bytes(16))
open(out, 'wb').write(hdr + b''.join(cl) + struct.pack('<%dH' % len(mem), *mem))
PY
}
NOFAM="--family-file $TMP/no-such-family"
mkblob "$TMP/grid.gsched" 4 "0,2,0,0,0 1" "0,2,0,0,2 3" "1,3,0,0,0 2" "1,4,1,3,1 3"
mkblob "$TMP/partial.gsched" 4 "0,2,0,0,0 1" "0,2,0,0,2 3"
head -c 50 "$TMP/grid.gsched" > "$TMP/short.gsched"
t "schedule without a subcommand is a usage error" 2 $BIN schedule
t "schedule frob is a usage error" 2 $BIN schedule frob
has "and says so" err "unknown schedule subcommand 'frob'"
t "schedule show without FILE is a usage error" 2 $BIN schedule show
t "schedule load without --group is a usage error" 2 $BIN schedule load "$TMP/grid.gsched"
has "and asks for it" err "schedule load needs --group ID"
t "schedule show --group is a usage error" 2 $BIN schedule show "$TMP/grid.gsched" --group 1
t "schedule --json is a usage error" 2 $BIN schedule show "$TMP/grid.gsched" --json
t "--group with show (sockets) is a usage error" 2 $G "$FX/good" show --group 1
t "--group with garbage is a usage error" 2 $BIN schedule clear --group 0xZZ
t "--rank out of range is a usage error" 2 $BIN schedule clear --group 1 --rank 65535
t "schedule clear --start-seq is a usage error" 2 $BIN schedule clear --group 1 --start-seq 5
t "schedule show: a blob" 0 $BIN schedule show "$TMP/grid.gsched"
has "show: ranks" out "^ranks       4 (4 contributing)"
has "show: block" out "^block       65536 bytes (64 KiB)"
has "show: an aggregator clique with unicast results" out "aggregator    unicast  3          -             1 3$"
has "show: accepted" out "^accepted: an exact all-reduce"
has "show: flags 0, cliques on the group's address" out "^flags       0 (every clique multicasts to the group's address)$"
has "show: ... and no group column" out "rate          members$"
# clique groups (GSYNC_SCHF_CLIQUE_GROUPS)
GRID4="0,2,0,0,0 1|0,2,0,0,2 3|1,3,0,0,0 2|1,4,1,3,1 3"
gridblob() { # FILE FLAGS [GROUP_BASE]: the 2x2 grid with that header
	(IFS='|'; SCHF=$2 GBASE=${3:-}; export SCHF GBASE; mkblob "$1" 4 $GRID4)
}
gridblob "$TMP/cg.gsched" 1
t "schedule show: clique groups from the group's address" 0 $BIN schedule show "$TMP/cg.gsched"
has "show: the flag and its rule" out "^flags       0x1 clique_groups: clique i multicasts to the group's address + 1 + i (no effect in a unicast group)$"
has "show: a group column" out "rate          group   members$"
has "show: clique 0 at group+1" out "unicast       unicast  -          -             group+1 0 1$"
has "show: clique 3 at group+4" out "aggregator    unicast  3          -             group+4 1 3$"
gridblob "$TMP/cg4.gsched" 1 239.77.13.0
t "schedule show: an IPv4 group_base" 0 $BIN schedule show "$TMP/cg4.gsched"
has "show: the base" out "^flags       0x1 clique_groups: clique i multicasts to 239.77.13.0 + i"
has "show: clique 3's address" out " 239.77.13.3 1 3$"
gridblob "$TMP/cg6.gsched" 1 ff15::ffff:fffc
t "schedule show: an IPv6 group_base up to ffff:ffff" 0 $BIN schedule show "$TMP/cg6.gsched"
has "show: clique 3's IPv6 address" out " ff15::ffff:ffff 1 3$"
gridblob "$TMP/cgbad.gsched" 2
t "schedule show: unknown flag 2 exits 1" 1 $BIN schedule show "$TMP/cgbad.gsched"
has "show: names the flag" out "malformed: header.flags: unknown flags 0x2"
gridblob "$TMP/cgbad.gsched" 0 239.77.13.0
t "schedule show: group_base without the flag exits 1" 1 $BIN schedule show "$TMP/cgbad.gsched"
has "show: says the flag is missing" out "malformed: header.group_base: set without GSYNC_SCHF_CLIQUE_GROUPS"
gridblob "$TMP/cgbad.gsched" 1 239.255.255.253
t "schedule show: 4 clique addresses past 239.255.255.255 exit 1" 1 $BIN schedule show "$TMP/cgbad.gsched"
has "show: says which" out "malformed: header.group_base: the 4 clique addresses 239.255.255.253 + 0..3 are not all IPv4 multicast"
gridblob "$TMP/cgbad.gsched" 1 ff15::ffff:fffd
t "schedule show: IPv6 clique addresses that carry exit 1" 1 $BIN schedule show "$TMP/cgbad.gsched"
has "show: says they carry" out "carry out of the low 32 bits"
t "schedule load: a bad group_base is not pushed (1)" 1 $BIN $NOFAM schedule load "$TMP/cgbad.gsched" --group 1
has "and says why" err "carry out of the low 32 bits (clique i adds i to them, without carry) (not loaded)"
t "schedule show: a blob that is no all-reduce exits 1" 1 $BIN schedule show "$TMP/partial.gsched"
has "show: says why" out "REJECTED: after the last round rank 0 covers 2 of the 4 contributing ranks (rank 2 is missing)"
t "schedule show: a truncated blob exits 1" 1 $BIN schedule show "$TMP/short.gsched"
has "show: malformed" out "malformed: blob: 50 bytes, shorter than the 80-byte header"
t "schedule show: --topology with a blob is a usage error" 2 $BIN schedule show "$TMP/grid.gsched" --topology "$TOP/four-star.json"
t "schedule show: JSON without --topology is a usage error" 2 $BIN schedule show "$FX/sched-grid.json"
has "and asks for it" err "a JSON schedule needs --topology FILE"
t "schedule show: JSON on its topology" 0 $BIN schedule show "$FX/sched-grid.json" --topology "$TOP/four-star.json" --start-seq 77
has "show JSON: names the ranks" out '"Z" (rank 3)'
has "show JSON: cliques by JSON path" out "rounds\[1\].cliques\[1\]"
has "show JSON: start_seq" out "^start_seq   77"
has "show JSON: an aggregator clique (multicast results: reach 2)" out "aggregator    mcast    3          9 Gbit/s      group+4 1 3$"
has "show JSON: clique groups, as gsync-sched export sets them" out "^flags       0x1 clique_groups: clique i multicasts to the group's address + 1 + i"
t "schedule show: JSON with a PoP aggregator and --relay" 0 $BIN schedule show "$FX/sched-hub.json" -t "$TOP/four-star.json" --relay H=4
has "show JSON relay: an idle rank" out "ranks       5 (4 contributing; idle: 4)"
has "show JSON relay: named" out 'relay "H" (rank 4)'
t "schedule show: PoP aggregator without --relay exits 1" 1 $BIN schedule show "$FX/sched-hub.json" -t "$TOP/four-star.json"
has "and says what to give" err "give --relay H=RANK"
t "schedule show: a bad --relay is a usage error" 2 $BIN schedule show "$FX/sched-hub.json" -t "$TOP/four-star.json" --relay H=9
# "bytes": the operation size the schedule was optimized for, as gsync-sched
# export takes it: 65536 bytes in blocks of 65536 is one block for two
# rs_multicast members, which export warns about
sed 's/"chunk_bytes": 65536/"bytes": 65536, "chunk_bytes": 65536/' "$FX/sched-grid.json" >"$TMP/bytes.json"
t "schedule show: JSON with bytes" 0 $BIN schedule show "$TMP/bytes.json" -t "$TOP/four-star.json"
has "warns: rs_multicast with fewer blocks than members" err "warning: rounds\[1\].cliques\[0\]: rs_multicast over 2 members, but 65536 bytes in blocks of 65536 make 1 block"
sed 's/"chunk_bytes": 65536/"bytes": 1048576, "chunk_bytes": 65536/' "$FX/sched-grid.json" >"$TMP/bytes.json"
t "schedule show: JSON with bytes of 16 blocks" 0 $BIN schedule show "$TMP/bytes.json" -t "$TOP/four-star.json"
if [ -s "$TMP/err" ]; then flunk "no warning with 16 blocks"; sed 's/^/# /' "$TMP/err"; else pass "no warning with 16 blocks"; fi
sed 's/"chunk_bytes": 65536/"bytes": -5, "chunk_bytes": 65536/' "$FX/sched-grid.json" >"$TMP/bytes.json"
t "schedule show: JSON with bytes -5 exits 1" 1 $BIN schedule show "$TMP/bytes.json" -t "$TOP/four-star.json"
has "saying bytes must be a positive integer" err "bytes: must be a positive integer"
t "schedule show: a ring exits 1" 1 $BIN schedule show "$FX/sched-ring.json" -t "$TOP/four-star.json"
has "naming the clique" err 'rounds\[0\].cliques\[0\]: pattern "ring" cannot be executed by the kernel'
t "schedule show: JSON that is no all-reduce exits 1" 1 $BIN schedule show "$FX/sched-partial.json" -t "$TOP/four-star.json"
has "naming the islands" out 'REJECTED: after the last round "W" (rank 0) covers 2 of the 4'
t "schedule load: a missing file exits 1" 1 $BIN schedule load "$TMP/nope" --group 1
t "schedule load: a rejected schedule is not pushed (1)" 1 $BIN $NOFAM schedule load "$TMP/partial.gsched" --group 1
has "and says why" err "covers 2 of the 4 contributing ranks (rank 2 is missing): not an all-reduce (not loaded)"
t "schedule load without the module exits 3" 3 $BIN $NOFAM schedule load "$TMP/grid.gsched" --group 0x2a --rank 1
has "load: says the module is not loaded" err "gsync kernel module is not loaded"
t "schedule load of JSON without the module exits 3" 3 $BIN $NOFAM schedule load "$FX/sched-grid.json" -t "$TOP/four-star.json" --group 42
t "schedule clear without the module exits 3" 3 $BIN $NOFAM schedule clear --group 42
has "clear: says the module is not loaded" err "not loaded"
# ---- stats --format prometheus ----
# promcheck FILE CHECK: FILE parses as the Prometheus text format 0.0.4 (a
# strict line check, then python3-prometheus-client's parser when Debian's
# python3 has it: a python3 earlier in PATH may not), then the python
# expression CHECK over v = {(name, labels...): value} and types = {name:
# type}. Exit 0 if all hold; what failed on stdout.
PYPROM=python3
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import prometheus_client' 2>/dev/null; then PYPROM=$p; break; fi
done
promcheck() {
	"$PYPROM" - "$1" "$2" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
v, types, helps = {}, {}, {}
line_re = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*)\} ([0-9.e+]+)$')
for ln in text.splitlines():
    if ln.startswith("# HELP ") or ln.startswith("# TYPE "):
        _, kind, name, rest = ln.split(" ", 3)
        d = helps if kind == "HELP" else types
        assert name not in d, "family %s declared twice" % name
        assert kind == "HELP" or name in helps, "%s: TYPE without HELP before it" % name
        d[name] = rest
        continue
    m = line_re.match(ln)
    assert m, "bad line: %r" % ln
    name = m.group(1)
    assert name in types, "%s has no TYPE" % name
    assert name == list(types)[-1], "%s not next to its TYPE (family split)" % name
    pairs = re.findall(r'([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"', m.group(2))
    assert len(set(k for k, _ in pairs)) == len(pairs), "label twice: %r" % ln
    key = (name,) + tuple(sorted(pairs))
    assert key not in v, "duplicate series %s" % (key,)
    v[key] = float(m.group(3))
assert set(helps) == set(types), "HELP without TYPE: %s" % (set(helps) - set(types))
for n, t in types.items():
    assert t in ("counter", "gauge"), t
    assert (t == "counter") == n.endswith("_total"), "%s: counters and only counters end in _total" % n
try:
    from prometheus_client.parser import text_string_to_metric_families
    fams = list(text_string_to_metric_families(text))
    assert len(fams) == len(types), (len(fams), len(types))
except ImportError:
    print("# prometheus_client not installed: line syntax checked only")
def s(_n, **kw):
    return v[(_n,) + tuple(sorted(kw.items()))]
assert eval(sys.argv[2]), "check failed: " + sys.argv[2]
PY
}
# prom DESCRIPTION CHECK: promcheck on the last stdout
prom() {
	if promcheck "$TMP/out" "$2" > "$TMP/py" 2>&1; then pass "$1"
	else flunk "$1"; sed 's/^/# /' "$TMP/py" | tail -3; fi
}
# The check must be able to fail: each of these breaks one rule.
printf '# HELP a_total x\n# TYPE a_total counter\na_total{l="1"} 1\n' > "$TMP/p-ok"
if promcheck "$TMP/p-ok" True > /dev/null 2>&1; then pass "prometheus check: a valid family passes"
else flunk "prometheus check: a valid family passes"; fi
pbad() { # DESCRIPTION TEXT (printf format)
	printf "$2" > "$TMP/p-bad"
	if promcheck "$TMP/p-bad" True > /dev/null 2>&1; then flunk "prometheus check rejects $1"
	else pass "prometheus check rejects $1"; fi
}
pbad "a family declared twice" '# HELP a x\n# TYPE a gauge\na{l="1"} 1\n# HELP a x\n# TYPE a gauge\na{l="2"} 1\n'
pbad "a family split by another" '# HELP a x\n# TYPE a gauge\na{l="1"} 1\n# HELP b x\n# TYPE b gauge\nb{l="1"} 1\na{l="2"} 1\n'
pbad "a counter not named *_total" '# HELP a x\n# TYPE a counter\na{l="1"} 1\n'
pbad "a gauge named *_total" '# HELP a_total x\n# TYPE a_total gauge\na_total{l="1"} 1\n'
pbad "a family without HELP" '# TYPE a gauge\na{l="1"} 1\n'
pbad "the same series twice" '# HELP a x\n# TYPE a gauge\na{l="1"} 1\na{l="1"} 2\n'
L='netns="",group="0x1122334455667788",rank="1",socket="2"'
t "stats --format prometheus" 0 $G "$FX/good" stats --format prometheus
prom "prometheus: valid exposition format, counters *_total, one TYPE per family" "True"
prom "prometheus: namespace gauge and counter" \
	"s('gsync_sockets_open', netns='') == 3 and s('gsync_sockets_created_total', netns='') == 7"
prom "prometheus: per-socket counters with netns/group/rank/socket labels" \
	"s('gsync_operations_completed_total', netns='', group='0x1122334455667788', rank='1', socket='2') == 9 and s('gsync_receive_bytes_total', netns='', group='0x2a', rank='0', socket='3') == 0"
prom "prometheus: a u64 counter at 2^64-1 is exported exactly" \
	"open('$TMP/out').read().count('gsync_transmit_bytes_total{$L} 18446744073709551615') == 1"
prom "prometheus: drops by reason" \
	"s('gsync_drops_total', netns='', group='0x1122334455667788', rank='1', socket='2', reason='dup') == 4 and s('gsync_drops_total', netns='', group='0x2a', rank='0', socket='3', reason='nomem') == 9"
prom "prometheus: unconfigured sockets are counted, not exported per socket" \
	"s('gsync_sockets', netns='', state='unconfigured') == 1 and not any(k[0] != 'gsync_sockets' and ('socket', '1') in k for k in v)"
t "stats -f prometheus --id 3" 0 $G "$FX/good" stats -f prometheus --id 3
prom "prometheus: --id selects one socket" \
	"not any(('socket', '2') in k for k in v) and s('gsync_next_seq', netns='', group='0x2a', rank='0', socket='3') == 5"
t "stats --format prometheus: extra columns" 0 $G "$FX/extra-columns" stats --format prometheus
prom "prometheus: a new drop reason and an unknown column become series" \
	"s('gsync_drops_total', netns='', group='0x1122334455667788', rank='1', socket='2', reason='checksum') == 6 and s('gsync_socket_rtt_us', netns='', group='0x1122334455667788', rank='1', socket='2') == 1234"
prom "prometheus: a namespace total has its own counter family" \
	"s('gsync_namespace_reduce_jobs_total', netns='') == 42 and not any(k[0] == 'gsync_namespace_stat' for k in v)"
# /proc/net/gsync_stats: every line its own family (netns label only), the
# per-group totals as gsync_namespace_*_total, drops by reason.
t "stats --format prometheus: namespace totals" 0 $G "$FX/namespace-totals" stats --format prometheus
if diff -u "$FX/namespace-totals.prom" "$TMP/out" > "$TMP/diff"; then
	pass "prometheus: namespace totals, exactly the expected output"
else
	flunk "prometheus: namespace totals, exactly the expected output"; head -20 "$TMP/diff" | sed 's/^/# /'
fi
prom "prometheus: namespace totals, valid, counters *_total, families once" "True"
prom "prometheus: namespace gauges, counters and totals by type" \
	"types['gsync_memory_bytes'] == 'gauge' and types['gsync_groups_live'] == 'gauge' and types['gsync_linger_takeovers_total'] == 'counter' and s('gsync_linger_takeovers_total', netns='') == 1 and s('gsync_namespace_operations_completed_total', netns='') == 11 and s('gsync_namespace_scheduled_operations_total', netns='') == 6 and s('gsync_namespace_drops_total', netns='', reason='stale') == 7"
prom "prometheus: no namespace line in the generic family" \
	"not any(k[0] == 'gsync_namespace_stat' for k in v)"
# A newer module's lines: unknown names stay exported (generic family, one
# TYPE though they are not adjacent in the file), a new reason is a drop.
t "stats --format prometheus: a newer module's namespace lines" 0 $G "$FX/namespace-newer" stats --format prometheus
prom "prometheus: newer namespace lines, valid, families once and not split" "True"
prom "prometheus: unknown namespace lines in gsync_namespace_stat{name}" \
	"s('gsync_namespace_stat', netns='', name='peers_live') == 3 and s('gsync_namespace_stat', netns='', name='fec_repairs') == 5 and s('gsync_namespace_stat', netns='', name='inflight') == 2 and s('gsync_namespace_stat', netns='', name='drop_') == 1"
prom "prometheus: only the unknown lines are generic" \
	"sorted(dict(k[1:])['name'] for k in v if k[0] == 'gsync_namespace_stat') == ['drop_', 'fec_repairs', 'inflight', 'peers_live']"
prom "prometheus: a new drop reason in gsync_namespace_drops_total" \
	"s('gsync_namespace_drops_total', netns='', reason='fec') == 8 and s('gsync_namespace_drops_total', netns='', reason='clique') == 4"
# the 15 summed per-group counters and the drops: gsync_namespace_ + the
# per-socket family's name, its type, its help first
NS="[n for n in types if n.startswith('gsync_namespace_') and n != 'gsync_namespace_stat']"
prom "prometheus: every namespace total is the per-socket family's name, type and help" \
	"len($NS) == 16 and all(types[p] == types[n] == 'counter' and helps[n].startswith(helps[p]) for n in $NS for p in [n.replace('gsync_namespace_', 'gsync_', 1)])"

nlines=$(wc -l < "$FX/namespace-newer/gsync_stats")
prom "prometheus: every gsync_stats line exported exactly once" \
	"sum(1 for k in v if k[0] != 'gsync_sockets' and not any(l == 'group' for l, _ in k[1:])) == $nlines"
# The in-tree module's lines (gsync_stats_show in kmod/proc.c, the drop
# reasons of uapi/linux/gsync.h) all have a family of their own: a line
# added to the module must be added to prom.c, not left generic.
R=$TOP/..
if [ -f "$R/kmod/proc.c" ] && [ -f "$R/uapi/linux/gsync.h" ]; then
	mkdir -p "$TMP/kmod"
	cp "$FX/namespace-totals/gsync" "$TMP/kmod/gsync"
	{ sed -n '/^static int gsync_stats_show/,/^}/p' "$R/kmod/proc.c" |
		grep -o 'seq_printf(seq, "[a-z_]* %' | sed 's/.*"\([a-z_]*\) %/\1/'
	  grep -v '^#define' "$R/kmod/proc.c" | grep -o 'GSYNC_STAT([a-z_]*)' |
		sed 's/GSYNC_STAT(\(.*\))/\1/'
	  sed -n '/#define GSYNC_DROP_NAMES/,/}/p' "$R/uapi/linux/gsync.h" |
		grep -o '"[a-z_]*"' | tr -d '"' | sed 's/^/drop_/'
	} | awk '{ print $1, NR }' > "$TMP/kmod/gsync_stats"
	nk=$(wc -l < "$TMP/kmod/gsync_stats")
	t "stats --format prometheus: the in-tree module's gsync_stats lines" 0 $G "$TMP/kmod" stats --format prometheus
	prom "prometheus: every line kmod/proc.c prints has its own family ($nk lines)" \
		"$nk >= 30 and not any(k[0] == 'gsync_namespace_stat' for k in v) and sum(1 for k in v if k[0] != 'gsync_sockets' and not any(l == 'group' for l, _ in k[1:])) == $nk"
else
	pass "prometheus: the in-tree module's lines # SKIP no kmod/proc.c"
fi
# The namespace's UDP counters: counters labelled netns and ip, their help
# saying they count all UDP; none without snmp files.
t "stats --format prometheus: UDP counters" 0 $G "$FX/udp" stats --format prometheus
prom "prometheus: UDP counters, valid, families once" "True"
prom "prometheus: UDP no-port and ignored-multicast datagrams by ip" \
	"s('gsync_namespace_udp_no_port_datagrams_total', netns='', ip='ipv4') == 17 and s('gsync_namespace_udp_no_port_datagrams_total', netns='', ip='ipv6') == 3 and s('gsync_namespace_udp_ignored_multicast_datagrams_total', netns='', ip='ipv4') == 4 and s('gsync_namespace_udp_ignored_multicast_datagrams_total', netns='', ip='ipv6') == 2"
prom "prometheus: UDP counters are counters whose help says all UDP, not only gsync" \
	"all(types[n] == 'counter' and 'all UDP, not only gsync' in helps[n] for n in types if '_udp_' in n) and sum('_udp_' in n for n in types) == 2"
t "stats --format prometheus: IPv4 only" 0 $G "$FX/udp-v4" stats --format prometheus
prom "prometheus: only the UDP series there are" \
	"[k for k in v if '_udp_' in k[0]] == [('gsync_namespace_udp_no_port_datagrams_total', ('ip', 'ipv4'), ('netns', ''))]"
t "stats --format prometheus: no snmp files" 0 $G "$FX/good" stats --format prometheus
prom "prometheus: no UDP family without snmp files" "not any('_udp_' in n for n in types)"
t "stats --format json is --json" 0 $G "$FX/good" stats --format json
json "stats --format json: the JSON document" "d['namespace']['sockets_open'] == 3"
t "stats --format text is the default" 0 $G "$FX/good" stats --format text
has "stats --format text: text output" out "namespace: sockets_open 3"
t "--format with an unknown format is a usage error" 2 $G "$FX/good" stats --format xml
t "--format with show is a usage error" 2 $G "$FX/good" show --format prometheus
t "--json with --format prometheus is a usage error" 2 $G "$FX/good" stats --json --format prometheus
t "prometheus: a malformed file exits 1" 1 $G "$FX/garbage-number" stats --format prometheus
t "prometheus: no module exits 3" 3 $G "$FX/no-module" stats --format prometheus

# ---- rate control (a module with an adaptive sending rate) ----
# The columns reports_sent reports_received rate_decreases
# rate_loss_decreases send_rate rtt_ms after the drop_* columns, as
# kmod/proc.c prints them, and the four counters at the end of
# gsync_stats. Every value is distinct, so a value read from the wrong
# column shows. A module without them (every other fixture) shows none of
# them and no family of them; one with rate control from before
# rate_loss_decreases ($TMP/rate-noloss) has the others.
RF=$FX/rate
# sock ID: socket ID's block of the last stats text into $TMP/sock
sock() { sed -n "/^socket $1 /,/^\$/p" "$TMP/out" > "$TMP/sock"; }
t "stats: rate control" 0 $G "$RF" stats
sock 2
has "stats: REPORTs sent" sock "^  reports_sent  *41\$"
has "stats: REPORTs received" sock "^  reports_received  *37\$"
has "stats: rate decreases" sock "^  rate_decreases  *3\$"
has "stats: rate decreases for loss" sock "^  rate_loss_decreases  *2\$"
has "stats: the sending rate in bits/s and exactly in bytes/s" sock "^  send_rate  *12.5 Mbit/s (1562500 bytes/s)\$"
has "stats: the round trip in ms" sock "^  rtt_ms  *42\$"
sock 3
has "stats: a rate in Gbit/s" sock "^  send_rate  *1 Gbit/s (125000000 bytes/s)\$"
has "stats: a round trip of 0 is unknown" sock "^  rtt_ms  *0 (unknown)\$"
has "stats: another socket's REPORTs" sock "^  reports_sent  *5\$"
sock 1
has "stats: a rate of 0 before the first send" sock "^  send_rate  *0 (nothing sent yet)\$"
nohas "stats: the rate control columns are known, not (other)" out \
	"\(reports_\|rate_decreases\|rate_loss_decreases\|send_rate\|rtt_ms\).*(other)"
sed -n '1,/^$/p' "$TMP/out" > "$TMP/nstot"
has "stats: the namespace's REPORTs sent" nstot "^  reports_sent  *460\$"
has "stats: the namespace's REPORTs received" nstot "^  reports_received  *370\$"
has "stats: the namespace's rate decreases" nstot "^  rate_decreases  *30\$"
has "stats: the namespace's rate decreases for loss" nstot "^  rate_loss_decreases  *19\$"
has "stats: the counters are totals, not namespace gauges" nstot \
	"^namespace: sockets_open 3 sockets_created 7 mem_bytes 65536 linger_takeovers 0 groups_live 2\$"
# The same columns in reverse order: the same values (only the (other)
# lines and the drop reasons follow the file's order).
mkdir -p "$TMP/rate-rev"
cp "$RF/gsync_stats" "$TMP/rate-rev/"
awk '{ for (i = NF; i > 1; i--) printf "%s ", $i; print $1 }' "$RF/gsync" > "$TMP/rate-rev/gsync"
grep -v '(other)\|^  drops ' "$TMP/out" > "$TMP/fwd"
t "stats: rate control columns in reverse order" 0 $G "$TMP/rate-rev" stats
grep -v '(other)\|^  drops ' "$TMP/out" > "$TMP/rev"
if diff -u "$TMP/fwd" "$TMP/rev" > "$TMP/diff"; then pass "stats: rate control found by name, not position"
else flunk "stats: rate control found by name, not position"; head -10 "$TMP/diff" | sed 's/^/# /'; fi
t "stats: an older module's columns" 0 $G "$FX/good" stats
nohas "stats: no rate control lines without the columns" out "reports_\|rate_decreases\|rate_loss_decreases\|send_rate\|rtt_ms"
t "stats: an older module's namespace totals" 0 $G "$FX/namespace-totals" stats
nohas "stats: no rate control totals without the lines" out "reports_\|rate_decreases\|rate_loss_decreases"
# A module with rate control from before rate_loss_decreases: the rate
# fixture without that column and line.
mkdir -p "$TMP/rate-noloss"
awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "rate_loss_decreases") c = i }
     { s = ""; for (i = 1; i <= NF; i++) if (i != c) s = s (s == "" ? "" : " ") $i; print s }' \
	"$RF/gsync" > "$TMP/rate-noloss/gsync"
grep -v '^rate_loss_decreases ' "$RF/gsync_stats" > "$TMP/rate-noloss/gsync_stats"
t "stats: a module without rate_loss_decreases" 0 $G "$TMP/rate-noloss" stats
sock 2
has "stats: without rate_loss_decreases, rate decreases" sock "^  rate_decreases  *3\$"
has "stats: without rate_loss_decreases, the sending rate" sock "^  send_rate  *12.5 Mbit/s (1562500 bytes/s)\$"
nohas "stats: no rate_loss_decreases line without the column and line" out "rate_loss_decreases"
sed -n '1,/^$/p' "$TMP/out" > "$TMP/nstot"
has "stats: without rate_loss_decreases, the namespace's rate decreases" nstot "^  rate_decreases  *30\$"
# "-" (not applicable) is valid in a counter column and shown as such;
# garbage is an error naming the column.
mkdir -p "$TMP/rate-dash" "$TMP/rate-bad"
cp "$RF/gsync_stats" "$TMP/rate-dash/"; cp "$RF/gsync_stats" "$TMP/rate-bad/"
sed 's/ 1562500 42$/ - -/' "$RF/gsync" > "$TMP/rate-dash/gsync"
sed 's/ 1562500 42$/ 1562500x 42/' "$RF/gsync" > "$TMP/rate-bad/gsync"
t "stats: '-' as send_rate and rtt_ms" 0 $G "$TMP/rate-dash" stats
sock 2
has "stats: send_rate -" sock "^  send_rate  *-\$"
has "stats: rtt_ms -" sock "^  rtt_ms  *-\$"
t "stats --json: '-' as send_rate and rtt_ms" 0 $G "$TMP/rate-dash" stats --json
json "stats --json: '-' is null" "d['sockets'][1]['send_rate'] is None and d['sockets'][1]['rtt_ms'] is None"
t "stats: a malformed send_rate fails with 1" 1 $G "$TMP/rate-bad" stats
has "stats: names the column" err "column 'send_rate': '1562500x' is not a valid number"
t "stats --json: rate control" 0 $G "$RF" stats --json
json "stats --json: the six columns by name, in bytes/s and ms" \
	"[d['sockets'][1][k] for k in ('reports_sent', 'reports_received', 'rate_decreases', 'rate_loss_decreases', 'send_rate', 'rtt_ms')] == [41, 37, 3, 2, 1562500, 42] and d['sockets'][2]['rtt_ms'] == 0 and d['sockets'][2]['send_rate'] == 125000000"
json "stats --json: the namespace's four counters" \
	"[d['namespace'][k] for k in ('reports_sent', 'reports_received', 'rate_decreases', 'rate_loss_decreases')] == [460, 370, 30, 19]"
t "stats --json: a module without rate_loss_decreases" 0 $G "$TMP/rate-noloss" stats --json
json "stats --json: no rate_loss_decreases key without the column and line" \
	"d['sockets'][1]['rate_decreases'] == 3 and d['namespace']['rate_decreases'] == 30 and not any('rate_loss_decreases' in s for s in d['sockets']) and 'rate_loss_decreases' not in d['namespace']"
t "stats --json: an older module's" 0 $G "$FX/good" stats --json
json "stats --json: no rate control keys without the columns" \
	"not any(k in s for s in d['sockets'] for k in ('send_rate', 'rtt_ms', 'reports_sent')) and 'reports_sent' not in d['namespace']"
t "stats --format prometheus: rate control" 0 $G "$RF" stats --format prometheus
prom "prometheus: rate control, valid, counters *_total, families once" "True"
L2="netns='', group='0x1122334455667788', rank='1', socket='2'"
L3="netns='', group='0x2a', rank='0', socket='3'"
prom "prometheus: per-socket REPORT and rate-decrease counters" \
	"s('gsync_reports_sent_total', $L2) == 41 and s('gsync_reports_received_total', $L2) == 37 and s('gsync_rate_decreases_total', $L2) == 3 and s('gsync_rate_loss_decreases_total', $L2) == 2 and s('gsync_reports_sent_total', $L3) == 5 and s('gsync_rate_loss_decreases_total', $L3) == 0 and all(types[n] == 'counter' for n in ('gsync_reports_sent_total', 'gsync_reports_received_total', 'gsync_rate_decreases_total', 'gsync_rate_loss_decreases_total'))"
prom "prometheus: the loss decreases' help says loss" \
	"'loss' in helps['gsync_rate_loss_decreases_total'] and helps['gsync_rate_loss_decreases_total'] != helps['gsync_rate_decreases_total']"
prom "prometheus: the sending rate in bytes/s, a gauge" \
	"s('gsync_send_rate_bytes', $L2) == 1562500 and s('gsync_send_rate_bytes', $L3) == 125000000 and types['gsync_send_rate_bytes'] == 'gauge'"
prom "prometheus: the round trip in seconds, a gauge" \
	"s('gsync_rtt_seconds', $L2) == 0.042 and types['gsync_rtt_seconds'] == 'gauge' and open('$TMP/out').read().count('gsync_rtt_seconds{$L} 0.042\n') == 1"
prom "prometheus: no round-trip series while it is unknown (0)" \
	"[dict(k[1:])['socket'] for k in v if k[0] == 'gsync_rtt_seconds'] == ['2']"
prom "prometheus: the namespace's three totals" \
	"s('gsync_namespace_reports_sent_total', netns='') == 460 and s('gsync_namespace_reports_received_total', netns='') == 370 and s('gsync_namespace_rate_decreases_total', netns='') == 30 and s('gsync_namespace_rate_loss_decreases_total', netns='') == 19"
prom "prometheus: no rate control column or line left generic" \
	"not any(n.startswith('gsync_socket_') and n != 'gsync_socket_info' for n in types) and 'gsync_namespace_stat' not in types"
prom "prometheus: every namespace total (19 and the drops) follows its per-socket family" \
	"len($NS) == 20 and all(types[p] == types[n] == 'counter' and helps[n].startswith(helps[p]) for n in $NS for p in [n.replace('gsync_namespace_', 'gsync_', 1)])"
sed 's/ 1562500 42$/ 1562500 1005/; s/ 125000000 0$/ 125000000 7/' "$RF/gsync" > "$TMP/rate-dash/gsync"
t "stats --format prometheus: round trips of 1005 and 7 ms" 0 $G "$TMP/rate-dash" stats --format prometheus
prom "prometheus: milliseconds written exactly as seconds" \
	"open('$TMP/out').read().count('gsync_rtt_seconds{$L} 1.005\n') == 1 and s('gsync_rtt_seconds', $L3) == 0.007"
t "stats --format prometheus: an older module's" 0 $G "$FX/good" stats --format prometheus
prom "prometheus: no rate control family without the columns" \
	"not any(n in types for n in ('gsync_reports_sent_total', 'gsync_reports_received_total', 'gsync_rate_decreases_total', 'gsync_rate_loss_decreases_total', 'gsync_send_rate_bytes', 'gsync_rtt_seconds'))"
t "stats --format prometheus: a module without rate_loss_decreases" 0 $G "$TMP/rate-noloss" stats --format prometheus
prom "prometheus: without rate_loss_decreases, valid, families once" "True"
prom "prometheus: no loss-decrease family without the column and line, the others there" \
	"s('gsync_rate_decreases_total', $L2) == 3 and s('gsync_namespace_rate_decreases_total', netns='') == 30 and not any(n in types for n in ('gsync_rate_loss_decreases_total', 'gsync_namespace_rate_loss_decreases_total')) and not any('rate_loss' in str(k) for k in v)"

# ---- watch ----
# With the hidden --test-clock, sample N comes from DIR/N and rates are
# over the nominal interval, so the numbers are exact.
W=$TMP/watch
mkdir -p "$W/0" "$W/1" "$W/2"
cp "$FX/good/gsync" "$W/0/gsync"
# sample 1: socket 2 completes 10 ops, receives 2 MB, sends 1000 packets,
# 3 NACKs, 5 more drops, its tx_bytes wraps (shown as -); socket 3
# unchanged; socket 9 appears
awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
     $1 == 2 { $c["ops_completed"] += 10; $c["rx_bytes"] += 2000000; $c["tx_bytes"] = 0; $c["tx_packets"] += 1000;
               $c["nacks_sent"] += 3; $c["drop_dup"] += 5 }
     { print }
     END { }' "$FX/good/gsync" > "$W/1/gsync"
sed -n '$p' "$W/1/gsync" | sed 's/^3 40125/9 40999/' >> "$W/1/gsync"
# sample 2: socket 3's ops_completed went backwards (shown as -)
awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } $1 == 3 { $c["ops_completed"] = 0 } { print }' "$W/1/gsync" > "$W/2/gsync"
t "watch --count 2" 0 $BIN --proc-dir "$W" watch --count 2 --interval 0.5 --test-clock
has "watch: rates over the interval" out "rates over 0.5 s"
has "watch: ops/s, MB/s, packets/s, NACKs/s, drops/s of a socket" out \
	'^2  *0x1122334455667788 1/4  *2  *20.0  *0.0  *-  *4.000  *2000.0  *0.0  *6.0  *0.0  *10.0$'
if [ "$(grep -c '^9 ' "$TMP/out")" = 1 ]; then pass "watch: a new socket is shown from its second sample on"
else flunk "watch: a new socket is shown from its second sample on"; fi
has "watch: a counter that went backwards is -" out '^3  *0x2a  *0/2  *0  *-  '
if [ "$(grep -c '^gsync sockets' "$TMP/out")" = 2 ]; then pass "watch: --count 2 prints two samples"
else flunk "watch: --count 2 prints two samples"; fi
t "watch --id 3" 0 $BIN --proc-dir "$W" watch --count 1 --interval 0.1 --test-clock --id 3
if ! grep -q '^2 ' "$TMP/out" && grep -q '^3 ' "$TMP/out"; then pass "watch --id shows one socket"
else flunk "watch --id shows one socket"; fi
t "watch without the module exits 3" 3 $G "$FX/no-module" watch --count 1 --interval 0.1
t "watch: a malformed file exits 1" 1 $G "$FX/garbage-number" watch --count 1 --interval 0.1
t "watch --interval 0 is a usage error" 2 $BIN watch --interval 0
t "watch --interval abc is a usage error" 2 $BIN watch --interval abc
t "watch --interval -1 is a usage error" 2 $BIN watch --interval -1
t "watch --count 0 is a usage error" 2 $BIN watch --count 0
t "watch --json is a usage error" 2 $BIN watch --json
t "--interval with stats is a usage error" 2 $G "$FX/good" stats --interval 2
# rate control: the sending rate and round trip of the sample, at the end
mkdir -p "$W/r/0" "$W/r/1"
cp "$RF/gsync" "$W/r/0/gsync"
awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
     $1 == 2 { $c["tx_bytes"] += 3000000; $c["send_rate"] = 3125000; $c["rtt_ms"] = 57 } { print }' \
	"$RF/gsync" > "$W/r/1/gsync"
t "watch: rate control" 0 $BIN --proc-dir "$W/r" watch --count 1 --interval 0.5 --test-clock
has "watch: the rate and round trip columns last" out ' DROPS/s RATE_MB/s RTT_MS$'
has "watch: this sample's rate (MB/s) and round trip, not differences" out \
	'^2  *0x1122334455667788 1/4  *2  *0.0  *0.0  *6.000  *0.000 .*  *3.125  *57$'
has "watch: an unknown round trip is -" out '^3  *0x2a  *0/2 .*  *125.000  *-$'
t "watch: an older module's columns" 0 $BIN --proc-dir "$W" watch --count 1 --interval 0.5 --test-clock
nohas "watch: no rate columns without them" out 'RATE_MB/s\|RTT_MS'
t "help watch exits 0" 0 $BIN help watch
has "help watch is the watch page" out "gsyncctl watch -"

# ---- keyed groups: /proc columns ----
# The keyed fixture is the newest layout: drop_auth, drop_replay and
# drop_epoch after drop_ratelimit, key_mode key_epoch key_next_epoch
# key_fingerprint after rtt_ms (and in gsync_stats the three drop lines).
# Sockets: 1 unconfigured, 2 encrypt epoch 3 with epoch 4 installed, 3
# unkeyed, 4 auth epoch 1 (a fingerprint with a leading zero). Every
# other fixture is an older module's, which must keep working.
KF=$FX/keyed
t "stats: a module with keyed groups" 0 $G "$KF" stats
sock 2
has "stats: a keyed socket's mode, epoch, next epoch and fingerprint" sock \
	"^  key  *encrypt, epoch 3 (epoch 4 installed, not yet in use), fingerprint 5608c0e6269b66f4\$"
has "stats: drops by the new reasons" sock "^  drops  *14 (short 1, dup 4, auth 6, replay 2, epoch 1)\$"
sock 3
has "stats: an unkeyed socket's key is none" sock "^  key  *none\$"
sock 4
has "stats: auth mode, no rotation pending, the fingerprint's leading zero kept" sock \
	"^  key  *auth, epoch 1, fingerprint 09b3516f8cfa9e74\$"
nohas "stats: the key columns are known, not (other)" out "key_.*(other)"
sed -n '1,/^$/p' "$TMP/out" > "$TMP/nstot"
has "stats: the namespace's drops by the new reasons" nstot "^  drops  *29 (short 1, dup 4, auth 16, replay 5, epoch 3)\$"
t "stats: an older module's columns (no key)" 0 $G "$RF" stats
nohas "stats: no key line without the columns" out "^  key "
t "stats --json: keyed groups" 0 $G "$KF" stats --json
json "stats --json: key columns typed (mode and fingerprint strings, epochs numbers), drops by name" \
	"[d['sockets'][1][k] for k in ('key_mode', 'key_epoch', 'key_next_epoch', 'key_fingerprint')] == ['encrypt', 3, 4, '5608c0e6269b66f4'] and d['sockets'][3]['key_fingerprint'] == '09b3516f8cfa9e74' and d['sockets'][1]['drops']['auth'] == 6 and d['sockets'][1]['drops']['replay'] == 2 and d['sockets'][1]['drops']['epoch'] == 1 and len(d['sockets'][1]['drops']) == 16 and d['namespace']['drop_auth'] == 16"
t "show --json: a fingerprint of decimal digits stays a string" 0 $G "$KF" show --json
json "show --json: key_fingerprint is a string" "all(isinstance(s['key_fingerprint'], str) for s in d['sockets']) and d['sockets'][0]['key_fingerprint'] == '0000000000000000'"
t "show: a module with keyed groups" 0 $G "$KF" show
has "show: the same columns as before" out "joined  *0x1122334455667788  *1/4  *11  *2  *9  *1"
t "stats --format prometheus: keyed groups" 0 $G "$KF" stats --format prometheus
prom "prometheus: keyed groups, valid, families once" "True"
L4="netns='', group='0x2b', rank='2', socket='4'"
prom "prometheus: the key epochs are gauges" \
	"s('gsync_key_epoch', $L2) == 3 and s('gsync_key_next_epoch', $L2) == 4 and s('gsync_key_epoch', $L4) == 1 and s('gsync_key_next_epoch', $L4) == 0 and types['gsync_key_epoch'] == types['gsync_key_next_epoch'] == 'gauge'"
prom "prometheus: mode and fingerprint are labels of gsync_socket_info, never values" \
	"[dict(k[1:]).get('key_mode') for k in v if k[0] == 'gsync_socket_info'] == ['encrypt', 'none', 'auth'] and [dict(k[1:]).get('key_fingerprint') for k in v if k[0] == 'gsync_socket_info'] == ['5608c0e6269b66f4', '0000000000000000', '09b3516f8cfa9e74'] and not any('fingerprint' in n or n == 'gsync_socket_key_mode' for n in types)"
prom "prometheus: drops by the new reasons, per socket and for the namespace" \
	"s('gsync_drops_total', $L2, reason='auth') == 6 and s('gsync_drops_total', netns='', group='0x1122334455667788', rank='1', socket='2', reason='epoch') == 1 and s('gsync_namespace_drops_total', netns='', reason='replay') == 5"
prom "prometheus: no key column left generic" "not any(n.startswith('gsync_socket_') and n != 'gsync_socket_info' for n in types)"
t "stats --format prometheus: an older module's (no key)" 0 $G "$RF" stats --format prometheus
prom "prometheus: no key family or label without the columns" \
	"'gsync_key_epoch' not in types and not any('key_mode' in dict(k[1:]) for k in v)"
# malformed key columns: named like every other column
mkdir -p "$TMP/kbad"
cp "$KF/gsync_stats" "$TMP/kbad/"
for bad in "5608C0E6269B66F4:fingerprint (16 hex digits)" "5608c0e6269b66f:fingerprint (16 hex digits)" \
	"0x5608c0e6269b66f4:fingerprint (16 hex digits)"; do
	sed "s/ 5608c0e6269b66f4\$/ ${bad%%:*}/" "$KF/gsync" > "$TMP/kbad/gsync"
	t "show: key_fingerprint '${bad%%:*}' fails with 1" 1 $G "$TMP/kbad" show
	has "show: names the column and what it must be" err "column 'key_fingerprint': '${bad%%:*}' is not a valid ${bad#*:}"
done
sed "s/ encrypt 3 4 / Encrypt! 3 4 /" "$KF/gsync" > "$TMP/kbad/gsync"
t "show: a garbage key_mode fails with 1" 1 $G "$TMP/kbad" show
has "show: names it" err "column 'key_mode': 'Encrypt!' is not a valid key mode"
sed "s/ encrypt 3 4 / encrypt 3x 4 /" "$KF/gsync" > "$TMP/kbad/gsync"
t "show: a garbage key_epoch fails with 1" 1 $G "$TMP/kbad" show
has "show: names it" err "column 'key_epoch': '3x' is not a valid number"
mkdir -p "$W/k/0" "$W/k/1"
cp "$KF/gsync" "$W/k/0/gsync"
awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
     $1 == 2 { $c["drop_auth"] += 5; $c["drop_replay"] += 2; $c["drop_epoch"] += 1 } { print }' \
	"$KF/gsync" > "$W/k/1/gsync"
t "watch: a module with keyed groups" 0 $BIN --proc-dir "$W/k" watch --count 1 --interval 0.5 --test-clock
has "watch: auth, replay and epoch drops in DROPS/s" out \
	'^2  *0x1122334455667788 1/4 .* 16.0  *1.56[23]  *42$'

# ---- key show (sockets) ----
t "key show: every socket's key" 0 $G "$KF" key show
has "key show: the header" out "^ID  *GROUP  *RANK  *MODE  *EPOCH  *NEXT  *FINGERPRINT\$"
has "key show: a keyed socket with a rotation installed" out "^ 2  0x1122334455667788  1/4   encrypt      3     4  5608c0e6269b66f4\$"
has "key show: an unkeyed socket" out "^ 3  0x2a                0/2   none         -     -  -\$"
has "key show: an unconfigured socket" out "^ 1  0x0                 -     none         -     -  -\$"
has "key show: auth, no rotation" out "^ 4  0x2b                2/3   auth         1     -  09b3516f8cfa9e74\$"
nohas "key show: no line ends in a space" out " \$"
nohas "key show: never a key (no base64)" out "[A-Za-z0-9+/]\{43\}="
t "key show --json" 0 $G "$KF" key show --json
json "key show --json: the key columns by name, typed" \
	"len(d['sockets']) == 4 and d['sockets'][1] == {'id': 2, 'state': 'joined', 'group': '0x1122334455667788', 'rank': 1, 'nranks': 4, 'key_mode': 'encrypt', 'key_epoch': 3, 'key_next_epoch': 4, 'key_fingerprint': '5608c0e6269b66f4'}"
t "key show --id 4" 0 $G "$KF" key show --id 4
if grep -q '^ *4 ' "$TMP/out" && ! grep -q '^ *2 ' "$TMP/out"; then pass "key show --id shows one socket"
else flunk "key show --id shows one socket"; fi
t "key show --id 99 is not an error" 0 $G "$KF" key show --id 99
has "and says there is none" out "no gsync sockets with that id"
mkdir -p "$TMP/knone"
head -1 "$KF/gsync" > "$TMP/knone/gsync"
cp "$KF/gsync_stats" "$TMP/knone/"
t "key show: no sockets" 0 $G "$TMP/knone" key show
has "key show: says there are none" out "no gsync sockets in this network namespace"
t "key show --json: no sockets" 0 $G "$TMP/knone" key show --json
json "key show --json: an empty list" "d == {'sockets': []}"
t "key show: a module without keyed groups fails with 1" 1 $G "$RF" key show
has "key show: names the missing column" err "key show: /proc/net/gsync has no column 'key_mode'"
t "key show: no module (3)" 3 $G "$FX/no-module" key show

# ---- key generate, key show FILE ----
t "key generate: to stdout" 0 $BIN key generate
if grep -qx '[A-Za-z0-9+/]\{43\}=' "$TMP/out" && [ "$(wc -l < "$TMP/out")" = 1 ] &&
	[ "$(wc -c < "$TMP/out")" = 45 ]; then pass "key generate: one line of 44 base64 characters"
else flunk "key generate: one line of 44 base64 characters"; sed 's/^/# /' "$TMP/out"; fi
cp "$TMP/out" "$TMP/k1"
$BIN key generate > "$TMP/k2" 2>/dev/null
if ! cmp -s "$TMP/k1" "$TMP/k2"; then pass "key generate: two keys differ"; else flunk "key generate: two keys differ"; fi
chmod 644 "$TMP/k2"
t "key generate: to a world-readable file" 0 sh -c "$BIN key generate > '$TMP/k2'"
has "key generate: warns that others may read it" err "warning: writing a key to a file group or others may read (mode 0644)"
t "key generate FILE" 0 $BIN key generate "$TMP/job.key"
if [ "$(stat -c %a "$TMP/job.key")" = 600 ]; then pass "key generate FILE: mode 0600"
else flunk "key generate FILE: mode 0600 ($(stat -c %a "$TMP/job.key"))"; fi
fp=$(sed -n 's/^wrote .*job.key (mode 0600): fingerprint \([0-9a-f]\{16\}\)$/\1/p' "$TMP/out")
if [ -n "$fp" ]; then pass "key generate FILE: says it wrote it, with the fingerprint"
else flunk "key generate FILE: says it wrote it, with the fingerprint"; sed 's/^/# /' "$TMP/out"; fi
cp "$TMP/job.key" "$TMP/job.key.first"
t "key generate FILE: an existing file is not overwritten (1)" 1 $BIN key generate "$TMP/job.key"
has "and says --force replaces it" err "exists: not overwriting a key (--force replaces it)"
if cmp -s "$TMP/job.key" "$TMP/job.key.first"; then pass "key generate: the first key is kept"
else flunk "key generate: the first key is kept"; fi
chmod 644 "$TMP/job.key"
t "key generate --force FILE" 0 $BIN key generate --force "$TMP/job.key"
if ! cmp -s "$TMP/job.key" "$TMP/job.key.first" && [ "$(stat -c %a "$TMP/job.key")" = 600 ]; then
	pass "key generate --force: a new key, mode 0600 again"
else flunk "key generate --force: a new key, mode 0600 again"; fi
t "key generate: a directory that does not exist fails with 1" 1 $BIN key generate "$TMP/nodir/x.key"
t "key show FILE: the fingerprint of the key generate wrote" 0 $BIN key show "$TMP/job.key.first"
has "key show FILE: 16 hex digits, the same as generate printed" out "^$fp\$"
printf 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n' > "$TMP/seq.key"
chmod 600 "$TMP/seq.key"
t "key show FILE: bytes 0..31" 0 $BIN key show "$TMP/seq.key"
has "key show FILE: libgsync's (and hashlib's) fingerprint 5608c0e6269b66f4" out "^5608c0e6269b66f4\$"
t "key show FILE --json" 0 $BIN key show "$TMP/seq.key" --json
json "key show FILE --json: file and fingerprint" "d == {'file': '$TMP/seq.key', 'fingerprint': '5608c0e6269b66f4'}"
chmod 640 "$TMP/seq.key"
t "key show FILE: mode 0640 is refused (1)" 1 $BIN key show "$TMP/seq.key"
has "and says to chmod 600 it" err "group or others may access it (mode 0640); a key file must be mode 0600 (chmod 600"
if [ -s "$TMP/out" ]; then flunk "a refused key file prints no fingerprint"; else pass "a refused key file prints no fingerprint"; fi
chmod 600 "$TMP/seq.key"
printf 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n# a comment\n' > "$TMP/junk.key"
chmod 600 "$TMP/junk.key"
t "key show FILE: trailing junk is refused (1)" 1 $BIN key show "$TMP/junk.key"
has "and says what a key file holds" err "not a key file: it must be a regular file holding one key"
t "key show FILE: a directory is refused (1)" 1 $BIN key show "$TMP"
t "key show FILE: a missing file (1)" 1 $BIN key show "$TMP/nope.key"
has "and says so" err "No such file"

# ---- key set ----
KS="key set --group 0x2a --epoch 2 --start-seq 1000"
t "key set without FILE is a usage error" 2 $BIN key set --group 1 --epoch 2 --start-seq 5
has "and asks for it" err "key set needs a key FILE"
t "key set without --group is a usage error" 2 $BIN key set --epoch 2 --start-seq 5 "$TMP/seq.key"
has "and asks for it" err "key set needs --group ID"
t "key set without --epoch is a usage error" 2 $BIN key set --group 1 --start-seq 5 "$TMP/seq.key"
has "and asks for it" err "key set needs --epoch N"
t "key set without --start-seq is a usage error" 2 $BIN key set --group 1 --epoch 2 "$TMP/seq.key"
has "and asks for it" err "key set needs --start-seq N"
t "key set --start-seq 0 is a usage error" 2 $BIN $KS --start-seq 0 "$TMP/seq.key"
t "key set --epoch 0 is a usage error" 2 $BIN key set --group 1 --epoch 0 --start-seq 5 "$TMP/seq.key"
t "key set --epoch 2^32 is a usage error" 2 $BIN key set --group 1 --epoch 4294967296 --start-seq 5 "$TMP/seq.key"
t "key set --mode none is a usage error" 2 $BIN $KS --mode none "$TMP/seq.key"
has "and names the modes" err "--mode needs auth or encrypt, not 'none'"
t "key set --rank 65535 is a usage error" 2 $BIN $KS --rank 65535 "$TMP/seq.key"
t "key set --topology is a usage error" 2 $BIN $KS --topology x.json "$TMP/seq.key"
t "key set --force is a usage error" 2 $BIN $KS --force "$TMP/seq.key"
t "key set --json is a usage error" 2 $BIN $KS --json "$TMP/seq.key"
t "key set with two files is a usage error" 2 $BIN $KS "$TMP/seq.key" "$TMP/seq.key"
t "key show --group is a usage error" 2 $BIN key show --group 1
t "key generate --epoch is a usage error" 2 $BIN key generate --epoch 2
t "key generate --json is a usage error" 2 $BIN key generate --json
t "key show FILE --id is a usage error" 2 $BIN key show "$TMP/seq.key" --id 1
t "key without a subcommand is a usage error" 2 $BIN key
t "key frob is a usage error" 2 $BIN key frob
has "and says so" err "unknown key subcommand 'frob'"
t "--epoch with stats is a usage error" 2 $G "$FX/good" stats --epoch 2
t "--mode with schedule is a usage error" 2 $BIN schedule show "$TMP/grid.gsched" --mode auth
t "--force with show is a usage error" 2 $G "$FX/good" show --force
chmod 644 "$TMP/seq.key"
t "key set: a world-readable key file is refused before the kernel (1)" 1 $BIN $NOFAM $KS "$TMP/seq.key"
has "and says to chmod 600 it" err "chmod 600"
chmod 600 "$TMP/seq.key"
t "key set without the module exits 3" 3 $BIN $NOFAM $KS --rank 1 --mode auth "$TMP/seq.key"
has "key set: says the module is not loaded" err "gsync kernel module is not loaded"
if [ ! -e /sys/module/gsync ]; then
	t "key set: a family that is not registered exits 3" 3 $BIN --family-file "$FX/family-25" $KS "$TMP/seq.key"
	has "key set: says the family is not registered" err "address family 25 is not registered"
else
	pass "key set: a family that is not registered # SKIP gsync is loaded here"
	pass "key set: says the family is not registered # SKIP gsync is loaded here"
fi

exit $fail
