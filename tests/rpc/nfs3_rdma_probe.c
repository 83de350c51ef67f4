/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs3_rdma_probe.c - droce's RPC clients against a real NFSv3 server (Linux knfsd in the
 * interop lab, tests/interop/knfsd.sh): MOUNT v3 over TCP through droce's exception TAP (the
 * kernel's socket, droce's address) for the root file handle, then over RPC-over-RDMA to port
 * 20049, on droce's own stack and transport:
 *   NULL; FSINFO and GETATTR of the root; LOOKUP of FILE; WRITE of SIZE bytes at offset 0,
 *   FILE_SYNC, the data by read chunk; READ of SIZE bytes, the data by write chunk, compared
 *   byte for byte; READDIR of DIR with a reply chunk, its entries counted; SYMLINK of a new
 *   name in the root to a 560-byte path, the path by read chunk (RFC 8267 §4.1: SYMLINK's
 *   path is DDP-eligible); READLINK of it with a write chunk offered: the same path, and it
 *   came by the write chunk (the endpoint's ddp_replies; READ's data is checked the same
 *   way); REMOVE of the link.
 * Each step prints "ok - ..." or "FAIL - ..."; the exit status is 0 when every step passed.
 *
 * Usage: nfs3_rdma_probe [EAL args --] --config FILE --server IP [--export /export]
 *        [--file data] [--dir many] [--size BYTES] [--mount-port 20048] [--entries N]
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "orpc_clnt.h"
#include "orpc_msg.h"
#include "roce_cm.h"
#include "roce_verbs.h"
#include "rpcrdma_ep.h"
#include "stk_config.h"
#include "stk_iface.h"
#include "stk_lcore.h"
#include "stk_neigh.h"
#include "stk_stack.h"

#define NFS_PROG 100003u
#define MOUNT_PROG 100005u
#define FHSIZE3 64u
#define FATTR3_LEN 84u

enum nfs3_proc {
	P_NULL = 0,
	P_GETATTR = 1,
	P_LOOKUP = 3,
	P_READLINK = 5,
	P_READ = 6,
	P_WRITE = 7,
	P_SYMLINK = 10,
	P_REMOVE = 12,
	P_READDIR = 16,
	P_FSINFO = 19
};

#define PROBE_STATE_LIST(X)                                                                        \
	X(MOUNT)      /**< MOUNT v3 MNT over TCP for the root file handle */                       \
	X(RESOLVE)    /**< ARP for the server */                                                   \
	X(CONNECT)    /**< CM REQ to port 20049 with RFC 8797 private data */                      \
	X(CONNECTING) /**< waiting for ESTABLISHED */                                              \
	X(CALL)	      /**< start the next NFS call */                                              \
	X(WAIT)	      /**< its reply */                                                            \
	X(DONE)	      /**< every step ran: disconnect and stop */

#define PS_ENUM_(n) PS_##n,
enum probe_state { PROBE_STATE_LIST(PS_ENUM_) PS_NUM };

struct fh {
	uint32_t len;
	uint8_t data[FHSIZE3];
};

static struct {
	const char *config, *export, *file, *dir;
	struct stk_ipaddr server;
	char server_str[64];
	uint32_t size, entries;
	uint16_t mount_port, iface;
	struct roce_dev *dev;
	struct roce_cm *cm;
	struct roce_pd *pd;
	struct roce_cm_id *id;
	struct rpcrdma_ep *ep;
	struct orpc_clnt mnt;
	bool mnt_started, mnt_done;
	enum probe_state state;
	uint64_t deadline, probe_at, hz;
	struct fh root, fh, link_fh;
	char link[64], target[600];
	uint64_t ddp_replies0; /* the endpoint's ddp_replies when the call went out */
	int step;
	bool waiting_reply;
	int failures;
	uint8_t *msg, *data;
	uint32_t xid;
	struct orpc_authsys sys;
} g = {.export = "/export",
       .file = "data",
       .dir = "many",
       .size = 1u << 20,
       .mount_port = 20048,
       .xid = 0x64726f00};

static void report(bool ok, const char *what)
{
	printf("%s - %s\n", ok ? "ok" : "FAIL", what);
	fflush(stdout);
	if (!ok)
		g.failures++;
}

/* ---- XDR pieces of RFC 1813 (only what the probe reads) ---- */

static bool_t xdr_fh(XDR *x, struct fh *f)
{
	char *p = (char *)f->data;

	return xdr_bytes(x, &p, &f->len, FHSIZE3);
}

static bool_t skip(XDR *x, uint32_t bytes)
{
	uint32_t pos = xdr_getpos(x);

	return xdr_setpos(x, pos + bytes);
}

/* post_op_attr: bool, then fattr3 when true */
static bool_t skip_post_op_attr(XDR *x)
{
	bool_t follows;

	return xdr_bool(x, &follows) && (!follows || skip(x, FATTR3_LEN));
}

/* wcc_data: pre_op_attr (bool + size, mtime, ctime = 24 bytes), post_op_attr */
static bool_t skip_wcc(XDR *x)
{
	bool_t follows;

	return xdr_bool(x, &follows) && (!follows || skip(x, 24)) && skip_post_op_attr(x);
}

/* ---- MOUNT over TCP ---- */

static bool_t xdr_dirpath(XDR *x, char **p)
{
	return xdr_string(x, p, 1024);
}

static void on_mnt(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *res,
		   uint32_t len)
{
	uint32_t status = 1;
	XDR x;

	(void)ctx;
	g.mnt_done = true;
	if (err || h->denied || h->stat != SUCCESS) {
		printf("# MOUNT MNT: error %d, %s\n", err, h ? orpc_accept_stat_name(h->stat) : "");
		report(false, "MOUNT v3 MNT over TCP through droce's exception TAP");
		return;
	}
	xdrmem_create(&x, (char *)(uintptr_t)res, len, XDR_DECODE);
	if (!xdr_u_int(&x, &status) || status != 0 || !xdr_fh(&x, &g.root)) {
		printf("# MOUNT MNT status %u\n", status);
		report(false, "MOUNT v3 MNT over TCP through droce's exception TAP");
		return;
	}
	printf("# root file handle: %u bytes\n", g.root.len);
	report(true, "MOUNT v3 MNT over TCP through droce's exception TAP");
}

/* ---- NFS calls over RDMA ---- */

struct step {
	const char *what;
	uint32_t proc;
	bool (*args)(XDR *x, struct rpcrdma_call *c);
	bool (*check)(XDR *x, uint32_t len);
	bool ddp_reply;
	uint32_t reply_max;
};

static uint32_t begin(XDR *x, uint32_t proc)
{
	xdrmem_create(x, (char *)g.msg, (1u << 20) + 65536, XDR_ENCODE);
	orpc_call_encode(x, g.xid++, NFS_PROG, 3, proc, &g.sys);
	return xdr_getpos(x);
}

static bool a_none(XDR *x, struct rpcrdma_call *c)
{
	(void)x, (void)c;
	return true;
}

static bool a_root(XDR *x, struct rpcrdma_call *c)
{
	(void)c;
	return xdr_fh(x, &g.root);
}

static bool a_lookup(XDR *x, struct rpcrdma_call *c)
{
	char *name = (char *)(uintptr_t)g.file;

	(void)c;
	return xdr_fh(x, &g.root) && xdr_string(x, &name, 255);
}

static bool a_write(XDR *x, struct rpcrdma_call *c)
{
	uint64_t off = 0;
	uint32_t count = g.size, stable = 2; /* FILE_SYNC */
	char *p = (char *)g.data;

	if (!xdr_fh(x, &g.fh) || !xdr_u_int64_t(x, &off) || !xdr_u_int(x, &count) ||
	    !xdr_u_int(x, &stable))
		return false;
	c->ddp_off = xdr_getpos(x) + 4; /* the opaque's content, after its length */
	c->ddp_len = g.size;
	return xdr_bytes(x, &p, &count, g.size);
}

static bool a_read(XDR *x, struct rpcrdma_call *c)
{
	uint64_t off = 0;
	uint32_t count = g.size;

	(void)c;
	return xdr_fh(x, &g.fh) && xdr_u_int64_t(x, &off) && xdr_u_int(x, &count);
}

static bool a_readdir(XDR *x, struct rpcrdma_call *c)
{
	uint64_t cookie = 0;
	char verf[8] = {0};
	uint32_t count = 32768;

	(void)c;
	/* the directory's handle is in g.file: the step before looked it up */
	return xdr_fh(x, &g.fh) && xdr_u_int64_t(x, &cookie) && xdr_opaque(x, verf, 8) &&
	       xdr_u_int(x, &count);
}

static bool status_ok(XDR *x, const char *what)
{
	uint32_t st = 99;

	if (!xdr_u_int(x, &st) || st != 0) {
		printf("# %s: NFS status %u\n", what, st);
		return false;
	}
	return true;
}

static bool c_null(XDR *x, uint32_t len)
{
	(void)x;
	return len == 0;
}

static bool c_fsinfo(XDR *x, uint32_t len)
{
	uint32_t rtmax, rtpref, rtmult, wtmax;

	(void)len;
	if (!status_ok(x, "FSINFO") || !skip_post_op_attr(x) || !xdr_u_int(x, &rtmax) ||
	    !xdr_u_int(x, &rtpref) || !xdr_u_int(x, &rtmult) || !xdr_u_int(x, &wtmax))
		return false;
	printf("# FSINFO: rtmax %u rtpref %u wtmax %u\n", rtmax, rtpref, wtmax);
	if (rtmax < g.size || wtmax < g.size)
		printf("# the server's transfer size is below %u: set max_block_size first\n",
		       g.size);
	return rtmax >= g.size && wtmax >= g.size;
}

static bool c_getattr(XDR *x, uint32_t len)
{
	uint32_t type = 0;

	(void)len;
	if (!status_ok(x, "GETATTR") || !xdr_u_int(x, &type))
		return false;
	printf("# GETATTR: root is of type %u (2 = directory)\n", type);
	return type == 2;
}

static bool c_lookup(XDR *x, uint32_t len)
{
	(void)len;
	if (!status_ok(x, "LOOKUP") || !xdr_fh(x, &g.fh))
		return false;
	printf("# LOOKUP: file handle of %u bytes\n", g.fh.len);
	return true;
}

static bool c_write(XDR *x, uint32_t len)
{
	uint32_t count = 0, committed = 0;

	(void)len;
	if (!status_ok(x, "WRITE") || !skip_wcc(x) || !xdr_u_int(x, &count) ||
	    !xdr_u_int(x, &committed))
		return false;
	printf("# WRITE: %u bytes, committed %u (2 = FILE_SYNC)\n", count, committed);
	return count == g.size && committed == 2;
}

static bool c_read(XDR *x, uint32_t len)
{
	uint32_t count = 0, dlen = 0;
	bool_t eof = 0;
	uint32_t pos;
	const uint8_t *d;

	(void)len;
	if (!status_ok(x, "READ") || !skip_post_op_attr(x) || !xdr_u_int(x, &count) ||
	    !xdr_bool(x, &eof) || !xdr_u_int(x, &dlen))
		return false;
	pos = xdr_getpos(x);
	printf("# READ: count %u, eof %d, data %u bytes\n", count, eof, dlen);
	if (count != g.size || dlen != g.size || pos + dlen > len)
		return false;
	d = g.msg + pos; /* check() runs over the reply copied into g.msg */
	for (uint32_t i = 0; i < dlen; i++)
		if (d[i] != g.data[i]) {
			printf("# READ: byte %u is %u, wrote %u\n", i, d[i], g.data[i]);
			return false;
		}
	return true;
}

static bool c_lookup_dir(XDR *x, uint32_t len)
{
	(void)len;
	return status_ok(x, "LOOKUP") && xdr_fh(x, &g.fh);
}

static bool c_readdir(XDR *x, uint32_t len)
{
	uint32_t n = 0;
	bool_t follows = 0, eof = 0;
	char verf[8];

	(void)len;
	if (!status_ok(x, "READDIR") || !skip_post_op_attr(x) || !xdr_opaque(x, verf, 8))
		return false;
	while (xdr_bool(x, &follows) && follows) {
		uint64_t fileid, cookie;
		char name[256], *np = name;

		if (!xdr_u_int64_t(x, &fileid) || !xdr_string(x, &np, 255) ||
		    !xdr_u_int64_t(x, &cookie))
			return false;
		n++;
	}
	if (!xdr_bool(x, &eof))
		return false;
	printf("# READDIR: %u entries (with . and ..), eof %d\n", n, eof);
	return n >= g.entries && eof;
}

static bool a_lookup_dir(XDR *x, struct rpcrdma_call *c)
{
	char *name = (char *)(uintptr_t)g.dir;

	(void)c;
	return xdr_fh(x, &g.root) && xdr_string(x, &name, 255);
}

static bool a_symlink(XDR *x, struct rpcrdma_call *c)
{
	char *name = g.link, *path = g.target;
	uint32_t dont = 0; /* sattr3: set nothing (mode, uid, gid, size, atime, mtime) */

	if (!xdr_fh(x, &g.root) || !xdr_string(x, &name, 255))
		return false;
	for (int i = 0; i < 6; i++)
		if (!xdr_u_int(x, &dont))
			return false;
	c->ddp_off = xdr_getpos(x) + 4; /* the path's content, after its length */
	c->ddp_len = (uint32_t)strlen(g.target);
	return xdr_string(x, &path, sizeof(g.target));
}

static bool c_symlink(XDR *x, uint32_t len)
{
	bool_t follows = 0;

	(void)len;
	if (!status_ok(x, "SYMLINK") || !xdr_bool(x, &follows) || !follows ||
	    !xdr_fh(x, &g.link_fh))
		return false;
	printf("# SYMLINK: %s -> %zu-byte path, handle of %u bytes\n", g.link, strlen(g.target),
	       g.link_fh.len);
	return true;
}

static bool a_readlink(XDR *x, struct rpcrdma_call *c)
{
	(void)c;
	return xdr_fh(x, &g.link_fh);
}

static bool c_readlink(XDR *x, uint32_t len)
{
	char path[sizeof(g.target)], *p = path;

	(void)len;
	if (!status_ok(x, "READLINK") || !skip_post_op_attr(x) ||
	    !xdr_string(x, &p, sizeof(path) - 1))
		return false;
	printf("# READLINK: %zu bytes, %s\n", strlen(path),
	       strcmp(path, g.target) == 0 ? "the path SYMLINK wrote" : "NOT the path written");
	return strcmp(path, g.target) == 0;
}

static bool a_remove(XDR *x, struct rpcrdma_call *c)
{
	char *name = g.link;

	(void)c;
	return xdr_fh(x, &g.root) && xdr_string(x, &name, 255);
}

static bool c_remove(XDR *x, uint32_t len)
{
	(void)len;
	return status_ok(x, "REMOVE") && skip_wcc(x);
}

static const struct step steps[] = {
	{"NFSv3 NULL over RDMA", P_NULL, a_none, c_null, false, 0},
	{"FSINFO of the root: transfers of SIZE allowed", P_FSINFO, a_root, c_fsinfo, false, 0},
	{"GETATTR of the root: a directory", P_GETATTR, a_root, c_getattr, false, 0},
	{"LOOKUP of FILE", P_LOOKUP, a_lookup, c_lookup, false, 0},
	{"WRITE of SIZE bytes as one call, the data by read chunk", P_WRITE, a_write, c_write,
	 false, 0},
	{"READ of SIZE bytes as one call, the data by write chunk, byte for byte", P_READ, a_read,
	 c_read, true, 0},
	{"LOOKUP of DIR", P_LOOKUP, a_lookup_dir, c_lookup_dir, false, 0},
	{"READDIR of DIR: a reply by reply chunk", P_READDIR, a_readdir, c_readdir, false, 65536},
	{"SYMLINK of a new name to a 560-byte path, the path by read chunk", P_SYMLINK, a_symlink,
	 c_symlink, false, 0},
	{"READLINK of it: the path written, by write chunk", P_READLINK, a_readlink, c_readlink,
	 true, 0},
	{"REMOVE of the link", P_REMOVE, a_remove, c_remove, false, 0},
};
#define NSTEPS ((int)(sizeof(steps) / sizeof(steps[0])))

static void on_reply(void *ctx, int err, const uint8_t *reply, uint32_t len)
{
	const struct step *s = &steps[g.step];
	struct orpc_reply_hdr h = {0};
	uint32_t off;
	bool ok = false;
	XDR x;

	(void)ctx;
	g.waiting_reply = false;
	if (err) {
		printf("# %s: error %d\n", s->what, err);
	} else if (orpc_reply_decode(reply, len, &h, &off) != 0 || h.denied || h.stat != SUCCESS) {
		printf("# %s: RPC reply %s\n", s->what,
		       h.denied ? orpc_auth_stat_name(h.why) : orpc_accept_stat_name(h.stat));
	} else {
		memmove(g.msg, reply + off, len - off);
		xdrmem_create(&x, (char *)g.msg, len - off, XDR_DECODE);
		ok = s->check(&x, len - off);
		if (ok && s->ddp_reply && rpcrdma_ep_stats(g.ep)->ddp_replies == g.ddp_replies0) {
			printf("# %s: the results came inline, not by the write chunk offered\n",
			       s->what);
			ok = false;
		}
	}
	report(ok, s->what);
	g.step++;
}

static int start_call(void)
{
	const struct step *s = &steps[g.step];
	struct rpcrdma_call c = {
		.msg = g.msg, .ddp_reply = s->ddp_reply, .reply_max = s->reply_max};
	XDR x;

	if (s->ddp_reply)
		c.reply_max = 0;
	begin(&x, s->proc);
	if (!s->args(&x, &c))
		return -E2BIG;
	c.len = xdr_getpos(&x);
	g.ddp_replies0 = rpcrdma_ep_stats(g.ep)->ddp_replies;
	return rpcrdma_clnt_call(g.ep, &c, on_reply, NULL);
}

/* ---- the connection ---- */

static enum probe_state fail_all(const char *why)
{
	report(false, why);
	stk_stop();
	return PS_DONE;
}

static enum probe_state step_resolve(struct stk_lcore *lc, uint64_t now)
{
	const struct stk_iface *ifc = stk_iface_get(g.iface);
	const struct stk_neigh *n = stk_neigh_lookup(lc->neigh, ifc->idx, &g.server);

	if (n && n->state != STK_NEIGH_INCOMPLETE)
		return PS_CONNECT;
	if (now > g.deadline)
		return fail_all("the server answers ARP");
	if (now >= g.probe_at) {
		stk_neigh_probe(lc, ifc, &g.server);
		g.probe_at = now + g.hz / 5;
	}
	return PS_RESOLVE;
}

static enum probe_state step_connect(void)
{
	struct roce_cm_conn_param p = {0};
	uint8_t priv[RPCRDMA_CM_PRIV_LEN];
	struct rpcrdma_ep_conf conf = {.inline_max = 4096};

	g.ep = rpcrdma_ep_create(g.dev, g.pd, RPCRDMA_CLIENT, &conf, NULL);
	g.id = roce_cm_create_id(g.cm, ROCE_CM_PS_TCP, NULL);
	if (!g.ep || !g.id)
		return fail_all("an RPC-over-RDMA endpoint");
	p.private_data = priv;
	p.private_data_len = rpcrdma_ep_private_data(g.ep, priv);
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	if (roce_cm_connect(g.id, &g.server, RPCRDMA_NFS_PORT, rpcrdma_ep_qp(g.ep), &p) != 0)
		return fail_all("CM connect to port 20049");
	g.deadline = rte_get_tsc_cycles() + 20 * g.hz;
	return PS_CONNECTING;
}

static enum probe_state step_connecting(uint64_t now)
{
	struct roce_cm_event ev;
	struct rpcrdma_ep_info info;

	if (roce_cm_get_event(g.cm, &ev) != 0)
		return now > g.deadline ? fail_all("connected to knfsd's port 20049")
					: PS_CONNECTING;
	if (ev.event != ROCE_CM_EVENT_ESTABLISHED) {
		printf("# CM event %s status %d\n", roce_cm_event_str(ev.event), ev.status);
		return fail_all("connected to knfsd's port 20049");
	}
	if (rpcrdma_ep_start(g.ep, ev.private_data, ev.private_data_len) != 0)
		return fail_all("receives posted");
	rpcrdma_ep_info(g.ep, &info);
	printf("# connected: server private data %s, inline send %u, remote invalidation %s\n",
	       info.peer_priv ? "RFC 8797" : "none", info.inline_send,
	       info.peer_remote_inv ? "accepted" : "not accepted");
	report(true, "RDMA CM connection to knfsd's port 20049 with RFC 8797 private data");
	return PS_CALL;
}

static void probe_poll(struct stk_lcore *lc, void *arg)
{
	enum probe_state prev;
	uint64_t now = rte_get_tsc_cycles();

	(void)arg;
	if (g.ep)
		rpcrdma_ep_poll(g.ep);
	if (g.mnt_started)
		orpc_clnt_poll(&g.mnt);
	do {
		prev = g.state;
		switch (g.state) {
		case PS_MOUNT:
			if (!g.mnt_started) {
				char *path = (char *)(uintptr_t)g.export;

				if (orpc_clnt_init(&g.mnt, g.server_str, g.mount_port, 3000, 3) !=
					    0 ||
				    orpc_clnt_call(&g.mnt, MOUNT_PROG, 3, 1, &g.sys,
						   (xdrproc_t)xdr_dirpath, &path, on_mnt,
						   NULL) != 0) {
					g.state = fail_all("MOUNT call started");
					break;
				}
				g.mnt_started = true;
			}
			if (g.mnt_done)
				g.state = g.failures ? fail_all("a root file handle") : PS_RESOLVE;
			break;
		case PS_RESOLVE:
			g.state = step_resolve(lc, now);
			break;
		case PS_CONNECT:
			g.state = step_connect();
			break;
		case PS_CONNECTING:
			g.state = step_connecting(now);
			break;
		case PS_CALL:
			if (g.step == NSTEPS) {
				g.state = PS_DONE;
				break;
			}
			if (start_call() != 0) {
				g.state = fail_all(steps[g.step].what);
				break;
			}
			g.waiting_reply = true;
			g.deadline = now + 30 * g.hz;
			g.state = PS_WAIT;
			break;
		case PS_WAIT:
			if (!g.waiting_reply)
				g.state = PS_CALL;
			else if (now > g.deadline)
				g.state = fail_all("a reply within 30 s");
			break;
		case PS_DONE:
			if (g.id && !stk_stopping()) {
				roce_cm_disconnect(g.id);
				stk_stop();
			}
			break;
		default:
			break;
		}
	} while (g.state != prev);
}

static int parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", 1, NULL, 'c'},     {"server", 1, NULL, 's'},	 {"export", 1, NULL, 'e'},
		{"file", 1, NULL, 'f'},	      {"dir", 1, NULL, 'd'},	 {"size", 1, NULL, 'S'},
		{"mount-port", 1, NULL, 'm'}, {"entries", 1, NULL, 'n'}, {NULL, 0, NULL, 0}};
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			g.config = optarg;
			break;
		case 's':
			snprintf(g.server_str, sizeof(g.server_str), "%s", optarg);
			if (stk_ipaddr_parse(optarg, &g.server) != 0 || g.server.family != 4) {
				fprintf(stderr,
					"nfs3_rdma_probe: --server needs an IPv4 address\n");
				return -1;
			}
			break;
		case 'e':
			g.export = optarg;
			break;
		case 'f':
			g.file = optarg;
			break;
		case 'd':
			g.dir = optarg;
			break;
		case 'S':
			g.size = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'm':
			g.mount_port = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			g.entries = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		default:
			return -1;
		}
	}
	if (!g.config || !g.server.family || !g.size || g.size > (1u << 20)) {
		fprintf(stderr, "usage: nfs3_rdma_probe [EAL --] --config FILE --server IP "
				"[--export P] [--file F] [--dir D] [--size N<=1MiB] "
				"[--mount-port P] [--entries N]\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int eal_argc, app_argc, rc = 1;
	char **eal_argv, **app_argv;
	struct stk_config cfg;
	char err[512];

	setvbuf(stdout, NULL, _IOLBF, 0);
	stk_split_args(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	if (parse(app_argc, app_argv) != 0)
		return 2;
	/* a link name of this run's own, to a path of 3 long components (560 bytes) */
	snprintf(g.link, sizeof(g.link), "probe-link-%d", (int)getpid());
	{
		size_t n = (size_t)snprintf(g.target, sizeof(g.target), "probe/");

		for (int part = 0; part < 3; part++) {
			for (int i = 0; i < (part < 2 ? 200 : 152); i++)
				g.target[n++] = (char)('a' + part);
			if (part < 2)
				g.target[n++] = '/';
		}
		g.target[n] = '\0';
	}
	stk_config_default(&cfg);
	if (stk_config_load(g.config, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "nfs3_rdma_probe: %s\n", err);
		return 2;
	}
	if (stk_eal_init(&cfg, argv[0], eal_argc, eal_argv) != 0 || stk_setup(&cfg) != 0) {
		fprintf(stderr, "nfs3_rdma_probe: the stack did not start\n");
		return 1;
	}
	g.hz = rte_get_tsc_hz();
	g.iface = 0;
	g.dev = roce_dev_open(g.iface);
	g.cm = g.dev ? roce_cm_open(g.dev) : NULL;
	g.pd = g.dev ? roce_alloc_pd(g.dev) : NULL;
	g.msg = rte_zmalloc("probe_msg", (1u << 20) + 65536, 64);
	g.data = rte_zmalloc("probe_data", g.size, 64);
	if (!g.cm || !g.pd || !g.msg || !g.data) {
		fprintf(stderr, "nfs3_rdma_probe: no device, CM, PD or memory: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	/* the pattern tests/interop/knfsd.sh checks in the VM: byte i = (i * 7 + 3) mod 251 */
	for (uint32_t i = 0; i < g.size; i++)
		g.data[i] = (uint8_t)((i * 7u + 3u) % 251u);
	snprintf(g.sys.machname, sizeof(g.sys.machname), "droce");
	g.state = PS_MOUNT;
	g.deadline = rte_get_tsc_cycles() + 10 * g.hz;
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), roce_poll, g.dev);
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), probe_poll, NULL);
	stk_run();
	/* let the DREQ go out */
	{
		uint64_t end = rte_get_tsc_cycles() + g.hz / 2;
		struct stk_lcore *lc = stk_lcore_get(rte_get_main_lcore());

		while (rte_get_tsc_cycles() < end)
			stk_lcore_poll(lc);
	}
	if (g.ep) {
		const struct rpcrdma_ep_stats *st = rpcrdma_ep_stats(g.ep);

		printf("# endpoint: %llu calls sent, %llu replies, long calls %llu, long replies "
		       "%llu, RDMA errors %llu, flushed at disconnect %llu\n",
		       (unsigned long long)st->tx_msgs, (unsigned long long)st->rx_msgs,
		       (unsigned long long)st->long_calls, (unsigned long long)st->long_replies,
		       (unsigned long long)st->rdma_errors, (unsigned long long)st->flushed);
		if (st->rdma_errors)
			report(false, "no RDMA operation failed");
	}
	rc = g.failures || g.step != NSTEPS ? 1 : 0;
	printf("%s: %d of %d steps passed\n", rc ? "FAIL" : "PASS", g.step - g.failures, NSTEPS);
out:
	if (g.mnt_started)
		orpc_clnt_fini(&g.mnt);
	if (g.id)
		roce_cm_destroy_id(g.id);
	for (int i = 0; g.ep && rpcrdma_ep_destroy(g.ep) == -EBUSY && i < 1000000; i++)
		stk_lcore_poll(stk_lcore_get(rte_get_main_lcore()));
	if (g.cm)
		roce_cm_close(g.cm);
	if (g.pd)
		roce_dealloc_pd(g.pd);
	stk_teardown();
	if (g.dev)
		roce_dev_close(g.dev);
	rte_eal_cleanup();
	return rc;
}
