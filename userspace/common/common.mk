# common.mk - libgsync-tools.a, the code gsyncctl and gsync-sched share:
# reading topologies and gsync-schedule/1 JSON, the cost model the export
# needs, schedule blobs (building, checking against the kernel's rules,
# dumping), the schedule push (GSYNC_SCHEDULE_PUSH) and entering a network
# namespace. The tools link it and, below it, libgsync (../libgsync:
# libgsync.a, whose family lookup sched_push.c and gsyncctl use), so the
# layers are uapi <- libgsync <- libgsync-tools <- tools, and no directory
# compiles another's sources.
#
# Included by userspace/gsyncctl and userspace/sched with COMMON set to
# this directory. Tools link $(TOOLS_LIBS); their sanitizer builds link
# $(TOOLS_SAN_LIBS) (the same code compiled with ASan and UBSan). Every
# directory compiles one object per source with -MMD -MP (TOOLS_DEPFLAGS),
# so a change rebuilds only the objects that include what changed. Needs
# libjansson-dev.
.DEFAULT_GOAL := all

COMMON_NAMES := util.c topology.c paths.c schedule.c schedule_json.c model.c ring.c \
                blob_check.c blob_dump.c export_ranks.c export_resolve.c export.c \
                sched_push.c netns.c
LIBGSYNC_DIR := $(COMMON)/../libgsync
COMMON_INCS  := -I$(COMMON) -I$(LIBGSYNC_DIR)/include -I$(COMMON)/../../uapi
COMMON_LIBS  := -ljansson -lm
COMMON_LIB   := $(COMMON)/build/libgsync-tools.a
COMMON_SAN_LIB := $(COMMON)/build/san/libgsync-tools.a
LIBGSYNC     := $(LIBGSYNC_DIR)/libgsync.a
TOOLS_LIBS     = $(COMMON_LIB) $(LIBGSYNC) $(COMMON_LIBS)
TOOLS_SAN_LIBS = $(COMMON_SAN_LIB) $(LIBGSYNC) $(COMMON_LIBS)
TOOLS_DEPFLAGS := -MMD -MP
# The sanitizer flags of every test build of the tools and of libgsync-tools.
TOOLS_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# Each library is built by its own Makefile, which alone knows (from its
# dependency files) whether it is up to date: always ask it (-q first, to
# stay quiet when it is). A tool is relinked only if the archive changed.
SUBMAKE = $(MAKE) --no-print-directory -q -C $(1) $(2) || $(MAKE) --no-print-directory -C $(1) $(2)
ifneq ($(COMMON),.)
$(COMMON_LIB): FORCE
	+@$(call SUBMAKE,$(COMMON),build/libgsync-tools.a)
$(COMMON_SAN_LIB): FORCE
	+@$(call SUBMAKE,$(COMMON),build/san/libgsync-tools.a)
endif
$(LIBGSYNC): FORCE
	+@$(call SUBMAKE,$(LIBGSYNC_DIR),libgsync.a)
.PHONY: FORCE
FORCE:
