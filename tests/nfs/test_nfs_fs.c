/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nfs_fs.c - the NFS backend (nfs/fs) against a real file system: exports and handles.
 * The exports(5) parser (every option, every refusal and its message, a fixture like a real
 * /etc/exports), client matching and squashing, SipHash-2-4 against the paper's vectors,
 * sealed handles (forged, flipped, of a removed export, across restarts), confinement (".." at
 * a root, symlinks), SIGHUP's reload, the helper threads' umask, the client list and
 * read-only exports. Credentials and the descriptor cache are in test_nfs_fs_cred.c, the
 * operations and mount points in test_nfs_fs_ops.c.
 *
 * Needs root (credential switching, open_by_handle_at): exits 77 (skipped) otherwise. The
 * export trees live under a fresh directory in /tmp (nfs_fs_fixture.c; the fixture checks
 * that the file system gives handles and skips if not).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "nfs_fs.h"
#include "nfs_fs_fixture.h"
#include "nfs_fs_int.h"
#include "nfs_pool.h"

/* ---- SipHash ---- */

static void test_siphash_vectors(void **state)
{
	uint8_t key[16], msg[64];

	(void)state;
	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 64; i++)
		msg[i] = (uint8_t)i;
	/* the paper's Appendix A: key 00..0f, message 00..0e */
	assert_true(nfs_siphash24(key, msg, 15) == 0xa129ca6149be45e5ull);
	/* the reference implementation's vectors.h, first entries (empty, 1 byte, 8 bytes) */
	assert_true(nfs_siphash24(key, msg, 0) == 0x726fdb47dd0e0e31ull);
	assert_true(nfs_siphash24(key, msg, 1) == 0x74f839c593dc67fdull);
	assert_true(nfs_siphash24(key, msg, 8) == 0x93f5f5799a932462ull);
}

/* ---- the parser ---- */

static const char fixture[] =
	"# /etc/exports for the lab (exports(5))\n"
	"/srv/data      192.168.10.0/24(rw,sync,no_subtree_check) 10.0.0.5(ro)\n"
	"/srv/pub       *(ro,insecure,all_squash,anonuid=150,anongid=100)   # public\n"
	"\n"
	"/srv/home      -rw,no_subtree_check client1(root_squash) \\\n"
	"               2001:db8:9:e54::/64(no_root_squash,async)\n"
	"\"/srv/with space\"  127.0.0.1(rw,fsid=17,crossmnt,nohide,wdelay,sec=sys)\n"
	"/srv/def/\n"
	"/srv/mask 10.1.0.0/255.255.0.0(secure,no_wdelay,hide,subtree_check,no_all_squash) "
	"::1(sec=sys:sys)\n";

static void test_parse_fixture(void **state)
{
	struct nfs_export e[8];
	char err[256];
	int n;

	(void)state;
	n = nfs_exports_parse(fixture, e, 8, err, sizeof(err));
	if (n < 0)
		fail_msg("%s", err);
	assert_int_equal(n, 6);

	assert_string_equal(e[0].path, "/srv/data");
	assert_int_equal(e[0].nclients, 2);
	assert_int_equal(e[0].clients[0].kind, NFS_CLIENT_CIDR4);
	assert_int_equal(e[0].clients[0].prefix, 24);
	assert_memory_equal(e[0].clients[0].addr, "\xc0\xa8\x0a\x00", 4);
	assert_true(e[0].clients[0].opts.rw);
	assert_false(e[0].clients[0].opts.async);
	assert_true(e[0].clients[0].opts.root_squash); /* the default */
	assert_int_equal(e[0].clients[1].prefix, 32);
	assert_false(e[0].clients[1].opts.rw);

	assert_int_equal(e[1].clients[0].kind, NFS_CLIENT_ANY);
	assert_true(e[1].clients[0].opts.insecure);
	assert_true(e[1].clients[0].opts.all_squash);
	assert_int_equal(e[1].clients[0].opts.anonuid, 150);
	assert_int_equal(e[1].clients[0].opts.anongid, 100);

	/* "-opts" defaults, a continuation line, a host name, an IPv6 network */
	assert_string_equal(e[2].path, "/srv/home");
	assert_int_equal(e[2].nclients, 2);
	assert_int_equal(e[2].clients[0].kind, NFS_CLIENT_HOST);
	assert_string_equal(e[2].clients[0].host, "client1");
	assert_true(e[2].clients[0].opts.rw);
	assert_true(e[2].clients[0].opts.root_squash);
	assert_int_equal(e[2].clients[1].kind, NFS_CLIENT_CIDR6);
	assert_int_equal(e[2].clients[1].prefix, 64);
	assert_true(e[2].clients[1].opts.rw);
	assert_false(e[2].clients[1].opts.root_squash);
	assert_true(e[2].clients[1].opts.async);

	assert_string_equal(e[3].path, "/srv/with space");
	assert_true(e[3].clients[0].opts.fsid_set);
	assert_true(e[3].clients[0].opts.fsid == 17 && e[3].fsid == 17);
	assert_true(e[3].clients[0].opts.crossmnt);
	assert_true(e[3].clients[0].opts.nohide);

	/* no client: everyone, with the defaults; the trailing '/' is dropped */
	assert_string_equal(e[4].path, "/srv/def");
	assert_int_equal(e[4].nclients, 1);
	assert_int_equal(e[4].clients[0].kind, NFS_CLIENT_ANY);
	assert_false(e[4].clients[0].opts.rw);
	assert_true(e[4].clients[0].opts.root_squash);
	assert_false(e[4].clients[0].opts.insecure);
	assert_int_equal(e[4].clients[0].opts.anonuid, 65534);
	assert_int_equal(e[4].clients[0].opts.anongid, 65534);

	assert_int_equal(e[5].clients[0].prefix, 16);
	assert_true(e[5].clients[0].opts.subtree_check);
	assert_false(e[5].clients[0].opts.nohide);
	assert_int_equal(e[5].clients[1].kind, NFS_CLIENT_CIDR6);
	assert_int_equal(e[5].clients[1].prefix, 128);
}

/* each option once, and its opposite */
static void test_parse_every_option(void **state)
{
	struct nfs_export e[2];
	char err[256];

	(void)state;
	assert_int_equal(nfs_exports_parse("/a *(rw,no_root_squash,all_squash,insecure,async,"
					   "crossmnt,nohide,subtree_check,anonuid=7,anongid=8,"
					   "fsid=4294967296,wdelay,sec=sys)\n"
					   "/b *(rw,ro,root_squash,no_all_squash,secure,sync,hide,"
					   "no_subtree_check,no_wdelay)",
					   e, 2, err, sizeof(err)),
			 2);
	const struct nfs_export_opts *a = &e[0].clients[0].opts, *b = &e[1].clients[0].opts;

	assert_true(a->rw && !a->root_squash && a->all_squash && a->insecure && a->async);
	assert_true(a->crossmnt && a->nohide && a->subtree_check);
	assert_int_equal(a->anonuid, 7);
	assert_int_equal(a->anongid, 8);
	assert_true(a->fsid_set && a->fsid == 4294967296ull);
	assert_true(!b->rw && b->root_squash && !b->all_squash && !b->insecure && !b->async);
	assert_true(!b->nohide && !b->subtree_check && !b->fsid_set);
}

struct bad_case {
	const char *text;
	const char *word; /* the message must name it */
};

static const struct bad_case bad_cases[] = {
	{"/x 1.2.3.4(rw,bogus)", "'bogus'"},
	{"/x 1.2.3.4(rw,bogus)", "accepted: ro, rw"},
	{"/x 1.2.3.4(sec=krb5)", "'krb5'"},
	{"/x 1.2.3.4(sec=sys:krb5p)", "'krb5p'"},
	{"/x 1.2.3.4(sec=)", "sec=sys"},
	{"/x 1.2.3.4(fsid=root)", "fsid=root"},
	{"/x 1.2.3.4(fsid=6a1b2c3d-uuid)", "fsid=6a1b2c3d-uuid"},
	{"/x 1.2.3.4(anonuid=abc)", "anonuid=abc"},
	{"/x 1.2.3.4(anongid=4294967296)", "anongid=4294967296"},
	{"/x 1.2.3.4(anonuid)", "'anonuid'"},
	{"/x 1.2.3.4(rw=1)", "'rw=1'"},
	{"/x 1.2.3.4(rw,,ro)", "empty option"},
	{"/x 1.2.3.4/33(rw)", "'1.2.3.4/33'"},
	{"/x 1.2.3.4/255.0.255.0(rw)", "'1.2.3.4/255.0.255.0'"},
	{"/x ::1/129", "'::1/129'"},
	{"/x @trusted(rw)", "'@trusted'"},
	{"/x *.example.com(rw)", "'*.example.com'"},
	{"/x gss/krb5(rw)", "'gss/krb5'"},
	{"/x host!name(rw)", "'host!name'"},
	{"/x 1.2.3.4(rw", "'1.2.3.4(rw'"},
	{"/x 1.2.3.4(rw)(ro)", "'1.2.3.4(rw)(ro)'"},
	{"relative 1.2.3.4", "'relative'"},
	{"\"/x 1.2.3.4", "no closing quote"},
	{"/x 1.2.3.4\n/x 5.6.7.8", "'/x' is exported twice"},
	{"/x 1.2.3.4(rw)\n\n/y 1.2.3.4(bad)", "line 3: "},
	{"/x -bogus 1.2.3.4", "'bogus'"},
};

static void test_parse_errors(void **state)
{
	struct nfs_export e[4];
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		int rc = nfs_exports_parse(bad_cases[i].text, e, 4, err, sizeof(err));

		if (rc != -EINVAL || !strstr(err, bad_cases[i].word))
			fail_msg("'%s': rc %d, message '%s' does not name %s", bad_cases[i].text,
				 rc, err, bad_cases[i].word);
		assert_true(strncmp(err, "line ", 5) == 0);
	}
	/* more exports than room */
	assert_int_equal(nfs_exports_parse("/a\n/b\n/c", e, 2, err, sizeof(err)), -ENOSPC);
	assert_non_null(strstr(err, "more than 2 exports"));
}

/* ---- matching and squashing ---- */

static struct sockaddr_storage peer(const char *ip)
{
	struct nfs_ctx c = nfsf_ctx_of(NULL, ip, 0, 0);

	return c.peer;
}

static void test_match_and_squash(void **state)
{
	struct nfs_export e[2];
	const struct nfs_export_client *c;
	struct sockaddr_storage p;
	struct nfs_cred in = {.flavor = 1, .uid = 0, .gid = 0, .ngroups = 3, .groups = {5, 0, 7}};
	struct nfs_cred out;
	char err[256];

	(void)state;
	assert_int_equal(nfs_exports_parse("/a 10.0.0.0/8(ro) 10.1.0.0/16(rw) "
					   "2001:db8::/32(rw,all_squash,anonuid=9,anongid=9) "
					   "localhost(rw,no_root_squash)",
					   e, 2, err, sizeof(err)),
			 1);
	/* first match in order, not the most specific (exportfs) */
	p = peer("10.1.2.3");
	c = nfs_export_match(&e[0], &p);
	assert_ptr_equal(c, &e[0].clients[0]);
	p = peer("::ffff:10.9.9.9"); /* an IPv4 peer on an IPv6 socket */
	assert_ptr_equal(nfs_export_match(&e[0], &p), &e[0].clients[0]);
	p = peer("2001:db8:1::5");
	assert_ptr_equal(nfs_export_match(&e[0], &p), &e[0].clients[2]);
	p = peer("2001:db9::5");
	assert_null(nfs_export_match(&e[0], &p));
	p = peer("11.0.0.1");
	assert_null(nfs_export_match(&e[0], &p));
	/* a host name matches once resolved */
	p = peer("127.0.0.1");
	assert_null(nfs_export_match(&e[0], &p));
	assert_int_equal(nfs_exports_resolve(e, 1, err, sizeof(err)), 0);
	assert_ptr_equal(nfs_export_match(&e[0], &p), &e[0].clients[3]);

	/* root_squash: uid 0, gid 0 and group 0 to the anonymous ids (knfsd's nfsd_setuser) */
	assert_true(nfs_export_squash(&e[0].clients[0].opts, &in, &out));
	assert_int_equal(out.uid, 65534);
	assert_int_equal(out.gid, 65534);
	assert_int_equal(out.ngroups, 3);
	assert_int_equal(out.groups[0], 5);
	assert_int_equal(out.groups[1], 65534);
	assert_int_equal(out.groups[2], 7);
	/* no_root_squash keeps root */
	assert_false(nfs_export_squash(&e[0].clients[3].opts, &in, &out));
	assert_int_equal(out.uid, 0);
	/* all_squash maps everyone and clears the groups */
	in.uid = 1000;
	in.gid = 1000;
	assert_true(nfs_export_squash(&e[0].clients[2].opts, &in, &out));
	assert_int_equal(out.uid, 9);
	assert_int_equal(out.gid, 9);
	assert_int_equal(out.ngroups, 0);
	/* a non-root user on root_squash is left alone; AUTH_NONE is anonymous */
	in.ngroups = 0;
	assert_false(nfs_export_squash(&e[0].clients[0].opts, &in, &out));
	assert_int_equal(out.uid, 1000);
	in.flavor = 0;
	assert_true(nfs_export_squash(&e[0].clients[0].opts, &in, &out));
	assert_int_equal(out.uid, 65534);
}

static void test_unresolvable_host(void **state)
{
	struct nfs_fs *fs = NULL;
	char text[600], err[512];

	(void)state;
	snprintf(text, sizeof(text), "%s/a no-such-host.invalid(rw)\n", nfsf_base);
	assert_int_not_equal(nfs_fs_open(&fs, text, nfsf_statedir, err, sizeof(err)), 0);
	assert_null(fs);
	assert_non_null(strstr(err, "'no-such-host.invalid'"));
}

/* ---- handles and confinement ---- */

static void test_confinement(void **state)
{
	struct nfs_fs *fs = nfsf_open_fs(nfsf_exports);
	struct nfs_ctx c = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	struct nfs_fh root = nfsf_mount_of(&c, "a"), fh, fh2;
	struct nfs_attr a, ra;
	struct nfs_fs_stats st0, st1;
	char buf[64];
	uint32_t len;
	bool v;

	(void)state;
	assert_int_equal(nfs_fs_getattr(&c, &root, &ra), NFS_OK);
	assert_int_equal(ra.type, NFS_DIR);
	/* ".." at the root is the root; "." is itself */
	assert_int_equal(nfsf_lookup(&c, &root, "..", &fh, &a), NFS_OK);
	assert_true(nfsf_fh_eq(&fh, &root));
	assert_int_equal(nfsf_lookup(&c, &root, ".", &fh, &a), NFS_OK);
	assert_true(nfsf_fh_eq(&fh, &root));
	/* ".." below the root goes up to it */
	assert_int_equal(nfsf_lookup(&c, &root, "sub", &fh, &a), NFS_OK);
	assert_int_equal(nfsf_lookup(&c, &fh, "..", &fh2, &a), NFS_OK);
	assert_true(nfsf_fh_eq(&fh2, &root));

	/* a symlink to /etc is a symlink; going through it is not a directory */
	assert_int_equal(nfsf_lookup(&c, &root, "etclink", &fh, &a), NFS_OK);
	assert_int_equal(a.type, NFS_LNK);
	assert_int_equal(nfs_fs_readlink(&c, &fh, buf, sizeof(buf), &len, &v, &a), NFS_OK);
	assert_int_equal(len, 4);
	assert_memory_equal(buf, "/etc", 4);
	assert_int_equal(nfsf_lookup(&c, &fh, "passwd", &fh2, &a), NFS_ERR_NOTDIR);

	/* bad names */
	char longname[257];

	memset(longname, 'n', 256);
	longname[256] = 0;
	assert_int_equal(nfsf_lookup(&c, &root, longname, &fh, &a), NFS_ERR_NAMETOOLONG);
	assert_int_equal(nfsf_lookup(&c, &root, "sub/x", &fh, &a), NFS_ERR_ACCES);
	assert_int_equal(nfs_fs_lookup(&c, &root, "a\0b", 3, &fh, &a, &v, &ra), NFS_ERR_ACCES);
	assert_int_equal(nfsf_lookup(&c, &root, "nothere", &fh, &a), NFS_ERR_NOENT);

	/* a flipped byte anywhere: BADHANDLE, counted */
	nfs_fs_stats(fs, &st0);
	assert_int_equal(nfsf_lookup(&c, &root, "file", &fh, &a), NFS_OK);
	for (uint32_t i = 0; i < fh.len; i++) {
		fh2 = fh;
		fh2.data[i] ^= 0x10;
		assert_int_equal(nfs_fs_getattr(&c, &fh2, &a), NFS_ERR_BADHANDLE);
	}
	fh2 = fh;
	fh2.len--;
	assert_int_equal(nfs_fs_getattr(&c, &fh2, &a), NFS_ERR_BADHANDLE);
	nfs_fs_stats(fs, &st1);
	assert_true(st1.badhandle == st0.badhandle + fh.len + 1);

	/* a handle made by hand for /etc/passwd with export A's id, without the key */
	struct {
		struct file_handle h;
		uint8_t b[MAX_HANDLE_SZ];
	} k;
	struct nfs_fh_parts parts = {0};
	struct stat est;
	uint8_t badkey[16] = {1, 2, 3};
	int mnt;

	k.h.handle_bytes = MAX_HANDLE_SZ;
	assert_int_equal(name_to_handle_at(AT_FDCWD, "/etc/passwd", &k.h, &mnt, 0), 0);
	assert_int_equal(stat("/etc/passwd", &est), 0);
	parts.export_id = nfs_fs_export(fs, 0)->id;
	parts.dev = nfs_fh_dev_encode(est.st_dev);
	parts.handle_type = k.h.handle_type;
	parts.klen = k.h.handle_bytes;
	memcpy(parts.kfh, k.h.f_handle, parts.klen);
	assert_int_equal(nfs_fh_seal(badkey, &parts, &fh2), 0);
	assert_int_equal(nfs_fs_getattr(&c, &fh2, &a), NFS_ERR_BADHANDLE);
	memset(fh2.data + fh2.len - 8, 0, 8); /* no MAC at all */
	assert_int_equal(nfs_fs_getattr(&c, &fh2, &a), NFS_ERR_BADHANDLE);
	/* with the server's key (stolen from the state directory), a directory outside the
	 * export is still refused: walking its ".." never meets the export's root */
	k.h.handle_bytes = MAX_HANDLE_SZ;
	assert_int_equal(name_to_handle_at(AT_FDCWD, "/etc", &k.h, &mnt, 0), 0);
	assert_int_equal(stat("/etc", &est), 0);
	if (nfs_fh_dev_encode(est.st_dev) == parts.dev) {
		parts.klen = k.h.handle_bytes;
		parts.handle_type = k.h.handle_type;
		memcpy(parts.kfh, k.h.f_handle, parts.klen);
		assert_int_equal(nfs_fh_seal(fs->state.key, &parts, &fh2), 0);
		assert_int_equal(nfs_fs_getattr(&c, &fh2, &a), NFS_ERR_STALE);
	}
	nfs_fs_close(fs);
}

static void test_stale_and_restart(void **state)
{
	struct nfs_fs *fs = nfsf_open_fs(nfsf_exports);
	struct nfs_ctx c = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	struct nfs_fh root = nfsf_mount_of(&c, "a"), fh, bfh, again;
	struct nfs_attr a;
	char text[600];
	uint8_t v1[8], v2[8];
	uint32_t id_a = nfs_fs_export(fs, 0)->id;

	(void)state;
	assert_int_equal(nfsf_lookup(&c, &root, "file", &fh, &a), NFS_OK);
	bfh = nfsf_mount_of(&c, "b");
	nfs_fs_write_verf(fs, v1);
	nfs_fs_close(fs);

	/* the same state directory and exports: the same handles still work */
	fs = nfsf_open_fs(nfsf_exports);
	c.fs = fs;
	assert_int_equal(nfs_fs_getattr(&c, &fh, &a), NFS_OK);
	assert_int_equal(nfs_fs_export(fs, 0)->id, id_a);
	again = nfsf_mount_of(&c, "a");
	assert_true(nfsf_fh_eq(&again, &root));
	nfs_fs_write_verf(fs, v2);
	assert_memory_not_equal(v1, v2, 8); /* a new write verifier on every open */
	nfs_fs_close(fs);

	/* export A removed (B first now): A's handles are stale, B's still work */
	snprintf(text, sizeof(text), "%s/b 127.0.0.1(rw,no_root_squash)\n", nfsf_base);
	fs = nfsf_open_fs(text);
	c.fs = fs;
	assert_int_equal(nfs_fs_getattr(&c, &fh, &a), NFS_ERR_STALE);
	assert_int_equal(nfs_fs_getattr(&c, &root, &a), NFS_ERR_STALE);
	assert_int_equal(nfs_fs_getattr(&c, &bfh, &a), NFS_OK);
	nfs_fs_close(fs);

	/* a new path never takes A's id; A back later gets its id back */
	snprintf(text, sizeof(text), "%s/new 127.0.0.1(rw)\n%s/a 127.0.0.1(rw)\n", nfsf_base,
		 nfsf_base);
	fs = nfsf_open_fs(text);
	c.fs = fs;
	assert_int_not_equal(nfs_fs_export(fs, 0)->id, id_a);
	assert_int_equal(nfs_fs_export(fs, 1)->id, id_a);
	assert_int_equal(nfs_fs_getattr(&c, &fh, &a), NFS_OK);
	nfs_fs_close(fs);

	/* a removed file: STALE */
	fs = nfsf_open_fs(nfsf_exports);
	c.fs = fs;
	nfsf_mkfile("a/doomed", 0644, 0, "x");
	assert_int_equal(nfsf_lookup(&c, &root, "doomed", &fh, &a), NFS_OK);
	assert_int_equal(nfs_fs_remove(&c, &root, "doomed", 6, NULL), NFS_OK);
	assert_int_equal(nfs_fs_getattr(&c, &fh, &a), NFS_ERR_STALE);
	nfs_fs_close(fs);
}

/* SIGHUP's reload: a bad file changes nothing; a client dropped from a list and a removed
 * export answer ACCES on handles they had; an added export mounts; kept exports keep working,
 * and an object held across the swap stays usable until reclaimed */
static void test_reload(void **state)
{
	struct nfs_fs *fs = nfsf_open_fs(nfsf_exports);
	struct nfs_ctx c = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	struct nfs_ctx other = nfsf_ctx_of(fs, "127.0.0.2", 0, 0);
	struct nfs_fh root = nfsf_mount_of(&c, "a"), broot = nfsf_mount_of(&c, "b"), fh, nfh;
	struct nfs_export_tab *next = NULL;
	struct nfs_reload_stats rs;
	struct nfs_fs_stats st, st2;
	struct nfs_attr a;
	char text[5000], err[512], p[512];
	uint32_t n0 = 0;

	(void)state;
	while (nfs_fs_export(fs, n0))
		n0++;
	assert_int_equal(nfsf_lookup(&c, &root, "file", &fh, &a), NFS_OK);
	assert_int_equal(nfs_fs_getattr(&other, &broot, &a), NFS_ERR_ACCES);

	/* a bad file: an error naming it, and the running table untouched */
	assert_int_not_equal(
		nfs_fs_reload_prepare(fs, "/nonexistent/dir *(rw)\n", &next, err, sizeof(err)), 0);
	assert_null(next);
	assert_non_null(strstr(err, "/nonexistent/dir"));
	assert_int_equal(nfs_fs_getattr(&c, &fh, &a), NFS_OK);

	/* A gone, B now also for .2, a new export "new" */
	nfsf_mkdir_rel("new", 0755);
	snprintf(text, sizeof(text),
		 "%s/b 127.0.0.1(rw,no_root_squash) 127.0.0.2(rw,no_root_squash)\n"
		 "%s/new 127.0.0.1(rw)\n",
		 nfsf_base, nfsf_base);
	assert_int_equal(nfs_fs_reload_prepare(fs, text, &next, err, sizeof(err)), 0);
	/* prepared but not committed: nothing changed yet */
	assert_int_equal(nfs_fs_getattr(&c, &fh, &a), NFS_OK);
	nfs_fs_stats(fs, &st);
	nfs_fs_reload_commit(fs, next, &rs);
	assert_int_equal(rs.exports, 2);
	assert_int_equal(rs.added, 1);
	assert_int_equal(rs.kept, 1);
	assert_int_equal(rs.removed, n0 - 1);
	assert_int_equal(nfs_fs_getattr(&c, &fh, &a), NFS_ERR_ACCES);
	assert_int_equal(nfs_fs_getattr(&c, &root, &a), NFS_ERR_ACCES);
	nfs_fs_stats(fs, &st2);
	assert_int_equal(st2.acces_client, st.acces_client + 2);
	assert_int_equal(st2.stale, st.stale);
	nfsf_pathf(p, sizeof(p), "a");
	assert_int_equal(nfs_fs_mount(&c, p, &nfh), NFS_ERR_NOENT);
	assert_int_equal(nfs_fs_getattr(&c, &broot, &a), NFS_OK);
	assert_int_equal(nfs_fs_getattr(&other, &broot, &a), NFS_OK);
	nfh = nfsf_mount_of(&c, "new");
	assert_int_equal(nfs_fs_getattr(&c, &nfh, &a), NFS_OK);
	assert_int_equal(nfs_fs_reclaim(fs), 1);
	assert_int_equal(nfs_fs_reclaim(fs), 0);

	/* A back: its id and handles work again; a reload that removes nothing else keeps
	 * "new"'s handle */
	snprintf(text, sizeof(text), "%s\n%s/new 127.0.0.1(rw)\n", nfsf_exports, nfsf_base);
	assert_int_equal(nfs_fs_reload_prepare(fs, text, &next, err, sizeof(err)), 0);
	nfs_fs_reload_commit(fs, next, &rs);
	assert_int_equal(rs.removed, 0);
	assert_int_equal(nfs_fs_getattr(&c, &fh, &a), NFS_OK);
	assert_int_equal(nfs_fs_getattr(&c, &nfh, &a), NFS_OK);
	assert_int_equal(nfs_fs_getattr(&other, &broot, &a), NFS_ERR_ACCES);

	/* a prepared table thrown away leaves everything as it was */
	assert_int_equal(nfs_fs_reload_prepare(fs, "", &next, err, sizeof(err)), 0);
	nfs_fs_reload_abort(next);
	assert_int_equal(nfs_fs_getattr(&c, &fh, &a), NFS_OK);
	nfs_fs_close(fs); /* frees the retired table too (LSan checks) */
}

/* The helper threads create files with the mode the client asked for, at once: their umask is
 * 0 (a thread-private one), whatever the process's; the process keeps its own. */
struct umask_job {
	unsigned worker_umask;
	struct nfs_fh fh;
	struct nfs_fs *fs;
	enum nfs_stat st;
	bool done;
};

static unsigned thread_umask(void)
{
	char line[128];
	unsigned u = 0777;
	FILE *f = fopen("/proc/thread-self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Umask: %o", &u) == 1)
			break;
	if (f)
		fclose(f);
	return u;
}

static void umask_work(void *arg)
{
	struct umask_job *j = arg;
	struct nfs_ctx c = nfsf_ctx_of(j->fs, "127.0.0.1", 0, 0);
	struct nfs_fh root = nfsf_mount_of(&c, "a");
	struct nfs_sattr sa = {.set_mode = true, .mode = 0666};
	uint8_t verf[8] = {0};
	struct nfs_attr a;
	struct nfs_wcc w;

	j->worker_umask = thread_umask();
	j->st = nfs_fs_create(&c, &root, "by_helper", 9, NFS_CREATE_UNCHECKED, &sa, verf, &j->fh,
			      &a, &w);
}

static void umask_done(void *arg)
{
	((struct umask_job *)arg)->done = true;
}

static void test_pool_umask(void **state)
{
	struct umask_job j = {.fs = nfsf_open_fs(nfsf_exports)};
	mode_t old = umask(077);
	struct nfs_pool *p = nfs_pool_create("umask", 1, umask_work);
	struct stat st;
	char path[512];

	(void)state;
	assert_non_null(p);
	assert_int_equal(nfs_pool_submit(p, &j), 0);
	for (int i = 0; i < 5000 && !j.done; i++) {
		nfs_pool_poll(p, umask_done, 1);
		usleep(1000);
	}
	assert_true(j.done);
	nfs_pool_destroy(p, NULL);
	assert_int_equal(j.worker_umask, 0);
	assert_int_equal(thread_umask(), 077); /* the process's own, untouched */
	assert_int_equal(j.st, NFS_OK);
	nfsf_pathf(path, sizeof(path), "a/by_helper");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0666);
	unlink(path);
	umask(old);
	nfs_fs_close(j.fs);
}

static void test_clients_and_ro(void **state)
{
	struct nfs_fs *fs = nfsf_open_fs(nfsf_exports);
	struct nfs_ctx c = nfsf_ctx_of(fs, "127.0.0.1", 0, 0);
	struct nfs_ctx bad = nfsf_ctx_of(fs, "192.168.9.9", 0, 0);
	struct nfs_fh root = nfsf_mount_of(&c, "a"), ro = nfsf_mount_of(&c, "ro"), fh, sub;
	struct nfs_sattr sa = {.set_mode = true, .mode = 0600};
	struct nfs_fs_stats st;
	struct nfs_attr a;
	struct nfs_wcc w;
	uint32_t granted;
	char p[512];
	bool v;

	(void)state;
	/* not listed: ACCES on MNT and on every operation with a good handle */
	nfsf_pathf(p, sizeof(p), "a");
	assert_int_equal(nfs_fs_mount(&bad, p, &fh), NFS_ERR_ACCES);
	assert_int_equal(nfs_fs_getattr(&bad, &root, &a), NFS_ERR_ACCES);
	assert_int_equal(nfsf_lookup(&bad, &root, "file", &fh, &a), NFS_ERR_ACCES);
	assert_int_equal(nfsf_create(&bad, &root, "x", NFS_CREATE_GUARDED, 0644, NULL, NULL, NULL),
			 NFS_ERR_ACCES);
	nfs_fs_stats(fs, &st);
	assert_true(st.acces_client >= 4);
	/* not exported: NOENT; a directory below an export: its own handle */
	assert_int_equal(nfs_fs_mount(&c, "/nonexistent/path", &fh), NFS_ERR_NOENT);
	nfsf_pathf(p, sizeof(p), "a/sub");
	assert_int_equal(nfs_fs_mount(&c, p, &fh), NFS_OK);
	assert_int_equal(nfsf_lookup(&c, &root, "sub", &sub, &a), NFS_OK);
	assert_true(nfsf_fh_eq(&fh, &sub));
	nfsf_pathf(p, sizeof(p), "a/etclink");
	assert_int_not_equal(nfs_fs_mount(&c, p, &fh), NFS_OK);
	/* an unprivileged port on a "secure" export */
	struct nfs_ctx hi = c;

	((struct sockaddr_in *)&hi.peer)->sin_port = htons(40000);
	assert_int_equal(nfs_fs_getattr(&hi, &root, &a), NFS_ERR_PERM);
	hi.rdma = true; /* RDMA counts as secure */
	assert_int_equal(nfs_fs_getattr(&hi, &root, &a), NFS_OK);

	/* read-only export: ROFS for changes, no change bits in ACCESS */
	assert_int_equal(nfsf_lookup(&c, &ro, "file", &fh, &a), NFS_OK);
	assert_int_equal(nfsf_write_at(&c, &fh, 0, "x"), NFS_ERR_ROFS);
	assert_int_equal(nfs_fs_setattr(&c, &fh, &sa, NULL, &w), NFS_ERR_ROFS);
	assert_true(w.pre_valid && w.post_valid);
	assert_int_equal(nfsf_create(&c, &ro, "new", NFS_CREATE_UNCHECKED, 0644, NULL, NULL, NULL),
			 NFS_ERR_ROFS);
	assert_int_equal(nfs_fs_remove(&c, &ro, "file", 4, &w), NFS_ERR_ROFS);
	assert_int_equal(nfs_fs_access(&c, &fh, 0x3f, &granted, &v, &a), NFS_OK);
	assert_int_equal(granted, 0x01);
	assert_int_equal(nfs_fs_access(&c, &ro, 0x3f, &granted, &v, &a), NFS_OK);
	assert_int_equal(granted, 0x03);
	nfs_fs_stats(fs, &st);
	assert_true(st.rofs >= 4);
	/* rw: everything for root */
	assert_int_equal(nfs_fs_access(&c, &root, 0x3f, &granted, &v, &a), NFS_OK);
	assert_int_equal(granted, 0x1f);
	nfs_fs_close(fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_siphash_vectors),
		cmocka_unit_test(test_parse_fixture),
		cmocka_unit_test(test_parse_every_option),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_match_and_squash),
		cmocka_unit_test(test_unresolvable_host),
		cmocka_unit_test(test_confinement),
		cmocka_unit_test(test_stale_and_restart),
		cmocka_unit_test(test_reload),
		cmocka_unit_test(test_pool_umask),
		cmocka_unit_test(test_clients_and_ro),
	};
	int rc = nfsf_up(false);

	if (rc)
		return rc;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	nfsf_down();
	return rc;
}
