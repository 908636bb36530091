// SPDX-License-Identifier: GPL-2.0
/*
 * Prints the byte layout of every structure of the gsync uapi headers in
 * the form the man pages show it ("  OFF  SIZE  FIELD"). man/check greps
 * every line of this output in the page sources, so a header change that
 * moves a field fails the test until the page is updated.
 */
#include <stddef.h>
#include <stdio.h>
#include <linux/gsync.h>
#include <linux/gsync_wire.h>
#include <linux/gsync_sched.h>
#include <linux/gsync_offload.h>

#define S(t) printf("struct %s: %zu bytes\n", #t, sizeof(struct t))
#define F(t, f) printf("%5zu %4zu  %s\n", offsetof(struct t, f), sizeof(((struct t *)0)->f), #f)

int main(void)
{
	S(gsync_addr); F(gsync_addr, family); F(gsync_addr, port); F(gsync_addr, scope_id); F(gsync_addr, addr);
	S(gsync_join); F(gsync_join, group_id); F(gsync_join, rank); F(gsync_join, nranks); F(gsync_join, flags);
	F(gsync_join, mcast); F(gsync_join, ifindex); F(gsync_join, ttl); F(gsync_join, reserved0); F(gsync_join, mtu);
	F(gsync_join, window); F(gsync_join, max_op_bytes); F(gsync_join, op_timeout_ms); F(gsync_join, repair_ms);
	F(gsync_join, reserved2); F(gsync_join, pacing_rate); F(gsync_join, reserved1);
	S(gsync_info); F(gsync_info, state); F(gsync_info, rank); F(gsync_info, nranks); F(gsync_info, group_id);
	F(gsync_info, next_seq); F(gsync_info, inflight); F(gsync_info, window); F(gsync_info, chunk_bytes);
	F(gsync_info, flags); F(gsync_info, pacing_rate); F(gsync_info, op_timeout_ms); F(gsync_info, repair_ms);
	F(gsync_info, max_op_bytes); F(gsync_info, rtt_ms); F(gsync_info, send_rate);
	F(gsync_info, key_mode); F(gsync_info, key_epoch); F(gsync_info, key_fingerprint);
	F(gsync_info, key_next_epoch); F(gsync_info, reserved0);
	S(gsync_stats); F(gsync_stats, ops_submitted); F(gsync_stats, ops_completed); F(gsync_stats, ops_failed);
	F(gsync_stats, tx_bytes); F(gsync_stats, tx_packets); F(gsync_stats, rx_bytes); F(gsync_stats, rx_packets);
	F(gsync_stats, nacks_sent); F(gsync_stats, nacks_received); F(gsync_stats, retransmits);
	F(gsync_stats, mcast_retransmits); F(gsync_stats, timeouts); F(gsync_stats, mismatches);
	F(gsync_stats, sched_ops); F(gsync_stats, reduce_jobs); F(gsync_stats, drops);
	F(gsync_stats, reports_sent); F(gsync_stats, reports_received); F(gsync_stats, rate_decreases);
	F(gsync_stats, rate_loss_decreases); F(gsync_stats, drops_ext);
	S(gsync_key); F(gsync_key, mode); F(gsync_key, epoch); F(gsync_key, start_seq); F(gsync_key, secret);
	F(gsync_key, reserved);
	S(gsync_key_push); F(gsync_key_push, group_id); F(gsync_key_push, rank); F(gsync_key_push, reserved0);
	F(gsync_key_push, reserved1); F(gsync_key_push, key);
	S(gsync_op_desc); F(gsync_op_desc, seq); F(gsync_op_desc, dtype); F(gsync_op_desc, op);
	F(gsync_op_desc, flags); F(gsync_op_desc, reserved);
	S(gsync_op_result); F(gsync_op_result, seq); F(gsync_op_result, status); F(gsync_op_result, flags);
	F(gsync_op_result, len);
	S(gsync_sched_push); F(gsync_sched_push, group_id); F(gsync_sched_push, rank);
	F(gsync_sched_push, reserved0); F(gsync_sched_push, reserved1);
	S(gsync_sched_hdr); F(gsync_sched_hdr, magic); F(gsync_sched_hdr, version); F(gsync_sched_hdr, hdr_len);
	F(gsync_sched_hdr, start_seq); F(gsync_sched_hdr, block_bytes); F(gsync_sched_hdr, nranks);
	F(gsync_sched_hdr, nrounds); F(gsync_sched_hdr, ncliques); F(gsync_sched_hdr, nmembers);
	F(gsync_sched_hdr, flags); F(gsync_sched_hdr, idle); F(gsync_sched_hdr, group_base);
	S(gsync_sched_clique); F(gsync_sched_clique, round); F(gsync_sched_clique, pattern);
	F(gsync_sched_clique, flags); F(gsync_sched_clique, first); F(gsync_sched_clique, nmembers);
	F(gsync_sched_clique, aggregator); F(gsync_sched_clique, reserved0); F(gsync_sched_clique, rate_kbit);
	S(gsync_wire_hdr); F(gsync_wire_hdr, version); F(gsync_wire_hdr, type); F(gsync_wire_hdr, dtype);
	F(gsync_wire_hdr, op); F(gsync_wire_hdr, src_rank); F(gsync_wire_hdr, nranks); F(gsync_wire_hdr, group_id);
	F(gsync_wire_hdr, seq); F(gsync_wire_hdr, round); F(gsync_wire_hdr, flags); F(gsync_wire_hdr, chunk);
	F(gsync_wire_hdr, nchunks); F(gsync_wire_hdr, payload_len); F(gsync_wire_hdr, total_len);
	F(gsync_wire_hdr, ncontrib); F(gsync_wire_hdr, stamp); F(gsync_wire_hdr, chunk_bytes);
	F(gsync_wire_hdr, sched_tag);
	S(gsync_wire_sec); F(gsync_wire_sec, epoch); F(gsync_wire_sec, reserved); F(gsync_wire_sec, counter);
	S(gsync_wire_nack); F(gsync_wire_nack, target_rank); F(gsync_wire_nack, nranges); F(gsync_wire_nack, reserved);
	S(gsync_wire_range); F(gsync_wire_range, first); F(gsync_wire_range, count);
	S(gsync_wire_status); F(gsync_wire_status, complete);
	S(gsync_wire_abort); F(gsync_wire_abort, error); F(gsync_wire_abort, reserved);
	S(gsync_wire_report); F(gsync_wire_report, target_rank); F(gsync_wire_report, echo_stamp);
	F(gsync_wire_report, hold_ms); F(gsync_wire_report, reserved); F(gsync_wire_report, interval_us);
	F(gsync_wire_report, rx_bytes); F(gsync_wire_report, rx_chunks); F(gsync_wire_report, lost);
	S(gsync_offload_register); F(gsync_offload_register, version); F(gsync_offload_register, nslots);
	F(gsync_offload_register, slot_bytes); F(gsync_offload_register, max_k); F(gsync_offload_register, dtypes);
	F(gsync_offload_register, ops); F(gsync_offload_register, flags); F(gsync_offload_register, reserved);
	S(gsync_offload_slot_cmd); F(gsync_offload_slot_cmd, slot); F(gsync_offload_slot_cmd, status);
	F(gsync_offload_slot_cmd, job_id); F(gsync_offload_slot_cmd, flags); F(gsync_offload_slot_cmd, reserved);
	S(gsync_offload_desc); F(gsync_offload_desc, job_id); F(gsync_offload_desc, k); F(gsync_offload_desc, count);
	F(gsync_offload_desc, dtype); F(gsync_offload_desc, op); F(gsync_offload_desc, flags);
	F(gsync_offload_desc, avg_divisor); F(gsync_offload_desc, in_off); F(gsync_offload_desc, in_stride);
	F(gsync_offload_desc, out_off); F(gsync_offload_desc, reserved);
	return 0;
}
