/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_cred.c - running a file operation as the (squashed) caller, on the calling thread only.
 *
 * The backend runs as root and changes the calling thread's fs uid, fs gid and supplementary
 * groups around each operation, so the kernel checks modes, ACLs, the sticky bit and setgid
 * rules as it would for a local user. The calls are raw system calls: glibc's setgroups() and
 * setfsuid() wrappers broadcast the change to every thread of the process (POSIX semantics,
 * via a signal to each thread), which would hand one request's identity to all the others.
 *
 * Capabilities follow the fs uid (Linux cap_task_fix_setuid, LSM_SETID_FS): moving the fs uid
 * from 0 to another id clears CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER,
 * CAP_FSETID, ... from the effective set, and moving it back to 0 restores them from the
 * permitted set. So what needs privilege - open_by_handle_at() needs CAP_DAC_READ_SEARCH - is
 * done as root before nfs_cred_enter() or after nfs_cred_leave(), never in between.
 */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nfs_fs_int.h"

/* this thread's fs ids and groups before its first switch, restored on leave */
static _Thread_local bool saved;
static _Thread_local uint32_t saved_fsuid, saved_fsgid;
static _Thread_local int saved_n;
static _Thread_local gid_t saved_groups[64];

static long raw_setgroups(size_t n, const gid_t *g)
{
	return syscall(SYS_setgroups, n, g);
}

/* setfsuid/setfsgid return the previous id and no error: read back with an invalid id */
static bool raw_setfsuid(uint32_t uid)
{
	syscall(SYS_setfsuid, uid);
	return (uint32_t)syscall(SYS_setfsuid, (uid_t)-1) == uid;
}

static bool raw_setfsgid(uint32_t gid)
{
	syscall(SYS_setfsgid, gid);
	return (uint32_t)syscall(SYS_setfsgid, (gid_t)-1) == gid;
}

int nfs_cred_enter(const struct nfs_cred *c)
{
	gid_t g[NFS_MAX_GROUPS];
	uint32_t n = c->ngroups > NFS_MAX_GROUPS ? NFS_MAX_GROUPS : c->ngroups;

	if (!saved) {
		long r = syscall(SYS_getgroups, 64, saved_groups);

		saved_n = r < 0 ? 0 : (int)r;
		saved_fsuid = (uint32_t)syscall(SYS_setfsuid, (uid_t)-1);
		saved_fsgid = (uint32_t)syscall(SYS_setfsgid, (gid_t)-1);
		saved = true;
	}
	for (uint32_t i = 0; i < n; i++)
		g[i] = c->groups[i];
	if (raw_setgroups(n, g) != 0)
		goto fail;
	if (!raw_setfsgid(c->gid))
		goto fail;
	if (!raw_setfsuid(c->uid))
		goto fail;
	return 0;
fail:
	nfs_cred_leave();
	return -EPERM;
}

void nfs_cred_leave(void)
{
	raw_setfsuid(saved ? saved_fsuid : 0);
	raw_setfsgid(saved ? saved_fsgid : 0);
	raw_setgroups(saved ? (size_t)saved_n : 0, saved_groups);
}
