# Sourced by t-spoof.sh and t-keyed.sh (after lib.sh): the two ranks of
# spoof.py, each driven through a pair of FIFOs under $tmp.
#
#   spoof_pair_start GROUP MEMBERS [KEY]   ranks 0 (island i0) and 1 (i1),
#                                          keyed if KEY (MODE:EPOCH:HEX);
#                                          $p0 and $p1 their pids, their
#                                          stdin/stdout on fds 3,4 and 5,6
#   ask RANK CMD...                        one command, its answer in $ans
#   expect RANK WANT DESC CMD...           ask, and check the answer
#   val RANK NAME                          a GSYNC_STATS counter
spoof_pair_start() {
	local grp=$1 members=$2 r
	shift 2
	mkfifo "$tmp/in0" "$tmp/out0" "$tmp/in1" "$tmp/out1"
	for r in 0 1; do
		gs_exec "i$r" python3 tests/netns/spoof.py rank "$r" "$grp" "$members" "$@" \
			< "$tmp/in$r" > "$tmp/out$r" 2>&1 &
		eval "p$r=\$!"
	done
	exec 3> "$tmp/in0" 4< "$tmp/out0" 5> "$tmp/in1" 6< "$tmp/out1"
}
ans=
ask() {
	local r=$1
	shift
	echo "$*" >&$(( 3 + 2 * r ))
	read -r ans <&$(( 4 + 2 * r )) || ans=EOF
}
expect() {
	local r=$1 want=$2 desc=$3
	shift 3
	ask "$r" "$@"
	gs_ok "$desc ($ans)" test "$ans" = "$want"
}
val() { ask "$1" get "$2"; echo "${ans#* }"; }
