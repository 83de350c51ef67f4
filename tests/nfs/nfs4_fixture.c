/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_fixture.c - the NFSv4.1 tests' fixture (nfs4_fixture.h).
 */
#include <fcntl.h>
#include <ftw.h>
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

#include "nfs3_svc.h"
#include "nfs4_fixture.h"
#include "nfs4_svc.h"
#include "nfs_xdr_prim.h"
#include "orpc_svc.h"

char n4f_base[128], n4f_statedir[160], n4f_exp_a[160];
struct nfs_fs *n4f_fs;
struct nfs4_server *n4f_srv;
struct nfs_ctx n4f_ctx;
uint64_t n4f_now_ns = 1000000000ull;
struct nfs4_server_conf n4f_conf;

uint64_t n4f_clock(void)
{
	return n4f_now_ns;
}

/* ---- building compounds ---- */

void n4f_start(struct n4f_cb *b, uint32_t minor, const char *tag)
{
	struct nfs4_compound_hdr h = {{(const uint8_t *)tag, (uint32_t)strlen(tag)}, minor, 0};

	xdrmem_create(&b->x, (char *)b->buf, sizeof(b->buf), XDR_ENCODE);
	b->nops = 0;
	b->len = 0;
	assert_true(nfs4_xdr_compound_hdr(&b->x, &h));
}

void n4f_op(struct n4f_cb *b, uint32_t op, union nfs4_op_args *a)
{
	const struct nfs4_op_desc *d = nfs4_op_desc(op);
	union nfs4_op_args none;

	memset(&none, 0, sizeof(none)); /* NULL: arguments of zeros (enums at their first value) */
	assert_true(x_u32(&b->x, &op));
	if (d && d->xargs)
		assert_true(d->xargs(&b->x, a ? a : &none));
	b->nops++;
}

uint32_t n4f_end(struct n4f_cb *b, uint32_t taglen)
{
	uint32_t len = xdr_getpos(&b->x);

	if (b->len)
		return b->len;
	b->len = len;
	/* numops sits after the tag and the minor version */
	xdr_setpos(&b->x, 4 + RNDUP4(taglen) + 4);
	assert_true(x_u32(&b->x, &b->nops));
	xdr_destroy(&b->x);
	return len;
}

void n4f_parse(const uint8_t *p, uint32_t len, struct n4f_reply *out)
{
	XDR x;

	memset(out, 0, offsetof(struct n4f_reply, bytes));
	memcpy(out->bytes, p, len);
	out->len = len;
	xdrmem_create(&x, (char *)out->bytes, len, XDR_DECODE);
	assert_true(nfs4_xdr_compound_res_hdr(&x, &out->h));
	out->status = out->h.status;
	out->n = out->h.numres;
	assert_true(out->n <= 16);
	for (uint32_t i = 0; i < out->n; i++)
		assert_true(nfs4_xdr_resop(&x, &out->r[i]));
	assert_int_equal(xdr_getpos(&x), len); /* nothing after the results */
	xdr_destroy(&x);
}

uint64_t n4f_bc_id;

void n4f_run_raw(const uint8_t *args, uint32_t len, struct n4f_reply *out)
{
	/* a connection that carries backward calls comes with an nfs4_io saying which */
	struct nfs4_io io = {.bc_id = n4f_bc_id};
	const uint8_t *rep;
	uint32_t n = n4f_bc_id ? nfs4_compound_io(n4f_srv, &n4f_ctx, args, len, &io, &rep)
			       : nfs4_compound(n4f_srv, &n4f_ctx, args, len, &rep);

	assert_true(n > 0);
	n4f_parse(rep, n, out);
}

void n4f_run(struct n4f_cb *b, struct n4f_reply *out)
{
	n4f_run_raw(b->buf, n4f_end(b, 0), out);
}

/* ---- sessions ---- */

uint32_t n4f_exchange_id(const char *owner, const char *verf, uint32_t flags,
			 struct nfs4_exchange_id_res *res)
{
	union nfs4_op_args a = {0};
	struct n4f_reply r;
	struct n4f_cb b;

	memcpy(a.exid.verifier, verf, 8);
	a.exid.ownerid = (struct nfs4_ref){(const uint8_t *)owner, (uint32_t)strlen(owner)};
	a.exid.flags = flags;
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_EXCHANGE_ID, &a);
	n4f_run(&b, &r);
	assert_int_equal(r.n, 1);
	if (res && r.status == NFS4_OK)
		*res = r.r[0].u.exid;
	return r.status;
}

void n4f_default_attrs(struct nfs4_chan_attrs *c)
{
	*c = (struct nfs4_chan_attrs){0, 1049620, 1049480, 7584, 16, 64, false, 0};
}

uint32_t n4f_create_session(uint64_t clientid, uint32_t seq, struct nfs4_create_session_res *out)
{
	union nfs4_op_args a = {0};
	struct n4f_reply r;
	struct n4f_cb b;

	a.csess.clientid = clientid;
	a.csess.sequence = seq;
	a.csess.flags = CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
	n4f_default_attrs(&a.csess.fore);
	n4f_default_attrs(&a.csess.back);
	a.csess.cb_program = 0x40000000;
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_CREATE_SESSION, &a);
	n4f_run(&b, &r);
	if (out && r.status == NFS4_OK)
		*out = r.r[0].u.csess;
	return r.status;
}

/* a new session: every slot's next sequence id is 1 */
static void sess_init(struct n4f_sess *s, uint64_t clientid, const uint8_t *sessionid)
{
	memset(s, 0, sizeof(*s));
	s->clientid = clientid;
	memcpy(s->id, sessionid, NFS4_SESSIONID_SIZE);
	for (int i = 0; i < 8; i++)
		s->seq[i] = 1;
}

void n4f_new_session(const char *owner, struct n4f_sess *s)
{
	struct nfs4_exchange_id_res e;
	struct nfs4_create_session_res c;

	assert_int_equal(n4f_exchange_id(owner, "verf0001", 0, &e), NFS4_OK);
	assert_int_equal(n4f_create_session(e.clientid, e.sequenceid, &c), NFS4_OK);
	sess_init(s, e.clientid, c.sessionid);
}

void n4f_reclaim_complete(struct n4f_sess *s)
{
	struct n4f_reply r;
	struct n4f_cb b;

	n4f_session(&b, s);
	n4f_op(&b, NFS4_OP_RECLAIM_COMPLETE, &(union nfs4_op_args){.one_fs = false});
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
}

void n4f_seq(struct n4f_cb *b, struct n4f_sess *s, uint32_t slot, uint32_t seqid, bool cachethis)
{
	union nfs4_op_args a = {0};

	memcpy(a.seq.sessionid, s->id, NFS4_SESSIONID_SIZE);
	a.seq.sequenceid = seqid;
	a.seq.slotid = slot;
	a.seq.highest_slotid = slot;
	a.seq.cachethis = cachethis;
	n4f_start(b, 1, "");
	n4f_op(b, NFS4_OP_SEQUENCE, &a);
}

/* SEQUENCE on slot 0 with its next sequence id, then the caller's operations */
void n4f_session(struct n4f_cb *b, struct n4f_sess *s)
{
	n4f_seq(b, s, 0, s->seq[0]++, false);
}

void n4f_session_minor(struct n4f_cb *b, struct n4f_sess *s, uint32_t minor)
{
	union nfs4_op_args a = {0};

	memcpy(a.seq.sessionid, s->id, NFS4_SESSIONID_SIZE);
	a.seq.sequenceid = s->seq[0]++;
	n4f_start(b, minor, "");
	n4f_op(b, NFS4_OP_SEQUENCE, &a);
}

uint32_t n4f_open_session_with(const char *owner, uint32_t minor, union nfs4_op_args *cs,
			       struct n4f_sess *s)
{
	struct nfs4_exchange_id_res e;
	struct n4f_reply r;
	struct n4f_cb b;

	assert_int_equal(n4f_exchange_id(owner, "verf0001", 0, &e), NFS4_OK);
	cs->csess.clientid = e.clientid;
	cs->csess.sequence = e.sequenceid;
	n4f_start(&b, minor, "");
	n4f_op(&b, NFS4_OP_CREATE_SESSION, cs);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	sess_init(s, e.clientid, r.r[0].u.csess.sessionid);
	n4f_reclaim_complete(s);
	return r.r[0].u.csess.flags;
}

/* ---- compounds used everywhere ---- */

uint32_t n4f_fh_op(struct n4f_sess *s, const struct nfs_fh *fh, uint32_t op, union nfs4_op_args *a,
		   struct n4f_reply *out)
{
	return n4f_fh_op_minor(s, 1, fh, op, a, out);
}

uint32_t n4f_fh_op_minor(struct n4f_sess *s, uint32_t minor, const struct nfs_fh *fh, uint32_t op,
			 union nfs4_op_args *a, struct n4f_reply *out)
{
	struct n4f_reply r, *rp = out ? out : &r;
	struct n4f_cb b;

	n4f_session_minor(&b, s, minor);
	if (fh)
		n4f_putfh(&b, fh);
	n4f_op(&b, op, a);
	n4f_run(&b, rp);
	return rp->status;
}

void n4f_open_args(union nfs4_op_args *a, const char *owner, const char *name, uint32_t access,
		   uint32_t opentype)
{
	memset(a, 0, sizeof(*a));
	a->open.share_access = access;
	a->open.owner = (struct nfs4_ref){(const uint8_t *)owner, (uint32_t)strlen(owner)};
	a->open.opentype = opentype;
	a->open.createmode = UNCHECKED4;
	a->open.claim = CLAIM_NULL;
	a->open.name = (struct nfs4_ref){(const uint8_t *)name, (uint32_t)strlen(name)};
}

uint32_t n4f_open_getfh(struct n4f_sess *s, uint32_t minor, const struct nfs_fh *dir,
			union nfs4_op_args *a, struct n4f_reply *out)
{
	struct n4f_cb b;

	n4f_session_minor(&b, s, minor);
	n4f_putfh(&b, dir);
	n4f_op(&b, NFS4_OP_OPEN, a);
	n4f_op(&b, NFS4_OP_GETFH, NULL);
	n4f_run(&b, out);
	return out->status;
}

void n4f_fh_of(const struct n4f_reply *r, uint32_t i, struct nfs_fh *fh)
{
	fh->len = r->r[i].u.fh.len;
	memcpy(fh->data, r->r[i].u.fh.p, fh->len);
}

/* ---- set-up ---- */

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

void n4f_mkfile(const char *path, const char *data)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0640);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	assert_int_equal(fchown(fd, 1234, 5678), 0);
	close(fd);
}

int n4f_setup(void **state)
{
	char exports[1024], err[256], p[300];

	(void)state;
	snprintf(n4f_base, sizeof(n4f_base), "/tmp/nfs4ut.XXXXXX");
	assert_non_null(mkdtemp(n4f_base));
	snprintf(n4f_statedir, sizeof(n4f_statedir), "%s/state", n4f_base);
	snprintf(n4f_exp_a, sizeof(n4f_exp_a), "%s/srv/a", n4f_base);
	snprintf(p, sizeof(p), "%s/srv", n4f_base);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(mkdir(n4f_exp_a, 0755), 0);
	snprintf(p, sizeof(p), "%s/file", n4f_exp_a);
	n4f_mkfile(p, "hello, nfs4\n");
	snprintf(p, sizeof(p), "%s/dir", n4f_exp_a);
	assert_int_equal(mkdir(p, 0750), 0);
	snprintf(exports, sizeof(exports), "%s *(rw,no_root_squash,insecure)\n", n4f_exp_a);
	assert_int_equal(nfs_fs_open(&n4f_fs, exports, n4f_statedir, err, sizeof(err)), 0);
	nfs4_server_conf_default(&n4f_conf);
	n4f_conf.state.slots = 8;
	n4f_conf.state.lease_s = 20;
	n4f_conf.state.max_clients = 8;
	n4f_srv = nfs4_server_create(n4f_fs, &n4f_conf);
	assert_non_null(n4f_srv);
	nfs4_server_set_clock(n4f_srv, n4f_clock);
	memset(&n4f_ctx, 0, sizeof(n4f_ctx));
	n4f_ctx.fs = n4f_fs;
	n4f_ctx.peer.ss_family = AF_INET;
	n4f_ctx.cred.flavor = 1;
	return 0;
}

int n4f_teardown(void **state)
{
	struct nfs4_state_stats st;

	(void)state;
	nfs4_state_stats(nfs4_server_state(n4f_srv), &st);
	nfs4_server_destroy(n4f_srv);
	nfs_fs_close(n4f_fs);
	nftw(n4f_base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* every test starts from an empty client table */
int n4f_fresh(void **state)
{
	(void)state;
	nfs4_server_destroy(n4f_srv);
	n4f_srv = nfs4_server_create(n4f_fs, &n4f_conf);
	assert_non_null(n4f_srv);
	nfs4_server_set_clock(n4f_srv, n4f_clock);
	return 0;
}

void n4f_open_session(const char *owner, struct n4f_sess *s)
{
	n4f_new_session(owner, s);
	n4f_reclaim_complete(s);
}

struct nfs_fh n4f_root_fh(void)
{
	struct nfs_fh fh;

	assert_int_equal(nfs_fs_mount(&n4f_ctx, n4f_exp_a, &fh), NFS_OK);
	return fh;
}

void n4f_putfh(struct n4f_cb *b, const struct nfs_fh *fh)
{
	n4f_op(b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh->data, fh->len}});
}

void n4f_path_of(char *out, size_t cap, const char *name)
{
	snprintf(out, cap, "%s/%s", n4f_exp_a, name);
}

int n4f_setup_rpc(struct nfs3_server *v3, struct orpc_svc *svc, struct orpc_program *prog,
		  struct orpc_version vers[2])
{
	n4f_setup(NULL);
	if (nfs3_server_init(v3, n4f_fs, 1u << 20) != 0)
		return -1;
	v3->v4 = n4f_srv;
	nfs4_program_v3_v4(prog, vers);
	svc->ctx = v3;
	orpc_svc_add(svc, prog);
	return 0;
}

void n4f_teardown_rpc(struct nfs3_server *v3)
{
	nfs3_server_fini(v3);
	n4f_teardown(NULL);
}
