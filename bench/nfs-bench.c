/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs-bench.c - the NFS server (nfs/) against the RPC and RDMA it stands on, in one run: droce's
 * RPC-over-RDMA client (several connections, calls in flight on each) against droce's NFSv3
 * server (rpcrdma_ep server role, nfs3_program, the duplicate request cache and the helper
 * threads, put together as apps/nfsd/droce-nfsd.c does) over crossed net_ring ports in one process,
 * both sides on one lcore, as bench/rpc-bench.c. The exported file (64 MiB) is written to a
 * temporary directory on disk first, so it is in the page cache.
 *
 *   read4k   4 KiB READs at random offsets: IOPS, latency, and the server's CPU time per READ
 *            baselines: NFS NULL calls on the same connections (the RPC floor), and raw 4 KiB
 *            RDMA READs on as many QPs with as many in flight
 *   big      1 MiB sequential READs (data by write chunk) and WRITEs (data by read chunk):
 *            goodput, as a ratio to raw 1 MiB RDMA WRITEs on as many QPs with as many in flight
 * Both run with the helper threads (--threads, default 4) and with none (inline in the lcore).
 *
 * CPU accounting: the process's CPU time (CLOCK_PROCESS_CPUTIME_ID) is the lcore thread's plus
 * the helper threads' (nfs_pool_cpu_ns) plus EAL's idle threads. The lcore thread runs both
 * sides, so the bench polls each side itself and times it with the TSC: the server's port RX,
 * its device's roce_poll, its endpoints and the pool's results are the server's; the client's
 * likewise; what is left (stk_lcore_poll with no RX queues and no hooks: TX flush, timers) is
 * shared and counted half to each. The server's share of the thread's CPU time plus the helpers'
 * CPU time, per operation, is "server CPU per op"; 1 s divided by it is "IOPS per server core".
 *
 * It prints a table and writes JSON; it asserts nothing about speed. It exits 1 only when an
 * NFS call fails, a sampled READ returns the wrong bytes or the file does not hold its pattern
 * after the WRITEs; 77 (skipped) when not root (the backend needs open_by_handle_at).
 * Usage: nfs-bench [EAL args --] [--json FILE] [--seconds S] [--threads N] [--conns N]
 *        [--depth N] [--big-conns N] [--big-depth N] [--dir DIR] [--only TEXT] [--uid N]
 *   --only  run only the cases whose name contains TEXT (e.g. "READ 4 KiB, inline")
 *   --uid   the callers' AUTH_SYS uid and gid (default 0, the file's owner); another uid makes
 *           the file 0666, so its READs and WRITEs are a non-owner's, checked by the kernel
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "nfs3_svc.h"
#include "nfs3_xdr.h"
#include "nfs_aio.h"
#include "nfs_fs.h"
#include "nfs_pool.h"
#include "orpc_msg.h"
#include "ring_pair.h"
#include "roce_cm.h"
#include "roce_verbs.h"
#include "rpcrdma_ep.h"
#include "stk_iface.h"
#include "stk_lcore.h"
#include "stk_stack.h"

#define FILE_SIZE (64u << 20)
#define BLOCK 4096u
#define BIG (1u << 20)
#define MAX_IO BIG
#define MAX_CONNS 16u
#define MAX_DEPTH 16u
#define DATA_OFF 4096u /* where a WRITE call's data starts in its message buffer */
#define MAX_LAT (1u << 22)
#define PAT_MAGIC 0x6e66732d62656e63ull

enum section { SEC_CLIENT, SEC_SERVER, SEC_SHARED, SEC_NUM };

enum workload { WL_NULL, WL_READ4K, WL_READ1M, WL_WRITE1M, WL_RAW_READ4K, WL_RAW_WRITE1M };

/* One call (or raw work request) in flight. */
struct call {
	struct conn *cn;
	uint64_t off;
	uint64_t start; /* TSC at the call */
	bool busy, check;
};

/* One connection: an RPC-over-RDMA client endpoint and the server endpoint it talks to, or a
 * raw QP pair for the baselines. */
struct conn {
	struct rpcrdma_ep *c, *s;
	struct roce_cq *cq[2];
	struct roce_qp *qp[2];
	uint8_t *buf[2];
	struct roce_mr *mr[2];
	uint32_t inflight;
	struct call calls[MAX_DEPTH];
};

struct result {
	const char *name;
	const char *unit; /* "IOPS" or "Gbit/s" */
	double rate, iops;
	double wall_s, main_cpu_s, helper_cpu_s, proc_cpu_s;
	double server_share, server_busy_share; /* of the lcore thread's CPU time */
	double server_ns, server_busy_ns;	/* per operation: share of the thread + helpers */
	double p50_us, p99_us;
};

static struct {
	struct ring_pair rp;
	struct stk_lcore *lc;
	const struct stk_iface *ifc[2];
	uint64_t hz;
	double seconds, warmup;
	uint32_t threads, nconn, depth, big_conns, big_depth, uid;
	const char *json, *basedir, *only;
	char dir[256], export[300], file[320], state[300];
	struct nfs_fs *fs;
	struct nfs3_server srv;
	struct orpc_svc svc;
	struct nfs_pool *pool;
	struct nfs_aio *aio;
	struct nfs_fh fh;
	struct nfs_ctx ctx; /* the client as the backend sees it (local baselines) */
	struct orpc_authsys sys;
	uint8_t *msg, *chunk; /* call encoding; one 1 MiB stretch of the file's pattern */
	uint32_t wr_hdr_len;  /* a WRITE call's bytes before its data */
	uint16_t next_port;
	uint32_t xid;
	uint64_t rnd, seq;
	/* the case running */
	enum workload wl;
	struct conn *conns;
	uint32_t nc, dp;
	bool measuring;
	uint64_t ops, bytes, checked, nlat, *lat;
	uint64_t tsc[SEC_NUM], busy_tsc;
	int failures;
	char load[2][64]; /* /proc/loadavg at the start and the end */
	struct result res[16];
	int nres;
} g = {.seconds = 2.0,
       .warmup = 0.3,
       .threads = 4,
       .nconn = 8,
       .depth = 8,
       .big_conns = 2,
       .big_depth = 2,
       .basedir = "/var/tmp",
       .next_port = 31000,
       .xid = 0x6e667300,
       .rnd = 0x2545f4914f6cdd1dull};

static void fail(const char *what, int err)
{
	if (g.failures++ < 10)
		fprintf(stderr, "nfs-bench: %s (%d)\n", what, err);
}

/* ---- the file's bytes ---- */

/* 8-byte words: the first of each 4 KiB block is its offset (a block read from the wrong place
 * shows), the others depend only on the position within 1 MiB, so a 1 MiB WRITE's data is one
 * buffer with 256 words patched. */
static uint64_t pat_word(uint64_t off)
{
	uint64_t x;

	if (off % BLOCK == 0)
		return off ^ PAT_MAGIC;
	x = (off % BIG) * 0x9e3779b97f4a7c15ull;
	return x ^ (x >> 29);
}

/* g.chunk as the file's bytes at off (a multiple of 1 MiB) */
static void pat_fill(uint8_t *p, uint32_t len, uint64_t off)
{
	for (uint32_t i = 0; i < len; i += BLOCK) {
		uint64_t w = pat_word(off + i);

		memcpy(p + i, &w, 8);
	}
}

static bool pat_check(const uint8_t *p, uint32_t len, uint64_t off)
{
	for (uint32_t i = 0; i < len; i += BLOCK) {
		uint64_t w;
		uint32_t n = len - i < BLOCK ? len - i : BLOCK;

		memcpy(&w, p + i, 8);
		if (w != pat_word(off + i) ||
		    memcmp(p + i + 8, g.chunk + (off + i) % BIG + 8, n - 8) != 0)
			return false;
	}
	return true;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path);
}

static void cleanup_dir(void)
{
	if (g.dir[0])
		nftw(g.dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* The temporary directory, the exported file (written, so it is in the page cache) and the
 * state directory. */
static int make_file(void)
{
	int fd;

	snprintf(g.dir, sizeof(g.dir), "%s/nfs-bench.XXXXXX", g.basedir);
	if (!mkdtemp(g.dir)) {
		g.dir[0] = 0;
		return -errno;
	}
	snprintf(g.export, sizeof(g.export), "%s/export", g.dir);
	snprintf(g.state, sizeof(g.state), "%s/state", g.dir);
	snprintf(g.file, sizeof(g.file), "%s/data", g.export);
	if (mkdir(g.export, 0755) != 0)
		return -errno;
	fd = open(g.file, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	if (g.uid != 0 && fchmod(fd, 0666) != 0) {
		close(fd);
		return -errno;
	}
	for (uint64_t off = 0; off < FILE_SIZE; off += BIG) {
		pat_fill(g.chunk, BIG, off);
		if (pwrite(fd, g.chunk, BIG, (off_t)off) != (ssize_t)BIG) {
			close(fd);
			return -EIO;
		}
	}
	close(fd);
	return 0;
}

/* After the WRITEs: the whole file still holds its pattern (what the WRITEs carried by read
 * chunk landed where they were sent). */
static int check_file(void)
{
	uint8_t *buf = aligned_alloc(4096, BIG);
	int fd = open(g.file, O_RDONLY | O_CLOEXEC), rc = 0;

	for (uint64_t off = 0; buf && fd >= 0 && !rc && off < FILE_SIZE; off += BIG)
		if (pread(fd, buf, BIG, (off_t)off) != (ssize_t)BIG || !pat_check(buf, BIG, off))
			rc = -EIO;
	if (!buf || fd < 0)
		rc = -ENOMEM;
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

/* ---- polling, each side timed on its own ---- */

static uint16_t rx_port(int k)
{
	struct rte_mbuf *pkts[32];
	uint16_t n = rte_eth_rx_burst(g.ifc[k]->port_id, 0, pkts, 32);

	for (uint16_t i = 0; i < n; i++)
		stk_input(g.lc, g.ifc[k], pkts[i]);
	return n;
}

static void raw_poll(struct conn *cn, int k);

/* One loop iteration: the client side (port 0, device 0, client endpoints or raw side 0), the
 * server side (port 1, device 1, the pool's results, server endpoints or raw side 1), then the
 * rest of the lcore (no RX queues and no hooks: control, TX flush, timers). */
static void poll_all(void)
{
	uint64_t t0 = rte_rdtsc(), t1, t2, t3;
	bool raw = g.wl >= WL_RAW_READ4K;
	int work;

	rx_port(0);
	roce_poll(g.lc, g.rp.dev[0]);
	for (uint32_t i = 0; i < g.nc; i++)
		if (raw)
			raw_poll(&g.conns[i], 0);
		else if (g.conns[i].c)
			rpcrdma_ep_poll(g.conns[i].c);
	t1 = rte_rdtsc();
	work = rx_port(1);
	roce_poll(g.lc, g.rp.dev[1]);
	if (g.pool)
		work += (int)nfs_pool_poll(g.pool, nfs3_pool_done, 64);
	for (uint32_t i = 0; i < g.nc; i++)
		if (raw)
			raw_poll(&g.conns[i], 1);
		else if (g.conns[i].s)
			work += rpcrdma_ep_poll(g.conns[i].s);
	/* after the endpoints: what they started this pass is submitted in it */
	if (g.srv.aio)
		work += (int)nfs_aio_poll(g.srv.aio, nfs3_aio_done, 64);
	t2 = rte_rdtsc();
	stk_lcore_poll(g.lc);
	t3 = rte_rdtsc();
	g.tsc[SEC_CLIENT] += t1 - t0;
	g.tsc[SEC_SERVER] += t2 - t1;
	g.tsc[SEC_SHARED] += t3 - t2;
	if (work)
		g.busy_tsc += t2 - t1;
}

/* ---- connections (as bench/rpc-bench.c) ---- */

static int wait_event(int k, enum roce_cm_event_type t, struct roce_cm_event *ev)
{
	uint64_t end = rte_get_tsc_cycles() + 10 * g.hz;

	while (rte_get_tsc_cycles() < end) {
		if (roce_cm_get_event(g.rp.cm[k], ev) == 0)
			return ev->event == t ? 0 : -1;
		poll_all();
	}
	return -1;
}

/* connect QP a (side 0) to QP b (side 1); private data both ways */
static int cm_pair(struct roce_qp *a, struct roce_qp *b, const uint8_t *pa, uint8_t la,
		   const uint8_t *pb, uint8_t lb, struct roce_cm_event *ev_b,
		   struct roce_cm_event *ev_a)
{
	struct roce_cm_conn_param p = {.cm_response_timeout = 14};
	struct roce_cm_id *l = roce_cm_create_id(g.rp.cm[1], ROCE_CM_PS_TCP, NULL);
	struct roce_cm_id *c = roce_cm_create_id(g.rp.cm[0], ROCE_CM_PS_TCP, NULL);
	struct roce_cm_event e;
	uint16_t port = g.next_port++;

	if (!l || !c || roce_cm_listen(l, port, 4) != 0)
		return -1;
	p.private_data = pa;
	p.private_data_len = la;
	if (roce_cm_connect(c, &g.rp.ip[1], port, a, &p) != 0 ||
	    wait_event(1, ROCE_CM_EVENT_CONNECT_REQUEST, ev_b) != 0)
		return -1;
	p.private_data = pb;
	p.private_data_len = lb;
	if (roce_cm_accept(ev_b->id, b, &p) != 0 ||
	    wait_event(0, ROCE_CM_EVENT_ESTABLISHED, ev_a) != 0 ||
	    wait_event(1, ROCE_CM_EVENT_ESTABLISHED, &e) != 0)
		return -1;
	return 0;
}

static int rpc_connect(struct conn *cn, uint32_t slots, uint32_t max_chunk)
{
	struct rpcrdma_ep_conf cc = {.slots = slots, .max_chunk = max_chunk};
	struct rpcrdma_ep_conf sc = {.max_chunk = MAX_IO + 8192}; /* as droce-nfsd */
	uint8_t pc[RPCRDMA_CM_PRIV_LEN], ps[RPCRDMA_CM_PRIV_LEN];
	struct roce_cm_event ea, eb;

	memset(cn, 0, sizeof(*cn));
	cn->c = rpcrdma_ep_create(g.rp.dev[0], g.rp.pd[0], RPCRDMA_CLIENT, &cc, NULL);
	cn->s = rpcrdma_ep_create(g.rp.dev[1], g.rp.pd[1], RPCRDMA_SERVER, &sc, &g.svc);
	if (!cn->c || !cn->s) {
		fprintf(stderr, "nfs-bench: endpoints: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	if (cm_pair(rpcrdma_ep_qp(cn->c), rpcrdma_ep_qp(cn->s), pc,
		    rpcrdma_ep_private_data(cn->c, pc), ps, rpcrdma_ep_private_data(cn->s, ps), &eb,
		    &ea) != 0) {
		fprintf(stderr, "nfs-bench: the CM did not connect the endpoints\n");
		return -1;
	}
	/* exports match the client by address, which the server learns from the CM id */
	rpcrdma_ep_set_peer(cn->s, &eb.id->remote_ip, eb.id->remote_port);
	if (rpcrdma_ep_start(cn->s, eb.private_data, eb.private_data_len) != 0 ||
	    rpcrdma_ep_start(cn->c, ea.private_data, ea.private_data_len) != 0)
		return -1;
	for (uint32_t i = 0; i < MAX_DEPTH; i++)
		cn->calls[i].cn = cn;
	return 0;
}

static void rpc_close(struct conn *cn)
{
	for (int i = 0; cn->c && rpcrdma_ep_destroy(cn->c) == -EBUSY && i < 1000000; i++)
		poll_all();
	for (int i = 0; cn->s && rpcrdma_ep_destroy(cn->s) == -EBUSY && i < 1000000; i++)
		poll_all();
	cn->c = cn->s = NULL;
}

/* A raw RC QP pair with a region of len bytes on each side, side 0's writable, side 1's
 * readable and writable remotely. */
static int raw_connect(struct conn *cn, uint32_t len)
{
	struct roce_cm_event ea, eb;

	memset(cn, 0, sizeof(*cn));
	for (int k = 0; k < 2; k++) {
		struct roce_qp_init_attr a;

		cn->cq[k] = roce_create_cq(g.rp.dev[k], 1024);
		memset(&a, 0, sizeof(a));
		a.send_cq = a.recv_cq = cn->cq[k];
		a.qp_type = ROCE_QPT_RC;
		a.cap.max_send_wr = a.cap.max_recv_wr = 64;
		a.cap.max_send_sge = a.cap.max_recv_sge = 1;
		cn->qp[k] = cn->cq[k] ? roce_create_qp(g.rp.pd[k], &a) : NULL;
		cn->buf[k] = rte_zmalloc("nfsb_raw", len, 4096);
		cn->mr[k] =
			cn->buf[k]
				? roce_reg_mr(g.rp.pd[k], cn->buf[k], len, (uintptr_t)cn->buf[k],
					      ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
						      ROCE_ACCESS_REMOTE_READ)
				: NULL;
		if (!cn->qp[k] || !cn->mr[k])
			return -1;
	}
	for (uint32_t i = 0; i < MAX_DEPTH; i++)
		cn->calls[i].cn = cn;
	return cm_pair(cn->qp[0], cn->qp[1], NULL, 0, NULL, 0, &eb, &ea);
}

static void raw_close(struct conn *cn)
{
	struct roce_wc wc[32];

	for (int k = 0; k < 2; k++) {
		if (cn->qp[k])
			roce_destroy_qp(cn->qp[k]);
		while (cn->cq[k] && roce_poll_cq(cn->cq[k], 32, wc) > 0)
			;
		for (int i = 0; cn->mr[k] && roce_dereg_mr(cn->mr[k]) == -EBUSY && i < 100000; i++)
			poll_all();
		if (cn->cq[k])
			roce_destroy_cq(cn->cq[k]);
		rte_free(cn->buf[k]);
	}
	memset(cn, 0, sizeof(*cn));
}

/* ---- calls ---- */

static void count_done(struct call *k, uint64_t bytes)
{
	uint64_t now = rte_rdtsc();

	k->busy = false;
	k->cn->inflight--;
	if (!g.measuring)
		return;
	g.ops++;
	g.bytes += bytes;
	if (g.lat && g.nlat < MAX_LAT)
		g.lat[g.nlat++] = now - k->start;
}

static void on_reply(void *ctx, int err, const uint8_t *reply, uint32_t len)
{
	struct call *k = ctx;
	struct orpc_reply_hdr h = {0};
	uint32_t off;
	uint64_t bytes = 0;
	XDR x;

	if (err) {
		fail("an NFS call failed in the transport", err);
		goto out;
	}
	if (orpc_reply_decode(reply, len, &h, &off) != 0 || h.denied || h.stat != SUCCESS) {
		fail("an NFS call was not accepted", (int)h.stat);
		goto out;
	}
	xdrmem_create(&x, (char *)(uintptr_t)(reply + off), len - off, XDR_DECODE);
	if (g.wl == WL_READ4K || g.wl == WL_READ1M) {
		struct nfs3_read_res r;
		uint32_t want = g.wl == WL_READ4K ? BLOCK : BIG;

		memset(&r, 0, sizeof(r));
		if (!xdr_nfs3_read_res(&x, &r) || r.status != NFS_OK || r.count != want ||
		    r.data_len != want) {
			fail("READ answered an error or a short count", (int)r.status);
			goto out;
		}
		if (k->check) {
			g.checked++;
			if (!pat_check(r.data, want, k->off))
				fail("READ returned bytes that are not the file's", (int)k->off);
		}
		bytes = want;
	} else if (g.wl == WL_WRITE1M) {
		struct nfs3_write_res r;

		memset(&r, 0, sizeof(r));
		if (!xdr_nfs3_write_res(&x, &r) || r.status != NFS_OK || r.count != BIG) {
			fail("WRITE answered an error or a short count", (int)r.status);
			goto out;
		}
		bytes = BIG;
	}
out:
	count_done(k, bytes);
}

static uint64_t next_rnd(void)
{
	g.rnd ^= g.rnd << 13;
	g.rnd ^= g.rnd >> 7;
	g.rnd ^= g.rnd << 17;
	return g.rnd;
}

/* The header and arguments of a WRITE of BIG bytes at off, up to its data's length word. */
static uint32_t encode_write_head(uint8_t *buf, uint32_t cap, uint64_t off)
{
	struct nfs_fh fh = g.fh;
	uint32_t count = BIG, len = BIG;
	enum_t stable = NFS_UNSTABLE;
	XDR x;

	xdrmem_create(&x, (char *)buf, cap, XDR_ENCODE);
	if (!orpc_call_encode(&x, g.xid++, NFS3_PROGRAM, NFS3_VERSION, NFS3_PROC_WRITE, &g.sys) ||
	    !xdr_nfs3_fh(&x, &fh) || !xdr_u_int64_t(&x, &off) || !xdr_u_int(&x, &count) ||
	    !xdr_enum(&x, &stable) || !xdr_u_int(&x, &len))
		return 0;
	return xdr_getpos(&x);
}

static int start_call(struct conn *cn, struct call *k)
{
	struct rpcrdma_call c = {.msg = g.msg};
	XDR x;
	int rc;

	k->start = rte_rdtsc();
	k->check = false;
	if (g.wl == WL_WRITE1M) {
		uint8_t head[512];
		uint32_t n;

		k->off = g.seq;
		g.seq = (g.seq + BIG) % FILE_SIZE;
		/* WRITE3args are written with the XDR primitives rather than xdr_nfs3_write_args,
		 * which would copy the 1 MiB into the message: the data stays in place in g.msg and
		 * only its 256 block words change; the transport copies it into staging */
		n = encode_write_head(head, sizeof(head), k->off);
		if (n != g.wr_hdr_len)
			return -EINVAL;
		memcpy(g.msg + DATA_OFF - n, head, n);
		pat_fill(g.msg + DATA_OFF, BIG, k->off);
		c.msg = g.msg + DATA_OFF - n;
		c.len = n + BIG;
		c.ddp_off = n;
		c.ddp_len = BIG;
	} else {
		uint32_t proc = g.wl == WL_NULL ? NFS3_PROC_NULL : NFS3_PROC_READ;

		xdrmem_create(&x, (char *)g.msg, DATA_OFF, XDR_ENCODE);
		orpc_call_encode(&x, g.xid++, NFS3_PROGRAM, NFS3_VERSION, proc, &g.sys);
		if (proc == NFS3_PROC_READ) {
			struct nfs3_read_args a = {.fh = g.fh};

			if (g.wl == WL_READ4K) {
				k->off = (next_rnd() % (FILE_SIZE / BLOCK)) * BLOCK;
				a.count = BLOCK;
				k->check = g.xid % 64 == 0;
			} else {
				k->off = g.seq;
				g.seq = (g.seq + BIG) % FILE_SIZE;
				a.count = BIG;
				k->check = g.xid % 8 == 0;
			}
			a.offset = k->off;
			if (!xdr_nfs3_read_args(&x, &a))
				return -EINVAL;
			c.ddp_reply = true;
		}
		c.len = xdr_getpos(&x);
	}
	rc = rpcrdma_clnt_call(cn->c, &c, on_reply, k);
	if (rc == 0) {
		k->busy = true;
		cn->inflight++;
	}
	return rc;
}

/* ---- raw baselines: side 0 READs 4 KiB from side 1, or side 1 WRITEs 1 MiB to side 0 ---- */

static int raw_start(struct conn *cn, struct call *k)
{
	bool rd = g.wl == WL_RAW_READ4K;
	uint32_t len = rd ? BLOCK : BIG, slot = (uint32_t)(k - cn->calls);
	int side = rd ? 0 : 1;
	struct roce_sge sge = {(uintptr_t)(cn->buf[side] + (uint64_t)slot * len), len,
			       cn->mr[side]->lkey};
	struct roce_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uintptr_t)k;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = rd ? ROCE_WR_RDMA_READ : ROCE_WR_RDMA_WRITE;
	wr.send_flags = ROCE_SEND_SIGNALED;
	k->off = rd ? (next_rnd() % (BIG / BLOCK)) * BLOCK : (uint64_t)slot * len;
	wr.wr.rdma.remote_addr = cn->mr[1 - side]->iova + k->off;
	wr.wr.rdma.rkey = cn->mr[1 - side]->rkey;
	k->start = rte_rdtsc();
	if (roce_post_send(cn->qp[side], &wr, &bad) != 0)
		return -EBUSY;
	k->busy = true;
	cn->inflight++;
	return 0;
}

static void raw_poll(struct conn *cn, int k)
{
	struct roce_wc wc[32];
	int n = roce_poll_cq(cn->cq[k], 32, wc);

	for (int i = 0; i < n; i++) {
		struct call *c = (struct call *)(uintptr_t)wc[i].wr_id;

		if (wc[i].status != ROCE_WC_SUCCESS)
			fail("a raw RDMA operation failed", (int)wc[i].status);
		count_done(c, g.wl == WL_RAW_READ4K ? BLOCK : BIG);
	}
}

/* ---- running a case ---- */

static double now_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Keep every connection at its depth for the warm-up and then the measured seconds; drain. */
static void run(const char *name, enum workload wl, struct conn *cs, uint32_t nc, uint32_t dp)
{
	struct result *r = &g.res[g.nres];
	bool raw = wl >= WL_RAW_READ4K;
	double cpu0[3] = {0}, cpu1[3];
	uint64_t t0 = 0, t1, end, busy0 = 0, tsc0[SEC_NUM] = {0};
	uint64_t sec[SEC_NUM], total = 0;
	int rc;

	if (g.only && !strstr(name, g.only))
		return;
	g.nres++;
	g.wl = wl;
	g.conns = cs;
	g.nc = nc;
	g.dp = dp;
	g.seq = 0;
	g.measuring = false;
	g.ops = g.bytes = g.nlat = 0;
	end = rte_get_tsc_cycles() + (uint64_t)(g.warmup * (double)g.hz);
	for (int phase = 0; phase < 2; phase++) {
		while (rte_get_tsc_cycles() < end) {
			uint64_t a = rte_rdtsc();

			for (uint32_t i = 0; i < nc; i++) {
				struct conn *cn = &cs[i];

				for (uint32_t j = 0; j < dp && cn->inflight < dp; j++) {
					if (cn->calls[j].busy)
						continue;
					if (!raw && !rpcrdma_clnt_room(cn->c))
						break;
					rc = raw ? raw_start(cn, &cn->calls[j])
						 : start_call(cn, &cn->calls[j]);
					if (rc == -EBUSY)
						break;
					if (rc != 0) {
						fail("a call could not be started", rc);
						break;
					}
				}
			}
			g.tsc[SEC_CLIENT] += rte_rdtsc() - a;
			poll_all();
		}
		if (phase == 0) {
			g.measuring = true;
			memcpy(tsc0, g.tsc, sizeof(tsc0));
			busy0 = g.busy_tsc;
			cpu0[0] = now_s(CLOCK_THREAD_CPUTIME_ID);
			cpu0[1] = g.pool ? (double)nfs_pool_cpu_ns(g.pool) / 1e9 : 0;
			cpu0[2] = now_s(CLOCK_PROCESS_CPUTIME_ID);
			t0 = rte_get_tsc_cycles();
			end = t0 + (uint64_t)(g.seconds * (double)g.hz);
		}
	}
	t1 = rte_get_tsc_cycles();
	cpu1[0] = now_s(CLOCK_THREAD_CPUTIME_ID);
	cpu1[1] = g.pool ? (double)nfs_pool_cpu_ns(g.pool) / 1e9 : 0;
	cpu1[2] = now_s(CLOCK_PROCESS_CPUTIME_ID);
	g.measuring = false;
	for (uint32_t i = 0; i < nc; i++)
		while (cs[i].inflight && rte_get_tsc_cycles() < t1 + 10 * g.hz)
			poll_all();
	for (uint32_t i = 0; i < nc; i++)
		if (cs[i].inflight)
			fail("calls still in flight 10 s after the case", (int)cs[i].inflight);
	g.nc = 0; /* the connections are no case's now: poll_all leaves them */

	r->name = name;
	r->wall_s = (double)(t1 - t0) / (double)g.hz;
	r->iops = (double)g.ops / r->wall_s;
	r->unit = wl == WL_READ1M || wl == WL_WRITE1M || wl == WL_RAW_WRITE1M ? "Gbit/s" : "IOPS";
	r->rate = r->unit[0] == 'G' ? (double)g.bytes * 8 / r->wall_s / 1e9 : r->iops;
	r->main_cpu_s = cpu1[0] - cpu0[0];
	/* the helper threads, and the kernel's io_uring workers (threads of this process): what
	 * the process got beyond the lcore thread (EAL's idle threads add next to nothing) */
	r->helper_cpu_s = cpu1[1] - cpu0[1];
	if (cpu1[2] - cpu0[2] - r->main_cpu_s > r->helper_cpu_s)
		r->helper_cpu_s = cpu1[2] - cpu0[2] - r->main_cpu_s;
	r->proc_cpu_s = cpu1[2] - cpu0[2];
	for (int s = 0; s < SEC_NUM; s++) {
		sec[s] = g.tsc[s] - tsc0[s];
		total += sec[s];
	}
	if (total) {
		r->server_share =
			((double)sec[SEC_SERVER] + (double)sec[SEC_SHARED] / 2) / (double)total;
		r->server_busy_share = (double)(g.busy_tsc - busy0) / (double)total;
	}
	if (g.ops) {
		r->server_ns =
			(r->main_cpu_s * r->server_share + r->helper_cpu_s) * 1e9 / (double)g.ops;
		r->server_busy_ns = (r->main_cpu_s * r->server_busy_share + r->helper_cpu_s) * 1e9 /
				    (double)g.ops;
	}
	if (g.nlat) {
		qsort(g.lat, g.nlat, sizeof(*g.lat), cmp_u64);
		r->p50_us = (double)g.lat[g.nlat / 2] * 1e6 / (double)g.hz;
		r->p99_us = (double)g.lat[g.nlat * 99 / 100] * 1e6 / (double)g.hz;
	}
}

/* ---- local baselines: the file-system work of a READ on the lcore, without RPC ---- */

/* READs of len bytes (random 4 KiB blocks, or sequential) for half the seconds: through the
 * backend (nfs_fs_read: handle, credentials, reopen, pread, attributes), or pread alone on an
 * open descriptor. Server CPU per op = the thread's CPU time per READ. */
static void run_local(const char *name, bool backend, uint32_t len)
{
	struct result *r = &g.res[g.nres];
	uint64_t ops = 0, off = 0, t0, end;
	double c0, c1;
	uint8_t *buf;
	int fd;

	if (g.only && !strstr(name, g.only))
		return;
	buf = aligned_alloc(4096, len);
	fd = open(g.file, O_RDONLY | O_CLOEXEC);
	if (!buf || fd < 0) {
		fail("the local baseline's file or buffer", -errno);
		goto out;
	}
	g.nres++;
	c0 = now_s(CLOCK_THREAD_CPUTIME_ID);
	t0 = rte_get_tsc_cycles();
	end = t0 + (uint64_t)(g.seconds / 2 * (double)g.hz);
	while (rte_get_tsc_cycles() < end) {
		uint32_t got = 0;

		off = len == BLOCK ? (next_rnd() % (FILE_SIZE / BLOCK)) * BLOCK
				   : (off + len) % FILE_SIZE;
		if (backend) {
			struct nfs_attr a;
			bool eof, av;

			if (nfs_fs_read(&g.ctx, &g.fh, off, len, buf, &got, &eof, &av, &a) !=
			    NFS_OK)
				got = 0;
		} else {
			got = (uint32_t)pread(fd, buf, len, (off_t)off);
		}
		if (got != len) {
			fail("a local READ came back short", (int)got);
			break;
		}
		ops++;
	}
	c1 = now_s(CLOCK_THREAD_CPUTIME_ID);
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->wall_s = (double)(rte_get_tsc_cycles() - t0) / (double)g.hz;
	r->iops = (double)ops / r->wall_s;
	r->unit = len == BLOCK ? "IOPS" : "Gbit/s";
	r->rate = len == BLOCK ? r->iops : r->iops * len * 8 / 1e9;
	r->main_cpu_s = r->proc_cpu_s = c1 - c0;
	r->server_share = r->server_busy_share = 1;
	if (ops)
		r->server_ns = r->server_busy_ns = r->main_cpu_s * 1e9 / (double)ops;
	if (!pat_check(buf, len, off))
		fail("a local READ returned bytes that are not the file's", (int)off);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
}

/* ---- the server, the file handle ---- */

static int server_up(void)
{
	char text[600], err[512], ip[64];
	struct nfs_ctx ctx;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ctx.peer;
	struct nfs_fh root;
	enum nfs_stat st;
	int rc;

	/* only the client's address: a peer the server did not learn (AF_UNSPEC) is refused */
	stk_ipaddr_str(&g.rp.ip[0], ip, sizeof(ip));
	snprintf(text, sizeof(text), "%s %s(rw,no_root_squash)\n", g.export, ip);
	rc = nfs_fs_open(&g.fs, text, g.state, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "nfs-bench: exports: %s\n", err);
		return rc;
	}
	if (nfs3_server_init(&g.srv, g.fs, MAX_IO) != 0)
		return -ENOMEM;
	if (g.threads) {
		g.pool = nfs_pool_create("nfsb", g.threads, nfs3_pool_work);
		if (!g.pool)
			return -errno;
	}
	g.aio = nfs_aio_create(g.fs, 256);
	if (!g.aio)
		fprintf(stderr, "nfs-bench: no io_uring (%s): its cases are left out\n",
			strerror(errno));
	g.svc.ctx = &g.srv;
	if (orpc_svc_drc_enable(&g.svc) != 0)
		return -ENOMEM;
	orpc_svc_add(&g.svc, &nfs3_program);
	/* the root's handle from the backend, as MOUNT's MNT would answer it */
	memset(&ctx, 0, sizeof(ctx));
	ctx.fs = g.fs;
	ctx.rdma = true;
	ctx.cred.flavor = 1;
	ctx.cred.uid = ctx.cred.gid = g.uid;
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = g.rp.ip[0].v4;
	st = nfs_fs_mount(&ctx, g.export, &root);
	if (st != NFS_OK) {
		fprintf(stderr, "nfs-bench: MNT: %s\n", nfs_stat_name(st));
		return -EACCES;
	}
	g.fh = root;
	g.ctx = ctx;
	return 0;
}

static struct nfs_fh *lookup_fh;
static int lookup_status = -1;

static void on_lookup(void *ctx, int err, const uint8_t *reply, uint32_t len)
{
	struct orpc_reply_hdr h = {0};
	struct nfs3_lookup_res r;
	uint32_t off;
	XDR x;

	(void)ctx;
	memset(&r, 0, sizeof(r));
	if (err || orpc_reply_decode(reply, len, &h, &off) != 0 || h.denied || h.stat != SUCCESS) {
		lookup_status = err ? err : -EPROTO;
		return;
	}
	xdrmem_create(&x, (char *)(uintptr_t)(reply + off), len - off, XDR_DECODE);
	if (!xdr_nfs3_lookup_res(&x, &r)) {
		lookup_status = -EPROTO;
		return;
	}
	lookup_status = (int)r.status;
	*lookup_fh = r.fh;
}

/* LOOKUP of the file over the connection: the server matched the client's address. */
static int lookup_file(struct conn *cn)
{
	struct nfs3_diropargs a = {.dir = g.fh, .name = "data", .namelen = 4};
	struct rpcrdma_call c = {.msg = g.msg};
	struct nfs_fh fh;
	XDR x;

	lookup_fh = &fh;
	xdrmem_create(&x, (char *)g.msg, DATA_OFF, XDR_ENCODE);
	orpc_call_encode(&x, g.xid++, NFS3_PROGRAM, NFS3_VERSION, NFS3_PROC_LOOKUP, &g.sys);
	if (!xdr_nfs3_diropargs(&x, &a))
		return -EINVAL;
	c.len = xdr_getpos(&x);
	g.wl = WL_NULL;
	g.conns = cn;
	g.nc = 1;
	if (rpcrdma_clnt_call(cn->c, &c, on_lookup, NULL) != 0)
		return -EIO;
	for (uint64_t end = rte_get_tsc_cycles() + 10 * g.hz;
	     lookup_status < 0 && rte_get_tsc_cycles() < end;)
		poll_all();
	g.nc = 0;
	if (lookup_status != NFS_OK) {
		fprintf(stderr, "nfs-bench: LOOKUP of the file: %d (%s)\n", lookup_status,
			lookup_status > 0 ? nfs_stat_name((enum nfs_stat)lookup_status)
					  : "no reply");
		return -EIO;
	}
	g.fh = fh;
	return 0;
}

/* ---- output ---- */

static const struct result *find(const char *name)
{
	for (int i = 0; i < g.nres; i++)
		if (strcmp(g.res[i].name, name) == 0)
			return &g.res[i];
	return NULL;
}

static double ratio(const char *a, const char *b)
{
	const struct result *x = find(a), *y = find(b);

	return x && y && y->rate > 0 ? x->rate / y->rate : 0;
}

/* The rate per CPU-second the process got: on a shared machine each case gets its own share of
 * the CPUs, and this ratio does not move with it. */
static double per_cpu(const struct result *r)
{
	return r->proc_cpu_s > 0 ? r->rate * r->wall_s / r->proc_cpu_s : 0;
}

static double cpu_ratio(const char *a, const char *b)
{
	const struct result *x = find(a), *y = find(b);

	return x && y && per_cpu(y) > 0 ? per_cpu(x) / per_cpu(y) : 0;
}

static const char *const C_RAW4K = "raw RDMA READ 4 KiB";
static const char *const C_NULL = "NFS NULL (RPC floor)";
static const char *const C_READ4K = "NFS READ 4 KiB, helpers";
static const char *const C_READ4K_IN = "NFS READ 4 KiB, inline";
static const char *const C_READ4K_U = "NFS READ 4 KiB, io_uring";
static const char *const C_FS4K = "nfs_fs_read 4 KiB, local";
static const char *const C_PREAD4K = "pread 4 KiB, local";
static const char *const C_FS1M = "nfs_fs_read 1 MiB, local";
static const char *const C_RAW1M = "raw RDMA WRITE 1 MiB";
static const char *const C_READ1M = "NFS READ 1 MiB, helpers";
static const char *const C_WRITE1M = "NFS WRITE 1 MiB, helpers";
static const char *const C_READ1M_IN = "NFS READ 1 MiB, inline";
static const char *const C_WRITE1M_IN = "NFS WRITE 1 MiB, inline";
static const char *const C_READ1M_U = "NFS READ 1 MiB, io_uring";
static const char *const C_WRITE1M_U = "NFS WRITE 1 MiB, io_uring";

/* droce-nfsd's own way (io_uring where it can, the helpers for the rest) is what the targets
 * judge; without io_uring, the helpers */
static const char *main4k(void)
{
	return find(C_READ4K_U) ? C_READ4K_U : C_READ4K;
}

static const char *main1m(void)
{
	return find(C_READ1M_U) ? C_READ1M_U : C_READ1M;
}

static void print_results(void)
{
	const struct result *rd = find(main4k()), *rdi = find(C_READ4K_IN), *rdh = find(C_READ4K);
	double r1 = ratio(main1m(), C_RAW1M), r1i = ratio(C_READ1M_IN, C_RAW1M);

	printf("\nnfs-bench: client and server on one lcore, net_ring, MTU 4200 (RoCE 4096); "
	       "4 KiB cases %u connections x %u in flight, 1 MiB cases %u x %u; %u helper "
	       "threads\n",
	       g.nconn, g.depth, g.big_conns, g.big_depth, g.threads);
	printf("%-26s %13s %8s %8s %9s %9s %9s %7s %7s %5s\n", "case", "rate", "p50 us", "p99 us",
	       "srv ns/op", "busy ns", "srv share", "lcore", "helpers", "cpu");
	for (int i = 0; i < g.nres; i++) {
		const struct result *r = &g.res[i];

		printf("%-26s %10.3f %-2s %8.2f %8.2f %9.0f %9.0f %9.2f %6.2fs %6.2fs %5.2f\n",
		       r->name, r->unit[0] == 'G' ? r->rate : r->rate / 1e6,
		       r->unit[0] == 'G' ? "Gb" : "M", r->p50_us, r->p99_us, r->server_ns,
		       r->server_busy_ns, r->server_share, r->main_cpu_s, r->helper_cpu_s,
		       r->proc_cpu_s / r->wall_s);
	}
	printf("cpu: the CPU time the process got per second of the case (1.0: one core all the "
	       "time); load average %s at the start, %s at the end\n",
	       g.load[0], g.load[1]);
	printf("srv ns/op: the server's share of the lcore thread's CPU time (its sections plus half "
	       "the shared rest) plus the helper threads' CPU time, per operation; busy ns: the "
	       "same counting only server passes that did work\n");
	if (rd && rd->server_ns > 0) {
		double per_core = 1e9 / rd->server_ns, per_core_busy = 1e9 / rd->server_busy_ns;

		printf("4 KiB READ (%s): %.3f M IOPS in all (client on the same core); server CPU "
		       "%.0f ns per READ = %.3f M IOPS per server core (%.3f counting busy passes "
		       "only)\n",
		       rd->name, rd->iops / 1e6, rd->server_ns, per_core / 1e6,
		       per_core_busy / 1e6);
		if (rdh && rdh != rd && rdh->server_ns > 0)
			printf("4 KiB READ with every call on the helper threads: server CPU %.0f ns "
			       "per READ = %.3f M IOPS per server core (io_uring / helpers: %.2f "
			       "per server core)\n",
			       rdh->server_ns, 1e9 / rdh->server_ns / 1e6,
			       rdh->server_ns / rd->server_ns);
		printf("target >= 1 M IOPS per server core: %s (%.3f M per core)\n",
		       per_core >= 1e6 ? "met" : "not met", per_core / 1e6);
	}
	if (rdi && rdi->server_ns > 0)
		printf("4 KiB READ inline: %.3f M IOPS, server CPU %.0f ns per READ = %.3f M IOPS per "
		       "server core\n",
		       rdi->iops / 1e6, rdi->server_ns, 1e9 / rdi->server_ns / 1e6);
	printf("ratios (same run; per CPU-second of the process in brackets): READ 4 KiB / NULL %.2f "
	       "[%.2f], / raw READ 4 KiB %.2f [%.2f], inline / helpers %.2f [%.2f]\n",
	       ratio(C_READ4K, C_NULL), cpu_ratio(C_READ4K, C_NULL), ratio(C_READ4K, C_RAW4K),
	       cpu_ratio(C_READ4K, C_RAW4K), ratio(C_READ4K_IN, C_READ4K),
	       cpu_ratio(C_READ4K_IN, C_READ4K));
	printf("1 MiB / raw RDMA WRITE 1 MiB: READ %.2f [%.2f] (inline %.2f [%.2f]), WRITE %.2f "
	       "[%.2f] (inline %.2f [%.2f])\n",
	       r1, cpu_ratio(C_READ1M, C_RAW1M), r1i, cpu_ratio(C_READ1M_IN, C_RAW1M),
	       ratio(C_WRITE1M, C_RAW1M), cpu_ratio(C_WRITE1M, C_RAW1M),
	       ratio(C_WRITE1M_IN, C_RAW1M), cpu_ratio(C_WRITE1M_IN, C_RAW1M));
	if (find(C_READ1M_U))
		printf("1 MiB by io_uring / raw RDMA WRITE 1 MiB: READ %.2f [%.2f], WRITE %.2f "
		       "[%.2f]\n",
		       ratio(C_READ1M_U, C_RAW1M), cpu_ratio(C_READ1M_U, C_RAW1M),
		       ratio(C_WRITE1M_U, C_RAW1M), cpu_ratio(C_WRITE1M_U, C_RAW1M));
	printf("target READ 1 MiB (%s) >= 0.8 of raw WRITE: %s (%.2f; %.2f per CPU-second)\n",
	       main1m(), r1 >= 0.8 ? "met" : "not met", r1, cpu_ratio(main1m(), C_RAW1M));
	printf("server: %llu READs and %llu WRITEs answered, %llu on helper threads, %llu run inline "
	       "for want of scratch; sampled READs checked byte for byte: %llu; failures: %d\n",
	       (unsigned long long)g.srv.st.proc[NFS3_PROC_READ],
	       (unsigned long long)g.srv.st.proc[NFS3_PROC_WRITE],
	       (unsigned long long)g.srv.st.deferred, (unsigned long long)g.srv.st.sync_fallback,
	       (unsigned long long)g.checked, g.failures);
}

/* what io_uring took and why the rest went to the helpers */
static void print_aio(void)
{
	struct nfs_aio_stats a;

	if (!g.aio)
		return;
	nfs_aio_stats(g.aio, &a);
	printf("io_uring: %llu READs and %llu WRITEs, %llu submissions; left to the helpers: %llu "
	       "not cached, %llu not the owner's, %llu needing a sync, %llu with every slot taken, "
	       "%llu other; %llu completion errors; %llu handed back to run again\n",
	       (unsigned long long)a.reads, (unsigned long long)a.writes,
	       (unsigned long long)a.submits, (unsigned long long)a.miss,
	       (unsigned long long)a.not_owner, (unsigned long long)a.needs_sync,
	       (unsigned long long)a.busy, (unsigned long long)a.other,
	       (unsigned long long)a.errors, (unsigned long long)a.rechecked);
}

static void write_json(void)
{
	const struct result *rd = find(main4k());
	FILE *f = fopen(g.json, "w");

	if (!f) {
		fprintf(stderr, "nfs-bench: cannot write %s\n", g.json);
		return;
	}
	fprintf(f,
		"{\"bench\": \"nfs\", \"params\": {\"seconds\": %.2f, \"warmup\": %.2f, "
		"\"threads\": %u, \"conns\": %u, \"depth\": %u, \"big_conns\": %u, \"big_depth\": "
		"%u, \"file_bytes\": %u, \"cpus_online\": %ld, \"loadavg_start\": \"%s\", "
		"\"loadavg_end\": \"%s\"}, \"cases\": [",
		g.seconds, g.warmup, g.threads, g.nconn, g.depth, g.big_conns, g.big_depth,
		FILE_SIZE, sysconf(_SC_NPROCESSORS_ONLN), g.load[0], g.load[1]);
	for (int i = 0; i < g.nres; i++) {
		const struct result *r = &g.res[i];

		fprintf(f,
			"%s{\"name\": \"%s\", \"rate\": %.3f, \"unit\": \"%s\", \"ops_per_s\": "
			"%.1f, \"p50_us\": %.3f, \"p99_us\": %.3f, \"wall_s\": %.3f, "
			"\"lcore_cpu_s\": %.3f, \"helper_cpu_s\": %.3f, \"process_cpu_s\": %.3f, "
			"\"server_share_of_lcore\": %.3f, \"server_busy_share_of_lcore\": %.3f, "
			"\"server_cpu_ns_per_op\": %.1f, \"server_busy_cpu_ns_per_op\": %.1f, "
			"\"rate_per_process_cpu_s\": %.3f}",
			i ? ", " : "", r->name, r->rate, r->unit, r->iops, r->p50_us, r->p99_us,
			r->wall_s, r->main_cpu_s, r->helper_cpu_s, r->proc_cpu_s, r->server_share,
			r->server_busy_share, r->server_ns, r->server_busy_ns, per_cpu(r));
	}
	fprintf(f,
		"], \"ratios\": {\"read4k_to_null\": %.3f, \"read4k_to_raw_read4k\": %.3f, "
		"\"read4k_inline_to_helpers\": %.3f, \"read1m_to_raw_write1m\": %.3f, "
		"\"write1m_to_raw_write1m\": %.3f, \"read1m_inline_to_raw_write1m\": %.3f, "
		"\"write1m_inline_to_raw_write1m\": %.3f, \"per_cpu\": {\"read4k_to_null\": %.3f, "
		"\"read4k_to_raw_read4k\": %.3f, \"read1m_to_raw_write1m\": %.3f, "
		"\"write1m_to_raw_write1m\": %.3f, \"read1m_inline_to_raw_write1m\": %.3f, "
		"\"write1m_inline_to_raw_write1m\": %.3f}}, ",
		ratio(C_READ4K, C_NULL), ratio(C_READ4K, C_RAW4K), ratio(C_READ4K_IN, C_READ4K),
		ratio(C_READ1M, C_RAW1M), ratio(C_WRITE1M, C_RAW1M), ratio(C_READ1M_IN, C_RAW1M),
		ratio(C_WRITE1M_IN, C_RAW1M), cpu_ratio(C_READ4K, C_NULL),
		cpu_ratio(C_READ4K, C_RAW4K), cpu_ratio(C_READ1M, C_RAW1M),
		cpu_ratio(C_WRITE1M, C_RAW1M), cpu_ratio(C_READ1M_IN, C_RAW1M),
		cpu_ratio(C_WRITE1M_IN, C_RAW1M));
	fprintf(f,
		"\"targets\": {\"read4k_case\": \"%s\", \"read4k_iops_per_server_core\": %.1f, "
		"\"read4k_target\": 1000000, \"read4k_met\": %s, \"read1m_case\": \"%s\", "
		"\"read1m_ratio\": %.3f, \"read1m_ratio_target\": 0.8, \"read1m_met\": %s}, "
		"\"checked_reads\": %llu, \"failures\": %d}\n",
		main4k(), rd && rd->server_ns > 0 ? 1e9 / rd->server_ns : 0,
		rd && rd->server_ns > 0 && 1e9 / rd->server_ns >= 1e6 ? "true" : "false", main1m(),
		ratio(main1m(), C_RAW1M), ratio(main1m(), C_RAW1M) >= 0.8 ? "true" : "false",
		(unsigned long long)g.checked, g.failures);
	fclose(f);
}

static void read_load(char *buf, size_t len)
{
	FILE *f = fopen("/proc/loadavg", "r");

	snprintf(buf, len, "?");
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
}

/* ---- main ---- */

static int parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", 1, NULL, 'j'},	     {"seconds", 1, NULL, 's'}, {"threads", 1, NULL, 't'},
		{"conns", 1, NULL, 'c'},     {"depth", 1, NULL, 'd'},	{"big-conns", 1, NULL, 'C'},
		{"big-depth", 1, NULL, 'D'}, {"dir", 1, NULL, 'r'},	{"only", 1, NULL, 'o'},
		{"uid", 1, NULL, 'u'},	     {NULL, 0, NULL, 0}};
	int o;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'j':
			g.json = optarg;
			break;
		case 's':
			g.seconds = atof(optarg);
			break;
		case 't':
			g.threads = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'c':
			g.nconn = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'd':
			g.depth = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'C':
			g.big_conns = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'D':
			g.big_depth = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			g.basedir = optarg;
			break;
		case 'o':
			g.only = optarg;
			break;
		case 'u':
			g.uid = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		default:
			return -1;
		}
	}
	if (g.seconds <= 0 || g.threads > NFS_POOL_MAX_THREADS || !g.nconn || g.nconn > MAX_CONNS ||
	    !g.depth || g.depth > MAX_DEPTH || !g.big_conns || g.big_conns > MAX_CONNS ||
	    !g.big_depth || g.big_depth > MAX_DEPTH) {
		fprintf(stderr, "nfs-bench: an option is out of range (conns 1..%u, depth 1..%u)\n",
			MAX_CONNS, MAX_DEPTH);
		return -1;
	}
	return 0;
}

/* The 4 KiB cases on nconn connections, the 1 MiB cases on big_conns, each with its raw
 * baseline on as many QP pairs. */
static void run_all(struct conn *cs)
{
	struct nfs3_server *s = &g.srv;
	uint8_t head[512];

	for (uint32_t i = 0; i < g.nconn; i++)
		if (raw_connect(&cs[i], BIG) != 0) {
			fail("raw QPs", -1);
			return;
		}
	run(C_RAW4K, WL_RAW_READ4K, cs, g.nconn, g.depth);
	for (uint32_t i = 0; i < g.nconn; i++)
		raw_close(&cs[i]);
	for (uint32_t i = 0; i < g.nconn; i++)
		if (rpc_connect(&cs[i], g.depth, 65536) != 0) {
			fail("RPC-over-RDMA connections", -1);
			return;
		}
	if (lookup_file(&cs[0]) != 0) {
		fail("LOOKUP of the file", -1);
		return;
	}
	/* a WRITE call's bytes before its data: the same handle and credential every time */
	g.wr_hdr_len = encode_write_head(head, sizeof(head), 0);
	run(C_NULL, WL_NULL, cs, g.nconn, g.depth);
	s->pool = g.pool;
	run(C_READ4K, WL_READ4K, cs, g.nconn, g.depth);
	/* droce-nfsd's way: io_uring where the lcore can start the call, the helpers for the rest */
	s->aio = g.aio;
	if (g.aio)
		run(C_READ4K_U, WL_READ4K, cs, g.nconn, g.depth);
	s->aio = NULL;
	s->pool = NULL;
	run(C_READ4K_IN, WL_READ4K, cs, g.nconn, g.depth);
	run_local(C_FS4K, true, BLOCK);
	run_local(C_PREAD4K, false, BLOCK);
	run_local(C_FS1M, true, BIG);
	for (uint32_t i = 0; i < g.nconn; i++)
		rpc_close(&cs[i]);

	for (uint32_t i = 0; i < g.big_conns; i++)
		if (raw_connect(&cs[i], g.big_depth * BIG) != 0) {
			fail("raw QPs", -1);
			return;
		}
	run(C_RAW1M, WL_RAW_WRITE1M, cs, g.big_conns, g.big_depth);
	for (uint32_t i = 0; i < g.big_conns; i++)
		raw_close(&cs[i]);
	for (uint32_t i = 0; i < g.big_conns; i++)
		if (rpc_connect(&cs[i], g.big_depth, MAX_IO + 8192) != 0) {
			fail("RPC-over-RDMA connections", -1);
			return;
		}
	s->pool = g.pool;
	run(C_READ1M, WL_READ1M, cs, g.big_conns, g.big_depth);
	run(C_WRITE1M, WL_WRITE1M, cs, g.big_conns, g.big_depth);
	s->aio = g.aio;
	if (g.aio) {
		run(C_READ1M_U, WL_READ1M, cs, g.big_conns, g.big_depth);
		run(C_WRITE1M_U, WL_WRITE1M, cs, g.big_conns, g.big_depth);
	}
	s->aio = NULL;
	s->pool = NULL;
	run(C_READ1M_IN, WL_READ1M, cs, g.big_conns, g.big_depth);
	run(C_WRITE1M_IN, WL_WRITE1M, cs, g.big_conns, g.big_depth);
	for (uint32_t i = 0; i < g.big_conns; i++)
		rpc_close(&cs[i]);
}

int main(int argc, char **argv)
{
	static struct conn conns[MAX_CONNS];
	int n, rc = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	n = rte_eal_init(argc, argv);
	if (n < 0)
		return 1;
	if (parse(argc - n, argv + n) != 0)
		return 2;
	if (geteuid() != 0) {
		printf("nfs-bench: needs root (the backend opens files by handle): skipped\n");
		return 77;
	}
	g.hz = rte_get_tsc_hz();
	g.lat = malloc(MAX_LAT * sizeof(*g.lat));
	g.msg = aligned_alloc(4096, DATA_OFF + BIG);
	g.chunk = aligned_alloc(4096, BIG);
	if (!g.lat || !g.msg || !g.chunk)
		return 1;
	pat_fill(g.chunk, BIG, 0);
	for (uint32_t i = 8; i < BIG; i += 8) {
		uint64_t w = pat_word(i);

		if (i % BLOCK)
			memcpy(g.chunk + i, &w, 8);
	}
	memcpy(g.msg + DATA_OFF, g.chunk, BIG);
	snprintf(g.sys.machname, sizeof(g.sys.machname), "nfs-bench");
	g.sys.uid = g.sys.gid = g.uid;
	if ((rc = make_file()) != 0) {
		fprintf(stderr, "nfs-bench: cannot write the file under %s: %s\n", g.basedir,
			strerror(-rc));
		rc = 1;
		goto out;
	}
	rc = 1;
	if (ring_pair_up(&g.rp, "nb", 82, 4200) != 0)
		goto out;
	g.lc = g.rp.lc;
	/* the bench polls each port and device itself (poll_all), to time the two sides apart */
	g.lc->nb_rxq = 0;
	g.lc->nb_poll = 0;
	g.ifc[0] = stk_iface_get(0);
	g.ifc[1] = stk_iface_get(1);
	if (server_up() != 0)
		goto out;
	read_load(g.load[0], sizeof(g.load[0]));
	run_all(conns);
	read_load(g.load[1], sizeof(g.load[1]));
	if (check_file() != 0)
		fail("the file does not hold its pattern after the WRITEs", -EIO);
	print_results();
	print_aio();
	if (g.json)
		write_json();
	rc = g.failures ? 1 : 0;
out:
	nfs_aio_destroy(g.aio, nfs3_aio_done);
	nfs_pool_destroy(g.pool, nfs3_pool_done);
	nfs3_server_fini(&g.srv);
	orpc_svc_drc_disable(&g.svc);
	if (g.fs)
		nfs_fs_close(g.fs);
	cleanup_dir();
	free(g.lat);
	free(g.msg);
	free(g.chunk);
	return rc;
}
