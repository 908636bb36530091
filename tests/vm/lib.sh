# shellcheck shell=bash
# Shared settings for the VM harness scripts (sourced, not run).
#
# GSYNC_CACHE      where extracted kernel sources and kernel builds live
#                  (default /var/cache/gsync; kept outside the repo so clean
#                  clones and CI on the same machine reuse it)
# VM_PROFILE       fast (default), debug (KASAN, lockdep, kmemleak, UBSAN)
#                  or kcsan (the data-race detector): QEMU x86-64, 2 vCPUs;
#                  uml: User-Mode Linux, one CPU, no emulation of
#                  instructions, the host's root over hostfs (tests/vm/run)
# KERNEL_TARBALL   kernel source tarball (default: Debian's linux-source-6.12)

GSYNC_CACHE=${GSYNC_CACHE:-/var/cache/gsync}
VM_PROFILE=${VM_PROFILE:-fast}
KERNEL_TARBALL=${KERNEL_TARBALL:-$(ls /usr/src/linux-source-6.12.tar.xz 2>/dev/null | tail -n 1)}
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$VM_DIR/../.." && pwd)

vm_die() { echo "tests/vm: $*" >&2; exit 1; }

vm_check_profile() {
	case "$VM_PROFILE" in
	fast|debug|kcsan|uml) ;;
	*) vm_die "unknown VM_PROFILE '$VM_PROFILE' (use fast, debug, kcsan or uml)" ;;
	esac
}

# The machine a profile runs on: qemu or uml.
vm_machine() {
	case "$VM_PROFILE" in uml) echo uml ;; *) echo qemu ;; esac
}

# make's architecture arguments for the profile's kernel.
vm_arch_args() {
	case "$(vm_machine)" in uml) echo ARCH=um SUBARCH=x86_64 ;; esac
}

# The fragments that make up a profile, in the order they are applied.
vm_fragments() {
	echo "$VM_DIR/config/base.config"
	echo "$VM_DIR/config/$(vm_machine).config"
	[ "$VM_PROFILE" = uml ] || echo "$VM_DIR/config/$VM_PROFILE.config"
}

# Build directory for the current profile: keyed by the source tarball's
# identity and a hash of the config fragments, so any change to either gives
# a new directory and an unchanged kernel is never rebuilt.
vm_kbuild_dir() {
	local srcid cfghash
	[ -n "$KERNEL_TARBALL" ] || vm_die "no kernel source tarball (apt-get install linux-source-6.12)"
	srcid=$(basename "$KERNEL_TARBALL" .tar.xz)-$(stat -c %s "$KERNEL_TARBALL")
	cfghash=$(cat $(vm_fragments) | sha256sum | cut -c1-12)
	echo "$GSYNC_CACHE/kbuild/$srcid-$VM_PROFILE-$cfghash"
}

vm_ksrc_dir() {
	echo "$GSYNC_CACHE/src/$(basename "$KERNEL_TARBALL" .tar.xz)-$(stat -c %s "$KERNEL_TARBALL")"
}

# UML maps each guest page it touches into its host process, one mapping
# each: raise vm.max_map_count while any UML run lasts, put back the value
# found by the first when the last ends (a count of runs under a lock).
VM_MAP_COUNT_MIN=1048576
vm_map_count_raise() {
	local st=$GSYNC_CACHE/uml-map-count n old
	mkdir -p "$GSYNC_CACHE"
	(
		flock 9
		n=0 old=
		[ ! -f "$st" ] || read -r n old < "$st"
		if [ "$n" = 0 ]; then
			old=$(sysctl -n vm.max_map_count)
			[ "$old" -ge "$VM_MAP_COUNT_MIN" ] ||
				sysctl -qw vm.max_map_count="$VM_MAP_COUNT_MIN" ||
				echo "tests/vm: cannot raise vm.max_map_count to $VM_MAP_COUNT_MIN (large operations may fail)" >&2
		fi
		echo "$(( n + 1 )) $old" > "$st"
	) 9> "$st.lock"
}
vm_map_count_restore() {
	local st=$GSYNC_CACHE/uml-map-count n old
	(
		flock 9
		[ -f "$st" ] && read -r n old < "$st" || exit 0
		if [ "$n" -le 1 ]; then
			[ -z "$old" ] || sysctl -qw vm.max_map_count="$old"
			rm -f "$st"
		else
			echo "$(( n - 1 )) $old" > "$st"
		fi
	) 9> "$st.lock"
}
