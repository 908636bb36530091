# common.mk - libgsync-tools.a, the code gsyncctl and gsync-sched share:
# reading topologies and gsync-schedule/1 JSON, the cost model the export
# needs, schedule blobs (building, checking against the kernel's rules,
# dumping), the schedule push (GSYNC_SCHEDULE_PUSH), entering a network
# namespace, and libgsync's family lookup (compiled from its own source so
# that the tools and the library can never disagree).
#
# Included by userspace/gsyncctl and userspace/sched with COMMON set to
# this directory. Tools link $(COMMON_LIB); the sanitizer test builds
# compile $(COMMON_SRCS) themselves, instrumented. Needs libjansson-dev.
.DEFAULT_GOAL := all

COMMON_NAMES := util.c topology.c paths.c schedule.c schedule_json.c model.c ring.c \
                blob_check.c blob_dump.c export_ranks.c export_resolve.c export.c \
                sched_push.c netns.c
COMMON_SRCS  := $(addprefix $(COMMON)/,$(COMMON_NAMES)) $(COMMON)/../libgsync/src/family.c
COMMON_HDRS  := $(addprefix $(COMMON)/,gs.h sched_blob.h sched_export.h sched_push.h netns.h \
                common.mk Makefile) \
                $(COMMON)/../libgsync/include/gsync.h $(COMMON)/../libgsync/src/export.h \
                $(COMMON)/../../uapi/linux/gsync.h $(COMMON)/../../uapi/linux/gsync_sched.h
COMMON_INCS  := -I$(COMMON) -I$(COMMON)/../libgsync/include -I$(COMMON)/../../uapi
COMMON_LIBS  := -ljansson -lm
COMMON_LIB   := $(COMMON)/build/libgsync-tools.a

# The archive is built by its own Makefile, so that every tool links the
# same objects whichever directory asked first.
ifneq ($(COMMON),.)
$(COMMON_LIB): $(COMMON_SRCS) $(COMMON_HDRS)
	$(MAKE) --no-print-directory -C $(COMMON)
endif
