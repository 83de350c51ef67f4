/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_stats.c - counter names, summing over lcores, and the DPDK telemetry commands:
 *   /droce/stats              all interfaces: counters and drops by reason
 *   /droce/port_stats,<i>     one interface, plus its ethdev queue counters
 *   /droce/ifaces             interface list: port, MAC, addresses, exception TAP
 *   /droce/neigh_count        neighbour entries per lcore
 * dpdk-telemetry.py shows them; tests read the same socket.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "stk_lcore.h"
#include "stk_stack.h"
#include "stk_stats.h"

#define STK_CNT_NAME_(n) [STK_CNT_##n] = #n,
static const char *const counter_names[STK_CNT_NUM] = {STK_COUNTER_LIST(STK_CNT_NAME_)};
#undef STK_CNT_NAME_

const char *stk_counter_name(enum stk_counter c)
{
	return (unsigned)c < STK_CNT_NUM ? counter_names[c] : "?";
}

void stk_stats_sum(int iface, struct stk_port_stats *out)
{
	unsigned id;

	memset(out, 0, sizeof(*out));
	RTE_LCORE_FOREACH (id) {
		const struct stk_lcore *lc = stk_lcore_get(id);

		if (!lc)
			continue;
		for (uint16_t i = 0; i < STK_MAX_PORTS; i++) {
			if (iface >= 0 && i != iface)
				continue;
			for (unsigned c = 0; c < STK_CNT_NUM; c++)
				out->c[c] += lc->stats[i].c[c];
			for (unsigned d = 0; d < STK_DROP_NUM; d++)
				out->drop[d] += lc->stats[i].drop[d];
		}
	}
}

static void add_stats(struct rte_tel_data *d, const struct stk_port_stats *s)
{
	for (unsigned c = 0; c < STK_CNT_NUM; c++)
		rte_tel_data_add_dict_u64(d, counter_names[c], s->c[c]);
	/* drop reasons, prefixed, skipping "none" */
	for (unsigned r = 1; r < STK_DROP_NUM; r++) {
		char key[64];

		snprintf(key, sizeof(key), "drop_%s", stk_drop_name((enum stk_drop)r));
		rte_tel_data_add_dict_u64(d, key, s->drop[r]);
	}
}

static int tel_stats(const char *cmd __rte_unused, const char *params __rte_unused,
		     struct rte_tel_data *d)
{
	struct stk_port_stats s;

	rte_tel_data_start_dict(d);
	stk_stats_sum(-1, &s);
	add_stats(d, &s);
	return 0;
}

static int tel_port_stats(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	struct stk_port_stats s;
	struct rte_eth_stats es;
	const struct stk_iface *ifc;
	char *end;
	long i;

	if (!params || !*params)
		return -EINVAL;
	i = strtol(params, &end, 10);
	if (*end != '\0' || i < 0 || i >= stk_iface_count())
		return -EINVAL;
	ifc = stk_iface_get((uint16_t)i);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "port_id", ifc->port_id);
	stk_stats_sum((int)i, &s);
	add_stats(d, &s);
	if (rte_eth_stats_get(ifc->port_id, &es) == 0) {
		rte_tel_data_add_dict_u64(d, "eth_ipackets", es.ipackets);
		rte_tel_data_add_dict_u64(d, "eth_opackets", es.opackets);
		rte_tel_data_add_dict_u64(d, "eth_imissed", es.imissed);
		rte_tel_data_add_dict_u64(d, "eth_ierrors", es.ierrors);
		rte_tel_data_add_dict_u64(d, "eth_oerrors", es.oerrors);
		rte_tel_data_add_dict_u64(d, "eth_rx_nombuf", es.rx_nombuf);
		for (uint16_t q = 0; q < ifc->nb_rxq && q < RTE_ETHDEV_QUEUE_STAT_CNTRS; q++) {
			char key[32];

			snprintf(key, sizeof(key), "rxq%u_packets", q);
			rte_tel_data_add_dict_u64(d, key, es.q_ipackets[q]);
			snprintf(key, sizeof(key), "txq%u_packets", q);
			rte_tel_data_add_dict_u64(d, key, es.q_opackets[q]);
		}
	}
	return 0;
}

static int tel_ifaces(const char *cmd __rte_unused, const char *params __rte_unused,
		      struct rte_tel_data *d)
{
	rte_tel_data_start_dict(d);
	for (uint16_t i = 0; i < stk_iface_count(); i++) {
		const struct stk_iface *ifc = stk_iface_get(i);
		struct rte_tel_data *x = rte_tel_data_alloc();
		char buf[64];

		if (!x)
			return -ENOMEM;
		rte_tel_data_start_dict(x);
		rte_tel_data_add_dict_u64(x, "port_id", ifc->port_id);
		snprintf(buf, sizeof(buf), RTE_ETHER_ADDR_PRT_FMT, RTE_ETHER_ADDR_BYTES(&ifc->mac));
		rte_tel_data_add_dict_string(x, "mac", buf);
		rte_tel_data_add_dict_string(x, "ipv4",
					     stk_ipaddr_str(&ifc->ip4, buf, sizeof(buf)));
		rte_tel_data_add_dict_string(x, "ipv6",
					     stk_ipaddr_str(&ifc->ip6, buf, sizeof(buf)));
		rte_tel_data_add_dict_u64(x, "mtu", ifc->mtu);
		rte_tel_data_add_dict_u64(x, "vlan", ifc->vlan ? ifc->vlan_id : 0);
		rte_tel_data_add_dict_string(x, "exception_tap",
					     ifc->exc_ifname[0] ? ifc->exc_ifname : "-");
		rte_tel_data_add_dict_container(d, ifc->name, x, 0);
	}
	return 0;
}

static int tel_neigh(const char *cmd __rte_unused, const char *params __rte_unused,
		     struct rte_tel_data *d)
{
	unsigned id;

	rte_tel_data_start_dict(d);
	RTE_LCORE_FOREACH (id) {
		const struct stk_lcore *lc = stk_lcore_get(id);
		char key[32];

		if (!lc)
			continue;
		snprintf(key, sizeof(key), "lcore%u", id);
		rte_tel_data_add_dict_u64(d, key, stk_neigh_count(lc->neigh));
	}
	return 0;
}

static uint64_t tsc_us(uint64_t tsc)
{
	return tsc * 1000000u / rte_get_tsc_hz();
}

/* A telemetry key from @p prefix and a step's name: what a key cannot hold becomes '_'. */
static const char *step_key(char *buf, size_t len, const char *prefix, const char *name)
{
	size_t n = (size_t)snprintf(buf, len, "%s%s", prefix, name);

	/* up to the terminator, which a name too long for buf moved to buf[len - 1] */
	for (size_t i = strlen(prefix); i < n && i + 1 < len; i++)
		if (!isalnum((unsigned char)buf[i]) && buf[i] != '_')
			buf[i] = '_';
	return buf;
}

/* Each lcore: its queues, idle sleeps, and the slow-step meter (stk_lcore_step): each step
 * that ran STK_SLOW_STEP_MS or more, by name (slow/NAME: how often, max_us/NAME: the
 * longest), and the longest of all with its thread's usage around it (longest_*). */
static int tel_lcores(const char *cmd __rte_unused, const char *params __rte_unused,
		      struct rte_tel_data *d)
{
	unsigned id;

	rte_tel_data_start_dict(d);
	RTE_LCORE_FOREACH (id) {
		const struct stk_lcore *lc = stk_lcore_get(id);
		const struct stk_usage *u;
		struct rte_tel_data *x;
		char key[64];

		if (!lc)
			continue;
		x = rte_tel_data_alloc();
		if (!x)
			return -ENOMEM;
		rte_tel_data_start_dict(x);
		rte_tel_data_add_dict_u64(x, "worker", lc->index);
		rte_tel_data_add_dict_u64(x, "rx_queues", lc->nb_rxq);
		rte_tel_data_add_dict_u64(x, "idle_sleeps", lc->idle_sleeps);
		rte_tel_data_add_dict_u64(x, "slow_steps", lc->slow_steps);
		for (unsigned i = 0; i < STK_MAX_STEPS && lc->steps[i].name; i++) {
			const struct stk_step_stat *st = &lc->steps[i];

			rte_tel_data_add_dict_u64(x, step_key(key, sizeof(key), "slow/", st->name),
						  st->slow);
			rte_tel_data_add_dict_u64(x,
						  step_key(key, sizeof(key), "max_us/", st->name),
						  tsc_us(st->max_tsc));
		}
		if (lc->worst.step) {
			u = &lc->worst.use;
			rte_tel_data_add_dict_string(
				x, "longest_step", step_key(key, sizeof(key), "", lc->worst.step));
			rte_tel_data_add_dict_u64(x, "longest_us", tsc_us(lc->worst.tsc));
			rte_tel_data_add_dict_u64(x, "longest_window_us", tsc_us(u->tsc));
			rte_tel_data_add_dict_u64(x, "longest_user_us", u->user_us);
			rte_tel_data_add_dict_u64(x, "longest_sys_us", u->sys_us);
			rte_tel_data_add_dict_u64(x, "longest_slept_or_blocked", u->vcsw);
			rte_tel_data_add_dict_u64(x, "longest_preempted", u->ivcsw);
			rte_tel_data_add_dict_u64(x, "longest_page_faults", u->minflt + u->majflt);
			rte_tel_data_add_dict_u64(x, "longest_major_faults", u->majflt);
		}
		snprintf(key, sizeof(key), "lcore%u", id);
		rte_tel_data_add_dict_container(d, key, x, 0);
	}
	return 0;
}

int stk_telemetry_register(void)
{
	int rc = 0;

	rc |= rte_telemetry_register_cmd("/droce/stats", tel_stats,
					 "droce stack counters over all interfaces. No params");
	rc |= rte_telemetry_register_cmd("/droce/port_stats", tel_port_stats,
					 "droce counters of one interface. Params: iface index");
	rc |= rte_telemetry_register_cmd("/droce/ifaces", tel_ifaces,
					 "droce interfaces and addresses. No params");
	rc |= rte_telemetry_register_cmd(
		"/droce/lcores", tel_lcores,
		"droce lcores: queues, idle sleeps, slow loop steps. No params");
	rc |= rte_telemetry_register_cmd("/droce/neigh_count", tel_neigh,
					 "neighbour entries per lcore. No params");
	return rc ? -EEXIST : 0;
}
