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
 * permitted set. So what needs privilege - open_by_handle_at() needs CAP_DAC_READ_SEARCH -
 * calls nfs_cred_root() first, and never runs as a caller.
 *
 * Each thread remembers the identity it holds, and a switch makes only the system calls whose
 * id actually changes: none when the caller is the one the thread already has. Each switch
 * costs the kernel a new struct cred (prepare_creds/commit_creds), so that matters. Threads
 * that do nothing but backend operations (the helper threads, nfs_pool.c) call
 * nfs_cred_lazy(): their nfs_cred_leave() keeps the caller's identity for the next operation,
 * which is most often the same caller's, and they go back to root only when something
 * privileged is next (nfs_cred_root()). Every other thread (the lcore, which also makes
 * hugepage files, state files, ...) is back to root at each nfs_cred_leave(), as before.
 *
 * Failure detection: setfsuid() and setfsgid() return the previous id and no error; an id the
 * kernel refuses (no CAP_SETUID, (uid_t)-1, an id unmapped in the user namespace) leaves the
 * old one silently. So a switch to a caller's id is read back with an invalid id (-1), which
 * returns the current one. A switch back to the thread's own ids needs no read-back when they
 * are the effective ids (checked once per thread): the fs ids may always be set to those. Each call's return value (the previous id) is
 * also compared with what the thread believes it holds; a mismatch (someone else changed the
 * ids) forces the read-back too.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "nfs_fs_int.h"

#define ROOT_GROUPS_MAX 64

/* this thread's fs ids and groups before its first switch: "root" */
static _Thread_local bool inited, lazy;
static _Thread_local uint32_t root_uid, root_gid;
static _Thread_local bool root_uid_eff, root_gid_eff; /* equal to the effective ids */
static _Thread_local uint32_t root_n;
static _Thread_local gid_t root_groups[ROOT_GROUPS_MAX];
/* what the thread holds now; cur_n == UINT32_MAX: the groups are unknown */
static _Thread_local uint32_t cur_uid, cur_gid, cur_n;
static _Thread_local gid_t cur_groups[ROOT_GROUPS_MAX];

static void init_thread(void)
{
	long r = syscall(SYS_getgroups, ROOT_GROUPS_MAX, root_groups);

	root_n = r < 0 ? 0 : (uint32_t)r;
	root_uid = (uint32_t)syscall(SYS_setfsuid, (uid_t)-1);
	root_gid = (uint32_t)syscall(SYS_setfsgid, (gid_t)-1);
	root_uid_eff = root_uid == (uint32_t)geteuid();
	root_gid_eff = root_gid == (uint32_t)getegid();
	cur_uid = root_uid;
	cur_gid = root_gid;
	cur_n = root_n;
	memcpy(cur_groups, root_groups, root_n * sizeof(gid_t));
	inited = true;
}

static int set_groups(uint32_t n, const gid_t *g)
{
	if (n == cur_n && memcmp(g, cur_groups, n * sizeof(gid_t)) == 0)
		return 0;
	if (syscall(SYS_setgroups, (size_t)n, g) != 0) {
		cur_n = UINT32_MAX;
		return -EPERM;
	}
	cur_n = n;
	memcpy(cur_groups, g, n * sizeof(gid_t));
	return 0;
}

/* sys is SYS_setfsuid or SYS_setfsgid; *cur is what the thread holds; sure: the kernel always
 * takes id (it is the effective id) */
static int set_fsid(long sys, uint32_t id, uint32_t *cur, bool sure)
{
	uint32_t prev;

	if (id == *cur)
		return 0;
	prev = (uint32_t)syscall(sys, id);
	if (!sure || prev != *cur) {
		*cur = (uint32_t)syscall(sys, -1); /* what the kernel kept */
		if (*cur != id)
			return -EPERM;
	}
	*cur = id;
	return 0;
}

/* Become (uid, gid, groups): groups first, then gid, then uid, as the kernel checks them. */
static int become(uint32_t uid, uint32_t gid, uint32_t n, const gid_t *g)
{
	if (!inited)
		init_thread();
	if (set_groups(n, g) != 0)
		return -EPERM;
	if (set_fsid(SYS_setfsgid, gid, &cur_gid, gid == root_gid && root_gid_eff) != 0)
		return -EPERM;
	return set_fsid(SYS_setfsuid, uid, &cur_uid, uid == root_uid && root_uid_eff);
}

int nfs_cred_root(void)
{
	if (!inited)
		init_thread();
	/* the uid first: back at fs uid 0 the capabilities return before gid and groups change */
	if (set_fsid(SYS_setfsuid, root_uid, &cur_uid, root_uid_eff) != 0 ||
	    set_fsid(SYS_setfsgid, root_gid, &cur_gid, root_gid_eff) != 0 ||
	    set_groups(root_n, root_groups) != 0)
		return -EPERM;
	return 0;
}

int nfs_cred_enter(const struct nfs_cred *c)
{
	gid_t g[NFS_MAX_GROUPS];
	uint32_t n = c->ngroups > NFS_MAX_GROUPS ? NFS_MAX_GROUPS : c->ngroups;

	for (uint32_t i = 0; i < n; i++)
		g[i] = c->groups[i];
	if (become(c->uid, c->gid, n, g) == 0)
		return 0;
	nfs_cred_root();
	return -EPERM;
}

void nfs_cred_leave(void)
{
	if (!lazy)
		nfs_cred_root();
}

void nfs_cred_lazy(bool on)
{
	lazy = on;
	if (!on)
		nfs_cred_root();
}

bool nfs_cred_is_root(void)
{
	return !inited || (cur_uid == root_uid && cur_gid == root_gid && cur_n == root_n &&
			   memcmp(cur_groups, root_groups, root_n * sizeof(gid_t)) == 0);
}
