// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * backend_sim.cc - the `sim` backend: executes the HLS kernel's own source
 * (xrt_kernels/hls/gsync_reduce.cpp, linked in as compiled by g++) on the
 * CPU, directly on the shared region.  The arithmetic is therefore the
 * code the FPGA would run, not a re-implementation of it.
 */
#include "backend_impl.h"
#include "../../xrt_kernels/hls/gsync_reduce_hw.h"

namespace {

int sim_open(gsync_offload_backend *, const gsync_offload_cfg *)
{
	return 0;
}

int sim_exec(gsync_offload_backend *be, const uint64_t *desc, uint32_t ndesc,
	     const gsync_offload_span *, size_t, const gsync_offload_span *,
	     size_t)
{
	// The region plays the role of card memory: src and dst are both its
	// base, exactly as the xrt backend passes one BO for both ports.
	gsync_reduce(static_cast<const uint32_t *>(be->base),
		     static_cast<uint32_t *>(be->base), desc, ndesc);
	return 0;
}

} // namespace

extern "C" const gsync_offload_ops gsync_offload_sim_ops = {
	"sim", sim_open, nullptr, sim_exec, nullptr,
};
