#include_next <linux/types.h>
#include "../gsync_shim.h"
