/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_config.c - the INI configuration of stack/stk_config.c: a file with every key parses to
 * the right values; every bad value, unknown key or section, missing requirement and missing
 * file is refused with an error that names the file, the section and the key; and
 * stk_config_eal_args() turns a configuration plus command-line EAL arguments into the EAL argv.
 *
 * Fixed inputs live in tests/unit/data/; the one-bad-line variants are written to a temporary
 * directory from the table below. No EAL is needed: rte_cfgfile works without it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "stk_config.h"
#include "ut_common.h"

#define DATA(name) UT_DATA_DIR "/" name
/* argv strings are char *, string literals are const */
#define S(x) ((char *)(uintptr_t)(x))

static char tmpdir[64];
static unsigned nb_tmp;

static int group_setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/droce_ut_cfg_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	char path[128];

	for (unsigned i = 0; i < nb_tmp; i++) {
		snprintf(path, sizeof(path), "%s/%u.ini", tmpdir, i);
		unlink(path);
	}
	rmdir(tmpdir);
	return 0;
}

/* Write @text to a new file in the temporary directory; @return its path (static buffer). */
static const char *write_conf(const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u.ini", tmpdir, nb_tmp++);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return path;
}

static const struct stk_ipaddr *ip_of(const char *s)
{
	static struct stk_ipaddr a;

	assert_int_equal(stk_ipaddr_parse(s, &a), 0);
	return &a;
}

static void test_defaults(void **state)
{
	struct stk_config c;

	memset(&c, 0xa5, sizeof(c));
	stk_config_default(&c);
	assert_int_equal(c.huge, STK_HUGE_AUTO);
	assert_int_equal(c.mem_mb, 256);
	assert_string_equal(c.lcores, "");
	assert_string_equal(c.file_prefix, "");
	assert_int_equal(c.nb_vdevs, 0);
	assert_int_equal(c.nb_mbufs, 8191);
	assert_int_equal(c.mbuf_cache, 256);
	assert_int_equal(c.mbuf_data_room, 2048 + 128);
	assert_int_equal(c.exc_ring_size, 1024);
	assert_int_equal(c.neigh.entries, 1024);
	assert_int_equal(c.neigh.reachable_ms, 30000);
	assert_int_equal(c.neigh.retrans_ms, 1000);
	assert_int_equal(c.neigh.max_probes, 3);
	assert_int_equal(c.neigh.max_pending, 4);
	assert_int_equal(c.neigh.max_pending_total, 256);
	assert_int_equal(c.nb_ports, 0);
}

static void test_load_full(void **state)
{
	struct stk_config c;
	char err[512] = "";
	const struct stk_port_conf *p;

	stk_config_default(&c);
	assert_int_equal(stk_config_load(DATA("full.ini"), &c, err, sizeof(err)), 0);
	/* [eal] */
	assert_string_equal(c.lcores, "0-2");
	assert_int_equal(c.huge, STK_HUGE_NO);
	assert_int_equal(c.mem_mb, 512);
	assert_string_equal(c.file_prefix, "droce_ut");
	assert_int_equal(c.nb_vdevs, 2);
	assert_string_equal(c.vdevs[0], "net_null0");
	assert_string_equal(c.vdevs[1], "net_ring0");
	assert_string_equal(c.eal_extra, "--log-level=pmd.*:debug   --no-telemetry");
	/* [mempool] */
	assert_int_equal(c.nb_mbufs, 4095);
	assert_int_equal(c.mbuf_cache, 128);
	assert_int_equal(c.mbuf_data_room, 4224);
	/* [neigh] */
	assert_int_equal(c.neigh.entries, 2048);
	assert_int_equal(c.neigh.reachable_ms, 15000);
	assert_int_equal(c.neigh.retrans_ms, 500);
	assert_int_equal(c.neigh.max_probes, 5);
	assert_int_equal(c.neigh.max_pending, 8);
	/* [stack] */
	assert_int_equal(c.exc_ring_size, 2048);
	/* [port0]: every key */
	assert_int_equal(c.nb_ports, 2);
	p = &c.ports[0];
	assert_string_equal(p->name, "port0");
	assert_string_equal(p->dev, "net_af_packet0");
	assert_string_equal(p->vdev, "net_af_packet0,iface=veth0");
	assert_true(stk_ipaddr_eq(&p->ip4, ip_of("192.0.2.1")));
	assert_int_equal(p->ip4_prefix, 24);
	assert_true(stk_ipaddr_eq(&p->gw4, ip_of("192.0.2.254")));
	assert_true(stk_ipaddr_eq(&p->ip6, ip_of("2001:db8::1")));
	assert_int_equal(p->ip6_prefix, 64);
	assert_true(stk_ipaddr_eq(&p->gw6, ip_of("2001:db8::fe")));
	assert_true(p->vlan);
	assert_int_equal(p->vlan_id, 100);
	assert_int_equal(p->pcp, 3);
	assert_int_equal(p->dscp, 26);
	assert_int_equal(p->mtu, 9000);
	assert_int_equal(p->rx_desc, 2048);
	assert_int_equal(p->tx_desc, 512);
	assert_false(p->promisc);
	assert_string_equal(p->exc_ifname, "dtap0");
	assert_int_equal(p->impair_rx.drop_ppm, 5000);
	assert_int_equal(p->impair_rx.seed, 9);
	assert_true(p->impair_rx.roce_only);
	assert_int_equal(p->impair_rx.delay_ppm, 0);
	assert_int_equal(p->impair_tx.delay_ppm, 30000);
	assert_int_equal(p->impair_tx.delay_us, 150);
	assert_int_equal(p->impair_tx.drop_ppm, 0);
	assert_false(p->impair_tx.roce_only);
	/* [port1]: the port defaults; an address without /len is a host address */
	p = &c.ports[1];
	assert_string_equal(p->name, "port1");
	assert_string_equal(p->dev, "0000:03:00.0");
	assert_string_equal(p->vdev, "");
	assert_int_equal(p->ip4.family, 0);
	assert_true(stk_ipaddr_eq(&p->ip6, ip_of("fd00::5")));
	assert_int_equal(p->ip6_prefix, 128);
	assert_int_equal(p->gw4.family, 0);
	assert_int_equal(p->gw6.family, 0);
	assert_false(p->vlan);
	assert_int_equal(p->mtu, 1500);
	assert_int_equal(p->rx_desc, 1024);
	assert_int_equal(p->tx_desc, 1024);
	assert_true(p->promisc);
	assert_string_equal(p->exc_ifname, "");
	assert_false(stk_impair_conf_on(&p->impair_rx));
	assert_false(stk_impair_conf_on(&p->impair_tx));
}

/* A valid minimal file with one extra line in section @sec. */
static const char *conf_with(const char *sec, const char *line)
{
	char text[2048];

	if (!strcmp(sec, "port0"))
		snprintf(text, sizeof(text), "[port0]\ndev = net_null0\nipv4 = 192.0.2.1/24\n%s\n",
			 line);
	else
		snprintf(text, sizeof(text),
			 "[%s]\n%s\n[port0]\ndev = net_null0\nipv4 = 192.0.2.1/24\n", sec, line);
	return write_conf(text);
}

/* Loading @path fails with @rc and an error naming the file and each of @needles. */
static void expect_load_error(const char *path, int rc, const char *n1, const char *n2,
			      const char *n3)
{
	struct stk_config c;
	char err[512] = "";
	int got;

	stk_config_default(&c);
	got = stk_config_load(path, &c, err, sizeof(err));
	if (got != rc)
		fail_msg("%s: rc %d, expected %d (%s)", path, got, rc, err);
	if (!strstr(err, path))
		fail_msg("error does not name the file %s: \"%s\"", path, err);
	if (n1 && !strstr(err, n1))
		fail_msg("error does not name \"%s\": \"%s\"", n1, err);
	if (n2 && !strstr(err, n2))
		fail_msg("error does not name \"%s\": \"%s\"", n2, err);
	if (n3 && !strstr(err, n3))
		fail_msg("error does not name \"%s\": \"%s\"", n3, err);
}

static const struct {
	const char *sec, *key, *value;
} bad_values[] = {
	{"eal", "lcores", "0123456789012345678901234567890123456789012345678901234567890123"},
	{"eal", "hugepages", "maybe"},
	{"eal", "memory", "15"},
	{"eal", "memory", "1048577"},
	{"eal", "memory", "lots"},
	{"eal", "memory", "-1"},
	{"eal", "memory", "512M"},
	{"eal", "file_prefix", "0123456789012345678901234567890123456789012345678901234567890123"},
	{"mempool", "mbufs", "511"},
	{"mempool", "mbufs", "16777217"},
	{"mempool", "cache", "513"},
	{"mempool", "data_room", "383"},
	{"mempool", "data_room", "65536"},
	{"neigh", "entries", "15"},
	{"neigh", "entries", "1048577"},
	{"neigh", "reachable_ms", "99"},
	{"neigh", "reachable_ms", "3600001"},
	{"neigh", "retrans_ms", "9"},
	{"neigh", "retrans_ms", "60001"},
	{"neigh", "max_probes", "0"},
	{"neigh", "max_probes", "21"},
	{"neigh", "pending", "0"},
	{"neigh", "pending", "17"},
	{"neigh", "pending_total", "0"},
	{"stack", "exception_ring", "100"},
	{"stack", "exception_ring", "32"},
	{"stack", "exception_ring", "131072"},
	{"port0", "ipv4", "192.0.2.300/24"},
	{"port0", "ipv4", "192.0.2.1/33"},
	{"port0", "ipv4", "192.0.2.1/"},
	{"port0", "ipv4", "2001:db8::1/64"},
	{"port0", "gateway4", "192.0.2.254/24"},
	{"port0", "gateway4", "2001:db8::fe"},
	{"port0", "ipv6", "192.0.2.1/24"},
	{"port0", "ipv6", "2001:db8::1/129"},
	{"port0", "ipv6", "2001:db8:::1/64"},
	{"port0", "gateway6", "fe80::1/64"},
	{"port0", "vlan", "4095"},
	{"port0", "vlan", "-1"},
	{"port0", "vlan", "10 20"},
	{"port0", "pcp", "8"},
	{"port0", "dscp", "64"},
	{"port0", "mtu", "575"},
	{"port0", "mtu", "9001"},
	{"port0", "rx_desc", "1000"},
	{"port0", "rx_desc", "16"},
	{"port0", "tx_desc", "32768"},
	{"port0", "tx_desc", "1000"},
	{"port0", "promisc", "maybe"},
	{"port0", "exception_tap", "0123456789abcdef"},
	{"port0", "exception_tap", "tap,iface=x"},
	{"port0", "exception_tap", "a/b"},
	/* the impairment syntax itself is tested in test_impair.c */
	{"port0", "impair_rx", "drop=2"},
	{"port0", "impair_tx", "delay=1%"},
	{"port0", "impair_rx", "jitter=1ms"},
	{"port0", "roce_dscp", "64"},
	{"port0", "roce_prio", "8"},
	{"port0", "cnp_dscp", "-1"},
	{"port0", "cnp_prio", "eight"},
	{"port0", "dscp_prio", "26"},
	{"port0", "dscp_prio", "64:3"},
	{"port0", "dscp_prio", "26:8"},
	{"port0", "dscp_prio", "26:3,"},
	{"port0", "dscp_prio", "26:3 48:6"},
	{"port0", "dscp_prio", "-1:3"},
	{"port0", "pfc", "on"},
	{"port0", "pfc_prios", "8"},
	{"port0", "pfc_prios", "3,"},
	{"port0", "pfc_prios", "3 4"},
	{"port0", "pfc_xoff", "1"},
	{"port0", "pfc_xon", "-1"},
	{"port0", "pfc_quanta", "0"},
	{"port0", "pfc_quanta", "65536"},
	{"port0", "pfc_watchdog_ms", "0"},
	{"port0", "pfc_watchdog_restore_ms", "600001"},
	{"port0", "link_speed", "0"},
	{"port0", "link_speed", "10G"},
};

static void test_bad_values(void **state)
{
	char line[512], sec[32];

	for (unsigned i = 0; i < RTE_DIM(bad_values); i++) {
		snprintf(line, sizeof(line), "%s = %s", bad_values[i].key, bad_values[i].value);
		snprintf(sec, sizeof(sec), "[%s]", bad_values[i].sec);
		expect_load_error(conf_with(bad_values[i].sec, line), -EINVAL, sec,
				  bad_values[i].key, bad_values[i].value);
	}
	/* the QoS/PFC lists say what they accept */
	expect_load_error(conf_with("port0", "dscp_prio = 26:8"), -EINVAL, "[port0]", "dscp_prio",
			  "priority 0..7 (e.g. 26:3,48:6)");
	expect_load_error(conf_with("port0", "pfc = on"), -EINVAL, "[port0]", "pfc = on",
			  "expected off, auto");
	expect_load_error(conf_with("port0", "pfc_prios = 9"), -EINVAL, "[port0]", "pfc_prios",
			  "priorities 0..7 separated by commas");
	/* a bad impairment value also says what the syntax is */
	expect_load_error(conf_with("port0", "impair_tx = dup=1"), -EINVAL, "[port0]", "impair_tx",
			  "Accepted: comma-separated drop=R");
}

static void test_boundary_values_accepted(void **state)
{
	/* the edges of each documented range are valid */
	static const struct {
		const char *sec, *line;
	} ok[] = {
		{"eal", "memory = 16"},
		{"eal", "hugepages = AUTO"},
		{"eal", "hugepages = yes"},
		{"mempool", "mbufs = 512"},
		{"mempool", "cache = 0"},
		{"neigh", "pending = 16"},
		{"neigh", "max_probes = 20"},
		{"stack", "exception_ring = 65536"},
		{"stack", "exception_ring = 64"},
		{"port0", "vlan = 4094"},
		{"port0", "vlan = 0"},
		{"port0", "mtu = 576"},
		{"port0", "rx_desc = 16384"},
		{"port0", "tx_desc = 32"},
		{"port0", "promisc = off"},
		{"port0", "ipv4 = 192.0.2.1/0"},
		{"port0", "exception_tap = abcdefghijklmno"},
		{"port0", "impair_rx = drop=1%,dup=1%,reorder=1%,corrupt=0.1%,delay=1%:200us,"
			  "seed=42,roce_only"},
		{"port0", "impair_tx = off"},
		{"port0", "impair_tx = drop=100%"},
	};
	struct stk_config c;
	char err[512];

	for (unsigned i = 0; i < RTE_DIM(ok); i++) {
		int rc;

		stk_config_default(&c);
		err[0] = '\0';
		rc = stk_config_load(conf_with(ok[i].sec, ok[i].line), &c, err, sizeof(err));
		if (rc != 0)
			fail_msg("[%s] %s: rc %d (%s)", ok[i].sec, ok[i].line, rc, err);
	}
	/* vlan = 0 means untagged */
	stk_config_default(&c);
	assert_int_equal(stk_config_load(conf_with("port0", "vlan = 0"), &c, err, sizeof(err)), 0);
	assert_false(c.ports[0].vlan);
}

static void test_qos_pfc_keys(void **state)
{
	struct stk_config c;
	char err[512] = "";
	const struct stk_port_conf *p;

	/* no key: the lossless defaults, PFC off, thresholds from rx_desc */
	stk_config_default(&c);
	assert_int_equal(stk_config_load(conf_with("port0", "rx_desc = 512"), &c, err, sizeof(err)),
			 0);
	p = &c.ports[0];
	assert_true(p->qos.set);
	assert_int_equal(p->qos.roce_dscp, 26);
	assert_int_equal(p->qos.roce_prio, 3);
	assert_int_equal(p->qos.cnp_dscp, 48);
	assert_int_equal(p->qos.cnp_prio, 6);
	for (unsigned d = 0; d < 64; d++)
		assert_int_equal(p->qos.dscp_prio[d], d >> 3);
	assert_int_equal(p->pfc, STK_PFC_MODE_OFF);
	assert_int_equal(p->pfc_prios, 1 << 3);
	assert_int_equal(p->pfc_xoff, 384);
	assert_int_equal(p->pfc_xon, 128);
	assert_int_equal(p->pfc_quanta, 65535);
	assert_int_equal(p->link_speed, 0);

	/* single keys override single defaults; pfc_prios follows roce_prio */
	stk_config_default(&c);
	assert_int_equal(stk_config_load(conf_with("port0", "roce_prio = 4\n"
							    "dscp_prio = 26:4,48:7,0:1\n"
							    "pfc = auto"),
					 &c, err, sizeof(err)),
			 0);
	p = &c.ports[0];
	assert_int_equal(p->qos.roce_prio, 4);
	assert_int_equal(p->qos.roce_dscp, 26);
	assert_int_equal(p->qos.cnp_prio, 6);
	assert_int_equal(p->qos.dscp_prio[26], 4);
	assert_int_equal(p->qos.dscp_prio[48], 7);
	assert_int_equal(p->qos.dscp_prio[0], 1);
	assert_int_equal(p->qos.dscp_prio[27], 3); /* untouched: 27 >> 3 */
	assert_int_equal(p->pfc, STK_PFC_MODE_AUTO);
	assert_int_equal(p->pfc_prios, 1 << 4);

	/* every key */
	stk_config_default(&c);
	assert_int_equal(stk_config_load(conf_with("port0", "roce_dscp = 24\ncnp_dscp = 46\n"
							    "cnp_prio = 7\npfc = HW\n"
							    "pfc_prios = 3,4\npfc_xoff = 100\n"
							    "pfc_xon = 0\npfc_quanta = 1000\n"
							    "pfc_watchdog_ms = 50\n"
							    "pfc_watchdog_restore_ms = 70\n"
							    "link_speed = 25000"),
					 &c, err, sizeof(err)),
			 0);
	p = &c.ports[0];
	assert_int_equal(p->qos.roce_dscp, 24);
	assert_int_equal(p->qos.cnp_dscp, 46);
	assert_int_equal(p->qos.cnp_prio, 7);
	assert_int_equal(p->pfc, STK_PFC_MODE_HW);
	assert_int_equal(p->pfc_prios, 1 << 3 | 1 << 4);
	assert_int_equal(p->pfc_xoff, 100);
	assert_int_equal(p->pfc_xon, 0);
	assert_int_equal(p->pfc_quanta, 1000);
	assert_int_equal(p->pfc_wd_ms, 50);
	assert_int_equal(p->pfc_wd_restore_ms, 70);
	assert_int_equal(p->link_speed, 25000);
	stk_config_default(&c);
	assert_int_equal(
		stk_config_load(conf_with("port0", "pfc_watchdog_ms = off"), &c, err, sizeof(err)),
		0);
	assert_int_equal(c.ports[0].pfc_wd_ms, UINT32_MAX);
	stk_config_default(&c);
	assert_int_equal(stk_config_load(conf_with("port0", "pfc = sw"), &c, err, sizeof(err)), 0);
	assert_int_equal(c.ports[0].pfc, STK_PFC_MODE_SW);
	stk_config_default(&c);
	assert_int_equal(stk_config_load(conf_with("port0", "pfc = off"), &c, err, sizeof(err)), 0);
	assert_int_equal(c.ports[0].pfc, STK_PFC_MODE_OFF);

	/* xon must be below xoff, whichever key order and whether defaulted or not */
	expect_load_error(conf_with("port0", "pfc_xoff = 10\npfc_xon = 10"), -EINVAL, "[port0]",
			  "pfc_xon (10) must be below pfc_xoff (10)", NULL);
	expect_load_error(conf_with("port0", "pfc_xon = 800"), -EINVAL, "[port0]",
			  "pfc_xon (800) must be below pfc_xoff (768, 3/4 of rx_desc)", NULL);
	expect_load_error(conf_with("port0", "pfc_xoff = 200\nrx_desc = 2048"), -EINVAL, "[port0]",
			  "pfc_xon (512, 1/4 of rx_desc)", "pfc_xoff (200)");
}

static void test_unknown_keys(void **state)
{
	static const char *const secs[] = {"eal", "mempool", "neigh", "stack", "port0"};

	for (unsigned i = 0; i < RTE_DIM(secs); i++) {
		char sec[32];

		snprintf(sec, sizeof(sec), "[%s]", secs[i]);
		expect_load_error(conf_with(secs[i], "colour = blue"), -EINVAL, sec, "colour",
				  "unknown key");
	}
}

static void test_unknown_section(void **state)
{
	expect_load_error(DATA("unknown_section.ini"), -EINVAL, "[routing]", "unknown section",
			  NULL);
	/* "port" must be followed by a number: these are typos, not ports */
	expect_load_error(write_conf("[port0]\ndev = a\nipv4 = 192.0.2.1\n[ports]\ndev = b\n"),
			  -EINVAL, "[ports]", "unknown section", NULL);
	expect_load_error(write_conf("[port]\ndev = b\nipv4 = 192.0.2.1\n"), -EINVAL, "[port]",
			  "unknown section", NULL);
}

/* sections an upper layer reads (droce-nfsd's [nfs] and [export NAME]) are skipped when the
 * caller names them, and unknown otherwise */
static void test_upper_sections(void **state)
{
	static const char *const upper[] = {"nfs", "export ", NULL};
	const char *text = "[port0]\ndev = a\nipv4 = 192.0.2.1\n[nfs]\nthreads = 2\n"
			   "[export data]\npath = /srv\n";
	struct stk_config c;
	char err[512];

	(void)state;
	expect_load_error(write_conf(text), -EINVAL, "[nfs]", "unknown section", NULL);
	stk_config_default(&c);
	c.upper_sections = upper;
	assert_int_equal(stk_config_load(write_conf(text), &c, err, sizeof(err)), 0);
	/* a prefix ends in a space: "[export]" alone and "[exports]" are not the upper layer's */
	stk_config_default(&c);
	c.upper_sections = upper;
	assert_int_equal(stk_config_load(write_conf("[port0]\ndev = a\nipv4 = 192.0.2.1\n"
						    "[exports]\nx = 1\n"),
					 &c, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "[exports]: unknown section"));
}

/* [stack] idle_sleep_us: one number for every lcore, or LCORE:N pairs */
static void test_idle_keys(void **state)
{
	struct stk_config c;
	char err[512];

	(void)state;
	stk_config_default(&c);
	assert_int_equal(c.idle_sleep_us[0], 0);
	assert_int_equal(c.idle_after_us, 1000);
	assert_int_equal(
		stk_config_load(conf_with("stack", "idle_sleep_us = 50"), &c, err, sizeof(err)), 0);
	assert_int_equal(c.idle_sleep_us[0], 50);
	assert_int_equal(c.idle_sleep_us[STK_MAX_LCORES - 1], 50);
	stk_config_default(&c);
	assert_int_equal(stk_config_load(conf_with("stack", "idle_sleep_us = 0:50 2:10,5:0"), &c,
					 err, sizeof(err)),
			 0);
	assert_int_equal(c.idle_sleep_us[0], 50);
	assert_int_equal(c.idle_sleep_us[1], 0);
	assert_int_equal(c.idle_sleep_us[2], 10);
	assert_int_equal(c.idle_sleep_us[5], 0);
	stk_config_default(&c);
	assert_int_equal(
		stk_config_load(conf_with("stack", "idle_after_us = 0"), &c, err, sizeof(err)), 0);
	assert_int_equal(c.idle_after_us, 0);
	expect_load_error(conf_with("stack", "idle_sleep_us = 10001"), -EINVAL, "[stack]",
			  "idle_sleep_us = 10001", "from 0 to 10000");
	expect_load_error(conf_with("stack", "idle_sleep_us = 128:5"), -EINVAL, "[stack]",
			  "idle_sleep_us = 128:5", "LCORE below 128");
	expect_load_error(conf_with("stack", "idle_sleep_us = 50 60"), -EINVAL, "[stack]",
			  "idle_sleep_us", "one number, or LCORE:N pairs");
	expect_load_error(conf_with("stack", "idle_sleep_us = x"), -EINVAL, "[stack]",
			  "idle_sleep_us", "from 0 to 10000");
	expect_load_error(conf_with("stack", "idle_after_us = 1000001"), -EINVAL, "[stack]",
			  "idle_after_us", "from 0 to 1000000");
}

static void test_missing_requirements(void **state)
{
	expect_load_error(DATA("no_dev.ini"), -EINVAL, "[port0]", "dev", NULL);
	expect_load_error(DATA("no_addr.ini"), -EINVAL, "[port0]", "ipv4", NULL);
	expect_load_error(DATA("no_port.ini"), -EINVAL, "[portN]", NULL, NULL);
	/* a vdev alone is enough to find the device */
	{
		struct stk_config c;
		char err[256];

		stk_config_default(&c);
		assert_int_equal(stk_config_load(write_conf("[port3]\nvdev = net_null0\n"
							    "ipv6 = 2001:db8::1/64\n"),
						 &c, err, sizeof(err)),
				 0);
		assert_string_equal(c.ports[0].name, "port3");
	}
}

static void test_missing_file(void **state)
{
	struct stk_config c;
	char err[512] = "";

	stk_config_default(&c);
	assert_int_equal(stk_config_load(DATA("does_not_exist.ini"), &c, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, DATA("does_not_exist.ini")));
}

static void test_too_many(void **state)
{
	char text[4096];
	size_t n = 0;

	/* at most STK_MAX_PORTS port sections */
	for (unsigned i = 0; i <= STK_MAX_PORTS; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "[port%u]\ndev = net_null%u\nipv4 = 192.0.2.%u/24\n", i, i,
				      i + 1);
	expect_load_error(write_conf(text), -EINVAL, "[port8]", "at most", NULL);

	/* at most STK_MAX_VDEVS vdev lines */
	n = (size_t)snprintf(text, sizeof(text), "[eal]\n");
	for (unsigned i = 0; i <= STK_MAX_VDEVS; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "vdev = net_null%u\n", i);
	snprintf(text + n, sizeof(text) - n, "[port0]\ndev = x\nipv4 = 192.0.2.1\n");
	expect_load_error(write_conf(text), -EINVAL, "[eal]", "vdev", "at most");
}

/* ---------------- stk_config_eal_args ---------------- */

/* @return the index of @s in argv, or -1. */
static int find_arg(int argc, char **argv, const char *s)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], s))
			return i;
	return -1;
}

static int count_arg(int argc, char **argv, const char *s)
{
	int n = 0;

	for (int i = 0; i < argc; i++)
		n += !strcmp(argv[i], s);
	return n;
}

/* net_af_packet's rings are framecnt frames (default 512), whatever the queue set-up asks: the
 * port's rx_desc sizes them, unless the vdev line says framecnt itself */
static void test_eal_args_af_packet_framecnt(void **state)
{
	static const char *const text[] = {
		"[port0]\nvdev = net_af_packet0,iface=v0\nipv4 = 192.0.2.1/24\n",
		"[port0]\nvdev = net_af_packet0,iface=v0\nipv4 = 192.0.2.1/24\nrx_desc = 4096\n",
		"[port0]\nvdev = net_af_packet0,iface=v0,framecnt=256\nipv4 = 192.0.2.1/24\n",
		"[port0]\nvdev = net_ring0\nipv4 = 192.0.2.1/24\n",
	};
	static const char *const want[] = {
		"--vdev=net_af_packet0,iface=v0,framecnt=1024",
		"--vdev=net_af_packet0,iface=v0,framecnt=4096",
		"--vdev=net_af_packet0,iface=v0,framecnt=256",
		"--vdev=net_ring0",
	};
	(void)state;

	for (unsigned k = 0; k < RTE_DIM(text); k++) {
		struct stk_config c;
		char err[256], **argv;
		int argc;

		stk_config_default(&c);
		assert_int_equal(stk_config_load(write_conf(text[k]), &c, err, sizeof(err)), 0);
		argc = stk_config_eal_args(&c, "droce-test", 0, NULL, &argv);
		if (count_arg(argc, argv, want[k]) != 1)
			fail_msg("case %u: no %s", k, want[k]);
		stk_config_free_args(argc, argv);
	}
}

static void test_eal_args_from_config(void **state)
{
	static const char *const want[] = {
		"--no-huge",
		"--file-prefix=droce_ut",
		"--vdev=net_null0",
		"--vdev=net_ring0",
		"--vdev=net_af_packet0,iface=veth0,framecnt=2048", /* rx_desc sizes its rings */
		"--vdev=net_tap_dtap0,iface=dtap0",
		"--log-level=pmd.*:debug",
		"--no-telemetry",
	};
	struct stk_config c;
	char err[256], **argv;
	int argc, i;

	stk_config_default(&c);
	assert_int_equal(stk_config_load(DATA("full.ini"), &c, err, sizeof(err)), 0);
	argc = stk_config_eal_args(&c, "droce-test", 0, NULL, &argv);
	assert_true(argc >= 1);
	assert_string_equal(argv[0], "droce-test");
	assert_null(argv[argc]);
	i = find_arg(argc, argv, "-l");
	assert_true(i > 0 && i + 1 < argc);
	assert_string_equal(argv[i + 1], "0-2");
	i = find_arg(argc, argv, "-m");
	assert_true(i > 0 && i + 1 < argc);
	assert_string_equal(argv[i + 1], "512");
	for (unsigned k = 0; k < RTE_DIM(want); k++)
		if (count_arg(argc, argv, want[k]) != 1)
			fail_msg("%s appears %d times", want[k], count_arg(argc, argv, want[k]));
	/* nothing else: argv0, -l x, -m x and the list above */
	assert_int_equal(argc, 1 + 4 + (int)RTE_DIM(want));
	/* the extra args keep their order */
	assert_true(find_arg(argc, argv, "--log-level=pmd.*:debug") <
		    find_arg(argc, argv, "--no-telemetry"));
	stk_config_free_args(argc, argv);
}

static void test_eal_args_user_last_and_override(void **state)
{
	char *user[] = {
		S("-l"), S("3"), S("-m"), S("64"), S("--file-prefix=mine"), S("--vdev=net_null9")};
	struct stk_config c;
	char err[256], **argv;
	int argc;

	stk_config_default(&c);
	assert_int_equal(stk_config_load(DATA("full.ini"), &c, err, sizeof(err)), 0);
	argc = stk_config_eal_args(&c, "droce-test", (int)RTE_DIM(user), user, &argv);
	assert_true(argc > (int)RTE_DIM(user));
	/* appended last, in order */
	for (unsigned k = 0; k < RTE_DIM(user); k++)
		assert_string_equal(argv[argc - (int)RTE_DIM(user) + (int)k], user[k]);
	/* the config's -l, -m and --file-prefix give way */
	assert_int_equal(count_arg(argc, argv, "-l"), 1);
	assert_int_equal(count_arg(argc, argv, "0-2"), 0);
	assert_int_equal(count_arg(argc, argv, "-m"), 1);
	assert_int_equal(count_arg(argc, argv, "512"), 0);
	assert_int_equal(count_arg(argc, argv, "--file-prefix=droce_ut"), 0);
	/* the rest of the config stays */
	assert_int_equal(count_arg(argc, argv, "--vdev=net_tap_dtap0,iface=dtap0"), 1);
	assert_int_equal(count_arg(argc, argv, "--no-huge"), 1);
	stk_config_free_args(argc, argv);
}

static void test_eal_args_other_spellings(void **state)
{
	/* each user spelling that sets cores, memory or the prefix suppresses the config's */
	static const struct {
		const char *arg, *suppressed;
	} v[] = {
		{"--lcores=0@1", "-l"}, {"-c", "-l"},
		{"-l3", "-l"},		{"--socket-mem=128", "-m"},
		{"-m64", "-m"},		{"--file-prefix", "--file-prefix=droce_ut"},
	};
	struct stk_config c;
	char err[256], **argv;
	int argc;

	stk_config_default(&c);
	assert_int_equal(stk_config_load(DATA("full.ini"), &c, err, sizeof(err)), 0);
	for (unsigned i = 0; i < RTE_DIM(v); i++) {
		char *user[] = {S(v[i].arg)};

		argc = stk_config_eal_args(&c, "t", 1, user, &argv);
		assert_true(argc > 1);
		if (count_arg(argc, argv, v[i].suppressed) != 0)
			fail_msg("user %s: config's %s still there", v[i].arg, v[i].suppressed);
		assert_string_equal(argv[argc - 1], v[i].arg);
		stk_config_free_args(argc, argv);
	}
}

static void test_eal_args_hugepages(void **state)
{
	char *user[] = {S("--no-huge")};
	struct stk_config c;
	char **argv;
	int argc;

	stk_config_default(&c);
	c.huge = STK_HUGE_NO;
	argc = stk_config_eal_args(&c, "t", 0, NULL, &argv);
	assert_int_equal(count_arg(argc, argv, "--no-huge"), 1);
	stk_config_free_args(argc, argv);

	/* hugepages required: never --no-huge */
	c.huge = STK_HUGE_YES;
	argc = stk_config_eal_args(&c, "t", 0, NULL, &argv);
	assert_int_equal(count_arg(argc, argv, "--no-huge"), 0);
	stk_config_free_args(argc, argv);

	/* the user's --no-huge is not doubled */
	c.huge = STK_HUGE_NO;
	argc = stk_config_eal_args(&c, "t", 1, user, &argv);
	assert_int_equal(count_arg(argc, argv, "--no-huge"), 1);
	assert_string_equal(argv[argc - 1], "--no-huge");
	stk_config_free_args(argc, argv);
	c.huge = STK_HUGE_AUTO;
	argc = stk_config_eal_args(&c, "t", 1, user, &argv);
	assert_int_equal(count_arg(argc, argv, "--no-huge"), 1);
	stk_config_free_args(argc, argv);
}

static void test_eal_args_minimal(void **state)
{
	char *allow[] = {S("-a"), S("0000:03:00.0")};
	struct stk_config c;
	char **argv;
	int argc;

	/* nothing configured: argv0, and --no-pci since no port is a PCI device */
	stk_config_default(&c);
	c.huge = STK_HUGE_YES;
	c.mem_mb = 0;
	argc = stk_config_eal_args(&c, "only", 0, NULL, &argv);
	assert_int_equal(argc, 2);
	assert_string_equal(argv[0], "only");
	assert_string_equal(argv[1], "--no-pci");
	assert_null(argv[2]);
	stk_config_free_args(argc, argv);

	/* the user's own PCI allow-list keeps the bus */
	argc = stk_config_eal_args(&c, "only", 2, allow, &argv);
	assert_int_equal(count_arg(argc, argv, "--no-pci"), 0);
	assert_int_equal(argc, 3);
	stk_config_free_args(argc, argv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_load_full),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_boundary_values_accepted),
		cmocka_unit_test(test_qos_pfc_keys),
		cmocka_unit_test(test_unknown_keys),
		cmocka_unit_test(test_unknown_section),
		cmocka_unit_test(test_upper_sections),
		cmocka_unit_test(test_idle_keys),
		cmocka_unit_test(test_missing_requirements),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_eal_args_from_config),
		cmocka_unit_test(test_eal_args_af_packet_framecnt),
		cmocka_unit_test(test_eal_args_user_last_and_override),
		cmocka_unit_test(test_eal_args_other_spellings),
		cmocka_unit_test(test_eal_args_hugepages),
		cmocka_unit_test(test_eal_args_minimal),
	};

	return cmocka_run_group_tests_name("stk_config", tests, group_setup, group_teardown);
}
