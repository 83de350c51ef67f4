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
	struct nfs_fsstat fss; /**< space and files (asked for: FSSTAT's numbers) */
	uint32_t rderr;	       /**< rdattr_error */
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
	return put_u32(x, s->rderr); /* GETATTR reached the object: NFS4_OK */
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

void nfs4_exclcreat_attrs(struct nfs4_bitmap *b)
{
	nfs4_settable_attrs(b);
	/* EXCLUSIVE4_1 keeps its verifier in the times: they cannot come along; nor a size */
	b->w[NFS4_A_TIME_ACCESS_SET / 32] &= ~(1u << (NFS4_A_TIME_ACCESS_SET % 32));
	b->w[NFS4_A_TIME_MODIFY_SET / 32] &= ~(1u << (NFS4_A_TIME_MODIFY_SET % 32));
	b->w[NFS4_A_SIZE / 32] &= ~(1u << (NFS4_A_SIZE % 32));
}

static bool_t a_suppattr_exclcreat(XDR *x, const struct attr_src *s)
{
	struct nfs4_bitmap b;

	(void)s;
	nfs4_exclcreat_attrs(&b);
	return nfs4_xdr_bitmap(x, &b);
}

static bool_t a_files_avail(XDR *x, const struct attr_src *s)
{
	return put_u64(x, s->fss.afiles);
}

static bool_t a_files_free(XDR *x, const struct attr_src *s)
{
	return put_u64(x, s->fss.ffiles);
}

static bool_t a_files_total(XDR *x, const struct attr_src *s)
{
	return put_u64(x, s->fss.tfiles);
}

static bool_t a_space_avail(XDR *x, const struct attr_src *s)
{
	return put_u64(x, s->fss.abytes);
}

static bool_t a_space_free(XDR *x, const struct attr_src *s)
{
	return put_u64(x, s->fss.fbytes);
}

static bool_t a_space_total(XDR *x, const struct attr_src *s)
{
	return put_u64(x, s->fss.tbytes);
}

/* ---- setting: fattr4 values into the backend's sattr ---- */

typedef bool_t (*attr_dec_t)(XDR *x, const struct nfs4_server *s, struct nfs_sattr *sa,
			     uint32_t *status);

/* "1000", or "1000@domain" with the configured domain (any when none is) */
static bool parse_id(const struct nfs4_server *s, const struct nfs4_ref *r, uint32_t *id)
{
	uint64_t v = 0;
	uint32_t i = 0;

	if (r->len == 0)
		return false;
	for (; i < r->len && r->p[i] != '@'; i++) {
		if (r->p[i] < '0' || r->p[i] > '9')
			return false;
		v = v * 10 + (r->p[i] - '0');
		if (v > UINT32_MAX)
			return false;
	}
	if (i == 0)
		return false;
	if (i < r->len && s->conf.domain[0]) {
		const char *d = s->conf.domain;
		size_t dl = strlen(d);

		if (r->len - i - 1 != dl || memcmp(r->p + i + 1, d, dl) != 0)
			return false;
	}
	*id = (uint32_t)v;
	return true;
}

static bool_t d_size(XDR *x, const struct nfs4_server *s, struct nfs_sattr *sa, uint32_t *st)
{
	(void)s, (void)st;
	sa->set_size = true;
	return x_u64(x, &sa->size);
}

static bool_t d_mode(XDR *x, const struct nfs4_server *s, struct nfs_sattr *sa, uint32_t *st)
{
	(void)s, (void)st;
	sa->set_mode = true;
	if (!x_u32(x, &sa->mode))
		return FALSE;
	sa->mode &= 07777;
	return TRUE;
}

static bool_t d_owner(XDR *x, const struct nfs4_server *s, struct nfs_sattr *sa, uint32_t *st)
{
	struct nfs4_ref r;

	if (!nfs4_xdr_ref(x, &r, NFS4_OPAQUE_LIMIT))
		return FALSE;
	sa->set_uid = true;
	if (!parse_id(s, &r, &sa->uid))
		*st = NFS4ERR_BADOWNER;
	return TRUE;
}

static bool_t d_group(XDR *x, const struct nfs4_server *s, struct nfs_sattr *sa, uint32_t *st)
{
	struct nfs4_ref r;

	if (!nfs4_xdr_ref(x, &r, NFS4_OPAQUE_LIMIT))
		return FALSE;
	sa->set_gid = true;
	if (!parse_id(s, &r, &sa->gid))
		*st = NFS4ERR_BADOWNER;
	return TRUE;
}

/* settime4: SET_TO_SERVER_TIME4, or SET_TO_CLIENT_TIME4 with an nfstime4 */
static bool_t d_settime(XDR *x, enum nfs_time_how *how, struct nfs_time *t, uint32_t *st)
{
	struct nfs4_time v;
	uint32_t h;

	if (!x_enum(x, &h, SET_TO_CLIENT_TIME4))
		return FALSE;
	if (h == SET_TO_SERVER_TIME4) {
		*how = NFS_TIME_SERVER;
		return TRUE;
	}
	if (!nfs4_xdr_time(x, &v))
		return FALSE;
	if (v.nsec >= 1000000000u || v.sec < 0 || v.sec > UINT32_MAX)
		*st = NFS4ERR_INVAL;
	*how = NFS_TIME_CLIENT;
	t->sec = (uint32_t)v.sec;
	t->nsec = v.nsec;
	return TRUE;
}

static bool_t d_atime(XDR *x, const struct nfs4_server *s, struct nfs_sattr *sa, uint32_t *st)
{
	(void)s;
	return d_settime(x, &sa->atime_how, &sa->atime, st);
}

static bool_t d_mtime(XDR *x, const struct nfs4_server *s, struct nfs_sattr *sa, uint32_t *st)
{
	(void)s;
	return d_settime(x, &sa->mtime_how, &sa->mtime, st);
}

/* Which object facts an attribute needs beyond stat() */
#define NEED_FSSTAT 0x1u

struct attr_row {
	const char *name;
	attr_enc_t enc; /**< NULL: write-only (the *_SET times) */
	attr_dec_t dec; /**< settable by SETATTR, OPEN and CREATE */
	uint32_t need;
};

#define A(n, fn) [NFS4_A_##n] = {#n, fn, NULL, 0}
#define AS(n, fn, dec) [NFS4_A_##n] = {#n, fn, dec, 0}
#define AF(n, fn) [NFS4_A_##n] = {#n, fn, NULL, NEED_FSSTAT}

static const struct attr_row attrs[NFS4_A_NUM] = {
	A(SUPPORTED_ATTRS, a_supported),
	A(TYPE, a_type),
	A(FH_EXPIRE_TYPE, a_fh_expire_type),
	A(CHANGE, a_change),
	AS(SIZE, a_size, d_size),
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
	AF(FILES_AVAIL, a_files_avail),
	AF(FILES_FREE, a_files_free),
	AF(FILES_TOTAL, a_files_total),
	A(HOMOGENEOUS, a_true),
	A(MAXFILESIZE, a_maxfilesize),
	A(MAXNAME, a_maxname),
	A(MAXREAD, a_maxio),
	A(MAXWRITE, a_maxio),
	AS(MODE, a_mode, d_mode),
	A(NO_TRUNC, a_true),
	A(NUMLINKS, a_numlinks),
	AS(OWNER, a_owner, d_owner),
	AS(OWNER_GROUP, a_owner_group, d_group),
	A(RAWDEV, a_rawdev),
	AF(SPACE_AVAIL, a_space_avail),
	AF(SPACE_FREE, a_space_free),
	AF(SPACE_TOTAL, a_space_total),
	A(SPACE_USED, a_space_used),
	A(TIME_ACCESS, a_time_access),
	AS(TIME_ACCESS_SET, NULL, d_atime),
	A(TIME_DELTA, a_time_delta),
	A(TIME_METADATA, a_time_metadata),
	A(TIME_MODIFY, a_time_modify),
	AS(TIME_MODIFY_SET, NULL, d_mtime),
	A(MOUNTED_ON_FILEID, a_mounted_on),
	A(SUPPATTR_EXCLCREAT, a_suppattr_exclcreat),
};

void nfs4_supported_attrs(struct nfs4_bitmap *b)
{
	memset(b, 0, sizeof(*b));
	b->n = NFS4_BITMAP_WORDS;
	for (uint32_t i = 0; i < NFS4_A_NUM; i++)
		if (attrs[i].enc || attrs[i].dec)
			b->w[i / 32] |= 1u << (i % 32);
}

void nfs4_settable_attrs(struct nfs4_bitmap *b)
{
	memset(b, 0, sizeof(*b));
	b->n = NFS4_BITMAP_WORDS;
	for (uint32_t i = 0; i < NFS4_A_NUM; i++)
		if (attrs[i].dec)
			b->w[i / 32] |= 1u << (i % 32);
}

uint32_t nfs4_fattr_to_sattr(const struct nfs4_server *s, const struct nfs4_fattr *f,
			     struct nfs_sattr *sa)
{
	uint32_t st = NFS4_OK;
	XDR x;

	memset(sa, 0, sizeof(*sa));
	/* every bit first: one not served is ATTRNOTSUPP, a read-only one INVAL (§18.30.4) */
	for (uint32_t w = 0; w < f->mask.n; w++)
		for (uint32_t b = 0; b < 32; b++) {
			uint32_t i = w * 32 + b;

			if (!(f->mask.w[w] >> b & 1u))
				continue;
			if (i >= NFS4_A_NUM || (!attrs[i].enc && !attrs[i].dec))
				return NFS4ERR_ATTRNOTSUPP;
			if (!attrs[i].dec)
				return NFS4ERR_INVAL;
		}
	xdrmem_create(&x, (char *)(uintptr_t)f->vals.p, f->vals.len, XDR_DECODE);
	for (uint32_t i = 0; i < NFS4_A_NUM; i++) {
		if (!nfs4_bit(&f->mask, i))
			continue;
		if (!attrs[i].dec(&x, s, sa, &st)) {
			xdr_destroy(&x);
			return NFS4ERR_BADXDR;
		}
	}
	/* the values must end where the attrlist4 does */
	if (xdr_getpos(&x) != f->vals.len)
		st = NFS4ERR_BADXDR;
	xdr_destroy(&x);
	return st;
}

static bool wants_fsstat(const struct nfs4_bitmap *want)
{
	for (uint32_t i = 0; i < NFS4_A_NUM; i++)
		if ((attrs[i].need & NEED_FSSTAT) && nfs4_bit(want, i))
			return true;
	return false;
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
	if (wants_fsstat(want)) {
		struct nfs_attr fa;
		bool fv;

		st = nfs_fs_fsstat(c->ctx, &c->cur.fh, &s->fss, &fv, &fa);
		if (st != NFS_OK)
			return nfs4_stat_from_nfs(st);
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

/* the attributes of s in want onto x, their bits into mask */
static bool_t encode_attrs(XDR *x, const struct attr_src *s, const struct nfs4_bitmap *want,
			   struct nfs4_bitmap *mask)
{
	memset(mask, 0, sizeof(*mask));
	for (uint32_t i = 0; i < NFS4_A_NUM; i++) {
		if (!attrs[i].enc || !nfs4_bit(want, i))
			continue;
		if (!attrs[i].enc(x, s))
			return FALSE;
		nfs4_bit_set(mask, i);
	}
	return TRUE;
}

uint32_t nfs4_attr_encode(struct nfs4_compound *c, const struct nfs4_bitmap *want,
			  struct nfs4_bitmap *mask, uint8_t *buf, uint32_t cap, uint32_t *len)
{
	struct attr_src s = {.c = c, .h = &c->cur};
	uint32_t st;
	XDR x;

	st = c->cur.kind == NFS4_FH_PSEUDO ? pseudo_src(c, &s) : real_src(c, want, &s);
	if (st != NFS4_OK)
		return st;
	xdrmem_create(&x, (char *)buf, cap, XDR_ENCODE);
	if (!encode_attrs(&x, &s, want, mask)) {
		xdr_destroy(&x);
		return NFS4ERR_RESOURCE;
	}
	*len = xdr_getpos(&x);
	xdr_destroy(&x);
	return NFS4_OK;
}

uint32_t nfs4_op_getattr(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	uint32_t st;

	/* the *_SET times are write-only (RFC 8881 §5.6): asking for them is INVAL */
	if (nfs4_bit(&a->getattr, NFS4_A_TIME_ACCESS_SET) ||
	    nfs4_bit(&a->getattr, NFS4_A_TIME_MODIFY_SET))
		return NFS4ERR_INVAL;
	st = nfs4_attr_encode(c, &a->getattr, &r->getattr.mask, c->s->attrbuf,
			      sizeof(c->s->attrbuf), &r->getattr.vals.len);
	r->getattr.vals.p = c->s->attrbuf;
	return st;
}

bool_t nfs4_attr_entry(struct nfs4_compound *c, const struct nfs_fh *fh,
		       const struct nfs_attr *attr, uint32_t rderr, const struct nfs4_bitmap *want,
		       XDR *x)
{
	struct nfs4_cfh h = {.kind = NFS4_FH_REAL, .fh = *fh};
	struct attr_src s = {.c = c, .h = &h, .rderr = rderr};
	struct nfs4_bitmap mask, w = *want;
	uint8_t buf[1024];
	struct nfs4_ref vals;
	XDR ax;

	if (attr) {
		s.a = *attr;
		s.fsid_major = attr->fsid;
		s.mounted_on = attr->fileid;
		s.maxfilesize = INT64_MAX;
		/* file system totals per entry are not worth a statfs each: left out */
		for (uint32_t i = 0; i < NFS4_A_NUM; i++)
			if (attrs[i].need & NEED_FSSTAT && i / 32 < w.n)
				w.w[i / 32] &= ~(1u << (i % 32));
	} else {
		/* only rdattr_error can be told about an entry that could not be read */
		memset(&w, 0, sizeof(w));
		if (nfs4_bit(want, NFS4_A_RDATTR_ERROR))
			nfs4_bit_set(&w, NFS4_A_RDATTR_ERROR);
	}
	xdrmem_create(&ax, (char *)buf, sizeof(buf), XDR_ENCODE);
	if (!encode_attrs(&ax, &s, &w, &mask)) {
		xdr_destroy(&ax);
		return FALSE;
	}
	vals = (struct nfs4_ref){buf, xdr_getpos(&ax)};
	xdr_destroy(&ax);
	return nfs4_xdr_bitmap(x, &mask) && nfs4_xdr_ref(x, &vals, sizeof(buf));
}
