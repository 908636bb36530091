# export.mk - the sources that read gsync-schedule/1 JSON and topologies and
# turn them into kernel schedule blobs (relative to userspace/sched).
# Included by this directory's Makefile and by userspace/gsyncctl/Makefile,
# which compiles them into gsyncctl (schedule load/show of JSON files).
GS_EXPORT_SRCS := util.c topology.c paths.c schedule.c schedule_json.c model.c ring.c \
                  blob_check.c blob_dump.c export_ranks.c export_resolve.c export.c
GS_EXPORT_HDRS := gs.h sched_blob.h sched_export.h
GS_EXPORT_LIBS := -ljansson -lm
