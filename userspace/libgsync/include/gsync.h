/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libgsync: user-space access to AF_GSYNC all-reduce sockets.
 *
 * The kernel ABI is <linux/gsync.h> (installed next to this header); this
 * library wraps it so training code does not have to hand-build the
 * GSYNC_JOIN blob or the control messages, and adds an asynchronous path
 * over io_uring (liburing).
 *
 * Error convention (every function unless its comment says otherwise):
 *   - returns 0, or a non-negative count/length/descriptor, on success;
 *   - returns a negative errno value (-EINVAL, -ENOMEM, ...) on failure;
 *   - never prints, never exits, never raises signals; errno is not
 *     meaningful after a call.
 * gsync_strerror() turns any of these codes (or an operation status, which
 * is a positive errno) into text.
 *
 * Thread safety: functions without a ring are thread-safe. A struct
 * gsync_ring must be used by one thread at a time.
 *
 * Sequence numbers: every operation carries a sequence number. The first
 * operation of a socket has seq 1 and each next one seq + 1; every rank
 * submits the same operations in the same order. gsync_get_info() reports
 * the seq the kernel expects next.
 */
#ifndef LIBGSYNC_GSYNC_H
#define LIBGSYNC_GSYNC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <linux/gsync.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBGSYNC_VERSION_MAJOR 0
#define LIBGSYNC_VERSION_MINOR 2

/* ---- module and socket ---------------------------------------------------- */

/*
 * The address family number the loaded module registered, read from
 * GSYNC_FAMILY_PATH. Returns the number (> 0), or:
 *   -ENOENT  the module is not loaded (the sysfs file does not exist)
 *   -EACCES  the file is not readable
 *   -EINVAL  the file does not hold a plain decimal number in 1..1023
 * The value is read on every call (the module may be reloaded with another
 * family=), so callers that open many sockets should keep it.
 */
int gsync_family(void);

/* As gsync_family(), reading PATH instead (for tests and chroots). */
int gsync_family_at(const char *path);

/*
 * A sentence explaining an error of gsync_family()/gsync_socket() to a user,
 * e.g. for -ENOENT "the gsync kernel module is not loaded (...)". Never NULL.
 */
const char *gsync_family_error(int err);

/*
 * socket(gsync_family(), SOCK_SEQPACKET | flags, 0). FLAGS may contain
 * SOCK_NONBLOCK and SOCK_CLOEXEC. Returns the descriptor or -errno;
 * -EAFNOSUPPORT means the family is not registered (module just unloaded).
 */
int gsync_socket(int flags);

/* ---- addresses ------------------------------------------------------------ */

/* Longest string gsync_addr_format() writes, with its NUL. */
#define GSYNC_ADDRSTRLEN 72

/*
 * Parse "A.B.C.D:PORT", "[IPV6]:PORT" or "[IPV6%SCOPE]:PORT" (SCOPE an
 * interface name or index) into *out, network byte order. PORT is decimal,
 * 1..65535. Nothing else is accepted: no host names, no missing port, no
 * surrounding blanks. Returns 0, -EINVAL on malformed input, -ENODEV when
 * SCOPE names no interface. *out is zeroed first and untouched on error
 * beyond that.
 */
int gsync_addr_parse(const char *s, struct gsync_addr *out);

/*
 * Parse a comma-separated list of addresses ("a:1,b:2") into out[0..max-1].
 * Returns the count, -EINVAL on a malformed entry or empty list, -E2BIG if
 * there are more than MAX entries.
 */
int gsync_addr_parse_list(const char *list, struct gsync_addr *out,
			  unsigned int max);

/*
 * Format *a as gsync_addr_parse() accepts it (scope as a number). Returns
 * the string length, -EINVAL for an unknown family, -ENOSPC if BUF (LEN
 * bytes) is too small; BUF is always NUL-terminated when LEN > 0.
 */
int gsync_addr_format(const struct gsync_addr *a, char *buf, size_t len);

/* 1 if *a is a multicast address, 0 if not (or an unknown family). */
int gsync_addr_is_multicast(const struct gsync_addr *a);

/* ---- group configuration (GSYNC_JOIN) ----------------------------------- */

/*
 * Everything GSYNC_JOIN takes, in host types. Zero means "kernel default"
 * for the tunables, as in struct gsync_join. gsync_config_init() fills the
 * defaults; set at least group_id, rank, nranks, members and (unless
 * GSYNC_JOIN_UNICAST) mcast.
 */
struct gsync_config {
	uint64_t group_id;
	unsigned int rank;
	unsigned int nranks;		/* 2..GSYNC_MAX_RANKS */
	const struct gsync_addr *members;	/* nranks entries, rank order;
						 * borrowed, not copied */
	struct gsync_addr mcast;	/* must be all zero with UNICAST */
	uint32_t flags;			/* GSYNC_JOIN_* */
	unsigned int ifindex;		/* 0 = by route */
	unsigned int ttl;		/* 0..255, 0 = 1 */
	unsigned int mtu;		/* 0 or 576..65535 */
	unsigned int window;		/* 0 or 1..GSYNC_MAX_WINDOW */
	uint32_t max_op_bytes;		/* 0 or 1..GSYNC_MAX_OP_BYTES */
	uint32_t op_timeout_ms;		/* 0 or 10..3600000 */
	uint32_t repair_ms;		/* 0 or 1..op_timeout_ms (effective) */
	uint64_t pacing_rate;		/* bytes/s, 0 = adaptive */
};

void gsync_config_init(struct gsync_config *cfg);

/*
 * Check *cfg against the rules <linux/gsync.h> documents for GSYNC_JOIN,
 * returning the errno the kernel would: -ERANGE for nranks outside
 * 2..GSYNC_MAX_RANKS, -EINVAL for everything else (rank >= nranks, unknown
 * flags, a member that is multicast/unspecified/port 0, members or the
 * multicast group of different families, duplicate member endpoints, a
 * tunable out of range, a non-zero mcast with UNICAST). The kernel checks
 * again; this only gives earlier, identical errors.
 */
int gsync_config_validate(const struct gsync_config *cfg);

/* Bytes of the GSYNC_JOIN option value for NRANKS members. */
size_t gsync_join_size(unsigned int nranks);

/*
 * Validate *cfg and write the GSYNC_JOIN option value into BUF (LEN bytes).
 * Returns the number of bytes written, a validation error, or -ENOSPC.
 */
int gsync_join_build(const struct gsync_config *cfg, void *buf, size_t len);

/* Validate, build and setsockopt(fd, SOL_GSYNC, GSYNC_JOIN). */
int gsync_join(int fd, const struct gsync_config *cfg);

/* ---- names ------------------------------------------------------------------ */

/* "fp32", "bf16", "fp16", "int32" / "sum", "avg", "min", "max"; "?" if unknown. */
const char *gsync_dtype_name(unsigned int dtype);
const char *gsync_op_name(unsigned int op);
/* Inverse of the above; -EINVAL for an unknown name. */
int gsync_dtype_parse(const char *name);
int gsync_op_parse(const char *name);
/* Element size in bytes, 0 for an unknown dtype. */
size_t gsync_dtype_size(unsigned int dtype);
/* "short", "version", ... for enum gsync_drop_reason; "?" if unknown. */
const char *gsync_drop_reason_name(unsigned int reason);
/* "none", "auth", "encrypt" for enum gsync_key_mode; "?" if unknown. */
const char *gsync_key_mode_name(unsigned int mode);
/* Inverse of the above (all three names); -EINVAL for an unknown name. */
int gsync_key_mode_parse(const char *name);

/*
 * Text for an error code or an operation status; ERR may be negative
 * (library return value) or positive (GSYNC_CMSG_RESULT status). For the
 * statuses the kernel documents (ETIMEDOUT, EPROTO, ECONNABORTED) and for
 * the library's own EBADMSG the text says what it means for an all-reduce;
 * others fall back to strerror(). Never NULL; the string is static.
 */
const char *gsync_strerror(int err);

/* ---- control messages --------------------------------------------------- */

/* Control buffer sizes for one GSYNC_CMSG_OP / GSYNC_CMSG_RESULT. */
#define GSYNC_OP_CMSG_SPACE	CMSG_SPACE(sizeof(struct gsync_op_desc))
#define GSYNC_RESULT_CMSG_SPACE	CMSG_SPACE(sizeof(struct gsync_op_result))

/*
 * Write one GSYNC_CMSG_OP control message into msg->msg_control, which
 * must hold msg->msg_controllen >= GSYNC_OP_CMSG_SPACE bytes, and set
 * msg_controllen to what was used. Returns 0, -EINVAL for an unknown dtype
 * or op or seq 0, -ENOSPC if the buffer is too small.
 */
int gsync_cmsg_put_op(struct msghdr *msg, uint64_t seq, unsigned int dtype,
		      unsigned int op);

/*
 * Find the GSYNC_CMSG_RESULT of a received message. Every control message
 * is bounds-checked against msg_controllen, so a corrupt buffer is an
 * error, never an out-of-bounds read. Returns 0 and fills *res, or
 *   -EMSGSIZE  MSG_CTRUNC is set in msg->msg_flags (control buffer too small)
 *   -ENOMSG    no GSYNC_CMSG_RESULT present
 *   -EBADMSG   a malformed control message, a result of the wrong size,
 *              or more than one result
 */
int gsync_cmsg_get_result(const struct msghdr *msg,
			  struct gsync_op_result *res);

/* ---- blocking operations ------------------------------------------------ */

/*
 * Submit this rank's contribution to operation SEQ: one sendmsg() with a
 * GSYNC_CMSG_OP. LEN must be a multiple of the dtype's size. FLAGS go to
 * sendmsg() (MSG_DONTWAIT). Retries on EINTR. Returns 0 or -errno (the
 * kernel's: EINVAL, EMSGSIZE, ENOTCONN, EAGAIN ...).
 */
int gsync_send_op(int fd, uint64_t seq, const void *buf, size_t len,
		  unsigned int dtype, unsigned int op, int flags);

/*
 * Receive the result of the oldest finished operation into BUF (LEN bytes):
 * one recvmsg() with room for GSYNC_CMSG_RESULT; *res gets the kernel's
 * result (seq, status, len). Retries on EINTR. Returns 0 when a result was
 * received (check res->status), -EMSGSIZE if BUF was too small for the
 * reduced buffer (res is filled, the data is truncated), -EBADMSG/-ENOMSG
 * if the message had no valid result, or recvmsg()'s -errno (EAGAIN with
 * MSG_DONTWAIT or SO_RCVTIMEO).
 */
int gsync_recv_result(int fd, void *buf, size_t len,
		      struct gsync_op_result *res, int flags);

/*
 * One all-reduce on a blocking socket: gsync_send_op() then
 * gsync_recv_result(). sendbuf may equal recvbuf (the kernel copies the
 * contribution during sendmsg). Do not mix with gsync_ring requests in
 * flight on the same socket: results come back oldest first.
 *
 * Returns 0 when the operation finished; *status is then 0 (recvbuf holds
 * the result) or the positive errno it failed with (ETIMEDOUT, EPROTO,
 * ECONNABORTED). Returns -errno when the call failed; *status is then set
 * to the positive errno too, so `if (rc || status)` catches both. If
 * STATUS is NULL a failed operation is returned as -status instead.
 * -EAGAIN after a successful send (SO_RCVTIMEO expired) means the
 * operation is still in flight: fetch it with gsync_recv_result().
 * -EBADMSG: the result was for another seq or of another length.
 */
int gsync_allreduce(int fd, uint64_t seq, const void *sendbuf, void *recvbuf,
		    size_t len, unsigned int dtype, unsigned int op,
		    int *status);

/* ---- socket options ---------------------------------------------------- */

/*
 * getsockopt(GSYNC_INFO / GSYNC_STATS). A kernel returning a shorter
 * struct (an older module) leaves the missing tail zeroed.
 */
int gsync_get_info(int fd, struct gsync_info *info);
int gsync_get_stats(int fd, struct gsync_stats *stats);
int gsync_set_pacing_rate(int fd, uint64_t bytes_per_sec);
int gsync_get_pacing_rate(int fd, uint64_t *bytes_per_sec);

/* ---- keyed groups --------------------------------------------------------- */

/*
 * A keyed group (GSYNC_KEY, see <linux/gsync.h> and docs/security.md)
 * seals every packet under keys derived from a 32-byte group secret that
 * every rank holds. The secret travels out of band, e.g. as a key file
 * handed to every island: GSYNC_KEY_B64_LEN characters of base64 and a
 * newline, as WireGuard's key files (wg genkey). Functions taking a secret
 * never keep it; those that copy it erase their copies (explicit_bzero)
 * before they return. Erasing the caller's own is the caller's business.
 */
#define GSYNC_KEY_B64_LEN	44

/*
 * setsockopt(GSYNC_KEY). Before GSYNC_JOIN: the first epoch (START_SEQ
 * must be 0; every rank sets the same secret, mode and epoch); after it,
 * on a keyed group: a rotation to EPOCH (above the current one) from
 * operation START_SEQ on, which every rank must install, with the same
 * START_SEQ, before it submits that operation. MODE is GSYNC_KEY_AUTH or
 * GSYNC_KEY_ENCRYPT (-EINVAL otherwise, before any syscall). Returns 0 or
 * the kernel's -errno: -EINVAL, -EISCONN (joined without a key), -EBUSY
 * (a rotation pending), -ERANGE (START_SEQ already submitted), -ENOMEM,
 * -ENOPROTOOPT (a module without keyed groups).
 */
int gsync_set_key(int fd, enum gsync_key_mode mode, uint32_t epoch,
		  uint64_t start_seq, const uint8_t secret[GSYNC_KEY_LEN]);

/*
 * Key and join in one call: validate *cfg (gsync_config_validate()) and
 * the key, gsync_set_key(fd, mode, epoch, 0, secret), then gsync_join().
 * Nothing is set unless both would be accepted by these checks. With the
 * sysctl net.gsync.require_auth=1 a GSYNC_JOIN without a key fails with
 * -ENOKEY.
 */
int gsync_join_keyed(int fd, const struct gsync_config *cfg,
		     enum gsync_key_mode mode, uint32_t epoch,
		     const uint8_t secret[GSYNC_KEY_LEN]);

/*
 * Rotate a joined, keyed group's key: GSYNC_INFO, then gsync_set_key()
 * with the group's mode. START_SEQ is an operation not submitted here yet
 * and the same on every rank (e.g. a multiple of 1000 above every rank's
 * next_seq; a launcher can agree on it as on any other step number).
 * Errors found from GSYNC_INFO before the kernel is asked: -ENOTCONN (not
 * joined), -EISCONN (joined without a key), -EBUSY (a rotation is
 * pending), -EINVAL (EPOCH not above the current one, NULL secret),
 * -ERANGE (START_SEQ below next_seq); then the kernel's, which checks
 * again.
 */
int gsync_rotate_key(int fd, uint32_t epoch, uint64_t start_seq,
		     const uint8_t secret[GSYNC_KEY_LEN]);

/* GSYNC_KEY_LEN random bytes from getrandom(2). 0 or -errno. */
int gsync_key_generate(uint8_t secret[GSYNC_KEY_LEN]);

/*
 * The secret as base64: GSYNC_KEY_B64_LEN characters and a NUL into OUT.
 * Returns GSYNC_KEY_B64_LEN, or -EINVAL for NULL arguments.
 */
int gsync_key_encode(const uint8_t secret[GSYNC_KEY_LEN],
		     char out[GSYNC_KEY_B64_LEN + 1]);

/*
 * The inverse: TEXT is exactly GSYNC_KEY_B64_LEN characters of canonical
 * base64, optionally followed by one newline, and nothing else. 0, or
 * -EINVAL (SECRET untouched).
 */
int gsync_key_decode(const char *text, uint8_t secret[GSYNC_KEY_LEN]);

/* gsync_key_file_write() flags */
#define GSYNC_KEY_FILE_OVERWRITE	(1U << 0)	/* replace an existing file */

/*
 * Write a key file: the encoded secret and a newline, mode 0600 whatever
 * the umask. Without GSYNC_KEY_FILE_OVERWRITE the file must not exist
 * (O_EXCL; -EEXIST, and a symbolic link is not followed); with it, an
 * existing file is replaced by rename(2) of a new one beside it, so PATH
 * holds the old key or the whole new one, never another mode. Returns 0 or
 * -errno (-EINVAL for unknown flags).
 */
int gsync_key_file_write(const char *path, const uint8_t secret[GSYNC_KEY_LEN],
			 unsigned int flags);

/*
 * Read a key file into SECRET. Refused: a file group or others may access
 * (mode & 077: -EACCES; chmod 600 it), one that is not a regular file or
 * does not hold exactly one key as gsync_key_decode() takes it (-EINVAL);
 * or open(2)'s -errno (-ENOENT, -EACCES, ...).
 */
int gsync_key_file_read(const char *path, uint8_t secret[GSYNC_KEY_LEN]);

/*
 * The key's fingerprint, as gsync_info.key_fingerprint and /proc/net/gsync
 * report it: the first 8 bytes, big-endian, of BLAKE2s-256 over
 * GSYNC_KEY_FPR_LABEL (without its NUL) followed by the secret. Shown as
 * 16 lowercase hex digits ("%016" PRIx64). It names a key without revealing
 * it. 0 only if libcrypto cannot compute BLAKE2s.
 */
uint64_t gsync_key_fingerprint(const uint8_t secret[GSYNC_KEY_LEN]);

/* ---- asynchronous operations over io_uring ------------------------------ */

/*
 * A ring drives all-reduces on one socket asynchronously. Each request is
 * one IORING_OP_SENDMSG (contribution + GSYNC_CMSG_OP) followed by one
 * IORING_OP_RECVMSG (result + GSYNC_CMSG_RESULT). The library owns the
 * msghdr, iovec and control buffers of each request until it completes.
 * (A program that runs its own io_uring can put the same operations on it
 * instead: <gsync_uring.h>.)
 *
 * In flight: up to the group's window of requests (gsync_info.window,
 * read with GSYNC_INFO once the socket is joined), at most DEPTH, are
 * accepted unreaped; the next submission is refused with -EAGAIN until
 * one is reaped. Nothing blocks and nothing waits in the library for a
 * turn: every accepted request goes to the kernel at once. The kernel
 * takes sends strictly in seq order and returns results oldest first, and
 * io_uring does not order independent requests on one socket, so the
 * sends go out as one IOSQE_IO_LINK chain and the receives as another
 * (each link starts inside the kernel when the one before it completed).
 * The kernel counts an operation against the window until every peer has
 * acknowledged it, so a send can wait briefly inside io_uring for room.
 *
 * Completions: each result's GSYNC_CMSG_RESULT seq is checked against its
 * request's (EBADMSG if they differ), and completions are reported in
 * submission order, which is seq order and the order the kernel delivers
 * results in (a request whose send failed waits for the requests before
 * it).
 *
 * Sequence numbers: gsync_allreduce_submit() takes the caller's seq;
 * gsync_allreduce_submit_next() numbers requests itself, starting at the
 * socket's gsync_info.next_seq (1 if the socket cannot say) and
 * continuing after the last seq submitted either way, so both can be
 * mixed. A send the kernel refused (e.g. ENOBUFS) does not consume its
 * seq in the kernel; later requests then fail with EINVAL. Resynchronise
 * with gsync_get_info() and explicit seqs.
 *
 * Progress happens inside the submit calls and gsync_reap(); call
 * gsync_reap() regularly (or when gsync_ring_fd() is readable).
 * Both buffers passed to a submit call must stay valid (and sendbuf
 * unmodified) until the request is reaped.
 */
struct gsync_ring;

struct gsync_completion {
	uint64_t seq;
	uint64_t user_data;
	int status;	/* 0, the operation's positive errno (ETIMEDOUT, EPROTO,
			 * ECONNABORTED), or a positive errno of the send or
			 * receive itself (e.g. EINVAL for a bad seq, EMSGSIZE
			 * if recvbuf was too small, EBADMSG for a result that
			 * is not this request's, ECANCELED after exit) */
	size_t len;	/* bytes of the reduced buffer (0 on failure) */
};

/*
 * Create a ring for socket FD with DEPTH request slots (1..4096; more than
 * the group's window are never used). FD may be joined later. *ringp gets
 * the ring. -ENOMEM, -EINVAL, or io_uring_queue_init()'s error (-ENOSYS,
 * -EPERM when io_uring is disabled).
 */
int gsync_ring_init(struct gsync_ring **ringp, int fd, unsigned int depth);

/*
 * Cancel what is in flight, wait for the kernel to let go of every buffer,
 * free the ring. Does not close FD. Safe with NULL.
 */
void gsync_ring_exit(struct gsync_ring *ring);

/*
 * Queue an all-reduce with sequence number SEQ. Returns 0, -EAGAIN if
 * gsync_ring_window() requests are unreaped (reap first), -EINVAL for bad
 * arguments (seq 0, unknown dtype/op, len not a multiple of the element
 * size, len 0), or an io_uring error. sendbuf and recvbuf must not overlap
 * unless equal.
 */
int gsync_allreduce_submit(struct gsync_ring *ring, uint64_t seq,
			   const void *sendbuf, void *recvbuf, size_t len,
			   unsigned int dtype, unsigned int op,
			   uint64_t user_data);

/*
 * As gsync_allreduce_submit() with the ring's next sequence number
 * (gsync_ring_next_seq()); *seqp (if not NULL) gets it on success.
 */
int gsync_allreduce_submit_next(struct gsync_ring *ring, const void *sendbuf,
				void *recvbuf, size_t len, unsigned int dtype,
				unsigned int op, uint64_t user_data,
				uint64_t *seqp);

/*
 * The seq gsync_allreduce_submit_next() would take now; 0 for a NULL ring.
 */
uint64_t gsync_ring_next_seq(struct gsync_ring *ring);

/*
 * How many requests the ring accepts unreaped: the group's window, at most
 * DEPTH; DEPTH while the socket cannot report its window (not joined yet).
 * 0 for a NULL ring.
 */
unsigned int gsync_ring_window(struct gsync_ring *ring);

/*
 * Move up to MAX finished requests, oldest first, into OUT. With WAIT != 0
 * block until at least one request finished (returns 0 at once if none is
 * pending). Returns the count, or -errno (-EINTR if a signal interrupted
 * the wait before anything finished).
 */
int gsync_reap(struct gsync_ring *ring, struct gsync_completion *out,
	       unsigned int max, int wait);

/* Requests submitted and not yet reaped. */
unsigned int gsync_ring_pending(const struct gsync_ring *ring);

/* The io_uring's descriptor, for poll/epoll: readable when CQEs wait. */
int gsync_ring_fd(const struct gsync_ring *ring);

#ifdef __cplusplus
}
#endif

#endif /* LIBGSYNC_GSYNC_H */
