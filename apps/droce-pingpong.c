/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-pingpong - rdma-core's ibv_rc_pingpong on droce: one RC QP, SEND ping-pong of -s bytes
 * for -n iterations, with the same TCP exchange of "LID:QPN:PSN:GID", the same options and
 * the same output, so either end can be ibv_rc_pingpong on a Linux host.
 *
 * Usage: droce-pingpong [EAL args] -- -c FILE [options] [server]   (droce-pingpong -- --help)
 *
 * The exchange (as rdma-core 44's libibverbs/examples/rc_pingpong.c does it): the client
 * connects to TCP port -p, writes its 52-byte message "%04x:%06x:%06x:<32 hex digits>\0" (LID,
 * QPN, PSN, then the 16 GID bytes in wire order), reads the server's, and writes "done\0".
 * The server reads the client's message, moves its QP to RTR and RTS, and only then answers
 * with its own, so its QP is ready before the client's first SEND. The client connects its QP
 * after the exchange and sends first; each side sends again once its previous send completed
 * and a message was received, from the same buffer the receives land in, so the server echoes
 * what it got.
 *
 * Threads: the main lcore runs the stack loop, and the ping-pong as a poll hook (a state
 * machine below); it never blocks. The TCP exchange uses ordinary kernel sockets bound to
 * droce's own address, so their frames go through the stack's exception TAP; it runs on a
 * control thread. The two meet through two flags: the thread publishes the peer's address
 * (remote_ready), the lcore answers once the QP is in RTS (connected).
 *
 * The peer's GID names its IP address (an IPv4-mapped GID for RoCEv2 over IPv4); its MAC comes
 * from the stack's ARP/ND. A zero GID (the peer ran without -g) stands for the address the TCP
 * connection came from.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "app_sock.h"
#include "app_start.h"
#include "roce_cm_wire.h"
#include "roce_dcqcn.h"
#include "roce_verbs.h"
#include "stk_config.h"
#include "stk_stack.h"

#define PP_RECV_WRID 1
#define PP_SEND_WRID 2
/** "LID:QPN:PSN:GID" and its NUL, the size rc_pingpong reads and writes */
#define PP_MSG_LEN (sizeof("0000:000000:000000:00000000000000000000000000000000"))
#define PP_DONE_LEN (sizeof("done"))
#define PP_CONNECT_RETRY_MS 10000 /* a client may start before the server listens */
#define PP_IO_TIMEOUT_MS 30000	  /* one step of the exchange, once connected */
#define PP_RESOLVE_MS 5000
#define PP_LINGER_MS 300 /* the last ACKs leave before the port stops */

enum pp_state {
	PP_WAIT_REMOTE, /**< the exchange thread has not published the peer yet */
	PP_CONNECT,	/**< INIT -> RTR -> RTS towards the peer */
	PP_MOVING,	/**< --qp-lcore: until the QP's lane has taken it over from the main */
	PP_RESOLVE,	/**< waiting for the peer's MAC before the first send */
	PP_RUN,		/**< ping-pong: completions in, the next send out */
	PP_LINGER,	/**< all iterations done: let the last ACKs leave */
	PP_FAILED,	/**< an error: stop */
	PP_DONE,	/**< stop, successfully */
	PP_NUM_STATES
};

/** One side's address as the exchange carries it. */
struct pp_dest {
	uint32_t lid;
	uint32_t qpn;
	uint32_t psn;
	uint8_t gid[16]; /**< wire order */
};

static struct {
	/* the start-up every tool shares (apps/common/app_start.h): config, EAL, stack, device */
	struct app_start app;
	/* options */
	const char *config;
	const char *servername; /**< the server to connect to; NULL: we serve */
	const char *ib_dev;
	uint16_t port;
	int ib_port;
	uint32_t size, rx_depth, iters;
	enum roce_mtu mtu;
	int sl;
	int gidx;
	bool chk;
	unsigned timeout_s;
	unsigned qp_lcore; /**< --qp-lcore: the QP's lane's lcore; RTE_MAX_LCORE: the main one */
	/* verbs */
	struct roce_dev *dev;
	struct roce_pd *pd;
	struct roce_cq *cq;
	struct roce_qp *qp;
	struct roce_mr *mr;
	uint8_t *buf;
	uint8_t *ref; /**< --chk: what every received message must hold */
	bool have_ref;
	struct pp_dest mine, peer;
	struct stk_ipaddr peer_ip, src_ip;
	int listen_fd;
	/* between the exchange thread and the lcore */
	int remote_ready; /**< set by the thread once peer/peer_ip are valid */
	int connected;	  /**< set by the lcore: the QP is in RTS (or 2 = failed) */
	int xchg_failed;  /**< set by the thread */
	/* ping-pong: the main lcore's, or with --qp-lcore handed from it to the QP's (pp_poll) */
	enum pp_state state;
	uint64_t joined0; /**< --qp-lcore: the device's lane joins before the QP moved */
	uint32_t scnt, rcnt, routs, pending;
	uint64_t t_start, t_end, deadline, probe_at, run_deadline;
	uint32_t bad_msgs, first_bad_iter, first_bad_byte;
	char why[160]; /**< the failure, printed by the main thread */
} g = {
	.port = 18515,
	.ib_port = 1,
	.size = 4096,
	.mtu = ROCE_MTU_1024,
	.rx_depth = 500,
	.iters = 1000,
	.gidx = -1,
	.listen_fd = -1,
	.qp_lcore = RTE_MAX_LCORE,
};

static void on_signal(int sig)
{
	(void)sig;
	stk_stop();
}

static uint64_t ms_to_tsc(uint64_t ms)
{
	return ms * rte_get_tsc_hz() / 1000;
}

/* What a --chk client sends. rc_pingpong's server checks only that the first byte of every
 * 4 KiB page is 0 (its client's marking), so those bytes are 0 here too. */
static uint8_t pattern(uint32_t i)
{
	return i % 4096 == 0 ? 0 : (uint8_t)(i * 7u + (i >> 8) + 1u);
}

/* ------------------------------------------------------------------ GIDs and messages */

/* Our GID table, in rxe's order: 0 the link-local address from the MAC, 1 the IPv4-mapped
 * address, 2 the global IPv6 address. @return 0, or -ENOENT when index @p idx is empty. */
static int local_gid(const struct stk_iface *ifc, int idx, uint8_t gid[16], struct stk_ipaddr *ip)
{
	const struct stk_ipaddr *a = NULL;

	if (idx == 0)
		a = &ifc->ip6_ll;
	else if (idx == 1 && ifc->ip4.family == 4)
		a = &ifc->ip4;
	else if (idx == 2 && ifc->ip6.family == 6)
		a = &ifc->ip6;
	if (!a || !a->family)
		return -ENOENT;
	*ip = *a;
	return roce_gid_from_ip(a, gid);
}

/** The address a GID names: IPv4-mapped -> IPv4, else IPv6; family 0 for the zero GID. */
static void gid_to_ip(const uint8_t gid[16], struct stk_ipaddr *ip)
{
	static const uint8_t zero[16];

	memset(ip, 0, sizeof(*ip));
	if (memcmp(gid, zero, 16) != 0)
		roce_gid_to_ip(gid, ip);
}

static void format_dest(const struct pp_dest *d, char msg[PP_MSG_LEN])
{
	char wgid[33];

	for (int i = 0; i < 16; i++)
		snprintf(wgid + 2 * i, 3, "%02x", d->gid[i]);
	memset(msg, 0, PP_MSG_LEN);
	snprintf(msg, PP_MSG_LEN, "%04x:%06x:%06x:%s", d->lid, d->qpn, d->psn, wgid);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parse a peer's message: four colon-separated hex fields, the last exactly 32 digits.
 * @return 0 or -EINVAL. */
static int parse_dest(const char msg[PP_MSG_LEN], struct pp_dest *d)
{
	char copy[PP_MSG_LEN + 1], *f[4], *save = NULL, *end;
	unsigned long v[3];

	memcpy(copy, msg, PP_MSG_LEN);
	copy[PP_MSG_LEN] = '\0';
	f[0] = strtok_r(copy, ":", &save);
	for (int i = 1; i < 4; i++)
		f[i] = f[i - 1] ? strtok_r(NULL, ":", &save) : NULL;
	if (!f[3] || strlen(f[3]) != 32)
		return -EINVAL;
	for (int i = 0; i < 3; i++) {
		errno = 0;
		v[i] = strtoul(f[i], &end, 16);
		if (errno || *end || end == f[i] || v[i] > 0xffffff)
			return -EINVAL;
	}
	d->lid = (uint32_t)v[0];
	d->qpn = (uint32_t)v[1];
	d->psn = (uint32_t)v[2];
	for (int i = 0; i < 16; i++) {
		int hi = hexval(f[3][2 * i]), lo = hexval(f[3][2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		d->gid[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static void print_dest(const char *what, const struct pp_dest *d)
{
	char gid[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, d->gid, gid, sizeof(gid));
	printf("  %s LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s\n", what, d->lid, d->qpn, d->psn,
	       gid);
	fflush(stdout);
}

/* ------------------------------------------------------------------ the TCP exchange */

/* Read exactly @p len bytes (or up to @p len when @p at_least is smaller: stop at EOF once
 * that many arrived). @return bytes read, or -errno. */
static ssize_t read_full(int fd, void *p, size_t len, size_t at_least)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n;
		int rc = app_wait_fd(fd, POLLIN, PP_IO_TIMEOUT_MS);

		if (rc)
			return rc;
		n = read(fd, (uint8_t *)p + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
		if (got >= at_least && at_least < len)
			break;
	}
	return got >= at_least ? (ssize_t)got : -EPIPE;
}

/* Fill @p ss with droce's address of @p family and port @p port. @return its length or 0. */
static socklen_t local_sockaddr(int family, uint16_t port, struct sockaddr_storage *ss)
{
	const struct stk_iface *ifc = stk_iface_get(g.app.iface);

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET && ifc->ip4.family == 4) {
		struct sockaddr_in *s = (struct sockaddr_in *)ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		s->sin_addr.s_addr = ifc->ip4.v4;
		return sizeof(*s);
	}
	if (family == AF_INET6 && ifc->ip6.family == 6) {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons(port);
		memcpy(&s->sin6_addr, ifc->ip6.v6, 16);
		return sizeof(*s);
	}
	return 0;
}

static void sockaddr_to_ip(const struct sockaddr_storage *ss, struct stk_ipaddr *ip)
{
	memset(ip, 0, sizeof(*ip));
	if (ss->ss_family == AF_INET) {
		ip->family = 4;
		ip->v4 = ((const struct sockaddr_in *)ss)->sin_addr.s_addr;
	} else if (ss->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(a)) {
			ip->family = 4;
			memcpy(&ip->v4, &a->s6_addr[12], 4);
		} else {
			ip->family = 6;
			memcpy(ip->v6, a, 16);
		}
	}
}

/* The server's listening socket on droce's address (IPv4 when it has one, else IPv6).
 * Made before the stack runs so that a client finds it as soon as frames flow. */
static int server_listen(void)
{
	struct sockaddr_storage ss;
	socklen_t len = local_sockaddr(AF_INET, g.port, &ss);
	int fd, one = 1;

	if (!len)
		len = local_sockaddr(AF_INET6, g.port, &ss);
	if (!len) {
		fprintf(stderr, "droce-pingpong: interface %u has no IP address\n", g.app.iface);
		return -EADDRNOTAVAIL;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 1) != 0) {
		int rc = -errno;

		fprintf(stderr, "Couldn't listen to port %u: %s\n", g.port, strerror(errno));
		close(fd);
		return rc;
	}
	g.listen_fd = fd;
	return 0;
}

/* Connect to the server from droce's address, retrying while it is not listening yet. */
static int client_connect(void)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *t;
	char service[8];
	uint64_t until = rte_get_tsc_cycles() + ms_to_tsc(PP_CONNECT_RETRY_MS);
	int fd = -1, n;

	snprintf(service, sizeof(service), "%u", g.port);
	n = getaddrinfo(g.servername, service, &hints, &res);
	if (n != 0) {
		fprintf(stderr, "%s for %s:%u\n", gai_strerror(n), g.servername, g.port);
		return -EINVAL;
	}
	while (fd < 0 && !stk_stopping()) {
		for (t = res; t && fd < 0; t = t->ai_next) {
			struct sockaddr_storage ss;
			socklen_t len = local_sockaddr(t->ai_family, 0, &ss);

			if (!len)
				continue; /* droce has no address of this family */
			fd = socket(t->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
			if (fd < 0)
				continue;
			if (bind(fd, (struct sockaddr *)&ss, len) != 0 ||
			    app_connect_bounded(fd, t->ai_addr, t->ai_addrlen,
						PP_CONNECT_RETRY_MS) != 0) {
				close(fd);
				fd = -1;
			}
		}
		if (fd >= 0 || rte_get_tsc_cycles() > until)
			break;
		usleep(200000);
	}
	freeaddrinfo(res);
	if (fd < 0)
		fprintf(stderr, "Couldn't connect to %s:%u\n", g.servername, g.port);
	return fd;
}

/* Publish the peer for the lcore. */
static void publish_peer(int fd)
{
	gid_to_ip(g.peer.gid, &g.peer_ip);
	if (!g.peer_ip.family) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		char a[64];

		/* rc_pingpong without -g sends a zero GID: the TCP peer is the RoCE peer */
		if (getpeername(fd, (struct sockaddr *)&ss, &len) == 0)
			sockaddr_to_ip(&ss, &g.peer_ip);
		fprintf(stderr,
			"droce-pingpong: the peer's GID is zero; using its TCP address %s\n",
			stk_ipaddr_str(&g.peer_ip, a, sizeof(a)));
	}
	__atomic_store_n(&g.remote_ready, 1, __ATOMIC_RELEASE);
}

static int exchange_client(void)
{
	char msg[PP_MSG_LEN];
	int fd = client_connect(), rc = -EIO;

	if (fd < 0)
		return fd;
	format_dest(&g.mine, msg);
	if (app_write_full(fd, msg, PP_MSG_LEN) != 0) {
		fprintf(stderr, "Couldn't send local address\n");
		goto out;
	}
	if (read_full(fd, msg, PP_MSG_LEN, PP_MSG_LEN) != (ssize_t)PP_MSG_LEN ||
	    app_write_full(fd, "done", PP_DONE_LEN) != 0) {
		fprintf(stderr, "Couldn't read/write remote address\n");
		goto out;
	}
	if (parse_dest(msg, &g.peer) != 0) {
		fprintf(stderr, "droce-pingpong: the server's message is not LID:QPN:PSN:GID\n");
		goto out;
	}
	publish_peer(fd);
	rc = 0;
out:
	close(fd);
	return rc;
}

static int exchange_server(void)
{
	char msg[PP_MSG_LEN];
	int fd, rc = -EIO, c;

	rc = app_wait_fd(g.listen_fd, POLLIN, 0);
	if (rc)
		return rc;
	fd = accept(g.listen_fd, NULL, NULL);
	close(g.listen_fd);
	g.listen_fd = -1;
	if (fd < 0) {
		fprintf(stderr, "accept() failed\n");
		return -errno;
	}
	rc = -EIO;
	if (read_full(fd, msg, PP_MSG_LEN, PP_MSG_LEN) != (ssize_t)PP_MSG_LEN) {
		fprintf(stderr, "Couldn't read remote address\n");
		goto out;
	}
	if (parse_dest(msg, &g.peer) != 0) {
		fprintf(stderr, "droce-pingpong: the client's message is not LID:QPN:PSN:GID\n");
		goto out;
	}
	publish_peer(fd);
	/* answer only once our QP is ready for the client's first SEND */
	while ((c = __atomic_load_n(&g.connected, __ATOMIC_ACQUIRE)) == 0 && !stk_stopping())
		usleep(1000);
	if (c != 1)
		goto out;
	format_dest(&g.mine, msg);
	if (app_write_full(fd, msg, PP_MSG_LEN) != 0 ||
	    read_full(fd, msg, PP_MSG_LEN, PP_DONE_LEN) < (ssize_t)PP_DONE_LEN ||
	    memcmp(msg, "done", PP_DONE_LEN) != 0) {
		fprintf(stderr, "Couldn't send/recv local address\n");
		goto out;
	}
	rc = 0;
out:
	close(fd);
	return rc;
}

static void *exchange_thread(void *arg)
{
	int rc = g.servername ? exchange_client() : exchange_server();

	(void)arg;
	if (rc == 0)
		print_dest("remote address:", &g.peer);
	else
		__atomic_store_n(&g.xchg_failed, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ------------------------------------------------------------------ the ping-pong */

static enum pp_state fail(const char *why)
{
	snprintf(g.why, sizeof(g.why), "%s", why);
	return PP_FAILED;
}

static int post_recvs(uint32_t n)
{
	struct roce_sge sg = {.addr = (uintptr_t)g.buf, .length = g.size, .lkey = g.mr->lkey};
	struct roce_recv_wr wr = {.wr_id = PP_RECV_WRID, .sg_list = &sg, .num_sge = 1}, *bad;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (roce_post_recv(g.qp, &wr, &bad) != 0)
			break;
	return (int)i;
}

static int post_send(void)
{
	struct roce_sge sg = {.addr = (uintptr_t)g.buf, .length = g.size, .lkey = g.mr->lkey};
	struct roce_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = PP_SEND_WRID;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = ROCE_WR_SEND;
	wr.send_flags = ROCE_SEND_SIGNALED;
	return roce_post_send(g.qp, &wr, &bad);
}

/* INIT -> RTR -> RTS with the attributes rc_pingpong's pp_connect_ctx() uses. */
static int connect_qp(void)
{
	struct roce_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_RTR;
	a.path_mtu = g.mtu;
	a.dest_qp_num = g.peer.qpn;
	a.rq_psn = g.peer.psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.dgid_ip = g.peer_ip;
	if (g.src_ip.family == g.peer_ip.family)
		a.ah_attr.sgid_ip = g.src_ip;
	/* rc_pingpong asks for hop limit 1, but for RoCE ib_core replaces the GRH hop limit with
	 * the route's (ib_resolve_unicast_gid_dmac()), and rxe sends TTL 64: so do we (0 = 64) */
	a.ah_attr.hop_limit = 0;
	a.ah_attr.pcp = (uint8_t)(g.sl & 7);
	if (g.sl)
		a.ah_attr.flags |= ROCE_PATH_PCP;
	if (roce_modify_qp(g.qp, &a,
			   ROCE_QP_STATE | ROCE_QP_AV | ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN |
				   ROCE_QP_RQ_PSN | ROCE_QP_MAX_DEST_RD_ATOMIC |
				   ROCE_QP_MIN_RNR_TIMER) != 0)
		return -1;
	a.qp_state = ROCE_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = g.mine.psn;
	a.max_rd_atomic = 1;
	return roce_modify_qp(g.qp, &a,
			      ROCE_QP_STATE | ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
				      ROCE_QP_RNR_RETRY | ROCE_QP_SQ_PSN |
				      ROCE_QP_MAX_QP_RD_ATOMIC);
}

static enum pp_state step_wait_remote(void)
{
	if (__atomic_load_n(&g.remote_ready, __ATOMIC_ACQUIRE))
		return PP_CONNECT;
	if (__atomic_load_n(&g.xchg_failed, __ATOMIC_ACQUIRE))
		return fail("the TCP exchange failed");
	return PP_WAIT_REMOTE;
}

static uint64_t lane_joins(void)
{
	struct roce_dev_counts c;

	roce_dev_counts(g.dev, &c);
	return c.qp_joined;
}

static enum pp_state step_connect(uint64_t now)
{
	if (g.qp_lcore != RTE_MAX_LCORE)
		g.joined0 = lane_joins();
	if (connect_qp() != 0) {
		__atomic_store_n(&g.connected, 2, __ATOMIC_RELEASE);
		return fail("Failed to modify QP to RTR/RTS");
	}
	__atomic_store_n(&g.connected, 1, __ATOMIC_RELEASE);
	g.deadline = now + ms_to_tsc(PP_RESOLVE_MS);
	g.probe_at = 0;
	/* with --qp-lcore the QP moves home at the end of the main lane's next poll, and its
	 * lane takes it over at its own next one: until then the main lane may still run it,
	 * so the QP's lcore must not touch its CQ or queues yet */
	return g.qp_lcore != RTE_MAX_LCORE ? PP_MOVING : PP_RESOLVE;
}

/* --qp-lcore: the QP's lane has taken it over (it counts the join) */
static enum pp_state step_moving(uint64_t now)
{
	if (lane_joins() > g.joined0)
		return PP_RESOLVE;
	if (now >= g.deadline)
		return fail("the QP's lane did not take it over");
	return PP_MOVING;
}

static enum pp_state start_run(uint64_t now)
{
	g.pending = PP_RECV_WRID;
	if (g.servername) { /* the client sends first */
		if (g.chk) {
			for (uint32_t i = 0; i < g.size; i++)
				g.buf[i] = pattern(i);
			memcpy(g.ref, g.buf, g.size);
			g.have_ref = true;
		}
		if (post_send() != 0)
			return fail("Couldn't post send");
		g.pending |= PP_SEND_WRID;
	}
	g.t_start = now;
	if (g.timeout_s)
		g.run_deadline = now + ms_to_tsc((uint64_t)g.timeout_s * 1000);
	return PP_RUN;
}

static enum pp_state step_resolve(struct stk_lcore *lc, uint64_t now)
{
	const struct stk_iface *ifc = stk_iface_get(g.app.iface);
	const struct stk_neigh *n;

	if (!stk_iface_on_link(ifc, &g.peer_ip))
		return start_run(now); /* via a gateway: the transport resolves it */
	n = stk_neigh_lookup(lc->neigh, ifc->idx, &g.peer_ip);
	if (n && n->state != STK_NEIGH_INCOMPLETE)
		return start_run(now);
	if (now >= g.deadline)
		return fail("the peer does not answer ARP/ND");
	if (now >= g.probe_at) {
		stk_neigh_probe(lc, ifc, &g.peer_ip);
		g.probe_at = now + ms_to_tsc(200);
	}
	return PP_RESOLVE;
}

static void check_received(const struct roce_wc *wc)
{
	uint32_t bad = UINT32_MAX;

	if (!g.chk)
		return;
	if (wc->byte_len != g.size) {
		bad = wc->byte_len < g.size ? wc->byte_len : g.size;
	} else if (!g.have_ref) {
		/* the server: the client's first message is the reference for all others */
		memcpy(g.ref, g.buf, g.size);
		g.have_ref = true;
	} else if (memcmp(g.buf, g.ref, g.size) != 0) {
		for (bad = 0; bad < g.size && g.buf[bad] == g.ref[bad]; bad++)
			;
	}
	if (bad != UINT32_MAX && g.bad_msgs++ == 0) {
		g.first_bad_iter = g.rcnt;
		g.first_bad_byte = bad;
	}
}

/* One completion, as rc_pingpong's parse_single_wc(). */
static enum pp_state on_wc(const struct roce_wc *wc)
{
	if (wc->status != ROCE_WC_SUCCESS) {
		snprintf(g.why, sizeof(g.why), "Failed status %s (%d) for wr_id %d",
			 roce_wc_status_str(wc->status), (int)wc->status, (int)wc->wr_id);
		return PP_FAILED;
	}
	switch ((int)wc->wr_id) {
	case PP_SEND_WRID:
		g.scnt++;
		break;
	case PP_RECV_WRID:
		if (--g.routs <= 1) {
			g.routs += (uint32_t)post_recvs(g.rx_depth - g.routs);
			if (g.routs < g.rx_depth)
				return fail("Couldn't post receive");
		}
		check_received(wc);
		g.rcnt++;
		break;
	default:
		return fail("Completion for unknown wr_id");
	}
	g.pending &= ~(uint32_t)wc->wr_id;
	if (g.scnt < g.iters && !g.pending) {
		if (post_send() != 0)
			return fail("Couldn't post send");
		g.pending = PP_RECV_WRID | PP_SEND_WRID;
	}
	return PP_RUN;
}

static enum pp_state step_run(uint64_t now)
{
	struct roce_wc wc[16];
	int n = roce_poll_cq(g.cq, 16, wc);

	if (n < 0)
		return fail("poll CQ failed");
	for (int i = 0; i < n; i++)
		if (on_wc(&wc[i]) != PP_RUN)
			return PP_FAILED;
	if (g.rcnt >= g.iters && g.scnt >= g.iters) {
		g.t_end = now;
		g.deadline = now + ms_to_tsc(PP_LINGER_MS);
		return PP_LINGER;
	}
	if (g.run_deadline && now > g.run_deadline)
		return fail("timed out (--timeout)");
	return PP_RUN;
}

/*
 * The ping-pong's state machine, a poll hook. With --qp-lcore it runs on two lcores, each
 * stepping only its own states (the other's hook passes): the main lcore (arg NULL) waits for
 * the exchange and brings the QP to RTS (a QP runs on the primary lane, the CM's, until RTS);
 * the QP's lcore (arg set) resolves the peer's MAC in its own neighbour table and runs the
 * traffic on the QP's CQ. The state is handed over with release/acquire.
 */
static void pp_poll(struct stk_lcore *lc, void *arg)
{
	uint64_t now = rte_get_tsc_cycles();
	bool split = g.qp_lcore != RTE_MAX_LCORE, qp_side = !split || arg,
	     ctl_side = !split || !arg;
	enum pp_state prev, s = __atomic_load_n(&g.state, __ATOMIC_ACQUIRE);

	do {
		prev = s;
		switch (s) {
		case PP_WAIT_REMOTE:
			if (ctl_side)
				s = step_wait_remote();
			break;
		case PP_CONNECT:
			if (ctl_side)
				s = step_connect(now);
			break;
		case PP_MOVING:
			if (ctl_side)
				s = step_moving(now);
			break;
		case PP_RESOLVE:
			if (qp_side)
				s = step_resolve(lc, now);
			break;
		case PP_RUN:
			if (qp_side)
				s = step_run(now);
			break;
		case PP_LINGER:
			if (qp_side && now >= g.deadline)
				s = PP_DONE;
			break;
		case PP_FAILED:
		case PP_DONE:
		default:
			stk_stop();
			break;
		}
		if (s != prev)
			__atomic_store_n(&g.state, s, __ATOMIC_RELEASE);
	} while (s != prev);
}

/* ------------------------------------------------------------------ options and main */

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage:\n"
		"  %s [EAL args] -- -c FILE [options]           start a server and wait for "
		"connection\n"
		"  %s [EAL args] -- -c FILE [options] <host>    connect to server at <host>\n"
		"\n"
		"ibv_rc_pingpong on the droce stack: the same TCP exchange, options and output.\n"
		"Options:\n"
		"  -c, --config=<file>    droce INI configuration (docs/config.md); required\n"
		"  -p, --port=<port>      listen on/connect to port <port> (default 18515)\n"
		"  -d, --ib-dev=<dev>     use device <dev>: droceN or the config section (default "
		"droce0)\n"
		"  -i, --ib-port=<port>   use port <port> of the device (only 1 exists)\n"
		"  -s, --size=<size>      size of message to exchange (default 4096)\n"
		"  -m, --mtu=<size>       path MTU 256..4096 (default 1024)\n"
		"  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n"
		"  -n, --iters=<iters>    number of exchanges (default 1000)\n"
		"  -l, --sl=<sl>          service level value (sent as the 802.1Q priority)\n"
		"  -e, --events           accepted; droce always polls\n"
		"  -g, --gid-idx=<gid index> local port gid index: 0 link-local IPv6, 1 IPv4-mapped,\n"
		"                         2 global IPv6 (default: send a zero GID, as "
		"ibv_rc_pingpong)\n"
		"      --chk              validate received buffer: every message byte for byte\n"
		"                         (ibv_rc_pingpong's -c; -c is droce's config here)\n"
		"      --timeout=<sec>    give up the ping-pong after <sec> seconds (default: "
		"never)\n"
		"      --qp-lcore=<lc>    run the device on two lanes: the main lcore (CM, set-up)\n"
		"                         and EAL lcore <lc>, where the QP, its CQ and the traffic\n"
		"                         live from RTS on (needs [eal] lcores with both)\n"
		"  -h, --help             this text\n"
		"Exit status: 0 success, 1 the exchange or a transfer failed or data differed,\n"
		"2 bad arguments or configuration, 3 stack start-up failed.\n",
		prog, prog);
}

static int parse_num(const char *opt, const char *v, unsigned long min, unsigned long max,
		     unsigned long *out)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 0);
	if (errno || end == v || *end || v[0] == '-' || x < min || x > max) {
		fprintf(stderr, "droce-pingpong: %s %s: expected an integer from %lu to %lu\n", opt,
			v, min, max);
		return -1;
	}
	*out = x;
	return 0;
}

static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"port", required_argument, NULL, 'p'},
		{"ib-dev", required_argument, NULL, 'd'},
		{"ib-port", required_argument, NULL, 'i'},
		{"size", required_argument, NULL, 's'},
		{"mtu", required_argument, NULL, 'm'},
		{"rx-depth", required_argument, NULL, 'r'},
		{"iters", required_argument, NULL, 'n'},
		{"sl", required_argument, NULL, 'l'},
		{"events", no_argument, NULL, 'e'},
		{"gid-idx", required_argument, NULL, 'g'},
		{"chk", no_argument, NULL, 1},
		{"timeout", required_argument, NULL, 2},
		{"qp-lcore", required_argument, NULL, 3},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned long x;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:p:d:i:s:m:r:n:l:eg:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			g.config = optarg;
			break;
		case 'p':
			if (parse_num("--port", optarg, 1, 65535, &x))
				return -1;
			g.port = (uint16_t)x;
			break;
		case 'd':
			g.ib_dev = optarg;
			break;
		case 'i':
			if (parse_num("--ib-port", optarg, 1, 1, &x))
				return -1;
			g.ib_port = (int)x;
			break;
		case 's':
			if (parse_num("--size", optarg, 0, 1u << 30, &x))
				return -1;
			g.size = (uint32_t)x;
			break;
		case 'm':
			if (parse_num("--mtu", optarg, 256, 4096, &x) || (x & (x - 1))) {
				fprintf(stderr,
					"droce-pingpong: --mtu %s: expected 256, 512, 1024, "
					"2048 or 4096\n",
					optarg);
				return -1;
			}
			g.mtu = (enum roce_mtu)(__builtin_ctzl(x) - 7);
			break;
		case 'r':
			if (parse_num("--rx-depth", optarg, 1, ROCE_MAX_QP_WR, &x))
				return -1;
			g.rx_depth = (uint32_t)x;
			break;
		case 'n':
			if (parse_num("--iters", optarg, 1, INT32_MAX, &x))
				return -1;
			g.iters = (uint32_t)x;
			break;
		case 'l':
			if (parse_num("--sl", optarg, 0, 15, &x))
				return -1;
			g.sl = (int)x;
			break;
		case 'e':
			break;
		case 'g':
			if (parse_num("--gid-idx", optarg, 0, 2, &x))
				return -1;
			g.gidx = (int)x;
			break;
		case 1:
			g.chk = true;
			break;
		case 2:
			if (parse_num("--timeout", optarg, 0, 86400, &x))
				return -1;
			g.timeout_s = (unsigned)x;
			break;
		case 3:
			if (parse_num("--qp-lcore", optarg, 0, RTE_MAX_LCORE - 1, &x))
				return -1;
			g.qp_lcore = (unsigned)x;
			break;
		case 'h':
			usage(stdout, argv[0]);
			exit(0);
		default:
			usage(stderr, argv[0]);
			return -1;
		}
	}
	if (optind == argc - 1) {
		g.servername = argv[optind];
	} else if (optind < argc) {
		fprintf(stderr, "droce-pingpong: unexpected argument '%s'\n", argv[optind + 1]);
		return -1;
	}
	if (!g.config) {
		fprintf(stderr, "droce-pingpong: -c/--config FILE is required (see "
				"conf/example.ini)\n");
		return -1;
	}
	return 0;
}

/* -d: "droceN" names interface N; the config section name ("port0") works too. */
static int pick_iface(const struct stk_config *cfg)
{
	return app_iface_by_name(cfg, g.ib_dev, &g.app.iface) ? -1 : 0;
}

/* Verbs objects and the QP in INIT with rx_depth receives posted, as pp_init_ctx(). */
static int setup_verbs(void)
{
	struct roce_qp_init_attr ia;
	struct roce_qp_attr a;
	uint64_t len = g.size ? g.size : 1;

	if (g.qp_lcore != RTE_MAX_LCORE) {
		/* two lanes: the main lcore runs the CM and the exchange's QP transitions, the QP
		 * lives on --qp-lcore from RTS on, with its CQ and the ping-pong's traffic */
		if (g.qp_lcore == rte_get_main_lcore() || !rte_lcore_is_enabled(g.qp_lcore) ||
		    !stk_lcore_get(g.qp_lcore)) {
			fprintf(stderr,
				"droce-pingpong: --qp-lcore %u: not a worker lcore of the stack (give "
				"[eal] lcores two lcores, e.g. 0,1, and the port as many queues)\n",
				g.qp_lcore);
			return -1;
		}
		g.app.lane_lcores[0] = rte_get_main_lcore();
		g.app.lane_lcores[1] = g.qp_lcore;
		g.app.nlanes = 2;
	}
	if (app_open_dev(&g.app) != 0) /* the device with [dcqcn], its CM, a PD; polled */
		return -1;
	g.dev = g.app.dev;
	g.pd = g.app.pd;
	g.cq = roce_create_cq(g.dev, g.rx_depth + 1);
	g.buf = rte_zmalloc("pingpong", len, 4096);
	g.ref = rte_zmalloc("pingpong_ref", len, 0);
	if (!g.pd || !g.cq || !g.buf || !g.ref) {
		fprintf(stderr, "Couldn't allocate the device, PD, CQ or buffers: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	memset(g.buf, 0x7b, len);
	g.mr = roce_reg_mr(g.pd, g.buf, len, (uintptr_t)g.buf, ROCE_ACCESS_LOCAL_WRITE);
	if (!g.mr) {
		fprintf(stderr, "Couldn't register MR\n");
		return -1;
	}
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = g.cq;
	ia.qp_type = ROCE_QPT_RC;
	ia.cap.max_send_wr = 1;
	ia.cap.max_recv_wr = g.rx_depth;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.on_lcore = g.qp_lcore != RTE_MAX_LCORE;
	ia.lcore = g.qp_lcore;
	g.qp = roce_create_qp(g.pd, &ia);
	if (!g.qp) {
		fprintf(stderr, "Couldn't create QP\n");
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = (uint8_t)g.ib_port;
	if (roce_modify_qp(g.qp, &a,
			   ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT |
				   ROCE_QP_ACCESS_FLAGS) != 0) {
		fprintf(stderr, "Failed to modify QP to INIT\n");
		return -1;
	}
	g.routs = (uint32_t)post_recvs(g.rx_depth);
	if (g.routs < g.rx_depth) {
		fprintf(stderr, "Couldn't post receive (%u)\n", g.routs);
		return -1;
	}
	return 0;
}

static void teardown_verbs(void)
{
	if (g.qp)
		roce_destroy_qp(g.qp);
	if (g.cq)
		roce_destroy_cq(g.cq);
	if (g.mr) {
		/* after stk_run(): what is still queued leaves as the lcores that ran the device
		 * poll (both quiet now); the QP's frames wait on its lane's lcore */
		struct stk_lcore *lc[2] = {stk_lcore_get(rte_get_main_lcore()),
					   g.qp_lcore != RTE_MAX_LCORE ? stk_lcore_get(g.qp_lcore)
								       : NULL};
		int rc = roce_dereg_mr(g.mr);

		for (unsigned i = 0; rc == -EBUSY && i < 100000; i++) {
			stk_lcore_poll(lc[i & 1] ? lc[i & 1] : lc[0]);
			rc = roce_dereg_mr(g.mr);
		}
		if (rc != 0)
			fprintf(stderr, "droce-pingpong: frames still point into the buffer\n");
	}
}

static int report(void)
{
	double usec = (double)(g.t_end - g.t_start) * 1e6 / (double)rte_get_tsc_hz();
	long long bytes = (long long)g.size * g.iters * 2;

	if (g.state != PP_DONE) {
		fprintf(stderr, "droce-pingpong: %s\n",
			g.why[0] ? g.why : "stopped before the ping-pong finished");
		return 1;
	}
	if (usec <= 0)
		usec = 1;
	printf("%lld bytes in %.2f seconds = %.2f Mbit/sec\n", bytes, usec / 1000000.,
	       (double)bytes * 8. / usec);
	printf("%u iters in %.2f seconds = %.2f usec/iter\n", g.iters, usec / 1000000.,
	       usec / g.iters);
	if (g.qp_lcore != RTE_MAX_LCORE) {
		/* on stderr: stdout stays ibv_rc_pingpong's */
		struct roce_dev_counts c;
		struct roce_qp_stats qs;

		roce_dev_counts(g.dev, &c);
		roce_qp_query_stats(g.qp, &qs);
		fprintf(stderr,
			"droce-pingpong: lanes: the QP's home is lcore %u; its engines changed lcore "
			"%" PRIu64 " times; QPs joined a lane %" PRIu64
			", frames handed to their owner %" PRIu64
			", calls from a wrong lcore %" PRIu64 "\n",
			roce_qp_lcore(g.qp), qs.lcore_moves, c.qp_joined, c.rx_handoff,
			c.wrong_lcore);
	}
	if (g.chk && g.bad_msgs) {
		printf("invalid data in %u of %u received messages (first: iteration %u, byte "
		       "%u)\n",
		       g.bad_msgs, g.rcnt, g.first_bad_iter, g.first_bad_byte);
		return 1;
	}
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	int eal_argc, app_argc, status = 1, rc;
	char **eal_argv, **app_argv;
	pthread_t tid;
	bool thread = false;

	g.app.prog = "droce-pingpong";
	stk_split_args(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	if (parse_args(app_argc, app_argv) != 0)
		return 2;
	g.app.config = g.config;
	/* the shared start-up, with ibv_rc_pingpong's exit statuses kept: 2 for the
	 * configuration, 3 for the stack; -d is looked up before the EAL starts */
	if (app_load_config(&g.app) != 0 || pick_iface(&g.app.cfg) != 0)
		return 2;
	rc = app_start_stack(&g.app, argv[0], eal_argc, eal_argv);
	if (rc != 0) {
		app_stop(&g.app);
		return rc == APP_EXIT_CONFIG ? 2 : 3;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	srand48((long)getpid() * (long)time(NULL));
	if (setup_verbs() != 0)
		goto out;
	g.mine.lid = 0; /* RoCE has no LIDs */
	g.mine.qpn = roce_qp_num(g.qp);
	g.mine.psn = (uint32_t)lrand48() & 0xffffff;
	if (g.gidx >= 0 &&
	    local_gid(stk_iface_get(g.app.iface), g.gidx, g.mine.gid, &g.src_ip) != 0) {
		fprintf(stderr, "can't read sgid of index %d\n", g.gidx);
		goto out;
	}
	if (!g.servername && server_listen() != 0)
		goto out;
	print_dest("local address: ", &g.mine);
	rc = rte_ctrl_thread_create(&tid, "pp-exchange", NULL, exchange_thread, NULL);
	if (rc != 0) {
		fprintf(stderr, "droce-pingpong: cannot start the exchange thread: %s\n",
			strerror(rc));
		goto out;
	}
	thread = true;
	g.state = PP_WAIT_REMOTE;
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), pp_poll, NULL);
	if (g.qp_lcore != RTE_MAX_LCORE)
		stk_lcore_add_poll(stk_lcore_get(g.qp_lcore), pp_poll, &g.qp_lcore);
	stk_run();
	status = report();
out:
	stk_stop(); /* the exchange thread, if still waiting, watches for it */
	if (thread)
		pthread_join(tid, NULL);
	if (g.listen_fd >= 0)
		close(g.listen_fd);
	teardown_verbs();
	rte_free(g.buf);
	rte_free(g.ref);
	app_stop(&g.app); /* CM, PD, stack, device, EAL */
	return status;
}
