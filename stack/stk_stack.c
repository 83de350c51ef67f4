/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_stack.c - EAL and port bring-up from the INI config, exception TAPs, lcore assignment,
 * and the process-wide life cycle (see stk_stack.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memory.h>
#include <rte_pdump.h>

#include "stk_ctrl.h"
#include "stk_log.h"
#include "stk_stack.h"

static struct {
	struct stk_config cfg;
	uint16_t nb_ifaces;
	struct stk_iface ifaces[STK_MAX_PORTS];
	bool port_started[RTE_MAX_ETHPORTS];
	struct rte_mempool *pool;
	volatile int quit;
	bool pdump;
} stk;

void stk_split_args(int argc, char **argv, int *eal_argc, char ***eal_argv, int *app_argc,
		    char ***app_argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			break;
	*eal_argc = i - 1;
	*eal_argv = argv + 1;
	if (i < argc) {
		/* reuse the "--" slot as argv0 of the application part */
		argv[i] = argv[0];
		*app_argc = argc - i;
		*app_argv = argv + i;
	} else {
		/* no "--": the config file supplies the EAL arguments, all of these are ours */
		*eal_argc = 0;
		*app_argc = argc;
		*app_argv = argv;
	}
}

static char **eal_argv_kept, **eal_args_kept;

int stk_eal_init(const struct stk_config *cfg, const char *argv0, int eal_argc, char **eal_argv)
{
	char **v;
	int n, rc;

	n = stk_config_eal_args(cfg, argv0, eal_argc, eal_argv, &v);
	if (n < 0)
		return n;
	/* rte_eal_init permutes argv and overwrites one entry with the program name: the
	 * strings are kept through a copy of the pointers as they were */
	eal_args_kept = malloc(((size_t)n + 1) * sizeof(*v));
	if (eal_args_kept)
		memcpy(eal_args_kept, v, ((size_t)n + 1) * sizeof(*v));
	rc = rte_eal_init(n, v);
	/* EAL keeps pointers into argv (e.g. devargs names): keep it for the process life, where
	 * LeakSanitizer can see it is still reachable */
	eal_argv_kept = v;
	if (rc < 0) {
		fprintf(stderr,
			"droce: EAL initialisation failed: %s. Check the [eal] section "
			"and the EAL arguments; with no hugepages set hugepages = no.\n",
			rte_strerror(rte_errno));
		return -rte_errno ? -rte_errno : -EINVAL;
	}
	return 0;
}

uint16_t stk_iface_count(void)
{
	return stk.nb_ifaces;
}

const struct stk_iface *stk_iface_get(uint16_t idx)
{
	return &stk.ifaces[idx];
}

int stk_iface_add(const struct stk_iface *ifc)
{
	if (stk.nb_ifaces >= STK_MAX_PORTS)
		return -ENOSPC;
	stk.ifaces[stk.nb_ifaces] = *ifc;
	stk.ifaces[stk.nb_ifaces].idx = stk.nb_ifaces;
	if (!ifc->qos.set)
		stk_qos_default(&stk.ifaces[stk.nb_ifaces].qos);
	return stk.nb_ifaces++;
}

void stk_iface_reset(void)
{
	stk.nb_ifaces = 0;
	memset(stk.ifaces, 0, sizeof(stk.ifaces));
}

struct rte_mempool *stk_pktmbuf_pool(void)
{
	return stk.pool;
}

void stk_stop(void)
{
	stk.quit = 1;
}

bool stk_stopping(void)
{
	return stk.quit != 0;
}

/* Give the kernel side of the TAP our addresses; the PMD already set MAC and link. */
static int tap_set_addrs(const struct stk_iface *ifc)
{
	struct ifreq ifr;
	int fd, rc = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifc->exc_ifname);
	ifr.ifr_mtu = ifc->mtu;
	if (ioctl(fd, SIOCSIFMTU, &ifr) < 0)
		rc = -errno;
	if (ifc->ip4.family == 4) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
		uint32_t mask = ifc->ip4_prefix ? ~0u << (32 - ifc->ip4_prefix) : 0;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = ifc->ip4.v4;
		if (ioctl(fd, SIOCSIFADDR, &ifr) < 0)
			rc = -errno;
		sin->sin_addr.s_addr = htonl(mask);
		if (ioctl(fd, SIOCSIFNETMASK, &ifr) < 0)
			rc = -errno;
	}
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			rc = -errno;
	}
	close(fd);
	if (ifc->ip6.family == 6) {
		char path[128];
		FILE *f;

		/* droce owns the address and answers ND for it; the kernel behind the TAP must
		 * not hold it tentative for DAD (1-2 s in which it drops traffic to it). */
		snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/accept_dad",
			 ifc->exc_ifname);
		f = fopen(path, "w");
		if (f) {
			fputs("0", f);
			fclose(f);
		}
		/* struct in6_ifreq from linux/ipv6.h, spelled out to avoid header clashes */
		struct {
			struct in6_addr addr;
			uint32_t prefixlen;
			int ifindex;
		} r6;

		fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		memcpy(&r6.addr, ifc->ip6.v6, 16);
		r6.prefixlen = ifc->ip6_prefix;
		r6.ifindex = (int)if_nametoindex(ifc->exc_ifname);
		if (ioctl(fd, SIOCSIFADDR, &r6) < 0 && errno != EEXIST)
			rc = -errno;
		close(fd);
	}
	return rc;
}

static int port_find(const struct stk_port_conf *pc, uint16_t *port_id)
{
	char name[STK_CFG_STR];

	if (pc->dev[0]) {
		snprintf(name, sizeof(name), "%s", pc->dev);
	} else {
		/* the device name is the vdev's driver part, before the first comma */
		snprintf(name, sizeof(name), "%s", pc->vdev);
		name[strcspn(name, ",")] = '\0';
	}
	if (rte_eth_dev_get_port_by_name(name, port_id) != 0) {
		STK_LOG(ERR,
			"[%s]: no DPDK port named \"%s\". Known ports: see "
			"'dpdk-devbind.py -s' for PCI NICs, or give vdev = <driver,args>",
			pc->name, name);
		return -ENODEV;
	}
	return 0;
}

static int port_start(uint16_t port, uint16_t nb_q, uint16_t rx_desc, uint16_t tx_desc,
		      uint16_t mtu, const char *what)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	int rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_info_get(port, &info);
	if (rc != 0)
		return rc;
	if (nb_q > info.max_rx_queues || nb_q > info.max_tx_queues) {
		STK_LOG(ERR,
			"%s: port %u has %u RX / %u TX queues, %u lcores need one each; "
			"use fewer lcores",
			what, port, info.max_rx_queues, info.max_tx_queues, nb_q);
		return -EINVAL;
	}
	if (nb_q > 1) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP) & info.flow_type_rss_offloads;
		if (!conf.rx_adv_conf.rss_conf.rss_hf)
			conf.rxmode.mq_mode = RTE_ETH_MQ_RX_NONE;
	}
	rc = rte_eth_dev_configure(port, nb_q, nb_q, &conf);
	if (rc != 0)
		return rc;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &rx_desc, &tx_desc);
	if (rc != 0)
		return rc;
	for (uint16_t q = 0; q < nb_q; q++) {
		int socket = rte_eth_dev_socket_id(port);

		rc = rte_eth_rx_queue_setup(port, q, rx_desc, socket, NULL, stk.pool);
		if (rc != 0)
			return rc;
		rc = rte_eth_tx_queue_setup(port, q, tx_desc, socket, NULL);
		if (rc != 0)
			return rc;
	}
	if (mtu && rte_eth_dev_set_mtu(port, mtu) != 0)
		STK_LOG(NOTICE, "%s: port %u keeps its MTU (the PMD refused %u)", what, port, mtu);
	return rte_eth_dev_start(port);
}

/* "3" or "3,4" */
static const char *prio_list(uint8_t mask, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned p = 0; p < STK_PFC_PRIOS && n < len; p++)
		if (mask & (1u << p))
			n += (size_t)snprintf(buf + n, len - n, "%s%u", n ? "," : "", p);
	return buf;
}

/* Turn the NIC's PFC on for every priority of @mask. @return 0 or the PMD's -errno, with the
 * priorities already set turned off again. */
static int pfc_hw_set(uint16_t port, uint8_t mask, uint16_t quanta)
{
	int rc = 0;
	unsigned p;

	for (p = 0; p < STK_PFC_PRIOS && rc == 0; p++) {
		struct rte_eth_pfc_conf pc;

		if (!(mask & (1u << p)))
			continue;
		memset(&pc, 0, sizeof(pc));
		/* keep the PMD's watermarks; only mode, pause time and priority are ours */
		(void)rte_eth_dev_flow_ctrl_get(port, &pc.fc);
		pc.fc.mode = RTE_ETH_FC_FULL;
		pc.fc.pause_time = quanta;
		pc.fc.send_xon = 1;
		pc.priority = (uint8_t)p;
		rc = rte_eth_dev_priority_flow_ctrl_set(port, &pc);
	}
	if (rc != 0) {
		for (unsigned q = 0; q + 1 < p; q++) {
			struct rte_eth_pfc_conf pc;

			if (!(mask & (1u << q)))
				continue;
			memset(&pc, 0, sizeof(pc));
			pc.fc.mode = RTE_ETH_FC_NONE;
			pc.priority = (uint8_t)q;
			(void)rte_eth_dev_priority_flow_ctrl_set(port, &pc);
		}
	}
	return rc;
}

/* PFC of a started port: link speed, then the NIC (auto, hw) or the stack (sw, auto when the
 * NIC cannot). One log line says which is active. */
static int pfc_setup(struct stk_iface *ifc, const struct stk_port_conf *pc)
{
	struct rte_eth_dev_info info;
	struct rte_eth_link link;
	const char *drv = "the PMD";
	char prios[24], why[160];
	int rc;

	ifc->pfc_mode = STK_PFC_MODE_OFF;
	ifc->pfc_prios = pc->pfc_prios;
	ifc->pfc_xoff = pc->pfc_xoff;
	ifc->pfc_xon = pc->pfc_xon;
	ifc->pfc_quanta = pc->pfc_quanta;
	ifc->pfc_wd_ms = pc->pfc_wd_ms;
	ifc->pfc_wd_restore_ms = pc->pfc_wd_restore_ms;
	memset(&link, 0, sizeof(link));
	if (pc->link_speed)
		ifc->link_bps = (uint64_t)pc->link_speed * 1000000;
	else if (rte_eth_link_get(ifc->port_id, &link) == 0 &&
		 link.link_speed != RTE_ETH_SPEED_NUM_NONE &&
		 link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
		ifc->link_bps = (uint64_t)link.link_speed * 1000000;
	else
		ifc->link_bps = 100000ull * 1000000; /* virtual PMDs report no speed */
	if (pc->pfc == STK_PFC_MODE_OFF)
		return 0;
	if (rte_eth_dev_info_get(ifc->port_id, &info) == 0 && info.driver_name)
		drv = info.driver_name;
	prio_list(ifc->pfc_prios, prios, sizeof(prios));
	if (pc->pfc == STK_PFC_MODE_SW) {
		snprintf(why, sizeof(why), "pfc = sw");
	} else {
		rc = pfc_hw_set(ifc->port_id, ifc->pfc_prios, ifc->pfc_quanta);
		if (rc == 0) {
			ifc->pfc_mode = STK_PFC_MODE_HW;
			STK_LOG(INFO, "[%s] PFC on priority %s: hardware (%s)", pc->name, prios,
				drv);
			return 0;
		}
		if (rc == -ENOTSUP)
			snprintf(why, sizeof(why), "%s has no PFC offload", drv);
		else
			snprintf(why, sizeof(why), "%s refused PFC: %s", drv, rte_strerror(-rc));
		if (pc->pfc == STK_PFC_MODE_HW) {
			STK_LOG(ERR,
				"[%s]: pfc = hw, but the PMD cannot do PFC (%s); use pfc = sw (the "
				"stack honours and sends PFC itself) or pfc = auto",
				pc->name, why);
			return rc;
		}
	}
	ifc->pfc_mode = STK_PFC_MODE_SW;
	STK_LOG(INFO, "[%s] PFC on priority %s: software (%s), link %" PRIu64 " Mbit/s", pc->name,
		prios, why, ifc->link_bps / 1000000);
	return 0;
}

static int iface_setup(const struct stk_port_conf *pc, uint16_t nb_q)
{
	struct stk_iface *ifc = &stk.ifaces[stk.nb_ifaces];
	char rname[RTE_RING_NAMESIZE];
	int rc;

	memset(ifc, 0, sizeof(*ifc));
	snprintf(ifc->name, sizeof(ifc->name), "%s", pc->name);
	ifc->idx = stk.nb_ifaces;
	ifc->exc_port_id = STK_NO_PORT;
	ifc->ip4 = pc->ip4;
	ifc->ip4_prefix = pc->ip4_prefix;
	ifc->gw4 = pc->gw4;
	ifc->ip6 = pc->ip6;
	ifc->ip6_prefix = pc->ip6_prefix;
	ifc->gw6 = pc->gw6;
	ifc->vlan = pc->vlan;
	ifc->vlan_id = pc->vlan_id;
	ifc->pcp = pc->pcp;
	ifc->dscp = pc->dscp;
	ifc->qos = pc->qos;
	if (!ifc->qos.set)
		stk_qos_default(&ifc->qos);
	ifc->mtu = pc->mtu;
	ifc->nb_rxq = ifc->nb_txq = nb_q;
	rc = port_find(pc, &ifc->port_id);
	if (rc != 0)
		return rc;
	rc = port_start(ifc->port_id, nb_q, pc->rx_desc, pc->tx_desc, pc->mtu, pc->name);
	if (rc != 0) {
		STK_LOG(ERR, "[%s]: cannot start port %u: %s", pc->name, ifc->port_id,
			rte_strerror(-rc));
		return rc;
	}
	stk.port_started[ifc->port_id] = true;
	if (pc->promisc)
		rte_eth_promiscuous_enable(ifc->port_id);
	rte_eth_allmulticast_enable(ifc->port_id);
	rte_eth_macaddr_get(ifc->port_id, &ifc->mac);
	stk_ipv6_link_local(&ifc->mac, &ifc->ip6_ll);
	rc = pfc_setup(ifc, pc);
	if (rc != 0)
		return rc;

	if (pc->exc_ifname[0]) {
		char tname[64];

		snprintf(tname, sizeof(tname), "net_tap_%s", pc->exc_ifname);
		snprintf(ifc->exc_ifname, sizeof(ifc->exc_ifname), "%s", pc->exc_ifname);
		if (rte_eth_dev_get_port_by_name(tname, &ifc->exc_port_id) != 0) {
			STK_LOG(ERR,
				"[%s]: exception TAP %s did not come up (needs root and "
				"/dev/net/tun)",
				pc->name, pc->exc_ifname);
			return -ENODEV;
		}
		/* the TAP carries our MAC so the kernel's frames need no rewriting */
		rc = rte_eth_dev_default_mac_addr_set(ifc->exc_port_id, &ifc->mac);
		if (rc == 0)
			rc = port_start(ifc->exc_port_id, 1, 512, 512, 0, pc->exc_ifname);
		if (rc != 0) {
			STK_LOG(ERR, "[%s]: cannot start exception TAP %s: %s", pc->name,
				pc->exc_ifname, rte_strerror(-rc));
			return rc;
		}
		stk.port_started[ifc->exc_port_id] = true;
		snprintf(rname, sizeof(rname), "stk_exc_%u_%d", ifc->idx, (int)getpid());
		ifc->exc_ring =
			rte_ring_create(rname, stk.cfg.exc_ring_size, SOCKET_ID_ANY, RING_F_SC_DEQ);
		if (!ifc->exc_ring)
			return -ENOMEM;
		rc = tap_set_addrs(ifc);
		if (rc != 0)
			STK_LOG(WARNING,
				"[%s]: could not give %s our addresses (%s); the kernel "
				"side needs them for the exception path",
				pc->name, pc->exc_ifname, strerror(-rc));
	}
	stk.nb_ifaces++;
	{
		char a4[64], a6[64];

		STK_LOG(INFO, "%s: port %u " RTE_ETHER_ADDR_PRT_FMT " %s/%u %s/%u mtu %u%s%s",
			ifc->name, ifc->port_id, RTE_ETHER_ADDR_BYTES(&ifc->mac),
			stk_ipaddr_str(&ifc->ip4, a4, sizeof(a4)), ifc->ip4_prefix,
			stk_ipaddr_str(&ifc->ip6, a6, sizeof(a6)), ifc->ip6_prefix, ifc->mtu,
			ifc->exc_ifname[0] ? ", exception TAP " : "", ifc->exc_ifname);
	}
	return 0;
}

/* The ports' impair_rx / impair_tx, before the lcore contexts exist: they pick them up. */
static int impair_setup(const struct stk_config *cfg)
{
	for (uint16_t i = 0; i < STK_MAX_PORTS; i++) {
		for (unsigned d = 0; d < STK_IMPAIR_NUM_DIRS; d++) {
			const struct stk_port_conf *pc = i < cfg->nb_ports ? &cfg->ports[i] : NULL;
			const struct stk_impair_conf *c = NULL;
			char buf[256];
			int rc;

			if (pc)
				c = d == STK_IMPAIR_RX ? &pc->impair_rx : &pc->impair_tx;
			rc = stk_impair_set(i, (enum stk_impair_dir)d, c);
			if (rc != 0) {
				STK_LOG(ERR, "[%s]: cannot set impair_%s: %s", pc ? pc->name : "?",
					d == STK_IMPAIR_RX ? "rx" : "tx", strerror(-rc));
				return rc;
			}
			if (stk_impair_conf_on(c))
				STK_LOG(NOTICE, "%s: impairing %s frames: %s", pc->name,
					d == STK_IMPAIR_RX ? "received" : "sent",
					stk_impair_str(c, buf, sizeof(buf)));
		}
	}
	return 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

static int populate_msl(const struct rte_memseg_list *msl, void *arg)
{
	uint64_t *bytes = arg;

	if (msl->external || msl->base_va == NULL || msl->len == 0 ||
	    msl->page_sz != (uint64_t)sysconf(_SC_PAGESIZE))
		return 0;
	if (madvise(msl->base_va, msl->len, MADV_POPULATE_WRITE) != 0)
		return -errno;
	*bytes += msl->len;
	return 0;
}

/* Without hugepages, DPDK's memory is a mapping of ordinary pages that the kernel fills on
 * first touch: then whatever first writes to a buffer (an lcore posting a receive, placing a
 * READ, encoding a reply) takes a page fault per 4 KiB, and in a VM a fault costs 15 to 60 µs,
 * so a new connection's buffers could hold a lane for hundreds of ms (stk_lcore_step showed
 * it). The whole of it is populated here, before any lcore runs, in one madvise per list
 * (about 1.2 µs a page in this lab's VM, against 15 for a touch). With hugepages, EAL
 * touches each page as it maps it. */
static void populate_nohuge(void)
{
	uint64_t bytes = 0, t0 = rte_get_tsc_cycles();
	int rc;

	if (rte_eal_has_hugepages())
		return;
	rc = rte_memseg_list_walk(populate_msl, &bytes);
	if (rc < 0)
		STK_LOG(WARNING,
			"no hugepages, and DPDK's memory could not be populated ahead (%s): lcores "
			"take its page faults as they first touch it. Reserve hugepages "
			"(scripts/setup.sh) to avoid that",
			strerror(-rc));
	else if (bytes)
		STK_LOG(INFO,
			"no hugepages: populated %" PRIu64 " MiB of DPDK memory in %" PRIu64
			" ms, so no lcore takes a page fault in it later",
			bytes >> 20, (rte_get_tsc_cycles() - t0) * 1000 / rte_get_tsc_hz());
}

int stk_setup(const struct stk_config *cfg)
{
	unsigned nb_lcores = rte_lcore_count(), idx = 0, id;
	char name[RTE_MEMPOOL_NAMESIZE];
	int rc;

	stk.cfg = *cfg;
	stk.quit = 0;
	populate_nohuge();
	snprintf(name, sizeof(name), "stk_mbuf_%d", (int)getpid());
	stk.pool = rte_pktmbuf_pool_create(name, cfg->nb_mbufs, cfg->mbuf_cache, 0,
					   (uint16_t)cfg->mbuf_data_room, (int)rte_socket_id());
	if (!stk.pool) {
		STK_LOG(ERR,
			"cannot create %u mbufs (%s): lower [mempool] mbufs or raise [eal] "
			"memory",
			cfg->nb_mbufs, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	rc = stk_ctrl_init(4096);
	if (rc != 0)
		goto fail;
	for (unsigned i = 0; i < cfg->nb_ports; i++) {
		rc = iface_setup(&cfg->ports[i], (uint16_t)nb_lcores);
		if (rc != 0)
			goto fail;
	}
	rc = impair_setup(cfg);
	if (rc != 0)
		goto fail;
	RTE_LCORE_FOREACH (id) {
		struct stk_lcore *lc = stk_lcore_create(id, idx, id == rte_get_main_lcore(),
							stk.pool, &cfg->neigh);

		if (!lc) {
			rc = -rte_errno;
			goto fail;
		}
		if (id < STK_MAX_LCORES && cfg->idle_sleep_us[id])
			stk_lcore_set_idle(lc, cfg->idle_sleep_us[id], cfg->idle_after_us);
		for (uint16_t i = 0; i < stk.nb_ifaces; i++) {
			lc->rxq[lc->nb_rxq].iface = i;
			lc->rxq[lc->nb_rxq].port_id = stk.ifaces[i].port_id;
			lc->rxq[lc->nb_rxq].queue = (uint16_t)idx;
			lc->nb_rxq++;
		}
		idx++;
	}
	rc = stk_telemetry_register();
	if (rc != 0 && rc != -EEXIST)
		STK_LOG(WARNING, "telemetry commands not registered: %s", strerror(-rc));
	/* dpdk-dumpcap attaches as a secondary process, which needs hugepages */
	if (rte_eal_has_hugepages()) {
		stk.pdump = rte_pdump_init() == 0;
		if (!stk.pdump)
			STK_LOG(WARNING, "rte_pdump_init failed: no live capture");
	}
	return 0;
fail:
	stk_teardown();
	return rc < 0 ? rc : -EINVAL;
}

static int launch_main(void *arg)
{
	return stk_lcore_main(arg);
}

int stk_run(void)
{
	unsigned id;
	int rc;

	RTE_LCORE_FOREACH_WORKER (id) {
		rc = rte_eal_remote_launch(launch_main, stk_lcore_get(id), id);
		if (rc != 0)
			return rc;
	}
	rc = stk_lcore_main(stk_lcore_get(rte_get_main_lcore()));
	rte_eal_mp_wait_lcore();
	return rc;
}

/* DPDK 22.11's net_memif: closing a port races its interrupt thread, which then crashes the
 * process about one exit in three (seen in memif_pair and rc-bench). Its port is stopped but
 * left open; the process is about to exit and EAL releases the shared memory. */
static bool is_memif(uint16_t p)
{
	struct rte_eth_dev_info info;

	return rte_eth_dev_info_get(p, &info) == 0 && info.driver_name &&
	       strcmp(info.driver_name, "net_memif") == 0;
}

void stk_teardown(void)
{
	unsigned id;

	RTE_LCORE_FOREACH (id)
		stk_lcore_destroy(stk_lcore_get(id));
	/* a later stk_setup() starts without impairment */
	for (uint16_t i = 0; i < STK_MAX_PORTS; i++)
		for (unsigned d = 0; d < STK_IMPAIR_NUM_DIRS; d++)
			stk_impair_set(i, (enum stk_impair_dir)d, NULL);
	for (uint16_t p = 0; p < RTE_MAX_ETHPORTS; p++) {
		if (!stk.port_started[p])
			continue;
		rte_eth_dev_stop(p);
		if (!is_memif(p))
			rte_eth_dev_close(p);
		stk.port_started[p] = false;
	}
	for (uint16_t i = 0; i < stk.nb_ifaces; i++) {
		struct rte_mbuf *m;

		if (!stk.ifaces[i].exc_ring)
			continue;
		while (rte_ring_dequeue(stk.ifaces[i].exc_ring, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(stk.ifaces[i].exc_ring);
	}
	stk.nb_ifaces = 0;
	if (stk.pdump)
		rte_pdump_uninit();
	stk.pdump = false;
	stk_ctrl_fini();
	rte_mempool_free(stk.pool);
	stk.pool = NULL;
}
