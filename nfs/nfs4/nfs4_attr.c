/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_attr.c - GETATTR (RFC 8881 §18.7) and the fattr4 encoding of each attribute served
 * (§5.6, §5.7, §5.8), as a table: attribute number -> name and encoder. supported_attrs is
 * the table's rows. An attribute asked for and not served is left out of the reply's mask,
 * as the RFC says. Owners are numeric strings ("1000"), as Linux with nfs4_disable_idmapping.
 */
#include <stdio.h>
#include <string.h>

#include "nfs4_int.h"
#include "nfs_xdr_prim.h"

/* Everything an attribute encoder may need about one object. */
struct attr_src {
	const struct nfs4_compound *c;
	const struct nfs4_cfh *h;
	struct nfs_attr a;
	uint64_t fsid_major, fsid_minor;
	uint64_t mounted_on;
	uint64_t maxfilesize;
};

typedef bool_t (*attr_enc_t)(XDR *x, const struct attr_src *s);

static bool_t put_u32(XDR *x, uint32_t v)
{
	return x_u32(x, &v);
}

static bool_t put_u64(XDR *x, uint64_t v)
{
	return x_u64(x, &v);
}

static bool_t put_bool(XDR *x, bool v)
{
	return x_bool(x, &v);
}

static bool_t put_time(XDR *x, const struct nfs_time *t)
{
	struct nfs4_time v = {t->sec, t->nsec};

	return nfs4_xdr_time(x, &v);
}

static bool_t put_id(XDR *x, uint32_t id)
{
	char buf[16];
	struct nfs4_ref r = {(const uint8_t *)buf, (uint32_t)snprintf(buf, sizeof(buf), "%u", id)};

	return nfs4_xdr_ref(x, &r, sizeof(buf));
}

static bool_t a_supported(XDR *x, const struct attr_src *s)
{
	struct nfs4_bitmap b;

	(void)s;
	nfs4_supported_attrs(&b);
	return nfs4_xdr_bitmap(x, &b);
}

static bool_t a_type(XDR *x, const struct attr_src *s)
{
	return put_u32(x, (uint32_t)s->a.type); /* nfs_ftype4 1..7 are ftype3's */
}

static bool_t a_fh_expire_type(XDR *x, const struct attr_src *s)
{
	(void)s;
	return put_u32(x, 0); /* FH4_PERSISTENT: sealed handles and path hashes survive restarts */
}

static bool_t a_change(XDR *x, const struct attr_src *s)
{
	/* the inode's ctime, which every change moves (no i_version from user space) */
	return put_u64(x, (uint64_t)s->a.ctime.sec * 1000000000ull + s->a.ctime.nsec);
}

static bool_t a_size(XDR *x, const struct attr_src *s)
{
	return put_u64(x, s->a.size);
}

static bool_t a_true(XDR *x, const struct attr_src *s)
{
	(void)s;
	return put_bool(x, true);
}

static bool_t a_false(XDR *x, const struct attr_src *s)
{
	(void)s;
	return put_bool(x, false);
}

static bool_t a_fsid(XDR *x, const struct attr_src *s)
{
	return put_u64(x, s->fsid_major) && put_u64(x, s->fsid_minor);
}

static bool_t a_lease_time(XDR *x, const struct attr_src *s)
{
	return put_u32(x, s->c->s->conf.state.lease_s);
}

static bool_t a_rdattr_error(XDR *x, const struct attr_src *s)
{
	(void)s;
	return put_u32(x, NFS4_OK); /* GETATTR reached the object: no error to report */
}

static bool_t a_filehandle(XDR *x, const struct attr_src *s)
{
	uint8_t buf[NFS4_FHSIZE];
	struct nfs4_ref r = {buf, nfs4_fh_encode(s->h, buf)};

	return nfs4_xdr_ref(x, &r, NFS4_FHSIZE);
}

static bool_t a_fileid(XDR *x, const struct attr_src *s)
{
	return put_u64(x, s->a.fileid);
}

static bool_t a_maxfilesize(XDR *x, const struct attr_src *s)
{
	return put_u64(x, s->maxfilesize);
}

static bool_t a_maxname(XDR *x, const struct attr_src *s)
{
	(void)s;
	return put_u32(x, NFS_NAME_MAX);
}

static bool_t a_maxio(XDR *x, const struct attr_src *s)
{
	return put_u64(x, s->c->s->conf.max_io);
}

static bool_t a_mode(XDR *x, const struct attr_src *s)
{
	return put_u32(x, s->a.mode & 07777);
}

static bool_t a_numlinks(XDR *x, const struct attr_src *s)
{
	return put_u32(x, s->a.nlink);
}

static bool_t a_owner(XDR *x, const struct attr_src *s)
{
	return put_id(x, s->a.uid);
}

static bool_t a_owner_group(XDR *x, const struct attr_src *s)
{
	return put_id(x, s->a.gid);
}

static bool_t a_rawdev(XDR *x, const struct attr_src *s)
{
	return put_u32(x, s->a.rdev_major) && put_u32(x, s->a.rdev_minor);
}

static bool_t a_space_used(XDR *x, const struct attr_src *s)
{
	return put_u64(x, s->a.used);
}

static bool_t a_time_access(XDR *x, const struct attr_src *s)
{
	return put_time(x, &s->a.atime);
}

static bool_t a_time_delta(XDR *x, const struct attr_src *s)
{
	struct nfs_time one_ns = {0, 1};

	(void)s;
	return put_time(x, &one_ns);
}

static bool_t a_time_metadata(XDR *x, const struct attr_src *s)
{
	return put_time(x, &s->a.ctime);
}

static bool_t a_time_modify(XDR *x, const struct attr_src *s)
{
	return put_time(x, &s->a.mtime);
}

static bool_t a_mounted_on(XDR *x, const struct attr_src *s)
{
	return put_u64(x, s->mounted_on);
}

static bool_t a_suppattr_exclcreat(XDR *x, const struct attr_src *s)
{
	struct nfs4_bitmap b = {0};

	/* OPEN is not served yet: no attribute can be set by an exclusive create */
	(void)s;
	return nfs4_xdr_bitmap(x, &b);
}

struct attr_row {
	const char *name;
	attr_enc_t enc;
};

#define A(n, fn) [NFS4_A_##n] = {#n, fn}

static const struct attr_row attrs[NFS4_A_NUM] = {
	A(SUPPORTED_ATTRS, a_supported),
	A(TYPE, a_type),
	A(FH_EXPIRE_TYPE, a_fh_expire_type),
	A(CHANGE, a_change),
	A(SIZE, a_size),
	A(LINK_SUPPORT, a_true),
	A(SYMLINK_SUPPORT, a_true),
	A(NAMED_ATTR, a_false),
	A(FSID, a_fsid),
	/* a file under nested exports has one handle per export: handles are not unique */
	A(UNIQUE_HANDLES, a_false),
	A(LEASE_TIME, a_lease_time),
	A(RDATTR_ERROR, a_rdattr_error),
	A(CANSETTIME, a_true),
	A(CASE_INSENSITIVE, a_false),
	A(CASE_PRESERVING, a_true),
	A(CHOWN_RESTRICTED, a_true),
	A(FILEHANDLE, a_filehandle),
	A(FILEID, a_fileid),
	A(HOMOGENEOUS, a_true),
	A(MAXFILESIZE, a_maxfilesize),
	A(MAXNAME, a_maxname),
	A(MAXREAD, a_maxio),
	A(MAXWRITE, a_maxio),
	A(MODE, a_mode),
	A(NO_TRUNC, a_true),
	A(NUMLINKS, a_numlinks),
	A(OWNER, a_owner),
	A(OWNER_GROUP, a_owner_group),
	A(RAWDEV, a_rawdev),
	A(SPACE_USED, a_space_used),
	A(TIME_ACCESS, a_time_access),
	A(TIME_DELTA, a_time_delta),
	A(TIME_METADATA, a_time_metadata),
	A(TIME_MODIFY, a_time_modify),
	A(MOUNTED_ON_FILEID, a_mounted_on),
	A(SUPPATTR_EXCLCREAT, a_suppattr_exclcreat),
};

void nfs4_supported_attrs(struct nfs4_bitmap *b)
{
	memset(b, 0, sizeof(*b));
	b->n = NFS4_BITMAP_WORDS;
	for (uint32_t i = 0; i < NFS4_A_NUM; i++)
		if (attrs[i].enc)
			b->w[i / 32] |= 1u << (i % 32);
}

/* The pseudo file system's directories: read-only, root's, as old as the server. */
static uint32_t pseudo_src(struct nfs4_compound *c, struct attr_src *s)
{
	struct nfs4_pseudo *p = nfs4_compound_pseudo(c);
	int32_t i = nfs4_pseudo_find(p, c->cur.pid);
	struct nfs_time boot = {(uint32_t)c->s->boot_sec, 0};

	if (i < 0)
		return NFS4ERR_STALE;
	s->a.type = NFS_DIR;
	s->a.mode = 0555;
	s->a.nlink = 2;
	s->a.size = 4096;
	s->a.used = 4096;
	s->a.fileid = p->node[i].id;
	s->a.atime = s->a.mtime = s->a.ctime = boot;
	s->fsid_major = NFS4_PSEUDO_FSID_MAJOR;
	s->fsid_minor = 0;
	s->mounted_on = p->node[i].id;
	s->maxfilesize = 0;
	return NFS4_OK;
}

static uint32_t real_src(struct nfs4_compound *c, const struct nfs4_bitmap *want,
			 struct attr_src *s)
{
	char path[NFS_PATH_MAX];
	enum nfs_stat st;
	bool root;

	st = nfs_fs_fh_export(c->ctx, &c->cur.fh, path, sizeof(path), &root, &s->a);
	if (st != NFS_OK)
		return nfs4_stat_from_nfs(st);
	s->fsid_major = s->a.fsid;
	s->fsid_minor = 0;
	s->mounted_on = s->a.fileid;
	if (root && nfs4_bit(want, NFS4_A_MOUNTED_ON_FILEID)) {
		/* an export's root is mounted on its pseudo directory (RFC 8881 §5.8.2.23) */
		struct nfs4_pseudo *p = nfs4_compound_pseudo(c);
		int32_t i = nfs4_pseudo_by_path(p, c->s->fs, path);

		if (i >= 0 && p->node[i].parent >= 0 &&
		    !nfs4_pseudo_in_export(p, p->node[i].parent))
			s->mounted_on = p->node[i].id;
	}
	if (nfs4_bit(want, NFS4_A_MAXFILESIZE)) {
		struct nfs_fsinfo fi;
		struct nfs_attr fa;
		bool fv;

		st = nfs_fs_fsinfo(c->ctx, &c->cur.fh, c->s->conf.max_io, &fi, &fv, &fa);
		if (st != NFS_OK)
			return nfs4_stat_from_nfs(st);
		s->maxfilesize = fi.maxfilesize;
	}
	return NFS4_OK;
}

uint32_t nfs4_op_getattr(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	const struct nfs4_bitmap *want = &a->getattr;
	struct attr_src s = {.c = c, .h = &c->cur};
	uint32_t st;
	XDR x;

	st = c->cur.kind == NFS4_FH_PSEUDO ? pseudo_src(c, &s) : real_src(c, want, &s);
	if (st != NFS4_OK)
		return st;
	memset(&r->getattr.mask, 0, sizeof(r->getattr.mask));
	xdrmem_create(&x, (char *)c->s->attrbuf, sizeof(c->s->attrbuf), XDR_ENCODE);
	for (uint32_t i = 0; i < NFS4_A_NUM; i++) {
		if (!attrs[i].enc || !nfs4_bit(want, i))
			continue;
		if (!attrs[i].enc(&x, &s)) {
			xdr_destroy(&x);
			return NFS4ERR_RESOURCE;
		}
		nfs4_bit_set(&r->getattr.mask, i);
	}
	r->getattr.vals.p = c->s->attrbuf;
	r->getattr.vals.len = xdr_getpos(&x);
	xdr_destroy(&x);
	return NFS4_OK;
}
