/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_ns.c - the namespace operations (RFC 8881 §18): PUTROOTFH, PUTFH, GETFH, SAVEFH,
 * RESTOREFH, LOOKUP, LOOKUPP, ACCESS and SECINFO_NO_NAME, over the pseudo file system
 * (nfs4_pseudo.c) down to each export's root, and the backend (nfs/fs) below it. Real handles
 * are the backend's nfs_fh, byte for byte, so NFSv3 and NFSv4 handles name the same files;
 * pseudo handles are 12 bytes that no backend handle can be (their first byte is 0x80).
 */
#include <string.h>

#include "nfs4_int.h"
#include "nfs_xdr_prim.h"

static const uint8_t pfh_magic[4] = {0x80, 'p', '4', 0};

uint32_t nfs4_stat_from_nfs(enum nfs_stat s)
{
	switch (s) {
	case NFS_ERR_NODEV:
		return NFS4ERR_NXIO; /* no ENODEV in v4 */
	case NFS_ERR_REMOTE:
	case NFS_ERR_NOT_SYNC:
		return NFS4ERR_SERVERFAULT;
	default:
		/* v4 keeps v3's numbers for the rest (JUKEBOX is DELAY) */
		return (uint32_t)s;
	}
}

uint32_t nfs4_fh_encode(const struct nfs4_cfh *h, uint8_t *out)
{
	if (h->kind == NFS4_FH_REAL) {
		memcpy(out, h->fh.data, h->fh.len);
		return h->fh.len;
	}
	memcpy(out, pfh_magic, sizeof(pfh_magic));
	for (int i = 0; i < 8; i++)
		out[4 + i] = (uint8_t)(h->pid >> (56 - 8 * i));
	return NFS4_PFH_LEN;
}

static void set_pseudo(struct nfs4_cfh *h, const struct nfs4_pseudo *p, int32_t i)
{
	memset(h, 0, sizeof(*h));
	h->kind = NFS4_FH_PSEUDO;
	h->pid = p->node[i].id;
}

static void set_real(struct nfs4_cfh *h, const struct nfs_fh *fh)
{
	memset(h, 0, sizeof(*h));
	h->kind = NFS4_FH_REAL;
	h->fh = *fh;
}

/* Enter node i: a pseudo directory, or (an export, or a path inside one) the backend's. */
static uint32_t enter_node(struct nfs4_compound *c, struct nfs4_pseudo *p, int32_t i)
{
	char path[NFS_PATH_MAX];
	struct nfs_fh fh;
	enum nfs_stat s;

	if (!nfs4_pseudo_in_export(p, i)) {
		set_pseudo(&c->cur, p, i);
		return NFS4_OK;
	}
	nfs4_pseudo_path(p, c->s->fs, i, path, sizeof(path));
	s = nfs_fs_mount(c->ctx, path, &fh);
	if (s != NFS_OK)
		return nfs4_stat_from_nfs(s);
	set_real(&c->cur, &fh);
	return NFS4_OK;
}

/* The pseudo node of the current handle, or -1 (then STALE: the tree changed under it). */
static int32_t cur_node(struct nfs4_compound *c)
{
	return nfs4_pseudo_find(nfs4_compound_pseudo(c), c->cur.pid);
}

uint32_t nfs4_op_putrootfh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	(void)a, (void)r;
	return enter_node(c, nfs4_compound_pseudo(c), 0);
}

/* the public file handle is the root's (RFC 8881 §18.20.3 allows it) */
uint32_t nfs4_op_putpubfh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	return nfs4_op_putrootfh(c, a, r);
}

uint32_t nfs4_op_putfh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	const struct nfs4_ref *w = &a->fh;
	struct nfs_fh fh;
	enum nfs_stat s;

	(void)r;
	if (w->len == NFS4_PFH_LEN && memcmp(w->p, pfh_magic, sizeof(pfh_magic)) == 0) {
		struct nfs4_pseudo *p = nfs4_compound_pseudo(c);
		uint64_t id = 0;
		int32_t i;

		for (int k = 0; k < 8; k++)
			id = id << 8 | w->p[4 + k];
		i = nfs4_pseudo_find(p, id);
		/* a node that became part of an export is no longer a pseudo directory */
		if (i < 0 || nfs4_pseudo_in_export(p, i))
			return NFS4ERR_STALE;
		set_pseudo(&c->cur, p, i);
		return NFS4_OK;
	}
	if (w->len == 0 || w->len > NFS_FH_MAX)
		return NFS4ERR_BADHANDLE;
	fh.len = w->len;
	memcpy(fh.data, w->p, w->len);
	s = nfs_fs_fh_export(c->ctx, &fh, NULL, 0, NULL, NULL);
	/* a file removed (a RENAME over it) while the client holds state on it: the handle
	 * stays usable for CLOSE, LOCKU, FREE_STATEID (pynfs RNM21; knfsd keeps the file open,
	 * droce holds no descriptor); anything touching the file still gets STALE */
	if (s == NFS_ERR_STALE && nfs4_fh_has_state(c, &fh))
		s = NFS_OK;
	if (s != NFS_OK)
		return nfs4_stat_from_nfs(s);
	set_real(&c->cur, &fh);
	return NFS4_OK;
}

uint32_t nfs4_op_getfh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	(void)a;
	r->fh.len = nfs4_fh_encode(&c->cur, c->fhbuf);
	r->fh.p = c->fhbuf;
	return NFS4_OK;
}

uint32_t nfs4_op_savefh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	(void)a, (void)r;
	c->saved = c->cur;
	return NFS4_OK;
}

uint32_t nfs4_op_restorefh(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	(void)a, (void)r;
	if (c->saved.kind == NFS4_FH_NONE)
		return NFS4ERR_RESTOREFH; /* as Linux's nfsd answers it */
	c->cur = c->saved;
	return NFS4_OK;
}

void nfs4_set_cur_real(struct nfs4_compound *c, const struct nfs_fh *fh)
{
	set_real(&c->cur, fh);
}

/* component4 rules (RFC 8881 §18.13.3, Linux's check_filename) */
uint32_t nfs4_check_name(const struct nfs4_ref *n)
{
	if (n->len == 0)
		return NFS4ERR_INVAL;
	if (n->len > NFS_NAME_MAX)
		return NFS4ERR_NAMETOOLONG;
	if ((n->len == 1 && n->p[0] == '.') || (n->len == 2 && n->p[0] == '.' && n->p[1] == '.'))
		return NFS4ERR_BADNAME;
	if (memchr(n->p, '/', n->len))
		return NFS4ERR_BADNAME;
	return NFS4_OK;
}

/* NOTDIR, or SYMLINK for a symbolic link (RFC 8881 §18.13.3, §18.14.3) */
static uint32_t not_dir(const struct nfs_attr *a)
{
	return a->type == NFS_LNK ? NFS4ERR_SYMLINK : NFS4ERR_NOTDIR;
}

uint32_t nfs4_op_lookup(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	struct nfs4_work *w;
	uint32_t st = nfs4_check_name(&a->name);

	if (st != NFS4_OK)
		return st;
	if (c->cur.kind == NFS4_FH_PSEUDO) {
		struct nfs4_pseudo *p = nfs4_compound_pseudo(c);
		int32_t d = cur_node(c), i;

		if (d < 0)
			return NFS4ERR_STALE;
		i = nfs4_pseudo_child(p, c->s->fs, d, (const char *)a->name.p, a->name.len);
		return i < 0 ? NFS4ERR_NOENT : enter_node(c, p, i);
	}
	/* the name points into the call, which a deferred compound keeps */
	w = nfs4_work_start(c, NFS4_WORK_LOOKUP, &c->cur.fh);
	w->name = (const char *)a->name.p;
	w->namelen = a->name.len;
	return nfs4_work(c, r);
}

uint32_t nfs4_op_lookupp(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	char path[NFS_PATH_MAX];
	struct nfs_attr at, dir;
	struct nfs4_pseudo *p;
	bool root, dv;
	struct nfs_fh fh;
	enum nfs_stat s;
	int32_t i;

	(void)a, (void)r;
	p = nfs4_compound_pseudo(c);
	if (c->cur.kind == NFS4_FH_PSEUDO) {
		i = cur_node(c);
		if (i < 0)
			return NFS4ERR_STALE;
		if (p->node[i].parent < 0)
			return NFS4ERR_NOENT; /* the root has no parent */
		set_pseudo(&c->cur, p, p->node[i].parent);
		return NFS4_OK;
	}
	s = nfs_fs_fh_export(c->ctx, &c->cur.fh, path, sizeof(path), &root, &at);
	if (s != NFS_OK)
		return nfs4_stat_from_nfs(s);
	if (at.type != NFS_DIR)
		return not_dir(&at);
	if (root) {
		/* up out of the export: into the pseudo file system, or the enclosing export */
		i = nfs4_pseudo_by_path(p, c->s->fs, path);
		if (i < 0 || p->node[i].parent < 0)
			return NFS4ERR_NOENT;
		return enter_node(c, p, p->node[i].parent);
	}
	s = nfs_fs_lookup(c->ctx, &c->cur.fh, "..", 2, &fh, &at, &dv, &dir);
	if (s != NFS_OK)
		return nfs4_stat_from_nfs(s);
	set_real(&c->cur, &fh);
	return NFS4_OK;
}

uint32_t nfs4_op_access(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	uint32_t want = a->access & ACCESS4_ALL, granted = 0;
	struct nfs_attr at;
	bool av;
	enum nfs_stat s;

	r->access.supported = want;
	if (c->cur.kind == NFS4_FH_PSEUDO) {
		if (cur_node(c) < 0)
			return NFS4ERR_STALE;
		/* the pseudo file system is read-only and searchable by all */
		r->access.access = want & (ACCESS4_READ | ACCESS4_LOOKUP | ACCESS4_EXECUTE);
		return NFS4_OK;
	}
	s = nfs_fs_access(c->ctx, &c->cur.fh, want, &granted, &av, &at);
	if (s != NFS_OK)
		return nfs4_stat_from_nfs(s);
	r->access.access = granted & want;
	return NFS4_OK;
}

uint32_t nfs4_op_secinfo(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	struct nfs4_cfh dir = c->cur;
	bool may = c->may_defer;
	uint32_t st;

	/* the name must be there (NOENT); what it is served with is AUTH_SYS, as everything.
	 * The lookup runs here (SECINFO is rare: a mount's): its result is SECINFO's own */
	c->may_defer = false;
	st = nfs4_op_lookup(c, a, r);
	c->may_defer = may;
	c->cur = dir;
	if (st != NFS4_OK)
		return st;
	r->secinfo.n = 1;
	r->secinfo.flavor[0] = AUTH_SYS;
	/* RFC 8881 §2.6.3.1.1.8: SECINFO consumes the current file handle */
	memset(&c->cur, 0, sizeof(c->cur));
	return NFS4_OK;
}

uint32_t nfs4_op_secinfo_no_name(struct nfs4_compound *c, union nfs4_op_args *a,
				 union nfs4_op_resok *r)
{
	if (a->secinfo_style == SECINFO_STYLE4_PARENT && c->cur.kind == NFS4_FH_PSEUDO) {
		int32_t i = cur_node(c);

		if (i < 0)
			return NFS4ERR_STALE;
		if (nfs4_compound_pseudo(c)->node[i].parent < 0)
			return NFS4ERR_NOENT;
	}
	/* AUTH_SYS is all droce serves (exports(5) sec=sys) */
	r->secinfo.n = 1;
	r->secinfo.flavor[0] = AUTH_SYS;
	/* RFC 8881 §18.45.3: SECINFO_NO_NAME consumes the current file handle */
	memset(&c->cur, 0, sizeof(c->cur));
	return NFS4_OK;
}

/*
 * READDIR of a pseudo directory: its children, each with cookie index + 3 (0 starts, 1 and 2
 * are reserved), and the attributes of what LOOKUP would enter (an export's root by its real
 * handle, so mounted_on_fileid and fsid are the export's). entries is encoded as
 * nfs4_xdr_readdir_res wants it, within limit bytes.
 */
uint32_t nfs4_readdir_pseudo(struct nfs4_compound *c, const struct nfs4_readdir_args *ra,
			     uint32_t limit, struct nfs4_readdir_res *o)
{
	struct nfs4_pseudo *p = nfs4_compound_pseudo(c);
	struct nfs4_cfh dir = c->cur;
	int32_t d = cur_node(c);
	uint32_t n = 0, st = NFS4_OK;
	bool full = false;
	XDR x;

	if (d < 0)
		return NFS4ERR_STALE;
	xdrmem_create(&x, (char *)c->s->iobuf, c->s->conf.max_io, XDR_ENCODE);
	for (int32_t i = 0; i < (int32_t)p->n && !full; i++) {
		char path[NFS_PATH_MAX], *name;
		struct nfs4_bitmap mask;
		struct nfs4_ref nm, vals;
		uint64_t cookie = (uint64_t)i + 3;
		uint32_t len = 0;
		u_int start = xdr_getpos(&x);
		bool more = true;

		if (p->node[i].parent != d || cookie <= ra->cookie)
			continue;
		nfs4_pseudo_path(p, c->s->fs, i, path, sizeof(path));
		name = strrchr(path, '/');
		name = name ? name + 1 : path;
		nm = (struct nfs4_ref){(const uint8_t *)name, (uint32_t)strlen(name)};
		st = enter_node(c, p, i);
		if (st == NFS4_OK)
			st = nfs4_attr_encode(c, &ra->attr_request, &mask, c->s->attrbuf,
					      sizeof(c->s->attrbuf), &len);
		c->cur = dir;
		if (st != NFS4_OK) {
			/* an export this client may not see: it is not listed */
			st = NFS4_OK;
			continue;
		}
		vals = (struct nfs4_ref){c->s->attrbuf, len};
		if (!x_bool(&x, &more) || !x_u64(&x, &cookie) ||
		    !nfs4_xdr_ref(&x, &nm, NFS_NAME_MAX) || !nfs4_xdr_bitmap(&x, &mask) ||
		    !nfs4_xdr_ref(&x, &vals, NFS4_ATTRVALS_MAX) || xdr_getpos(&x) > limit) {
			xdr_setpos(&x, start);
			full = true;
			break;
		}
		n++;
	}
	o->entries = (struct nfs4_ref){c->s->iobuf, xdr_getpos(&x)};
	xdr_destroy(&x);
	memset(o->verf, 0, sizeof(o->verf));
	o->eof = !full;
	o->nentries = n;
	return n == 0 && full ? NFS4ERR_TOOSMALL : NFS4_OK;
}
