# shellcheck shell=bash
# Shared settings for the VM harness scripts (sourced, not run).
#
# GSYNC_CACHE      where extracted kernel sources and kernel builds live
#                  (default /var/cache/gsync; kept outside the repo so clean
#                  clones and CI on the same machine reuse it)
# VM_PROFILE       fast (default), debug (KASAN, lockdep, kmemleak, UBSAN)
#                  or kcsan (the data-race detector)
# KERNEL_TARBALL   kernel source tarball (default: Debian's linux-source-6.12)

GSYNC_CACHE=${GSYNC_CACHE:-/var/cache/gsync}
VM_PROFILE=${VM_PROFILE:-fast}
KERNEL_TARBALL=${KERNEL_TARBALL:-$(ls /usr/src/linux-source-6.12.tar.xz 2>/dev/null | tail -n 1)}
VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$VM_DIR/../.." && pwd)

vm_die() { echo "tests/vm: $*" >&2; exit 1; }

vm_check_profile() {
	case "$VM_PROFILE" in
	fast|debug|kcsan) ;;
	*) vm_die "unknown VM_PROFILE '$VM_PROFILE' (use fast, debug or kcsan)" ;;
	esac
}

# The fragments that make up a profile, in the order they are applied.
vm_fragments() {
	echo "$VM_DIR/config/base.config"
	echo "$VM_DIR/config/$VM_PROFILE.config"
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
