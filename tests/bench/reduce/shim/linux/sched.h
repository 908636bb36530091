#include "../gsync_shim.h"
