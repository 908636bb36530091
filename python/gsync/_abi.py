"""The AF_GSYNC socket ABI of ``uapi/linux/gsync.h`` and
``uapi/linux/gsync_sched.h``, as Python constants and ``struct`` layouts.

Everything is in the host's byte order (``=``) except the port of an
address, which is network order, exactly as the C structures are laid out
on x86-64 (no implicit padding: every layout below is checked against the
size the header implies).
"""
from __future__ import annotations

import struct

# ---- family ------------------------------------------------------------------
AF_DEFAULT = 25
AF_ALLOWED = (13, 14, 18, 19, 22, 25)
FAMILY_PATH = "/sys/module/gsync/parameters/family"
PROC_SOCKETS = "/proc/net/gsync"
PROC_STATS = "/proc/net/gsync_stats"
SOCK_TYPE = 5  # SOCK_SEQPACKET

SOL_GSYNC = 299

# ---- socket options ------------------------------------------------------------
GSYNC_JOIN = 1
GSYNC_PACING_RATE = 2
GSYNC_INFO = 3
GSYNC_STATS = 4
GSYNC_ENGINE = 5
GSYNC_SCHEDULE = 6
GSYNC_SCHEDULE_PUSH = 7
GSYNC_KEY = 8
GSYNC_KEY_PUSH = 9

# ---- control messages ----------------------------------------------------------
GSYNC_CMSG_OP = 1
GSYNC_CMSG_RESULT = 2

# ---- element types and operators -----------------------------------------------
DTYPE_FP32, DTYPE_BF16, DTYPE_FP16, DTYPE_INT32 = 0, 1, 2, 3
OP_SUM, OP_AVG, OP_MIN, OP_MAX = 0, 1, 2, 3

DTYPE_NAMES = {DTYPE_FP32: "fp32", DTYPE_BF16: "bf16", DTYPE_FP16: "fp16",
               DTYPE_INT32: "int32"}
DTYPE_SIZE = {DTYPE_FP32: 4, DTYPE_BF16: 2, DTYPE_FP16: 2, DTYPE_INT32: 4}
OP_NAMES = {OP_SUM: "sum", OP_AVG: "avg", OP_MIN: "min", OP_MAX: "max"}

ENGINE_DEFAULT, ENGINE_CPU, ENGINE_OFFLOAD, ENGINE_AUTO = 0, 1, 2, 3

# ---- limits --------------------------------------------------------------------
MAX_RANKS = 256
MAX_WINDOW = 64
MAX_OP_BYTES = 1 << 30

JOIN_UNICAST = 1 << 0
JOIN_MCAST_LOOP = 1 << 1
JOIN_FLAGS_ALL = JOIN_UNICAST | JOIN_MCAST_LOOP

STATE_NAMES = {0: "unconfigured", 1: "joined", 2: "failed"}

# ---- keyed groups (GSYNC_KEY) --------------------------------------------------
KEY_NONE, KEY_AUTH, KEY_ENCRYPT = 0, 1, 2
KEY_MODE_NAMES = {KEY_NONE: "none", KEY_AUTH: "auth", KEY_ENCRYPT: "encrypt"}
KEY_LEN = 32
KEY_B64_LEN = 44              # a key file: this much base64, then a newline
KEY_ANY_RANK = 0xffff
KEY_FPR_LABEL = b"gsync fingerprint v1"   # GSYNC_KEY_FPR_LABEL, without its NUL

# ---- structures ----------------------------------------------------------------
# struct gsync_addr {u16 family; be16 port; u32 scope_id; u8 addr[16];}
ADDR = struct.Struct("=H2sI16s")
# struct gsync_join (members follow)
JOIN = struct.Struct("=QHHI24sIB3sIIIIIIQ16s")
# struct gsync_info; the key fields at its end (a module without keyed
# groups returns the 72 bytes before them)
INFO = struct.Struct("=IHHQQIIIIQIIIIQIIQII")
INFO_FIELDS = ("state", "rank", "nranks", "group_id", "next_seq", "inflight",
               "window", "chunk_bytes", "flags", "pacing_rate",
               "op_timeout_ms", "repair_ms", "max_op_bytes", "rtt_ms",
               "send_rate", "key_mode", "key_epoch", "key_fingerprint",
               "key_next_epoch", "reserved0")
# struct gsync_key {u32 mode; u32 epoch; u64 start_seq; u8 secret[32];
#                   u64 reserved[2];}
KEY = struct.Struct("=IIQ32s16s")
# struct gsync_key_push {u64 group_id; u16 rank; u16 reserved0;
#                        u32 reserved1; struct gsync_key key;}
KEY_PUSH = struct.Struct("=QHHI64s")
# struct gsync_op_desc / gsync_op_result
OP_DESC = struct.Struct("=QBBHI")
OP_RESULT = struct.Struct("=QiIQ")

STATS_FIELDS = ("ops_submitted", "ops_completed", "ops_failed", "tx_bytes",
                "tx_packets", "rx_bytes", "rx_packets", "nacks_sent",
                "nacks_received", "retransmits", "mcast_retransmits",
                "timeouts", "mismatches", "sched_ops", "reduce_jobs")
# enum gsync_drop_reason: drops[] holds those before GSYNC_DROP_BASE, the
# others (keyed groups') are drops_ext[], at the struct's end
DROP_BASE_NAMES = ("short", "version", "type", "group", "rank", "source", "field",
                   "stale", "window", "dup", "nomem", "clique", "ratelimit")
DROP_EXT_NAMES = ("auth", "replay", "epoch")
DROP_NAMES = DROP_BASE_NAMES + DROP_EXT_NAMES     # every reason, in enum order
DROP_BASE = len(DROP_BASE_NAMES)
# the counters after drops[]; rate_loss_decreases: those of rate_decreases
# that were for loss (the others for a queue)
STATS_LATE = ("reports_sent", "reports_received", "rate_decreases",
              "rate_loss_decreases")
# struct gsync_stats, every u64 in order
STATS_LAYOUT = (STATS_FIELDS + tuple("drop_" + n for n in DROP_BASE_NAMES) +
                STATS_LATE + tuple("drop_" + n for n in DROP_EXT_NAMES))
STATS_SIZE = 8 * len(STATS_LAYOUT)

# gsync_sched.h
SCHED_MAGIC = 0x48435347
SCHED_VERSION = 1
SCHED_MAX_ROUNDS = 16
SCHED_MAX_CLIQUES = 1024
SCHED_MAX_MEMBERS = 4096
SCHED_MIN_BLOCK = 4096
SCHED_PATTERNS = {"multicast": 1, "unicast": 2, "rs_multicast": 3,
                  "aggregator": 4}
SCF_UNICAST = 1
SCHF_CLIQUE_GROUPS = 1 << 0   # gsync_sched_hdr.flags: a multicast address per clique
SCHF_ALL = SCHF_CLIQUE_GROUPS
# struct gsync_sched_hdr: ..., flags, idle[32], group_base[16]
SCHED_HDR = struct.Struct("=IHHQIHHHHI32s16s")
SCHED_CLIQUE = struct.Struct("=HBBHHHHI")

assert ADDR.size == 24
assert JOIN.size == 96
assert STATS_SIZE == 280
assert INFO.size == 96
assert KEY.size == 64 and KEY_PUSH.size == 80
assert OP_DESC.size == 16
assert OP_RESULT.size == 24
assert SCHED_HDR.size == 80 and SCHED_CLIQUE.size == 16
