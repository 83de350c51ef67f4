/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_start.c - the start-up and shut-down the RDMA CM tools share (app_start.h): arguments,
 * the INI configuration, EAL and stack, interface, RoCE device, CM and PD. It runs before
 * and after the lcore loop, never in it.
 */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

#include "app_start.h"
#include "stk_iface.h"
#include "stk_pkt.h"
#include "stk_stack.h"
#include "stk_stats.h"

void app_split_args(struct app_start *a, int argc, char **argv, int *eal_argc, char ***eal_argv,
		    int *app_argc, char ***app_argv)
{
	char **v;
	int n, out = 1;

	stk_split_args(argc, argv, eal_argc, eal_argv, app_argc, app_argv);
	v = *app_argv;
	n = *app_argc;
	for (int i = 1; i < n; i++) {
		if (!strcmp(v[i], "--config") && i + 1 < n) {
			a->config = v[++i];
			continue;
		}
		if (!strncmp(v[i], "--config=", 9)) {
			a->config = v[i] + 9;
			continue;
		}
		v[out++] = v[i];
	}
	v[out] = NULL;
	*app_argc = out;
	if (!a->config)
		a->config = getenv("DROCE_CONF");
}

int app_load_config(struct app_start *a)
{
	char err[512];

	if (a->cfg_loaded)
		return 0;
	if (!a->config || !*a->config) {
		fprintf(stderr,
			"%s: no droce configuration: give --config FILE or set DROCE_CONF "
			"(see conf/example.ini)\n",
			a->prog);
		return APP_EXIT_CONFIG;
	}
	stk_config_default(&a->cfg);
	if (stk_config_load(a->config, &a->cfg, err, sizeof(err)) != 0 ||
	    roce_dcqcn_config_load(a->config, &a->cc_on, &a->cc, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: %s\n", a->prog, err);
		return APP_EXIT_CONFIG;
	}
	a->cfg_loaded = true;
	return 0;
}

int app_start_stack(struct app_start *a, const char *argv0, int eal_argc, char **eal_argv)
{
	int rc = app_load_config(a);

	if (rc != 0)
		return rc;
	if (stk_eal_init(&a->cfg, argv0, eal_argc, eal_argv) != 0) {
		fprintf(stderr, "%s: the EAL did not start (see the messages above)\n", a->prog);
		return APP_EXIT_NODEV;
	}
	a->eal_up = true;
	a->hz = rte_get_tsc_hz();
	if (stk_setup(&a->cfg) != 0) {
		fprintf(stderr, "%s: the stack did not start (see the messages above)\n", a->prog);
		return APP_EXIT_NODEV;
	}
	a->stack_up = true;
	return 0;
}

int app_get_addr(const char *name, struct stk_ipaddr *out)
{
	struct addrinfo *res;
	int rc = getaddrinfo(name, NULL, NULL, &res);

	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	if (res->ai_family == AF_INET) {
		out->family = 4;
		out->v4 = ((const struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr;
	} else if (res->ai_family == AF_INET6) {
		out->family = 6;
		memcpy(out->v6, &((const struct sockaddr_in6 *)res->ai_addr)->sin6_addr, 16);
	} else {
		rc = -1;
	}
	freeaddrinfo(res);
	return rc;
}

bool app_is_any(const struct stk_ipaddr *a)
{
	static const uint8_t zero[16];

	return a->family == 4 ? a->v4 == 0 : !memcmp(a->v6, zero, 16);
}

int app_iface_by_name(const struct stk_config *cfg, const char *name, uint16_t *iface)
{
	unsigned long n;
	char *end;

	if (!name)
		return 0;
	if (!strncmp(name, "droce", 5) && name[5]) {
		n = strtoul(name + 5, &end, 10);
		if (!*end && n < cfg->nb_ports) {
			*iface = (uint16_t)n;
			return 0;
		}
	}
	for (unsigned i = 0; i < cfg->nb_ports; i++) {
		if (!strcmp(name, cfg->ports[i].name)) {
			*iface = (uint16_t)i;
			return 0;
		}
	}
	fprintf(stderr, "IB device %s not found (droce0..droce%u)\n", name, cfg->nb_ports - 1);
	return -ENODEV;
}

int app_pick_iface(struct app_start *a, const struct stk_ipaddr *bind, const struct stk_ipaddr *dst)
{
	uint16_t n = stk_iface_count();

	a->iface = 0;
	if (bind && bind->family && !app_is_any(bind)) {
		for (uint16_t i = 0; i < n; i++) {
			if (stk_iface_is_local(stk_iface_get(i), bind)) {
				a->iface = i;
				return 0;
			}
		}
		return -EADDRNOTAVAIL;
	}
	if (!dst || !dst->family)
		return 0;
	/* on link first, else the first with a gateway of the family, else the first */
	for (uint16_t i = 0; i < n; i++) {
		if (stk_iface_on_link(stk_iface_get(i), dst)) {
			a->iface = i;
			return 0;
		}
	}
	for (uint16_t i = 0; i < n; i++) {
		const struct stk_iface *ifc = stk_iface_get(i);

		if (dst->family == 4 ? ifc->gw4.family : ifc->gw6.family) {
			a->iface = i;
			return 0;
		}
	}
	return 0;
}

int app_open_dev(struct app_start *a)
{
	struct stk_lcore *primary;

	a->dev = roce_dev_open(a->iface);
	if (!a->dev) {
		fprintf(stderr, "%s: cannot open the RoCE device of interface %u: %s\n", a->prog,
			a->iface, rte_strerror(rte_errno));
		return -rte_errno;
	}
	if (a->nlanes > 1) {
		/* before the CM makes QP1: a device with QPs keeps its lanes */
		int rc = roce_dev_set_lcores(a->dev, a->lane_lcores, a->nlanes);

		if (rc != 0) {
			fprintf(stderr,
				"%s: cannot run the device on %u lcores: %s (each must be an EAL "
				"lcore of [eal] lcores, none twice)\n",
				a->prog, a->nlanes, strerror(-rc));
			return rc;
		}
		for (unsigned i = 1; i < a->nlanes; i++) {
			struct stk_lcore *lc = stk_lcore_get(a->lane_lcores[i]);

			if (!lc || stk_lcore_add_poll_as(lc, roce_poll, a->dev, "roce") != 0) {
				fprintf(stderr, "%s: lcore %u runs no stack loop\n", a->prog,
					a->lane_lcores[i]);
				return -EINVAL;
			}
		}
	}
	if (a->cc_on && roce_dev_set_cc(a->dev, &a->cc) != 0) {
		fprintf(stderr, "%s: the [dcqcn] parameters were refused\n", a->prog);
		return -EINVAL;
	}
	a->cm = roce_cm_open(a->dev);
	a->pd = a->cm ? roce_alloc_pd(a->dev) : NULL;
	if (!a->cm || !a->pd) {
		fprintf(stderr, "%s: cannot open the CM or a PD: %s\n", a->prog,
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	primary = stk_lcore_get(a->nlanes > 1 ? a->lane_lcores[0] : rte_get_main_lcore());
	if (!primary || stk_lcore_add_poll_as(primary, roce_poll, a->dev, "roce") != 0) {
		fprintf(stderr, "%s: cannot poll the device\n", a->prog);
		return -ENOSPC;
	}
	return 0;
}

void app_stop(struct app_start *a)
{
	if (a->cm && roce_cm_close(a->cm) != 0)
		fprintf(stderr, "%s: the CM did not close cleanly\n", a->prog);
	if (a->pd && roce_dealloc_pd(a->pd) != 0)
		fprintf(stderr, "%s: the PD is still in use\n", a->prog);
	if (a->stack_up)
		stk_teardown();
	if (a->dev && roce_dev_close(a->dev) != 0)
		fprintf(stderr, "%s: the device did not close cleanly\n", a->prog);
	if (a->eal_up)
		rte_eal_cleanup();
	a->cm = NULL;
	a->pd = NULL;
	a->dev = NULL;
	a->stack_up = a->eal_up = false;
}

void app_counts(const struct app_start *a, struct app_counts *c)
{
	struct roce_dev_counts dc;
	struct roce_cm_stats cs;
	struct rte_mempool *mp = stk_pktmbuf_pool();

	memset(c, 0, sizeof(*c));
	if (a->dev) {
		roce_dev_counts(a->dev, &dc);
		c->qps = dc.qps;
		c->cqs = dc.cqs;
		c->mrs = dc.mrs;
	}
	if (a->cm) {
		roce_cm_stats(a->cm, &cs);
		c->cm_ids = cs.ids;
	}
	if (mp)
		c->mbufs = rte_mempool_in_use_count(mp);
}

size_t app_port_drops(int iface, char *line, size_t cap)
{
	const struct stk_iface *ifc = stk_iface_get((uint16_t)iface);
	struct rte_eth_stats es;
	struct stk_port_stats s;
	size_t n = 0;

	if (cap)
		line[0] = '\0';
	stk_stats_sum(iface, &s);
	for (int d = 0; d < STK_DROP_NUM; d++)
		if (s.drop[d] && n < cap)
			n += (size_t)snprintf(line + n, cap - n, " %s %" PRIu64,
					      stk_drop_name((enum stk_drop)d), s.drop[d]);
	if (ifc && rte_eth_stats_get(ifc->port_id, &es) == 0 && n < cap) {
		if (es.imissed)
			n += (size_t)snprintf(line + n, cap - n, " rx_missed %" PRIu64, es.imissed);
		if (es.rx_nombuf && n < cap)
			n += (size_t)snprintf(line + n, cap - n, " rx_nombuf %" PRIu64,
					      es.rx_nombuf);
	}
	return n < cap ? n : cap - 1;
}

void app_print_drops(const struct app_start *a)
{
	for (int i = 0; a->stack_up && i < stk_iface_count(); i++) {
		char line[1024];

		if (app_port_drops(i, line, sizeof(line)))
			fprintf(stderr, "%s: port %d: dropped:%s\n", a->prog, i, line);
	}
}
