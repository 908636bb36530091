#include_next <linux/errno.h>
#include "../gsync_shim.h"
