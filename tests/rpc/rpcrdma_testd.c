/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rpcrdma_testd.c - droce's RPC-over-RDMA server and client in two processes, on droce's own
 * stack (tests/integration/rpcrdma_veth.sh runs them in two namespaces joined by a veth pair).
 *
 * --serve: listens with the CM on port 20049 (--port), accepts up to 8 connections at once,
 *   and gives each an RPCRDMA_SERVER endpoint over one orpc_svc holding the test programs
 *   (orpc_testprog.h). The endpoint's inline size mirrors the client's RFC 8797 receive size
 *   (--inline, default 4096, when the client sends no private data), so each client run
 *   exercises its own size in both directions. An endpoint is destroyed when its connection
 *   is DISCONNECTED. Prints "listening" once it listens; on SIGINT/SIGTERM prints the counters
 *   of every endpoint it had, summed ("counters: name=value ..."), and exits 0.
 * --call IP: resolves IP by ARP, connects with RFC 8797 private data (or none with
 *   --no-private-data) and runs a fixed sequence, each step printing "ok - ..." or
 *   "FAIL - ...": NULL; ECHO of 0, 1, 5 and 3000 bytes; ECHO of 9000 bytes with a reply chunk
 *   of 16384 (a long call and a long reply below 9000 bytes of inline); ECHO of 1 MiB with the
 *   data by read chunk and the reply by reply chunk; FILL of 1 MiB by write chunk; 16 NULL
 *   calls with 4 slots in flight. Every reply is checked byte for byte, and each step checks
 *   it went the way the negotiated inline sizes call for (RFC 8166 §3.5). Exit 0 when every
 *   step passed.
 *
 * Usage: rpcrdma_testd [EAL args --] --config FILE --serve [--port P] [--inline N]
 *        rpcrdma_testd [EAL args --] --config FILE --call IP [--port P] [--inline N]
 *                      [--no-private-data]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "orpc_msg.h"
#include "orpc_testprog.h"
#include "roce_cm.h"
#include "roce_verbs.h"
#include "rpcrdma_ep.h"
#include "stk_config.h"
#include "stk_iface.h"
#include "stk_lcore.h"
#include "stk_neigh.h"
#include "stk_stack.h"

#define TESTD_MAX_CONNS 8u
#define TESTD_BIG (1u << 20)
#define TESTD_BURST 16u
#define TESTD_SLOTS 4u

/* ---- the server ---- */

struct srv_conn {
	struct roce_cm_id *id; /**< NULL once DISCONNECTED (the identifier is released then) */
	struct rpcrdma_ep *ep;
	uint64_t close_at; /**< TSC: destroy the endpoint then (its flushes drained) */
	bool dreq_sent;
	bool summed; /**< its counters are counted; the endpoint waits for its regions to be free */
	unsigned no;
};

/* every uint64_t of rpcrdma_ep_stats, summed over the endpoints */
#define TESTD_NSTATS (sizeof(struct rpcrdma_ep_stats) / sizeof(uint64_t))
_Static_assert(sizeof(struct rpcrdma_ep_stats) % sizeof(uint64_t) == 0,
	       "rpcrdma_ep_stats is all uint64_t");

/* ---- the client ---- */

#define CALL_STATE_LIST(X)                                                                         \
	X(RESOLVE)	 /**< ARP for the server */                                                \
	X(CONNECT)	 /**< CM REQ with RFC 8797 private data (or none) */                       \
	X(CONNECTING)	 /**< waiting for ESTABLISHED */                                           \
	X(CALL)		 /**< start the next step */                                               \
	X(WAIT)		 /**< its replies */                                                       \
	X(DISCONNECT)	 /**< every step ran: DREQ */                                              \
	X(DISCONNECTING) /**< waiting for the DREP (DISCONNECTED), bounded */                      \
	X(DONE)		 /**< stopped */

#define CS_ENUM_(n) CS_##n,
enum call_state { CALL_STATE_LIST(CS_ENUM_) CS_NUM_STATES };

enum step_kind { K_NULL, K_ECHO, K_FILL, K_BURST };

struct step {
	const char *what;
	enum step_kind kind;
	uint32_t len;
	bool ddp_args;	    /**< the ECHO data by read chunk at its position */
	bool ddp_reply;	    /**< the results' data by write chunk */
	uint32_t reply_max; /**< 0: what the results need, plus room for the headers */
};

static const struct step steps[] = {
	{"NULL", K_NULL, 0, false, false, 0},
	{"ECHO of 0 bytes", K_ECHO, 0, false, false, 0},
	{"ECHO of 1 byte", K_ECHO, 1, false, false, 0},
	{"ECHO of 5 bytes", K_ECHO, 5, false, false, 0},
	{"ECHO of 3000 bytes", K_ECHO, 3000, false, false, 0},
	{"ECHO of 9000 bytes, reply_max 16384", K_ECHO, 9000, false, false, 16384},
	{"ECHO of 1 MiB, the data by read chunk, the reply by reply chunk", K_ECHO, TESTD_BIG, true,
	 false, TESTD_BIG + 64},
	{"FILL of 1 MiB, the data by write chunk", K_FILL, TESTD_BIG, false, true, 0},
	{"16 NULL calls, 4 in flight", K_BURST, TESTD_BURST, false, false, 0},
};
#define NSTEPS ((int)(sizeof(steps) / sizeof(steps[0])))

struct prepared {
	uint8_t *msg; /**< the whole call, its xid filled in when sent */
	uint32_t len;
	uint32_t ddp_off; /**< where the opaque's content starts */
};

struct result {
	bool done;
	int err;
	uint32_t xid, len;
	uint8_t *reply; /**< a copy (the endpoint's buffer is reused after the callback) */
};

static struct {
	const char *config;
	bool serve, no_priv;
	struct stk_ipaddr server;
	char server_str[64];
	uint16_t port;
	uint32_t inline_max;
	uint64_t hz;
	struct roce_dev *dev;
	struct roce_cm *cm;
	struct roce_pd *pd;
	volatile sig_atomic_t signo;
	/* server */
	struct orpc_svc svc;
	struct roce_cm_id *listen_id;
	struct srv_conn conns[TESTD_MAX_CONNS];
	unsigned accepted, rejected, closed;
	uint64_t sum[TESTD_NSTATS];
	uint64_t retransmits;
	/* client */
	struct roce_cm_id *id;
	struct rpcrdma_ep *ep;
	enum call_state state;
	uint64_t state_cnt[CS_NUM_STATES];
	uint64_t deadline, probe_at;
	int step, failures;
	bool finished;
	struct prepared calls[NSTEPS];
	uint8_t *fill; /**< what FILL returns */
	uint32_t xid;
	struct result res[TESTD_BURST];
	uint32_t sent, inflight, max_inflight;
	struct rpcrdma_ep_stats before; /**< the client's counters when the step started */
} g = {.port = RPCRDMA_NFS_PORT, .inline_max = 4096};

static void report(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void report(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!ok)
		g.failures++;
}

static void on_signal(int sig)
{
	g.signo = sig;
	stk_stop();
}

/* ======================================================================== the server */

static struct srv_conn *conn_of(const struct roce_cm_id *id)
{
	for (unsigned i = 0; i < TESTD_MAX_CONNS; i++)
		if (g.conns[i].ep && g.conns[i].id == id)
			return &g.conns[i];
	return NULL;
}

/* RFC 8797: the client's receive size is what we may send, and we receive what it sends */
static uint32_t mirror_inline(const struct roce_cm_event *ev, bool *priv)
{
	struct rpcrdma_cm_priv p;
	uint32_t n;

	rpcrdma_cm_priv_decode(ev->private_data, ev->private_data_len, &p);
	*priv = p.present;
	if (!p.present)
		return g.inline_max;
	n = p.max_recv < p.max_send ? p.max_recv : p.max_send;
	n = n < RPCRDMA_INLINE_MIN ? RPCRDMA_INLINE_MIN : n > 65536 ? 65536 : n;
	return n - n % 1024;
}

static void srv_request(const struct roce_cm_event *ev)
{
	struct roce_cm_conn_param p = {.retry_count = 7, .rnr_retry_count = 7};
	uint8_t priv[RPCRDMA_CM_PRIV_LEN];
	struct rpcrdma_ep_conf conf = {0};
	char a[64];
	struct srv_conn *c = NULL;
	bool client_priv;
	int rc;

	stk_ipaddr_str(&ev->id->remote_ip, a, sizeof(a));
	for (unsigned i = 0; i < TESTD_MAX_CONNS && !c; i++)
		if (!g.conns[i].ep)
			c = &g.conns[i];
	if (!c) {
		printf("# connection request from %s: %u connections already, rejected\n", a,
		       TESTD_MAX_CONNS);
		g.rejected++;
		roce_cm_reject(ev->id, NULL, 0);
		roce_cm_destroy_id(ev->id);
		return;
	}
	conf.inline_max = mirror_inline(ev, &client_priv);
	memset(c, 0, sizeof(*c));
	c->ep = rpcrdma_ep_create(g.dev, g.pd, RPCRDMA_SERVER, &conf, &g.svc);
	if (!c->ep) {
		printf("# connection request from %s: no endpoint (%s), rejected\n", a,
		       rte_strerror(rte_errno));
		g.rejected++;
		roce_cm_reject(ev->id, NULL, 0);
		roce_cm_destroy_id(ev->id);
		return;
	}
	c->id = ev->id;
	c->no = ++g.accepted;
	p.private_data = priv;
	p.private_data_len = rpcrdma_ep_private_data(c->ep, priv);
	rc = roce_cm_accept(c->id, rpcrdma_ep_qp(c->ep), &p);
	/* receives are posted once the QP has left RESET, before any call can arrive (one
	 * lcore: nothing is received between the accept and this) */
	if (rc == 0)
		rc = rpcrdma_ep_start(c->ep, ev->private_data, ev->private_data_len);
	if (rc != 0) {
		printf("# connection %u from %s: accept failed (%d)\n", c->no, a, rc);
		roce_cm_destroy_id(c->id);
		c->id = NULL;
		c->close_at = rte_get_tsc_cycles();
		return;
	}
	printf("# connection %u from %s: client private data %s, inline %u both ways\n", c->no, a,
	       client_priv ? "RFC 8797" : "none", conf.inline_max);
}

static void srv_sum(const struct srv_conn *c)
{
	const uint64_t *s = (const uint64_t *)rpcrdma_ep_stats(c->ep);
	struct roce_qp_stats qs;

	for (size_t i = 0; i < TESTD_NSTATS; i++)
		g.sum[i] += s[i];
	roce_qp_query_stats(rpcrdma_ep_qp(c->ep), &qs);
	g.retransmits += qs.retransmits;
}

/* @return true once the connection is gone; false while its regions are still busy */
static bool srv_close(struct srv_conn *c)
{
	const struct rpcrdma_ep_stats *st = rpcrdma_ep_stats(c->ep);

	if (!c->summed) {
		printf("# connection %u closed: %" PRIu64 " calls, %" PRIu64
		       " replies, long calls %" PRIu64 ", long replies %" PRIu64
		       ", RDMA READs %" PRIu64 ", WRITEs %" PRIu64 ", ERR_CHUNK sent %" PRIu64
		       ", RDMA errors %" PRIu64 "\n",
		       c->no, st->rx_msgs, st->tx_msgs, st->long_calls, st->long_replies,
		       st->ddp_reads, st->ddp_writes, st->err_chunk_sent, st->rdma_errors);
		srv_sum(c);
		if (c->id)
			roce_cm_destroy_id(c->id);
		c->id = NULL;
		c->summed = true;
		g.closed++;
	}
	if (rpcrdma_ep_destroy(c->ep) == -EBUSY)
		return false;
	memset(c, 0, sizeof(*c));
	return true;
}

static void srv_poll(struct stk_lcore *lc, void *arg)
{
	struct roce_cm_event ev;
	uint64_t now = rte_get_tsc_cycles();

	(void)lc, (void)arg;
	while (roce_cm_get_event(g.cm, &ev) == 0) {
		struct srv_conn *c;

		if (ev.event == ROCE_CM_EVENT_CONNECT_REQUEST) {
			srv_request(&ev);
			continue;
		}
		c = conn_of(ev.id);
		if (!c)
			continue; /* an identifier we already let go of */
		if (ev.event == ROCE_CM_EVENT_DISCONNECTED || ev.event == ROCE_CM_EVENT_REJECTED ||
		    ev.event == ROCE_CM_EVENT_UNREACHABLE) {
			if (ev.event != ROCE_CM_EVENT_DISCONNECTED)
				printf("# connection %u: %s\n", c->no, roce_cm_event_str(ev.event));
			roce_cm_destroy_id(c->id);
			c->id = NULL;
			/* the QP is in ERR: its flushed completions come in the next polls */
			c->close_at = now + g.hz / 20;
		}
	}
	for (unsigned i = 0; i < TESTD_MAX_CONNS; i++) {
		struct srv_conn *c = &g.conns[i];
		struct rpcrdma_ep_info info;

		if (!c->ep)
			continue;
		if (c->summed) { /* closed, waiting for its regions */
			srv_close(c);
			continue;
		}
		rpcrdma_ep_poll(c->ep);
		if (!c->id && now >= c->close_at) {
			srv_close(c);
			continue;
		}
		rpcrdma_ep_info(c->ep, &info);
		if (c->id && info.failed && !c->dreq_sent) {
			/* an RDMA READ or WRITE failed: the connection is over (RFC 8166 §4.5) */
			printf("# connection %u failed: disconnecting\n", c->no);
			c->dreq_sent = true;
			roce_cm_disconnect(c->id);
		}
	}
}

static int serve(void)
{
	static const char *const names[] = {"calls",	      "replies",	 "rx_drop",
					    "err_vers_sent",  "err_chunk_sent",	 "err_vers_rx",
					    "err_chunk_rx",   "credit_overrun",	 "long_calls",
					    "long_replies",   "ddp_reads",	 "ddp_writes",
					    "ddp_read_bytes", "ddp_write_bytes", "send_inv",
					    "remote_inv",     "frwr_regs",	 "local_invs",
					    "rdma_errors",    "flushed",	 "stray_replies"};
	int rc;

	orpc_svc_add(&g.svc, &orpc_test_program);
	orpc_svc_add(&g.svc, &orpc_test_sys_program);
	g.listen_id = roce_cm_create_id(g.cm, ROCE_CM_PS_TCP, NULL);
	if (!g.listen_id)
		return -rte_errno;
	rc = roce_cm_listen(g.listen_id, g.port, TESTD_MAX_CONNS);
	if (rc != 0) {
		fprintf(stderr, "rpcrdma_testd: listen on port %u: %s\n", g.port, strerror(-rc));
		return rc;
	}
	printf("listening on port %u, up to %u connections\n", g.port, TESTD_MAX_CONNS);
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), srv_poll, NULL);
	stk_run();
	for (unsigned i = 0; i < TESTD_MAX_CONNS; i++)
		for (int n = 0; g.conns[i].ep && !srv_close(&g.conns[i]) && n < 1000000; n++)
			stk_lcore_poll(stk_lcore_get(rte_get_main_lcore()));
	printf("# stopped by signal %d: %u connections accepted, %u rejected, %u closed\n",
	       (int)g.signo, g.accepted, g.rejected, g.closed);
	printf("counters: connections=%u", g.accepted);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		printf(" %s=%" PRIu64, names[i], g.sum[i]);
	printf(" qp_retransmits=%" PRIu64 " rpc_calls=%" PRIu64 " rpc_success=%" PRIu64 "\n",
	       g.retransmits, g.svc.stats.calls, g.svc.stats.outcome[ORPC_OUT_SUCCESS]);
	return 0;
}
/* the names above follow struct rpcrdma_ep_stats up to stray_replies */
_Static_assert(offsetof(struct rpcrdma_ep_stats, stray_replies) == 20 * sizeof(uint64_t),
	       "the counter names follow struct rpcrdma_ep_stats");

/* ======================================================================== the client */

static void set_state(enum call_state s)
{
	g.state = s;
	g.state_cnt[s]++;
}

static void on_reply(void *ctx, int err, const uint8_t *reply, uint32_t len)
{
	struct result *r = ctx;

	r->done = true;
	r->err = err;
	r->len = len;
	if (err || !len)
		return;
	r->reply = malloc(len);
	if (r->reply)
		memcpy(r->reply, reply, len);
	else
		r->err = -ENOMEM;
}

static uint8_t echo_byte(uint32_t i, uint32_t k)
{
	return (uint8_t)(i * 13u + k);
}

/*
 * Every step's call, encoded before connecting, and FILL's expected bytes: the work in the
 * poll loop stays small (the peer's transport waits for our ACKs while we compute).
 */
static int prepare(void)
{
	uint8_t *p;
	XDR x;

	g.fill = malloc(TESTD_BIG);
	if (!g.fill)
		return -ENOMEM;
	for (uint32_t i = 0; i < TESTD_BIG; i++)
		g.fill[i] = (uint8_t)((i * 7u + 3u) % 251u);
	for (int k = 0; k < NSTEPS; k++) {
		const struct step *s = &steps[k];
		uint32_t proc = s->kind == K_ECHO   ? ORPC_TEST_ECHO
				: s->kind == K_FILL ? ORPC_TEST_FILL
						    : 0;
		struct prepared *c = &g.calls[k];

		c->msg = p = malloc(s->len + 256);
		if (!p)
			return -ENOMEM;
		/* the xid is set when the call is sent */
		xdrmem_create(&x, (char *)p, s->len + 256, XDR_ENCODE);
		if (!orpc_call_encode(&x, 0, ORPC_TEST_PROG, 1, proc, NULL))
			return -E2BIG;
		c->ddp_off = xdr_getpos(&x) + 4;
		if (s->kind == K_ECHO) {
			struct orpc_test_blob b = {s->len, malloc(s->len + 1)};

			if (!b.data)
				return -ENOMEM;
			for (uint32_t i = 0; i < s->len; i++)
				b.data[i] = (char)echo_byte(i, (uint32_t)k);
			if (!orpc_test_xdr_blob(&x, &b)) {
				free(b.data);
				return -E2BIG;
			}
			free(b.data);
		} else if (s->kind == K_FILL) {
			u_int len = s->len;

			if (!xdr_u_int(&x, &len))
				return -E2BIG;
		}
		c->len = xdr_getpos(&x);
	}
	return 0;
}

static int send_one(const struct step *s, struct result *r)
{
	struct prepared *p = &g.calls[g.step];
	struct rpcrdma_call c = {.msg = p->msg, .len = p->len, .ddp_reply = s->ddp_reply};
	rte_be32_t xid = rte_cpu_to_be_32(g.xid);
	int rc;

	memset(r, 0, sizeof(*r));
	r->xid = g.xid;
	memcpy(p->msg, &xid, 4); /* the endpoint copies the call: the next may reuse it */
	if (s->ddp_args) {
		c.ddp_off = p->ddp_off;
		c.ddp_len = s->len;
	}
	/* room for the reply header and the results' length word and round-up */
	c.reply_max = s->reply_max ? s->reply_max : s->kind == K_ECHO ? s->len + 128 : 0;
	rc = rpcrdma_clnt_call(g.ep, &c, on_reply, r);
	if (rc == 0)
		g.xid++;
	return rc;
}

/* a reply: accepted, SUCCESS, our xid, and its results exactly what @p s must return */
static bool check_reply(const struct step *s, const struct result *r, char *why, size_t wn)
{
	struct orpc_reply_hdr h = {0};
	const uint8_t *d, *want;
	uint32_t off, n;

	if (r->err) {
		snprintf(why, wn, "error %d%s", r->err,
			 r->err == -EPROTO ? ": RDMA_ERROR from the server"
			 : r->err == -EIO  ? ": the connection failed"
					   : "");
		return false;
	}
	if (orpc_reply_decode(r->reply, r->len, &h, &off) != 0) {
		snprintf(why, wn, "the reply of %u bytes does not decode", r->len);
		return false;
	}
	if (h.xid != r->xid || h.denied || h.stat != SUCCESS) {
		snprintf(why, wn, "xid %#x (sent %#x), %s", h.xid, r->xid,
			 h.denied ? "denied" : orpc_accept_stat_name(h.stat));
		return false;
	}
	if (s->kind == K_NULL || s->kind == K_BURST) {
		if (off != r->len)
			snprintf(why, wn, "NULL results of %u bytes", r->len - off);
		return off == r->len;
	}
	/* opaque<>: length, the bytes, zero round-up, nothing after */
	if (r->len - off < 4) {
		snprintf(why, wn, "results of %u bytes", r->len - off);
		return false;
	}
	memcpy(&n, r->reply + off, 4);
	n = rte_be_to_cpu_32(n);
	d = r->reply + off + 4;
	if (n != s->len || r->len - off - 4 != n + ((4 - n % 4) % 4)) {
		snprintf(why, wn, "opaque of %u bytes in results of %u (expected %u)", n,
			 r->len - off, s->len);
		return false;
	}
	/* ECHO: the bytes of our call's opaque; FILL: byte i = (i * 7 + 3) mod 251 */
	want = s->kind == K_FILL ? g.fill : g.calls[g.step].msg + g.calls[g.step].ddp_off;
	if (memcmp(d, want, n) != 0) {
		uint32_t i = 0;

		while (d[i] == want[i])
			i++;
		snprintf(why, wn, "byte %u is %u, expected %u", i, d[i], want[i]);
		return false;
	}
	for (uint32_t i = n; i < n + (4 - n % 4) % 4; i++)
		if (d[i]) {
			snprintf(why, wn, "round-up byte %u is not zero", i - n);
			return false;
		}
	return true;
}

/* how the step went, from the client's counters, against what the inline sizes call for */
static void step_report(const struct step *s, bool ok, const char *why)
{
	const struct rpcrdma_ep_stats *st = rpcrdma_ep_stats(g.ep);
	uint64_t lc = st->long_calls - g.before.long_calls;
	uint64_t lr = st->long_replies - g.before.long_replies;
	struct rpcrdma_ep_info info;
	uint32_t call_len = 0, res_len = 0, send_max, recv_max;
	char how[160];
	int want_lc = -1, want_lr = -1; /* -1: too close to the limit to say */

	rpcrdma_ep_info(g.ep, &info);
	send_max = info.inline_send;
	/* the server sends at most what we announced we receive, 1024 bytes without private
	 * data (RFC 8797 §7), and never more than its own inline size, which mirrors ours */
	recv_max = g.no_priv ? RPCRDMA_INLINE_DEFAULT : info.inline_send;
	if (s->kind == K_ECHO) {
		call_len = s->ddp_args ? 64 : 64 + s->len; /* call header ~40, the length word */
		res_len = 32 + s->len;			   /* reply header 24, the length word */
	} else {
		call_len = 64;
		res_len = s->kind == K_FILL ? 32 : 24; /* FILL's data goes by write chunk */
	}
	if (call_len + 160 <= send_max)
		want_lc = 0;
	else if (call_len >= send_max)
		want_lc = 1;
	if (res_len + 160 <= recv_max)
		want_lr = 0;
	else if (res_len >= recv_max)
		want_lr = 1;
	snprintf(how, sizeof(how), "%s, %s%s",
		 lc	       ? "long call (position-zero read chunk)"
		 : s->ddp_args ? "call data by read chunk"
			       : "inline call",
		 lr		? "long reply (reply chunk)"
		 : s->ddp_reply ? "reply data by write chunk"
				: "inline reply",
		 s->kind == K_NULL || s->kind == K_BURST ? "" : ", byte for byte");
	if (ok && ((want_lc >= 0 && (uint64_t)want_lc != lc) ||
		   (want_lr >= 0 && (uint64_t)want_lr != lr))) {
		report(false,
		       "%s: %s, but inline send %u / receive %u call for a %s call, %s reply",
		       s->what, how, send_max, recv_max,
		       want_lc < 0 ? "either"
		       : want_lc   ? "long"
				   : "inline",
		       want_lr < 0 ? "either"
		       : want_lr   ? "long"
				   : "inline");
		return;
	}
	if (ok)
		report(true, "%s: %s", s->what, how);
	else
		report(false, "%s: %s", s->what, why);
}

static enum call_state step_resolve(struct stk_lcore *lc, uint64_t now)
{
	const struct stk_iface *ifc = stk_iface_get(0);
	const struct stk_neigh *n = stk_neigh_lookup(lc->neigh, ifc->idx, &g.server);

	if (n && n->state != STK_NEIGH_INCOMPLETE) {
		report(true, "ARP resolves %s", g.server_str);
		return CS_CONNECT;
	}
	if (now > g.deadline) {
		report(false, "ARP resolves %s (no answer in 10 s)", g.server_str);
		stk_stop();
		return CS_DONE;
	}
	if (now >= g.probe_at) {
		stk_neigh_probe(lc, ifc, &g.server);
		g.probe_at = now + g.hz / 5;
	}
	return CS_RESOLVE;
}

static enum call_state step_connect(uint64_t now)
{
	struct roce_cm_conn_param p = {.retry_count = 7, .rnr_retry_count = 7};
	struct rpcrdma_ep_conf conf = {
		.inline_max = g.inline_max, .no_private_data = g.no_priv, .slots = TESTD_SLOTS};
	uint8_t priv[RPCRDMA_CM_PRIV_LEN];
	int rc;

	g.ep = rpcrdma_ep_create(g.dev, g.pd, RPCRDMA_CLIENT, &conf, NULL);
	g.id = g.ep ? roce_cm_create_id(g.cm, ROCE_CM_PS_TCP, NULL) : NULL;
	if (!g.ep || !g.id) {
		report(false, "an RPC-over-RDMA client endpoint (%s)", rte_strerror(rte_errno));
		stk_stop();
		return CS_DONE;
	}
	p.private_data = priv;
	p.private_data_len = rpcrdma_ep_private_data(g.ep, priv);
	rc = roce_cm_connect(g.id, &g.server, g.port, rpcrdma_ep_qp(g.ep), &p);
	if (rc != 0) {
		report(false, "CM connect to %s:%u (%d)", g.server_str, g.port, rc);
		stk_stop();
		return CS_DONE;
	}
	g.deadline = now + 20 * g.hz;
	return CS_CONNECTING;
}

static enum call_state step_connecting(uint64_t now)
{
	struct rpcrdma_ep_info info;
	struct roce_cm_event ev;

	if (roce_cm_get_event(g.cm, &ev) != 0) {
		if (now <= g.deadline)
			return CS_CONNECTING;
		report(false, "connected to %s:%u (no answer in 20 s)", g.server_str, g.port);
		return CS_DISCONNECT;
	}
	if (ev.event != ROCE_CM_EVENT_ESTABLISHED) {
		report(false, "connected to %s:%u (%s, status %d)", g.server_str, g.port,
		       roce_cm_event_str(ev.event), ev.status);
		return CS_DISCONNECT;
	}
	if (rpcrdma_ep_start(g.ep, ev.private_data, ev.private_data_len) != 0) {
		report(false, "receives posted");
		return CS_DISCONNECT;
	}
	rpcrdma_ep_info(g.ep, &info);
	report(info.peer_priv && (g.no_priv || info.inline_send == g.inline_max),
	       "connected to %s:%u, %s private data; the server's: %s, inline send %u, receive %u",
	       g.server_str, g.port, g.no_priv ? "without" : "with RFC 8797",
	       info.peer_priv ? "RFC 8797" : "none", info.inline_send, info.inline_recv);
	return CS_CALL;
}

static enum call_state step_call(uint64_t now)
{
	const struct step *s = &steps[g.step];
	int rc;

	if (g.step == NSTEPS)
		return CS_DISCONNECT;
	g.before = *rpcrdma_ep_stats(g.ep);
	g.sent = g.inflight = g.max_inflight = 0;
	memset(g.res, 0, sizeof(g.res));
	g.deadline = now + 30 * g.hz;
	if (s->kind == K_BURST)
		return CS_WAIT; /* the calls start from the wait, as room allows */
	rc = send_one(s, &g.res[0]);
	if (rc != 0) {
		report(false, "%s: not sent (%d)", s->what, rc);
		g.step++;
		return CS_CALL;
	}
	g.sent = 1;
	return CS_WAIT;
}

static enum call_state step_wait(uint64_t now)
{
	const struct step *s = &steps[g.step];
	uint32_t n = s->kind == K_BURST ? TESTD_BURST : 1, done = 0;
	char why[160] = "";
	bool ok = true;

	if (s->kind == K_BURST) {
		/* as many in flight as the endpoint allows: its slots and the server's grant */
		while (g.sent < TESTD_BURST && rpcrdma_clnt_room(g.ep)) {
			int rc = send_one(s, &g.res[g.sent]);

			if (rc != 0) {
				snprintf(why, sizeof(why), "call %u not sent (%d)", g.sent, rc);
				g.res[g.sent].done = true;
				g.res[g.sent].err = rc;
			}
			g.sent++;
		}
	}
	for (uint32_t i = 0; i < g.sent; i++)
		done += g.res[i].done;
	if (g.sent - done > g.max_inflight)
		g.max_inflight = g.sent - done;
	if (done < n) {
		if (now <= g.deadline)
			return CS_WAIT;
		report(false, "%s: %u of %u replies in 30 s", s->what, done, n);
		return CS_DISCONNECT;
	}
	for (uint32_t i = 0; i < n && ok; i++)
		if (!check_reply(s, &g.res[i], why, sizeof(why))) {
			ok = false;
			if (n > 1) {
				size_t l = strlen(why);

				snprintf(why + l, sizeof(why) - l, " (call %u)", i);
			}
		}
	if (s->kind == K_BURST && ok && g.max_inflight != TESTD_SLOTS) {
		ok = false;
		snprintf(why, sizeof(why), "at most %u in flight, expected %u (the slots)",
			 g.max_inflight, TESTD_SLOTS);
	}
	if (s->kind == K_BURST && ok)
		printf("# %u calls, at most %u in flight\n", n, g.max_inflight);
	step_report(s, ok, why);
	for (uint32_t i = 0; i < n; i++)
		free(g.res[i].reply);
	memset(g.res, 0, sizeof(g.res));
	g.step++;
	return CS_CALL;
}

static enum call_state step_disconnecting(uint64_t now)
{
	struct roce_cm_event ev;

	while (roce_cm_get_event(g.cm, &ev) == 0)
		if (ev.event == ROCE_CM_EVENT_DISCONNECTED) {
			stk_stop();
			return CS_DONE;
		}
	if (now > g.deadline) {
		printf("# no DREP within 3 s\n");
		stk_stop();
		return CS_DONE;
	}
	return CS_DISCONNECTING;
}

static void call_poll(struct stk_lcore *lc, void *arg)
{
	enum call_state prev;
	uint64_t now = rte_get_tsc_cycles();

	(void)arg;
	if (g.ep)
		rpcrdma_ep_poll(g.ep);
	do {
		prev = g.state;
		switch (g.state) {
		case CS_RESOLVE:
			set_state(step_resolve(lc, now));
			break;
		case CS_CONNECT:
			set_state(step_connect(now));
			break;
		case CS_CONNECTING:
			set_state(step_connecting(now));
			break;
		case CS_CALL:
			set_state(step_call(now));
			break;
		case CS_WAIT:
			set_state(step_wait(now));
			break;
		case CS_DISCONNECT:
			g.finished = g.step == NSTEPS;
			g.deadline = now + 3 * g.hz;
			if (g.id && roce_cm_disconnect(g.id) == 0) {
				set_state(CS_DISCONNECTING);
			} else {
				stk_stop();
				set_state(CS_DONE);
			}
			break;
		case CS_DISCONNECTING:
			set_state(step_disconnecting(now));
			break;
		case CS_DONE:
		default:
			break;
		}
	} while (g.state != prev);
}

static int call(void)
{
	const struct rpcrdma_ep_stats *st;
	int rc = prepare();

	if (rc != 0)
		goto out;
	/* xids differ from one client process to the next, so a capture of several runs tells
	 * their calls apart */
	g.xid = (uint32_t)getpid() << 12;
	g.deadline = rte_get_tsc_cycles() + 10 * g.hz;
	set_state(CS_RESOLVE);
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), call_poll, NULL);
	stk_run();
	if (g.signo)
		report(false, "stopped by signal %d", (int)g.signo);
	if (g.ep) {
		st = rpcrdma_ep_stats(g.ep);
		printf("# client: %" PRIu64 " calls, %" PRIu64 " replies, long calls %" PRIu64
		       ", long replies %" PRIu64 ", RDMA errors %" PRIu64 ", ERR_CHUNK %" PRIu64
		       ", ERR_VERS %" PRIu64 ", stray replies %" PRIu64 ", dropped %" PRIu64
		       ", flushed %" PRIu64 "\n",
		       st->tx_msgs, st->rx_msgs, st->long_calls, st->long_replies, st->rdma_errors,
		       st->err_chunk_rx, st->err_vers_rx, st->stray_replies, st->rx_drop,
		       st->flushed);
		if (g.finished)
			report(!st->rdma_errors && !st->err_chunk_rx && !st->err_vers_rx &&
				       !st->stray_replies && !st->rx_drop,
			       "no RDMA error, no RDMA_ERROR, no stray or dropped reply");
	}
	if (g.id)
		roce_cm_destroy_id(g.id);
	for (int n = 0; g.ep && rpcrdma_ep_destroy(g.ep) == -EBUSY && n < 1000000; n++)
		stk_lcore_poll(stk_lcore_get(rte_get_main_lcore()));
out:
	for (int k = 0; k < NSTEPS; k++)
		free(g.calls[k].msg);
	free(g.fill);
	printf("%s: %d of %d steps ran, %d FAIL\n", g.finished && !g.failures ? "PASS" : "FAIL",
	       g.step, NSTEPS, g.failures);
	return rc ? rc : g.finished && !g.failures ? 0 : -EIO;
}

/* ======================================================================== main */

static int parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", 1, NULL, 'c'}, {"serve", 0, NULL, 's'},
		{"call", 1, NULL, 'C'},	  {"port", 1, NULL, 'p'},
		{"inline", 1, NULL, 'i'}, {"no-private-data", 0, NULL, 'n'},
		{NULL, 0, NULL, 0}};
	unsigned long v;
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			g.config = optarg;
			break;
		case 's':
			g.serve = true;
			break;
		case 'C':
			snprintf(g.server_str, sizeof(g.server_str), "%s", optarg);
			if (stk_ipaddr_parse(optarg, &g.server) != 0 || g.server.family != 4) {
				fprintf(stderr, "rpcrdma_testd: --call needs an IPv4 address\n");
				return -1;
			}
			break;
		case 'p':
			v = strtoul(optarg, NULL, 0);
			if (!v || v > 65535)
				return -1;
			g.port = (uint16_t)v;
			break;
		case 'i':
			v = strtoul(optarg, NULL, 0);
			if (v < 1024 || v > 65536 || v % 1024)
				return -1;
			g.inline_max = (uint32_t)v;
			break;
		case 'n':
			g.no_priv = true;
			break;
		default:
			return -1;
		}
	}
	if (!g.config || g.serve == !!g.server.family || optind != argc)
		return -1;
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
	if (parse(app_argc, app_argv) != 0) {
		fprintf(stderr, "usage: rpcrdma_testd [EAL --] --config FILE --serve [--port P] "
				"[--inline N]\n"
				"       rpcrdma_testd [EAL --] --config FILE --call IP [--port P] "
				"[--inline 1024..65536] [--no-private-data]\n");
		return 2;
	}
	stk_config_default(&cfg);
	if (stk_config_load(g.config, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "rpcrdma_testd: %s\n", err);
		return 2;
	}
	if (stk_eal_init(&cfg, argv[0], eal_argc, eal_argv) != 0) {
		fprintf(stderr, "rpcrdma_testd: EAL did not start\n");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (stk_setup(&cfg) != 0) {
		fprintf(stderr, "rpcrdma_testd: the stack did not start\n");
		goto out_eal;
	}
	g.hz = rte_get_tsc_hz();
	g.dev = roce_dev_open(0);
	g.cm = g.dev ? roce_cm_open(g.dev) : NULL;
	g.pd = g.dev ? roce_alloc_pd(g.dev) : NULL;
	if (!g.cm || !g.pd) {
		fprintf(stderr, "rpcrdma_testd: no device, CM or PD: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), roce_poll, g.dev);
	rc = g.serve ? serve() : call();
	rc = rc ? 1 : 0;
	/* let the last DREQ/DREP go out and the flushes drain */
	{
		struct stk_lcore *lc = stk_lcore_get(rte_get_main_lcore());
		uint64_t end = rte_get_tsc_cycles() + g.hz / 5;

		while (rte_get_tsc_cycles() < end)
			stk_lcore_poll(lc);
	}
out:
	if (g.listen_id)
		roce_cm_destroy_id(g.listen_id);
	if (g.cm && roce_cm_close(g.cm) != 0)
		fprintf(stderr, "rpcrdma_testd: the CM did not close cleanly\n");
	if (g.pd)
		roce_dealloc_pd(g.pd);
	stk_teardown();
	if (g.dev)
		roce_dev_close(g.dev);
out_eal:
	rte_eal_cleanup();
	return rc;
}
