/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nfs4_rdma.c - NFSv4.1 over droce's RPC-over-RDMA, end to end in one process: droce's
 * RPC-over-RDMA client against the server endpoint of two devices back to back over crossed
 * net_ring ports (tests/rpc/ring_pair.c), program 100003 versions 3 and 4 as droce-nfsd
 * registers them (nfs4_program_v3_v4), the export of nfs4_fixture.c. RFC 8267's rules for
 * NFSv4 (§4.1, §4.2, §4.4):
 * - EXCHANGE_ID offering a reply chunk, as Linux's first one does, and CREATE_SESSION;
 * - WRITE whose data goes by read chunk at the opaque's position, with PUTFH before it and
 *   GETATTR after it in the inline stream (the tail the transport splices back);
 * - READ whose data comes back by the write chunk, placed by the READ itself in the
 *   transport's sink (the endpoint's ddp_placed counts it);
 * - READ of an unaligned length (1001 bytes) by write chunk, READLINK's text by write chunk;
 * - READDIR of a directory of 300 names, too long for inline: by the reply chunk;
 * - the backchannel (RFC 8167): a session made with CONN_BACK_CHAN on an RDMA connection whose
 *   server endpoint is in the svc's orpc_bc_table is probed by CB_NULL through the client's own
 *   callback program, its read delegation is recalled there (CB_SEQUENCE + CB_RECALL) when
 *   another client opens the file for writing, DELEGRETURN over RDMA lets that client in, and
 *   the connection's end shows as CB_PATH_DOWN_SESSION.
 * Needs root for the backend (open_by_handle_at): exits 77 (skipped) otherwise.
 */
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

#include <rte_cycles.h>
#include <rte_eal.h>

#include "nfs3_svc.h"
#include "nfs4_fixture.h"
#include "nfs4_svc.h"
#include "nfs_aio.h"
#include "nfs_pool.h"
#include "nfs_xdr_prim.h"
#include "orpc_bc.h"
#include "orpc_msg.h"
#include "ring_pair.h"
#include "rpcrdma_ep.h"

static struct ring_pair rp;
static struct orpc_svc svc;
static struct nfs3_server v3;
static struct orpc_program prog;
static struct orpc_version vers[2];

struct conn {
	struct roce_cm_id *l, *a, *b;
	struct rpcrdma_ep *c, *sv;
};

static struct orpc_svc *client_bc; /* the client's backchannel programs, when a test sets it */

/* the lcore's loop, as droce-nfsd's: NFSv4's stable records writes end there too (an OPEN's
 * reply is held until its client's record is written) */
static bool hold_work; /* a test holds the file work's ends back: they are not polled */

static void poll_all(struct conn *c)
{
	stk_lcore_poll(rp.lc);
	rpcrdma_ep_poll(c->c);
	rpcrdma_ep_poll(c->sv);
	nfs4_server_poll(n4f_srv);
	if (v3.pool && !hold_work)
		nfs_pool_poll(v3.pool, nfs3_pool_done, 64);
	if (v3.aio && !hold_work)
		nfs_aio_poll(v3.aio, nfs3_aio_done, 64);
}

static void expect_event(struct conn *c, int k, enum roce_cm_event_type t, struct roce_cm_event *ev)
{
	uint64_t end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();

	while (rte_get_tsc_cycles() < end) {
		if (roce_cm_get_event(rp.cm[k], ev) == 0) {
			assert_int_equal(ev->event, t);
			return;
		}
		if (c->c)
			poll_all(c);
		else
			stk_lcore_poll(rp.lc);
	}
	fail_msg("side %d: no %s", k, roce_cm_event_str(t));
}

static void rr_connect(struct conn *c)
{
	struct roce_cm_conn_param p = {.cm_response_timeout = 14, .max_cm_retries = 4};
	struct roce_cm_event ev;
	uint8_t priv[RPCRDMA_CM_PRIV_LEN];

	memset(c, 0, sizeof(*c));
	c->c = rpcrdma_ep_create(rp.dev[0], rp.pd[0], RPCRDMA_CLIENT, NULL, client_bc);
	c->sv = rpcrdma_ep_create(rp.dev[1], rp.pd[1], RPCRDMA_SERVER, NULL, &svc);
	assert_non_null(c->c);
	assert_non_null(c->sv);
	rpcrdma_ep_set_peer(c->sv, &rp.ip[0], 700);
	c->l = roce_cm_create_id(rp.cm[1], ROCE_CM_PS_TCP, NULL);
	assert_int_equal(roce_cm_listen(c->l, RPCRDMA_NFS_PORT, 4), 0);
	c->a = roce_cm_create_id(rp.cm[0], ROCE_CM_PS_TCP, NULL);
	p.private_data = priv;
	p.private_data_len = rpcrdma_ep_private_data(c->c, priv);
	assert_int_equal(
		roce_cm_connect(c->a, &rp.ip[1], RPCRDMA_NFS_PORT, rpcrdma_ep_qp(c->c), &p), 0);
	expect_event(c, 1, ROCE_CM_EVENT_CONNECT_REQUEST, &ev);
	c->b = ev.id;
	p.private_data_len = rpcrdma_ep_private_data(c->sv, priv);
	assert_int_equal(roce_cm_accept(c->b, rpcrdma_ep_qp(c->sv), &p), 0);
	assert_int_equal(rpcrdma_ep_start(c->sv, ev.private_data, ev.private_data_len), 0);
	expect_event(c, 0, ROCE_CM_EVENT_ESTABLISHED, &ev);
	assert_int_equal(rpcrdma_ep_start(c->c, ev.private_data, ev.private_data_len), 0);
	expect_event(c, 1, ROCE_CM_EVENT_ESTABLISHED, &ev);
}

static void rr_disconnect(struct conn *c)
{
	struct roce_cm_event ev;
	uint64_t end;

	roce_cm_disconnect(c->a);
	expect_event(c, 1, ROCE_CM_EVENT_DISCONNECTED, &ev);
	expect_event(c, 0, ROCE_CM_EVENT_DISCONNECTED, &ev);
	assert_int_equal(roce_cm_destroy_id(c->a), 0);
	assert_int_equal(roce_cm_destroy_id(c->b), 0);
	assert_int_equal(roce_cm_destroy_id(c->l), 0);
	for (int i = 0; i < 100; i++)
		poll_all(c);
	end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();
	while (rpcrdma_ep_destroy(c->c) == -EBUSY && rte_get_tsc_cycles() < end)
		stk_lcore_poll(rp.lc);
	while (rpcrdma_ep_destroy(c->sv) == -EBUSY && rte_get_tsc_cycles() < end)
		stk_lcore_poll(rp.lc);
}

struct result {
	int done, err;
	uint8_t *reply;
	uint32_t len;
};

static void on_done(void *ctx, int err, const uint8_t *reply, uint32_t len)
{
	struct result *r = ctx;

	r->done++;
	r->err = err;
	r->len = len;
	r->reply = malloc(len ? len : 1);
	memcpy(r->reply, reply, len);
}

static uint32_t xid = 0x4000;

/*
 * One COMPOUND over RDMA, sent: the RPC header (AUTH_SYS root) then b's bytes, from msg;
 * ddp_off/ddp_len (relative to the compound) name the WRITE data for a read chunk; ddp_reply
 * offers a write chunk, reply_max a reply chunk. call_wait takes its reply.
 */
static void call_start(struct conn *c, uint8_t *msg, uint32_t cap, struct n4f_cb *b,
		       uint32_t ddp_off, uint32_t ddp_len, bool ddp_reply, uint32_t reply_max,
		       struct result *r)
{
	struct orpc_authsys sys = {.machname = "client", .uid = 0, .gid = 0};
	struct rpcrdma_call rc = {.msg = msg, .ddp_reply = ddp_reply, .reply_max = reply_max};
	uint32_t hdr, len = n4f_end(b, 0);
	XDR x;

	memset(r, 0, sizeof(*r));
	xdrmem_create(&x, (char *)msg, cap, XDR_ENCODE);
	assert_true(
		orpc_call_encode(&x, xid++, NFS4_PROGRAM, NFS4_VERSION, NFS4_PROC_COMPOUND, &sys));
	hdr = xdr_getpos(&x);
	xdr_destroy(&x);
	assert_true(hdr + len <= cap);
	memcpy(msg + hdr, b->buf, len);
	rc.len = hdr + len;
	if (ddp_len) {
		rc.ddp_off = hdr + ddp_off;
		rc.ddp_len = ddp_len;
	}
	assert_int_equal(rpcrdma_clnt_call(c->c, &rc, on_done, r), 0);
}

/* The reply of a call_start, its COMPOUND4res parsed into out. */
static void call_wait(struct conn *c, struct result *r, struct n4f_reply *out)
{
	uint64_t end = rte_get_tsc_cycles() + 20 * rte_get_tsc_hz();
	struct orpc_reply_hdr h;
	uint32_t off;

	while (!r->done) {
		assert_true(rte_get_tsc_cycles() < end);
		poll_all(c);
	}
	assert_int_equal(r->err, 0);
	assert_int_equal(orpc_reply_decode(r->reply, r->len, &h, &off), 0);
	assert_false(h.denied);
	assert_int_equal(h.stat, SUCCESS);
	n4f_parse(r->reply + off, r->len - off, out);
	free(r->reply);
	r->reply = NULL;
}

static void call(struct conn *c, struct n4f_cb *b, uint32_t ddp_off, uint32_t ddp_len,
		 bool ddp_reply, uint32_t reply_max, struct n4f_reply *out)
{
	static uint8_t msg[(1u << 17) + 512];
	struct result r;

	call_start(c, msg, sizeof(msg), b, ddp_off, ddp_len, ddp_reply, reply_max, &r);
	call_wait(c, &r, out);
}

/* EXCHANGE_ID offering a reply chunk, as Linux's first one does, then CREATE_SESSION */
static void rdma_session(struct conn *c, const char *owner, struct n4f_sess *s)
{
	union nfs4_op_args a = {0};
	struct n4f_reply r;
	struct n4f_cb b;

	memset(s, 0, sizeof(*s));
	memcpy(a.exid.verifier, "rdmaverf", 8);
	a.exid.ownerid = (struct nfs4_ref){(const uint8_t *)owner, (uint32_t)strlen(owner)};
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_EXCHANGE_ID, &a);
	call(c, &b, 0, 0, false, 8192, &r);
	assert_int_equal(r.status, NFS4_OK);
	s->clientid = r.r[0].u.exid.clientid;
	memset(&a, 0, sizeof(a));
	a.csess.clientid = s->clientid;
	a.csess.sequence = r.r[0].u.exid.sequenceid;
	n4f_default_attrs(&a.csess.fore);
	n4f_default_attrs(&a.csess.back);
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_CREATE_SESSION, &a);
	call(c, &b, 0, 0, false, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	memcpy(s->id, r.r[0].u.csess.sessionid, NFS4_SESSIONID_SIZE);
	for (int i = 0; i < 8; i++)
		s->seq[i] = 1;
}

/* SEQUENCE on s, PUTFH dir, OPEN a, GETFH, over the connection */
static void open_getfh(struct conn *c, struct n4f_sess *s, const struct nfs_fh *dir,
		       union nfs4_op_args *a, struct n4f_reply *r)
{
	struct n4f_cb b;

	n4f_session(&b, s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {dir->data, dir->len}});
	n4f_op(&b, NFS4_OP_OPEN, a);
	n4f_op(&b, NFS4_OP_GETFH, NULL);
	call(c, &b, 0, 0, false, 0, r);
}

/* the file at path holds exactly len bytes: data */
static void assert_file_is(const char *path, const char *data, size_t len)
{
	static char back[65536];
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_true(len <= sizeof(back));
	assert_int_equal(read(fd, back, len), (ssize_t)len);
	close(fd);
	assert_memory_equal(back, data, len);
}

static void test_nfs4_over_rdma(void **state)
{
	static char data[8192];
	union nfs4_op_args a = {0};
	const struct rpcrdma_ep_stats *st;
	struct nfs4_stateid sid;
	struct n4f_sess s = {0};
	struct nfs_fh root, fh;
	struct n4f_reply r;
	struct n4f_cb b;
	struct conn c;
	char path[300];
	uint64_t long_replies, placed, wbytes;
	uint32_t pos;
	int fd;

	(void)state;
	assert_int_equal(nfs_fs_mount(&n4f_ctx, n4f_exp_a, &root), NFS_OK);
	rr_connect(&c);
	st = rpcrdma_ep_stats(c.sv);
	rdma_session(&c, "rdma client", &s);
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_RECLAIM_COMPLETE, &(union nfs4_op_args){.one_fs = false});
	call(&c, &b, 0, 0, false, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	{
		struct nfs4_stats ns;

		/* RECLAIM_COMPLETE recorded the client: the reply waited for the records write */
		nfs4_server_stats(n4f_srv, &ns);
		assert_int_equal(ns.records_held, 1);
		assert_int_equal(ns.records_writes, 1);
	}
	/* OPEN (create) */
	n4f_open_args(&a, "o", "viardma", OPEN4_SHARE_ACCESS_BOTH, OPEN4_CREATE);
	open_getfh(&c, &s, &root, &a, &r);
	assert_int_equal(r.status, NFS4_OK);
	{
		struct nfs4_stats ns;

		/* the client was recorded already: the OPEN's reply did not wait */
		nfs4_server_stats(n4f_srv, &ns);
		assert_int_equal(ns.records_held, 1);
		assert_int_equal(ns.records_unheld, 0);
		assert_false(nfs4_server_busy(n4f_srv));
	}
	sid = r.r[2].u.open.sid;
	n4f_fh_of(&r, 3, &fh);
	/* WRITE: the data by read chunk at its position, GETATTR after it inline */
	for (uint32_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7 + 3);
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
	pos = xdr_getpos(&b.x) + 4 + 16 + 8 + 4 + 4; /* opcode, stateid, offset, stable, length */
	a.write = (struct nfs4_write_args){
		sid, 0, NFS_FILE_SYNC, {(const uint8_t *)data, sizeof(data)}};
	n4f_op(&b, NFS4_OP_WRITE, &a);
	n4f_op(&b, NFS4_OP_GETATTR, &(union nfs4_op_args){.getattr = {1, {1u << NFS4_A_SIZE}}});
	call(&c, &b, pos, sizeof(data), false, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.r[2].u.write.count, sizeof(data));
	assert_int_equal(r.r[3].u.getattr.vals.len, 8);
	assert_memory_equal(r.r[3].u.getattr.vals.p, "\0\0\0\0\0\0\x20\0", 8);
	snprintf(path, sizeof(path), "%s/viardma", n4f_exp_a);
	assert_file_is(path, data, sizeof(data));
	/* a length that is not a multiple of 4: the chunk's round-up (RFC 8166 §3.4.5) is the
	 * transport's, GETATTR still decodes after it */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
	pos = xdr_getpos(&b.x) + 4 + 16 + 8 + 4 + 4;
	a.write = (struct nfs4_write_args){
		sid, sizeof(data), NFS_UNSTABLE, {(const uint8_t *)data, 1001}};
	n4f_op(&b, NFS4_OP_WRITE, &a);
	n4f_op(&b, NFS4_OP_GETATTR, &(union nfs4_op_args){.getattr = {1, {1u << NFS4_A_SIZE}}});
	call(&c, &b, pos, 1001, false, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.r[2].u.write.count, 1001);
	assert_memory_equal(r.r[3].u.getattr.vals.p, "\0\0\0\0\0\0\x23\xe9", 8); /* 9193 */
	/* READ: its data back by the write chunk, placed by READ in the transport's sink */
	placed = st->ddp_placed;
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
	n4f_op(&b, NFS4_OP_READ, &(union nfs4_op_args){.read = {sid, 0, sizeof(data)}});
	call(&c, &b, 0, 0, true, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_false(r.r[2].u.read.eof); /* 1001 bytes follow */
	assert_int_equal(r.r[2].u.read.data.len, sizeof(data));
	assert_memory_equal(r.r[2].u.read.data.p, data, sizeof(data));
	assert_true(st->ddp_placed == placed + 1);
	/* the last 1001 bytes: an unaligned length by the write chunk, eof */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
	n4f_op(&b, NFS4_OP_READ, &(union nfs4_op_args){.read = {sid, sizeof(data), 4096}});
	call(&c, &b, 0, 0, true, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_true(r.r[2].u.read.eof);
	assert_int_equal(r.r[2].u.read.data.len, 1001);
	assert_memory_equal(r.r[2].u.read.data.p, data, 1001);
	assert_true(st->ddp_placed == placed + 2);
	/* READLINK with a write chunk offered: the text is the reply's DDP-eligible tail */
	wbytes = st->ddp_write_bytes;
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {root.data, root.len}});
	a.create = (struct nfs4_create_args){NFS_LNK,
					     {(const uint8_t *)"some/where/else", 15},
					     0,
					     0,
					     {(const uint8_t *)"ln", 2},
					     {{0}, {0}}};
	n4f_op(&b, NFS4_OP_CREATE, &a);
	n4f_op(&b, NFS4_OP_READLINK, NULL);
	call(&c, &b, 0, 0, true, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.r[3].u.link.len, 15);
	assert_memory_equal(r.r[3].u.link.p, "some/where/else", 15);
	assert_true(st->ddp_write_bytes == wbytes + 15); /* by RDMA WRITE into the chunk */
	/* READDIR of 300 names: longer than inline, by the reply chunk */
	for (int i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "%s/dir/entry-with-a-long-name-%03d", n4f_exp_a, i);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		assert_true(fd >= 0);
		close(fd);
	}
	long_replies = st->long_replies;
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {root.data, root.len}});
	n4f_op(&b, NFS4_OP_LOOKUP, &(union nfs4_op_args){.name = {(const uint8_t *)"dir", 3}});
	a.readdir = (struct nfs4_readdir_args){0, {0}, 65536, 65536, {1, {1u << NFS4_A_TYPE}}};
	n4f_op(&b, NFS4_OP_READDIR, &a);
	call(&c, &b, 0, 0, false, 70000, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.r[3].u.readdir.nentries, 300);
	assert_true(r.r[3].u.readdir.eof);
	assert_true(st->long_replies == long_replies + 1);
	rr_disconnect(&c);
}

/* ---- the backchannel over RPC-over-RDMA (RFC 8167) ---- */

#define CB_PROG 0x40000000u

/* what the client's callback program saw */
static struct {
	uint32_t nulls, recalls;
	uint8_t other[12]; /* CB_RECALL's stateid */
} seen;

struct cb_raw {
	const uint8_t *p;
	uint32_t len;
};

struct cb_out {
	uint8_t b[128];
	uint32_t len;
};

static uint32_t w32(const uint8_t *p, uint32_t i)
{
	p += 4 * i;
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void p32(uint8_t *p, uint32_t i, uint32_t v)
{
	p += 4 * i;
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static bool_t xdr_cb_raw(XDR *x, struct cb_raw *a)
{
	if (x->x_op != XDR_DECODE)
		return TRUE;
	a->len = x->x_handy;
	a->p = (const uint8_t *)x->x_base + xdr_getpos(x);
	return TRUE;
}

static bool_t xdr_cb_out(XDR *x, struct cb_out *o)
{
	return x->x_op != XDR_ENCODE || xdr_opaque(x, (char *)o->b, o->len);
}

static enum accept_stat cb_null(struct orpc_req *r, void *a, void *res)
{
	(void)r, (void)a, (void)res;
	seen.nulls++;
	return SUCCESS;
}

/* CB_COMPOUND of CB_SEQUENCE and CB_RECALL (RFC 8881 §20.9, §20.2), read word by word; the
 * answer: both OK, CB_SEQUENCE4resok echoing the session, sequence and slot */
static enum accept_stat cb_compound(struct orpc_req *r, void *args, void *res)
{
	const struct cb_raw *a = args;
	struct cb_out *o = res;

	(void)r;
	/* tag "", minorversion, ident, 2 ops; op 11 at word 4, its session at 5..8 */
	if (a->len < 4 * 21 || w32(a->p, 0) != 0 || w32(a->p, 3) != 2 || w32(a->p, 4) != 11 ||
	    w32(a->p, 14) != 4)
		return GARBAGE_ARGS;
	seen.recalls++;
	memcpy(seen.other, a->p + 4 * 16, 12);
	p32(o->b, 0, 0); /* status */
	p32(o->b, 1, 0); /* tag "" */
	p32(o->b, 2, 2);
	p32(o->b, 3, 11);
	p32(o->b, 4, 0);
	memcpy(o->b + 20, a->p + 20, 16 + 8); /* session, sequence, slot */
	p32(o->b, 11, 0);
	p32(o->b, 12, 0);
	p32(o->b, 13, 4);
	p32(o->b, 14, 0);
	o->len = 60;
	return SUCCESS;
}

static const struct orpc_proc cb_procs[] = {
	{"CB_NULL", (xdrproc_t)xdr_void, 0, (xdrproc_t)xdr_void, 0, cb_null, false},
	{"CB_COMPOUND", (xdrproc_t)xdr_cb_raw, sizeof(struct cb_raw), (xdrproc_t)xdr_cb_out,
	 sizeof(struct cb_out), cb_compound, false},
};
static const struct orpc_version cb_vers[] = {{1, 2, cb_procs}};
static const struct orpc_program cb_prog = {
	.prog = CB_PROG, .name = "nfs4_cb", .nvers = 1, .vers = cb_vers};

/* ---- file work off the lcore (struct nfs4_cont) ---- */

/* the server's counters of file work off the lcore, now */
static struct nfs4_stats io_stats(void)
{
	struct nfs4_stats ns;

	nfs4_server_stats(n4f_srv, &ns);
	return ns;
}

/* the server's client and session counters, now */
static struct nfs4_state_stats state_stats(void)
{
	struct nfs4_state_stats st;

	nfs4_state_stats(nfs4_server_state(n4f_srv), &st);
	return st;
}

/* poll, without the file work's ends, until the server has deferred n compounds */
static void until_deferred(struct conn *c, uint64_t n)
{
	uint64_t end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();

	while (io_stats().io_deferred < n) {
		assert_true(rte_get_tsc_cycles() < end);
		poll_all(c);
	}
}

/*
 * A client whose session has its backchannel on its own RDMA connection: CREATE_SESSION with
 * CONN_BACK_CHAN is probed by CB_NULL through the client's program; while another client's
 * change waits for its file work, a read open gets no delegation (WND4_CONTENTION); after it,
 * the read open gets one, which is recalled there when another client opens the file for
 * writing, and DELEGRETURN over RDMA lets that client in.
 */
static void test_backchannel_over_rdma(void **state)
{
	static const uint8_t sec_sys[28] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 'm', 0, 0, 0};
	static struct orpc_svc cb_svc;
	static struct orpc_bc_table t;
	static uint8_t msg[4096], msg2[4096];
	union nfs4_op_args a = {0};
	struct nfs4_stats st0, st, before;
	struct n4f_sess w;
	struct result rw, ro;
	struct nfs4_session *ss;
	struct nfs4_stateid dsid;
	struct n4f_sess s = {0}, other;
	struct nfs_fh root, fh;
	struct n4f_reply r;
	struct n4f_cb b;
	struct conn c;
	uint64_t end;

	(void)state;
	memset(&seen, 0, sizeof(seen));
	orpc_bc_table_init(&t);
	svc.bc = &t;
	nfs4_server_set_bc(n4f_srv, NULL); /* the RPC glue takes svc.bc */
	memset(&cb_svc, 0, sizeof(cb_svc));
	orpc_svc_add(&cb_svc, &cb_prog);
	client_bc = &cb_svc;
	nfs4_server_stats(n4f_srv, &st0);
	assert_int_equal(nfs_fs_mount(&n4f_ctx, n4f_exp_a, &root), NFS_OK);
	rr_connect(&c);
	assert_int_equal(t.live, 1);
	memcpy(a.exid.verifier, "rdmabcv1", 8);
	a.exid.ownerid = (struct nfs4_ref){(const uint8_t *)"rdma bc client", 14};
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_EXCHANGE_ID, &a);
	call(&c, &b, 0, 0, false, 8192, &r);
	assert_int_equal(r.status, NFS4_OK);
	s.clientid = r.r[0].u.exid.clientid;
	memset(&a, 0, sizeof(a));
	a.csess.clientid = s.clientid;
	a.csess.sequence = r.r[0].u.exid.sequenceid;
	a.csess.flags = CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
	n4f_default_attrs(&a.csess.fore);
	n4f_default_attrs(&a.csess.back);
	a.csess.cb_program = CB_PROG;
	/* callback_sec_parms4<1>: AUTH_SYS {stamp 1, "m", uid 0, gid 0, no gids} */
	a.csess.sec_parms = (struct nfs4_raw){1, {sec_sys, 28}};
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_CREATE_SESSION, &a);
	call(&c, &b, 0, 0, false, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.r[0].u.csess.flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
			 CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
	memcpy(s.id, r.r[0].u.csess.sessionid, NFS4_SESSIONID_SIZE);
	s.seq[0] = 1;
	/* the probe goes to the client's program and its answer comes back */
	ss = nfs4_session_find(nfs4_server_state(n4f_srv), s.id);
	end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();
	while (ss->cb_state == NFS4_CB_PROBING && rte_get_tsc_cycles() < end)
		poll_all(&c);
	assert_int_equal(ss->cb_state, NFS4_CB_UP);
	assert_int_equal(seen.nulls, 1);
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_RECLAIM_COMPLETE, &(union nfs4_op_args){.one_fs = false});
	call(&c, &b, 0, 0, false, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	/* with one helper thread, a read OPEN waits for its file work, then another client's OPEN
	 * that creates a file: the read OPEN ends (on the lcore, where its delegation is decided)
	 * while the create still waits (its open state comes after it), and gets no delegation:
	 * the change could be about its file */
	v3.pool = nfs_pool_create("t4bc", 1, nfs3_pool_work);
	assert_non_null(v3.pool);
	rdma_session(&c, "rdma changer", &w);
	n4f_session(&b, &w);
	n4f_op(&b, NFS4_OP_RECLAIM_COMPLETE, &(union nfs4_op_args){.one_fs = false});
	call(&c, &b, 0, 0, false, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	before = io_stats();
	hold_work = true;
	n4f_open_args(&a, "o", "file", OPEN4_SHARE_ACCESS_READ, OPEN4_NOCREATE);
	a.open.share_access |= OPEN4_SHARE_ACCESS_WANT_READ_DELEG;
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {root.data, root.len}});
	n4f_op(&b, NFS4_OP_OPEN, &a);
	call_start(&c, msg2, sizeof(msg2), &b, 0, 0, false, 0, &ro);
	until_deferred(&c, before.io_deferred + 1);
	n4f_open_args(&a, "c", "waitfile", OPEN4_SHARE_ACCESS_BOTH, OPEN4_CREATE);
	n4f_session(&b, &w);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {root.data, root.len}});
	n4f_op(&b, NFS4_OP_OPEN, &a);
	call_start(&c, msg, sizeof(msg), &b, 0, 0, false, 0, &rw);
	until_deferred(&c, before.io_deferred + 2);
	/* the OPEN's end alone (the helper hands the works back in order) */
	end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();
	while (nfs_pool_poll(v3.pool, nfs3_pool_done, 1) == 0) {
		assert_true(rte_get_tsc_cycles() < end);
		poll_all(&c);
	}
	call_wait(&c, &ro, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.r[2].u.open.deleg_type, OPEN_DELEGATE_NONE_EXT);
	assert_int_equal(r.r[2].u.open.why_no_deleg, WND4_CONTENTION);
	assert_int_equal(rw.done, 0);
	hold_work = false;
	call_wait(&c, &rw, &r);
	assert_int_equal(r.status, NFS4_OK);
	nfs_pool_destroy(v3.pool, nfs3_pool_done);
	v3.pool = NULL;
	/* a read open now: a delegation */
	n4f_open_args(&a, "o", "file", OPEN4_SHARE_ACCESS_READ, OPEN4_NOCREATE);
	open_getfh(&c, &s, &root, &a, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.r[2].u.open.deleg_type, OPEN_DELEGATE_READ);
	dsid = r.r[2].u.open.deleg_sid;
	n4f_fh_of(&r, 3, &fh);
	/* another client (no backchannel, straight into the server) opens it for writing */
	n4f_open_session("rdma other", &other);
	a.open.share_access = OPEN4_SHARE_ACCESS_WRITE;
	a.open.owner = (struct nfs4_ref){(const uint8_t *)"w", 1};
	n4f_session(&b, &other);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {root.data, root.len}});
	n4f_op(&b, NFS4_OP_OPEN, &a);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4ERR_DELAY);
	/* the recall reaches the client's program over RDMA, and its answer the server */
	end = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();
	do {
		poll_all(&c);
		nfs4_server_stats(n4f_srv, &st);
	} while (st.recalls_answered == st0.recalls_answered && rte_get_tsc_cycles() < end);
	assert_int_equal(seen.recalls, 1);
	assert_memory_equal(seen.other, dsid.other, 12);
	assert_int_equal(st.recalls_answered, st0.recalls_answered + 1);
	assert_int_equal(st.delegs_revoked, st0.delegs_revoked);
	/* DELEGRETURN over RDMA; the writer goes in */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
	n4f_op(&b, NFS4_OP_DELEGRETURN, &(union nfs4_op_args){.sid = dsid});
	call(&c, &b, 0, 0, false, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	n4f_session(&b, &other);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {root.data, root.len}});
	n4f_op(&b, NFS4_OP_OPEN, &a);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	rr_disconnect(&c);
	/* the connection went: its id is stale, the session says its path is down */
	assert_int_equal(t.live, 0);
	n4f_session(&b, &s);
	n4f_run(&b, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.r[0].u.seq.status_flags,
			 SEQ4_STATUS_CB_PATH_DOWN_SESSION | SEQ4_STATUS_CB_PATH_DOWN);
	client_bc = NULL;
	svc.bc = NULL;
	nfs4_server_set_bc(n4f_srv, NULL);
}

/*
 * With helper threads and io_uring, as droce-nfsd runs: a WRITE (data by read chunk, GETATTR
 * after it), a READ placed in the write chunk, a READ inline (its own buffer) and a COMMIT
 * each wait for their file work off the lcore, and the compound goes on after it (GETATTR
 * sees the WRITE). While a COMMIT waits: a retry on its slot is NFS4ERR_DELAY, another slot's
 * compound is served, and once it ends the retry replays its reply. While a compound waits,
 * its session and client are not destroyed, replaced or expired under it (DELAY).
 */
static void test_io_off_lcore(void **state)
{
	static char data[65536];
	static uint8_t msg2[4096], msg3[4096];
	union nfs4_op_args a = {0};
	struct nfs4_stateid sid;
	struct n4f_sess s, s2;
	struct nfs4_stats before, now;
	struct nfs4_state_stats sst;
	struct result r1, r3;
	uint64_t clientid;
	struct nfs_fh root, fh;
	uint8_t verf[NFS4_VERIFIER_SIZE];
	struct n4f_reply r;
	struct n4f_cb b;
	struct conn c;
	char path[300];
	uint32_t pos, seq;

	(void)state;
	v3.pool = nfs_pool_create("t4io", 2, nfs3_pool_work);
	assert_non_null(v3.pool);
	v3.aio = nfs_aio_create(n4f_fs, 64); /* NULL without io_uring: the pool does it all */
	assert_int_equal(nfs_fs_mount(&n4f_ctx, n4f_exp_a, &root), NFS_OK);
	rr_connect(&c);
	rdma_session(&c, "io client", &s);
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_RECLAIM_COMPLETE, &(union nfs4_op_args){.one_fs = false});
	call(&c, &b, 0, 0, false, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	n4f_open_args(&a, "o", "viaio", OPEN4_SHARE_ACCESS_BOTH, OPEN4_CREATE);
	open_getfh(&c, &s, &root, &a, &r);
	assert_int_equal(r.status, NFS4_OK);
	sid = r.r[2].u.open.sid;
	n4f_fh_of(&r, 3, &fh);

	/* WRITE 64 KiB by read chunk, FILE_SYNC, then GETATTR: the compound goes on after it */
	for (uint32_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 13 + 5);
	before = io_stats();
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
	pos = xdr_getpos(&b.x) + 4 + 16 + 8 + 4 + 4;
	a.write = (struct nfs4_write_args){sid, 0, NFS_FILE_SYNC, {(const uint8_t *)data, 65536}};
	n4f_op(&b, NFS4_OP_WRITE, &a);
	n4f_op(&b, NFS4_OP_GETATTR, &(union nfs4_op_args){.getattr = {1, {1u << NFS4_A_SIZE}}});
	call(&c, &b, pos, sizeof(data), false, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.r[2].u.write.count, sizeof(data));
	assert_memory_equal(r.r[3].u.getattr.vals.p, "\0\0\0\0\0\1\0\0", 8);
	memcpy(verf, r.r[2].u.write.verf, sizeof(verf));
	now = io_stats();
	assert_int_equal(now.io_deferred, before.io_deferred + 1);
	assert_int_equal(now.io_resumed, before.io_resumed + 1);
	assert_int_equal(now.io_aio + now.io_pool, before.io_aio + before.io_pool + 1);
	assert_int_equal(now.io_inline, before.io_inline);
	snprintf(path, sizeof(path), "%s/viaio", n4f_exp_a);
	assert_file_is(path, data, sizeof(data));

	/* READ placed by the work in the write chunk's sink */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
	n4f_op(&b, NFS4_OP_READ, &(union nfs4_op_args){.read = {sid, 0, sizeof(data)}});
	call(&c, &b, 0, 0, true, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_true(r.r[2].u.read.eof);
	assert_int_equal(r.r[2].u.read.data.len, sizeof(data));
	assert_memory_equal(r.r[2].u.read.data.p, data, sizeof(data));
	/* READ inline (a reply chunk, no write chunk): the data in the compound's own buffer */
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
	n4f_op(&b, NFS4_OP_READ, &(union nfs4_op_args){.read = {sid, 1000, 3000}});
	call(&c, &b, 0, 0, false, 8192, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_false(r.r[2].u.read.eof);
	assert_int_equal(r.r[2].u.read.data.len, 3000);
	assert_memory_equal(r.r[2].u.read.data.p, data + 1000, 3000);
	if (v3.aio) {
		/* the file given away while io_uring's READ waits to be submitted: the check after
		 * the read hands it back, and the helpers read it again, checked */
		static uint8_t msg[8192];
		struct nfs_aio_stats ast;
		struct result rr;
		uint64_t rechecked, deferred = io_stats().io_deferred;

		nfs_aio_stats(v3.aio, &ast);
		rechecked = ast.rechecked;
		hold_work = true;
		n4f_session(&b, &s);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
		n4f_op(&b, NFS4_OP_READ, &(union nfs4_op_args){.read = {sid, 2000, 3000}});
		call_start(&c, msg, sizeof(msg), &b, 0, 0, false, 8192, &rr);
		until_deferred(&c, deferred + 1);
		assert_int_equal(chown(path, 1001, 1001), 0);
		hold_work = false;
		call_wait(&c, &rr, &r);
		assert_int_equal(r.status, NFS4_OK);
		assert_int_equal(r.r[2].u.read.data.len, 3000);
		assert_memory_equal(r.r[2].u.read.data.p, data + 2000, 3000);
		nfs_aio_stats(v3.aio, &ast);
		assert_int_equal(ast.rechecked, rechecked + 1);
		assert_int_equal(io_stats().io_rerun, before.io_rerun + 1);
		assert_int_equal(chown(path, 0, 0), 0);
	}
	/* COMMIT: by the helper threads (io_uring does not sync here) */
	before = now;
	now = io_stats();
	assert_int_equal(now.io_deferred, before.io_deferred + (v3.aio ? 3 : 2));
	before = now;
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
	n4f_op(&b, NFS4_OP_COMMIT, &(union nfs4_op_args){.commit = {0, 0}});
	call(&c, &b, 0, 0, false, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_memory_equal(r.r[2].u.verf, verf, sizeof(verf));
	now = io_stats();
	assert_int_equal(now.io_pool, before.io_pool + 1);

	/* CREATE (a directory, then LOOKUP into it: the current handle is the new one), LINK,
	 * RENAME and REMOVE: each by the helper threads */
	before = io_stats();
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {root.data, root.len}});
	a.create = (struct nfs4_create_args){NFS_DIR,	{0}, 0, 0, {(const uint8_t *)"iodir", 5},
					     {{0}, {0}}};
	n4f_op(&b, NFS4_OP_CREATE, &a);
	n4f_op(&b, NFS4_OP_GETFH, NULL);
	call(&c, &b, 0, 0, false, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.n, 4);
	snprintf(path, sizeof(path), "%s/iodir", n4f_exp_a);
	{
		struct stat sb;
		struct nfs_fh dfh;

		assert_int_equal(stat(path, &sb), 0);
		assert_true(S_ISDIR(sb.st_mode));
		n4f_fh_of(&r, 3, &dfh);
		/* the handle GETFH gave after CREATE is the new directory's */
		n4f_session(&b, &s);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {dfh.data, dfh.len}});
		n4f_op(&b, NFS4_OP_SAVEFH, NULL);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
		n4f_op(&b, NFS4_OP_SAVEFH, NULL);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {dfh.data, dfh.len}});
		n4f_op(&b, NFS4_OP_LINK,
		       &(union nfs4_op_args){.name = {(const uint8_t *)"hard", 4}});
		call(&c, &b, 0, 0, false, 0, &r);
		assert_int_equal(r.status, NFS4_OK);
		snprintf(path, sizeof(path), "%s/iodir/hard", n4f_exp_a);
		assert_int_equal(stat(path, &sb), 0);
		assert_int_equal(sb.st_size, sizeof(data));
		assert_int_equal(sb.st_nlink, 2);
		/* RENAME iodir/hard -> iodir/moved, then REMOVE it */
		n4f_session(&b, &s);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {dfh.data, dfh.len}});
		n4f_op(&b, NFS4_OP_SAVEFH, NULL);
		a.rename = (struct nfs4_rename_args){{(const uint8_t *)"hard", 4},
						     {(const uint8_t *)"moved", 5}};
		n4f_op(&b, NFS4_OP_RENAME, &a);
		call(&c, &b, 0, 0, false, 0, &r);
		assert_int_equal(r.status, NFS4_OK);
		assert_int_equal(stat(path, &sb), -1);
		snprintf(path, sizeof(path), "%s/iodir/moved", n4f_exp_a);
		assert_int_equal(stat(path, &sb), 0);
		n4f_session(&b, &s);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {dfh.data, dfh.len}});
		n4f_op(&b, NFS4_OP_REMOVE,
		       &(union nfs4_op_args){.name = {(const uint8_t *)"moved", 5}});
		call(&c, &b, 0, 0, false, 0, &r);
		assert_int_equal(r.status, NFS4_OK);
		assert_int_equal(stat(path, &sb), -1);
	}
	/* SETATTR of the size (by the open's stateid): the file is cut to 1000 bytes */
	{
		static const uint8_t sz[8] = {0, 0, 0, 0, 0, 0, 0x03, 0xe8};
		struct stat sb;

		n4f_session(&b, &s);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
		a.setattr.sid = sid;
		a.setattr.attrs = (struct nfs4_fattr){{1, {1u << NFS4_A_SIZE}}, {sz, 8}};
		n4f_op(&b, NFS4_OP_SETATTR, &a);
		call(&c, &b, 0, 0, false, 0, &r);
		assert_int_equal(r.status, NFS4_OK);
		snprintf(path, sizeof(path), "%s/viaio", n4f_exp_a);
		assert_int_equal(stat(path, &sb), 0);
		assert_int_equal(sb.st_size, 1000);
	}
	now = io_stats();
	assert_int_equal(now.io_pool, before.io_pool + 5);
	assert_int_equal(now.io_deferred, before.io_deferred + 5);

	/* LOOKUP, READDIR and READLINK read the file system off the lcore too */
	before = io_stats();
	{
		struct nfs4_stateid osid;
		struct nfs_fh lfh, ofh;
		struct stat sb;
		uint32_t sz = 0;

		/* LOOKUP of the file: GETFH and GETATTR after it see it */
		n4f_session(&b, &s);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {root.data, root.len}});
		n4f_op(&b, NFS4_OP_LOOKUP,
		       &(union nfs4_op_args){.name = {(const uint8_t *)"viaio", 5}});
		n4f_op(&b, NFS4_OP_GETFH, NULL);
		n4f_op(&b, NFS4_OP_GETATTR,
		       &(union nfs4_op_args){.getattr = {1, {1u << NFS4_A_SIZE}}});
		call(&c, &b, 0, 0, false, 0, &r);
		assert_int_equal(r.status, NFS4_OK);
		assert_int_equal(r.n, 5);
		n4f_fh_of(&r, 3, &lfh);
		assert_int_equal(lfh.len, fh.len);
		assert_memory_equal(lfh.data, fh.data, fh.len);
		/* size 1000: the SETATTR above */
		assert_int_equal(r.r[4].u.getattr.vals.len, 8);
		sz = (uint32_t)r.r[4].u.getattr.vals.p[4] << 24 |
		     (uint32_t)r.r[4].u.getattr.vals.p[5] << 16 |
		     (uint32_t)r.r[4].u.getattr.vals.p[6] << 8 | r.r[4].u.getattr.vals.p[7];
		assert_int_equal(sz, 1000);
		/* SECINFO's lookup does not wait: its result is its own, and it consumes the
		 * current handle (RFC 8881 §2.6.3.1.1.8; pynfs SEC2) */
		n4f_session(&b, &s);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {root.data, root.len}});
		n4f_op(&b, NFS4_OP_SECINFO,
		       &(union nfs4_op_args){.name = {(const uint8_t *)"viaio", 5}});
		n4f_op(&b, NFS4_OP_GETFH, NULL);
		call(&c, &b, 0, 0, false, 0, &r);
		assert_int_equal(r.status, NFS4ERR_NOFILEHANDLE);
		assert_int_equal(r.n, 4);
		assert_int_equal(r.r[2].status, NFS4_OK);
		assert_int_equal(r.r[2].u.secinfo.n, 1);
		/* a name that is not there, and a LOOKUP in a file: their errors after the wait */
		n4f_session(&b, &s);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {root.data, root.len}});
		n4f_op(&b, NFS4_OP_LOOKUP,
		       &(union nfs4_op_args){.name = {(const uint8_t *)"nothere", 7}});
		n4f_op(&b, NFS4_OP_GETFH, NULL);
		call(&c, &b, 0, 0, false, 0, &r);
		assert_int_equal(r.status, NFS4ERR_NOENT);
		assert_int_equal(r.n, 3);
		n4f_session(&b, &s);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
		n4f_op(&b, NFS4_OP_LOOKUP,
		       &(union nfs4_op_args){.name = {(const uint8_t *)"x", 1}});
		call(&c, &b, 0, 0, false, 0, &r);
		assert_int_equal(r.status, NFS4ERR_NOTDIR);
		/* READDIR of the export's root: the file among its entries */
		memset(&a, 0, sizeof(a));
		a.readdir.maxcount = 8192;
		a.readdir.dircount = 8192;
		a.readdir.attr_request = (struct nfs4_bitmap){1, {1u << NFS4_A_TYPE}};
		n4f_session(&b, &s);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {root.data, root.len}});
		n4f_op(&b, NFS4_OP_READDIR, &a);
		call(&c, &b, 0, 0, false, 0, &r);
		assert_int_equal(r.status, NFS4_OK);
		assert_true(r.r[2].u.readdir.nentries >= 1);
		assert_true(r.r[2].u.readdir.eof);
		assert_non_null(memmem(r.r[2].u.readdir.entries.p, r.r[2].u.readdir.entries.len,
				       "viaio", 5));
		/* READLINK of a link made for it (the CREATE waits too) */
		memset(&a, 0, sizeof(a));
		a.create = (struct nfs4_create_args){
			NFS_LNK, {(const uint8_t *)"to/some/where", 13}, 0,
			0,	 {(const uint8_t *)"iolink", 6},	 {{0}, {0}}};
		n4f_session(&b, &s);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {root.data, root.len}});
		n4f_op(&b, NFS4_OP_CREATE, &a);
		n4f_op(&b, NFS4_OP_GETFH, NULL);
		call(&c, &b, 0, 0, false, 0, &r);
		assert_int_equal(r.status, NFS4_OK);
		n4f_fh_of(&r, 3, &lfh);
		n4f_session(&b, &s);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {lfh.data, lfh.len}});
		n4f_op(&b, NFS4_OP_READLINK, NULL);
		call(&c, &b, 0, 0, false, 0, &r);
		assert_int_equal(r.status, NFS4_OK);
		assert_int_equal(r.r[2].u.link.len, 13);
		assert_memory_equal(r.r[2].u.link.p, "to/some/where", 13);
		/* READLINK of a file is INVAL, after the wait */
		n4f_session(&b, &s);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
		n4f_op(&b, NFS4_OP_READLINK, NULL);
		call(&c, &b, 0, 0, false, 0, &r);
		assert_int_equal(r.status, NFS4ERR_INVAL);
		/* OPEN creates a file (GETFH after it: the new one), and one of a name that is not
		 * there is NOENT: each after its wait */
		n4f_open_args(&a, "o2", "madebyopen", OPEN4_SHARE_ACCESS_BOTH, OPEN4_CREATE);
		open_getfh(&c, &s, &root, &a, &r);
		assert_int_equal(r.status, NFS4_OK);
		assert_int_equal(r.r[2].u.open.sid.seqid, 1);
		osid = r.r[2].u.open.sid;
		n4f_fh_of(&r, 3, &ofh);
		snprintf(path, sizeof(path), "%s/madebyopen", n4f_exp_a);
		assert_int_equal(stat(path, &sb), 0);
		assert_true(S_ISREG(sb.st_mode));
		/* NFSv4.2: COPY of viaio's 1000 bytes into it, then SEEK to its first data */
		memset(&a, 0, sizeof(a));
		a.copy.src_sid = sid;
		a.copy.dst_sid = osid;
		a.copy.count = 1000;
		n4f_session_minor(&b, &s, 2);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
		n4f_op(&b, NFS4_OP_SAVEFH, NULL);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {ofh.data, ofh.len}});
		n4f_op(&b, NFS4_OP_COPY, &a);
		call(&c, &b, 0, 0, false, 0, &r);
		assert_int_equal(r.status, NFS4_OK);
		assert_int_equal(r.r[4].u.copy.count, 1000);
		assert_int_equal(stat(path, &sb), 0);
		assert_int_equal(sb.st_size, 1000);
		memset(&a, 0, sizeof(a));
		a.seek = (struct nfs4_seek_args){osid, 0, NFS4_CONTENT_DATA};
		n4f_session_minor(&b, &s, 2);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {ofh.data, ofh.len}});
		n4f_op(&b, NFS4_OP_SEEK, &a);
		call(&c, &b, 0, 0, false, 0, &r);
		assert_int_equal(r.status, NFS4_OK);
		assert_int_equal(r.r[2].u.seek.offset, 0);
		assert_false(r.r[2].u.seek.eof);
		n4f_open_args(&a, "o2", "nothere", OPEN4_SHARE_ACCESS_READ, OPEN4_NOCREATE);
		n4f_session(&b, &s);
		n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {root.data, root.len}});
		n4f_op(&b, NFS4_OP_OPEN, &a);
		call(&c, &b, 0, 0, false, 0, &r);
		assert_int_equal(r.status, NFS4ERR_NOENT);
	}
	now = io_stats();
	/* three LOOKUPs, READDIR, CREATE, two READLINKs, two OPENs, COPY and SEEK, each by the
	 * helper threads */
	assert_int_equal(now.io_deferred, before.io_deferred + 11);
	assert_int_equal(now.io_pool, before.io_pool + 11);
	assert_int_equal(now.io_resumed, before.io_resumed + 11);

	/* a COMMIT waits (its end held back): a retry on its slot is DELAY, slot 1 is served */
	hold_work = true;
	seq = s.seq[0]++;
	n4f_seq(&b, &s, 0, seq, true);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
	n4f_op(&b, NFS4_OP_COMMIT, &(union nfs4_op_args){.commit = {0, 0}});
	call_start(&c, msg2, sizeof(msg2), &b, 0, 0, false, 0, &r1);
	until_deferred(&c, now.io_deferred + 1);
	n4f_seq(&b, &s, 0, seq, true);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
	n4f_op(&b, NFS4_OP_COMMIT, &(union nfs4_op_args){.commit = {0, 0}});
	call(&c, &b, 0, 0, false, 0, &r);
	assert_int_equal(r.status, NFS4ERR_DELAY);
	assert_int_equal(r.n, 1);
	assert_int_equal(r1.done, 0);
	n4f_seq(&b, &s, 1, s.seq[1]++, false);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
	n4f_op(&b, NFS4_OP_GETATTR, &(union nfs4_op_args){.getattr = {1, {1u << NFS4_A_SIZE}}});
	call(&c, &b, 0, 0, false, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r1.done, 0);
	hold_work = false;
	call_wait(&c, &r1, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.n, 3);
	/* now the slot holds the COMMIT's reply: the retry replays it */
	n4f_seq(&b, &s, 0, seq, true);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
	n4f_op(&b, NFS4_OP_COMMIT, &(union nfs4_op_args){.commit = {0, 0}});
	call(&c, &b, 0, 0, false, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.n, 3);
	assert_memory_equal(r.r[2].u.verf, verf, sizeof(verf));

	/* while a compound of the session waits for its file work, nothing frees the session or
	 * its client under it (knfsd: they are in use): DESTROY_SESSION from another session of
	 * the client and a restarted client's CREATE_SESSION answer DELAY, and a lease that runs
	 * out meanwhile is put off. Once the work ended, the compound ends whole and the session
	 * can go. */
	rdma_session(&c, "io client", &s2);
	now = io_stats();
	sst = state_stats();
	hold_work = true;
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {fh.data, fh.len}});
	n4f_op(&b, NFS4_OP_COMMIT, &(union nfs4_op_args){.commit = {0, 0}});
	n4f_op(&b, NFS4_OP_GETATTR, &(union nfs4_op_args){.getattr = {1, {1u << NFS4_A_SIZE}}});
	call_start(&c, msg3, sizeof(msg3), &b, 0, 0, false, 0, &r3);
	until_deferred(&c, now.io_deferred + 1);
	n4f_session(&b, &s2);
	memcpy(a.sessionid, s.id, NFS4_SESSIONID_SIZE);
	n4f_op(&b, NFS4_OP_DESTROY_SESSION, &a);
	call(&c, &b, 0, 0, false, 0, &r);
	assert_int_equal(r.status, NFS4ERR_DELAY);
	assert_int_equal(r.r[1].status, NFS4ERR_DELAY);
	/* the client restarts (a new verifier): its new record is not confirmed over the old */
	memset(&a, 0, sizeof(a));
	memcpy(a.exid.verifier, "restartd", 8);
	a.exid.ownerid = (struct nfs4_ref){(const uint8_t *)"io client", 9};
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_EXCHANGE_ID, &a);
	call(&c, &b, 0, 0, false, 8192, &r);
	assert_int_equal(r.status, NFS4_OK);
	clientid = r.r[0].u.exid.clientid;
	assert_true(clientid != s.clientid);
	seq = r.r[0].u.exid.sequenceid;
	memset(&a, 0, sizeof(a));
	a.csess.clientid = clientid;
	a.csess.sequence = seq;
	n4f_default_attrs(&a.csess.fore);
	n4f_default_attrs(&a.csess.back);
	n4f_start(&b, 1, "");
	n4f_op(&b, NFS4_OP_CREATE_SESSION, &a);
	call(&c, &b, 0, 0, false, 0, &r);
	assert_int_equal(r.status, NFS4ERR_DELAY);
	assert_int_equal(state_stats().destroy_busy, sst.destroy_busy + 2);
	/* the lease runs out: the sweep that s2's next compound makes keeps the client */
	n4f_now_ns += (uint64_t)(n4f_conf.state.lease_s + 5) * 1000000000ull;
	n4f_session(&b, &s2);
	call(&c, &b, 0, 0, false, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_true(state_stats().expiry_held > sst.expiry_held);
	hold_work = false;
	call_wait(&c, &r3, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.n, 4);
	assert_int_equal(io_stats().io_session_gone, now.io_session_gone);
	/* now it can go, in a compound of its own whose LOOKUP waited first (the compound's own
	 * slot is in progress to its end: not a reason to wait) */
	now = io_stats();
	n4f_session(&b, &s);
	n4f_op(&b, NFS4_OP_PUTFH, &(union nfs4_op_args){.fh = {root.data, root.len}});
	n4f_op(&b, NFS4_OP_LOOKUP, &(union nfs4_op_args){.name = {(const uint8_t *)"viaio", 5}});
	memset(&a, 0, sizeof(a));
	memcpy(a.sessionid, s.id, NFS4_SESSIONID_SIZE);
	n4f_op(&b, NFS4_OP_DESTROY_SESSION, &a);
	call(&c, &b, 0, 0, false, 0, &r);
	assert_int_equal(r.status, NFS4_OK);
	assert_int_equal(r.n, 4);
	assert_int_equal(io_stats().io_deferred, now.io_deferred + 1);
	assert_int_equal(state_stats().destroy_busy, sst.destroy_busy + 2);
	rr_disconnect(&c);
	nfs_pool_destroy(v3.pool, nfs3_pool_done);
	v3.pool = NULL;
	if (v3.aio)
		nfs_aio_destroy(v3.aio, nfs3_aio_done);
	v3.aio = NULL;
}

int main(void)
{
	static char a0[] = "test_nfs4_rdma", a1[] = "--no-huge", a2[] = "-m", a3[] = "512",
		    a4[] = "--no-pci", a5[] = "--no-shconf", a6[] = "--no-telemetry", a7[] = "-l",
		    a8[] = "0", a9[] = "--log-level=*:error";
	char *eal[] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nfs4_over_rdma),
		cmocka_unit_test(test_backchannel_over_rdma),
		cmocka_unit_test(test_io_off_lcore),
	};
	int rc;

	if (geteuid() != 0) {
		printf("SKIP: needs root (open_by_handle_at)\n");
		return 77;
	}
	if (rte_eal_init(10, eal) < 0 || ring_pair_up(&rp, "n4", 81, 1500) != 0)
		return 1;
	if (n4f_setup_rpc(&v3, &svc, &prog, vers) != 0)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	n4f_teardown_rpc(&v3);
	for (int k = 0; k < 2; k++) {
		roce_cm_close(rp.cm[k]);
		rp.cm[k] = NULL;
	}
	ring_pair_down(&rp);
	rte_eal_cleanup();
	return rc;
}
