/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-perf-xchg.c - perftest's out-of-band channel and what goes over it
 * (perftest_communication.c), run on the control thread.
 *
 * The channel is a TCP connection to port -p (18515), client to server (perftest
 * ethernet_client_connect() / ethernet_server_connect(), IPv4), or with -R an RC "comm" QP
 * that rdma_cm connects on the same port (rdma_client_connect() / rdma_server_connect()),
 * carrying each message as one SEND into a 56-byte receive. The sockets are kernel sockets
 * bound to droce's address, so the frames go through the stack's exception TAP; the comm QP
 * lives on the lcore, which takes our messages from perf_comm_send() and hands received ones
 * to perf_comm_recv().
 *
 * Every exchange is symmetric: the client writes and then reads, the server reads and then
 * writes (ctx_xchg_data(), ctx_hand_shake()). The messages:
 *   version     16 bytes, "6.06" NUL-padded (exchange_versions(); < 5.70 is refused)
 *   sys data    the page size, then the cache line size, 4-byte big-endian ints; both take
 *               the larger (check_sys_data(), peers >= 5.32)
 *   MTU         "%d" of the ibv_mtu code in 2 bytes ("3\0"); both take the smaller
 *               (check_mtu(), peers >= 5.31)
 *   keys        TCP: the 108-byte text "LID:OUT_READS:QPN:PSN:RKEY:VADDR:GID[0]:...:GID[15]:
 *               SRQN:" with its NUL (KEY_PRINT_FMT_GID, ethernet_write_keys()); rdma_cm: the
 *               56-byte struct pingpong_dest with big-endian fields (rdma_write_keys())
 *   BW report   size, iters (8 bytes each from 5.33), BW peak, BW average and message rate
 *               (IEEE doubles), each big endian and each its own exchange (xchg_bw_reports())
 *   close       a key handshake, then on TCP "done" with its NUL, and close
 *               (ctx_close_connection())
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>

#include "app_sock.h"
#include "droce-perf.h"
#include "stk_stack.h"

#define KEY_MSG_SIZE_GID APP_PT_KEYS_LEN
#define XCHG_CONNECT_MS 30000	/* a client may start before the server listens */
#define XCHG_DONE_LINGER_MS 500 /* the peer's "done" is read before we close */

/* ------------------------------------------------------------------ sockets */

static socklen_t droce_sockaddr(uint16_t port, struct sockaddr_in *s)
{
	const struct stk_iface *ifc = stk_iface_get(perf.p.iface);

	memset(s, 0, sizeof(*s));
	if (ifc->ip4.family != 4)
		return 0;
	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	s->sin_addr.s_addr = ifc->ip4.v4;
	return sizeof(*s);
}

/* ethernet_server_connect(): perftest listens on IPv4 only; we on droce's IPv4 address. Made
 * before the stack runs so that a client finds it as soon as frames flow. */
int perf_tcp_listen(void)
{
	struct sockaddr_in sin;
	int fd, one = 1;

	if (!droce_sockaddr(perf.p.port, &sin)) {
		fprintf(stderr,
			"droce-perf: interface %u has no IPv4 address (perftest's exchange "
			"is IPv4)\n",
			perf.p.iface);
		return -EADDRNOTAVAIL;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 || listen(fd, 1) != 0) {
		int rc = -errno;

		fprintf(stderr, "Couldn't listen to port %d\n", perf.p.port);
		close(fd);
		return rc;
	}
	perf.listen_fd = fd;
	return 0;
}

static int tcp_accept(void)
{
	int rc = app_wait_fd(perf.listen_fd, POLLIN, 0), fd;

	if (rc)
		return rc;
	fd = accept(perf.listen_fd, NULL, NULL);
	close(perf.listen_fd);
	perf.listen_fd = -1;
	if (fd < 0) {
		perror("server accept");
		fprintf(stderr, "accept() failed\n");
		return -errno;
	}
	perf.sock_fd = fd;
	return 0;
}

/* ethernet_client_connect(), from droce's address, retrying while the server is not yet
 * listening (perftest does not retry; a droce server may still be starting) */
static int tcp_connect(void)
{
	struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res;
	uint64_t until = rte_get_tsc_cycles() + perf_ms_to_tsc(XCHG_CONNECT_MS);
	struct sockaddr_in src;
	char service[8];
	int n, fd = -1;

	snprintf(service, sizeof(service), "%u", perf.p.port);
	n = getaddrinfo(perf.p.servername, service, &hints, &res);
	if (n != 0) {
		fprintf(stderr, "%s for %s:%d\n", gai_strerror(n), perf.p.servername, perf.p.port);
		return -EINVAL;
	}
	if (!droce_sockaddr(0, &src)) {
		freeaddrinfo(res);
		fprintf(stderr, "droce-perf: interface %u has no IPv4 address\n", perf.p.iface);
		return -EADDRNOTAVAIL;
	}
	while (!stk_stopping()) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd >= 0 &&
		    (bind(fd, (struct sockaddr *)&src, sizeof(src)) != 0 ||
		     app_connect_bounded(fd, res->ai_addr, res->ai_addrlen, 2000) != 0)) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0 || rte_get_tsc_cycles() > until)
			break;
		usleep(200000);
	}
	freeaddrinfo(res);
	if (fd < 0) {
		fprintf(stderr, "Couldn't connect to %s:%d\n", perf.p.servername, perf.p.port);
		return -ECONNREFUSED;
	}
	perf.sock_fd = fd;
	return 0;
}

void perf_xchg_shutdown(void)
{
	if (perf.sock_fd >= 0)
		close(perf.sock_fd);
	if (perf.listen_fd >= 0)
		close(perf.listen_fd);
	perf.sock_fd = perf.listen_fd = -1;
}

/* ------------------------------------------------------------------ the comm QP (-R) */

/* Wait (polling) until *@p v differs from @p old, or the comm connection or the stack goes
 * away. @return 0, -ECONNRESET or -EINTR. */
static int wait_change(const uint32_t *v, uint32_t old)
{
	for (;;) {
		if (__atomic_load_n(v, __ATOMIC_ACQUIRE) != old)
			return 0;
		if (stk_stopping())
			return -EINTR;
		if (__atomic_load_n(&perf.comm_up, __ATOMIC_ACQUIRE) < 0)
			return __atomic_load_n(v, __ATOMIC_ACQUIRE) != old ? 0 : -ECONNRESET;
		usleep(100);
	}
}

int perf_comm_send(const void *data, uint32_t len)
{
	uint32_t seq = perf.tx_req + 1;
	int rc;

	if (len > PERF_COMM_MSG)
		return -EMSGSIZE;
	memcpy(perf.tx_data, data, len);
	perf.tx_len = len;
	__atomic_store_n(&perf.tx_req, seq, __ATOMIC_RELEASE);
	rc = wait_change(&perf.tx_done, seq - 1);
	if (rc)
		return rc;
	return __atomic_load_n(&perf.tx_rc, __ATOMIC_ACQUIRE);
}

int perf_comm_recv(void *data, uint32_t len)
{
	uint32_t tail = perf.rx_tail, slot;
	int rc;

	/* a message that arrived before the connection went away is still good */
	rc = wait_change(&perf.rx_head, tail);
	if (rc)
		return rc;
	slot = tail % PERF_COMM_RX;
	if (perf.rx[slot].len != len) {
		fprintf(stderr,
			"droce-perf: the peer sent %u bytes where perftest's exchange "
			"has %u here\n",
			perf.rx[slot].len, len);
		return -EPROTO;
	}
	memcpy(data, perf.rx[slot].data, len);
	__atomic_store_n(&perf.rx_tail, tail + 1, __ATOMIC_RELEASE);
	return 0;
}

/* ------------------------------------------------------------------ exchanges */

static int raw_write(const void *p, uint32_t len)
{
	if (perf.p.rdma_cm)
		return perf_comm_send(p, len);
	return app_write_full(perf.sock_fd, p, len);
}

static int raw_read(void *p, uint32_t len)
{
	if (perf.p.rdma_cm)
		return perf_comm_recv(p, len);
	return app_read_full(perf.sock_fd, p, len,
			     0) /* the peer may take as long as its test runs */;
}

int perf_xchg_open(void)
{
	if (perf.p.rdma_cm)
		return perf_lcore_cmd(PERF_CMD_CM_COMM);
	return perf.p.servername ? tcp_connect() : tcp_accept();
}

/* ctx_xchg_data(): the client writes first */
int perf_xchg_data(const void *mine, void *theirs, uint32_t len)
{
	int rc;

	if (perf.p.servername) {
		rc = raw_write(mine, len);
		if (rc == 0)
			rc = raw_read(theirs, len);
	} else {
		rc = raw_read(theirs, len);
		if (rc == 0)
			rc = raw_write(mine, len);
	}
	if (rc)
		fprintf(stderr, " Failed to exchange data between server and clients\n");
	return rc;
}

static void encode_wire(const struct perf_dest *d, struct perf_dest_wire *w)
{
	memset(w, 0, sizeof(*w));
	w->lid = rte_cpu_to_be_32(d->lid);
	w->out_reads = rte_cpu_to_be_32(d->out_reads);
	w->qpn = rte_cpu_to_be_32(d->qpn);
	w->psn = rte_cpu_to_be_32(d->psn);
	w->rkey = rte_cpu_to_be_32(d->rkey);
	w->vaddr = rte_cpu_to_be_64(d->vaddr);
	memcpy(w->gid, d->gid, 16);
	w->srqn = rte_cpu_to_be_32(d->srqn);
	w->gid_index = rte_cpu_to_be_32((uint32_t)perf.p.gid_index);
}

/* rdma_read_keys(): perftest takes neither srqn nor gid_index from the wire */
static void decode_wire(const struct perf_dest_wire *w, struct perf_dest *d)
{
	memset(d, 0, sizeof(*d));
	d->lid = rte_be_to_cpu_32(w->lid);
	d->out_reads = rte_be_to_cpu_32(w->out_reads);
	d->qpn = rte_be_to_cpu_32(w->qpn);
	d->psn = rte_be_to_cpu_32(w->psn);
	d->rkey = rte_be_to_cpu_32(w->rkey);
	d->vaddr = rte_be_to_cpu_64(w->vaddr);
	memcpy(d->gid, w->gid, 16);
}

/* ctx_hand_shake(): our keys out, the peer's in (the client writes first). The GID form of
 * the text message is used on both sides: RoCE always has a GID index. */
int perf_hand_shake(const struct perf_dest *mine, struct perf_dest *theirs)
{
	char out[KEY_MSG_SIZE_GID], in[KEY_MSG_SIZE_GID];
	struct perf_dest_wire wout, win;
	const void *o = out;
	void *i = in;
	uint32_t len = KEY_MSG_SIZE_GID;
	int rc;

	if (perf.p.rdma_cm) {
		encode_wire(mine, &wout);
		o = &wout;
		i = &win;
		len = sizeof(wout);
	} else {
		app_pt_format_keys(mine, out);
	}
	if (perf.p.servername) {
		rc = raw_write(o, len);
		if (rc == 0)
			rc = raw_read(i, len);
	} else {
		rc = raw_read(i, len);
		if (rc == 0)
			rc = raw_write(o, len);
	}
	if (rc) {
		fprintf(stderr, " Unable to %s socket/rdma_cm\n",
			rc == -EPIPE ? "read from (closed by the peer)" : "write to / read from");
		return rc;
	}
	if (perf.p.rdma_cm) {
		decode_wire(&win, theirs);
		return 0;
	}
	in[KEY_MSG_SIZE_GID - 1] = '\0';
	if (app_pt_parse_keys(in, theirs) != 0) {
		fprintf(stderr, "Couldn't parse line <%.*s>\n", KEY_MSG_SIZE_GID, in);
		return -EPROTO;
	}
	return 0;
}

/* ctx_close_connection() */
int perf_close_connection(void)
{
	char done[sizeof("done")];
	int rc = perf_hand_shake(&perf.my_dest[0], &perf.rem_dest[0]);

	if (rc || perf.p.rdma_cm)
		return rc;
	rc = app_write_full(perf.sock_fd, "done", sizeof("done"));
	if (rc) {
		fprintf(stderr, "Couldn't write to socket\n");
		return rc;
	}
	/* perftest never reads the other side's "done"; we do, briefly, so that closing does
	 * not turn unread bytes into a reset */
	if (app_wait_fd(perf.sock_fd, POLLIN, XCHG_DONE_LINGER_MS) == 0) {
		ssize_t n = read(perf.sock_fd, done, sizeof(done));

		(void)n;
	}
	close(perf.sock_fd);
	perf.sock_fd = -1;
	return 0;
}

/* exchange_versions() and check_version_compatibility() */
int perf_exchange_versions(void)
{
	char mine[PERF_VERSION_LEN] = PERF_VERSION, theirs[PERF_VERSION_LEN];

	if (perf_xchg_data(mine, theirs, PERF_VERSION_LEN) != 0)
		return -1;
	memcpy(perf.p.rem_version, theirs, PERF_VERSION_LEN);
	perf.p.rem_version[PERF_VERSION_LEN] = '\0';
	if (atof(perf.p.rem_version) < 5.70) {
		fprintf(stderr, "Current implementation is not compatible with versions older than "
				"5.70\n");
		return -1;
	}
	return 0;
}

/* check_sys_data(): page size and cache line, the larger of both sides wins */
int perf_check_sys_data(void)
{
	rte_be32_t m_cycle = rte_cpu_to_be_32(perf.p.cycle_buffer), r_cycle = 0;
	rte_be32_t m_cl = rte_cpu_to_be_32(perf.p.cache_line_size), r_cl = 0;
	uint32_t rc_cycle, rc_cl;

	if (!(atof(perf.p.rem_version) >= 5.32))
		return 0;
	if (perf_xchg_data(&m_cycle, &r_cycle, 4) != 0 || perf_xchg_data(&m_cl, &r_cl, 4) != 0)
		return -1;
	rc_cycle = rte_be_to_cpu_32(r_cycle);
	rc_cl = rte_be_to_cpu_32(r_cl);
	if ((int32_t)rc_cycle > (int32_t)perf.p.cycle_buffer)
		perf.p.cycle_buffer = rc_cycle;
	if ((int32_t)rc_cl > (int32_t)perf.p.cache_line_size)
		perf.p.cache_line_size = rc_cl;
	return 0;
}

/* check_mtu(): the ibv_mtu code as text, 2 bytes from 5.31; the smaller valid one wins */
int perf_check_mtu(void)
{
	char cur[4] = {0}, rem[5] = {0};
	uint32_t len = atof(perf.p.rem_version) >= 5.31 ? 2 : 4;
	long r;

	if (!(atof(perf.p.rem_version) >= 5.1))
		return 0;
	snprintf(cur, sizeof(cur), "%d", (int)perf.p.curr_mtu);
	if (perf_xchg_data(cur, rem, len) != 0)
		return -1;
	r = strtol(rem, NULL, 10);
	if (r >= ROCE_MTU_256 && r <= ROCE_MTU_4096 && (long)perf.p.curr_mtu > r)
		perf.p.curr_mtu = (enum roce_mtu)r;
	return 0;
}

static uint64_t double_bits_be(double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	return rte_cpu_to_be_64(u);
}

static double be_bits_double(uint64_t be)
{
	uint64_t u = rte_be_to_cpu_64(be);
	double d;

	memcpy(&d, &u, 8);
	return d;
}

/* xchg_bw_reports(): five exchanges, each field big endian */
int perf_xchg_bw_reports(const struct perf_bw_report *mine, struct perf_bw_report *theirs)
{
	bool long_iters = atof(perf.p.rem_version) >= 5.33;
	uint64_t m[5], r[5] = {0};
	rte_be32_t m_iters32 = rte_cpu_to_be_32((uint32_t)mine->iters), r_iters32 = 0;

	m[0] = rte_cpu_to_be_64(mine->size);
	m[1] = rte_cpu_to_be_64(mine->iters);
	m[2] = double_bits_be(mine->bw_peak);
	m[3] = double_bits_be(mine->bw_avg);
	m[4] = double_bits_be(mine->msg_rate);
	if (perf_xchg_data(&m[0], &r[0], 8) != 0)
		return -1;
	if (long_iters ? perf_xchg_data(&m[1], &r[1], 8)
		       : perf_xchg_data(&m_iters32, &r_iters32, 4))
		return -1;
	for (int i = 2; i < 5; i++)
		if (perf_xchg_data(&m[i], &r[i], 8) != 0)
			return -1;
	theirs->size = rte_be_to_cpu_64(r[0]);
	theirs->iters = long_iters ? rte_be_to_cpu_64(r[1]) : rte_be_to_cpu_32(r_iters32);
	theirs->bw_peak = be_bits_double(r[2]);
	theirs->bw_avg = be_bits_double(r[3]);
	theirs->msg_rate = be_bits_double(r[4]);
	return 0;
}
