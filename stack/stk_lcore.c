/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_lcore.c - the run-to-completion loop, receive dispatch, transmit, the exception path to
 * the kernel, and neighbour resolution for outgoing datagrams. See stk_lcore.h.
 *
 * The impairment hooks (stk_impair.h) sit at the top of stk_input() and stk_tx_frame(): with
 * the impairment off they cost one test of a pointer in the lcore context; with it on, the
 * frames it passes on continue in input_frame() / tx_frame(), now or from the loop.
 * Software PFC (stk_pfc_port.h) sits in tx_frame(), after the impairment, at the same cost
 * when off: one test of a pointer.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "stk_arp.h"
#include "stk_ctrl.h"
#include "stk_lcore.h"
#include "stk_log.h"
#include "stk_pfc_port.h"
#include "stk_stack.h"

#define UDP_MAX_BIND 32

struct udp_binding {
	stk_udp_rx_fn fn;
	void *arg;
	uint16_t port;
};

/* Written before the lcores start, read-only while they run. */
static struct udp_binding udp_bind[UDP_MAX_BIND + 1]; /* slot 0 unused */
static uint8_t udp_slot[UINT16_MAX + 1];
static struct stk_lcore *lcores[RTE_MAX_LCORE];

struct stk_lcore *stk_lcore_get(unsigned lcore_id)
{
	return lcore_id < RTE_MAX_LCORE ? lcores[lcore_id] : NULL;
}

struct stk_lcore *stk_lcore_self(void)
{
	return stk_lcore_get(rte_lcore_id());
}

int stk_udp_bind(uint16_t port, stk_udp_rx_fn fn, void *arg)
{
	if (port == 0 || !fn)
		return -EINVAL;
	if (udp_slot[port])
		return -EEXIST;
	for (unsigned i = 1; i <= UDP_MAX_BIND; i++) {
		if (udp_bind[i].fn)
			continue;
		udp_bind[i] = (struct udp_binding){.fn = fn, .arg = arg, .port = port};
		udp_slot[port] = (uint8_t)i;
		return 0;
	}
	return -ENOSPC;
}

int stk_udp_unbind(uint16_t port)
{
	uint8_t s = udp_slot[port];

	if (!s)
		return -ENOENT;
	memset(&udp_bind[s], 0, sizeof(udp_bind[s]));
	udp_slot[port] = 0;
	return 0;
}

int stk_lcore_add_poll_as(struct stk_lcore *lc, stk_poll_fn fn, void *arg, const char *name)
{
	static const char *const hook_name[STK_MAX_POLL] = {"hook 0", "hook 1", "hook 2", "hook 3",
							    "hook 4", "hook 5", "hook 6", "hook 7"};

	if (lc->nb_poll >= STK_MAX_POLL)
		return -ENOSPC;
	lc->poll[lc->nb_poll].fn = fn;
	lc->poll[lc->nb_poll].arg = arg;
	lc->poll[lc->nb_poll].name = name ? name : hook_name[lc->nb_poll];
	lc->nb_poll++;
	return 0;
}

int stk_lcore_add_poll(struct stk_lcore *lc, stk_poll_fn fn, void *arg)
{
	return stk_lcore_add_poll_as(lc, fn, arg, NULL);
}

/* ---------------- the slow-step meter ---------------- */

static uint64_t tv_us(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000u + (uint64_t)tv->tv_usec;
}

static void usage_sample(struct stk_usage *u)
{
	struct rusage ru;

	u->tsc = rte_get_tsc_cycles();
	if (getrusage(RUSAGE_THREAD, &ru) != 0) {
		memset(&ru, 0, sizeof(ru));
	}
	u->user_us = tv_us(&ru.ru_utime);
	u->sys_us = tv_us(&ru.ru_stime);
	u->vcsw = (uint64_t)ru.ru_nvcsw;
	u->ivcsw = (uint64_t)ru.ru_nivcsw;
	u->minflt = (uint64_t)ru.ru_minflt;
	u->majflt = (uint64_t)ru.ru_majflt;
}

/* The slot of @p name: the same literal, or the same text (two literals alike); a new one
 * takes a free slot; past the last, the last slot takes it ("other steps"). */
static struct stk_step_stat *step_stat(struct stk_lcore *lc, const char *name)
{
	unsigned i;

	if (!name)
		name = "unnamed";
	for (i = 0; i < STK_MAX_STEPS - 1 && lc->steps[i].name; i++)
		if (lc->steps[i].name == name || strcmp(lc->steps[i].name, name) == 0)
			return &lc->steps[i];
	if (i == STK_MAX_STEPS - 1)
		name = "other steps";
	lc->steps[i].name = name;
	return &lc->steps[i];
}

static uint64_t tsc_ms(uint64_t tsc)
{
	return tsc * 1000u / rte_get_tsc_hz();
}

void stk_lcore_slow_step(struct stk_lcore *lc, uint64_t now)
{
	uint64_t len = now - lc->step_t0;
	struct stk_step_stat *s = step_stat(lc, lc->step);
	struct stk_usage u, w;

	lc->slow_steps++;
	s->slow++;
	if (len > s->max_tsc)
		s->max_tsc = len;
	/* what the thread did from the last sample (before the step began) to now */
	usage_sample(&u);
	w.tsc = u.tsc - lc->use_base.tsc;
	w.user_us = u.user_us - lc->use_base.user_us;
	w.sys_us = u.sys_us - lc->use_base.sys_us;
	w.vcsw = u.vcsw - lc->use_base.vcsw;
	w.ivcsw = u.ivcsw - lc->use_base.ivcsw;
	w.minflt = u.minflt - lc->use_base.minflt;
	w.majflt = u.majflt - lc->use_base.majflt;
	lc->use_base = u;
	if (len > lc->worst.tsc) {
		lc->worst.step = s->name;
		lc->worst.tsc = len;
		lc->worst.use = w;
	}
	if (len >= lc->slow_tsc / STK_SLOW_STEP_MS * STK_STALL_WARN_MS && now >= lc->warn_next) {
		lc->warn_next = now + rte_get_tsc_hz();
		STK_LOG(WARNING,
			"lcore %u: '%s' ran %" PRIu64 " ms. In the %" PRIu64
			" ms up to its end the "
			"thread ran %" PRIu64 " ms in user mode and %" PRIu64 " ms in the kernel, "
			"slept or blocked %" PRIu64 " times, was preempted %" PRIu64 " times, and "
			"took %" PRIu64 " page faults (%" PRIu64 " major)",
			lc->lcore_id, s->name, tsc_ms(len), tsc_ms(w.tsc), w.user_us / 1000,
			w.sys_us / 1000, w.vcsw, w.ivcsw, w.minflt + w.majflt, w.majflt);
	}
}

int stk_lcore_defer(struct stk_lcore *lc, stk_poll_fn fn, void *arg)
{
	for (unsigned i = 0; i < lc->nb_defer; i++)
		if (lc->defer[i].fn == fn && lc->defer[i].arg == arg)
			return 0;
	if (lc->nb_defer >= STK_MAX_DEFER)
		return -ENOSPC;
	lc->defer[lc->nb_defer].fn = fn;
	lc->defer[lc->nb_defer].arg = arg;
	lc->nb_defer++;
	return 0;
}

void stk_lcore_defer_cancel(struct stk_lcore *lc, stk_poll_fn fn, void *arg)
{
	for (unsigned i = 0; i < lc->nb_defer; i++) {
		if (lc->defer[i].fn == fn && lc->defer[i].arg == arg) {
			memmove(&lc->defer[i], &lc->defer[i + 1],
				(lc->nb_defer - i - 1) * sizeof(lc->defer[0]));
			lc->nb_defer--;
			return;
		}
	}
}

/* The one-shot work, in the order it was queued; what it queues meanwhile runs too. Each
 * entry is taken off before it runs, so it may queue itself again for the next pass. */
static void run_deferred(struct stk_lcore *lc)
{
	while (lc->nb_defer) {
		stk_poll_fn fn = lc->defer[0].fn;
		void *arg = lc->defer[0].arg;

		lc->nb_defer--;
		memmove(&lc->defer[0], &lc->defer[1], lc->nb_defer * sizeof(lc->defer[0]));
		fn(lc, arg);
	}
}

/* TX buffer error callback: the PMD queue was full. */
static void tx_unsent(struct rte_mbuf **pkts, uint16_t unsent, void *userdata)
{
	struct stk_port_stats *st = userdata;

	for (uint16_t i = 0; i < unsent; i++) {
		st->c[STK_CNT_tx_pkts]--;
		st->c[STK_CNT_tx_bytes] -= rte_pktmbuf_pkt_len(pkts[i]);
		rte_pktmbuf_free(pkts[i]);
	}
	st->drop[STK_DROP_TX_FULL] += unsent;
	st->c[STK_CNT_drops] += unsent;
}

static void exc_unsent(struct rte_mbuf **pkts, uint16_t unsent, void *userdata)
{
	struct stk_port_stats *st = userdata;

	for (uint16_t i = 0; i < unsent; i++)
		rte_pktmbuf_free(pkts[i]);
	st->c[STK_CNT_to_kernel] -= unsent;
	st->drop[STK_DROP_EXC_RING_FULL] += unsent;
	st->c[STK_CNT_drops] += unsent;
}

static struct rte_eth_dev_tx_buffer *txb_create(unsigned socket, buffer_tx_error_fn cb,
						struct stk_port_stats *st)
{
	struct rte_eth_dev_tx_buffer *b;

	b = rte_zmalloc_socket("stk_txb", RTE_ETH_TX_BUFFER_SIZE(STK_BURST), 0, (int)socket);
	if (!b)
		return NULL;
	rte_eth_tx_buffer_init(b, STK_BURST);
	rte_eth_tx_buffer_set_err_callback(b, cb, st);
	return b;
}

struct stk_lcore *stk_lcore_create(unsigned lcore_id, unsigned index, bool exc_owner,
				   struct rte_mempool *pool, const struct stk_neigh_params *np)
{
	unsigned socket = rte_lcore_to_socket_id(lcore_id);
	char name[RTE_RING_NAMESIZE];
	struct stk_lcore *lc;

	if (lcore_id >= RTE_MAX_LCORE || lcores[lcore_id]) {
		rte_errno = EEXIST;
		return NULL;
	}
	lc = rte_zmalloc_socket("stk_lcore", sizeof(*lc), RTE_CACHE_LINE_SIZE, (int)socket);
	if (!lc) {
		rte_errno = ENOMEM;
		return NULL;
	}
	lc->lcore_id = lcore_id;
	lc->index = index;
	lc->exc_owner = exc_owner;
	lc->pool = pool;
	lc->tick_period = rte_get_tsc_hz() / 10; /* neighbour timers: 100 ms resolution */
	lc->next_tick = rte_get_tsc_cycles() + lc->tick_period;
	lc->slow_tsc = rte_get_tsc_hz() / 1000u * STK_SLOW_STEP_MS;
	usage_sample(&lc->use_base); /* this thread's; stk_lcore_main samples its own */
	for (unsigned i = 0; i < STK_MAX_PORTS; i++) {
		lc->txb[i] = txb_create(socket, tx_unsent, &lc->stats[i]);
		lc->exc_txb[i] = txb_create(socket, exc_unsent, &lc->stats[i]);
		if (!lc->txb[i] || !lc->exc_txb[i])
			goto fail;
	}
	lc->neigh = stk_neigh_create(np, (int)socket);
	if (!lc->neigh)
		goto fail;
	if (stk_impair_attach(lc) != 0)
		goto fail;
	if (stk_pfc_attach(lc) != 0)
		goto fail;
	snprintf(name, sizeof(name), "stk_ctrl_%u_%d", lcore_id, (int)getpid());
	lc->ctrl = rte_ring_create(name, 1024, (int)socket, RING_F_SC_DEQ);
	if (!lc->ctrl)
		goto fail;
	lcores[lcore_id] = lc;
	return lc;
fail:
	stk_lcore_destroy(lc);
	rte_errno = ENOMEM;
	return NULL;
}

void stk_lcore_destroy(struct stk_lcore *lc)
{
	void *msg;

	if (!lc)
		return;
	if (lcores[lc->lcore_id] == lc)
		lcores[lc->lcore_id] = NULL;
	/* delayed and held frames are freed, not sent: the ports may be gone */
	stk_impair_detach(lc);
	stk_pfc_detach(lc);
	for (unsigned i = 0; i < STK_MAX_PORTS; i++) {
		/* drop whatever is still buffered: the port may be gone */
		if (lc->txb[i]) {
			for (unsigned k = 0; k < lc->txb[i]->length; k++)
				rte_pktmbuf_free(lc->txb[i]->pkts[k]);
			rte_free(lc->txb[i]);
		}
		if (lc->exc_txb[i]) {
			for (unsigned k = 0; k < lc->exc_txb[i]->length; k++)
				rte_pktmbuf_free(lc->exc_txb[i]->pkts[k]);
			rte_free(lc->exc_txb[i]);
		}
	}
	stk_neigh_free(lc->neigh);
	if (lc->ctrl) {
		while (rte_ring_dequeue(lc->ctrl, &msg) == 0)
			stk_ctrl_msg_free(msg);
		rte_ring_free(lc->ctrl);
	}
	rte_free(lc);
}

/* Into the TX buffer: stk_tx_frame() after the impairment. With software PFC on the
 * interface, a frame of a paused priority waits in its hold FIFO instead. */
static inline void tx_frame(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m)
{
	if (unlikely(lc->pfc[ifc->idx] != NULL) && stk_pfc_tx_hold(lc, ifc, m))
		return;
	stk_tx_enqueue(lc, ifc, m);
}

static __rte_noinline void tx_impaired(struct stk_lcore *lc, const struct stk_iface *ifc,
				       struct stk_impair *imp, struct rte_mbuf *m)
{
	struct rte_mbuf *out[STK_IMPAIR_MAX_OUT];
	unsigned n = stk_impair_frame(imp, m, out);

	for (unsigned i = 0; i < n; i++)
		tx_frame(lc, ifc, out[i]);
}

void stk_tx_frame(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m)
{
	struct stk_impair *imp = lc->impair[ifc->idx][STK_IMPAIR_TX];

	if (unlikely(imp != NULL)) {
		tx_impaired(lc, ifc, imp, m);
		return;
	}
	tx_frame(lc, ifc, m);
}

void stk_tx_frames(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf **ms,
		   unsigned n)
{
	struct stk_port_stats *st = &lc->stats[ifc->idx];
	struct rte_eth_dev_tx_buffer *b = lc->txb[ifc->idx];
	uint16_t port = ifc->port_id, q = (uint16_t)lc->index;
	uint64_t bytes = 0;
	unsigned done = 0;

	if (unlikely(lc->impair[ifc->idx][STK_IMPAIR_TX] != NULL || lc->pfc[ifc->idx] != NULL)) {
		for (unsigned i = 0; i < n; i++)
			stk_tx_frame(lc, ifc, ms[i]);
		return;
	}
	if (b->length)
		rte_eth_tx_buffer_flush(port, q, b);
	for (unsigned i = 0; i < n; i++)
		bytes += rte_pktmbuf_pkt_len(ms[i]);
	st->c[STK_CNT_tx_pkts] += n;
	st->c[STK_CNT_tx_bytes] += bytes;
	while (done < n) {
		uint16_t k = (uint16_t)RTE_MIN(n - done, (unsigned)UINT16_MAX);
		uint16_t sent = rte_eth_tx_burst(port, q, ms + done, k);

		done += sent;
		if (sent < k) {
			while (done < n) {
				k = (uint16_t)RTE_MIN(n - done, (unsigned)UINT16_MAX);
				tx_unsent(ms + done, k, st);
				done += k;
			}
			return;
		}
	}
}

void stk_to_kernel(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m)
{
	struct stk_port_stats *st = &lc->stats[ifc->idx];

	if (ifc->exc_port_id == STK_NO_PORT) {
		stk_count_drop(lc, ifc->idx, STK_DROP_NO_EXCEPTION);
		rte_pktmbuf_free(m);
		return;
	}
	/* The TAP is untagged: the kernel sees the VLAN's frames as plain Ethernet. */
	if (rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type ==
		    RTE_BE16(RTE_ETHER_TYPE_VLAN) &&
	    rte_vlan_strip(m) != 0) {
		stk_count_drop(lc, ifc->idx, STK_DROP_VLAN_TRUNC);
		rte_pktmbuf_free(m);
		return;
	}
	m->ol_flags &= ~RTE_MBUF_F_RX_VLAN_STRIPPED;
	st->c[STK_CNT_to_kernel]++;
	if (lc->exc_owner) {
		rte_eth_tx_buffer(ifc->exc_port_id, 0, lc->exc_txb[ifc->idx], m);
		return;
	}
	if (rte_ring_mp_enqueue(ifc->exc_ring, m) != 0) {
		st->c[STK_CNT_to_kernel]--;
		stk_count_drop(lc, ifc->idx, STK_DROP_EXC_RING_FULL);
		rte_pktmbuf_free(m);
	}
}

static void deliver_udp(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
			struct stk_pkt *p)
{
	uint8_t s = udp_slot[p->dport];

	if (!s) {
		stk_to_kernel(lc, ifc, m);
		return;
	}
	lc->stats[ifc->idx].c[STK_CNT_udp_delivered]++;
	if (unlikely(lc->stamps != NULL))
		stk_stamps_add(lc->stamps, STK_STAMP_DELIVER, ifc->idx);
	if (udp_bind[s].fn(lc, ifc, m, p, udp_bind[s].arg) != 0) {
		lc->stats[ifc->idx].c[STK_CNT_udp_delivered]--;
		stk_count_drop(lc, ifc->idx, STK_DROP_HANDLER);
		rte_pktmbuf_free(m);
	}
}

/* Parse, classify, dispatch: stk_input() after the impairment. */
static void input_frame(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m)
{
	struct stk_port_stats *st = &lc->stats[ifc->idx];
	struct stk_pkt p;

	st->c[STK_CNT_rx_pkts]++;
	st->c[STK_CNT_rx_bytes] += rte_pktmbuf_pkt_len(m);
	if (stk_parse(m, &p) != 0)
		goto drop;
	/* RFC 1122 3.2.1.3: nor is our subnet's broadcast address a valid source (stk_parse()
	 * refuses the others; it does not know the subnet) */
	if (p.src.family == 4 && stk_iface_subnet_bcast(ifc, p.src.v4)) {
		p.drop = STK_DROP_IP4_SRC;
		goto drop;
	}
	if (p.ether_type == RTE_ETHER_TYPE_IPV4)
		st->c[STK_CNT_rx_ipv4]++;
	else if (p.ether_type == RTE_ETHER_TYPE_IPV6)
		st->c[STK_CNT_rx_ipv6]++;

	switch (stk_classify(ifc, m, &p)) {
	case STK_CLS_ROCE:
		st->c[STK_CNT_rx_udp]++;
		st->c[STK_CNT_rx_roce]++;
		if (!udp_slot[STK_ROCE_UDP_PORT]) {
			p.drop = STK_DROP_NO_HANDLER;
			goto drop;
		}
		deliver_udp(lc, ifc, m, &p);
		return;
	case STK_CLS_UDP:
		st->c[STK_CNT_rx_udp]++;
		deliver_udp(lc, ifc, m, &p);
		return;
	case STK_CLS_ARP:
		st->c[STK_CNT_rx_arp]++;
		stk_arp_input(lc, ifc, m, &p);
		return;
	case STK_CLS_ND:
		st->c[STK_CNT_rx_nd]++;
		stk_nd_input(lc, ifc, m, &p);
		return;
	case STK_CLS_KERNEL:
		stk_to_kernel(lc, ifc, m);
		return;
	case STK_CLS_MAC_CTRL:
		stk_pfc_input(lc, ifc, m);
		return;
	case STK_CLS_DROP:
	default:
		break;
	}
drop:
	stk_count_drop(lc, ifc->idx, p.drop);
	STK_LOG_RL(DEBUG, "port %u: dropped a frame: %s", ifc->port_id, stk_drop_name(p.drop));
	rte_pktmbuf_free(m);
}

static __rte_noinline void input_impaired(struct stk_lcore *lc, const struct stk_iface *ifc,
					  struct stk_impair *imp, struct rte_mbuf *m)
{
	struct rte_mbuf *out[STK_IMPAIR_MAX_OUT];
	unsigned n = stk_impair_frame(imp, m, out);

	for (unsigned i = 0; i < n; i++)
		input_frame(lc, ifc, out[i]);
}

void stk_input(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m)
{
	struct stk_impair *imp = lc->impair[ifc->idx][STK_IMPAIR_RX];

	if (unlikely(imp != NULL)) {
		input_impaired(lc, ifc, imp, m);
		return;
	}
	input_frame(lc, ifc, m);
}

static void send_with_mac(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
			  const struct rte_ether_addr *mac)
{
	rte_ether_addr_copy(mac, &rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr);
	stk_tx_frame(lc, ifc, m);
}

/* Next hop of @dst: itself when on-link, else the gateway of its family. */
static int next_hop(const struct stk_iface *ifc, const struct stk_ipaddr *dst,
		    struct stk_ipaddr *nh)
{
	if (stk_iface_on_link(ifc, dst)) {
		*nh = *dst;
		return 0;
	}
	if (dst->family == 4 && ifc->gw4.family == 4) {
		*nh = ifc->gw4;
		return 0;
	}
	if (dst->family == 6 && ifc->gw6.family == 6) {
		*nh = ifc->gw6;
		return 0;
	}
	return -ENETUNREACH;
}

bool stk_ip_ready(struct stk_lcore *lc, const struct stk_iface *ifc, const struct stk_ipaddr *dst)
{
	const struct stk_neigh *n;
	struct stk_ipaddr nh;

	if (stk_iface_is_local(ifc, dst) || (dst->family == 6 && dst->v6[0] == 0xff))
		return true;
	if (next_hop(ifc, dst, &nh) != 0)
		return false;
	n = stk_neigh_lookup(lc->neigh, ifc->idx, &nh);
	return n && (n->state == STK_NEIGH_REACHABLE || n->state == STK_NEIGH_STALE ||
		     n->state == STK_NEIGH_PROBE);
}

int stk_neigh_probe(struct stk_lcore *lc, const struct stk_iface *ifc, const struct stk_ipaddr *ip)
{
	struct rte_ether_addr mac;

	switch (stk_neigh_resolve(lc->neigh, ifc->idx, ip, rte_get_tsc_cycles(), NULL, &mac)) {
	case STK_NEIGH_RES_OK_PROBE:
	case STK_NEIGH_RES_QUEUED_PROBE:
		return stk_send_probe(lc, ifc, ip);
	case STK_NEIGH_RES_NOSPACE:
		return -ENOBUFS;
	default:
		return 0;
	}
}

int stk_ip_send(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		const struct stk_ipaddr *dst)
{
	struct rte_ether_addr mac;
	struct stk_ipaddr nh;

	if (stk_iface_is_local(ifc, dst)) {
		/* to ourselves: the port decides (a loopback ring echoes it back) */
		send_with_mac(lc, ifc, m, &ifc->mac);
		return 0;
	}
	if (dst->family == 6 && dst->v6[0] == 0xff) {
		/* IPv6 multicast needs no route: it maps straight to an Ethernet group address */
		stk_ipv6_mcast_mac(dst, &mac);
		send_with_mac(lc, ifc, m, &mac);
		return 0;
	}
	if (next_hop(ifc, dst, &nh) != 0)
		return -ENETUNREACH;
	switch (stk_neigh_resolve(lc->neigh, ifc->idx, &nh, rte_get_tsc_cycles(), m, &mac)) {
	case STK_NEIGH_RES_OK:
		send_with_mac(lc, ifc, m, &mac);
		return 0;
	case STK_NEIGH_RES_OK_PROBE:
		send_with_mac(lc, ifc, m, &mac);
		stk_send_probe(lc, ifc, &nh);
		return 0;
	case STK_NEIGH_RES_QUEUED_PROBE:
		stk_send_probe(lc, ifc, &nh);
		/* fall through */
	case STK_NEIGH_RES_QUEUED:
		lc->stats[ifc->idx].c[STK_CNT_neigh_queued]++;
		return 0;
	case STK_NEIGH_RES_FULL:
	case STK_NEIGH_RES_NOSPACE:
	default:
		return -ENOBUFS;
	}
}

int stk_udp_send(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		 const struct stk_flow *f)
{
	uint32_t payload = rte_pktmbuf_pkt_len(m);
	struct stk_ipaddr nh;
	bool mcast6 = f->dst.family == 6 && f->dst.v6[0] == 0xff;
	int rc;

	if (!mcast6 && next_hop(ifc, &f->dst, &nh) != 0 && !stk_iface_is_local(ifc, &f->dst))
		return -ENETUNREACH;
	rc = stk_udp_encap(ifc, m, f);
	if (rc != 0)
		return rc;
	rc = stk_ip_send(lc, ifc, m, &f->dst);
	if (rc != 0) /* leave the caller its datagram as it gave it */
		rte_pktmbuf_adj(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - payload));
	return rc;
}

/* Exception owner: kernel-bound frames from other lcores, and frames the kernel sent. */
static unsigned poll_exception(struct stk_lcore *lc)
{
	struct rte_mbuf *pkts[STK_BURST];
	unsigned total = 0;

	for (uint16_t i = 0; i < stk_iface_count(); i++) {
		const struct stk_iface *ifc = stk_iface_get(i);
		unsigned n;

		if (ifc->exc_port_id == STK_NO_PORT)
			continue;
		n = rte_ring_sc_dequeue_burst(ifc->exc_ring, (void **)pkts, STK_BURST, NULL);
		for (unsigned k = 0; k < n; k++)
			rte_eth_tx_buffer(ifc->exc_port_id, 0, lc->exc_txb[i], pkts[k]);
		rte_eth_tx_buffer_flush(ifc->exc_port_id, 0, lc->exc_txb[i]);

		n = rte_eth_rx_burst(ifc->exc_port_id, 0, pkts, STK_BURST);
		for (unsigned k = 0; k < n; k++) {
			struct rte_mbuf *m = pkts[k];

			lc->stats[i].c[STK_CNT_from_kernel]++;
			if (ifc->vlan) {
				m->vlan_tci = (uint16_t)(ifc->pcp << 13 | ifc->vlan_id);
				if (rte_vlan_insert(&m) != 0) {
					stk_count_drop(lc, ifc->idx, STK_DROP_NO_MBUF);
					rte_pktmbuf_free(m);
					continue;
				}
			}
			stk_tx_frame(lc, ifc, m);
		}
		total += n;
	}
	return total;
}

/* stk_lcore_flush() with the TX burst stamped, when something is buffered (profiling) */
static __rte_noinline void flush_stamped(struct stk_lcore *lc)
{
	uint16_t sent = 0;
	bool any = false;

	for (uint16_t i = 0; i < stk_iface_count(); i++)
		any |= lc->txb[i]->length != 0;
	if (any)
		stk_stamps_add(lc->stamps, STK_STAMP_TX_START, 0);
	for (uint16_t i = 0; i < stk_iface_count(); i++) {
		const struct stk_iface *ifc = stk_iface_get(i);

		sent += rte_eth_tx_buffer_flush(ifc->port_id, (uint16_t)lc->index, lc->txb[i]);
		if (lc->exc_owner && ifc->exc_port_id != STK_NO_PORT)
			rte_eth_tx_buffer_flush(ifc->exc_port_id, 0, lc->exc_txb[i]);
	}
	if (any)
		stk_stamps_add(lc->stamps, STK_STAMP_TX_END, sent);
}

void stk_lcore_flush(struct stk_lcore *lc)
{
	if (unlikely(lc->stamps != NULL)) {
		flush_stamped(lc);
		return;
	}
	for (uint16_t i = 0; i < stk_iface_count(); i++) {
		const struct stk_iface *ifc = stk_iface_get(i);

		rte_eth_tx_buffer_flush(ifc->port_id, (uint16_t)lc->index, lc->txb[i]);
		if (lc->exc_owner && ifc->exc_port_id != STK_NO_PORT)
			rte_eth_tx_buffer_flush(ifc->exc_port_id, 0, lc->exc_txb[i]);
	}
}

static void run_timers(struct stk_lcore *lc, uint64_t now)
{
	unsigned dropped = stk_neigh_tick(lc->neigh, now, stk_neigh_probe_cb, lc);
	struct stk_neigh_stats ns;

	if (!stk_iface_count())
		return;
	/* attribute to the first interface: the entry is gone, its iface with it */
	if (dropped) {
		lc->stats[0].drop[STK_DROP_NEIGH_FAILED] += dropped;
		lc->stats[0].c[STK_CNT_drops] += dropped;
	}
	/* what the table did to stay in its bounds since the last tick */
	stk_neigh_stats(lc->neigh, &ns);
	lc->stats[0].c[STK_CNT_neigh_evicted] += ns.evicted - lc->neigh_seen.evicted;
	lc->stats[0].c[STK_CNT_neigh_pending_cap] += ns.pending_cap - lc->neigh_seen.pending_cap;
	lc->stats[0].drop[STK_DROP_NEIGH_EVICTED] +=
		ns.evicted_pending - lc->neigh_seen.evicted_pending;
	lc->stats[0].c[STK_CNT_drops] += ns.evicted_pending - lc->neigh_seen.evicted_pending;
	lc->neigh_seen = ns;
}

/* Pass on the delayed and held frames of every impairment that are due. */
static __rte_noinline void impair_release(struct stk_lcore *lc)
{
	uint64_t now = rte_get_tsc_cycles();
	struct rte_mbuf *out[STK_BURST];

	for (uint16_t i = 0; i < stk_iface_count(); i++) {
		const struct stk_iface *ifc = stk_iface_get(i);
		unsigned n;

		if (lc->impair[i][STK_IMPAIR_RX]) {
			do {
				n = stk_impair_due(lc->impair[i][STK_IMPAIR_RX], now, out,
						   STK_BURST);
				for (unsigned k = 0; k < n; k++)
					input_frame(lc, ifc, out[k]);
			} while (n == STK_BURST);
		}
		if (lc->impair[i][STK_IMPAIR_TX]) {
			do {
				n = stk_impair_due(lc->impair[i][STK_IMPAIR_TX], now, out,
						   STK_BURST);
				for (unsigned k = 0; k < n; k++)
					tx_frame(lc, ifc, out[k]);
			} while (n == STK_BURST);
		}
	}
}

/* Software PFC: held frames whose pause ended, then XOFF/XON from the backlog, after the
 * poll hooks so that a backlog they report counts in the same iteration. */
static __rte_noinline void pfc_poll(struct stk_lcore *lc)
{
	uint64_t now = rte_get_tsc_cycles();

	stk_pfc_tx_release(lc, now);
	stk_pfc_generate(lc, now);
}

unsigned stk_lcore_poll(struct stk_lcore *lc)
{
	struct rte_mbuf *pkts[STK_BURST];
	unsigned total = 0;
	uint64_t now;

	/* outside stk_lcore_main, what ran between two polls is the caller's: not a step */
	if (!lc->in_main)
		lc->step_t0 = 0;
	stk_lcore_step(lc, "rx");
	for (uint16_t q = 0; q < lc->nb_rxq; q++) {
		const struct stk_rxq *rq = &lc->rxq[q];
		const struct stk_iface *ifc = stk_iface_get(rq->iface);
		uint16_t n = rte_eth_rx_burst(rq->port_id, rq->queue, pkts, STK_BURST);

		if (unlikely(lc->stamps != NULL) && n)
			stk_stamps_add(lc->stamps, STK_STAMP_RX_BURST, rq->iface);
		for (uint16_t k = 0; k < n; k++) {
			if (k + 1 < n)
				rte_prefetch0(rte_pktmbuf_mtod(pkts[k + 1], void *));
			stk_input(lc, ifc, pkts[k]);
		}
		total += n;
	}
	if (unlikely(lc->nb_impair != 0))
		impair_release(lc);
	if (lc->exc_owner) {
		stk_lcore_step(lc, "exception path");
		total += poll_exception(lc);
	}
	/* an empty ring is not a step: its check runs under the step before (a TSC read fewer) */
	if (!rte_ring_empty(lc->ctrl)) {
		stk_lcore_step(lc, "control ring");
		stk_ctrl_poll(lc);
	}
	for (unsigned i = 0; i < lc->nb_poll; i++) {
		stk_lcore_step(lc, lc->poll[i].name);
		lc->poll[i].fn(lc, lc->poll[i].arg);
	}
	if (lc->nb_defer) {
		stk_lcore_step(lc, "deferred work");
		run_deferred(lc);
	}
	stk_lcore_step(lc, "tx flush");
	if (unlikely(lc->nb_pfc != 0))
		pfc_poll(lc);
	stk_lcore_flush(lc);
	/* the timers' step gives the time the tick needs; without a tick due, "between polls"
	 * starts from the same reading (its check is a few instructions) */
	now = stk_lcore_step(lc, "timers");
	if (now >= lc->next_tick) {
		lc->next_tick = now + lc->tick_period;
		run_timers(lc, now);
		usage_sample(&lc->use_base);
		stk_lcore_step(lc, "between polls");
	} else {
		lc->step = "between polls";
	}
	return total;
}

void stk_lcore_set_idle(struct stk_lcore *lc, uint32_t sleep_us, uint32_t after_us)
{
	lc->idle_sleep_ns = (uint64_t)sleep_us * 1000u;
	lc->idle_after_cycles = rte_get_tsc_hz() / 1000000u * after_us;
	lc->last_busy = rte_get_tsc_cycles();
}

/* After a round of the loop: busy when it received or sent a frame or a hook said it worked;
 * after idle_after of none, a short sleep. */
static void idle_step(struct stk_lcore *lc, unsigned rx)
{
	uint64_t tx = 0, now = rte_get_tsc_cycles();
	struct timespec ts;

	for (uint16_t i = 0; i < stk_iface_count() && i < STK_MAX_PORTS; i++)
		tx += lc->stats[i].c[STK_CNT_tx_pkts];
	if (rx || lc->work || tx != lc->tx_seen) {
		lc->last_busy = now;
		lc->tx_seen = tx;
		lc->work = 0;
		return;
	}
	if (now - lc->last_busy < lc->idle_after_cycles)
		return;
	ts.tv_sec = 0;
	ts.tv_nsec = (long)lc->idle_sleep_ns;
	nanosleep(&ts, NULL);
	lc->idle_sleeps++;
}

int stk_lcore_main(void *arg)
{
	struct stk_lcore *lc = arg ? arg : stk_lcore_self();

	if (!lc)
		return -EINVAL;
	STK_LOG(INFO, "lcore %u: worker %u, %u RX queue(s)%s%s", lc->lcore_id, lc->index,
		lc->nb_rxq, lc->exc_owner ? ", exception path" : "",
		lc->idle_sleep_ns ? ", idle back-off" : "");
	if (lc->idle_sleep_ns)
		prctl(PR_SET_TIMERSLACK, 1000UL); /* sleeps as asked, not 50 µs later */
	usage_sample(&lc->use_base);
	lc->step_t0 = 0;
	lc->in_main = true;
	while (!stk_stopping()) {
		unsigned n = stk_lcore_poll(lc);

		if (lc->idle_sleep_ns)
			idle_step(lc, n);
	}
	lc->in_main = false;
	stk_lcore_flush(lc);
	return 0;
}
