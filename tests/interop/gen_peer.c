/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_peer - a raw verbs peer for droce-gen's flows with the manual exchange (issue 18 item 1),
 * for the interop lab's VM (Linux rxe, rdma-core 44). It stands for "a peer without perftest
 * or a CM": it takes droce-gen's keys on its command line, prints its own, and then only
 * answers and counts. tests/interop/gen_flow.sh builds it on the host, copies it into the VM
 * and runs it there.
 *
 *   gen_peer rc [-s MAX] [-o OFF] [-r NRECV] [-t S] KEYS...
 *       One RC QP per KEYS argument, droce-gen's "local" line for that QP (qpn= psn= ip=
 *       mtu=). Each QP has a region of OFF + MAX bytes, zeroed, open to remote WRITE, READ and
 *       atomics (the atomics' target is its first 8 bytes), and NRECV receives of MAX bytes.
 *       The QPs go to RTR and RTS towards droce's, then it prints per QP
 *         gen_peer: qp I qpn=0x.. psn=0x.. rkey=0x.. va=0x.. len=N mtu=M rd_atomic=16
 *       and "gen_peer: ready". It counts the SENDs it receives and checks each byte j of
 *       them is (j * 7 + 1) & 0xff, droce-gen's pattern.
 *   gen_peer cm [-s MAX] [-o OFF] [-r NRECV] [-t S] IP PORT
 *       An RDMA CM listener on IP:PORT (librdmacm): one region of OFF + MAX bytes as above,
 *       printed before it listens as "gen_peer: cm rkey=0x.. va=0x.. len=N" (droce-gen --cm
 *       --keys takes it), then "gen_peer: ready"; each connection it accepts (up to 16) gets an
 *       RC QP with NRECV receives, and is counted and checked as in rc mode.
 *   gen_peer ud [-s MAX] [-r NRECV] [-q QKEY] [-t S]
 *       One UD QP with Q_Key QKEY (default 0x11111111) and NRECV receives of MAX bytes plus the
 *       40-byte GRH; prints "gen_peer: ud qpn=0x.. qkey=0x.." and "gen_peer: ready", then
 *       counts the datagrams and checks their payloads the same way.
 *   gen_peer udcm [-s MAX] [-r NRECV] [-t S] IP PORT
 *       An RDMA CM listener in the UDP port space (librdmacm, RDMA_PS_UDP) on IP:PORT: each
 *       SIDR_REQ it accepts (up to 16) gets a UD QP of its own, which librdmacm brings to RTS
 *       with the port space's Q_Key (0x01234567), NRECV receives as in ud mode, and a
 *       SIDR_REP naming it ("gen_peer: cm: accepted qp I qpn=0x.."); its datagrams are counted
 *       and checked as in ud mode.
 * It runs until SIGINT or SIGTERM (or -t S seconds, default 120), then prints per QP
 *   RESULT qp=I recvs=N recv_bytes=B bad_payload=N counter=C write_prefix=L state=S
 * counter: the region's first 8 bytes (the sum of droce's FETCH_ADDs of 1); write_prefix: how
 * many bytes from OFF on hold droce-gen's pattern (its WRITEs land there when its mix has
 * atomics: droce-gen then writes at va + 64, OFF's default; without atomics it writes at va,
 * over the counter); OFF is at least 8 and a multiple of 8; state: the QP's
 * state (RTS, or ERR after a fatal error; cm: ERR once droce-gen's DREQ came). Exit status: 0
 * when no payload was bad and every QP is still in RTS (cm: whatever its state); 1 otherwise; 2
 * usage; 3 set-up failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define MAX_QPS 16
#define GRH 40

struct peer_qp {
	struct ibv_qp *qp;
	struct ibv_mr *mr, *rmr;
	uint8_t *region, *rbuf;
	uint32_t dqpn, dpsn, psn;
	struct in_addr dip;
	uint64_t recvs, recv_bytes, bad;
};

static struct {
	bool ud, cm; /* udcm: both */
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listen;
	struct ibv_mr *cm_mr; /* cm: the one region every connection shares */
	uint8_t *cm_region;
	uint32_t max, off, nrecv, qkey, seconds, mtu;
	int nqps;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	int gid_index;
	struct peer_qp q[MAX_QPS];
} P = {.max = 4096, .off = 64, .nrecv = 256, .qkey = 0x11111111, .seconds = 120};

static volatile sig_atomic_t stop;

static void on_signal(int s)
{
	(void)s;
	stop = 1;
}

static int die(const char *what)
{
	fprintf(stderr, "gen_peer: %s: %s\n", what, strerror(errno));
	return 3;
}

/* the verbs calls that return their error instead of setting errno */
static int die_rc(const char *what, int rc)
{
	errno = rc;
	return die(what);
}

/* droce-gen's "local" line: qpn=, psn=, ip=, mtu= (other words ignored) */
static int parse_keys(const char *s, struct peer_qp *q, uint32_t *mtu)
{
	char buf[512], *save = NULL;
	int have = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (char *w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		char *eq = strchr(w, '=');

		if (!eq)
			continue;
		*eq++ = '\0';
		if (strcmp(w, "qpn") == 0)
			q->dqpn = (uint32_t)strtoul(eq, NULL, 0), have |= 1;
		else if (strcmp(w, "psn") == 0)
			q->dpsn = (uint32_t)strtoul(eq, NULL, 0), have |= 2;
		else if (strcmp(w, "ip") == 0 && inet_pton(AF_INET, eq, &q->dip) == 1)
			have |= 4;
		else if (strcmp(w, "mtu") == 0)
			*mtu = (uint32_t)strtoul(eq, NULL, 0);
	}
	return have == 7 ? 0 : -1;
}

/* the GID table's RoCEv2 IPv4-mapped entry */
static int find_gid(void)
{
	struct ibv_port_attr pa;

	if (ibv_query_port(P.ctx, 1, &pa))
		return -1;
	for (int i = 0; i < pa.gid_tbl_len; i++) {
		struct ibv_gid_entry e;
		static const uint8_t v4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

		if (ibv_query_gid_ex(P.ctx, 1, (uint32_t)i, &e, 0) == 0 &&
		    e.gid_type == IBV_GID_TYPE_ROCE_V2 && memcmp(e.gid.raw, v4, 12) == 0)
			return i;
	}
	return -1;
}

static enum ibv_mtu mtu_enum(uint32_t m)
{
	return m >= 4096   ? IBV_MTU_4096
	       : m >= 2048 ? IBV_MTU_2048
	       : m >= 1024 ? IBV_MTU_1024
	       : m >= 512  ? IBV_MTU_512
			   : IBV_MTU_256;
}

static int post_recv(struct peer_qp *q, uint32_t k)
{
	uint32_t len = P.max + (P.ud ? GRH : 0);
	struct ibv_sge sg = {.addr = (uintptr_t)(q->rbuf + (size_t)k * len),
			     .length = len,
			     .lkey = q->rmr->lkey};
	struct ibv_recv_wr w = {
		.wr_id = ((uint64_t)(q - P.q) << 32) | k, .sg_list = &sg, .num_sge = 1};
	struct ibv_recv_wr *bad;

	return ibv_post_recv(q->qp, &w, &bad);
}

static int setup_qp(struct peer_qp *q)
{
	struct ibv_qp_init_attr ia = {.send_cq = P.cq,
				      .recv_cq = P.cq,
				      .cap = {.max_send_wr = 1,
					      .max_recv_wr = P.nrecv,
					      .max_send_sge = 1,
					      .max_recv_sge = 1},
				      .qp_type = P.ud ? IBV_QPT_UD : IBV_QPT_RC};
	struct ibv_qp_attr a;
	int rc;
	uint32_t rlen = P.max + (P.ud ? GRH : 0);

	q->region = aligned_alloc(4096, ((size_t)P.off + P.max + 4095) / 4096 * 4096);
	q->rbuf = malloc((size_t)rlen * P.nrecv);
	if (!q->region || !q->rbuf)
		return die("memory");
	memset(q->region, 0, (size_t)P.off + P.max);
	q->mr = ibv_reg_mr(P.pd, q->region, (size_t)P.off + P.max,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	q->rmr = ibv_reg_mr(P.pd, q->rbuf, (size_t)rlen * P.nrecv, IBV_ACCESS_LOCAL_WRITE);
	q->qp = q->mr && q->rmr ? ibv_create_qp(P.pd, &ia) : NULL;
	if (!q->qp)
		return die("ibv_reg_mr/ibv_create_qp");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	if (P.ud) {
		a.qkey = P.qkey;
		if ((rc = ibv_modify_qp(q->qp, &a,
					IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						IBV_QP_QKEY)) != 0)
			return die_rc("UD QP to INIT", rc);
	} else {
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
		if ((rc = ibv_modify_qp(q->qp, &a,
					IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						IBV_QP_ACCESS_FLAGS)) != 0)
			return die_rc("RC QP to INIT", rc);
	}
	for (uint32_t k = 0; k < P.nrecv; k++) {
		rc = post_recv(q, k);
		if (rc)
			return die_rc("ibv_post_recv", rc);
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (P.ud) {
		if ((rc = ibv_modify_qp(q->qp, &a, IBV_QP_STATE)) != 0)
			return die_rc("UD QP to RTR", rc);
	} else {
		a.path_mtu = mtu_enum(P.mtu);
		a.dest_qp_num = q->dqpn;
		a.rq_psn = q->dpsn;
		a.max_dest_rd_atomic = 16;
		a.min_rnr_timer = 12;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.grh.sgid_index = (uint8_t)P.gid_index;
		a.ah_attr.grh.dgid.raw[10] = a.ah_attr.grh.dgid.raw[11] = 0xff;
		memcpy(&a.ah_attr.grh.dgid.raw[12], &q->dip, 4);
		if ((rc = ibv_modify_qp(q->qp, &a,
					IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
						IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
						IBV_QP_MAX_DEST_RD_ATOMIC |
						IBV_QP_MIN_RNR_TIMER)) != 0)
			return die_rc("RC QP to RTR", rc);
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = q->psn;
	if (P.ud) {
		if ((rc = ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN)) != 0)
			return die_rc("UD QP to RTS", rc);
	} else {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		if ((rc = ibv_modify_qp(q->qp, &a,
					IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
						IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
						IBV_QP_MAX_QP_RD_ATOMIC)) != 0)
			return die_rc("RC QP to RTS", rc);
	}
	return 0;
}

static int usage(void);

/* cm: a connection request: an RC QP on the shared PD and CQ, receives, accept */
static void cm_accept(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr ia = {.send_cq = P.cq,
				      .recv_cq = P.cq,
				      .cap = {.max_send_wr = 1,
					      .max_recv_wr = P.nrecv,
					      .max_send_sge = 1,
					      .max_recv_sge = 1},
				      .qp_type = P.ud ? IBV_QPT_UD : IBV_QPT_RC};
	struct rdma_conn_param cp = {.responder_resources = 16,
				     .initiator_depth = 1,
				     .retry_count = 7,
				     .rnr_retry_count = 7};
	struct rdma_conn_param ucp = {0}; /* UD: SIDR_REP names the QP and its Q_Key */
	uint32_t rlen = P.max + (P.ud ? GRH : 0);
	struct peer_qp *q;

	if (P.nqps == MAX_QPS || rdma_create_qp(id, P.pd, &ia) != 0) {
		fprintf(stderr, "gen_peer: cm: connection refused (%s)\n",
			P.nqps == MAX_QPS ? "16 already" : strerror(errno));
		rdma_reject(id, NULL, 0);
		return;
	}
	q = &P.q[P.nqps];
	q->qp = id->qp;
	q->region = P.cm_region;
	q->mr = P.cm_mr;
	q->rbuf = malloc((size_t)rlen * P.nrecv);
	q->rmr = q->rbuf ? ibv_reg_mr(P.pd, q->rbuf, (size_t)rlen * P.nrecv, IBV_ACCESS_LOCAL_WRITE)
			 : NULL;
	if (!q->rmr) {
		fprintf(stderr, "gen_peer: cm: receive buffers: %s\n", strerror(errno));
		rdma_reject(id, NULL, 0);
		return;
	}
	P.nqps++;
	for (uint32_t k = 0; k < P.nrecv; k++)
		if (post_recv(q, k))
			fprintf(stderr, "gen_peer: cm: ibv_post_recv failed\n");
	if (rdma_accept(id, P.ud ? &ucp : &cp) != 0)
		fprintf(stderr, "gen_peer: cm: rdma_accept: %s\n", strerror(errno));
	else
		printf("gen_peer: cm: accepted qp %d qpn=%#x\n", P.nqps - 1, id->qp->qp_num);
}

static void cm_events(void)
{
	struct rdma_cm_event *ev;

	while (rdma_get_cm_event(P.ec, &ev) == 0) {
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			cm_accept(ev->id);
		else if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
			printf("gen_peer: cm: a connection ended (DREQ)\n");
		rdma_ack_cm_event(ev);
	}
}

static int cm_setup(const char *ip, const char *port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};

	if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1)
		return usage();
	P.ec = rdma_create_event_channel();
	if (!P.ec || rdma_create_id(P.ec, &P.listen, NULL, P.ud ? RDMA_PS_UDP : RDMA_PS_TCP) ||
	    rdma_bind_addr(P.listen, (struct sockaddr *)&sin) || !P.listen->verbs)
		return die("rdma_cm listener");
	P.ctx = P.listen->verbs;
	P.pd = ibv_alloc_pd(P.ctx);
	P.ch = P.pd ? ibv_create_comp_channel(P.ctx) : NULL;
	P.cq = P.ch ? ibv_create_cq(P.ctx, (int)(P.nrecv * MAX_QPS + 16), NULL, P.ch, 0) : NULL;
	P.cm_region = aligned_alloc(4096, ((size_t)P.off + P.max + 4095) / 4096 * 4096);
	if (!P.cq || ibv_req_notify_cq(P.cq, 0) || !P.cm_region)
		return die("PD, channel or CQ");
	memset(P.cm_region, 0, (size_t)P.off + P.max);
	P.cm_mr = ibv_reg_mr(P.pd, P.cm_region, (size_t)P.off + P.max,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!P.cm_mr || rdma_listen(P.listen, 16))
		return die("region or rdma_listen");
	/* the CM events without blocking: polled beside the CQ's channel */
	{
		int fl = fcntl(P.ec->fd, F_GETFL);

		fcntl(P.ec->fd, F_SETFL, fl | O_NONBLOCK);
	}
	if (!P.ud) /* udcm: datagrams only, no region to name */
		printf("gen_peer: cm rkey=%#x va=%#" PRIx64 " len=%u\n", P.cm_mr->rkey,
		       (uint64_t)(uintptr_t)P.cm_region, P.off + P.max);
	return 0;
}

static void take(const struct ibv_wc *wc)
{
	uint32_t i = (uint32_t)(wc->wr_id >> 32), k = (uint32_t)wc->wr_id;
	struct peer_qp *q;
	const uint8_t *p;
	uint32_t len;

	if (i >= (uint32_t)P.nqps)
		return;
	q = &P.q[i];
	if (wc->status == IBV_WC_WR_FLUSH_ERR)
		return; /* the QP went to the error state: a DREQ (cm), or an error counted below */
	if (wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "gen_peer: qp %u: receive completion %s\n", i,
			ibv_wc_status_str(wc->status));
		q->bad++;
		return;
	}
	p = q->rbuf + (size_t)k * (P.max + (P.ud ? GRH : 0)) + (P.ud ? GRH : 0);
	len = wc->byte_len - (P.ud ? GRH : 0);
	q->recvs++;
	q->recv_bytes += len;
	for (uint32_t j = 0; j < len; j++)
		if (p[j] != (uint8_t)(j * 7 + 1)) {
			if (!q->bad)
				fprintf(stderr,
					"gen_peer: qp %u: receive %" PRIu64
					" byte %u is %#x, not %#x\n",
					i, q->recvs, j, p[j], (uint8_t)(j * 7 + 1));
			q->bad++;
			break;
		}
	if (!stop && post_recv(q, k))
		fprintf(stderr, "gen_peer: qp %u: ibv_post_recv: %s\n", i, strerror(errno));
}

static int usage(void)
{
	fprintf(stderr, "usage: gen_peer rc [-s MAX] [-o OFF] [-r NRECV] [-t S] KEYS...\n"
			"       gen_peer cm [-s MAX] [-o OFF] [-r NRECV] [-t S] IP PORT\n"
			"       gen_peer ud [-s MAX] [-r NRECV] [-q QKEY] [-t S]\n"
			"       gen_peer udcm [-s MAX] [-r NRECV] [-t S] IP PORT\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct ibv_device **devs;
	struct timespec t0, t;
	int c, rc = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || (strcmp(argv[1], "rc") && strcmp(argv[1], "ud") && strcmp(argv[1], "cm") &&
			 strcmp(argv[1], "udcm")))
		return usage();
	P.ud = strcmp(argv[1], "ud") == 0 || strcmp(argv[1], "udcm") == 0;
	P.cm = strcmp(argv[1], "cm") == 0 || strcmp(argv[1], "udcm") == 0;
	optind = 2;
	while ((c = getopt(argc, argv, "s:o:r:q:t:")) != -1) {
		unsigned long v = strtoul(optarg, NULL, 0);

		switch (c) {
		case 's':
			P.max = (uint32_t)v;
			break;
		case 'o':
			P.off = (uint32_t)v;
			break;
		case 'r':
			P.nrecv = (uint32_t)v;
			break;
		case 'q':
			P.qkey = (uint32_t)v;
			break;
		case 't':
			P.seconds = (uint32_t)v;
			break;
		default:
			return usage();
		}
	}
	if (P.max < 8 || P.max > (1u << 20) || P.nrecv < 1 || P.nrecv > 4096 || P.off > 4096 ||
	    P.off < 8 || P.off % 8)
		return usage();
	P.mtu = 4096;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (P.cm) {
		if (argc - optind != 2)
			return usage();
		if ((rc = cm_setup(argv[optind], argv[optind + 1])) != 0)
			return rc;
		goto ready;
	}
	P.nqps = P.ud ? 1 : argc - optind;
	if (P.nqps < 1 || P.nqps > MAX_QPS)
		return usage();
	for (int i = 0; !P.ud && i < P.nqps; i++)
		if (parse_keys(argv[optind + i], &P.q[i], &P.mtu) != 0) {
			fprintf(stderr, "gen_peer: '%s': needs qpn=, psn= and ip=\n",
				argv[optind + i]);
			return 2;
		}
	srand48(getpid());
	devs = ibv_get_device_list(NULL);
	if (!devs || !devs[0] || !(P.ctx = ibv_open_device(devs[0])))
		return die("no RDMA device");
	P.pd = ibv_alloc_pd(P.ctx);
	P.ch = P.pd ? ibv_create_comp_channel(P.ctx) : NULL;
	P.cq = P.ch ? ibv_create_cq(P.ctx, (int)(P.nrecv * (uint32_t)P.nqps + 16), NULL, P.ch, 0)
		    : NULL;
	if (!P.cq || ibv_req_notify_cq(P.cq, 0))
		return die("PD, channel or CQ");
	if (!P.ud && (P.gid_index = find_gid()) < 0) {
		fprintf(stderr, "gen_peer: no RoCEv2 IPv4 GID on %s port 1\n",
			ibv_get_device_name(devs[0]));
		return 3;
	}
	for (int i = 0; i < P.nqps; i++) {
		P.q[i].psn = (uint32_t)lrand48() & 0xffffff;
		if ((rc = setup_qp(&P.q[i])) != 0)
			return rc;
	}
	for (int i = 0; i < P.nqps; i++) {
		struct peer_qp *q = &P.q[i];

		if (P.ud)
			printf("gen_peer: ud qpn=%#x qkey=%#x\n", q->qp->qp_num, P.qkey);
		else
			printf("gen_peer: qp %d qpn=%#x psn=%#x rkey=%#x va=%#" PRIx64
			       " len=%u mtu=%u rd_atomic=16\n",
			       i, q->qp->qp_num, q->psn, q->mr->rkey,
			       (uint64_t)(uintptr_t)q->region, P.off + P.max, P.mtu);
	}
ready:
	printf("gen_peer: ready\n");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop) {
		struct pollfd pfd = {.fd = P.ch->fd, .events = POLLIN};
		struct ibv_wc wc[32];
		int n;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= (time_t)P.seconds)
			break;
		if (P.cm)
			cm_events();
		if (poll(&pfd, 1, P.cm ? 20 : 200) > 0) {
			struct ibv_cq *cq;
			void *cctx;

			if (ibv_get_cq_event(P.ch, &cq, &cctx) == 0) {
				ibv_ack_cq_events(cq, 1);
				ibv_req_notify_cq(cq, 0);
			}
		}
		while ((n = ibv_poll_cq(P.cq, 32, wc)) > 0)
			for (int k = 0; k < n; k++)
				take(&wc[k]);
	}
	rc = 0;
	for (int i = 0; i < P.nqps; i++) {
		struct peer_qp *q = &P.q[i];
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;
		uint64_t counter = 0;
		uint32_t prefix = 0;
		const char *st;

		memcpy(&counter, q->region, 8);
		while (prefix < P.max && q->region[P.off + prefix] == (uint8_t)(prefix * 7 + 1))
			prefix++;
		st = ibv_query_qp(q->qp, &a, IBV_QP_STATE, &ia) ? "?"
		     : a.qp_state == IBV_QPS_RTS		? "RTS"
		     : a.qp_state == IBV_QPS_ERR		? "ERR"
								: "other";
		printf("RESULT qp=%d recvs=%" PRIu64 " recv_bytes=%" PRIu64 " bad_payload=%" PRIu64
		       " counter=%" PRIu64 " write_prefix=%u state=%s\n",
		       i, q->recvs, q->recv_bytes, q->bad, counter, prefix, st);
		if (q->bad || ((!P.cm || P.ud) && strcmp(st, "RTS") != 0))
			rc = 1; /* cm: droce-gen's DREQ moved the QP to ERR, as it should */
	}
	return rc;
}
