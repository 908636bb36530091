// SPDX-License-Identifier: GPL-2.0
/*
 * The shared scalar reference (xrt_kernels/ref/gsync_reduce_ref.c) built
 * into the KUnit module as the oracle of suite gsync_reduce. Its 64-bit
 * division (int32 avg) needs a 64-bit kernel. Pure functions, any context.
 */
#include "../reduce_fp.h"
#include "../../xrt_kernels/ref/gsync_reduce_ref.c"
