#!/bin/sh
# test_install.sh - `make install PREFIX=...` into a scratch prefix, then
# build a consumer with pkg-config against it (shared and static) and run
# it. TAP. usage: test_install.sh MAKE
MAKE=${1:-make}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
P=$TMP/prefix
n=0
fail=0
t() { # t DESCRIPTION CMD...
	desc=$1; shift
	n=$((n + 1))
	if "$@" >"$TMP/log" 2>&1; then echo "ok $n - install: $desc"
	else echo "not ok $n - install: $desc"; sed 's/^/# /' "$TMP/log" | tail -5; fail=1; fi
}
t "make install PREFIX=<tmp>" $MAKE --no-print-directory install PREFIX="$P"
t "headers installed (gsync.h, gsync_uring.h, linux/gsync.h, linux/gsync_wire.h)" \
	test -f "$P/include/gsync.h" -a -f "$P/include/gsync_uring.h" -a -f "$P/include/linux/gsync.h" \
	-a -f "$P/include/linux/gsync_wire.h"
t "libraries installed (.a, .so with soname link)" \
	test -f "$P/lib/libgsync.a" -a -L "$P/lib/libgsync.so" -a -L "$P/lib/libgsync.so.0"
t "gsync.pc names the install prefix" grep -qx "prefix=$P" "$P/lib/pkgconfig/gsync.pc"
t "gsync-uring.pc names the install prefix" grep -qx "prefix=$P" "$P/lib/pkgconfig/gsync-uring.pc"
cat > "$TMP/consumer.c" <<'C'
#include <gsync.h>
#include <linux/gsync_wire.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	struct gsync_addr a;
	char buf[GSYNC_ADDRSTRLEN];

	if (gsync_addr_parse("[2001:2::1]:7000", &a) || gsync_addr_format(&a, buf, sizeof(buf)) < 0)
		return 1;
	if (sizeof(struct gsync_wire_hdr) != GSYNC_WIRE_HDR_LEN)
		return 2;
	/* libcrypto: linked statically only if gsync.pc names it */
	{
		static const uint8_t zero[GSYNC_KEY_LEN];

		if (gsync_key_fingerprint(zero) != 0x09b3516f8cfa9e74ULL)
			return 3;
	}
	puts(buf);
	return strcmp(buf, "[2001:2::1]:7000") != 0;
}
C
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
t "a consumer builds with pkg-config --cflags --libs gsync" \
	sh -c "cc -std=c11 -Wall -Werror \$(pkg-config --cflags gsync) -o '$TMP/c-shared' '$TMP/consumer.c' \$(pkg-config --libs gsync)"
t "the shared consumer runs" env LD_LIBRARY_PATH="$P/lib" "$TMP/c-shared"
t "a consumer (of the key helpers too) links statically with pkg-config --static" \
	sh -c "cc -std=c11 \$(pkg-config --cflags gsync) -o '$TMP/c-static' '$TMP/consumer.c' '$P/lib/libgsync.a' \$(pkg-config --static --libs-only-l gsync | sed 's/-lgsync//')"
t "the static consumer runs" "$TMP/c-static"

# gsync.h must not drag liburing into programs that do not use it.
printf '#include <gsync.h>\n' > "$TMP/plain.c"
t "gsync.h does not include liburing" \
	sh -c "cc -E \$(pkg-config --cflags gsync) '$TMP/plain.c' > '$TMP/plain.i' && ! grep -q 'io_uring' '$TMP/plain.i'"
# A program with its own ring: gsync_uring.h and pkg-config gsync-uring.
cat > "$TMP/uring.c" <<'C'
#include <gsync_uring.h>
int main(void)
{
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct gsync_op_req req;
	float buf[4] = { 0 };

	if (io_uring_queue_init(4, &ring, 0))
		return 0;	/* no io_uring here: linking was the point */
	sqe = io_uring_get_sqe(&ring);
	if (gsync_prep_allreduce(sqe, 0, &req, 1, buf, buf, sizeof(buf),
				 GSYNC_DTYPE_FP32, GSYNC_OP_SUM) || sqe->opcode != IORING_OP_SENDMSG)
		return 1;
	io_uring_queue_exit(&ring);
	return 0;
}
C
t "a consumer of gsync_uring.h builds with pkg-config --cflags --libs gsync-uring" \
	sh -c "cc -std=c11 -Wall -Werror \$(pkg-config --cflags gsync-uring) -o '$TMP/u-shared' '$TMP/uring.c' \$(pkg-config --libs gsync-uring)"
t "the gsync_uring.h consumer runs" env LD_LIBRARY_PATH="$P/lib" "$TMP/u-shared"
exit $fail
