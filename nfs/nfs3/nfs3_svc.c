/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3_svc.c - the NFSv3 program (RFC 1813): each procedure's row (XDR routines from
 * nfs/xdr, its handler) and handlers that map arguments onto the backend (nfs/fs) and its
 * answers onto results. Handlers always answer SUCCESS at the RPC level: NFS errors travel in
 * the results' status, as the RFC says. Undecodable arguments never reach a handler
 * (orpc_svc answers GARBAGE_ARGS).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "nfs3_svc.h"
#include "nfs3_xdr.h"
#include "nfs4_svc.h"
#include "nfs_aio.h"
#include "nfs_pool.h"

#define NFS3_MAX_DIRENTS 16384u
#define NFS3_NAMES_CAP (NFS3_MAX_DIRENTS * 64u)

static struct nfs3_server *server_of(struct orpc_req *r)
{
	return r->svc->ctx;
}

void nfs3_make_ctx(const struct orpc_req *r, struct nfs_fs *fs, struct nfs_ctx *c)
{
	const struct orpc_authsys *sys = &r->call.sys;

	memset(c, 0, sizeof(*c));
	c->fs = fs;
	memcpy(&c->peer, &r->peer->addr, sizeof(c->peer));
	c->rdma = r->peer->xprt == ORPC_XPRT_RDMA;
	c->cred.flavor = r->call.cred_flavor;
	if (r->call.cred_flavor == AUTH_SYS) {
		c->cred.uid = sys->uid;
		c->cred.gid = sys->gid;
		c->cred.ngroups = sys->ngids < NFS_MAX_GROUPS ? sys->ngids : NFS_MAX_GROUPS;
		memcpy(c->cred.groups, sys->gids, c->cred.ngroups * sizeof(c->cred.groups[0]));
	}
}

static void make_ctx(struct orpc_req *r, struct nfs_ctx *c)
{
	nfs3_make_ctx(r, server_of(r)->fs, c);
}

static const enum nfs_stat stat_slots[] = {NFS_OK,
					   NFS_ERR_PERM,
					   NFS_ERR_NOENT,
					   NFS_ERR_IO,
					   NFS_ERR_NXIO,
					   NFS_ERR_ACCES,
					   NFS_ERR_EXIST,
					   NFS_ERR_XDEV,
					   NFS_ERR_NODEV,
					   NFS_ERR_NOTDIR,
					   NFS_ERR_ISDIR,
					   NFS_ERR_INVAL,
					   NFS_ERR_FBIG,
					   NFS_ERR_NOSPC,
					   NFS_ERR_ROFS,
					   NFS_ERR_MLINK,
					   NFS_ERR_NAMETOOLONG,
					   NFS_ERR_NOTEMPTY,
					   NFS_ERR_DQUOT,
					   NFS_ERR_STALE,
					   NFS_ERR_REMOTE,
					   NFS_ERR_BADHANDLE,
					   NFS_ERR_NOT_SYNC,
					   NFS_ERR_BAD_COOKIE,
					   NFS_ERR_NOTSUPP,
					   NFS_ERR_TOOSMALL,
					   NFS_ERR_SERVERFAULT,
					   NFS_ERR_BADTYPE,
					   NFS_ERR_JUKEBOX};
#define NSTAT_SLOTS (sizeof(stat_slots) / sizeof(stat_slots[0]))

uint32_t nfs3_stat_slot(enum nfs_stat st)
{
	for (uint32_t i = 0; i < NSTAT_SLOTS; i++)
		if (stat_slots[i] == st)
			return i;
	return 31;
}

enum nfs_stat nfs3_stat_of_slot(uint32_t slot)
{
	return slot < NSTAT_SLOTS ? stat_slots[slot] : NFS_ERR_SERVERFAULT;
}

static struct nfs3_scratch *scratch_get(struct nfs3_server *s);
static void scratch_put(struct nfs3_server *s, struct nfs3_scratch *sc);
static void unpark(struct nfs3_server *s);
static void pool_end(struct orpc_pending *p);
static void nfs3_count(struct nfs3_server *s, uint32_t proc, const void *res, uint64_t t0_ns);

/* CLOCK_MONOTONIC, not the TSC: droce-nfsd --listen runs without the EAL, which is what
 * knows the TSC's rate. Through the vDSO it costs tens of ns, twice a call. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t nfs3_lat_bucket(uint64_t ns)
{
	return nfs_lat_bucket(ns);
}

/* Every handler ends here. Handlers run on a helper thread when the server has a pool, so
 * they touch nothing shared but the backend: counting happens where the call ends
 * (nfs3_count, on the lcore). */
static enum accept_stat answered(struct orpc_req *r, enum nfs_stat st)
{
	(void)r, (void)st;
	return SUCCESS;
}

/* Scratch space for READ data, READLINK paths and directory entries: the call's own when it
 * was deferred (orpc_req.user), else the server's. */
static struct nfs3_scratch *scratch_of(struct orpc_req *r)
{
	return r->user ? r->user : &server_of(r)->sync_scratch;
}

static enum accept_stat p_null(struct orpc_req *r, void *a, void *res)
{
	(void)a, (void)res;
	return answered(r, NFS_OK);
}

static enum accept_stat p_getattr(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_fh_args *args = a;
	struct nfs3_getattr_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_getattr(&c, &args->fh, &o->attr);
	return answered(r, o->status);
}

static enum accept_stat p_setattr(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_setattr_args *args = a;
	struct nfs3_wcc_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_setattr(&c, &args->fh, &args->sattr,
				   args->guard ? &args->guard_ctime : NULL, &o->wcc);
	return answered(r, o->status);
}

static enum accept_stat p_lookup(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_diropargs *args = a;
	struct nfs3_lookup_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_lookup(&c, &args->dir, args->name, args->namelen, &o->fh,
				  &o->obj_attr.attr, &o->dir_attr.valid, &o->dir_attr.attr);
	o->obj_attr.valid = o->status == NFS_OK;
	return answered(r, o->status);
}

static enum accept_stat p_access(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_access_args *args = a;
	struct nfs3_access_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_access(&c, &args->fh, args->access, &o->access, &o->attr.valid,
				  &o->attr.attr);
	return answered(r, o->status);
}

static enum accept_stat p_readlink(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_fh_args *args = a;
	struct nfs3_readlink_res *o = res;
	struct nfs3_scratch *sc = scratch_of(r);
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_readlink(&c, &args->fh, (char *)sc->read_buf, NFS_PATH_MAX, &o->pathlen,
				    &o->attr.valid, &o->attr.attr);
	o->path = (const char *)sc->read_buf;
	if (o->status == NFS_OK)
		r->ddp_len = o->pathlen; /* RFC 8267 §4.1: the path is DDP-eligible; a write chunk
					    takes it from the encoded reply (registered memory) */
	return answered(r, o->status);
}

static uint32_t read_count(const struct nfs3_server *s, const struct nfs3_read_args *a)
{
	return a->count < s->max_io ? a->count : s->max_io;
}

/* Where a READ's data goes, chosen on the lcore as the call arrives: straight into the
 * transport's DDP sink when it offers one large enough (RPC-over-RDMA with a write chunk: the
 * data is then sent from where the file system put it), else the scratch buffer (encoded
 * inline: TCP, or no write chunk). */
static void read_dest(struct orpc_req *r, struct nfs3_scratch *sc, uint32_t count)
{
	const struct orpc_peer *p = r->peer;

	sc->placed = p->ddp_sink && count <= p->ddp_sink_len;
	sc->dest = sc->placed ? p->ddp_sink : sc->read_buf;
}

/* A READ's results once its data is at sc->dest. */
static void read_answer(struct orpc_req *r, struct nfs3_scratch *sc, struct nfs3_read_res *o)
{
	if (o->status != NFS_OK)
		return;
	o->data = sc->dest;
	o->data_len = o->count;
	o->placed = sc->placed;
	r->ddp_len = o->count;
	r->ddp_placed = sc->placed;
}

static enum accept_stat p_read(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_read_args *args = a;
	struct nfs3_read_res *o = res;
	struct nfs3_scratch *sc = scratch_of(r);
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_read(&c, &args->fh, args->offset, read_count(server_of(r), args),
				sc->dest, &o->count, &o->eof, &o->attr.valid, &o->attr.attr);
	read_answer(r, sc, o);
	return answered(r, o->status);
}

static enum accept_stat p_write(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_write_args *args = a;
	struct nfs3_write_res *o = res;
	struct nfs3_server *s = server_of(r);
	struct nfs_ctx c;

	make_ctx(r, &c);
	/* RFC 1813 §3.3.7: count bytes of data; less data than count is the client's error
	 * (knfsd refuses it too) */
	if (args->data_len < args->count) {
		o->status = NFS_ERR_INVAL;
		return answered(r, o->status);
	}
	o->status = nfs_fs_write(&c, &args->fh, args->offset, args->data, args->count, args->stable,
				 &o->count, &o->committed, &o->wcc);
	nfs_fs_write_verf(s->fs, o->verf);
	return answered(r, o->status);
}

/* CREATE, MKDIR, SYMLINK and MKNOD answer the same shape: the new object's handle and
 * attributes, and the directory's wcc. */
static enum accept_stat created(struct orpc_req *r, struct nfs3_create_res *o)
{
	o->fh.valid = o->status == NFS_OK;
	o->attr.valid = o->status == NFS_OK;
	return answered(r, o->status);
}

static enum accept_stat p_create(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_create_args *args = a;
	struct nfs3_create_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_create(&c, &args->where.dir, args->where.name, args->where.namelen,
				  args->mode, &args->sattr, args->verf, &o->fh.fh, &o->attr.attr,
				  &o->dir_wcc);
	return created(r, o);
}

static enum accept_stat p_mkdir(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_mkdir_args *args = a;
	struct nfs3_create_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_mkdir(&c, &args->where.dir, args->where.name, args->where.namelen,
				 &args->sattr, &o->fh.fh, &o->attr.attr, &o->dir_wcc);
	return created(r, o);
}

static enum accept_stat p_symlink(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_symlink_args *args = a;
	struct nfs3_create_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_symlink(&c, &args->where.dir, args->where.name, args->where.namelen,
				   &args->sattr, args->path, args->pathlen, &o->fh.fh,
				   &o->attr.attr, &o->dir_wcc);
	return created(r, o);
}

static enum accept_stat p_mknod(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_mknod_args *args = a;
	struct nfs3_create_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_mknod(&c, &args->where.dir, args->where.name, args->where.namelen,
				 args->type, &args->sattr, args->rdev_major, args->rdev_minor,
				 &o->fh.fh, &o->attr.attr, &o->dir_wcc);
	return created(r, o);
}

static enum accept_stat p_remove(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_diropargs *args = a;
	struct nfs3_wcc_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_remove(&c, &args->dir, args->name, args->namelen, &o->wcc);
	return answered(r, o->status);
}

static enum accept_stat p_rmdir(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_diropargs *args = a;
	struct nfs3_wcc_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_rmdir(&c, &args->dir, args->name, args->namelen, &o->wcc);
	return answered(r, o->status);
}

static enum accept_stat p_rename(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_rename_args *args = a;
	struct nfs3_rename_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_rename(&c, &args->from.dir, args->from.name, args->from.namelen,
				  &args->to.dir, args->to.name, args->to.namelen, &o->from_wcc,
				  &o->to_wcc);
	return answered(r, o->status);
}

static enum accept_stat p_link(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_link_args *args = a;
	struct nfs3_link_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_link(&c, &args->fh, &args->link.dir, args->link.name, args->link.namelen,
				&o->attr.valid, &o->attr.attr, &o->dir_wcc);
	return answered(r, o->status);
}

/* READDIR(PLUS): entries are gathered into the server's scratch until the next one would
 * make the reply larger than the client asked for (count, or maxcount for PLUS). */
struct dir_fill {
	struct nfs3_scratch *s;
	struct nfs3_readdir_res *o;
	bool plus;
	uint32_t room; /* bytes left for entries */
	uint32_t names_used;
};

static bool dir_take(void *arg, const struct nfs_dirent *e)
{
	struct dir_fill *f = arg;
	struct nfs3_scratch *s = f->s;
	uint32_t sz = f->plus ? nfs3_readdirplus_entry_xdr_size(e->namelen, e->fh_valid, e->fh.len,
								e->attr_valid)
			      : nfs3_readdir_entry_xdr_size(e->namelen);
	struct nfs_dirent *d;

	if (sz > f->room || f->o->count >= s->max_dirents ||
	    f->names_used + e->namelen > s->names_cap)
		return false;
	d = &s->dirents[f->o->count++];
	*d = *e;
	memcpy(s->names + f->names_used, e->name, e->namelen);
	d->name = s->names + f->names_used;
	f->names_used += e->namelen;
	f->room -= sz;
	return true;
}

static enum accept_stat readdir_common(struct orpc_req *r, const struct nfs_fh *dir,
				       uint64_t cookie, const uint8_t verf[8], uint32_t count,
				       bool plus, struct nfs3_readdir_res *o)
{
	struct nfs3_server *s = server_of(r);
	struct dir_fill f = {.s = scratch_of(r), .o = o, .plus = plus};
	uint32_t overhead = nfs3_readdir_resok_overhead(true);
	struct nfs_ctx c;

	make_ctx(r, &c);
	if (count > s->max_io)
		count = s->max_io;
	memcpy(o->cookieverf, verf, NFS3_VERF_SIZE);
	o->entries = f.s->dirents;
	o->count = 0;
	f.room = count > overhead ? count - overhead : 0;
	o->status = nfs_fs_readdir(&c, dir, cookie, o->cookieverf, plus, dir_take, &f, &o->eof,
				   &o->dir_attr.valid, &o->dir_attr.attr);
	/* not even one entry fits, and the directory has more: the client's buffer is too
	 * small (RFC 1813 §3.3.16) */
	if (o->status == NFS_OK && o->count == 0 && !o->eof)
		o->status = NFS_ERR_TOOSMALL;
	return answered(r, o->status);
}

static enum accept_stat p_readdir(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_readdir_args *args = a;

	return readdir_common(r, &args->dir, args->cookie, args->cookieverf, args->count, false,
			      res);
}

static enum accept_stat p_readdirplus(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_readdirplus_args *args = a;

	return readdir_common(r, &args->dir, args->cookie, args->cookieverf, args->maxcount, true,
			      res);
}

static enum accept_stat p_fsstat(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_fh_args *args = a;
	struct nfs3_fsstat_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_fsstat(&c, &args->fh, &o->st, &o->attr.valid, &o->attr.attr);
	return answered(r, o->status);
}

static enum accept_stat p_fsinfo(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_fh_args *args = a;
	struct nfs3_fsinfo_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_fsinfo(&c, &args->fh, server_of(r)->max_io, &o->fi, &o->attr.valid,
				  &o->attr.attr);
	return answered(r, o->status);
}

static enum accept_stat p_pathconf(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_fh_args *args = a;
	struct nfs3_pathconf_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_pathconf(&c, &args->fh, &o->pc, &o->attr.valid, &o->attr.attr);
	return answered(r, o->status);
}

static enum accept_stat p_commit(struct orpc_req *r, void *a, void *res)
{
	struct nfs3_commit_args *args = a;
	struct nfs3_commit_res *o = res;
	struct nfs_ctx c;

	make_ctx(r, &c);
	o->status = nfs_fs_commit(&c, &args->fh, args->offset, args->count, &o->wcc);
	nfs_fs_write_verf(server_of(r)->fs, o->verf);
	return answered(r, o->status);
}

/* The work of each procedure, indexed by procedure number. */
typedef enum accept_stat (*nfs3_work_t)(struct orpc_req *r, void *args, void *res);
static const nfs3_work_t nfs3_work[NFS3_NPROCS] = {
	p_null,	   p_getattr,	  p_setattr, p_lookup, p_access,   p_readlink, p_read,	 p_write,
	p_create,  p_mkdir,	  p_symlink, p_mknod,  p_remove,   p_rmdir,    p_rename, p_link,
	p_readdir, p_readdirplus, p_fsstat,  p_fsinfo, p_pathconf, p_commit,
};

/* MOUNT's calls reach the pool too (MNT): they are told apart by their program. */
static bool is_mount(const struct orpc_req *r)
{
	return r->call.prog == MOUNT_PROG;
}

static enum accept_stat nfs3_call_work(struct orpc_req *r, void *args, void *res)
{
	return nfs3_work[r->call.proc](r, args, res);
}

/* the call's arrival is in its scratch set: its own when deferred, the server's when run at
 * once (nfs3_defer_or_run sets either) */
static void nfs3_call_end(struct orpc_req *r, void *args, void *res)
{
	(void)args;
	nfs3_count(server_of(r), r->call.proc, res, scratch_of(r)->t0_ns);
}

/* An NFSv3 READ (not MOUNT's MNT, which shares the helper path) */
static bool is_read_call(const struct orpc_req *r)
{
	return r->call.prog == NFS3_PROG && r->call.proc == NFS3_PROC_READ;
}

/* Deferred call @p takes scratch set @sc (a READ's destination chosen) and goes to the pool.
 * @return nfs_pool_submit's */
static int to_pool(struct nfs3_server *s, struct orpc_pending *p, struct nfs3_scratch *sc,
		   uint64_t t0)
{
	struct orpc_req *r = orpc_pending_req(p);

	r->user = sc;
	sc->t0_ns = t0;
	if (is_read_call(r))
		read_dest(r, sc, read_count(s, orpc_pending_args(p)));
	return nfs_pool_submit(s->pool, p);
}

/* With a pool, the call is deferred and its work runs on a helper thread (the lcore goes on
 * with other connections); without one, when the transport cannot keep the call (UDP with
 * every slot taken, or a draining server), or when every scratch set is taken, it runs at
 * once. */
enum accept_stat nfs3_defer_or_run(struct orpc_req *r, void *args, void *res,
				   enum accept_stat (*work)(struct orpc_req *, void *, void *),
				   void (*end)(struct orpc_req *, void *, void *))
{
	struct nfs3_server *s = server_of(r);
	uint64_t t0 = now_ns();
	enum accept_stat st;

	if (s->pool && nfs_pool_stopping(s->pool)) {
		s->st.sync_fallback++; /* its workers are going: the lcore runs it */
	} else if (s->pool && nfs_pool_inflight(s->pool) < NFS_POOL_RING) {
		struct nfs3_scratch *sc = scratch_get(s);
		bool room = sc || s->park_tail - s->park_head < NFS3_MAX_PARKED;
		struct orpc_pending *p = room ? orpc_svc_defer(r, args, res) : NULL;

		if (p && sc) {
			to_pool(s, p, sc, t0); /* cannot fail: the ring has room, the pool runs */
			s->st.deferred++;
			return ORPC_DEFER;
		}
		if (p) { /* every set is with a call that is running: wait for one (unpark) */
			orpc_pending_req(p)->user = NULL;
			s->parked[s->park_tail % NFS3_MAX_PARKED] =
				(struct nfs3_parked){.p = p, .t0_ns = t0};
			s->park_tail++;
			s->st.parked++;
			return ORPC_DEFER;
		}
		if (sc)
			scratch_put(s, sc);
		s->st.sync_fallback++;
	}
	s->sync_scratch.t0_ns = t0; /* scratch_of(r) for a call run at once */
	if (is_read_call(r))
		read_dest(r, &s->sync_scratch, read_count(s, args));
	st = work(r, args, res);
	end(r, args, res);
	return st;
}

/* READ and WRITE through io_uring on the lcore (nfs_aio.h), when the backend can start them
 * without blocking. @return true: the call is deferred until nfs3_aio_done */
static bool aio_start(struct orpc_req *r, void *args, void *res)
{
	struct nfs3_server *s = server_of(r);
	struct nfs3_scratch *sc = scratch_get(s);
	uint64_t t0 = now_ns();
	struct nfs_aio_op *op = NULL;
	struct orpc_pending *p;
	struct nfs_ctx c;

	if (!sc)
		return false;
	make_ctx(r, &c);
	if (r->call.proc == NFS3_PROC_READ) {
		const struct nfs3_read_args *a = args;

		read_dest(r, sc, read_count(s, a));
		op = nfs_aio_read(s->aio, &c, &a->fh, a->offset, read_count(s, a), sc->dest);
	} else {
		const struct nfs3_write_args *a = args;

		/* less data than count is INVAL, answered by p_write */
		if (a->data_len >= a->count)
			op = nfs_aio_write(s->aio, &c, &a->fh, a->offset, a->data, a->count,
					   a->stable);
	}
	p = op ? orpc_svc_defer(r, args, res) : NULL;
	if (!p) {
		if (op)
			nfs_aio_cancel(op);
		scratch_put(s, sc);
		return false;
	}
	orpc_pending_req(p)->user = sc;
	sc->t0_ns = t0;
	nfs_aio_submit(op, p);
	s->st.aio++;
	return true;
}

void nfs3_aio_done(const struct nfs_aio_done *d)
{
	struct orpc_pending *p = d->cookie;
	struct orpc_req *r = orpc_pending_req(p);
	struct nfs3_server *s = server_of(r);
	struct nfs3_scratch *sc = r->user;
	void *res = orpc_pending_res(p);

	if (nfs4_is_call(r)) {
		nfs4_aio_done(d);
		return;
	}
	if (d->rerun) {
		/* the file changed owner since the READ started: the helper threads (or, with none
		 * that take it: stopping or full, nfs_pool_submit says, the lcore) run it again with
		 * the checks a non-owner needs */
		if (s->pool && to_pool(s, p, sc, sc->t0_ns) == 0)
			return;
		s->st.sync_fallback++;
		nfs3_pool_work(p);
		pool_end(p);
		unpark(s);
		return;
	}

	if (d->write) {
		struct nfs3_write_res *o = res;

		o->status = d->status;
		o->count = d->count;
		o->committed = d->committed;
		o->wcc = d->wcc;
		nfs_fs_write_verf(s->fs, o->verf);
	} else {
		struct nfs3_read_res *o = res;

		o->status = d->status;
		o->count = d->count;
		o->eof = d->eof;
		o->attr.valid = d->attr_valid;
		o->attr.attr = d->attr;
		read_answer(r, sc, o);
	}
	nfs3_call_end(r, orpc_pending_args(p), res);
	/* the transport encodes the reply now (READ data points into sc), or drops it */
	orpc_pending_done(p, SUCCESS);
	scratch_put(s, sc);
	unpark(s);
}

/*
 * A change to a file under an NFSv4 read delegation (RFC 8881 §10.4.5 applies to any other
 * client): WRITE, SETATTR of the size, REMOVE, and RENAME (of the file, or onto it) recall it
 * and answer NFS3ERR_JUKEBOX until it is returned or revoked. On the lcore, before any
 * deferral: the delegations are the v4 server's, which no helper thread touches.
 * @return true: res holds JUKEBOX
 */
static bool deleg_jukebox(struct orpc_req *r, void *args, void *res)
{
	struct nfs3_server *s = server_of(r);
	enum nfs_stat *status = res; /* each result below starts with its status */
	struct nfs_ctx c;
	bool held = false;

	if (!s->v4)
		return false;
	make_ctx(r, &c);
	switch (r->call.proc) {
	case NFS3_PROC_WRITE:
		held = nfs4_deleg_break(s->v4, &c, &((struct nfs3_write_args *)args)->fh);
		break;
	case NFS3_PROC_SETATTR: {
		struct nfs3_setattr_args *a = args;

		held = a->sattr.set_size && nfs4_deleg_break(s->v4, &c, &a->fh);
		break;
	}
	case NFS3_PROC_REMOVE: {
		struct nfs3_diropargs *a = args;

		held = nfs4_deleg_break_name(s->v4, &c, &a->dir, a->name, a->namelen);
		break;
	}
	case NFS3_PROC_RENAME: {
		struct nfs3_rename_args *a = args;

		held = nfs4_deleg_break_name(s->v4, &c, &a->from.dir, a->from.name,
					     a->from.namelen) |
		       nfs4_deleg_break_name(s->v4, &c, &a->to.dir, a->to.name, a->to.namelen);
		break;
	}
	default:
		break;
	}
	if (held)
		*status = NFS_ERR_JUKEBOX;
	return held;
}

/* Every NFSv3 procedure enters here; NULL has no work to hand over. */
static enum accept_stat nfs3_entry(struct orpc_req *r, void *args, void *res)
{
	if (deleg_jukebox(r, args, res)) {
		nfs3_count(server_of(r), r->call.proc, res, now_ns());
		return SUCCESS;
	}
	if (server_of(r)->aio &&
	    (r->call.proc == NFS3_PROC_READ || r->call.proc == NFS3_PROC_WRITE) &&
	    aio_start(r, args, res))
		return ORPC_DEFER;
	if (r->call.proc == NFS3_PROC_NULL) {
		uint64_t t0 = now_ns();
		enum accept_stat st = p_null(r, args, res);

		nfs3_count(server_of(r), r->call.proc, res, t0);
		return st;
	}
	return nfs3_defer_or_run(r, args, res, nfs3_call_work, nfs3_call_end);
}

/* One row per procedure: name, arguments, results, handler, DDP-eligible results. */
#define ROW(name, args_t, xargs, res_t, xres, fn, ddp)                                             \
	{                                                                                          \
		name, (xdrproc_t)(xargs), sizeof(args_t), (xdrproc_t)(xres), sizeof(res_t), fn,    \
			ddp                                                                        \
	}

static const struct orpc_proc nfs3_procs[NFS3_NPROCS] = {
	{"NULL", (xdrproc_t)xdr_void, 0, (xdrproc_t)xdr_void, 0, nfs3_entry, false},
	ROW("GETATTR", struct nfs3_fh_args, xdr_nfs3_fh_args, struct nfs3_getattr_res,
	    xdr_nfs3_getattr_res, nfs3_entry, false),
	ROW("SETATTR", struct nfs3_setattr_args, xdr_nfs3_setattr_args, struct nfs3_wcc_res,
	    xdr_nfs3_wcc_res, nfs3_entry, false),
	ROW("LOOKUP", struct nfs3_diropargs, xdr_nfs3_diropargs, struct nfs3_lookup_res,
	    xdr_nfs3_lookup_res, nfs3_entry, false),
	ROW("ACCESS", struct nfs3_access_args, xdr_nfs3_access_args, struct nfs3_access_res,
	    xdr_nfs3_access_res, nfs3_entry, false),
	ROW("READLINK", struct nfs3_fh_args, xdr_nfs3_fh_args, struct nfs3_readlink_res,
	    xdr_nfs3_readlink_res, nfs3_entry, true),
	ROW("READ", struct nfs3_read_args, xdr_nfs3_read_args, struct nfs3_read_res,
	    xdr_nfs3_read_res, nfs3_entry, true),
	ROW("WRITE", struct nfs3_write_args, xdr_nfs3_write_args, struct nfs3_write_res,
	    xdr_nfs3_write_res, nfs3_entry, false),
	ROW("CREATE", struct nfs3_create_args, xdr_nfs3_create_args, struct nfs3_create_res,
	    xdr_nfs3_create_res, nfs3_entry, false),
	ROW("MKDIR", struct nfs3_mkdir_args, xdr_nfs3_mkdir_args, struct nfs3_create_res,
	    xdr_nfs3_create_res, nfs3_entry, false),
	ROW("SYMLINK", struct nfs3_symlink_args, xdr_nfs3_symlink_args, struct nfs3_create_res,
	    xdr_nfs3_create_res, nfs3_entry, false),
	ROW("MKNOD", struct nfs3_mknod_args, xdr_nfs3_mknod_args, struct nfs3_create_res,
	    xdr_nfs3_create_res, nfs3_entry, false),
	ROW("REMOVE", struct nfs3_diropargs, xdr_nfs3_diropargs, struct nfs3_wcc_res,
	    xdr_nfs3_wcc_res, nfs3_entry, false),
	ROW("RMDIR", struct nfs3_diropargs, xdr_nfs3_diropargs, struct nfs3_wcc_res,
	    xdr_nfs3_wcc_res, nfs3_entry, false),
	ROW("RENAME", struct nfs3_rename_args, xdr_nfs3_rename_args, struct nfs3_rename_res,
	    xdr_nfs3_rename_res, nfs3_entry, false),
	ROW("LINK", struct nfs3_link_args, xdr_nfs3_link_args, struct nfs3_link_res,
	    xdr_nfs3_link_res, nfs3_entry, false),
	ROW("READDIR", struct nfs3_readdir_args, xdr_nfs3_readdir_args, struct nfs3_readdir_res,
	    xdr_nfs3_readdir_res, nfs3_entry, false),
	ROW("READDIRPLUS", struct nfs3_readdirplus_args, xdr_nfs3_readdirplus_args,
	    struct nfs3_readdir_res, xdr_nfs3_readdirplus_res, nfs3_entry, false),
	ROW("FSSTAT", struct nfs3_fh_args, xdr_nfs3_fh_args, struct nfs3_fsstat_res,
	    xdr_nfs3_fsstat_res, nfs3_entry, false),
	ROW("FSINFO", struct nfs3_fh_args, xdr_nfs3_fh_args, struct nfs3_fsinfo_res,
	    xdr_nfs3_fsinfo_res, nfs3_entry, false),
	ROW("PATHCONF", struct nfs3_fh_args, xdr_nfs3_fh_args, struct nfs3_pathconf_res,
	    xdr_nfs3_pathconf_res, nfs3_entry, false),
	ROW("COMMIT", struct nfs3_commit_args, xdr_nfs3_commit_args, struct nfs3_commit_res,
	    xdr_nfs3_commit_res, nfs3_entry, false),
};

static const struct orpc_version nfs3_versions[] = {{NFS3_VERS, NFS3_NPROCS, nfs3_procs}};

const struct orpc_program nfs3_program = {
	.prog = NFS3_PROG,
	.name = "nfs",
	.nvers = 1,
	.vers = nfs3_versions,
	.flavors = ORPC_FLAVOR_BIT(AUTH_NONE) | ORPC_FLAVOR_BIT(AUTH_SYS),
	/* not idempotent (RFC 1813 §4.1, knfsd's cache types): replays come from the duplicate
	 * request cache (orpc_svc.h) */
	.drc_procs = 1ull << NFS3_PROC_SETATTR | 1ull << NFS3_PROC_WRITE |
		     1ull << NFS3_PROC_CREATE | 1ull << NFS3_PROC_MKDIR |
		     1ull << NFS3_PROC_SYMLINK | 1ull << NFS3_PROC_MKNOD |
		     1ull << NFS3_PROC_REMOVE | 1ull << NFS3_PROC_RMDIR | 1ull << NFS3_PROC_RENAME |
		     1ull << NFS3_PROC_LINK,
};

/* A scratch buffer: pages of its own, which the kernel supplies as they are first used. A set
 * is about 3 MiB and is made on the lcore when a deferred call needs one; through malloc it
 * could be written whole at once (calloc's zeroing of reused heap, MALLOC_PERTURB_'s fill:
 * 770 page faults, 50 to 300 ms of a lane in a VM, seen by stk_lcore_step), while a call uses
 * a few pages of it. */
static void *lazy_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void lazy_free(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

static void scratch_free(struct nfs3_scratch *sc)
{
	lazy_free(sc->read_buf, sc->read_cap);
	lazy_free(sc->dirents, (size_t)sc->max_dirents * sizeof(*sc->dirents));
	lazy_free(sc->names, sc->names_cap);
	memset(sc, 0, sizeof(*sc));
}

static int scratch_init(struct nfs3_scratch *sc, uint32_t max_io)
{
	memset(sc, 0, sizeof(*sc));
	sc->max_dirents = NFS3_MAX_DIRENTS;
	sc->names_cap = NFS3_NAMES_CAP;
	sc->read_cap = max_io > NFS_PATH_MAX ? max_io : NFS_PATH_MAX;
	sc->read_buf = lazy_alloc(sc->read_cap);
	sc->dirents = lazy_alloc((size_t)sc->max_dirents * sizeof(*sc->dirents));
	sc->names = lazy_alloc(sc->names_cap);
	if (!sc->read_buf || !sc->dirents || !sc->names) {
		scratch_free(sc);
		return -ENOMEM;
	}
	return 0;
}

/* A scratch set for a deferred call: from the free list, or a new one up to the bound. */
static struct nfs3_scratch *scratch_get(struct nfs3_server *s)
{
	struct nfs3_scratch *sc = s->free_scratch;

	if (sc) {
		s->free_scratch = sc->next;
		return sc;
	}
	if (s->nscratch == NFS3_MAX_SCRATCH)
		return NULL;
	sc = malloc(sizeof(*sc));
	if (!sc || scratch_init(sc, s->max_io) != 0) {
		free(sc);
		return NULL;
	}
	s->nscratch++;
	return sc;
}

static void scratch_put(struct nfs3_server *s, struct nfs3_scratch *sc)
{
	sc->next = s->free_scratch;
	s->free_scratch = sc;
}

/* The counters of a call that ended (on the lcore), its results about to be encoded. */
static void nfs3_count(struct nfs3_server *s, uint32_t proc, const void *res, uint64_t t0_ns)
{
	enum nfs_stat st = proc == NFS3_PROC_NULL ? NFS_OK : *(const enum nfs_stat *)res;
	uint64_t ns = now_ns() - t0_ns;

	s->st.proc[proc]++;
	s->st.lat[proc][nfs3_lat_bucket(ns)]++;
	s->st.lat_ns[proc] += ns;
	s->st.status[nfs3_stat_slot(st)]++;
	if (st == NFS_OK)
		s->st.status_ok++;
	else
		s->st.status_err++;
	if (st == NFS_OK && proc == NFS3_PROC_READ)
		s->st.read_bytes += ((const struct nfs3_read_res *)res)->count;
	if (st == NFS_OK && proc == NFS3_PROC_WRITE)
		s->st.write_bytes += ((const struct nfs3_write_res *)res)->count;
}

int nfs3_server_init(struct nfs3_server *s, struct nfs_fs *fs, uint32_t max_io)
{
	memset(s, 0, sizeof(*s));
	s->fs = fs;
	s->max_io = max_io;
	return scratch_init(&s->sync_scratch, max_io);
}

void nfs3_server_fini(struct nfs3_server *s)
{
	struct nfs3_scratch *sc;

	scratch_free(&s->sync_scratch);
	while ((sc = s->free_scratch)) {
		s->free_scratch = sc->next;
		scratch_free(sc);
		free(sc);
	}
}

void nfs3_pool_work(void *job)
{
	struct orpc_pending *p = job;
	struct orpc_req *r = orpc_pending_req(p);
	struct nfs3_scratch *sc = r->user;

	if (nfs4_is_call(r)) {
		nfs4_pool_work(job);
		return;
	}

	if (is_mount(r))
		sc->stat = mount_mnt_work(r, orpc_pending_args(p), orpc_pending_res(p));
	else
		sc->stat = nfs3_call_work(r, orpc_pending_args(p), orpc_pending_res(p));
}

/* A NFSv3 or MOUNT call's end on the lcore, its work done: the reply, and its scratch set back */
static void pool_end(struct orpc_pending *p)
{
	struct orpc_req *r = orpc_pending_req(p);
	struct nfs3_server *s = r->svc->ctx;
	struct nfs3_scratch *sc = r->user;

	if (is_mount(r))
		mount_mnt_end(r, orpc_pending_args(p), orpc_pending_res(p));
	else
		nfs3_call_end(r, orpc_pending_args(p), orpc_pending_res(p));
	/* the transport encodes the reply now (results point into sc), or drops it */
	orpc_pending_done(p, sc->stat);
	scratch_put(s, sc);
}

/* On the lcore, where a call ended and gave its scratch set back (not inside dispatch): the
 * calls that wait for a set take the free ones, oldest first, and go to the pool. A pool that
 * takes no more (it is stopping) has the lcore run the call, as a server without one would. */
static void unpark(struct nfs3_server *s)
{
	while (s->park_head != s->park_tail && s->free_scratch) {
		struct nfs3_parked k = s->parked[s->park_head % NFS3_MAX_PARKED];

		s->park_head++;
		if (to_pool(s, k.p, scratch_get(s), k.t0_ns) == 0) {
			s->st.deferred++;
			continue;
		}
		s->st.sync_fallback++;
		nfs3_pool_work(k.p);
		pool_end(k.p);
	}
}

void nfs3_pool_done(void *job)
{
	struct orpc_pending *p = job;
	struct orpc_req *r = orpc_pending_req(p);
	struct nfs3_server *s = r->svc->ctx;

	if (nfs4_is_call(r)) {
		nfs4_pool_done(job);
		return;
	}
	pool_end(p);
	unpark(s);
}
