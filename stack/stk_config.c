/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_config.c - INI configuration with rte_cfgfile, and the EAL argv it implies.
 *
 * A bad value is reported as "<file>: [section] key = value: <what is wrong>; <what is
 * accepted>", so the user knows what to fix without reading code.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_cfgfile.h>

#include "stk_config.h"

void stk_config_default(struct stk_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->huge = STK_HUGE_AUTO;
	cfg->mem_mb = 256;
	cfg->nb_mbufs = 8191;
	cfg->mbuf_cache = 256;
	cfg->mbuf_data_room = 2048 + 128; /* RTE_MBUF_DEFAULT_BUF_SIZE */
	cfg->exc_ring_size = 1024;
	cfg->idle_after_us = 1000;
	stk_neigh_params_default(&cfg->neigh);
}

struct ctx {
	const char *path;
	char *err;
	size_t errlen;
};

static int bad(struct ctx *c, const char *sec, const char *key, const char *val, const char *fmt,
	       ...) __attribute__((format(printf, 5, 6)));

static int bad(struct ctx *c, const char *sec, const char *key, const char *val, const char *fmt,
	       ...)
{
	char what[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s: [%s] %s = %s: %s", c->path, sec, key, val ? val : "",
		 what);
	return -EINVAL;
}

static int get_uint(struct ctx *c, const char *sec, const char *key, const char *v,
		    unsigned long min, unsigned long max, unsigned *out)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 0);
	if (errno || end == v || *end != '\0' || x < min || x > max || v[0] == '-')
		return bad(c, sec, key, v, "expected an integer from %lu to %lu", min, max);
	*out = (unsigned)x;
	return 0;
}

static int get_bool(struct ctx *c, const char *sec, const char *key, const char *v, bool *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1") ||
	    !strcasecmp(v, "on")) {
		*out = true;
		return 0;
	}
	if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcmp(v, "0") ||
	    !strcasecmp(v, "off")) {
		*out = false;
		return 0;
	}
	return bad(c, sec, key, v, "expected yes or no");
}

static int get_str(struct ctx *c, const char *sec, const char *key, const char *v, char *out,
		   size_t len)
{
	if (strlen(v) >= len)
		return bad(c, sec, key, v, "longer than %zu characters", len - 1);
	strcpy(out, v);
	return 0;
}

/* "10.0.0.1/24", "fd00::1/64", or an address without prefix (host route) */
static int get_prefix(struct ctx *c, const char *sec, const char *key, const char *v, int family,
		      struct stk_ipaddr *a, uint8_t *plen)
{
	char buf[64];
	char *slash;
	unsigned max = family == 4 ? 32 : 128, pl = max;

	if (strlen(v) >= sizeof(buf))
		return bad(c, sec, key, v, "too long for an address");
	strcpy(buf, v);
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		if (get_uint(c, sec, key, slash + 1, 0, max, &pl) != 0)
			return bad(c, sec, key, v, "prefix length must be 0..%u", max);
	}
	if (stk_ipaddr_parse(buf, a) != 0 || a->family != family)
		return bad(c, sec, key, v, "expected an IPv%d address%s", family,
			   plen ? " with optional /prefix" : "");
	if (plen)
		*plen = (uint8_t)pl;
	else if (slash)
		return bad(c, sec, key, v, "a gateway takes no /prefix");
	return 0;
}

static int eal_entry(struct ctx *c, const char *sec, const char *k, const char *v, void *obj)
{
	struct stk_config *cfg = obj;

	if (!strcmp(k, "lcores"))
		return get_str(c, sec, k, v, cfg->lcores, sizeof(cfg->lcores));
	if (!strcmp(k, "hugepages")) {
		if (!strcasecmp(v, "auto"))
			cfg->huge = STK_HUGE_AUTO;
		else if (!strcasecmp(v, "yes"))
			cfg->huge = STK_HUGE_YES;
		else if (!strcasecmp(v, "no"))
			cfg->huge = STK_HUGE_NO;
		else
			return bad(c, sec, k, v, "expected auto, yes or no");
		return 0;
	}
	if (!strcmp(k, "memory"))
		return get_uint(c, sec, k, v, 16, 1u << 20, &cfg->mem_mb);
	if (!strcmp(k, "file_prefix"))
		return get_str(c, sec, k, v, cfg->file_prefix, sizeof(cfg->file_prefix));
	if (!strcmp(k, "vdev")) {
		/* repeatable: every line is one more --vdev */
		if (cfg->nb_vdevs >= STK_MAX_VDEVS)
			return bad(c, sec, k, v, "at most %d vdev lines", STK_MAX_VDEVS);
		return get_str(c, sec, k, v, cfg->vdevs[cfg->nb_vdevs++], STK_CFG_STR);
	}
	if (!strcmp(k, "args"))
		return get_str(c, sec, k, v, cfg->eal_extra, sizeof(cfg->eal_extra));
	return bad(c, sec, k, v,
		   "unknown key; known: lcores hugepages memory file_prefix vdev args");
}

typedef int (*entry_fn)(struct ctx *c, const char *sec, const char *k, const char *v, void *obj);

static int for_entries(struct ctx *c, struct rte_cfgfile *f, const char *sec, entry_fn fn,
		       void *obj)
{
	struct rte_cfgfile_entry *e;
	int n, rc = 0;

	n = rte_cfgfile_section_num_entries(f, sec);
	if (n <= 0)
		return 0;
	e = calloc((size_t)n, sizeof(*e));
	if (!e)
		return -ENOMEM;
	n = rte_cfgfile_section_entries(f, sec, e, n);
	for (int i = 0; i < n && rc == 0; i++)
		rc = fn(c, sec, e[i].name, e[i].value, obj);
	free(e);
	return rc;
}

static int mempool_entry(struct ctx *c, const char *sec, const char *k, const char *v, void *obj)
{
	struct stk_config *cfg = obj;

	if (!strcmp(k, "mbufs"))
		return get_uint(c, sec, k, v, 512, 1u << 24, &cfg->nb_mbufs);
	if (!strcmp(k, "cache"))
		return get_uint(c, sec, k, v, 0, 512, &cfg->mbuf_cache);
	if (!strcmp(k, "data_room"))
		return get_uint(c, sec, k, v, 256 + 128, 65535, &cfg->mbuf_data_room);
	return bad(c, sec, k, v, "unknown key; known: mbufs cache data_room");
}

static int neigh_entry(struct ctx *c, const char *sec, const char *k, const char *v, void *obj)
{
	struct stk_neigh_params *np = obj;
	unsigned x;
	int rc;

	if (!strcmp(k, "entries"))
		return get_uint(c, sec, k, v, 16, 1u << 20, &np->entries);
	if (!strcmp(k, "reachable_ms"))
		return get_uint(c, sec, k, v, 100, 3600000, &np->reachable_ms);
	if (!strcmp(k, "retrans_ms"))
		return get_uint(c, sec, k, v, 10, 60000, &np->retrans_ms);
	if (!strcmp(k, "max_probes")) {
		rc = get_uint(c, sec, k, v, 1, 20, &x);
		np->max_probes = (uint8_t)x;
		return rc;
	}
	if (!strcmp(k, "pending")) {
		rc = get_uint(c, sec, k, v, 1, STK_NEIGH_MAX_PENDING, &x);
		np->max_pending = (uint8_t)x;
		return rc;
	}
	if (!strcmp(k, "pending_total"))
		return get_uint(c, sec, k, v, 1, 1u << 20, &np->max_pending_total);
	return bad(c, sec, k, v,
		   "unknown key; known: entries reachable_ms retrans_ms max_probes pending "
		   "pending_total");
}

/* "N" (every lcore) or "LCORE:N LCORE:N ..." (those lcores; the others spin), N in µs */
static int idle_list(struct ctx *c, const char *sec, const char *k, const char *v,
		     struct stk_config *cfg)
{
	uint32_t us[STK_MAX_LCORES] = {0};
	const char *p = v;
	bool all = !strchr(v, ':');

	while (*p) {
		unsigned long lc = 0, n;
		char *end;

		while (*p == ' ' || *p == ',')
			p++;
		if (!*p)
			break;
		if (!all) {
			lc = strtoul(p, &end, 10);
			if (end == p || *end != ':' || lc >= STK_MAX_LCORES)
				return bad(c, sec, k, v,
					   "expected N (µs, every lcore) or LCORE:N pairs with "
					   "LCORE below %u",
					   STK_MAX_LCORES);
			p = end + 1;
		}
		n = strtoul(p, &end, 10);
		if (end == p || n > 10000 || (*end && *end != ' ' && *end != ','))
			return bad(c, sec, k, v, "expected sleeps from 0 to 10000 µs");
		p = end;
		if (all) {
			for (unsigned i = 0; i < STK_MAX_LCORES; i++)
				us[i] = (uint32_t)n;
			if (*p)
				return bad(c, sec, k, v, "one number, or LCORE:N pairs");
		} else {
			us[lc] = (uint32_t)n;
		}
	}
	memcpy(cfg->idle_sleep_us, us, sizeof(us));
	return 0;
}

static int stack_entry(struct ctx *c, const char *sec, const char *k, const char *v, void *obj)
{
	struct stk_config *cfg = obj;
	int rc;

	if (!strcmp(k, "exception_ring")) {
		rc = get_uint(c, sec, k, v, 64, 65536, &cfg->exc_ring_size);
		if (rc == 0 && (cfg->exc_ring_size & (cfg->exc_ring_size - 1)))
			return bad(c, sec, k, v, "must be a power of two");
		return rc;
	}
	if (!strcmp(k, "idle_after_us"))
		return get_uint(c, sec, k, v, 0, 1000000, &cfg->idle_after_us);
	if (!strcmp(k, "idle_sleep_us"))
		return idle_list(c, sec, k, v, cfg);
	return bad(c, sec, k, v, "unknown key; known: exception_ring idle_sleep_us idle_after_us");
}

/* "26:3,48:6": DSCP:priority entries on top of the DSCP >> 3 default */
static int get_dscp_prio(struct ctx *c, const char *sec, const char *key, const char *v,
			 uint8_t map[64])
{
	const char *s = v;

	if (*s == '\0')
		return bad(c, sec, key, v, "expected DSCP:priority pairs, e.g. 26:3,48:6");
	while (*s) {
		char *end;
		unsigned long d, p;

		errno = 0;
		d = strtoul(s, &end, 10);
		if (end == s || *s == '-' || *end != ':' || d > 63)
			return bad(c, sec, key, v,
				   "expected DSCP:priority pairs separated by commas, DSCP 0..63 "
				   "(e.g. 26:3,48:6)");
		s = end + 1;
		p = strtoul(s, &end, 10);
		if (end == s || *s == '-' || (*end != ',' && *end != '\0') || p > 7)
			return bad(
				c, sec, key, v,
				"expected DSCP:priority pairs separated by commas, priority 0..7 "
				"(e.g. 26:3,48:6)");
		map[d] = (uint8_t)p;
		s = *end == ',' ? end + 1 : end;
		if (*end == ',' && *s == '\0')
			return bad(c, sec, key, v, "a trailing comma");
	}
	return 0;
}

/* "3" or "3,4": priorities 0..7 as a bitmask */
static int get_prios(struct ctx *c, const char *sec, const char *key, const char *v, uint8_t *mask)
{
	const char *s = v;
	uint8_t m = 0;

	while (1) {
		char *end;
		unsigned long p;

		p = strtoul(s, &end, 10);
		if (end == s || *s == '-' || p > 7 || (*end != ',' && *end != '\0'))
			return bad(c, sec, key, v,
				   "expected priorities 0..7 separated by commas, e.g. 3 or 3,4");
		m |= (uint8_t)(1u << p);
		if (*end == '\0')
			break;
		s = end + 1;
	}
	*mask = m;
	return 0;
}

static int get_u8(struct ctx *c, const char *sec, const char *k, const char *v, unsigned max,
		  uint8_t *out)
{
	unsigned x;
	int rc = get_uint(c, sec, k, v, 0, max, &x);

	if (rc == 0)
		*out = (uint8_t)x;
	return rc;
}

static int port_entry(struct ctx *c, const char *sec, const char *k, const char *v, void *obj)
{
	struct stk_port_conf *pc = obj;
	unsigned x;
	int rc;

	if (!strcmp(k, "dev"))
		return get_str(c, sec, k, v, pc->dev, sizeof(pc->dev));
	if (!strcmp(k, "vdev"))
		return get_str(c, sec, k, v, pc->vdev, sizeof(pc->vdev));
	if (!strcmp(k, "ipv4"))
		return get_prefix(c, sec, k, v, 4, &pc->ip4, &pc->ip4_prefix);
	if (!strcmp(k, "gateway4"))
		return get_prefix(c, sec, k, v, 4, &pc->gw4, NULL);
	if (!strcmp(k, "ipv6"))
		return get_prefix(c, sec, k, v, 6, &pc->ip6, &pc->ip6_prefix);
	if (!strcmp(k, "gateway6"))
		return get_prefix(c, sec, k, v, 6, &pc->gw6, NULL);
	if (!strcmp(k, "vlan")) {
		rc = get_uint(c, sec, k, v, 0, 4094, &x);
		pc->vlan = x != 0;
		pc->vlan_id = (uint16_t)x;
		return rc;
	}
	if (!strcmp(k, "pcp")) {
		rc = get_uint(c, sec, k, v, 0, 7, &x);
		pc->pcp = (uint8_t)x;
		return rc;
	}
	if (!strcmp(k, "dscp")) {
		rc = get_uint(c, sec, k, v, 0, 63, &x);
		pc->dscp = (uint8_t)x;
		return rc;
	}
	if (!strcmp(k, "mtu")) {
		rc = get_uint(c, sec, k, v, 576, 9000, &x);
		pc->mtu = (uint16_t)x;
		return rc;
	}
	if (!strcmp(k, "rx_desc") || !strcmp(k, "tx_desc")) {
		rc = get_uint(c, sec, k, v, 32, 16384, &x);
		if (rc == 0 && (x & (x - 1)))
			return bad(c, sec, k, v, "must be a power of two");
		if (k[0] == 'r')
			pc->rx_desc = (uint16_t)x;
		else
			pc->tx_desc = (uint16_t)x;
		return rc;
	}
	if (!strcmp(k, "promisc"))
		return get_bool(c, sec, k, v, &pc->promisc);
	if (!strcmp(k, "impair_rx") || !strcmp(k, "impair_tx")) {
		char why[128];

		if (stk_impair_parse(v, !strcmp(k, "impair_rx") ? &pc->impair_rx : &pc->impair_tx,
				     why, sizeof(why)) != 0)
			return bad(c, sec, k, v, "%s. Accepted: %s", why, STK_IMPAIR_SYNTAX);
		return 0;
	}
	if (!strcmp(k, "roce_dscp"))
		return get_u8(c, sec, k, v, 63, &pc->qos.roce_dscp);
	if (!strcmp(k, "roce_prio"))
		return get_u8(c, sec, k, v, 7, &pc->qos.roce_prio);
	if (!strcmp(k, "cnp_dscp"))
		return get_u8(c, sec, k, v, 63, &pc->qos.cnp_dscp);
	if (!strcmp(k, "cnp_prio"))
		return get_u8(c, sec, k, v, 7, &pc->qos.cnp_prio);
	if (!strcmp(k, "dscp_prio"))
		return get_dscp_prio(c, sec, k, v, pc->qos.dscp_prio);
	if (!strcmp(k, "pfc")) {
		if (!strcasecmp(v, "off"))
			pc->pfc = STK_PFC_MODE_OFF;
		else if (!strcasecmp(v, "auto"))
			pc->pfc = STK_PFC_MODE_AUTO;
		else if (!strcasecmp(v, "sw"))
			pc->pfc = STK_PFC_MODE_SW;
		else if (!strcasecmp(v, "hw"))
			pc->pfc = STK_PFC_MODE_HW;
		else
			return bad(c, sec, k, v,
				   "expected off, auto (the NIC when it can, else the stack), sw "
				   "or hw");
		return 0;
	}
	if (!strcmp(k, "pfc_prios"))
		return get_prios(c, sec, k, v, &pc->pfc_prios);
	if (!strcmp(k, "pfc_xoff"))
		return get_uint(c, sec, k, v, 2, 1u << 20, &pc->pfc_xoff);
	if (!strcmp(k, "pfc_xon"))
		return get_uint(c, sec, k, v, 0, (1u << 20) - 1, &pc->pfc_xon);
	if (!strcmp(k, "pfc_quanta")) {
		rc = get_uint(c, sec, k, v, 1, UINT16_MAX, &x);
		pc->pfc_quanta = (uint16_t)x;
		return rc;
	}
	if (!strcmp(k, "pfc_watchdog_ms")) {
		if (!strcasecmp(v, "off")) {
			pc->pfc_wd_ms = UINT32_MAX;
			return 0;
		}
		return get_uint(c, sec, k, v, 1, 600000, &pc->pfc_wd_ms);
	}
	if (!strcmp(k, "pfc_watchdog_restore_ms"))
		return get_uint(c, sec, k, v, 1, 600000, &pc->pfc_wd_restore_ms);
	if (!strcmp(k, "link_speed"))
		return get_uint(c, sec, k, v, 1, 1000000, &pc->link_speed);
	if (!strcmp(k, "exception_tap")) {
		if (v[0] == '\0' || strlen(v) >= sizeof(pc->exc_ifname) || strchr(v, ',') ||
		    strchr(v, '/') || strchr(v, ' '))
			return bad(c, sec, k, v, "expected an interface name of 1-15 characters");
		strcpy(pc->exc_ifname, v);
		return 0;
	}
	return bad(c, sec, k, v,
		   "unknown key; known: dev vdev ipv4 gateway4 ipv6 gateway6 vlan pcp dscp mtu "
		   "rx_desc tx_desc promisc exception_tap impair_rx impair_tx roce_dscp roce_prio "
		   "cnp_dscp cnp_prio dscp_prio pfc pfc_prios pfc_xoff pfc_xon pfc_quanta "
		   "pfc_watchdog_ms pfc_watchdog_restore_ms link_speed");
}

/* The PFC defaults that depend on other keys, and the checks across keys. */
static int port_resolve(struct ctx *c, struct stk_port_conf *pc)
{
	bool xoff_set = pc->pfc_xoff != 0, xon_set = pc->pfc_xon != UINT32_MAX;

	if (!pc->pfc_prios)
		pc->pfc_prios = (uint8_t)(1u << pc->qos.roce_prio);
	if (!xoff_set)
		pc->pfc_xoff = pc->rx_desc * 3u / 4;
	if (!xon_set)
		pc->pfc_xon = pc->rx_desc / 4u;
	if (pc->pfc_xon >= pc->pfc_xoff) {
		snprintf(c->err, c->errlen,
			 "%s: [%s]: pfc_xon (%u%s) must be below pfc_xoff (%u%s): XON is sent once "
			 "the backlog falls to pfc_xon, XOFF when it reaches pfc_xoff",
			 c->path, pc->name, pc->pfc_xon, xon_set ? "" : ", 1/4 of rx_desc",
			 pc->pfc_xoff, xoff_set ? "" : ", 3/4 of rx_desc");
		return -EINVAL;
	}
	if (!pc->pfc_quanta)
		pc->pfc_quanta = UINT16_MAX;
	return 0;
}

static bool upper_section(const struct stk_config *cfg, const char *s)
{
	for (const char *const *u = cfg->upper_sections; u && *u; u++) {
		size_t n = strlen(*u);

		if (n && (*u)[n - 1] == ' ' ? strncmp(s, *u, n) == 0 && s[n] : strcmp(s, *u) == 0)
			return true;
	}
	return false;
}

int stk_config_load(const char *path, struct stk_config *cfg, char *err, size_t errlen)
{
	struct ctx c = {.path = path, .err = err, .errlen = errlen};
	struct rte_cfgfile *f;
	char **names = NULL;
	int nsec, rc = 0;

	f = rte_cfgfile_load(path, 0);
	if (!f) {
		snprintf(err, errlen, "%s: cannot read the configuration file (%s)", path,
			 strerror(errno ? errno : ENOENT));
		return -ENOENT;
	}
	nsec = rte_cfgfile_num_sections(f, NULL, 0);
	if (nsec > 0) {
		names = calloc((size_t)nsec, sizeof(*names));
		for (int i = 0; names && i < nsec; i++)
			names[i] = calloc(1, CFG_NAME_LEN);
		if (names)
			rte_cfgfile_sections(f, names, nsec);
	}
	for (int i = 0; names && i < nsec && rc == 0; i++) {
		const char *s = names[i];

		if (!s) {
			rc = -ENOMEM;
		} else if (!strcmp(s, "eal")) {
			rc = for_entries(&c, f, s, eal_entry, cfg);
		} else if (!strcmp(s, "mempool")) {
			rc = for_entries(&c, f, s, mempool_entry, cfg);
		} else if (!strcmp(s, "neigh")) {
			rc = for_entries(&c, f, s, neigh_entry, &cfg->neigh);
		} else if (!strcmp(s, "stack")) {
			rc = for_entries(&c, f, s, stack_entry, cfg);
		} else if (!strncmp(s, "port", 4) && s[4] &&
			   strspn(s + 4, "0123456789") == strlen(s + 4)) {
			struct stk_port_conf *pc;

			if (cfg->nb_ports >= STK_MAX_PORTS) {
				snprintf(err, errlen, "%s: [%s]: at most %d port sections", path, s,
					 STK_MAX_PORTS);
				rc = -EINVAL;
				break;
			}
			pc = &cfg->ports[cfg->nb_ports++];
			memset(pc, 0, sizeof(*pc));
			snprintf(pc->name, sizeof(pc->name), "%s", s);
			pc->mtu = 1500;
			pc->rx_desc = 1024;
			pc->tx_desc = 1024;
			pc->promisc = true;
			/* single QoS keys override the defaults, not a zeroed table */
			stk_qos_default(&pc->qos);
			pc->pfc_xon = UINT32_MAX; /* unset: 0 is a valid threshold */
			rc = for_entries(&c, f, s, port_entry, pc);
			if (rc == 0)
				rc = port_resolve(&c, pc);
			if (rc == 0 && pc->dev[0] == '\0' && pc->vdev[0] == '\0') {
				snprintf(err, errlen,
					 "%s: [%s]: needs dev = <DPDK device name or PCI address> "
					 "or vdev = <driver args>",
					 path, s);
				rc = -EINVAL;
			}
			if (rc == 0 && pc->ip4.family == 0 && pc->ip6.family == 0) {
				snprintf(err, errlen,
					 "%s: [%s]: needs ipv4 = a.b.c.d/len and/or "
					 "ipv6 = addr/len",
					 path, s);
				rc = -EINVAL;
			}
		} else if (!strcmp(s, "dcqcn")) {
			/* the transport's (roce_dcqcn_config_load() reads it) */
		} else if (upper_section(cfg, s)) {
			/* an upper layer's (droce-nfsd's [nfs] and [export NAME]) */
		} else {
			snprintf(err, errlen,
				 "%s: [%s]: unknown section; known: eal mempool neigh stack portN "
				 "dcqcn",
				 path, s);
			rc = -EINVAL;
		}
	}
	if (!names && nsec > 0)
		rc = -ENOMEM;
	for (int i = 0; names && i < nsec; i++)
		free(names[i]);
	free(names);
	rte_cfgfile_close(f);
	if (rc == 0 && cfg->nb_ports == 0) {
		snprintf(err, errlen, "%s: no [portN] section: droce needs at least one port",
			 path);
		rc = -EINVAL;
	}
	return rc;
}

/* Free 2 MiB hugepages, or 0 when none are mounted. */
static unsigned long free_hugepages_mb(void)
{
	unsigned long pages = 0;
	FILE *f;
	char line[256];
	bool mounted = false;

	f = fopen("/proc/mounts", "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (strstr(line, " hugetlbfs "))
				mounted = true;
		fclose(f);
	}
	if (!mounted)
		return 0;
	f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lu", &pages) != 1)
		pages = 0;
	fclose(f);
	return pages * 2;
}

static int push(char ***v, int *n, int *cap, const char *s)
{
	if (*n + 1 >= *cap) {
		int nc = *cap ? *cap * 2 : 32;
		char **nv = realloc(*v, (size_t)nc * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[*n] = strdup(s);
	if (!(*v)[*n])
		return -ENOMEM;
	(*n)++;
	(*v)[*n] = NULL;
	return 0;
}

static bool user_has(int argc, char **argv, const char *opt)
{
	size_t l = strlen(opt);
	bool short_opt = opt[1] != '-'; /* getopt allows its value attached: -l0-3, -m512 */

	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], opt, l) &&
		    (argv[i][l] == '\0' || argv[i][l] == '=' || short_opt))
			return true;
	return false;
}

int stk_config_eal_args(const struct stk_config *cfg, const char *argv0, int user_argc,
			char **user_argv, char ***argv_out)
{
	char **v = NULL, buf[STK_CFG_STR + 16];
	int n = 0, cap = 0, rc = 0;
	bool no_huge = cfg->huge == STK_HUGE_NO || user_has(user_argc, user_argv, "--no-huge");

	rc |= push(&v, &n, &cap, argv0);
	if (cfg->lcores[0] && !user_has(user_argc, user_argv, "-l") &&
	    !user_has(user_argc, user_argv, "--lcores") && !user_has(user_argc, user_argv, "-c")) {
		rc |= push(&v, &n, &cap, "-l");
		rc |= push(&v, &n, &cap, cfg->lcores);
	}
	if (cfg->huge == STK_HUGE_AUTO && !no_huge) {
		unsigned long avail = free_hugepages_mb();

		if (avail < cfg->mem_mb) {
			fprintf(stderr,
				"droce: note: %lu MiB of free 2 MiB hugepages, %u MiB wanted: "
				"running with --no-huge (slower; no dpdk-dumpcap/pdump). Run "
				"scripts/setup.sh as root to reserve hugepages.\n",
				avail, cfg->mem_mb);
			no_huge = true;
		}
	}
	if (no_huge && !user_has(user_argc, user_argv, "--no-huge"))
		rc |= push(&v, &n, &cap, "--no-huge");
	if (cfg->mem_mb && !user_has(user_argc, user_argv, "-m") &&
	    !user_has(user_argc, user_argv, "--socket-mem")) {
		snprintf(buf, sizeof(buf), "%u", cfg->mem_mb);
		rc |= push(&v, &n, &cap, "-m");
		rc |= push(&v, &n, &cap, buf);
	}
	if (cfg->file_prefix[0] && !user_has(user_argc, user_argv, "--file-prefix")) {
		snprintf(buf, sizeof(buf), "--file-prefix=%s", cfg->file_prefix);
		rc |= push(&v, &n, &cap, buf);
	}
	for (unsigned i = 0; i < cfg->nb_vdevs; i++) {
		snprintf(buf, sizeof(buf), "--vdev=%s", cfg->vdevs[i]);
		rc |= push(&v, &n, &cap, buf);
	}
	for (unsigned i = 0; i < cfg->nb_ports; i++) {
		const struct stk_port_conf *pc = &cfg->ports[i];

		if (pc->vdev[0]) {
			/* net_af_packet sizes its rings by framecnt (default 512), not by the
			 * descriptors asked at queue set-up: rx_desc sizes them unless the vdev
			 * says. 512 frames overflowed under a thousand connections' bursts over a
			 * veth (cmtime -c 1000: 8.9 s to connect, REQs lost to the kernel's ring;
			 * 79 ms with 1,024; docs/cm.md) */
			int w;

			if (!strncmp(pc->vdev, "net_af_packet", 13) &&
			    !strstr(pc->vdev, "framecnt="))
				w = snprintf(buf, sizeof(buf), "--vdev=%s,framecnt=%u", pc->vdev,
					     (unsigned)pc->rx_desc);
			else
				w = snprintf(buf, sizeof(buf), "--vdev=%s", pc->vdev);
			if (w < 0 || (size_t)w >= sizeof(buf))
				rc |= -1; /* too long for one EAL argument */
			else
				rc |= push(&v, &n, &cap, buf);
		}
		if (pc->exc_ifname[0]) {
			snprintf(buf, sizeof(buf), "--vdev=net_tap_%s,iface=%s", pc->exc_ifname,
				 pc->exc_ifname);
			rc |= push(&v, &n, &cap, buf);
		}
	}
	if (cfg->eal_extra[0]) {
		char tmp[STK_CFG_STR], *save = NULL;

		snprintf(tmp, sizeof(tmp), "%s", cfg->eal_extra);
		for (char *t = strtok_r(tmp, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
			rc |= push(&v, &n, &cap, t);
	}
	/* Without a PCI port, keep EAL away from the host's NICs. */
	if (!user_has(user_argc, user_argv, "-a") && !user_has(user_argc, user_argv, "--allow") &&
	    !user_has(user_argc, user_argv, "-b") && !user_has(user_argc, user_argv, "--block") &&
	    !user_has(user_argc, user_argv, "--no-pci")) {
		bool pci = false;

		for (unsigned i = 0; i < cfg->nb_ports; i++)
			if (cfg->ports[i].dev[0] && !cfg->ports[i].vdev[0] &&
			    strchr(cfg->ports[i].dev, ':'))
				pci = true;
		if (!pci)
			rc |= push(&v, &n, &cap, "--no-pci");
	}
	for (int i = 0; i < user_argc; i++)
		rc |= push(&v, &n, &cap, user_argv[i]);
	if (rc) {
		stk_config_free_args(n, v);
		return -ENOMEM;
	}
	*argv_out = v;
	return n;
}

void stk_config_free_args(int argc, char **argv)
{
	for (int i = 0; argv && i < argc; i++)
		free(argv[i]);
	free(argv);
}
