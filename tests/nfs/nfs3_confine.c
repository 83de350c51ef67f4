/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3_confine.c - droce-nfsd's confinement and its answers to bad input, asserted on the
 * wire: a small MOUNT v3 + NFSv3 client over TCP (rpc/clnt's orpc_clnt, nfs/xdr's codecs)
 * against `droce-nfsd --listen`, run by tests/nfs/nfs3_confine.sh, which made the exports:
 *
 *     DIR/A       rw,no_root_squash,insecure   (mode 0777; A/etc is a symlink to /etc, A/sub
 *                                              a directory, A/g0 a 0:0 file of mode 0040)
 *     DIR/B       rw,root_squash,insecure      (mode 0777; B/g0 as A/g0)
 *     DIR/ro      ro,insecure                  (holds "file", "original\n")
 *     DIR/closed  10.9.9.9 only
 *     DIR/secret  a file outside every export, DIR/outside a directory outside every export
 *     DIR/state   droce-nfsd's state directory (fh.key: the handle MAC key)
 *
 * What it asserts (RFC 1813 status numbers; one "ok - " or "FAIL - " line each):
 *   - MNT of A, B and ro succeeds; MNT of closed is MNT3ERR_ACCES; A/sub mounts, A/etc (the
 *     symlink) and A/../outside are MNT3ERR_ACCES, DIR/outside MNT3ERR_NOENT;
 *   - LOOKUP ".." at A's root answers A's root: the same handle and fileid; READDIRPLUS of
 *     A's root gives ".." the root's own handle; names with '/' or NUL are ACCES;
 *   - LOOKUP of the symlink answers NF3LNK, LOOKUP "passwd" through it NOTDIR, READLINK "/etc";
 *   - every one-byte change of A's root handle, a truncated and an empty one: BADHANDLE;
 *   - the kernel's handle of /etc/passwd and of DIR/secret under A's header with a copied
 *     tag: BADHANDLE; the same bytes of DIR/secret tagged with the server's key (read from
 *     fh.key) are accepted, so the layout was right and the tag alone refused the forgery;
 *     DIR/outside so tagged is STALE (a directory must reach its export's root by "..");
 *   - RENAME B -> A, A -> B and LINK of B's file into A: XDEV; B's file still there, nothing
 *     made in A;
 *   - a 256-byte name: NAMETOOLONG for CREATE and LOOKUP; 255 bytes work;
 *   - WRITE and CREATE on ro: ROFS, the file unchanged (READ);
 *   - GETATTR with a 65-byte handle, a WRITE cut short, CREATE with createmode 3, MNT with a
 *     1025-byte path: RPC GARBAGE_ARGS (accept_stat 4), on connections that then answer NULL
 *     and a hand-encoded GETATTR (no reconnection, no retransmission);
 *   - root's CREATE on B (root_squash) is 65534:65534, uid 1000's is 1000:1000, root's on A
 *     (no_root_squash) 0:0, and an AUTH_NONE CREATE on A is 65534:65534 (GETATTR); on B root
 *     cannot SETATTR a file's uid to 0 (PERM), and group 0 in uid 1000's list does not open a
 *     0:0 file of mode 0040 (ACCES), which it does on A;
 * It prints "disk PATH UID:GID" for the script to check with stat, and "expect COUNTER N" for
 * the server's counters: the statuses it received, which the server must have counted.
 *
 * Usage: nfs3_confine --server IP --dir DIR       Exit 0 when every check passed, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mount_xdr.h"
#include "nfs3_xdr.h"
#include "nfs_fs_int.h"
#include "orpc_clnt.h"

#define NFS_PORT 2049
#define MOUNT_PORT 20048

/* the sealed handle's layout (nfs/fs/nfs_fh.c), written out again here from its comment */
#define FH_HDR 16u
#define FH_TAG 8u

static struct {
	const char *server, *dir;
	struct orpc_clnt mnt, nfs;
	struct orpc_authsys root, user;
	struct nfs_fh a, b, ro;
	uint8_t *last; /* the last reply's results: decoded strings point into it */
	int checks, failures;
	/* what the server must have counted */
	unsigned badhandle, stale, rofs, refused, garbage;
} g;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	g.checks++;
	if (!ok)
		g.failures++;
	printf("%s - ", ok ? "ok  " : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* a status for the report: the helpers answer -1 when the call itself failed */
static const char *st_name(int s)
{
	return s < 0 ? "no answer" : nfs_stat_name((enum nfs_stat)s);
}

/* ---- one call, polled to its end ---- */

struct reply {
	bool done;
	int err;
	struct orpc_reply_hdr h;
	uint8_t *res;
	uint32_t len;
};

static void on_reply(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *res,
		     uint32_t len)
{
	struct reply *r = ctx;

	r->done = true;
	r->err = err;
	if (err)
		return;
	r->h = *h;
	r->res = malloc(len ? len : 1);
	if (!r->res) {
		r->err = -ENOMEM;
		return;
	}
	memcpy(r->res, res, len);
	r->len = len;
}

/**
 * Call and decode the results with xres into res (strings point into g.last, valid until the
 * next call). @return the accept_stat (SUCCESS 0, GARBAGE_ARGS 4, ...), or -errno: the
 * transport's error, -EACCES for a denied call, -EBADMSG for results that do not decode.
 */
static int call(struct orpc_clnt *c, uint32_t prog, uint32_t vers, uint32_t proc,
		const struct orpc_authsys *sys, xdrproc_t xargs, const void *args, xdrproc_t xres,
		void *res)
{
	struct reply r = {0};
	struct timespec nap = {0, 100000};
	int rc;
	XDR x;

	free(g.last);
	g.last = NULL;
	rc = orpc_clnt_call(c, prog, vers, proc, sys, xargs, args, on_reply, &r);
	if (rc)
		return rc;
	while (!r.done)
		if (orpc_clnt_poll(c) == 0 && !r.done)
			nanosleep(&nap, NULL);
	if (r.err)
		return r.err;
	g.last = r.res;
	if (r.h.denied)
		return -EACCES;
	if (r.h.stat != SUCCESS || !xres)
		return (int)r.h.stat;
	xdrmem_create(&x, (char *)r.res, r.len, XDR_DECODE);
	rc = xres(&x, res, 0) ? SUCCESS : -EBADMSG;
	xdr_destroy(&x);
	return rc;
}

/* an NFSv3 procedure through nfs/xdr's table; a failed call is reported and answers -1 */
static int nfs(uint32_t proc, const struct orpc_authsys *sys, const void *args, void *res)
{
	int rc = call(&g.nfs, NFS3_PROGRAM, NFS3_VERSION, proc, sys, nfs3_xdr_procs[proc].xdr_args,
		      args, nfs3_xdr_procs[proc].xdr_res, res);

	if (rc != SUCCESS) {
		printf("# %s: RPC error %d (%s)\n", nfs3_proc_name(proc), rc,
		       rc > 0 ? orpc_accept_stat_name((uint32_t)rc) : strerror(-rc));
		return -1;
	}
	return 0;
}

/* each helper answers the NFS status, or -1 when the call itself failed */

static int getattr(const struct orpc_authsys *sys, const struct nfs_fh *fh, struct nfs_attr *a)
{
	struct nfs3_fh_args args = {.fh = *fh};
	struct nfs3_getattr_res res = {0};

	if (nfs(NFS3_PROC_GETATTR, sys, &args, &res))
		return -1;
	if (res.status == NFS_ERR_BADHANDLE)
		g.badhandle++;
	if (res.status == NFS_ERR_STALE)
		g.stale++;
	if (a)
		*a = res.attr;
	return res.status;
}

static int lookup(const struct nfs_fh *dir, const char *name, uint32_t len, struct nfs_fh *fh,
		  struct nfs_attr *a)
{
	struct nfs3_diropargs args = {.dir = *dir, .name = name, .namelen = len};
	struct nfs3_lookup_res res = {0};

	if (nfs(NFS3_PROC_LOOKUP, &g.root, &args, &res))
		return -1;
	if (res.status == NFS_ERR_BADHANDLE)
		g.badhandle++;
	if (res.status == NFS_OK && fh)
		*fh = res.fh;
	if (res.status == NFS_OK && a)
		*a = res.obj_attr.attr;
	return res.status;
}

static int create(const struct orpc_authsys *sys, const struct nfs_fh *dir, const char *name,
		  uint32_t len, struct nfs_fh *fh, struct nfs_attr *a)
{
	struct nfs3_create_args args = {.where = {.dir = *dir, .name = name, .namelen = len},
					.mode = NFS_CREATE_UNCHECKED,
					.sattr = {.set_mode = true, .mode = 0644}};
	struct nfs3_create_res res = {0};

	if (nfs(NFS3_PROC_CREATE, sys, &args, &res))
		return -1;
	if (res.status == NFS_ERR_ROFS)
		g.rofs++;
	if (res.status == NFS_OK && fh) {
		if (!res.fh.valid)
			return -1;
		*fh = res.fh.fh;
	}
	if (res.status == NFS_OK && a)
		*a = res.attr.attr;
	return res.status;
}

static int mnt(const char *path, struct nfs_fh *fh)
{
	struct nfs_mnt_dirpath args = {.path = {.s = path, .len = (uint32_t)strlen(path)}};
	struct nfs_mnt_res3 res = {0};
	int rc = call(&g.mnt, NFS_MNT_PROGRAM, NFS_MNT_V3, NFS_MNT_PROC_MNT, &g.root,
		      (xdrproc_t)xdr_nfs_mnt_dirpath, &args, (xdrproc_t)xdr_nfs_mnt_res3, &res);

	if (rc != SUCCESS) {
		printf("# MNT %s: RPC error %d\n", path, rc);
		return -1;
	}
	if (res.status == NFS_MNT3_OK && fh)
		*fh = res.fh;
	return (int)res.status;
}

static void pathf(char *out, size_t cap, const char *rel)
{
	snprintf(out, cap, "%s/%s", g.dir, rel);
}

/* ---- the checks ---- */

static void t_mount(void)
{
	char p[512];
	int s;

	pathf(p, sizeof(p), "A");
	check(mnt(p, &g.a) == NFS_MNT3_OK, "MNT of A");
	pathf(p, sizeof(p), "B");
	check(mnt(p, &g.b) == NFS_MNT3_OK, "MNT of B");
	pathf(p, sizeof(p), "ro");
	check(mnt(p, &g.ro) == NFS_MNT3_OK, "MNT of ro");
	pathf(p, sizeof(p), "closed");
	s = mnt(p, NULL);
	if (s == NFS_MNT3_ERR_ACCES)
		g.refused++;
	check(s == NFS_MNT3_ERR_ACCES, "MNT of an export listing only 10.9.9.9: MNT3ERR_ACCES (%d)",
	      s);
	/* a directory below an export mounts; nothing reached through ".." or a symlink does */
	pathf(p, sizeof(p), "A/sub");
	s = mnt(p, NULL);
	check(s == NFS_MNT3_OK, "MNT of A/sub (a directory below A): %d", s);
	pathf(p, sizeof(p), "A/etc");
	s = mnt(p, NULL);
	check(s == NFS_MNT3_ERR_ACCES, "MNT of A/etc (a symlink to /etc): MNT3ERR_ACCES (%d)", s);
	pathf(p, sizeof(p), "A/../outside");
	s = mnt(p, NULL);
	check(s == NFS_MNT3_ERR_ACCES, "MNT of A/../outside: MNT3ERR_ACCES (%d)", s);
	pathf(p, sizeof(p), "outside");
	s = mnt(p, NULL);
	check(s == NFS_MNT3_ERR_NOENT, "MNT of DIR/outside (not exported): MNT3ERR_NOENT (%d)", s);
}

static void t_dotdot(void)
{
	struct nfs_attr root = {0}, up = {0};
	struct nfs_fh fh = {0};
	int s;

	/* each call before its check(): argument evaluation order is unspecified */
	s = getattr(&g.root, &g.a, &root);
	check(s == NFS_OK && root.type == NFS_DIR, "GETATTR of A's root: %s, type %u, fileid %llu",
	      st_name(s), root.type, (unsigned long long)root.fileid);
	s = lookup(&g.a, "..", 2, &fh, &up);
	check(s == NFS_OK && up.fileid == root.fileid && up.fsid == root.fsid,
	      "LOOKUP \"..\" at A's root answers the root: fileid %llu (root %llu), %s",
	      (unsigned long long)up.fileid, (unsigned long long)root.fileid, st_name(s));
	check(s == NFS_OK && fh.len == g.a.len && memcmp(fh.data, g.a.data, fh.len) == 0,
	      "LOOKUP \"..\" at A's root answers the root's own handle (%u bytes)", fh.len);
}

static void t_slash(void)
{
	int s;

	s = lookup(&g.a, "etc/passwd", 10, NULL, NULL);
	check(s == NFS_ERR_ACCES, "LOOKUP \"etc/passwd\" in A (a name with '/'): %s", st_name(s));
	s = lookup(&g.a, "../B", 4, NULL, NULL);
	check(s == NFS_ERR_ACCES, "LOOKUP \"../B\" in A: %s", st_name(s));
	s = lookup(&g.a, "sub\0x", 5, NULL, NULL);
	check(s == NFS_ERR_ACCES, "LOOKUP of a name with a NUL byte: %s", st_name(s));
}

/* READDIRPLUS of A's root: ".." carries the root's own handle and fileid */
static void t_readdirplus(void)
{
	static struct nfs_dirent ents[64];
	struct nfs3_readdirplus_args args = {.dir = g.a, .dircount = 8192, .maxcount = 32768};
	struct nfs3_readdir_res res = {.entries = ents, .cap = 64};
	const struct nfs_dirent *dd = NULL;
	int s;

	s = nfs(NFS3_PROC_READDIRPLUS, &g.root, &args, &res) ? -1 : (int)res.status;
	for (uint32_t i = 0; s == NFS_OK && i < res.count; i++)
		if (ents[i].namelen == 2 && memcmp(ents[i].name, "..", 2) == 0)
			dd = &ents[i];
	check(dd && dd->fh_valid && dd->fh.len == g.a.len &&
		      memcmp(dd->fh.data, g.a.data, g.a.len) == 0 && dd->attr_valid &&
		      dd->attr.type == NFS_DIR,
	      "READDIRPLUS of A's root: \"..\" carries the root's own handle (%s, %u entries)",
	      st_name(s), s == NFS_OK ? res.count : 0);
}

static void t_symlink(void)
{
	struct nfs_fh ln = {0};
	struct nfs_attr a = {0};
	struct nfs3_fh_args args;
	struct nfs3_readlink_res res = {0};
	int s;

	s = lookup(&g.a, "etc", 3, &ln, &a);
	check(s == NFS_OK && a.type == NFS_LNK,
	      "LOOKUP of A/etc (a symlink to /etc) answers a symlink: %s, type %u (5 = NF3LNK)",
	      st_name(s), a.type);
	s = lookup(&ln, "passwd", 6, NULL, NULL);
	check(s == NFS_ERR_NOTDIR, "LOOKUP \"passwd\" in the symlink is not followed: %s",
	      st_name(s));
	args.fh = ln;
	s = nfs(NFS3_PROC_READLINK, &g.root, &args, &res) ? -1 : (int)res.status;
	check(s == NFS_OK && res.pathlen == 4 && memcmp(res.path, "/etc", 4) == 0,
	      "READLINK of A/etc: %s, \"%.*s\"", st_name(s), s == NFS_OK ? (int)res.pathlen : 0,
	      s == NFS_OK ? res.path : "");
}

static void t_badhandle(void)
{
	struct nfs_fh fh;
	unsigned bad = 0;
	int s;

	for (uint32_t i = 0; i < g.a.len; i++) {
		fh = g.a;
		fh.data[i] ^= 0x5a;
		s = getattr(&g.root, &fh, NULL);
		if (s == NFS_ERR_BADHANDLE)
			bad++;
		else
			printf("# byte %u changed: GETATTR %s\n", i, st_name(s));
	}
	check(g.a.len >= FH_HDR + FH_TAG && bad == g.a.len,
	      "each of the %u bytes of A's root handle changed: GETATTR BADHANDLE %u times",
	      g.a.len, bad);
	fh = g.a;
	fh.len--;
	s = getattr(&g.root, &fh, NULL);
	check(s == NFS_ERR_BADHANDLE, "A's root handle one byte short: %s", st_name(s));
	fh.len = 0;
	s = getattr(&g.root, &fh, NULL);
	check(s == NFS_ERR_BADHANDLE, "an empty handle: %s", st_name(s));
	s = lookup(&fh, "etc", 3, NULL, NULL);
	check(s == NFS_ERR_BADHANDLE, "LOOKUP in an empty handle: %s", st_name(s));
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* A handle of path under A's header (version, export id) by the layout in nfs_fh.c, with
 * A's root handle's tag copied in (key NULL) or the tag computed under key. */
static int forge(const char *path, const uint8_t *key, struct nfs_fh *fh, struct stat *st)
{
	struct {
		struct file_handle h;
		uint8_t b[MAX_HANDLE_SZ];
	} k;
	int mnt_id;

	k.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, path, &k.h, &mnt_id, 0) != 0 || stat(path, st) != 0) {
		printf("# %s: no kernel handle (%s)\n", path, strerror(errno));
		return -1;
	}
	if (k.h.handle_bytes > NFS_FH_MAX - FH_HDR - FH_TAG) {
		printf("# %s: a kernel handle of %u bytes does not fit\n", path, k.h.handle_bytes);
		return -1;
	}
	memset(fh, 0, sizeof(*fh));
	memcpy(fh->data, g.a.data, FH_HDR); /* version, export id */
	fh->data[1] = (uint8_t)k.h.handle_bytes;
	put_be32(fh->data + 6, nfs_fh_dev_encode(st->st_dev));
	put_be32(fh->data + 10, (uint32_t)k.h.handle_type);
	memcpy(fh->data + FH_HDR, k.h.f_handle, k.h.handle_bytes);
	fh->len = FH_HDR + k.h.handle_bytes + FH_TAG;
	if (key) {
		uint64_t m = nfs_siphash24(key, fh->data, FH_HDR + k.h.handle_bytes);

		for (unsigned i = 0; i < FH_TAG; i++)
			fh->data[FH_HDR + k.h.handle_bytes + i] = (uint8_t)(m >> (8 * i));
	} else {
		memcpy(fh->data + FH_HDR + k.h.handle_bytes, g.a.data + g.a.len - FH_TAG, FH_TAG);
	}
	return 0;
}

static void t_forged(void)
{
	char secret[512], outside[512], keyp[512];
	uint8_t key[16];
	struct nfs_attr a = {0};
	struct nfs_fh fh;
	struct stat st;
	bool have_key;
	int s, fd;

	if (forge("/etc/passwd", NULL, &fh, &st) == 0) {
		s = getattr(&g.root, &fh, NULL);
		check(s == NFS_ERR_BADHANDLE,
		      "the kernel's handle of /etc/passwd under A's header, tag copied: %s",
		      st_name(s));
	}
	pathf(secret, sizeof(secret), "secret");
	pathf(outside, sizeof(outside), "outside");
	pathf(keyp, sizeof(keyp), "state/fh.key");
	s = forge(secret, NULL, &fh, &st);
	check(s == 0, "the kernel's handle of DIR/secret");
	if (s)
		return;
	s = getattr(&g.root, &fh, NULL);
	check(s == NFS_ERR_BADHANDLE,
	      "the kernel's handle of DIR/secret (outside every export, A's file system) under "
	      "A's header, tag copied: %s",
	      st_name(s));

	fd = open(keyp, O_RDONLY | O_CLOEXEC);
	have_key = fd >= 0 && read(fd, key, sizeof(key)) == (ssize_t)sizeof(key);
	if (fd >= 0)
		close(fd);
	check(have_key, "the server's handle key from %s", keyp);
	if (!have_key)
		return;
	/* the control: the layout above is the server's, so only the tag refused them */
	s = forge(secret, key, &fh, &st) == 0 ? getattr(&g.root, &fh, &a) : -1;
	check(s == NFS_OK && a.fileid == st.st_ino,
	      "the same bytes of DIR/secret tagged with the server's key are accepted: %s, "
	      "fileid %llu (inode %llu)",
	      st_name(s), (unsigned long long)a.fileid, (unsigned long long)st.st_ino);
	s = forge(outside, key, &fh, &st) == 0 ? getattr(&g.root, &fh, NULL) : -1;
	check(s == NFS_ERR_STALE,
	      "DIR/outside (a directory outside A) tagged with the server's key: %s (a directory "
	      "must reach its export's root by \"..\")",
	      st_name(s));
}

static void t_xdev(void)
{
	struct nfs_fh bf = {0}, af = {0};
	struct nfs_attr a1 = {0}, a2 = {0};
	struct nfs3_rename_args ra;
	struct nfs3_rename_res rr = {0};
	struct nfs3_link_args la;
	struct nfs3_link_res lr = {0};
	int s;

	check(create(&g.user, &g.b, "bfile", 5, &bf, &a1) == NFS_OK, "CREATE B/bfile");
	check(create(&g.user, &g.a, "afile", 5, &af, NULL) == NFS_OK, "CREATE A/afile");
	ra = (struct nfs3_rename_args){.from = {.dir = g.b, .name = "bfile", .namelen = 5},
				       .to = {.dir = g.a, .name = "moved", .namelen = 5}};
	s = nfs(NFS3_PROC_RENAME, &g.user, &ra, &rr) ? -1 : (int)rr.status;
	check(s == NFS_ERR_XDEV, "RENAME B/bfile to A/moved: %s", st_name(s));
	ra = (struct nfs3_rename_args){.from = {.dir = g.a, .name = "afile", .namelen = 5},
				       .to = {.dir = g.b, .name = "moved", .namelen = 5}};
	s = nfs(NFS3_PROC_RENAME, &g.user, &ra, &rr) ? -1 : (int)rr.status;
	check(s == NFS_ERR_XDEV, "RENAME A/afile to B/moved: %s", st_name(s));
	la = (struct nfs3_link_args){.fh = bf, .link = {.dir = g.a, .name = "lnk", .namelen = 3}};
	s = nfs(NFS3_PROC_LINK, &g.user, &la, &lr) ? -1 : (int)lr.status;
	check(s == NFS_ERR_XDEV, "LINK of B/bfile as A/lnk: %s", st_name(s));

	s = getattr(&g.user, &bf, &a2);
	check(s == NFS_OK && a2.fileid == a1.fileid && a2.nlink == 1,
	      "B/bfile's handle still works: GETATTR %s, nlink %u", st_name(s), a2.nlink);
	s = lookup(&g.b, "bfile", 5, NULL, NULL);
	check(s == NFS_OK, "B/bfile is still in B: %s", st_name(s));
	check(lookup(&g.a, "moved", 5, NULL, NULL) == NFS_ERR_NOENT &&
		      lookup(&g.a, "lnk", 3, NULL, NULL) == NFS_ERR_NOENT &&
		      lookup(&g.b, "moved", 5, NULL, NULL) == NFS_ERR_NOENT &&
		      lookup(&g.a, "afile", 5, NULL, NULL) == NFS_OK,
	      "nothing was moved or linked across: A/moved, A/lnk, B/moved absent, A/afile there");
}

static void t_names(void)
{
	char name[257];
	struct nfs3_diropargs rm;
	struct nfs3_wcc_res rr = {0};
	int s;

	memset(name, 'n', sizeof(name));
	s = create(&g.root, &g.a, name, 256, NULL, NULL);
	check(s == NFS_ERR_NAMETOOLONG, "CREATE of a 256-byte name: %s", st_name(s));
	s = lookup(&g.a, name, 256, NULL, NULL);
	check(s == NFS_ERR_NAMETOOLONG, "LOOKUP of a 256-byte name: %s", st_name(s));
	s = create(&g.root, &g.a, name, 255, NULL, NULL);
	check(s == NFS_OK, "CREATE of a 255-byte name: %s", st_name(s));
	s = lookup(&g.a, name, 255, NULL, NULL);
	check(s == NFS_OK, "LOOKUP of a 255-byte name: %s", st_name(s));
	rm = (struct nfs3_diropargs){.dir = g.a, .name = name, .namelen = 255};
	s = nfs(NFS3_PROC_REMOVE, &g.root, &rm, &rr) ? -1 : (int)rr.status;
	check(s == NFS_OK, "REMOVE of it: %s", st_name(s));
}

static void t_rofs(void)
{
	struct nfs_fh f = {0};
	struct nfs3_write_args wa;
	struct nfs3_write_res wr = {0};
	struct nfs3_read_args ra;
	struct nfs3_read_res rr = {0};
	int s;

	check(lookup(&g.ro, "file", 4, &f, NULL) == NFS_OK, "LOOKUP ro/file");
	wa = (struct nfs3_write_args){.fh = f,
				      .count = 4,
				      .stable = NFS_FILE_SYNC,
				      .data = (const uint8_t *)"XXXX",
				      .data_len = 4};
	s = nfs(NFS3_PROC_WRITE, &g.root, &wa, &wr) ? -1 : (int)wr.status;
	if (s == NFS_ERR_ROFS)
		g.rofs++;
	check(s == NFS_ERR_ROFS, "WRITE to ro/file on a read-only export: %s", st_name(s));
	s = create(&g.root, &g.ro, "new", 3, NULL, NULL);
	check(s == NFS_ERR_ROFS, "CREATE ro/new on a read-only export: %s", st_name(s));
	ra = (struct nfs3_read_args){.fh = f, .count = 64};
	s = nfs(NFS3_PROC_READ, &g.root, &ra, &rr) ? -1 : (int)rr.status;
	check(s == NFS_OK && rr.data_len == 9 && memcmp(rr.data, "original\n", 9) == 0,
	      "READ of ro/file: unchanged (%s, %u bytes)", st_name(s), rr.data_len);
}

/* ---- hand-made arguments ---- */

struct raw {
	const uint8_t *p;
	uint32_t len; /**< a multiple of 4 */
};

static bool_t xdr_raw(XDR *x, struct raw *r)
{
	return xdr_opaque(x, (char *)(uintptr_t)r->p, r->len);
}

static uint32_t put_words(uint8_t *p, const uint8_t *bytes, uint32_t len)
{
	put_be32(p, len);
	memcpy(p + 4, bytes, len);
	memset(p + 4 + len, 0, (4 - len % 4) % 4);
	return 4 + (len + 3) / 4 * 4;
}

/* a call whose arguments are the bytes given; results decoded with xres when it succeeds */
static int raw_call(uint32_t proc, const uint8_t *args, uint32_t len, xdrproc_t xres, void *res)
{
	struct raw r = {args, len};

	return call(&g.nfs, NFS3_PROGRAM, NFS3_VERSION, proc, &g.root, (xdrproc_t)xdr_raw, &r, xres,
		    res);
}

static void t_garbage(void)
{
	uint8_t buf[512], junk[68];
	uint64_t reconnects = g.nfs.stats.reconnects + g.mnt.stats.reconnects;
	struct nfs3_getattr_res res = {0};
	uint32_t n;
	int rc;

	/* GETATTR3args with a 65-byte nfs_fh3 (the limit is 64, RFC 1813 §2.5) */
	memset(junk, 0xa5, sizeof(junk));
	n = put_words(buf, junk, 65);
	rc = raw_call(NFS3_PROC_GETATTR, buf, n, NULL, NULL);
	if (rc == GARBAGE_ARGS)
		g.garbage++;
	check(rc == GARBAGE_ARGS, "GETATTR with a 65-byte handle: RPC %s",
	      rc >= 0 ? orpc_accept_stat_name((uint32_t)rc) : strerror(-rc));

	/* WRITE3args that promise 1000 bytes of data and carry 100 */
	n = put_words(buf, g.a.data, g.a.len);
	memset(buf + n, 0, 8); /* offset */
	put_be32(buf + n + 8, 1000);
	put_be32(buf + n + 12, NFS_UNSTABLE);
	put_be32(buf + n + 16, 1000);
	memset(buf + n + 20, 'w', 100);
	rc = raw_call(NFS3_PROC_WRITE, buf, n + 120, NULL, NULL);
	if (rc == GARBAGE_ARGS)
		g.garbage++;
	check(rc == GARBAGE_ARGS, "WRITE whose data stops 900 bytes short: RPC %s",
	      rc >= 0 ? orpc_accept_stat_name((uint32_t)rc) : strerror(-rc));

	/* CREATE3args with createmode3 3 (the union has no default arm, RFC 1813 §3.3.8) */
	n = put_words(buf, g.a.data, g.a.len);
	n += put_words(buf + n, (const uint8_t *)"c3", 2);
	put_be32(buf + n, 3);
	memset(buf + n + 4, 0, 24);
	rc = raw_call(NFS3_PROC_CREATE, buf, n + 28, NULL, NULL);
	if (rc == GARBAGE_ARGS)
		g.garbage++;
	check(rc == GARBAGE_ARGS, "CREATE with createmode 3: RPC %s",
	      rc >= 0 ? orpc_accept_stat_name((uint32_t)rc) : strerror(-rc));
	/* MNT with a dirpath of 1025 bytes (MNTPATHLEN is 1024) */
	{
		static uint8_t path[1025], big[1032];
		struct raw r = {big, 0};

		memset(path, 'p', sizeof(path));
		r.len = put_words(big, path, sizeof(path));
		rc = call(&g.mnt, NFS_MNT_PROGRAM, NFS_MNT_V3, NFS_MNT_PROC_MNT, &g.root,
			  (xdrproc_t)xdr_raw, &r, NULL, NULL);
	}
	if (rc == GARBAGE_ARGS)
		g.garbage++;
	check(rc == GARBAGE_ARGS, "MOUNT MNT with a 1025-byte path: RPC %s",
	      rc >= 0 ? orpc_accept_stat_name((uint32_t)rc) : strerror(-rc));

	rc = call(&g.nfs, NFS3_PROGRAM, NFS3_VERSION, NFS3_PROC_NULL, &g.root, NULL, NULL, NULL,
		  NULL);
	check(rc == SUCCESS, "NFS NULL afterwards: RPC %s",
	      rc >= 0 ? orpc_accept_stat_name((uint32_t)rc) : strerror(-rc));
	rc = call(&g.mnt, NFS_MNT_PROGRAM, NFS_MNT_V3, NFS_MNT_PROC_NULL, &g.root, NULL, NULL, NULL,
		  NULL);
	check(rc == SUCCESS, "MOUNT NULL afterwards: RPC %s",
	      rc >= 0 ? orpc_accept_stat_name((uint32_t)rc) : strerror(-rc));
	/* the control: the same hand encoding with a good handle decodes */
	n = put_words(buf, g.a.data, g.a.len);
	rc = raw_call(NFS3_PROC_GETATTR, buf, n, (xdrproc_t)xdr_nfs3_getattr_res, &res);
	check(rc == SUCCESS && res.status == NFS_OK && res.attr.type == NFS_DIR,
	      "a hand-encoded GETATTR of A's root afterwards: %s",
	      rc == SUCCESS ? st_name(res.status) : "RPC error");
	check(g.nfs.stats.reconnects + g.mnt.stats.reconnects == reconnects &&
		      g.nfs.stats.retransmits + g.mnt.stats.retransmits == 0,
	      "NFS and MOUNT each on one connection throughout: %llu reconnects, %llu "
	      "retransmissions",
	      (unsigned long long)(g.nfs.stats.reconnects + g.mnt.stats.reconnects - reconnects),
	      (unsigned long long)(g.nfs.stats.retransmits + g.mnt.stats.retransmits));
}

static void t_squash(void)
{
	struct {
		const char *who;
		const struct orpc_authsys *sys;
		const struct nfs_fh *dir;
		const char *rel, *name;
		uint32_t uid, gid;
	} rows[] = {
		{"root (uid 0) on B (root_squash)", &g.root, &g.b, "B", "by_root", 65534, 65534},
		{"uid 1000 on B (root_squash)", &g.user, &g.b, "B", "by_1000", 1000, 1000},
		{"root (uid 0) on A (no_root_squash)", &g.root, &g.a, "A", "by_root", 0, 0},
		{"AUTH_NONE on A (no_root_squash)", NULL, &g.a, "A", "by_none", 65534, 65534},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct nfs_fh fh = {0};
		struct nfs_attr c = {0}, a = {0};
		uint32_t len = (uint32_t)strlen(rows[i].name);
		int s = create(rows[i].sys, rows[i].dir, rows[i].name, len, &fh, &c);

		if (s == NFS_OK)
			s = getattr(&g.root, &fh, &a);
		check(s == NFS_OK && c.uid == rows[i].uid && c.gid == rows[i].gid &&
			      a.uid == rows[i].uid && a.gid == rows[i].gid,
		      "a file made by %s is %u:%u (CREATE's attributes %u:%u, GETATTR %u:%u)",
		      rows[i].who, rows[i].uid, rows[i].gid, c.uid, c.gid, a.uid, a.gid);
		printf("disk %s/%s/%s %u:%u\n", g.dir, rows[i].rel, rows[i].name, rows[i].uid,
		       rows[i].gid);
	}
}

/* root_squash holds for every operation: a squashed root cannot give a file to root, and
 * group 0 in anyone's list is squashed too (knfsd's nfsd_setuser) */
static void t_squash_ops(void)
{
	struct orpc_authsys g0 = g.user;
	struct nfs_fh f = {0}, fa = {0};
	struct nfs3_setattr_args sa;
	struct nfs3_wcc_res sr = {0};
	struct nfs3_read_args ra;
	struct nfs3_read_res rr = {0};
	struct nfs_attr a = {0};
	int s;

	s = lookup(&g.b, "by_root", 7, &f, NULL);
	sa = (struct nfs3_setattr_args){.fh = f, .sattr = {.set_uid = true, .uid = 0}};
	if (s == NFS_OK)
		s = nfs(NFS3_PROC_SETATTR, &g.root, &sa, &sr) ? -1 : (int)sr.status;
	check(s == NFS_ERR_PERM, "SETATTR uid 0 of B/by_root by root on B (root_squash): %s",
	      st_name(s));
	s = getattr(&g.root, &f, &a);
	check(s == NFS_OK && a.uid == 65534, "B/by_root still belongs to %u", a.uid);

	g0.ngids = 1;
	g0.gids[0] = 0;
	s = lookup(&g.b, "g0", 2, &f, NULL);
	ra = (struct nfs3_read_args){.fh = f, .count = 16};
	if (s == NFS_OK)
		s = nfs(NFS3_PROC_READ, &g0, &ra, &rr) ? -1 : (int)rr.status;
	check(s == NFS_ERR_ACCES,
	      "READ of B/g0 (0:0, mode 0040) by uid 1000 with group 0 on B (root_squash): %s",
	      st_name(s));
	s = lookup(&g.a, "g0", 2, &fa, NULL);
	ra.fh = fa;
	if (s == NFS_OK)
		s = nfs(NFS3_PROC_READ, &g0, &ra, &rr) ? -1 : (int)rr.status;
	check(s == NFS_OK && rr.data_len == 3,
	      "READ of A/g0 (the same, on A: no_root_squash) by the same caller: %s", st_name(s));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"server", 1, NULL, 's'}, {"dir", 1, NULL, 'd'}, {NULL, 0, NULL, 0}};
	int o;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 's')
			g.server = optarg;
		else if (o == 'd')
			g.dir = optarg;
		else
			return 2;
	}
	if (!g.server || !g.dir) {
		fprintf(stderr, "usage: nfs3_confine --server IP --dir DIR\n");
		return 2;
	}
	snprintf(g.root.machname, sizeof(g.root.machname), "confine");
	g.user = g.root;
	g.user.uid = g.user.gid = 1000;
	if (orpc_clnt_init(&g.mnt, g.server, MOUNT_PORT, 3000, 2) != 0 ||
	    orpc_clnt_init(&g.nfs, g.server, NFS_PORT, 3000, 2) != 0) {
		fprintf(stderr, "nfs3_confine: cannot reach %s\n", g.server);
		return 1;
	}
	t_mount();
	if (g.failures) {
		printf("FAIL: the exports did not mount; nothing else can run\n");
		return 1;
	}
	t_dotdot();
	t_slash();
	t_readdirplus();
	t_symlink();
	t_badhandle();
	t_forged();
	t_xdev();
	t_names();
	t_rofs();
	t_garbage();
	t_squash();
	t_squash_ops();
	printf("expect badhandle %u\nexpect stale %u\nexpect rofs %u\nexpect refused %u\n"
	       "expect garbage %u\n",
	       g.badhandle, g.stale, g.rofs, g.refused, g.garbage);
	printf("%s: %d of %d checks passed\n", g.failures ? "FAIL" : "PASS", g.checks - g.failures,
	       g.checks);
	orpc_clnt_fini(&g.mnt);
	orpc_clnt_fini(&g.nfs);
	free(g.last);
	return g.failures ? 1 : 0;
}
