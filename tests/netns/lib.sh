# shellcheck shell=bash
# Island emulation for gsync's network-namespace tests (sourced, not run).
#
# Each island is a network namespace "gs-<id>" with one interface, eth0,
# a veth whose peer "p<k>" sits in the namespace "gs-wan" on a bridge, br0.
# The bridge replicates multicast like a multicast-routed WAN would: IGMP
# and MLD snooping are on, with the bridge as querier, so a group's packets
# reach only the islands that joined it, and a group nobody joined reaches
# no island. The querier counts as present a query response interval
# (0.1 s) after it is enabled, which setting up the islands outlasts;
# before that the bridge floods. The bridge and the islands have fixed
# link-local addresses without duplicate address detection, so MLD queries
# and reports carry a valid source from the first one.
#
# Latency and loss are per (source, receiver) pair: the bridge port towards
# island k carries an HTB qdisc with one class per source island, selected by
# u32 filters on the source address, each with a netem child holding that
# pair's one-way delay and loss. Each replicated multicast copy therefore gets
# the latency of its own pair. The HTB parent class caps the island's
# download rate; a TBF on the island's eth0 caps its upload rate.
#
# Addresses: island k (0-based) has 198.18.X.Y/15 (RFC 2544 benchmarking
# range; X.Y = k+1), 2001:2::<k+1>/64 (RFC 5180) and fe80::<k+1>; the
# bridge has fe80::ffff. Nothing leaves the VM: the VM has no network device
# besides these.
#
# State for tests in other languages: $GS_STATE lists one island per line:
#   <index> <id> <netns> <ipv4> <ipv6>
#
# Functions:
#   gs_islands_up N             N islands i0..i<N-1>, no delay, no rate cap
#   gs_topology_up FILE [OPTS]  islands, delays and loss of a topology file;
#                               OPTS go to topo.py (--rate-mbit, --latency-scale)
#   gs_islands_down             remove every namespace created here
#   gs_exec ID CMD...           run CMD inside island ID's namespace
#   gs_ids                      print the island ids, one per line
#   gs_addr4 ID / gs_addr6 ID   an island's addresses

GS_STATE=${GS_STATE:-/run/gsync-islands}
# On the debug kernel (KASAN, lockdep, kmemleak under TCG) everything runs
# about ten times slower, and on the KCSAN kernel not much less (a 4 MiB
# nine-city all-reduce: 50 s against 7 s on fast): tests pick smaller sizes
# with gs_pick FAST SLOW, SLOW on any profile but fast.
gs_pick() { if [ "${VM_PROFILE:-fast}" != fast ]; then echo "$2"; else echo "$1"; fi; }
GS_NETNS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GS_MCAST4_ROUTE=224.0.0.0/4

gs_addr4_of() { local n=$(( $1 + 1 )); echo "198.18.$(( n / 256 )).$(( n % 256 ))"; }
gs_addr6_of() { printf '2001:2::%x\n' $(( $1 + 1 )); }

gs_ids() { awk '{print $2}' "$GS_STATE"; }
gs_field() { awk -v id="$1" -v f="$2" '$2 == id {print $f}' "$GS_STATE"; }
gs_ns() { gs_field "$1" 3; }
gs_addr4() { gs_field "$1" 4; }
gs_addr6() { gs_field "$1" 5; }
gs_exec() { local ns; ns=$(gs_ns "$1"); shift; ip netns exec "$ns" "$@"; }

gs_wan() { ip -n gs-wan "$@"; }

# gs_add_island INDEX ID EGRESS_MBIT INGRESS_MBIT (0 = uncapped)
# What one source is assured of an island's download (the rest it borrows
# from the island's cap, in turn with the other sources).
GS_CHILD_RATE=64kbit
gs_add_island() {
	local k=$1 id=$2 up=$3 down=$4 ns=gs-$2 port=p$1
	local a4 a6
	a4=$(gs_addr4_of "$k")
	a6=$(gs_addr6_of "$k")
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	ip link add eth0 netns "$ns" type veth peer name "$port" netns gs-wan
	ip -n "$ns" addr add "$a4/15" dev eth0
	ip -n "$ns" link set eth0 addrgenmode none
	ip -n "$ns" addr add "fe80::$(printf %x $(( k + 1 )))/64" dev eth0 nodad
	ip -n "$ns" addr add "$a6/64" dev eth0 nodad
	ip -n "$ns" link set eth0 up
	ip -n "$ns" route add "$GS_MCAST4_ROUTE" dev eth0
	gs_wan link set "$port" master br0
	gs_wan link set "$port" up
	if [ "$up" != 0 ]; then
		tc -n "$ns" qdisc add dev eth0 root tbf rate "${up}mbit" \
			burst 64kb latency 1s
	fi
	local cap=$down
	[ "$cap" != 0 ] || cap=10000
	# The download: class 1:1 holds the cap, and what arrives from each
	# source (gs_set_pair) or from none (1:2) is a child that is assured
	# next to nothing and borrows the rest from 1:1. A child assured the
	# whole cap would pass that much whatever its siblings send, and N
	# sources would get N times the cap through.
	tc -n gs-wan qdisc add dev "$port" root handle 1: htb default 2
	tc -n gs-wan class add dev "$port" parent 1: classid 1:1 htb \
		rate "${cap}mbit" burst 64kb quantum 60000
	tc -n gs-wan class add dev "$port" parent 1:1 classid 1:2 htb \
		rate "$GS_CHILD_RATE" ceil "${cap}mbit" burst 64kb quantum 60000
	echo "$k $id $ns $a4 $a6" >> "$GS_STATE"
}

# gs_set_pair SRC_INDEX DST_INDEX DELAY_MS LOSS_PCT: what DST receives from SRC.
gs_set_pair() {
	local s=$1 d=$2 ms=$3 loss=$4 port=p$2 cls cap
	cls=$(printf '%x' $(( s + 16 )))
	cap=$(tc -n gs-wan class show dev "$port" classid 1:1 | sed -n 's/.* rate \([^ ]*\) .*/\1/p')
	tc -n gs-wan class add dev "$port" parent 1:1 classid "1:$cls" htb \
		rate "$GS_CHILD_RATE" ceil "${cap:-10Gbit}" burst 64kb quantum 60000
	local netem=(netem limit 100000)
	[ "$ms" = 0 ] || netem+=(delay "${ms}ms")
	[ "$loss" = 0 ] || netem+=(loss "${loss}%")
	tc -n gs-wan qdisc add dev "$port" parent "1:$cls" handle "$cls:" "${netem[@]}"
	tc -n gs-wan filter add dev "$port" parent 1: protocol ip prio 1 u32 \
		match ip src "$(gs_addr4_of "$s")/32" flowid "1:$cls"
	tc -n gs-wan filter add dev "$port" parent 1: protocol ipv6 prio 2 u32 \
		match ip6 src "$(gs_addr6_of "$s")/128" flowid "1:$cls"
}

gs_wan_up() {
	gs_islands_down
	mkdir -p "$(dirname "$GS_STATE")"
	: > "$GS_STATE"
	ip netns add gs-wan
	gs_wan link set lo up
	# Queries of IGMPv3 and MLDv2 keep the islands on those versions, whose
	# join reports go out at once (v2 and MLDv1 delay them up to 1 and 10 s,
	# and the bridge would not deliver a joined group in the meantime).
	gs_wan link add br0 type bridge forward_delay 0 mcast_snooping 1 \
		mcast_igmp_version 3 mcast_mld_version 2 \
		mcast_query_response_interval 10
	# After the interval above: the querier's start-up delay is the
	# response interval in force when it is enabled.
	gs_wan link set br0 type bridge mcast_querier 1
	gs_wan link set br0 addrgenmode none
	gs_wan addr add fe80::ffff/64 dev br0 nodad
	gs_wan link set br0 up
}

gs_islands_up() {
	local n=$1 k
	gs_wan_up
	for (( k = 0; k < n; k++ )); do
		gs_add_island "$k" "i$k" 0 0
	done
}

gs_topology_up() {
	local file=$1 plan kind a b c d e
	shift
	plan=$(python3 "$GS_NETNS_DIR/topo.py" "$file" "$@") || return 1
	gs_wan_up
	declare -A delay=() loss=()
	while read -r kind a b c d; do
		case "$kind" in
		island) gs_add_island "$a" "$b" "$c" "$d" ;;
		delay) delay[$a,$b]=$c ;;
		loss) loss[$a,$b]=$c ;;
		esac
	done <<< "$plan"
	for e in "${!delay[@]}"; do
		gs_set_pair "${e%,*}" "${e#*,}" "${delay[$e]}" "${loss[$e]:-0}"
	done
}

gs_islands_down() {
	local ns pids
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		case "$ns" in
		gs-*)
			# Processes a test left behind would hold sockets open.
			pids=$(ip netns pids "$ns" 2>/dev/null)
			[ -z "$pids" ] || kill -9 $pids 2>/dev/null
			ip netns del "$ns"
			;;
		esac
	done
	rm -f "$GS_STATE"
}

# ---- TAP helpers for test scripts -------------------------------------------
# Each test prints "ok - <desc>" or "not ok - <desc>"; tests/netns/run numbers
# nothing and counts lines, so a script may report any number of checks.
GS_FAILED=0
gs_ok() {
	local desc=$1
	shift
	if "$@"; then
		echo "ok - $desc"
	else
		echo "not ok - $desc"
		GS_FAILED=1
	fi
}
gs_pass() { echo "ok - $1"; }
gs_fail() { echo "not ok - $1"; GS_FAILED=1; }
gs_diag() { sed 's/^/# /'; }

# gs_stats_sum DIR NAME: counter NAME of the "# stats" lines of every rank
# of a gs_group run in DIR, summed (0 when no rank printed it). The whole
# name: retransmits is not mcast_retransmits, a part of it.
gs_stats_sum() {
	cat "$1"/rank* | grep '^# stats' | tr ' ' '\n' |
		awk -F= -v k="$2" '$1 == k { n += $2 } END { print n + 0 }'
}

# gs_proc_sum ID COLUMN: COLUMN of /proc/net/gsync summed over the island's
# open sockets (0 when none is open).
gs_proc_sum() {
	gs_exec "$1" awk -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ n += $c[col] } END { print n + 0 }' /proc/net/gsync
}

# gs_until SECONDS CMD...: run CMD every 0.1 s until it succeeds (status 0)
# or SECONDS pass (status 1). A poll of a condition, not a sleep standing in
# for one.
gs_until() {
	local end=$(( SECONDS + $1 ))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		read -rt 0.1 <> <(:) || true
	done
}

# gs_hold ID N: open N AF_GSYNC sockets in island ID from a background
# process; sets GS_HOLD_PID once they are open (it waits for the holder's
# "ready" line on a fifo, so no polling). gs_unhold PID... closes them and
# returns non-zero if a holder did not exit cleanly.
gs_hold() {
	local dir line
	dir=$(mktemp -d)
	mkfifo "$dir/out"
	# Not through gs_exec: a function in the background would be a
	# subshell, and its pid not the holder's.
	ip netns exec "$(gs_ns "$1")" python3 tests/netns/gsock.py hold "$2" > "$dir/out" &
	GS_HOLD_PID=$!
	read -r line < "$dir/out"
	rm -rf "$dir"
	[ "$line" = ready ]
}
gs_unhold() {
	local p rc=0
	kill "$@" 2>/dev/null
	for p in "$@"; do
		wait "$p" || rc=1
	done
	return $rc
}

# gs_kmsg_mark: put a unique marker in the kernel log and print it;
# gs_kmsg_since MARK prints the kernel log after that marker.
gs_kmsg_mark() {
	local m="gsync-test-mark-$RANDOM$RANDOM"
	echo "$m" > /dev/kmsg
	echo "$m"
}
gs_kmsg_since() { dmesg | sed -n "/$1/,\$p"; }

# ---- AF_GSYNC groups ----------------------------------------------------------
# gs_members FAMILY PORT [ID...]: "addr:port,..." of the islands (all by
# default) in rank order, for gsync_py.py --members.
gs_members() {
	local fam=$1 port=$2 id out=
	shift 2
	[ $# -gt 0 ] || set -- $(gs_ids)
	for id in "$@"; do
		if [ "$fam" = 6 ]; then
			out+="[$(gs_addr6 "$id")]:$port,"
		else
			out+="$(gs_addr4 "$id"):$port,"
		fi
	done
	echo "${out%,}"
}

# gs_impair NETEM-ARGS...: apply netem (loss, reordering, duplication) to
# every island's download on top of the per-pair classes of gs_islands_up.
gs_impair() {
	local port
	for port in $(ip -n gs-wan -o link show | sed -n 's/^[0-9]*: \(p[0-9]*\)@.*/\1/p'); do
		tc -n gs-wan qdisc replace dev "$port" parent 1:2 handle 2: netem limit 100000 "$@" ||
			return 1
	done
}

# gs_mdb_wait N ARGS...: wait (up to 10 s) until the bridge forwards the
# group of the gsync_py.py arguments ARGS (--mcast ADDR:PORT) to N islands.
# No --mcast: nothing to wait for.
gs_mdb_wait() {
	local n=$1 addr=
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		--mcast) addr=${2:-}; shift ;;
		--mcast=*) addr=${1#--mcast=} ;;
		esac
		shift
	done
	[ -n "$addr" ] || return 0
	addr=${addr%:*}
	addr=${addr#[}
	addr=${addr%]}
	gs_until 10 gs_mdb_has "$addr" "$n"
}
# gs_mdb_has GROUP N: the bridge forwards GROUP to at least N ports.
gs_mdb_has() {
	local ports
	ports=$(bridge -n gs-wan mdb show dev br0 | awk -v g="$1" '
		{ p = ""; hit = 0
		  for (i = 1; i < NF; i++) {
			if ($i == "port") p = $(i + 1)
			if ($i == "grp" && $(i + 1) == g) hit = 1
		  }
		  if (hit && p != "" && !seen[p]++) n++ }
		END { print n + 0 }')
	[ "$ports" -ge "$2" ]
}

# gs_group OUTDIR ARGS...: run gsync_py.py as every island's rank (rank =
# island order) with ARGS, wait for all, print one TAP line per rank, and a
# line saying whether all ranks computed the same bits. Per-rank extra
# arguments can be given in the array GS_RANK_ARGS[rank].
# The ranks start their first operation together, once every one has
# joined, as a job does after its launcher's rendezvous: gsync's JOIN is
# no rendezvous, and op_timeout_ms must exceed the skew between ranks'
# submissions (docs/transport.md), while starting Python processes skews
# them by seconds on the debug kernel.
gs_group() {
	local out=$1 desc=$2 r=0 id pids=() rc ok=0 line fd
	local -a rfd=() gfd=()
	shift 2
	mkdir -p "$out"
	for id in $(gs_ids); do
		rm -f "$out/ready$r" "$out/go$r"
		mkfifo "$out/ready$r" "$out/go$r"
		# Held read-write by us: neither side's open blocks.
		exec {fd}<>"$out/ready$r"
		rfd[r]=$fd
		exec {fd}<>"$out/go$r"
		gfd[r]=$fd
		# shellcheck disable=SC2086
		gs_exec "$id" python3 tests/netns/gsync_py.py run --rank "$r" "$@" \
			--ready-fifo "$out/ready$r" --go-fifo "$out/go$r" \
			${GS_RANK_ARGS[$r]:-} > "$out/rank$r" 2>&1 &
		pids+=($!)
		r=$(( r + 1 ))
	done
	# Every rank joined (or died trying: then the others time out).
	for r in "${!pids[@]}"; do
		until read -r -t 5 -u "${rfd[r]}" line; do
			kill -0 "${pids[r]}" 2>/dev/null || break
		done
	done
	# ... and the WAN delivers the group's packets to every island. A JOIN
	# returns once the island has joined; the bridge learns of it from the
	# island's IGMP/MLD report a moment later, and what is sent to the group
	# meanwhile does not reach that island. gsync repairs that, but a test
	# counting repairs at zero loss would count it (seen in CI: the first
	# 70 chunks of a stream missing at the last rank to join).
	gs_mdb_wait "${#pids[@]}" "$@" ||
		echo "# gs_group: the WAN bridge did not learn every island's join in 10 s"
	for r in "${!pids[@]}"; do
		echo go >&"${gfd[r]}"
	done
	for r in "${!pids[@]}"; do
		wait "${pids[r]}"
		rc=$?
		fd=${rfd[r]}; exec {fd}>&-
		fd=${gfd[r]}; exec {fd}>&-
		if [ "$rc" = 0 ]; then
			echo "ok - $desc: rank $r"
		else
			echo "not ok - $desc: rank $r (exit $rc)"
			grep -v '^# .*status 0$' "$out/rank$r" | head -n 15 | sed 's/^/# /'
			ok=1
		fi
	done
	if [ "$(cat "$out"/rank* | grep '^digest' | sort -u | wc -l)" = 1 ]; then
		echo "ok - $desc: every rank holds the same bits"
	else
		echo "not ok - $desc: ranks disagree on the result bits"
		ok=1
	fi
	[ "$ok" = 0 ] || GS_FAILED=1
	return $ok
}

# gs_sched_nine DIR: nine islands 5 ms apart, and in DIR the schedule blobs
# the schedule tests share: grid-rs (unicast rows, reduce-scatter columns,
# all to the group's address), grid-agg (multicast rows, aggregator
# columns, a multicast group per clique), one (one clique).
# gs_no_foreign DIR: no rank of the gs_group run in DIR counted a packet of
# a clique it is not in (its stats line lists only counters that are not 0).
gs_no_foreign() {
	! grep -H 'drop_clique=' "$1"/rank* | gs_diag | grep .
}

gs_sched_nine() {
	local dir=$1 mk="python3 $GS_NETNS_DIR/gsched.py"
	gs_islands_up 9
	gs_impair delay 5ms 1ms
	$mk grid 3 3 --row-pattern unicast --col-pattern rs_multicast --block 16384 -o "$dir/grid-rs" &&
	$mk grid 3 3 --row-pattern multicast --col-pattern aggregator --block 16384 \
		--clique-groups -o "$dir/grid-agg" &&
	$mk clique 9 --pattern multicast --block 65536 -o "$dir/one"
}
