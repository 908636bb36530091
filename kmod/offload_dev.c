// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/gsync-offload: the misc device the offload agent drives with
 * io_uring uring_cmd (uapi/linux/gsync_offload.h), its mmap()able region,
 * and /proc/driver/gsync_offload.
 *
 * The device is global, not per network namespace: the card it stands for
 * is a host resource, a reduction is arithmetic on buffers that does not
 * depend on the namespace of the socket that produced them, and device
 * nodes are not namespaced. Only CAP_SYS_ADMIN (in the initial user
 * namespace) may register, since the agent sees every namespace's data.
 *
 * io_uring API differences between 6.1 and 6.12 are detected by compile
 * probes in Kbuild (GSYNC_HAVE_*), not by version numbers, because
 * Debian's 6.1.y carries backports:
 *  - GSYNC_HAVE_IO_URING_CMD_H: <linux/io_uring/cmd.h> and
 *    io_uring_sqe_cmd(cmd->sqe) (6.7+), else <linux/io_uring.h> and
 *    cmd->cmd;
 *  - GSYNC_HAVE_CMD_DONE_FLAGS: io_uring_cmd_done() takes issue_flags;
 *  - GSYNC_HAVE_CMD_TW_FLAGS: task-work callbacks take issue_flags;
 *  - GSYNC_HAVE_CMD_CANCELABLE: io_uring_cmd_mark_cancelable() and
 *    IO_URING_F_CANCEL (6.7+). Without it a parked FETCH cannot be
 *    cancelled by io_uring; the monitor work notices an exiting agent task
 *    instead and completes its commands (as ublk did on 6.1).
 *
 * Context and locking: every handler runs in process context. The command
 * payload is copied out of the SQE once, then validated (the SQ ring is
 * writable by the agent). FETCH and COMMIT_FETCH are handled in the
 * issuing task with ctx->uring_lock held; an issue from io-wq
 * (IO_URING_F_UNLOCKED) is bounced to task work first. The engine parks a
 * FETCH under its mutex (see offload.h for the lock order);
 * io_uring_cmd_mark_cancelable() is called afterwards, outside the engine
 * mutex but still in the issuing task under uring_lock. That is safe
 * because a parked command is only ever completed through
 * io_uring_cmd_complete_in_task(), whose callback runs in this same task
 * after the issue returns, so it cannot run between parking and marking.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": offload: " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#ifdef GSYNC_HAVE_IO_URING_CMD_H
#include <linux/io_uring/cmd.h>
#else
#include <linux/io_uring.h>
#endif

#include "gsync.h"
#include "offload.h"

/* Kept in the command's pdu while it is with the driver. */
struct gsync_offload_pdu {
	struct gsync_offload_slot_cmd sc;	/* the payload, copied */
	s32 res;				/* result to complete with */
	u32 reissue;				/* bounced from io-wq */
};

static struct gsync_offload_pdu *gsync_pdu(struct io_uring_cmd *cmd)
{
	BUILD_BUG_ON(sizeof(struct gsync_offload_pdu) > sizeof(cmd->pdu));
	return (struct gsync_offload_pdu *)cmd->pdu;
}

static const void *gsync_cmd_payload(const struct io_uring_cmd *cmd)
{
#ifdef GSYNC_HAVE_IO_URING_CMD_H
	return io_uring_sqe_cmd(cmd->sqe);
#else
	return cmd->cmd;
#endif
}

static void gsync_cmd_done(struct io_uring_cmd *cmd, int res,
			   unsigned int issue_flags)
{
#ifdef GSYNC_HAVE_CMD_DONE_FLAGS
	io_uring_cmd_done(cmd, res, 0, issue_flags);
#else
	io_uring_cmd_done(cmd, res, 0);
#endif
}

static int gsync_offload_cmd_local(struct io_uring_cmd *cmd,
				   unsigned int issue_flags);

static void gsync_offload_tw_flags(struct io_uring_cmd *cmd,
				   unsigned int issue_flags)
{
	struct gsync_offload_pdu *pdu = gsync_pdu(cmd);
	int res = pdu->res;

	if (pdu->reissue) {
		pdu->reissue = 0;
		res = gsync_offload_cmd_local(cmd, issue_flags);
		if (res == -EIOCBQUEUED)
			return;
	}
	gsync_cmd_done(cmd, res, issue_flags);
}

#ifdef GSYNC_HAVE_CMD_TW_FLAGS
#define gsync_offload_tw gsync_offload_tw_flags
#else
static void gsync_offload_tw(struct io_uring_cmd *cmd)
{
	gsync_offload_tw_flags(cmd, 0);
}
#endif

/* agent->complete: finish a parked command in its task. */
static void gsync_offload_complete(struct gsync_offload_agent *a, void *p,
				   int res)
{
	struct io_uring_cmd *cmd = p;

	gsync_pdu(cmd)->res = res;
	gsync_pdu(cmd)->reissue = 0;
	io_uring_cmd_complete_in_task(cmd, gsync_offload_tw);
}

static int gsync_offload_register_cmd(struct gsync_offload_agent *a,
				      struct io_uring_cmd *cmd)
{
	struct gsync_offload_register r;
	int err;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	memcpy(&r, gsync_cmd_payload(cmd), sizeof(r));
	err = gsync_offload_agent_register(a, &r);
	if (err)
		return err;
	pr_info("agent %d registered: %u slots of %u bytes, k <= %u\n",
		task_tgid_nr(current), r.nslots, r.slot_bytes, r.max_k);
	return 0;
}

/* FETCH / COMMIT_FETCH in the issuing task, uring_lock held. */
static int gsync_offload_cmd_local(struct io_uring_cmd *cmd,
				   unsigned int issue_flags)
{
	struct gsync_offload_agent *a = cmd->file->private_data;
	struct gsync_offload_pdu *pdu = gsync_pdu(cmd);
	int ret;

	ret = gsync_offload_fetch(a, &pdu->sc, cmd,
				  cmd->cmd_op == GSYNC_OFFLOAD_CMD_COMMIT_FETCH);
#ifdef GSYNC_HAVE_CMD_CANCELABLE
	/*
	 * Parked: make it cancelable. A completion queued meanwhile runs in
	 * this task after we return, and removes the mark again.
	 */
	if (ret == -EIOCBQUEUED)
		io_uring_cmd_mark_cancelable(cmd, issue_flags);
#endif
	return ret;
}

#ifdef GSYNC_HAVE_CMD_CANCELABLE
static void gsync_offload_cancel(struct io_uring_cmd *cmd,
				 unsigned int issue_flags)
{
	struct gsync_offload_agent *a = cmd->file->private_data;

	if (!gsync_offload_cancel_cmd(a, gsync_pdu(cmd)->sc.slot, cmd))
		gsync_cmd_done(cmd, -ECANCELED, issue_flags);
}
#endif

static int gsync_offload_uring_cmd(struct io_uring_cmd *cmd,
				   unsigned int issue_flags)
{
	struct gsync_offload_agent *a = cmd->file->private_data;
	struct gsync_offload_pdu *pdu = gsync_pdu(cmd);

#ifdef GSYNC_HAVE_CMD_CANCELABLE
	if (issue_flags & IO_URING_F_CANCEL) {
		gsync_offload_cancel(cmd, issue_flags);
		return 0;
	}
#endif
	/* Every payload is larger than a 64-byte SQE's command area. */
	if (!(issue_flags & IO_URING_F_SQE128))
		return -EINVAL;

	switch (cmd->cmd_op) {
	case GSYNC_OFFLOAD_CMD_REGISTER:
		return gsync_offload_register_cmd(a, cmd);
	case GSYNC_OFFLOAD_CMD_STOP:
		return gsync_offload_stop(a);
	case GSYNC_OFFLOAD_CMD_FETCH:
	case GSYNC_OFFLOAD_CMD_COMMIT_FETCH:
		memcpy(&pdu->sc, gsync_cmd_payload(cmd), sizeof(pdu->sc));
		if (issue_flags & IO_URING_F_UNLOCKED) {
			pdu->reissue = 1;
			io_uring_cmd_complete_in_task(cmd, gsync_offload_tw);
			return -EIOCBQUEUED;
		}
		return gsync_offload_cmd_local(cmd, issue_flags);
	default:
		return -EOPNOTSUPP;
	}
}

static int gsync_offload_open(struct inode *inode, struct file *file)
{
	struct gsync_offload_agent *a = gsync_offload_agent_alloc();

	if (!a)
		return -ENOMEM;
	a->complete = gsync_offload_complete;
	a->task = get_task_struct(current->group_leader);
	file->private_data = a;
	return 0;
}

static int gsync_offload_release(struct inode *inode, struct file *file)
{
	struct gsync_offload_agent *a = file->private_data;

	if (a->registered)
		pr_info("agent %d gone\n", task_tgid_nr(a->task));
	gsync_offload_agent_release(a);
	return 0;
}

static int gsync_offload_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct gsync_offload_agent *a = file->private_data;

	/* region and region_bytes are set once, before registered. */
	if (!smp_load_acquire(&a->registered))
		return -ENXIO;
	if (vma->vm_pgoff || !(vma->vm_flags & VM_SHARED) ||
	    vma->vm_end - vma->vm_start != PAGE_ALIGN(a->region_bytes))
		return -EINVAL;
	return remap_vmalloc_range(vma, a->region, 0);
}

static const struct file_operations gsync_offload_fops = {
	.owner = THIS_MODULE,
	.open = gsync_offload_open,
	.release = gsync_offload_release,
	.mmap = gsync_offload_mmap,
	.uring_cmd = gsync_offload_uring_cmd,
	.llseek = noop_llseek,
};

static struct miscdevice gsync_offload_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "gsync-offload",
	.fops = &gsync_offload_fops,
	.mode = 0600,
};

static struct proc_dir_entry *gsync_offload_proc;

int gsync_offload_init(void)
{
	int err;

	gsync_offload_proc = proc_create_single("driver/gsync_offload", 0444,
						NULL, gsync_offload_show);
	if (!gsync_offload_proc)
		return -ENOMEM;
	err = misc_register(&gsync_offload_misc);
	if (err) {
		proc_remove(gsync_offload_proc);
		return err;
	}
	return 0;
}

void gsync_offload_exit(void)
{
	misc_deregister(&gsync_offload_misc);
	proc_remove(gsync_offload_proc);
	gsync_offload_core_exit();
}
