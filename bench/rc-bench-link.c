/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rc-bench-link.c - the virtual link between rc-bench's two sides: crossed net_ring ports, or a
 * net_memif server and client on one socket in a temporary directory (removed at exit), and the
 * mbuf pool pre-touch that keeps page faults out of the measurements.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "rc-bench.h"
#include "stk_lcore.h"

/* The memif socket's directory and path (removed at exit). */
static char memif_dir[64], memif_sock[96];

const char *rcb_memif_sock(void)
{
	return memif_sock;
}

/* Remove the memif socket and its directory, if any (async-signal-safe). */
void rcb_memif_cleanup(void)
{
	if (memif_sock[0])
		unlink(memif_sock);
	if (memif_dir[0])
		rmdir(memif_dir);
}

/* Configure and start @p port with one RX queue (filled from the pool) and one TX queue. */
static void port_start(uint16_t port, const char *name, struct rte_mempool *pool)
{
	struct rte_eth_conf conf;

	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 1024, 0, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 1024, 0, NULL) != 0 || rte_eth_dev_start(port) != 0)
		rte_exit(EXIT_FAILURE, "rc-bench: port %s failed\n", name);
}

uint16_t rcb_ring_port(const char *name, struct rte_ring *rx, struct rte_ring *tx,
		       struct rte_mempool *pool)
{
	int p = rte_eth_from_rings(name, &rx, 1, &tx, 1, (unsigned)rte_socket_id());

	if (p < 0)
		rte_exit(EXIT_FAILURE, "rc-bench: net_ring port %s failed\n", name);
	port_start((uint16_t)p, name, pool);
	return (uint16_t)p;
}

/*
 * A net_memif port on the bench's socket: @p role "server" (created first: it makes the
 * listening socket) or "client". --memif-ring slots per ring and --memif-buf bytes per
 * buffer; copy mode (zero-copy memif needs the client's mbufs in hugepage memory shared with
 * the server).
 *
 * Every frame must fit one buffer, copied there through the PMD's gathering TX path (buffer
 * smaller than the mbuf room): as we read drivers/net/memif/rte_eth_memif.c, and as it
 * behaved here, DPDK 22.11's memif leaves a descriptor's "next" flag set when it reuses the
 * slot for the first (or only) buffer of a frame, and its RX follows the flag past the slots
 * the sender filled. Frames that take several descriptors (a buffer
 * smaller than the frame, or the per-segment TX path that a buffer at least as big as the
 * mbuf room selects, with the transport's 3-segment zero-copy frames) then get merged with
 * their neighbours or replayed from stale slots: with 2048-byte buffers the RC cells at MTU
 * 1024 saw the responder receive a million old frames and failed with RETRY_EXC_ERR.
 * A 1024-slot ring of 9 KiB buffers (9 MiB per direction) also keeps the copies in L3;
 * 4096 slots halved the stack's own 4 KiB-frame rate.
 */
static uint16_t memif_port(const struct rcb_link_conf *c, const char *name, const char *role)
{
	char args[256];
	uint16_t p;

	if (c->memif_buf < c->ip_mtu + RTE_ETHER_HDR_LEN + 4 || c->memif_buf >= c->mbuf_room)
		rte_exit(
			EXIT_FAILURE,
			"rc-bench: --memif-buf %u: needs a frame of IP MTU %u + L2 (%u) and less than "
			"the mbuf room (%u), see memif_port()\n",
			c->memif_buf, c->ip_mtu, c->ip_mtu + RTE_ETHER_HDR_LEN + 4, c->mbuf_room);
	snprintf(args, sizeof(args), "role=%s,id=0,socket=%s,socket-abstract=no,rsize=%u,bsize=%u",
		 role, memif_sock, (unsigned)rte_log2_u32(c->memif_ring), c->memif_buf);
	if (rte_eal_hotplug_add("vdev", name, args) != 0 ||
	    rte_eth_dev_get_port_by_name(name, &p) != 0)
		rte_exit(EXIT_FAILURE,
			 "rc-bench: cannot create %s (%s); is the net_memif driver loaded?\n", name,
			 args);
	port_start(p, name, c->pool);
	return p;
}

/* Wait up to @p ms for @p port's link to be @p up. @return true when it is. */
static bool link_wait(uint16_t port, bool up, unsigned ms)
{
	for (unsigned i = 0; i <= ms; i++) {
		struct rte_eth_link l;

		if (rte_eth_link_get_nowait(port, &l) == 0 && !!l.link_status == up)
			return true;
		rte_delay_ms(1);
	}
	return false;
}

/* Both memif ports: a server and a client on one socket in a fresh temporary directory; wait
 * until both links are up (the handshake runs in EAL's interrupt thread). */
void rcb_memif_ports(const struct rcb_link_conf *c, uint16_t *a, uint16_t *b)
{
	snprintf(memif_dir, sizeof(memif_dir), "/tmp/rc-bench.XXXXXX");
	if (!mkdtemp(memif_dir)) {
		memif_dir[0] = '\0';
		rte_exit(EXIT_FAILURE, "rc-bench: mkdtemp: %s\n", strerror(errno));
	}
	snprintf(memif_sock, sizeof(memif_sock), "%s/memif.sock", memif_dir);
	atexit(rcb_memif_cleanup);
	*a = memif_port(c, "net_memif_rcb_a", "server");
	*b = memif_port(c, "net_memif_rcb_b", "client");
	if (!link_wait(*a, true, 5000) || !link_wait(*b, true, 5000))
		rte_exit(EXIT_FAILURE, "rc-bench: memif links not up after 5 s\n");
}

uint64_t rcb_lcore_tx(const struct stk_lcore *lc)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < STK_MAX_PORTS; i++)
		n += lc->stats[i].c[STK_CNT_tx_pkts];
	return n;
}

/* Touch every mbuf's data room once: without hugepages the first write to each page is a
 * page fault, which would otherwise land in whichever measurement comes first. */
void rcb_pool_pretouch(struct rte_mempool *pool, unsigned size)
{
	struct rte_mbuf **m = calloc(size, sizeof(*m));
	unsigned n = 0;

	if (!m)
		return;
	while (n < size && (m[n] = rte_pktmbuf_alloc(pool)) != NULL)
		n++;
	for (unsigned i = 0; i < n; i++) {
		memset(m[i]->buf_addr, 0, m[i]->buf_len);
		rte_pktmbuf_free(m[i]);
	}
	free(m);
}
