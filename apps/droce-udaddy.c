/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-udaddy - rdma-core's udaddy (librdmacm/examples/udaddy.c) on droce: UD QPs whose
 * peers are found through the RDMA CM's service ID resolution (SIDR_REQ/SIDR_REP, IBA 12.11;
 * roce/roce_cm_sidr.c), then datagrams each way. Either end can be udaddy on Linux.
 *
 * Usage: droce-udaddy [EAL args --] [--config FILE] [-s server_address] [-b bind_address]
 *        [-f address_format] [-P port_space] [-c connections] [-C message_count]
 *        [-S message_size] [-t type_of_service] [-p port_space]
 * Without -s it is the server. Defaults as the original's: -c 1, -C 10, -S 100; the port is
 * always 7174 (udaddy's -p is the port space, kept for backwards compatibility).
 *
 * The protocol, as udaddy.c runs it:
 * - Each node has a PD, one CQ of 2 * message_count entries, a UD QP of message_count send
 *   and receive WRs (sends unsignalled unless asked) and one buffer of message_size + 40
 *   bytes: receives land behind the 40-byte GRH area (struct ibv_grh), sends go from the
 *   buffer's start.
 * - The UDP port space: the CM gives the QP the Q_Key librdmacm uses, RDMA_UDP_QKEY
 *   0x01234567, and SIDR_REP carries it with the QPN.
 * - Client: for each node, resolve, then post message_count receives and rdma_connect() (a
 *   SIDR_REQ). ESTABLISHED (the SIDR_REP) gives the server's QPN and Q_Key and an address
 *   handle. Then message_count SEND_WITH_IMMs per node, unsignalled, the immediate data the
 *   client QP's number; then it waits for message_count replies per node.
 * - Server: each SIDR request takes the next node, which gets its QP, posts its receives and
 *   is accepted (SIDR_REP with its QPN). When all -c are accepted it waits for message_count
 *   datagrams per node; the first one's GRH area and immediate data give the reply's address
 *   handle (ibv_create_ah_from_wc) and QPN, its own Q_Key the reply's. Then message_count
 *   signalled replies per node, and their completions.
 * - The GRH area: RoCEv2 carries no GRH, so droce's receiver synthesizes it as rdma-core's
 *   providers do (for IPv4: 20 zero bytes, then the IPv4 header; for IPv6 the IPv6 header),
 *   and this tool's server reads the peer's address from it, as ibv_create_ah_from_wc() does.
 * - A message_size larger than the active MTU: "udaddy: message_size %d is larger than active
 *   mtu %d", -EINVAL.
 * - Output on stdout, as the original's: "udaddy: starting server|client", "udaddy:
 *   connecting", "initiating data transfers", "receiving data transfers", "sending replies",
 *   "data transfers complete", "test complete", "return status %d"; a failed resolution:
 *   "udaddy: event: RDMA_CM_EVENT_UNREACHABLE, error: <status>"; the return status is also the
 *   exit status (mod 256); a bad option: the usage, exit 1.
 *
 * Where droce knowingly differs: -t is accepted and not applied; -P ipoib and -f gid are
 * refused; a completion in error fails the run; the client gives up a resolution after 20 s
 * (UNREACHABLE -110) and waits for replies at most 20 s (the original waits forever: a lost
 * datagram hangs it); SIGINT/SIGTERM end with 128+N; droce's own failures (no configuration,
 * the stack did not start) exit 22/19.
 *
 * Threads: one lcore runs the stack, the device, the CM and the phases below as a poll hook.
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "app_start.h"
#include "stk_stack.h"

#define UD_PORT 7174
#define UD_BACKLOG 4096
#define UD_RESOLVE_MS 20000 /* the client's bound on SIDR_REQ to SIDR_REP */
#define UD_REPLY_MS 20000   /* the client's bound on the replies (a datagram may be lost) */
#define UD_LINGER_MS 300
#define UD_WC_BATCH 8
#define UD_HDR_ROOM (40 + 8 + 12 + 28 + 4) /* as roce_dev_open() sizes the path MTU */

/* X(name, comment): the run's phases, in order (STYLE 4) */
#define UD_PHASE_LIST(X)                                                                           \
	X(CONNECT, "until every node is resolved (client) or accepted (server), or one failed")    \
	X(SEND, "client: post each node's datagrams")                                              \
	X(RECV, "wait for message_count datagrams on each node")                                   \
	X(REPLY, "server: post each node's replies")                                               \
	X(REPLY_COMP, "server: wait for the replies' completions")                                 \
	X(DESTROY, "destroy the nodes; the last frames leave")                                     \
	X(DONE, "stopped")

#define UD_PH_ENUM_(n, c) PH_##n,
enum ud_phase { UD_PHASE_LIST(UD_PH_ENUM_) PH_NUM_STATES };
#undef UD_PH_ENUM_

/** One UD endpoint (udaddy's struct cmatest_node). */
struct ud_node {
	int id;
	struct roce_cm_id *cma_id;
	bool connected;
	struct roce_cq *cq;
	struct roce_qp *qp;
	struct roce_mr *mr;
	struct roce_ah *ah;
	uint32_t remote_qpn, remote_qkey;
	uint8_t *mem; /**< ROCE_GRH_LEN + message_size */
	int done;     /**< completions taken in this phase */
};

static struct {
	struct app_start app;
	int connections, message_count, message_size;
	const char *dst_arg, *src_arg;
	struct stk_ipaddr dst, src;
	struct ud_node *nodes;
	int conn_index, connects_left;
	struct roce_cm_id *listen_id;
	enum ud_phase phase;
	uint64_t phase_cnt[PH_NUM_STATES];
	int ret;
	bool destroyed;
	uint64_t until;
	volatile sig_atomic_t signo;
} g = {
	.connections = 1,
	.message_count = 10,
	.message_size = 100,
};

static bool is_server(void)
{
	return g.dst_arg == NULL;
}

static void set_phase(enum ud_phase p)
{
	if (g.phase != p)
		g.phase_cnt[p]++;
	g.phase = p;
}

static void end_with(int ret)
{
	if (!g.ret)
		g.ret = ret;
}

/* ------------------------------------------------------------------ nodes */

/* verify_test_params(): the message must fit the active MTU. @return 0 or -EINVAL. */
static int verify_test_params(void)
{
	uint16_t ip_mtu = stk_iface_get(g.app.iface)->mtu;
	int mtu = 4096;

	while (mtu > 256 && mtu > ip_mtu - UD_HDR_ROOM)
		mtu >>= 1;
	if (g.message_count && g.message_size > mtu) {
		printf("udaddy: message_size %d is larger than active mtu %d\n", g.message_size,
		       mtu);
		return -EINVAL;
	}
	return 0;
}

static int init_node(struct ud_node *n)
{
	struct roce_qp_init_attr ia;
	uint32_t wrs = g.message_count ? (uint32_t)g.message_count : 1;
	size_t len = (size_t)g.message_size + ROCE_GRH_LEN;

	n->cq = roce_create_cq(g.app.dev, 2 * wrs);
	if (!n->cq) {
		printf("udaddy: unable to create CQ\n");
		return -ENOMEM;
	}
	memset(&ia, 0, sizeof(ia));
	ia.cap.max_send_wr = ia.cap.max_recv_wr = wrs;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	ia.qp_type = ROCE_QPT_UD;
	ia.send_cq = ia.recv_cq = n->cq;
	n->qp = roce_create_qp(g.app.pd, &ia);
	if (!n->qp) {
		fprintf(stderr, "udaddy: unable to create QP: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (!g.message_count)
		return 0;
	n->mem = rte_zmalloc("ud_msg", len, 0);
	n->mr = n->mem ? roce_reg_mr(g.app.pd, n->mem, len, (uintptr_t)n->mem,
				     ROCE_ACCESS_LOCAL_WRITE)
		       : NULL;
	if (!n->mr) {
		printf("failed to reg MR\n");
		printf("udaddy: failed to create messages: %d\n", -1);
		return -ENOMEM;
	}
	return 0;
}

static void destroy_node(struct ud_node *n)
{
	struct roce_wc wc[UD_WC_BATCH];

	if (n->ah)
		roce_destroy_ah(n->ah);
	if (n->cma_id)
		roce_cm_destroy_id(n->cma_id);
	if (n->cq)
		while (roce_poll_cq(n->cq, UD_WC_BATCH, wc) > 0)
			;
	if (n->qp)
		roce_destroy_qp(n->qp);
	if (n->cq)
		roce_destroy_cq(n->cq);
	if (n->mr && roce_dereg_mr(n->mr) == -EBUSY)
		fprintf(stderr,
			"droce-udaddy: node %d: a frame still points into its buffer; "
			"the buffer is left allocated\n",
			n->id);
	else
		rte_free(n->mem);
	memset(n, 0, sizeof(*n));
}

static int post_recvs(struct ud_node *n)
{
	struct roce_sge sge;
	struct roce_recv_wr wr = {.wr_id = (uintptr_t)n, .sg_list = &sge, .num_sge = 1}, *bad;
	int rc = 0;

	if (!g.message_count)
		return 0;
	sge.addr = (uintptr_t)n->mem;
	sge.length = (uint32_t)g.message_size + ROCE_GRH_LEN;
	sge.lkey = n->mr->lkey;
	for (int i = 0; i < g.message_count && !rc; i++) {
		rc = roce_post_recv(n->qp, &wr, &bad);
		if (rc)
			printf("failed to post receives: %d\n", rc);
	}
	return rc;
}

static int post_sends(struct ud_node *n, uint32_t flags)
{
	struct roce_sge sge;
	struct roce_send_wr wr, *bad;
	int rc = 0;

	if (!n->connected || !g.message_count)
		return 0;
	sge.addr = (uintptr_t)n->mem;
	sge.length = (uint32_t)g.message_size;
	sge.lkey = n->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uintptr_t)n;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = ROCE_WR_SEND_WITH_IMM;
	wr.send_flags = flags;
	wr.imm_data = rte_cpu_to_be_32(roce_qp_num(n->qp));
	wr.wr.ud.ah = n->ah;
	wr.wr.ud.remote_qpn = n->remote_qpn;
	wr.wr.ud.remote_qkey = n->remote_qkey;
	for (int i = 0; i < g.message_count && !rc; i++) {
		rc = roce_post_send(n->qp, &wr, &bad);
		if (rc)
			printf("failed to post sends: %d\n", rc);
	}
	return rc;
}

/*
 * ibv_create_ah_from_wc() for RoCEv2: the sender's address from the GRH area the receiver
 * synthesized (IPv4: its header in the area's last 20 bytes; IPv6: the whole area), the QPN
 * from the immediate data, the Q_Key our own. @return 0 or -1.
 */
static int create_reply_ah(struct ud_node *n, const struct roce_wc *wc)
{
	const uint8_t *grh = n->mem;
	struct roce_path path;
	struct roce_qp_attr a;
	struct roce_qp_init_attr ia;

	if (!(wc->wc_flags & ROCE_WC_GRH) || !(wc->wc_flags & ROCE_WC_WITH_IMM))
		return -1;
	memset(&path, 0, sizeof(path));
	if ((grh[20] >> 4) == 4) {
		path.dgid_ip.family = 4;
		memcpy(&path.dgid_ip.v4, grh + 20 + 12, 4); /* the IPv4 source address */
	} else if ((grh[0] >> 4) == 6) {
		path.dgid_ip.family = 6;
		memcpy(path.dgid_ip.v6, grh + 8, 16); /* the IPv6 source address */
	} else {
		return -1;
	}
	n->ah = roce_create_ah(g.app.pd, &path);
	if (!n->ah || roce_query_qp(n->qp, &a, &ia) != 0)
		return -1;
	n->remote_qpn = rte_be_to_cpu_32(wc->imm_data);
	n->remote_qkey = a.qkey;
	return 0;
}

/* poll_cqs() without blocking: @return 1 when every connected node has message_count
 * completions, 0 while some wait, -1 on an error (said). */
static int poll_cqs(void)
{
	struct roce_wc wc[UD_WC_BATCH];
	int waiting = 0;

	for (int i = 0; i < g.connections; i++) {
		struct ud_node *n = &g.nodes[i];

		if (!n->connected || n->done >= g.message_count)
			continue;
		int got = roce_poll_cq(n->cq, UD_WC_BATCH, wc);

		for (int k = 0; k < got; k++) {
			if (wc[k].status != ROCE_WC_SUCCESS) {
				printf("udaddy: failed polling CQ: %d\n", -1);
				fprintf(stderr, "droce-udaddy: node %d: completion %s\n", n->id,
					roce_wc_status_str(wc[k].status));
				return -1;
			}
		}
		if (got && !n->ah && create_reply_ah(n, &wc[0]) != 0) {
			printf("udaddy: failed to create reply AH\n");
			return -1;
		}
		n->done += got;
		if (n->done < g.message_count)
			waiting++;
	}
	return waiting == 0;
}

static void reset_done(void)
{
	for (int i = 0; i < g.connections; i++)
		g.nodes[i].done = 0;
}

/* ------------------------------------------------------------------ CM events */

/* connect_handler(): a SIDR_REQ takes the next node. */
static int on_connect_request(struct roce_cm_id *id)
{
	struct roce_cm_conn_param p;
	struct ud_node *n;
	int rc;

	if (g.conn_index == g.connections) {
		rc = -ENOMEM;
		goto err1;
	}
	n = &g.nodes[g.conn_index++];
	n->cma_id = id;
	id->context = n;
	rc = verify_test_params();
	if (!rc)
		rc = init_node(n);
	if (rc)
		goto err2;
	memset(&p, 0, sizeof(p));
	p.qp_num = roce_qp_num(n->qp);
	rc = roce_cm_accept(id, n->qp, &p);
	if (rc) {
		fprintf(stderr, "udaddy: failure accepting: %s\n", strerror(-rc));
		goto err2;
	}
	/* the QP is in RTS now; the client sends only after the SIDR_REP (one lcore) */
	rc = post_recvs(n);
	if (rc)
		goto err2;
	n->connected = true;
	g.connects_left--;
	return 0;
err2:
	n->cma_id = NULL;
	destroy_node(n);
	g.connects_left--;
err1:
	printf("udaddy: failing connection request\n");
	roce_cm_reject(id, NULL, 0);
	roce_cm_destroy_id(id);
	return rc;
}

/* resolved_handler(): the server's QPN and Q_Key, an address handle to it. */
static int on_resolved(struct ud_node *n, const struct roce_cm_event *ev)
{
	struct roce_path path;

	memset(&path, 0, sizeof(path));
	path.dgid_ip = g.dst;
	n->remote_qpn = ev->qp_num;
	n->remote_qkey = ev->qkey;
	n->ah = roce_create_ah(g.app.pd, &path);
	g.connects_left--;
	if (!n->ah) {
		printf("udaddy: failure creating address handle\n");
		return -1;
	}
	n->connected = true;
	return 0;
}

static int on_cm_event(const struct roce_cm_event *ev)
{
	struct ud_node *n = ev->id->context;

	switch (ev->event) {
	case ROCE_CM_EVENT_CONNECT_REQUEST:
		return on_connect_request(ev->id);
	case ROCE_CM_EVENT_ESTABLISHED:
		return n ? on_resolved(n, ev) : 0;
	case ROCE_CM_EVENT_UNREACHABLE:
	case ROCE_CM_EVENT_REJECTED:
		printf("udaddy: event: RDMA_CM_EVENT_%s, error: %d\n", roce_cm_event_str(ev->event),
		       ev->status);
		g.connects_left--;
		return ev->status;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------ phases */

static enum ud_phase step_connect(int ev_ret, uint64_t now)
{
	if (ev_ret) {
		end_with(ev_ret);
		return PH_DESTROY;
	}
	if (g.connects_left > 0 && now < g.until)
		return PH_CONNECT;
	if (g.connects_left > 0) {
		printf("udaddy: event: RDMA_CM_EVENT_UNREACHABLE, error: %d\n", -ETIMEDOUT);
		end_with(-ETIMEDOUT);
		return PH_DESTROY;
	}
	if (!g.message_count)
		return PH_DESTROY;
	reset_done();
	if (is_server()) {
		printf("receiving data transfers\n");
		return PH_RECV;
	}
	printf("initiating data transfers\n");
	return PH_SEND;
}

static enum ud_phase step_send(uint64_t now)
{
	for (int i = 0; i < g.connections; i++) {
		if (post_sends(&g.nodes[i], 0)) {
			end_with(-1);
			return PH_DESTROY;
		}
	}
	printf("receiving data transfers\n");
	g.until = now + app_ms(&g.app, UD_REPLY_MS);
	return PH_RECV;
}

static enum ud_phase step_recv(uint64_t now)
{
	int rc = poll_cqs();

	if (rc < 0) {
		end_with(-1);
		return PH_DESTROY;
	}
	if (!rc) {
		if (is_server() || now < g.until)
			return PH_RECV;
		fprintf(stderr, "droce-udaddy: not every reply arrived within %d s\n",
			UD_REPLY_MS / 1000);
		end_with(-ETIMEDOUT);
		return PH_DESTROY;
	}
	if (!is_server()) {
		printf("data transfers complete\n");
		return PH_DESTROY;
	}
	printf("sending replies\n");
	return PH_REPLY;
}

static enum ud_phase step_reply(void)
{
	for (int i = 0; i < g.connections; i++) {
		if (post_sends(&g.nodes[i], ROCE_SEND_SIGNALED)) {
			end_with(-1);
			return PH_DESTROY;
		}
	}
	reset_done();
	return PH_REPLY_COMP;
}

static enum ud_phase step_reply_comp(void)
{
	int rc = poll_cqs();

	if (rc < 0) {
		end_with(-1);
		return PH_DESTROY;
	}
	if (!rc)
		return PH_REPLY_COMP;
	printf("data transfers complete\n");
	return PH_DESTROY;
}

static enum ud_phase step_destroy(uint64_t now)
{
	if (!g.destroyed) {
		if (g.listen_id)
			roce_cm_destroy_id(g.listen_id);
		g.listen_id = NULL;
		g.destroyed = true;
		g.until = now + app_ms(&g.app, UD_LINGER_MS);
	}
	if (now < g.until)
		return PH_DESTROY; /* the last datagrams leave before their buffers go */
	printf("test complete\n");
	for (int i = 0; i < g.connections; i++)
		destroy_node(&g.nodes[i]);
	stk_stop();
	return PH_DONE;
}

static void ud_poll(struct stk_lcore *lc, void *arg)
{
	struct roce_cm_event ev;
	uint64_t now = rte_get_tsc_cycles();
	enum ud_phase prev;
	int ev_ret = 0;
	(void)lc;
	(void)arg;

	if (g.signo) {
		stk_stop();
		return;
	}
	while (roce_cm_get_event(g.app.cm, &ev) == 0) {
		int r = on_cm_event(&ev);

		if (r && !ev_ret && g.phase == PH_CONNECT)
			ev_ret = r;
	}
	do {
		prev = g.phase;
		switch (g.phase) {
		case PH_CONNECT:
			set_phase(step_connect(ev_ret, now));
			break;
		case PH_SEND:
			set_phase(step_send(now));
			break;
		case PH_RECV:
			set_phase(step_recv(now));
			break;
		case PH_REPLY:
			set_phase(step_reply());
			break;
		case PH_REPLY_COMP:
			set_phase(step_reply_comp());
			break;
		case PH_DESTROY:
			set_phase(step_destroy(now));
			break;
		case PH_DONE:
		default:
			break;
		}
	} while (g.phase != prev);
}

/* ------------------------------------------------------------------ start */

static void on_signal(int sig)
{
	g.signo = sig;
	stk_stop();
}

static void usage(const char *argv0)
{
	printf("usage: %s\n", argv0);
	printf("\t[-s server_address]\n");
	printf("\t[-b bind_address]\n");
	printf("\t[-f address_format]\n");
	printf("\t    name, ip, ipv6, or gid\n");
	printf("\t[-P port_space]\n");
	printf("\t    udp or ipoib\n");
	printf("\t[-c connections]\n");
	printf("\t[-C message_count]\n");
	printf("\t[-S message_size]\n");
	printf("\t[-t type_of_service]\n");
	printf("\t[-p port_space - %#x for UDP (default), %#x for IPOIB]\n", ROCE_CM_PS_UDP,
	       0x0002);
	printf("\t[--config FILE]\tdroce INI configuration (or DROCE_CONF)\n");
}

static int parse_args(int argc, char **argv, const char *argv0)
{
	int op;

	while ((op = getopt(argc, argv, "s:b:c:C:S:t:p:P:f:")) != -1) {
		switch (op) {
		case 's':
			g.dst_arg = optarg;
			break;
		case 'b':
			g.src_arg = optarg;
			break;
		case 'c':
			g.connections = atoi(optarg);
			break;
		case 'C':
			g.message_count = atoi(optarg);
			break;
		case 'S':
			g.message_size = atoi(optarg);
			break;
		case 't':
			break; /* accepted, not applied */
		case 'p':
			if (strtol(optarg, NULL, 0) != ROCE_CM_PS_UDP) {
				fprintf(stderr,
					"droce-udaddy: droce has the UDP port space only\n");
				return 1;
			}
			break;
		case 'f':
			if (!strncasecmp("gid", optarg, 3)) {
				fprintf(stderr, "droce-udaddy: -f gid: RoCE addresses are IP\n");
				return 1;
			}
			if (strncasecmp("ip", optarg, 2) && strncasecmp("name", optarg, 4))
				fprintf(stderr, "Warning: unknown address format\n");
			break;
		case 'P':
			if (!strncasecmp("ipoib", optarg, 5)) {
				fprintf(stderr,
					"droce-udaddy: droce has the UDP port space only\n");
				return 1;
			}
			if (strncasecmp("udp", optarg, 3))
				fprintf(stderr, "Warning: unknown port space format\n");
			break;
		default:
			usage(argv0);
			return 1;
		}
	}
	if (g.connections < 1 || g.connections > 4000 || g.message_count < 0 ||
	    g.message_size < 0) {
		fprintf(stderr, "droce-udaddy: -c is 1..4000, -C and -S are not negative\n");
		return 1;
	}
	if (!g.message_size)
		g.message_count = 0;
	return 0;
}

static int start(void)
{
	int rc;

	g.nodes = calloc((size_t)g.connections, sizeof(*g.nodes));
	if (!g.nodes) {
		printf("udaddy: unable to allocate memory for test nodes\n");
		return -ENOMEM;
	}
	for (int i = 0; i < g.connections; i++)
		g.nodes[i].id = i;
	g.connects_left = g.connections;
	if (is_server()) {
		printf("udaddy: starting server\n");
		g.listen_id = roce_cm_create_id(g.app.cm, ROCE_CM_PS_UDP, NULL);
		if (!g.listen_id) {
			fprintf(stderr, "udaddy: listen request failed: %s\n", strerror(ENOMEM));
			return -ENOMEM;
		}
		rc = roce_cm_listen(g.listen_id, UD_PORT, UD_BACKLOG);
		if (rc) {
			fprintf(stderr, "udaddy: failure trying to listen: %s\n", strerror(-rc));
			return rc;
		}
		g.until = UINT64_MAX;
		return 0;
	}
	printf("udaddy: starting client\n");
	printf("udaddy: connecting\n");
	for (int i = 0; i < g.connections; i++) {
		struct ud_node *n = &g.nodes[i];
		struct roce_cm_conn_param p;

		n->cma_id = roce_cm_create_id(g.app.cm, ROCE_CM_PS_UDP, n);
		if (!n->cma_id) {
			fprintf(stderr, "udaddy: failure getting addr: %s\n", strerror(ENOSPC));
			return -ENOSPC;
		}
		rc = verify_test_params();
		if (!rc)
			rc = init_node(n);
		if (rc)
			return rc;
		memset(&p, 0, sizeof(p));
		p.timeout_ms = UD_RESOLVE_MS;
		rc = roce_cm_connect(n->cma_id, &g.dst, UD_PORT, n->qp, &p);
		if (rc) {
			fprintf(stderr, "udaddy: failure connecting: %s\n", strerror(-rc));
			return rc;
		}
		/* the QP is up now (the CM moved it to RTS with the UDP Q_Key) */
		rc = post_recvs(n);
		if (rc)
			return rc;
	}
	g.until = rte_get_tsc_cycles() + app_ms(&g.app, UD_RESOLVE_MS + 2000);
	return 0;
}

static int run(char *argv0, int eal_argc, char **eal_argv)
{
	int rc;

	if (g.src_arg && (rc = app_get_addr(g.src_arg, &g.src)) != 0) {
		printf("rdma_getaddrinfo error: %s\n", gai_strerror(rc));
		return rc;
	}
	if (g.dst_arg && (rc = app_get_addr(g.dst_arg, &g.dst)) != 0) {
		printf("rdma_getaddrinfo error: %s\n", gai_strerror(rc));
		return rc;
	}
	rc = app_start_stack(&g.app, argv0, eal_argc, eal_argv);
	if (rc)
		return rc;
	rc = app_pick_iface(&g.app, g.src_arg ? &g.src : NULL, g.dst_arg ? &g.dst : NULL);
	if (rc) {
		fprintf(stderr, "udaddy: bind address failed: %s\n", strerror(-rc));
		return rc;
	}
	if (app_open_dev(&g.app) != 0)
		return -1;
	rc = start();
	if (rc) {
		g.ret = rc;
		g.phase = PH_DESTROY;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), ud_poll, NULL);
	stk_run();
	if (g.signo)
		return 128 + g.signo;
	return g.ret;
}

int main(int argc, char **argv)
{
	int eal_argc, app_argc, ret;
	char **eal_argv, **app_argv;

	setvbuf(stdout, NULL, _IOLBF, 0);
	g.app.prog = "droce-udaddy";
	app_split_args(&g.app, argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	if (parse_args(app_argc, app_argv, argv[0]))
		exit(1);
	ret = run(argv[0], eal_argc, eal_argv);
	if (ret < 128 || ret > 128 + 64)
		printf("return status %d\n", ret);
	if (g.nodes)
		for (int i = 0; i < g.connections; i++)
			destroy_node(&g.nodes[i]);
	free(g.nodes);
	if (g.listen_id)
		roce_cm_destroy_id(g.listen_id);
	app_stop(&g.app);
	return ret;
}
