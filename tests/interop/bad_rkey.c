/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bad_rkey - a raw verbs program for the interop lab's VM (Linux rxe, rdma-core 44): it
 * connects to droce with the RDMA CM, posts RDMA operations that droce's responder must refuse,
 * and reports each completion's status and how long it took. tests/interop/bad_rkey.sh builds
 * it on the host, copies it into the VM and runs it there against droce-ping.
 *
 * A responder that refuses an rkey, an address range or the rights answers with a NAK whose
 * AETH syndrome is "remote access error" (0x62; IBA vol. 1 ch. 9, the AETH NAK codes), and
 * the requester completes the work request with IBV_WC_REM_ACCESS_ERR at once. A responder
 * that drops the request instead leaves the requester to retransmit until its retry count
 * runs out: with the local ACK timeout T and retry count R that is (R + 1) * 4.096 us * 2^T,
 * 7.5 s for T = 18 and R = 6, and the status is IBV_WC_RETRY_EXC_ERR (rxe never gives up at
 * R = 7: its completer treats 7 as "retry forever", rxe_comp.c COMPST_ERROR_RETRY). So each
 * case checks the status and that it came well before the first retransmission (-T, default
 * 1000 ms).
 * The client's retry count is 6; as a server the QP takes the client's REQ's (droce-ping: 7).
 *
 * Usage:
 *   bad_rkey [-t T] [-T ms] [-w ms] client ADDR PORT CASE...
 *       connects to a droce-ping server (any rdma_cm listener that accepts an RC connection);
 *       cases: read-badkey, write-badkey: an RDMA READ / WRITE of 64 bytes with an rkey that
 *       the server never handed out.
 *   bad_rkey [-t T] [-T ms] [-w ms] server PORT CASE...
 *       listens for droce-ping clients (rping's protocol: the client's first SEND is the
 *       16-byte info of its start buffer: address, rkey and size, big-endian), then READs the
 *       whole buffer with that rkey (must succeed and start with "rdma-ping-0: "), then:
 *       read-flipkey: READ it again with one bit of the rkey flipped;
 *       write-oob:    WRITE 64 bytes starting 8 bytes before the buffer's end (valid rkey);
 *       read-oob:     READ 64 bytes starting 8 bytes before the buffer's end (valid rkey).
 * One connection per case: a remote access error moves both QPs to the error state.
 *   -t T   local ACK timeout exponent set with rdma_set_option (default 18)
 *   -T ms  the bound on the time to the error completion (default 1000)
 *   -w ms  how long to wait for any completion before giving up (default 20000)
 *
 * Output: "bad_rkey: ..." progress lines, and per case one line
 *   RESULT case=C op=OP status=NAME(N) elapsed_ms=E limit_ms=L retry_exc_ms=X timeout=T
 *          retry_cnt=R verdict=ok|FAIL
 * Exit status: 0 every case ok; 1 a case failed; 2 usage; 3 connection set-up failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define BUF_SIZE 65536
#define OP_LEN 64
#define BOGUS_RKEY 0x5a5a5a5aU
#define BOGUS_ADDR 0x10000ULL
#define CM_WAIT_MS 10000

/** rping's struct rping_rdma_info, as the client's SENDs carry it. */
struct ping_info {
	uint64_t buf;  /**< big-endian address */
	uint32_t rkey; /**< big-endian rkey */
	uint32_t size; /**< big-endian length */
} __attribute__((packed));
_Static_assert(sizeof(struct ping_info) == 16, "rping's info message is 16 bytes");

struct conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ping_info info; /**< received from the client (server mode), host order */
};

static struct {
	uint8_t timeout;
	double limit_ms;
	int wait_ms;
	struct rdma_event_channel *ech;
} g = {.timeout = 18, .limit_ms = 1000, .wait_ms = 20000};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const char *status_name(enum ibv_wc_status s)
{
	switch (s) {
	case IBV_WC_SUCCESS:
		return "SUCCESS";
	case IBV_WC_REM_ACCESS_ERR:
		return "REM_ACCESS_ERR";
	case IBV_WC_RETRY_EXC_ERR:
		return "RETRY_EXC_ERR";
	case IBV_WC_REM_INV_REQ_ERR:
		return "REM_INV_REQ_ERR";
	case IBV_WC_REM_OP_ERR:
		return "REM_OP_ERR";
	case IBV_WC_WR_FLUSH_ERR:
		return "WR_FLUSH_ERR";
	case IBV_WC_LOC_PROT_ERR:
		return "LOC_PROT_ERR";
	default:
		return "OTHER";
	}
}

/* The next CM event of the channel, bounded. @return 0 with *out set (ack it), or -1. */
static int next_event(int ms, struct rdma_cm_event **out)
{
	struct pollfd p = {.fd = g.ech->fd, .events = POLLIN};
	int rc = poll(&p, 1, ms);

	if (rc <= 0) {
		fprintf(stderr, "bad_rkey: no CM event within %d ms\n", ms);
		return -1;
	}
	if (rdma_get_cm_event(g.ech, out) != 0) {
		perror("bad_rkey: rdma_get_cm_event");
		return -1;
	}
	return 0;
}

/* Wait for event @want; any other event is an error. @return 0 or -1. */
static int expect_event(enum rdma_cm_event_type want, struct rdma_cm_event *copy)
{
	struct rdma_cm_event *ev;

	if (next_event(CM_WAIT_MS, &ev) != 0)
		return -1;
	if (copy)
		*copy = *ev;
	if (ev->event != want) {
		fprintf(stderr, "bad_rkey: CM event %s (status %d), expected %s\n",
			rdma_event_str(ev->event), ev->status, rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return -1;
	}
	rdma_ack_cm_event(ev);
	return 0;
}

/* PD, completion channel, CQ, RC QP and the local buffer on @c->id. @return 0 or -1. */
static int conn_setup(struct conn *c)
{
	struct ibv_qp_init_attr ia;

	c->pd = ibv_alloc_pd(c->id->verbs);
	c->ch = c->pd ? ibv_create_comp_channel(c->id->verbs) : NULL;
	c->cq = c->ch ? ibv_create_cq(c->id->verbs, 16, NULL, c->ch, 0) : NULL;
	if (!c->cq || ibv_req_notify_cq(c->cq, 0) != 0) {
		perror("bad_rkey: PD/channel/CQ");
		return -1;
	}
	c->buf = calloc(1, BUF_SIZE);
	c->mr = c->buf ? ibv_reg_mr(c->pd, c->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!c->mr) {
		perror("bad_rkey: ibv_reg_mr");
		return -1;
	}
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = c->cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 2;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	if (rdma_create_qp(c->id, c->pd, &ia) != 0) {
		perror("bad_rkey: rdma_create_qp");
		return -1;
	}
	/* the QP's local ACK timeout: what bounds the retransmissions of a dropped request */
	if (rdma_set_option(c->id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &g.timeout,
			    sizeof(g.timeout)) != 0) {
		perror("bad_rkey: rdma_set_option(ACK_TIMEOUT)");
		return -1;
	}
	return 0;
}

static void conn_free(struct conn *c)
{
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->ch)
		ibv_destroy_comp_channel(c->ch);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

/* The next completion, bounded by @ms. @return 0 with *wc set, or -1. */
static int wait_wc(struct conn *c, int ms, struct ibv_wc *wc)
{
	double end = now_ms() + ms;

	for (;;) {
		struct pollfd p = {.fd = c->ch->fd, .events = POLLIN};
		struct ibv_cq *cq;
		void *ctx;
		int n = ibv_poll_cq(c->cq, 1, wc);
		double left = end - now_ms();

		if (n < 0)
			return -1;
		if (n == 1)
			return 0;
		if (left <= 0)
			return -1;
		if (poll(&p, 1, (int)left + 1) <= 0)
			continue;
		if (ibv_get_cq_event(c->ch, &cq, &ctx) != 0)
			return -1;
		ibv_ack_cq_events(cq, 1);
		if (ibv_req_notify_cq(c->cq, 0) != 0)
			return -1;
	}
}

static int post_rdma(struct conn *c, enum ibv_wr_opcode op, uint64_t raddr, uint32_t rkey,
		     uint32_t len)
{
	struct ibv_sge sge = {.addr = (uintptr_t)c->buf, .length = len, .lkey = c->mr->lkey};
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(c->id->qp, &wr, &bad);
}

/* The QP's timeout and retry count as rxe has them, and what exhausting them takes. */
static void qp_timing(struct conn *c, int *timeout, int *retry, double *retry_exc_ms)
{
	/* (R + 1) * 4.096 us * 2^T; rxe retries forever at R = 7 (printed as "inf") */
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	*timeout = *retry = -1;
	*retry_exc_ms = 0;
	if (ibv_query_qp(c->id->qp, &a, IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT, &ia) != 0)
		return;
	*timeout = a.timeout;
	*retry = a.retry_cnt;
	*retry_exc_ms = a.retry_cnt == 7
				? INFINITY
				: (a.retry_cnt + 1) * 4.096e-3 * (double)(1ULL << a.timeout);
}

/*
 * Post one RDMA operation and check its completion: status @want, and, for an error, that it
 * came within the limit. Prints the RESULT line. @return 0 when it is as expected.
 */
static int run_op(struct conn *c, const char *name, enum ibv_wr_opcode op, uint64_t raddr,
		  uint32_t rkey, uint32_t len, enum ibv_wc_status want)
{
	struct ibv_wc wc;
	double t0, el, rexc;
	int tmo, retry;
	bool ok;

	qp_timing(c, &tmo, &retry, &rexc);
	printf("bad_rkey: %s: RDMA %s of %u bytes at 0x%" PRIx64 " rkey 0x%08x\n", name,
	       op == IBV_WR_RDMA_READ ? "READ" : "WRITE", len, raddr, rkey);
	fflush(stdout);
	t0 = now_ms();
	if (post_rdma(c, op, raddr, rkey, len) != 0) {
		perror("bad_rkey: ibv_post_send");
		return -1;
	}
	if (wait_wc(c, g.wait_ms, &wc) != 0) {
		printf("RESULT case=%s op=%s status=NONE elapsed_ms=%.1f limit_ms=%.0f "
		       "retry_exc_ms=%.0f timeout=%d retry_cnt=%d verdict=FAIL\n",
		       name, op == IBV_WR_RDMA_READ ? "READ" : "WRITE", now_ms() - t0, g.limit_ms,
		       rexc, tmo, retry);
		return -1;
	}
	el = now_ms() - t0;
	ok = wc.status == want && (want == IBV_WC_SUCCESS || el < g.limit_ms);
	printf("RESULT case=%s op=%s status=%s(%d) vendor_err=0x%x elapsed_ms=%.1f limit_ms=%.0f "
	       "retry_exc_ms=%.0f timeout=%d retry_cnt=%d verdict=%s\n",
	       name, op == IBV_WR_RDMA_READ ? "READ" : "WRITE", status_name(wc.status),
	       (int)wc.status, wc.vendor_err, el, g.limit_ms, rexc, tmo, retry, ok ? "ok" : "FAIL");
	fflush(stdout);
	return ok ? 0 : -1;
}

/* DREQ and a bounded wait for DISCONNECTED (the QP is in ERR already; that is fine). */
static void disconnect(struct conn *c)
{
	if (rdma_disconnect(c->id) != 0)
		perror("bad_rkey: rdma_disconnect");
	else if (expect_event(RDMA_CM_EVENT_DISCONNECTED, NULL) == 0)
		printf("bad_rkey: disconnected\n");
}

static void conn_param(struct rdma_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->responder_resources = 1;
	p->initiator_depth = 1;
	p->retry_count = 6; /* finite in rxe (see above); only the active side's counts */
	p->rnr_retry_count = 7;
}

/* ------------------------------------------------------------------ client mode */

static int client_case(const struct addrinfo *ai, const char *name)
{
	struct rdma_conn_param p;
	struct conn c;
	enum ibv_wr_opcode op;
	int rc = 3;

	if (!strcmp(name, "read-badkey"))
		op = IBV_WR_RDMA_READ;
	else if (!strcmp(name, "write-badkey"))
		op = IBV_WR_RDMA_WRITE;
	else {
		fprintf(stderr, "bad_rkey: unknown client case %s\n", name);
		return 2;
	}
	memset(&c, 0, sizeof(c));
	if (rdma_create_id(g.ech, &c.id, NULL, RDMA_PS_TCP) != 0) {
		perror("bad_rkey: rdma_create_id");
		return 3;
	}
	if (rdma_resolve_addr(c.id, NULL, ai->ai_addr, 2000) != 0 ||
	    expect_event(RDMA_CM_EVENT_ADDR_RESOLVED, NULL) != 0 ||
	    rdma_resolve_route(c.id, 2000) != 0 ||
	    expect_event(RDMA_CM_EVENT_ROUTE_RESOLVED, NULL) != 0 || conn_setup(&c) != 0)
		goto out;
	conn_param(&p);
	if (rdma_connect(c.id, &p) != 0) {
		perror("bad_rkey: rdma_connect");
		goto out;
	}
	if (expect_event(RDMA_CM_EVENT_ESTABLISHED, NULL) != 0)
		goto out;
	printf("bad_rkey: %s: connected, local QPN 0x%06x\n", name, c.id->qp->qp_num);
	rc = run_op(&c, name, op, BOGUS_ADDR, BOGUS_RKEY, OP_LEN, IBV_WC_REM_ACCESS_ERR) ? 1 : 0;
	disconnect(&c);
out:
	conn_free(&c);
	return rc;
}

/* ------------------------------------------------------------------ server mode */

static int server_case(struct rdma_cm_id *listen, const char *name)
{
	struct rdma_conn_param p;
	struct rdma_cm_event ev;
	struct ibv_recv_wr rwr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct conn c;
	int rc = 3;
	(void)listen;

	if (strcmp(name, "read-flipkey") && strcmp(name, "write-oob") && strcmp(name, "read-oob")) {
		fprintf(stderr, "bad_rkey: unknown server case %s\n", name);
		return 2;
	}
	memset(&c, 0, sizeof(c));
	printf("bad_rkey: %s: waiting for a client\n", name);
	fflush(stdout);
	if (expect_event(RDMA_CM_EVENT_CONNECT_REQUEST, &ev) != 0)
		return 3;
	c.id = ev.id;
	if (conn_setup(&c) != 0)
		goto out;
	/* the client's info lands at the start of our buffer */
	sge = (struct ibv_sge){.addr = (uintptr_t)c.buf, .length = 16, .lkey = c.mr->lkey};
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	if (ibv_post_recv(c.id->qp, &rwr, &bad) != 0) {
		perror("bad_rkey: ibv_post_recv");
		goto out;
	}
	conn_param(&p);
	if (rdma_accept(c.id, &p) != 0) {
		perror("bad_rkey: rdma_accept");
		goto out;
	}
	if (expect_event(RDMA_CM_EVENT_ESTABLISHED, NULL) != 0)
		goto out;
	if (wait_wc(&c, CM_WAIT_MS, &wc) != 0 || wc.status != IBV_WC_SUCCESS ||
	    wc.opcode != IBV_WC_RECV || wc.byte_len != 16) {
		fprintf(stderr, "bad_rkey: no 16-byte info from the client\n");
		goto disc; /* connected: a DREQ lets the peer (and the CM's QPN table) move on */
	}
	memcpy(&c.info, c.buf, sizeof(c.info));
	c.info.buf = be64toh(c.info.buf);
	c.info.rkey = be32toh(c.info.rkey);
	c.info.size = be32toh(c.info.size);
	printf("bad_rkey: %s: connected, local QPN 0x%06x; the client's buffer: 0x%" PRIx64
	       " rkey 0x%08x size %u\n",
	       name, c.id->qp->qp_num, c.info.buf, c.info.rkey, c.info.size);
	rc = 1;
	if (c.info.size < OP_LEN || c.info.size > BUF_SIZE) {
		fprintf(stderr, "bad_rkey: a client buffer of %u bytes is no use\n", c.info.size);
		goto disc;
	}
	/* the key and the range are right: this READ must work */
	memset(c.buf, 0, BUF_SIZE);
	if (run_op(&c, "valid-read", IBV_WR_RDMA_READ, c.info.buf, c.info.rkey, c.info.size,
		   IBV_WC_SUCCESS) != 0)
		goto disc;
	if (strncmp((char *)c.buf, "rdma-ping-0: ", 13) != 0) {
		printf("bad_rkey: the valid READ brought \"%.20s\", not rping's first ping\n",
		       (char *)c.buf);
		goto disc;
	}
	printf("bad_rkey: the valid READ brought \"%.40s...\"\n", (char *)c.buf);
	if (!strcmp(name, "read-flipkey"))
		rc = run_op(&c, name, IBV_WR_RDMA_READ, c.info.buf, c.info.rkey ^ 0x100, OP_LEN,
			    IBV_WC_REM_ACCESS_ERR);
	else
		rc = run_op(
			&c, name, !strcmp(name, "write-oob") ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ,
			c.info.buf + c.info.size - 8, c.info.rkey, OP_LEN, IBV_WC_REM_ACCESS_ERR);
	rc = rc ? 1 : 0;
disc:
	disconnect(&c);
out:
	conn_free(&c);
	return rc;
}

static void usage(void)
{
	fprintf(stderr, "usage: bad_rkey [-t timeout] [-T limit_ms] [-w wait_ms] client ADDR PORT "
			"read-badkey|write-badkey...\n"
			"       bad_rkey [-t timeout] [-T limit_ms] [-w wait_ms] server PORT "
			"read-flipkey|write-oob|read-oob...\n");
}

int main(int argc, char **argv)
{
	struct rdma_cm_id *listen = NULL;
	int opt, rc = 0, i, r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "t:T:w:")) != -1) {
		switch (opt) {
		case 't':
			g.timeout = (uint8_t)atoi(optarg);
			break;
		case 'T':
			g.limit_ms = atof(optarg);
			break;
		case 'w':
			g.wait_ms = atoi(optarg);
			break;
		default:
			usage();
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 3 || (strcmp(argv[0], "client") && strcmp(argv[0], "server")) ||
	    (!strcmp(argv[0], "client") && argc < 4)) {
		usage();
		return 2;
	}
	g.ech = rdma_create_event_channel();
	if (!g.ech) {
		perror("bad_rkey: rdma_create_event_channel");
		return 3;
	}
	if (!strcmp(argv[0], "client")) {
		struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *ai;

		if (getaddrinfo(argv[1], argv[2], &hints, &ai) != 0) {
			fprintf(stderr, "bad_rkey: cannot resolve %s:%s\n", argv[1], argv[2]);
			return 2;
		}
		for (i = 3; i < argc; i++) {
			r = client_case(ai, argv[i]);
			rc = r > rc ? r : rc;
		}
		freeaddrinfo(ai);
	} else {
		struct sockaddr_in sin = {.sin_family = AF_INET,
					  .sin_port = htons((uint16_t)atoi(argv[1]))};

		if (rdma_create_id(g.ech, &listen, NULL, RDMA_PS_TCP) != 0 ||
		    rdma_bind_addr(listen, (struct sockaddr *)&sin) != 0 ||
		    rdma_listen(listen, 4)) {
			perror("bad_rkey: listen");
			return 3;
		}
		printf("bad_rkey: listening on port %s\n", argv[1]);
		for (i = 2; i < argc; i++) {
			r = server_case(listen, argv[i]);
			rc = r > rc ? r : rc;
		}
		rdma_destroy_id(listen);
	}
	rdma_destroy_event_channel(g.ech);
	return rc;
}
