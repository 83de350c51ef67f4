/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-ping - rdmacm-utils' rping on droce: an RDMA CM connection, then a ping loop of RDMA
 * READs and WRITEs driven by SENDs, with rping's options, wire protocol, messages and exit
 * statuses, so that either end can be rping on a Linux host.
 *
 * Usage: droce-ping [EAL args --] --config FILE -s|-c [options]    (droce-ping --help)
 * rping's -c means "client", so droce's INI file comes with --config FILE, or DROCE_CONF.
 *
 * The protocol, as rdma-core 44's librdmacm/examples/rping.c runs it (the rping_*() names are
 * the functions there that say so):
 * - Connection (rping_init_conn_param, rping_accept): the client connects to port -p (7174)
 *   with responder_resources 1, initiator_depth 1, retry_count 7, rnr_retry_count 7 and no
 *   private data. The server creates its CQ (32 entries), its RC QP (16 send, 2 receive WRs,
 *   one SGE each) and registers its buffers when the CONNECT_REQUEST arrives, posts one
 *   receive, and accepts with no parameters: librdmacm then answers with what the REQ asked
 *   for (swapped: our responder resources = its initiator depth) and retry/RNR retry 7. With
 *   -q both sides hand the parameters over themselves (the client connects without a QP and
 *   finishes on CONNECT_RESPONSE, rdma_establish()).
 * - Buffers (rping_setup_buffers): a 16-byte receive buffer (LOCAL_WRITE), a 16-byte send
 *   buffer (no rights), the rdma buffer of -S bytes (LOCAL_WRITE | REMOTE_READ |
 *   REMOTE_WRITE) and, on the client, the start buffer with the same rights.
 * - The info message (struct ping_info, rping_format_send): the buffer's address, rkey and
 *   size in network byte order, 16 bytes. Only the client fills it in; the server's "go ahead"
 *   SENDs carry its send buffer as it is: 16 zero bytes.
 * - Each ping (rping_test_client, rping_test_server): the client writes "rdma-ping-%d: " and
 *   a rolling ASCII pattern into its start buffer (characters 65..122, starting one further
 *   each ping) with a NUL in the last byte, and SENDs the start buffer's info. The server
 *   READs remote_len bytes from it into its rdma buffer and SENDs "go ahead". The client SENDs
 *   its rdma buffer's info; the server WRITEs strlen()+1 bytes of what it read there and
 *   SENDs "go ahead" again. The client then compares (-V) its start and rdma buffers (all -S
 *   bytes) and prints the rdma buffer (-v). A receive whose length is not 16 is an error.
 * - The end: after -C pings (0 = forever) the client disconnects. The server leaves its loop
 *   on the DISCONNECTED event, which rping reports as success, and exits; with -P it keeps
 *   serving other clients until killed.
 * - Messages and exit statuses are rping's (main, rping_cma_event_handler): usage on stdout
 *   and 22 (EINVAL) for bad options, "Invalid size %d (valid range is 23 to 65536)", getaddrinfo
 *   failures with the (negative) resolver code, "cma event RDMA_CM_EVENT_REJECTED, error 8" and
 *   255 (-1) for connection errors, "data mismatch!" and 255 for a failed validation.
 *   RPING_MIN_BUFSIZE is 23 as Debian's rping 44 is built (sizeof "INT_MAX" + sizeof the
 *   format: <limits.h> is not included, so the macro is not expanded).
 *
 * Where droce-ping knowingly differs: a client whose server disconnects before -C pings are
 * done exits 255 (rping exits 0 then); a size that rping would let through because a later -a
 * cleared its error is still refused; -a on the server must be one of droce's own addresses or
 * a wildcard; the client resolves the server's MAC itself (2 s, as rping's rdma_resolve_addr)
 * before the CM sends its REQ; a server whose -S is smaller than the client's says so and
 * disconnects instead of failing its READ; with -P a connection that fails does not end the
 * server (rping's CM thread exits the process); SIGINT/SIGTERM disconnect what is connected
 * and exit 128+N; --help exits 0; each error also gets a line saying what went wrong.
 *
 * Threads: the main lcore runs the stack loop, the CM (roce_poll) and the ping as a poll hook
 * (a state machine per connection below); nothing blocks. Other lcores, if the configuration
 * has them, only run the stack loop.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "app_start.h"
#include "roce_cm.h"
#include "roce_cm_wire.h"
#include "roce_verbs.h"
#include "stk_stack.h"

#define PING_PORT 7174		      /* rping's default port */
#define PING_BUFSIZE 65536	      /* RPING_BUFSIZE: -S must stay below it */
#define PING_MSG_FMT "rdma-ping-%d: " /* RPING_MSG_FMT */
#define PING_MIN_SIZE 23 /* RPING_MIN_BUFSIZE as built: sizeof "INT_MAX" + sizeof the format */
#define PING_DEFAULT_SIZE 64
#define PING_SQ_DEPTH 16 /* RPING_SQ_DEPTH */
#define PING_RQ_DEPTH 2
#define PING_CQ_DEPTH (PING_SQ_DEPTH * 2)
#define PING_BACKLOG 3	       /* rping's rdma_listen() backlog */
#define PING_MAX_CONNS 16      /* -P: connections served at once */
#define PING_RESOLVE_MS 2000   /* rping's rdma_resolve_addr() timeout */
#define PING_DISC_WAIT_MS 1000 /* how long the disconnecting side waits for DREP */
#define PING_LINGER_MS 300     /* the last ACK/DREP leave before the port stops */
#define PING_FIRST_CHAR 65     /* the pattern runs over 'A'..'z' */
#define PING_LAST_CHAR 122
#define RPING_DISCONNECTED 10 /* rping's enum test_state values it prints */
#define RPING_ERROR 11

/* Exit statuses as rping's main() returns them. */
#define EXIT_FAIL 255 /* -1: connection, transfer or validation error */
#define EXIT_USAGE 22 /* EINVAL */
#define EXIT_NODEV 19 /* ENODEV: "No RDMA devices were detected" */

/** rping's struct rping_rdma_info: where a buffer is and how to reach it. */
struct ping_info {
	rte_be64_t buf;	 /**< the buffer's address (its iova) */
	rte_be32_t rkey; /**< the rkey that grants access to it */
	rte_be32_t size; /**< its length in bytes */
} __rte_packed;
_Static_assert(sizeof(struct ping_info) == 16, "rping's info message is 16 bytes");

/* wr_id tags: each connection has a CQ of its own, so the kind of WR is all a tag carries */
enum ping_wr { WR_RECV = 1, WR_SEND, WR_READ, WR_WRITE };

/*
 * X(name, what rping's main thread waits for in this state, comment): one state machine for
 * both roles. The second column is what rping prints when the wait ends in another state
 * ("wait for RDMA_READ_ADV state 10").
 */
#define PING_STATE_LIST(X)                                                                         \
	X(IDLE, "", "a free slot")                                                                 \
	X(RESOLVE, "", "client: resolving the server's MAC (rdma_resolve_addr)")                   \
	X(CONNECT, "", "client: resolved, REQ to go")                                              \
	X(CONNECTING, "CONNECTED", "client: REQ sent, waiting for ESTABLISHED")                    \
	X(SEND_START, "", "client: next ping; SEND the start buffer's info")                       \
	X(WAIT_READ_GO, "RDMA_WRITE_ADV", "client: waiting for go ahead after the server's READ")  \
	X(WAIT_WRITE_GO, "RDMA_WRITE_COMPLETE", "client: sink info sent, waiting for go ahead")    \
	X(ACCEPTING, "CONNECTED", "server: REP sent, waiting for RTU or the first message")        \
	X(WAIT_READ_ADV, "RDMA_READ_ADV", "server: waiting for the client's start info")           \
	X(READING, "RDMA_READ_COMPLETE", "server: RDMA READ of the start buffer posted")           \
	X(WAIT_WRITE_ADV, "RDMA_WRITE_ADV", "server: go ahead sent, waiting for the sink info")    \
	X(WRITING, "RDMA_WRITE_COMPLETE", "server: RDMA WRITE to the sink posted")                 \
	X(DISCONNECT, "", "done or failed while connected: DREQ to go")                            \
	X(WAIT_DISC, "", "DREQ sent, waiting for DREP (bounded)")                                  \
	X(DONE, "", "finished; result 0")                                                          \
	X(FAILED, "", "finished; result -1")

#define PING_ST_ENUM_(n, w, c) ST_##n,
enum ping_state { PING_STATE_LIST(PING_ST_ENUM_) ST_NUM_STATES };
#undef PING_ST_ENUM_
#define PING_ST_NAME_(n, w, c) #n,
static const char *const state_names[] = {PING_STATE_LIST(PING_ST_NAME_)};
#undef PING_ST_NAME_
#define PING_ST_WAIT_(n, w, c) w,
static const char *const state_waits[] = {PING_STATE_LIST(PING_ST_WAIT_)};
#undef PING_ST_WAIT_

/** One connection: rping's control block for it (struct rping_cb). */
struct ping_conn {
	enum ping_state state;
	struct roce_cm_id *id;
	struct roce_cq *cq;
	struct roce_qp *qp;
	struct ping_info *recv_buf; /**< the peer's last info lands here */
	struct ping_info *send_buf; /**< what our SENDs carry */
	uint8_t *rdma_buf;	    /**< server: READ sink, WRITE source; client: WRITE sink */
	uint8_t *start_buf;	    /**< client: what the server READs */
	struct roce_mr *recv_mr, *send_mr, *rdma_mr, *start_mr;
	/* inputs from completions and CM events, consumed by the step functions */
	unsigned recvs; /**< infos received and not acted on yet */
	bool read_done, write_done;
	bool established, got_response, peer_gone, dreq_answered, cm_failed, wc_failed;
	bool connected; /**< accepted (server) or ESTABLISHED (client): failures send DREQ */
	/* the peer's buffer, from its last info */
	uint64_t remote_addr;
	uint32_t remote_rkey, remote_len;
	int ping;  /**< client: pings done */
	int start; /**< client: first character of the next ping's pattern */
	int rc;	   /**< 0, or rping's -1 */
	uint64_t deadline, probe_at, free_at;
};

static struct {
	/* options */
	const char *config;
	int server; /**< -1 until -s or -c */
	const char *addr_arg, *src_arg;
	struct stk_ipaddr addr; /**< -a: bind address (server) or server address (client) */
	struct stk_ipaddr src;	/**< -I */
	uint16_t port;
	int count, size, verbose, validate, debug;
	bool persistent, self_qp;
	/* droce: the shared start-up (apps/common/app_start.h) */
	struct app_start app;
	struct roce_cm_id *listen_id;
	struct ping_conn conns[PING_MAX_CONNS];
	uint64_t state_cnt[ST_NUM_STATES];
	/* the run */
	volatile sig_atomic_t signo;
	bool signal_seen;
	bool finished; /**< the result is known: linger, then stop */
	int result;    /**< rping's return value: 0 or -1 */
	uint64_t stop_at;
} g = {
	.server = -1,
	.port = PING_PORT,
	.size = PING_DEFAULT_SIZE,
};

#define DEBUG_LOG(...)                                                                             \
	do {                                                                                       \
		if (g.debug)                                                                       \
			printf(__VA_ARGS__);                                                       \
	} while (0)

static uint64_t ms_to_tsc(uint64_t ms)
{
	return app_ms(&g.app, ms);
}

static const char *role(void)
{
	return g.server ? "server" : "client";
}

/* STYLE 4: every state change goes through here: a counter per state and a trace (-dd). */
static void set_state(struct ping_conn *c, enum ping_state s)
{
	if (c->state == s)
		return;
	g.state_cnt[s]++;
	if (g.debug > 1)
		printf("droce-ping: conn %p: %s -> %s\n", (void *)c, state_names[c->state],
		       state_names[s]);
	c->state = s;
}

/* ------------------------------------------------------------------ buffers and QP */

static void release(struct roce_mr *mr, void *buf)
{
	if (mr && roce_dereg_mr(mr) == -EBUSY) {
		fprintf(stderr, "droce-ping: a region is still in use by queued frames; its "
				"buffer is left allocated\n");
		return;
	}
	rte_free(buf);
}

static void conn_free(struct ping_conn *c)
{
	struct roce_wc wc[PING_CQ_DEPTH];

	DEBUG_LOG("rping_free_buffers called on cb %p\n", (void *)c);
	if (c->id) {
		DEBUG_LOG("destroy cm_id %p\n", (void *)c->id);
		roce_cm_destroy_id(c->id);
	}
	if (c->cq)
		while (roce_poll_cq(c->cq, PING_CQ_DEPTH, wc) > 0)
			;
	if (c->qp)
		roce_destroy_qp(c->qp);
	if (c->cq)
		roce_destroy_cq(c->cq);
	/* a buffer whose region frames still point into (roce_dereg_mr's -EBUSY: this runs in
	 * the poll loop, which cannot wait for them) is left allocated: a leak, never a
	 * use after free */
	release(c->recv_mr, c->recv_buf);
	release(c->send_mr, c->send_buf);
	release(c->rdma_mr, c->rdma_buf);
	release(c->start_mr, c->start_buf);
	memset(c, 0, sizeof(*c));
}

static struct roce_mr *reg(void *buf, uint32_t len, uint32_t access)
{
	return roce_reg_mr(g.app.pd, buf, len, (uintptr_t)buf, access);
}

/* rping_setup_qp() and rping_setup_buffers(): the CQ, the RC QP (RESET; the CM brings it up)
 * and the four buffers with rping's rights. @return 0 or -1 with a message printed. */
static int conn_setup(struct ping_conn *c)
{
	const uint32_t rw =
		ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_WRITE;
	struct roce_qp_init_attr ia;

	c->cq = roce_create_cq(g.app.dev, PING_CQ_DEPTH);
	if (!c->cq) {
		fprintf(stderr, "ibv_create_cq failed\n");
		return -1;
	}
	DEBUG_LOG("created cq %p\n", (void *)c->cq);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = c->cq;
	ia.qp_type = ROCE_QPT_RC;
	ia.cap.max_send_wr = PING_SQ_DEPTH;
	ia.cap.max_recv_wr = PING_RQ_DEPTH;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	c->qp = roce_create_qp(g.app.pd, &ia);
	if (!c->qp) {
		fprintf(stderr, "rdma_create_qp: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	DEBUG_LOG("created qp %p\n", (void *)c->qp);

	DEBUG_LOG("rping_setup_buffers called on cb %p\n", (void *)c);
	c->recv_buf = rte_zmalloc("ping_recv", sizeof(*c->recv_buf), 0);
	c->send_buf = rte_zmalloc("ping_send", sizeof(*c->send_buf), 0);
	c->rdma_buf = rte_zmalloc("ping_rdma", (size_t)g.size, 0);
	if (!c->recv_buf || !c->send_buf || !c->rdma_buf) {
		fprintf(stderr, "rdma_buf malloc failed\n");
		return -1;
	}
	c->recv_mr = reg(c->recv_buf, sizeof(*c->recv_buf), ROCE_ACCESS_LOCAL_WRITE);
	if (!c->recv_mr) {
		fprintf(stderr, "recv_buf reg_mr failed\n");
		return -1;
	}
	c->send_mr = reg(c->send_buf, sizeof(*c->send_buf), 0);
	if (!c->send_mr) {
		fprintf(stderr, "send_buf reg_mr failed\n");
		return -1;
	}
	c->rdma_mr = reg(c->rdma_buf, (uint32_t)g.size, rw);
	if (!c->rdma_mr) {
		fprintf(stderr, "rdma_buf reg_mr failed\n");
		return -1;
	}
	if (!g.server) {
		c->start_buf = rte_zmalloc("ping_start", (size_t)g.size, 0);
		if (!c->start_buf) {
			fprintf(stderr, "start_buf malloc failed\n");
			return -1;
		}
		c->start_mr = reg(c->start_buf, (uint32_t)g.size, rw);
		if (!c->start_mr) {
			fprintf(stderr, "start_buf reg_mr failed\n");
			return -1;
		}
	}
	DEBUG_LOG("allocated & registered buffers...\n");
	return 0;
}

static int post_recv(struct ping_conn *c)
{
	struct roce_sge sge = {.addr = (uintptr_t)c->recv_buf,
			       .length = sizeof(*c->recv_buf),
			       .lkey = c->recv_mr->lkey};
	struct roce_recv_wr wr = {.wr_id = WR_RECV, .sg_list = &sge, .num_sge = 1}, *bad;

	return roce_post_recv(c->qp, &wr, &bad);
}

/* SEND our 16-byte send buffer. */
static int post_info(struct ping_conn *c)
{
	struct roce_sge sge = {.addr = (uintptr_t)c->send_buf,
			       .length = sizeof(*c->send_buf),
			       .lkey = c->send_mr->lkey};
	struct roce_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = ROCE_WR_SEND;
	wr.send_flags = ROCE_SEND_SIGNALED;
	return roce_post_send(c->qp, &wr, &bad);
}

/* Server: RDMA READ (or WRITE) between our rdma buffer and the peer's advertised buffer. */
static int post_rdma(struct ping_conn *c, enum roce_wr_opcode op, uint32_t len)
{
	struct roce_sge sge = {
		.addr = (uintptr_t)c->rdma_buf, .length = len, .lkey = c->rdma_mr->lkey};
	struct roce_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = op == ROCE_WR_RDMA_READ ? WR_READ : WR_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = ROCE_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = c->remote_addr;
	wr.wr.rdma.rkey = c->remote_rkey;
	return roce_post_send(c->qp, &wr, &bad);
}

/* Client: advertise @p buf (registered as @p mr) in the send buffer, as rping_format_send(). */
static void format_send(struct ping_conn *c, const uint8_t *buf, const struct roce_mr *mr)
{
	c->send_buf->buf = rte_cpu_to_be_64((uint64_t)(uintptr_t)buf);
	c->send_buf->rkey = rte_cpu_to_be_32(mr->rkey);
	c->send_buf->size = rte_cpu_to_be_32((uint32_t)g.size);
	DEBUG_LOG("RDMA addr %" PRIx64 " rkey %x len %d\n", (uint64_t)(uintptr_t)buf, mr->rkey,
		  g.size);
}

/* ------------------------------------------------------------------ completions */

static const char *wr_name(uint64_t wr_id)
{
	switch (wr_id) {
	case WR_RECV:
		return "receive";
	case WR_SEND:
		return "SEND";
	case WR_READ:
		return "RDMA READ";
	case WR_WRITE:
		return "RDMA WRITE";
	default:
		return "?";
	}
}

/* A received info, as rping's server_recv()/client_recv(): exactly 16 bytes. */
static int on_recv(struct ping_conn *c, const struct roce_wc *wc)
{
	if (wc->byte_len != sizeof(*c->recv_buf)) {
		fprintf(stderr, "Received bogus data, size %u\n", wc->byte_len);
		fprintf(stderr, "recv wc error: -1\n");
		return -1;
	}
	if (g.server) {
		c->remote_rkey = rte_be_to_cpu_32(c->recv_buf->rkey);
		c->remote_addr = rte_be_to_cpu_64(c->recv_buf->buf);
		c->remote_len = rte_be_to_cpu_32(c->recv_buf->size);
		DEBUG_LOG("Received rkey %x addr %" PRIx64 " len %d from peer\n", c->remote_rkey,
			  c->remote_addr, (int)c->remote_len);
	}
	if (post_recv(c) != 0) {
		fprintf(stderr, "post recv error: -1\n");
		return -1;
	}
	c->recvs++;
	return 0;
}

/* rping_cq_event_handler(): flushed WRs are expected on disconnect and ignored; any other
 * error, or a bogus receive, fails the connection. */
static void poll_completions(struct ping_conn *c)
{
	struct roce_wc wc[PING_CQ_DEPTH];
	int n = roce_poll_cq(c->cq, PING_CQ_DEPTH, wc);

	for (int i = 0; i < n && !c->wc_failed; i++) {
		if (wc[i].status == ROCE_WC_WR_FLUSH_ERR)
			continue;
		if (wc[i].status != ROCE_WC_SUCCESS) {
			fprintf(stderr, "cq completion failed status %d\n", (int)wc[i].status);
			fprintf(stderr, "droce-ping: the %s work request failed: %s%s\n",
				wr_name(wc[i].wr_id), roce_wc_status_str(wc[i].status),
				wc[i].status == ROCE_WC_REM_ACCESS_ERR
					? " (the peer refused the rkey, address or length)"
				: wc[i].status == ROCE_WC_RETRY_EXC_ERR
					? " (the peer stopped answering)"
					: "");
			c->wc_failed = true;
			break;
		}
		switch (wc[i].wr_id) {
		case WR_SEND:
			DEBUG_LOG("send completion\n");
			break;
		case WR_READ:
			DEBUG_LOG("rdma read completion\n");
			c->read_done = true;
			break;
		case WR_WRITE:
			DEBUG_LOG("rdma write completion\n");
			c->write_done = true;
			break;
		case WR_RECV:
			DEBUG_LOG("recv completion\n");
			if (on_recv(c, &wc[i]) != 0)
				c->wc_failed = true;
			break;
		default:
			DEBUG_LOG("unknown!!!!! completion\n");
			c->wc_failed = true;
			break;
		}
	}
}

/* ------------------------------------------------------------------ CM events */

static struct ping_conn *conn_of(const struct roce_cm_id *id)
{
	for (unsigned i = 0; i < PING_MAX_CONNS; i++)
		if (g.conns[i].state != ST_IDLE && g.conns[i].id == id)
			return &g.conns[i];
	return NULL;
}

static struct ping_conn *conn_slot(void)
{
	for (unsigned i = 0; i < PING_MAX_CONNS; i++)
		if (g.conns[i].state == ST_IDLE && !g.conns[i].id)
			return &g.conns[i];
	return NULL;
}

static bool serving(void)
{
	for (unsigned i = 0; i < PING_MAX_CONNS; i++)
		if (g.conns[i].state != ST_IDLE)
			return true;
	return false;
}

/* The parameters rping's connection carries (rping_init_conn_param; rdma_accept(NULL) on a
 * server without -q answers with what the REQ asked for, and retry/RNR retry 7). */
static void conn_param(struct roce_cm_conn_param *p, bool explicit_resources, uint32_t qp_num)
{
	memset(p, 0, sizeof(*p));
	if (explicit_resources) {
		p->responder_resources = 1;
		p->initiator_depth = 1;
	}
	p->retry_count = 7;
	p->rnr_retry_count = 7;
	p->qp_num = qp_num;
}

static void explain_reject(int reason)
{
	char a[64];

	stk_ipaddr_str(&g.addr, a, sizeof(a));
	if (reason == ROCE_CM_REJ_INVALID_SERVICE_ID)
		fprintf(stderr,
			"droce-ping: %s:%u rejected the connection: no server listens on "
			"that port\n",
			a, g.port);
	else
		fprintf(stderr, "droce-ping: %s:%u rejected the connection: %s (reason %d)\n", a,
			g.port, roce_cm_rej_reason_name((uint16_t)reason), reason);
}

/* Passive side: a new client (rping_run_server up to rping_accept()). */
static void on_connect_request(const struct roce_cm_event *ev)
{
	struct roce_cm_conn_param p;
	struct ping_conn *c = NULL;
	int rc;

	if (g.persistent || (!serving() && !g.finished))
		c = conn_slot();
	if (!c) {
		/* rping without -P serves one client; it would leave this one unanswered */
		DEBUG_LOG("droce-ping: busy, rejecting the connection request %p\n",
			  (void *)ev->id);
		roce_cm_reject(ev->id, NULL, 0);
		roce_cm_destroy_id(ev->id);
		return;
	}
	memset(c, 0, sizeof(*c));
	c->id = ev->id;
	DEBUG_LOG("child cma %p\n", (void *)c->id);
	set_state(c, ST_ACCEPTING);
	if (conn_setup(c) != 0) {
		fprintf(stderr, "setup_qp failed: -1\n");
		goto fail;
	}
	DEBUG_LOG("accepting client connection request\n");
	conn_param(&p, g.self_qp, 0);
	rc = roce_cm_accept(c->id, c->qp, &p);
	if (rc != 0) {
		fprintf(stderr, "rdma_accept: %s\n", strerror(-rc));
		fprintf(stderr, "connect error %d\n", -1);
		goto fail;
	}
	c->connected = true;
	/* the QP is in RTS now; nothing arrives before this receive is posted (one lcore) */
	if (post_recv(c) != 0) {
		fprintf(stderr, "ibv_post_recv failed: -1\n");
		goto fail;
	}
	return;
fail:
	if (!c->connected)
		roce_cm_reject(c->id, NULL, 0);
	c->rc = -1;
	set_state(c, c->connected ? ST_DISCONNECT : ST_FAILED);
}

static void on_cm_event(const struct roce_cm_event *ev)
{
	struct ping_conn *c = conn_of(ev->id);
	const char *name = roce_cm_event_str(ev->event);

	DEBUG_LOG("cma_event type RDMA_CM_EVENT_%s cma_id %p (%s)\n", name, (void *)ev->id,
		  ev->id == g.listen_id || (!g.server && c == &g.conns[0]) ? "parent" : "child");
	if (ev->event == ROCE_CM_EVENT_CONNECT_REQUEST) {
		on_connect_request(ev);
		return;
	}
	if (!c)
		return; /* an identifier we already let go of */
	switch (ev->event) {
	case ROCE_CM_EVENT_CONNECT_RESPONSE:
		DEBUG_LOG("CONNECT_RESPONSE\n");
		c->got_response = true;
		break;
	case ROCE_CM_EVENT_ESTABLISHED:
		DEBUG_LOG("ESTABLISHED\n");
		c->established = true;
		break;
	case ROCE_CM_EVENT_REJECTED:
	case ROCE_CM_EVENT_UNREACHABLE:
		fprintf(stderr, "cma event RDMA_CM_EVENT_%s, error %d\n", name, ev->status);
		if (ev->event == ROCE_CM_EVENT_REJECTED && !g.server)
			explain_reject(ev->status);
		else if (ev->status == -ETIMEDOUT)
			fprintf(stderr,
				"droce-ping: the %s did not answer the connection manager\n",
				g.server ? "client" : "server");
		c->cm_failed = true;
		break;
	case ROCE_CM_EVENT_DISCONNECTED:
		fprintf(stderr, "%s DISCONNECT EVENT...\n", role());
		if (c->state == ST_WAIT_DISC || g.signal_seen)
			c->dreq_answered = true;
		else
			c->peer_gone = true;
		break;
	case ROCE_CM_EVENT_TIMEWAIT_EXIT:
		break; /* librdmacm reports it too; rping never waits for it */
	default:
		fprintf(stderr, "unhandled event: RDMA_CM_EVENT_%s, ignoring\n", name);
		break;
	}
}

/* ------------------------------------------------------------------ the state machine */

static enum ping_state fail(struct ping_conn *c)
{
	c->rc = -1;
	return c->connected ? ST_DISCONNECT : ST_FAILED;
}

/*
 * What ends a ping loop early, as rping's main thread sees it when its sem_wait() returns in
 * another state: a failed completion (state ERROR) or the peer's DREQ (state DISCONNECTED).
 * @return true with *next set when the loop is over.
 */
static bool loop_ended(struct ping_conn *c, enum ping_state *next)
{
	if (c->wc_failed) {
		if (state_waits[c->state][0])
			fprintf(stderr, "wait for %s state %d\n", state_waits[c->state],
				RPING_ERROR);
		fprintf(stderr, "rping %s failed: -1\n", role());
		*next = fail(c);
		return true;
	}
	if (c->peer_gone) {
		if (state_waits[c->state][0])
			fprintf(stderr, "wait for %s state %d\n", state_waits[c->state],
				RPING_DISCONNECTED);
		if (g.server) {
			*next = ST_DONE; /* the client's DREQ is how a server's test ends */
		} else {
			fprintf(stderr,
				"droce-ping: the server disconnected after %d pings (-C %d)\n",
				c->ping, g.count);
			c->rc = -1;
			*next = ST_FAILED;
		}
		return true;
	}
	return false;
}

static enum ping_state step_resolve(struct ping_conn *c, struct stk_lcore *lc, uint64_t now)
{
	const struct stk_iface *ifc = stk_iface_get(g.app.iface);
	const struct stk_ipaddr *hop = &g.addr;
	const struct stk_neigh *n;

	if (!stk_iface_on_link(ifc, &g.addr))
		hop = g.addr.family == 4 ? &ifc->gw4 : &ifc->gw6;
	if (!hop->family) {
		fprintf(stderr, "rdma_resolve_addr: %s\n", strerror(ENETUNREACH));
		return fail(c);
	}
	n = stk_neigh_lookup(lc->neigh, ifc->idx, hop);
	if (n && n->state != STK_NEIGH_INCOMPLETE) {
		DEBUG_LOG("cma_event type RDMA_CM_EVENT_ADDR_RESOLVED cma_id %p (parent)\n",
			  (void *)c->id);
		DEBUG_LOG("cma_event type RDMA_CM_EVENT_ROUTE_RESOLVED cma_id %p (parent)\n",
			  (void *)c->id);
		DEBUG_LOG("rdma_resolve_addr - rdma_resolve_route successful\n");
		return ST_CONNECT;
	}
	if (now >= c->deadline) {
		char a[64];

		fprintf(stderr, "cma event RDMA_CM_EVENT_ADDR_ERROR, error %d\n", -ETIMEDOUT);
		fprintf(stderr, "droce-ping: %s does not answer ARP/ND\n",
			stk_ipaddr_str(hop, a, sizeof(a)));
		return fail(c);
	}
	if (now >= c->probe_at) {
		stk_neigh_probe(lc, ifc, hop);
		c->probe_at = now + ms_to_tsc(200);
	}
	return ST_RESOLVE;
}

static enum ping_state step_connect(struct ping_conn *c)
{
	struct roce_cm_conn_param p;
	int rc;

	conn_param(&p, true, g.self_qp ? roce_qp_num(c->qp) : 0);
	rc = roce_cm_connect(c->id, &g.addr, g.port, g.self_qp ? NULL : c->qp, &p);
	if (rc != 0) {
		fprintf(stderr, "rdma_connect: %s\n", strerror(-rc));
		fprintf(stderr, "connect error %d\n", -1);
		return fail(c);
	}
	/* the QP is in INIT now (without -q): rping posts its receive before connecting */
	if (!g.self_qp && post_recv(c) != 0) {
		fprintf(stderr, "ibv_post_recv failed: -1\n");
		return fail(c);
	}
	return ST_CONNECTING;
}

static enum ping_state step_connecting(struct ping_conn *c)
{
	if (c->cm_failed) {
		c->rc = -1;
		return ST_FAILED;
	}
	if (c->got_response) { /* -q: bring our QP up from the REP and send RTU */
		struct roce_cm_conn_param p;
		int rc;

		c->got_response = false;
		conn_param(&p, true, roce_qp_num(c->qp));
		rc = roce_cm_accept(c->id, c->qp, &p);
		if (rc == 0)
			rc = post_recv(c);
		if (rc != 0) {
			fprintf(stderr, "rdma_establish: %s\n", strerror(-rc));
			fprintf(stderr, "connect error %d\n", -1);
			return fail(c);
		}
	}
	if (!c->established)
		return ST_CONNECTING;
	c->connected = true;
	DEBUG_LOG("rdma_connect successful\n");
	c->start = PING_FIRST_CHAR;
	return ST_SEND_START;
}

/* rping_test_client()'s buffer: "rdma-ping-N: ", then 'A'..'z' rolling from c->start. */
static void fill_start(struct ping_conn *c)
{
	int cc = snprintf((char *)c->start_buf, (size_t)g.size, PING_MSG_FMT, c->ping);
	int ch = c->start;

	for (int i = cc; i < g.size; i++) {
		c->start_buf[i] = (uint8_t)ch;
		if (++ch > PING_LAST_CHAR)
			ch = PING_FIRST_CHAR;
	}
	if (++c->start > PING_LAST_CHAR)
		c->start = PING_FIRST_CHAR;
	c->start_buf[g.size - 1] = 0;
}

static enum ping_state step_send_start(struct ping_conn *c)
{
	enum ping_state next;
	int rc;

	if (g.count && c->ping >= g.count)
		return ST_DISCONNECT; /* rping_run_client(): the client ends the connection */
	if (loop_ended(c, &next))
		return next;
	fill_start(c);
	format_send(c, c->start_buf, c->start_mr);
	rc = post_info(c);
	if (rc != 0) {
		fprintf(stderr, "post send error %d\n", rc);
		return fail(c);
	}
	return ST_WAIT_READ_GO;
}

static enum ping_state step_wait_read_go(struct ping_conn *c)
{
	enum ping_state next;
	int rc;

	if (loop_ended(c, &next))
		return next;
	if (!c->recvs)
		return ST_WAIT_READ_GO;
	c->recvs--;
	format_send(c, c->rdma_buf, c->rdma_mr);
	rc = post_info(c);
	if (rc != 0) {
		fprintf(stderr, "post send error %d\n", rc);
		return fail(c);
	}
	return ST_WAIT_WRITE_GO;
}

static enum ping_state step_wait_write_go(struct ping_conn *c)
{
	enum ping_state next;

	if (loop_ended(c, &next))
		return next;
	if (!c->recvs)
		return ST_WAIT_WRITE_GO;
	c->recvs--;
	if (g.validate && memcmp(c->start_buf, c->rdma_buf, (size_t)g.size) != 0) {
		int i = 0;

		while (c->start_buf[i] == c->rdma_buf[i])
			i++;
		fprintf(stderr, "data mismatch!\n");
		fprintf(stderr,
			"droce-ping: ping %d: byte %d of %d differs: sent 0x%02x, got back "
			"0x%02x\n",
			c->ping, i, g.size, c->start_buf[i], c->rdma_buf[i]);
		fprintf(stderr, "rping client failed: -1\n");
		return fail(c);
	}
	if (g.verbose)
		printf("ping data: %.*s\n", (int)strnlen((char *)c->rdma_buf, (size_t)g.size),
		       (char *)c->rdma_buf);
	c->ping++;
	return ST_SEND_START;
}

static enum ping_state step_accepting(struct ping_conn *c)
{
	if (c->cm_failed) {
		c->rc = -1;
		return ST_FAILED;
	}
	/* rping_accept() wakes on ESTABLISHED, or on the first receive if the RTU was lost */
	if (c->established || c->recvs || c->peer_gone)
		return ST_WAIT_READ_ADV;
	return ST_ACCEPTING;
}

static enum ping_state step_wait_read_adv(struct ping_conn *c)
{
	enum ping_state next;
	int rc;

	if (loop_ended(c, &next))
		return next;
	if (!c->recvs)
		return ST_WAIT_READ_ADV;
	c->recvs--;
	DEBUG_LOG("server received sink adv\n");
	if (c->remote_len > (uint32_t)g.size) {
		fprintf(stderr,
			"droce-ping: the client's buffer is %u bytes, ours %d: run both sides with "
			"the same -S\n",
			c->remote_len, g.size);
		fprintf(stderr, "rping server failed: -1\n");
		return fail(c);
	}
	rc = post_rdma(c, ROCE_WR_RDMA_READ, c->remote_len);
	if (rc != 0) {
		fprintf(stderr, "post send error %d\n", rc);
		return fail(c);
	}
	DEBUG_LOG("server posted rdma read req \n");
	return ST_READING;
}

static enum ping_state step_reading(struct ping_conn *c)
{
	enum ping_state next;
	int rc;

	if (loop_ended(c, &next))
		return next;
	if (!c->read_done)
		return ST_READING;
	c->read_done = false;
	DEBUG_LOG("server received read complete\n");
	if (g.verbose)
		printf("server ping data: %.*s\n", (int)strnlen((char *)c->rdma_buf, c->remote_len),
		       (char *)c->rdma_buf);
	rc = post_info(c); /* "go ahead": our send buffer, never filled in: 16 zero bytes */
	if (rc != 0) {
		fprintf(stderr, "post send error %d\n", rc);
		return fail(c);
	}
	DEBUG_LOG("server posted go ahead\n");
	return ST_WAIT_WRITE_ADV;
}

static enum ping_state step_wait_write_adv(struct ping_conn *c)
{
	enum ping_state next;
	uint32_t len;
	int rc;

	if (loop_ended(c, &next))
		return next;
	if (!c->recvs)
		return ST_WAIT_WRITE_ADV;
	c->recvs--;
	DEBUG_LOG("server received sink adv\n");
	/* rping echoes strlen(rdma_buf) + 1 bytes; bounded here by what the READ brought */
	len = (uint32_t)strnlen((char *)c->rdma_buf, (size_t)g.size) + 1;
	len = RTE_MIN(len, (uint32_t)g.size);
	if (len > c->remote_len) {
		fprintf(stderr, "droce-ping: the client's sink is %u bytes, the echo %u\n",
			c->remote_len, len);
		fprintf(stderr, "rping server failed: -1\n");
		return fail(c);
	}
	DEBUG_LOG("rdma write from lkey %x laddr %" PRIx64 " len %u\n", c->rdma_mr->lkey,
		  (uint64_t)(uintptr_t)c->rdma_buf, len);
	rc = post_rdma(c, ROCE_WR_RDMA_WRITE, len);
	if (rc != 0) {
		fprintf(stderr, "post send error %d\n", rc);
		return fail(c);
	}
	return ST_WRITING;
}

static enum ping_state step_writing(struct ping_conn *c)
{
	enum ping_state next;
	int rc;

	if (loop_ended(c, &next))
		return next;
	if (!c->write_done)
		return ST_WRITING;
	c->write_done = false;
	DEBUG_LOG("server rdma write complete \n");
	rc = post_info(c);
	if (rc != 0) {
		fprintf(stderr, "post send error %d\n", rc);
		return fail(c);
	}
	DEBUG_LOG("server posted go ahead\n");
	return ST_WAIT_READ_ADV;
}

/* rping_disconnect(): DREQ, then a bounded wait for the DREP before the id goes away. */
static enum ping_state step_disconnect(struct ping_conn *c, uint64_t now)
{
	if (c->peer_gone || roce_cm_disconnect(c->id) != 0)
		return c->rc ? ST_FAILED : ST_DONE;
	c->deadline = now + ms_to_tsc(PING_DISC_WAIT_MS);
	return ST_WAIT_DISC;
}

static enum ping_state step_wait_disc(struct ping_conn *c, uint64_t now)
{
	if (c->dreq_answered || c->peer_gone || now >= c->deadline)
		return c->rc ? ST_FAILED : ST_DONE;
	return ST_WAIT_DISC;
}

static void conn_run(struct ping_conn *c, struct stk_lcore *lc, uint64_t now)
{
	enum ping_state prev;

	if (c->cq)
		poll_completions(c);
	do {
		prev = c->state;
		switch (c->state) {
		case ST_RESOLVE:
			set_state(c, step_resolve(c, lc, now));
			break;
		case ST_CONNECT:
			set_state(c, step_connect(c));
			break;
		case ST_CONNECTING:
			set_state(c, step_connecting(c));
			break;
		case ST_SEND_START:
			set_state(c, step_send_start(c));
			break;
		case ST_WAIT_READ_GO:
			set_state(c, step_wait_read_go(c));
			break;
		case ST_WAIT_WRITE_GO:
			set_state(c, step_wait_write_go(c));
			break;
		case ST_ACCEPTING:
			set_state(c, step_accepting(c));
			break;
		case ST_WAIT_READ_ADV:
			set_state(c, step_wait_read_adv(c));
			break;
		case ST_READING:
			set_state(c, step_reading(c));
			break;
		case ST_WAIT_WRITE_ADV:
			set_state(c, step_wait_write_adv(c));
			break;
		case ST_WRITING:
			set_state(c, step_writing(c));
			break;
		case ST_DISCONNECT:
			set_state(c, step_disconnect(c, now));
			break;
		case ST_WAIT_DISC:
			set_state(c, step_wait_disc(c, now));
			break;
		case ST_IDLE:
		case ST_DONE:
		case ST_FAILED:
		default:
			break;
		}
	} while (c->state != prev);
}

/* A finished connection: the first one decides the result (without -P); with -P its slot is
 * freed after a linger, so the last frames that point into its buffers have left. */
static void conn_finished(struct ping_conn *c, uint64_t now)
{
	if (c->id) { /* as rping's rdma_destroy_id() right after the test: no TimeWait events */
		DEBUG_LOG("destroy cm_id %p\n", (void *)c->id);
		roce_cm_destroy_id(c->id);
		c->id = NULL;
	}
	if (!g.persistent && !g.finished) {
		g.finished = true;
		g.result = c->rc;
		g.stop_at = now + ms_to_tsc(PING_LINGER_MS);
	}
	if (g.persistent) {
		if (!c->free_at)
			c->free_at = now + ms_to_tsc(PING_LINGER_MS);
		else if (now >= c->free_at)
			conn_free(c);
	}
}

/* On SIGINT/SIGTERM: disconnect what is connected, linger, stop. A second signal stops now. */
static void on_interrupt(uint64_t now)
{
	g.signal_seen = true;
	for (unsigned i = 0; i < PING_MAX_CONNS; i++) {
		struct ping_conn *c = &g.conns[i];

		if (c->id && c->connected && !c->peer_gone && c->state != ST_WAIT_DISC &&
		    c->state != ST_DONE && c->state != ST_FAILED)
			roce_cm_disconnect(c->id);
	}
	g.stop_at = now + ms_to_tsc(PING_LINGER_MS);
}

static void ping_poll(struct stk_lcore *lc, void *arg)
{
	struct roce_cm_event ev;
	uint64_t now = rte_get_tsc_cycles();
	(void)arg;

	if (g.signo && !g.signal_seen)
		on_interrupt(now);
	while (roce_cm_get_event(g.app.cm, &ev) == 0)
		on_cm_event(&ev);
	for (unsigned i = 0; i < PING_MAX_CONNS && !g.signal_seen; i++) {
		struct ping_conn *c = &g.conns[i];

		if (c->state == ST_IDLE)
			continue;
		conn_run(c, lc, now);
		if (c->state == ST_DONE || c->state == ST_FAILED)
			conn_finished(c, now);
	}
	if (g.stop_at && now >= g.stop_at)
		stk_stop();
}

static void on_signal(int sig)
{
	if (g.signo)
		stk_stop(); /* the second one: no more lingering */
	g.signo = sig;
}

/* ------------------------------------------------------------------ options */

static void usage(void)
{
	printf("droce-ping [EAL args --] --config FILE -s [-vVd] [-S size] [-C count] [-a addr] "
	       "[-p port]\n"
	       "droce-ping [EAL args --] --config FILE -c [-vVd] [-S size] [-C count] [-I addr] "
	       "-a addr [-p port]\n"
	       "rping (rdmacm-utils) on the droce stack: the same RDMA CM connection, ping "
	       "protocol,\n"
	       "options and messages, so either end can be rping on a Linux host.\n"
	       "\t-c\t\tclient side\n"
	       "\t-I\t\tSource address to bind to for client (one of droce's).\n"
	       "\t-s\t\tserver side.  To bind to any address with IPv6 use -a ::0\n"
	       "\t-v\t\tdisplay ping data to stdout\n"
	       "\t-V\t\tvalidate ping data\n"
	       "\t-d\t\tdebug printfs (-dd: also every state change)\n"
	       "\t-S size \tping data size (%d to %d, default %d)\n"
	       "\t-C count\tping count times (default 0: until interrupted)\n"
	       "\t-a addr\t\taddress\n"
	       "\t-p port\t\tport (default %d)\n"
	       "\t-P\t\tpersistent server mode allowing multiple connections\n"
	       "\t-q\t\tuse self-created, self-modified QP\n"
	       "\t--config FILE\tdroce INI configuration (docs/config.md); without it the\n"
	       "\t\t\tfile named by the environment variable DROCE_CONF\n"
	       "\t--help\t\tthis text\n"
	       "Exit status, as rping's: 0 success; 255 a connection, transfer or validation "
	       "error;\n"
	       "22 bad arguments or configuration; 256 minus the getaddrinfo() error for a name "
	       "that\n"
	       "does not resolve; 19 the droce stack did not start; 128+N after signal N.\n",
	       PING_MIN_SIZE, PING_BUFSIZE - 1, PING_DEFAULT_SIZE, PING_PORT);
}

/* rping's get_addr(): the first address getaddrinfo() gives. @return 0 or its error. */
static int get_addr(const char *name, struct stk_ipaddr *out)
{
	int rc = app_get_addr(name, out);

	if (rc)
		printf("getaddrinfo failed (%s) - invalid hostname or IP address\n",
		       gai_strerror(rc));
	return rc;
}

/* rping's option loop: every option is read; the status of the last failing one is
 * returned (EINVAL, or getaddrinfo's code); an unknown option stops at once with usage. */
static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 1},
		{"help", no_argument, NULL, 2},
		{NULL, 0, NULL, 0},
	};
	int op, ret = 0, rc;

	optind = 1;
	opterr = 0;
	/* "t:" is in rping 44's option string without a case: it ends in usage, as there */
	while ((op = getopt_long(argc, argv, "a:I:Pp:C:S:t:scvVdq", opts, NULL)) != -1) {
		switch (op) {
		case 'a':
			g.addr_arg = optarg;
			rc = get_addr(optarg, &g.addr);
			if (rc)
				ret = rc;
			break;
		case 'I':
			g.src_arg = optarg;
			rc = get_addr(optarg, &g.src);
			if (rc)
				ret = rc;
			break;
		case 'P':
			g.persistent = true;
			break;
		case 'p':
			g.port = (uint16_t)atoi(optarg); /* rping: htobe16(atoi()) */
			DEBUG_LOG("port %d\n", atoi(optarg));
			break;
		case 's':
			g.server = 1;
			DEBUG_LOG("server\n");
			break;
		case 'c':
			g.server = 0;
			DEBUG_LOG("client\n");
			break;
		case 'S':
			g.size = atoi(optarg);
			if (g.size < PING_MIN_SIZE || g.size > PING_BUFSIZE - 1) {
				fprintf(stderr, "Invalid size %d (valid range is %d to %d)\n",
					g.size, PING_MIN_SIZE, PING_BUFSIZE);
				ret = EINVAL;
			} else {
				DEBUG_LOG("size %d\n", atoi(optarg));
			}
			break;
		case 'C':
			g.count = atoi(optarg);
			if (g.count < 0) {
				fprintf(stderr, "Invalid count %d\n", g.count);
				ret = EINVAL;
			} else {
				DEBUG_LOG("count %d\n", g.count);
			}
			break;
		case 'v':
			g.verbose++;
			DEBUG_LOG("verbose\n");
			break;
		case 'V':
			g.validate++;
			DEBUG_LOG("validate data\n");
			break;
		case 'd':
			g.debug++;
			break;
		case 'q':
			g.self_qp = true;
			break;
		case 1:
			g.config = optarg;
			break;
		case 2:
			usage();
			exit(0);
		default:
			usage();
			return EINVAL;
		}
	}
	if (ret)
		return ret; /* rping lets a later good -a clear an earlier error; not here */
	if (g.server == -1 || optind < argc) {
		usage();
		return EINVAL;
	}
	if (!g.server && !g.addr_arg) {
		fprintf(stderr, "droce-ping: the client needs -a <server address>\n");
		return EINVAL;
	}
	if (!g.config)
		g.config = getenv("DROCE_CONF");
	if (!g.config || !*g.config) {
		fprintf(stderr, "droce-ping: no droce configuration: give --config FILE or set "
				"DROCE_CONF (see conf/example.ini)\n");
		return EINVAL;
	}
	return 0;
}

/* The interface that owns the server's -a address, or that reaches the client's server.
 * @return 0, or -1 with rping's message printed. */
static int pick_iface(void)
{
	char a[64];

	if (g.server) {
		if (app_pick_iface(&g.app, g.addr_arg ? &g.addr : NULL, NULL) == 0)
			return 0;
		fprintf(stderr, "rdma_bind_addr: %s\n", strerror(EADDRNOTAVAIL));
		fprintf(stderr, "droce-ping: %s is not an address of droce's interfaces\n",
			stk_ipaddr_str(&g.addr, a, sizeof(a)));
		return -1;
	}
	app_pick_iface(&g.app, NULL, &g.addr);
	if (g.src_arg && !stk_iface_is_local(stk_iface_get(g.app.iface), &g.src)) {
		fprintf(stderr, "rdma_resolve_addr: %s\n", strerror(EADDRNOTAVAIL));
		fprintf(stderr, "droce-ping: -I %s is not an address of droce's interface %s\n",
			g.src_arg, stk_iface_get(g.app.iface)->name);
		return -1;
	}
	return 0;
}

/* rping_bind_server() / the client's start: the device, its CM, a PD, the listener or the
 * client's connection. @return 0 or -1 with a message printed. */
static int setup(void)
{
	if (app_open_dev(&g.app) != 0)
		return -1;
	DEBUG_LOG("created pd %p\n", (void *)g.app.pd);
	if (g.server) {
		int rc;

		g.listen_id = roce_cm_create_id(g.app.cm, ROCE_CM_PS_TCP, NULL);
		if (!g.listen_id) {
			fprintf(stderr, "rdma_create_id: %s\n", rte_strerror(rte_errno));
			return -1;
		}
		DEBUG_LOG("created cm_id %p\n", (void *)g.listen_id);
		DEBUG_LOG("rdma_bind_addr successful\n");
		DEBUG_LOG("rdma_listen\n");
		rc = roce_cm_listen(g.listen_id, g.port, PING_BACKLOG);
		if (rc != 0) {
			fprintf(stderr, "rdma_listen: %s\n", strerror(-rc));
			return -1;
		}
		return 0;
	}
	{
		struct ping_conn *c = &g.conns[0];

		c->id = roce_cm_create_id(g.app.cm, ROCE_CM_PS_TCP, NULL);
		if (!c->id) {
			fprintf(stderr, "rdma_create_id: %s\n", rte_strerror(rte_errno));
			return -1;
		}
		DEBUG_LOG("created cm_id %p\n", (void *)c->id);
		set_state(c, ST_RESOLVE);
		if (conn_setup(c) != 0) {
			fprintf(stderr, "setup_qp failed: -1\n");
			return -1;
		}
		c->deadline = rte_get_tsc_cycles() + ms_to_tsc(PING_RESOLVE_MS);
	}
	return 0;
}

static void teardown(void)
{
	for (unsigned i = 0; i < PING_MAX_CONNS; i++)
		if (g.conns[i].state != ST_IDLE || g.conns[i].id)
			conn_free(&g.conns[i]);
	if (g.listen_id)
		roce_cm_destroy_id(g.listen_id);
	app_stop(&g.app); /* CM, PD, stack, device, EAL */
}

int main(int argc, char **argv)
{
	int eal_argc, app_argc, status;
	char **eal_argv, **app_argv;

	setvbuf(stdout, NULL, _IOLBF, 0);
	stk_split_args(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	status = parse_args(app_argc, app_argv);
	if (status)
		return status;
	g.app.prog = "droce-ping";
	g.app.config = g.config;
	status = app_start_stack(&g.app, argv[0], eal_argc, eal_argv);
	if (status == APP_EXIT_NODEV)
		fprintf(stderr, "No RDMA devices were detected\n");
	if (status) {
		app_stop(&g.app);
		return status;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	status = EXIT_FAIL;
	if (pick_iface() != 0 || setup() != 0)
		goto out;
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), ping_poll, NULL);
	stk_run();
	if (g.finished)
		status = g.result ? EXIT_FAIL : 0;
	else if (g.signo)
		status = 128 + g.signo;
	if (g.debug > 1)
		for (unsigned i = 0; i < ST_NUM_STATES; i++)
			printf("droce-ping: state %s entered %" PRIu64 " times\n", state_names[i],
			       g.state_cnt[i]);
out:
	teardown();
	return status;
}
