/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-bench-echo - packet rate of the stack's UDP echo path on one lcore.
 *
 * The stack runs one port (a --vdev given with --port) and binds a UDP echo handler. Every
 * frame takes the full path: RX burst -> stk_parse() -> stk_classify() -> bound-port dispatch
 * -> echo handler -> stk_udp_send() (IPv4/UDP/Ethernet framing, checksums, local-destination
 * MAC) -> TX buffer -> TX burst. The datagrams are addressed from our IP to our IP, port
 * --udp-port to itself, so whatever brings a frame back to the port (net_ring's loopback, or
 * a memif peer forwarding it back unchanged) makes each echo arrive as the next request: a
 * fixed population of frames circulates and the rate is bounded by the slowest party.
 *
 * Life cycle, driven from the lcore's poll hook as a state machine:
 *   LINK -> PROBE -> INJECT -> WARMUP -> MEASURE -> DONE
 * PROBE sends one datagram (again every 200 ms) until an echo of it comes back, so the
 * population is not injected into a path that is not ready yet: a memif link reports up
 * slightly before the peer forwards, and frames sent then are lost. FAILED: no link or no
 * round trip within --link-timeout.
 * The result is one JSON object on stdout; progress and errors go to stderr. Nothing here
 * asserts anything about speed: the caller (bench/run.py) compares and reports.
 *
 * Usage: droce-bench-echo [EAL args] -- --port VDEV [options]   (-- --help)
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_version.h>

#include "stk_config.h"
#include "stk_stack.h"

#define ETH_IP4_UDP_HDRS 42 /* 14 Ethernet + 20 IPv4 + 8 UDP */
#define MAX_SAMPLES 600

enum bench_state {
	BENCH_LINK,    /**< waiting for the port's link (memif: the peer connecting) */
	BENCH_PROBE,   /**< one datagram out, waiting for it to come back */
	BENCH_INJECT,  /**< sending the rest of the population through stk_udp_send() */
	BENCH_WARMUP,  /**< echoing, not counted */
	BENCH_MEASURE, /**< echoing, one rate sample per second */
	BENCH_DONE,    /**< measured: stop the stack */
	BENCH_FAILED,  /**< no link or no round trip within --link-timeout, or no mbufs */
	BENCH_NUM_STATES
};

static const char *const bench_state_names[BENCH_NUM_STATES] = {
	"link", "probe", "inject", "warmup", "measure", "done", "failed",
};

static struct {
	/* options */
	const char *port;
	struct stk_ipaddr ip;
	uint8_t prefix;
	uint16_t udp_port;
	unsigned population, frame_size, warmup_s, duration_s, link_timeout_s;
	enum stk_udp_csum csum;
	/* run state, written by the single lcore only */
	enum bench_state state;
	uint64_t hz, t_start, t_phase, t_sample, t_probe;
	uint64_t echoed, echo_failed, injected, sample_base, measure_base, measure_end;
	uint64_t t_measure_start, t_measure_end;
	double cpu_measure_start, cpu_share;
	unsigned nb_samples;
	double samples[MAX_SAMPLES];
	char fail_reason[128];
} b = {
	.prefix = 24,
	.udp_port = 7,
	.population = 512,
	.frame_size = 64,
	.warmup_s = 1,
	.duration_s = 3,
	.link_timeout_s = 10,
	.csum = STK_CSUM_FULL,
};

static void on_signal(int sig)
{
	(void)sig;
	stk_stop();
}

/*
 * The echo server: keep only the UDP payload of @p m (headers in front, Ethernet padding
 * behind) and send it back to where it came from through the stack's normal TX framing.
 * Ownership: on 0 the stack owns @p m; on non-zero the stack frees it and counts a
 * "handler_refused" drop.
 */
static int echo_rx(struct stk_lcore *lc, const struct stk_iface *ifc, struct rte_mbuf *m,
		   const struct stk_pkt *p, void *arg)
{
	struct stk_flow f = {
		.src = p->dst,
		.dst = p->src,
		.sport = p->dport,
		.dport = p->sport,
		.dscp = (uint8_t)(p->tos >> 2),
		.pcp = STK_PCP_DEFAULT,
		.csum = b.csum,
	};
	(void)arg;

	if (!rte_pktmbuf_adj(m, p->payload_off) ||
	    rte_pktmbuf_trim(m, (uint16_t)(rte_pktmbuf_pkt_len(m) - p->payload_len)) != 0 ||
	    stk_udp_send(lc, ifc, m, &f) != 0) {
		b.echo_failed++;
		return -1;
	}
	b.echoed++;
	return 0;
}

/* One datagram of the initial population: our IP to our IP, the echo port both ways. */
static int inject_one(struct stk_lcore *lc, const struct stk_iface *ifc, uint32_t seq)
{
	uint16_t len = (uint16_t)(b.frame_size - ETH_IP4_UDP_HDRS);
	struct stk_flow f = {
		.src = ifc->ip4,
		.dst = ifc->ip4,
		.sport = b.udp_port,
		.dport = b.udp_port,
		.pcp = STK_PCP_DEFAULT,
		.csum = b.csum,
	};
	struct rte_mbuf *m = rte_pktmbuf_alloc(lc->pool);
	uint8_t *d;
	int rc;

	if (!m)
		return -ENOMEM;
	d = (uint8_t *)rte_pktmbuf_append(m, len);
	if (!d) {
		rte_pktmbuf_free(m);
		return -ENOSPC;
	}
	for (uint16_t i = 0; i < len; i++)
		d[i] = (uint8_t)(seq + i);
	rc = stk_udp_send(lc, ifc, m, &f);
	if (rc != 0)
		rte_pktmbuf_free(m);
	return rc;
}

static enum bench_state step_link(const struct stk_iface *ifc, uint64_t now)
{
	struct rte_eth_link link;

	if (rte_eth_link_get_nowait(ifc->port_id, &link) == 0 &&
	    link.link_status == RTE_ETH_LINK_UP)
		return BENCH_PROBE;
	if (now - b.t_start > b.link_timeout_s * b.hz) {
		snprintf(b.fail_reason, sizeof(b.fail_reason),
			 "link of %s still down after %u s (memif: is the reflector running?)",
			 b.port, b.link_timeout_s);
		return BENCH_FAILED;
	}
	return BENCH_LINK;
}

static enum bench_state step_probe(struct stk_lcore *lc, const struct stk_iface *ifc, uint64_t now)
{
	int rc;

	if (b.echoed > 0)
		return BENCH_INJECT;
	if (now - b.t_start > b.link_timeout_s * b.hz) {
		snprintf(b.fail_reason, sizeof(b.fail_reason),
			 "%" PRIu64 " probe datagrams sent, none came back within %u s", b.injected,
			 b.link_timeout_s);
		return BENCH_FAILED;
	}
	if (b.injected && now - b.t_probe < b.hz / 5)
		return BENCH_PROBE;
	rc = inject_one(lc, ifc, 0);
	if (rc != 0) {
		snprintf(b.fail_reason, sizeof(b.fail_reason), "sending a probe failed: %s",
			 strerror(-rc));
		return BENCH_FAILED;
	}
	b.injected++;
	b.t_probe = now;
	stk_lcore_flush(lc);
	return BENCH_PROBE;
}

/* The rest of the population: the probe that came back already circulates. */
static enum bench_state step_inject(struct stk_lcore *lc, const struct stk_iface *ifc)
{
	for (uint32_t i = 1; i < b.population; i++) {
		int rc = inject_one(lc, ifc, i);

		if (rc != 0) {
			snprintf(b.fail_reason, sizeof(b.fail_reason),
				 "injecting datagram %u failed: %s", i, strerror(-rc));
			return BENCH_FAILED;
		}
		b.injected++;
		/* flush per burst so the TX buffer never overflows into a counted drop */
		if ((i + 1) % STK_BURST == 0)
			stk_lcore_flush(lc);
	}
	stk_lcore_flush(lc);
	return BENCH_WARMUP;
}

/* CPU time of the calling thread in seconds: with the TSC it tells whether the lcore had its
 * CPU to itself while measuring (a busy-polling thread should get a share near 1). */
static double thread_cpu_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static enum bench_state step_warmup(uint64_t now)
{
	if (now - b.t_phase < b.warmup_s * b.hz)
		return BENCH_WARMUP;
	b.cpu_measure_start = thread_cpu_s();
	b.t_sample = b.t_measure_start = now;
	b.sample_base = b.measure_base = b.echoed;
	return BENCH_MEASURE;
}

static enum bench_state step_measure(uint64_t now)
{
	if (now - b.t_sample < b.hz)
		return BENCH_MEASURE;
	b.samples[b.nb_samples++] =
		(double)(b.echoed - b.sample_base) * (double)b.hz / (double)(now - b.t_sample);
	b.sample_base = b.echoed;
	b.t_sample = now;
	if (b.nb_samples < b.duration_s)
		return BENCH_MEASURE;
	b.t_measure_end = now;
	b.measure_end = b.echoed;
	b.cpu_share = (thread_cpu_s() - b.cpu_measure_start) * (double)b.hz /
		      (double)(b.t_measure_end - b.t_measure_start);
	return BENCH_DONE;
}

/* Poll hook: runs once per loop iteration, after the RX burst was processed. */
static void bench_poll(struct stk_lcore *lc, void *arg)
{
	const struct stk_iface *ifc = stk_iface_get(0);
	uint64_t now = rte_get_tsc_cycles();
	enum bench_state prev;
	(void)arg;

	do {
		prev = b.state;
		switch (b.state) {
		case BENCH_LINK:
			b.state = step_link(ifc, now);
			break;
		case BENCH_PROBE:
			b.state = step_probe(lc, ifc, now);
			break;
		case BENCH_INJECT:
			b.state = step_inject(lc, ifc);
			break;
		case BENCH_WARMUP:
			b.state = step_warmup(now);
			break;
		case BENCH_MEASURE:
			b.state = step_measure(now);
			break;
		case BENCH_DONE:
		case BENCH_FAILED:
		default:
			stk_stop();
			break;
		}
		if (b.state != prev) {
			b.t_phase = now;
			fprintf(stderr, "droce-bench-echo: %s -> %s\n", bench_state_names[prev],
				bench_state_names[b.state]);
		}
	} while (b.state != prev);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, c = *(const double *)y;

	return (a > c) - (a < c);
}

static double median(const double *v, unsigned n)
{
	double s[MAX_SAMPLES];

	if (n == 0)
		return 0;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void print_json(void)
{
	struct stk_port_stats st;
	char dev[STK_CFG_STR];
	bool first = true;
	double mean = 0;

	if (b.state == BENCH_DONE)
		mean = (double)(b.measure_end - b.measure_base) * (double)b.hz /
		       (double)(b.t_measure_end - b.t_measure_start);
	stk_stats_sum(0, &st);
	snprintf(dev, sizeof(dev), "%s", b.port);
	dev[strcspn(dev, ",")] = '\0';
	printf("{\"bench\": \"droce-echo\", \"device\": \"%s\", \"state\": \"%s\", "
	       "\"dpdk\": \"%s\", \"lcores\": %u, \"hugepages\": %s, ",
	       dev, bench_state_names[b.state], rte_version(), rte_lcore_count(),
	       rte_eal_has_hugepages() ? "true" : "false");
	printf("\"population\": %u, \"frame_size\": %u, \"udp_csum\": \"%s\", \"burst\": %u, "
	       "\"warmup_s\": %u, \"duration_s\": %u, ",
	       b.population, b.frame_size, b.csum == STK_CSUM_FULL ? "full" : "zero", STK_BURST,
	       b.warmup_s, b.duration_s);
	printf("\"samples_pps\": [");
	for (unsigned i = 0; i < b.nb_samples; i++)
		printf("%s%.0f", i ? ", " : "", b.samples[i]);
	printf("], \"median_pps\": %.0f, \"mean_pps\": %.0f, \"cpu_share\": %.3f, ",
	       median(b.samples, b.nb_samples), mean, b.cpu_share);
	/* Each received frame is echoed in the same loop iteration, so at the end every frame
	 * still in flight is in the medium: tx - rx. Less than the population means frames
	 * were lost and the rate was measured with a smaller population. */
	printf("\"injected\": %" PRIu64 ", \"echoed\": %" PRIu64 ", \"echo_failed\": %" PRIu64
	       ", \"rx_pkts\": %" PRIu64 ", \"tx_pkts\": %" PRIu64
	       ", \"in_flight_at_end\": %" PRId64 ", \"drops\": {",
	       b.injected, b.echoed, b.echo_failed, st.c[STK_CNT_rx_pkts], st.c[STK_CNT_tx_pkts],
	       (int64_t)(st.c[STK_CNT_tx_pkts] - st.c[STK_CNT_rx_pkts]));
	for (unsigned d = 1; d < STK_DROP_NUM; d++) {
		if (!st.drop[d])
			continue;
		printf("%s\"%s\": %" PRIu64, first ? "" : ", ", stk_drop_name(d), st.drop[d]);
		first = false;
	}
	printf("}");
	if (b.state == BENCH_FAILED)
		printf(", \"error\": \"%s\"", b.fail_reason);
	printf("}\n");
	fflush(stdout);
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s [EAL args] -- --port VDEV [options]\n"
		"  --port VDEV         the port's --vdev, e.g. net_ring0 or\n"
		"                      net_memif0,role=client,socket=/tmp/x.sock\n"
		"  --ip A.B.C.D/LEN    our address (default 10.99.0.1/24)\n"
		"  --udp-port N        echo port, also the source port of injected datagrams "
		"(default 7)\n"
		"  --population N      datagrams injected and kept circulating (default 512)\n"
		"  --frame-size N      Ethernet frame bytes without FCS, 60..1514 (default 64)\n"
		"  --udp-csum full|zero  UDP checksum of echoes (default full)\n"
		"  --warmup S          seconds echoing before measuring (default 1)\n"
		"  --duration S        seconds measured, one sample per second (default 3)\n"
		"  --link-timeout S    give up when the link is not up by then (default 10)\n"
		"Run with exactly one EAL lcore (-l N). Prints one JSON object on stdout.\n",
		prog);
}

static int get_unsigned(const char *s, unsigned min, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{"port", required_argument, NULL, 'p'},
		{"ip", required_argument, NULL, 'i'},
		{"udp-port", required_argument, NULL, 'u'},
		{"population", required_argument, NULL, 'n'},
		{"frame-size", required_argument, NULL, 's'},
		{"udp-csum", required_argument, NULL, 'c'},
		{"warmup", required_argument, NULL, 'w'},
		{"duration", required_argument, NULL, 'd'},
		{"link-timeout", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char ipbuf[64], *slash;
	unsigned v;
	int c, idx = 0, rc = 0;

	stk_ipaddr_parse("10.99.0.1", &b.ip);
	while (rc == 0 && (c = getopt_long(argc, argv, "h", opts, &idx)) != -1) {
		switch (c) {
		case 'p':
			b.port = optarg;
			break;
		case 'i':
			snprintf(ipbuf, sizeof(ipbuf), "%s", optarg);
			slash = strchr(ipbuf, '/');
			if (slash) {
				*slash = '\0';
				rc = get_unsigned(slash + 1, 1, 32, &v);
				b.prefix = (uint8_t)v;
			}
			if (rc == 0 && (stk_ipaddr_parse(ipbuf, &b.ip) != 0 || b.ip.family != 4))
				rc = -EINVAL;
			break;
		case 'u':
			rc = get_unsigned(optarg, 1, UINT16_MAX, &v);
			b.udp_port = (uint16_t)v;
			break;
		case 'n':
			rc = get_unsigned(optarg, 1, 1 << 16, &b.population);
			break;
		case 's':
			rc = get_unsigned(optarg, 60, 1514, &b.frame_size);
			break;
		case 'c':
			if (!strcmp(optarg, "full"))
				b.csum = STK_CSUM_FULL;
			else if (!strcmp(optarg, "zero"))
				b.csum = STK_CSUM_ZERO;
			else
				rc = -EINVAL;
			break;
		case 'w':
			rc = get_unsigned(optarg, 0, 60, &b.warmup_s);
			break;
		case 'd':
			rc = get_unsigned(optarg, 1, MAX_SAMPLES, &b.duration_s);
			break;
		case 't':
			rc = get_unsigned(optarg, 1, 600, &b.link_timeout_s);
			break;
		case 'h':
		default:
			return -EINVAL;
		}
		if (rc != 0)
			fprintf(stderr, "droce-bench-echo: bad value for --%s: %s\n",
				opts[idx].name, optarg);
	}
	if (rc == 0 && !b.port) {
		fprintf(stderr, "droce-bench-echo: --port VDEV is required\n");
		rc = -EINVAL;
	}
	return rc;
}

int main(int argc, char **argv)
{
	int eal_argc, app_argc, rc;
	char **eal_argv, **app_argv;
	struct stk_config cfg;
	struct stk_port_conf *pc;

	stk_split_args(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	if (parse_args(app_argc, app_argv) != 0) {
		usage(argv[0]);
		return 2;
	}

	stk_config_default(&cfg);
	cfg.nb_ports = 1;
	pc = &cfg.ports[0];
	snprintf(pc->name, sizeof(pc->name), "port0");
	if (snprintf(pc->vdev, sizeof(pc->vdev), "%s", b.port) >= (int)sizeof(pc->vdev)) {
		fprintf(stderr, "droce-bench-echo: --port is longer than %d characters\n",
			STK_CFG_STR - 1);
		return 2;
	}
	pc->ip4 = b.ip;
	pc->ip4_prefix = b.prefix;
	pc->mtu = 1500;
	pc->rx_desc = 1024;
	pc->tx_desc = 1024;
	pc->promisc = true;

	rc = stk_eal_init(&cfg, argv[0], eal_argc, eal_argv);
	if (rc != 0)
		return 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (rte_lcore_count() != 1) {
		fprintf(stderr, "droce-bench-echo: run with exactly one lcore (-l N); %u given\n",
			rte_lcore_count());
		rc = -EINVAL;
		goto out_eal;
	}
	rc = stk_setup(&cfg);
	if (rc != 0) {
		fprintf(stderr, "droce-bench-echo: stack setup failed: %s\n", strerror(-rc));
		goto out_eal;
	}
	rc = stk_udp_bind(b.udp_port, echo_rx, NULL);
	if (rc == 0)
		rc = stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), bench_poll, NULL);
	if (rc != 0) {
		fprintf(stderr, "droce-bench-echo: cannot bind UDP port %u: %s\n", b.udp_port,
			strerror(-rc));
		goto out_stack;
	}
	b.hz = rte_get_tsc_hz();
	b.t_start = b.t_phase = rte_get_tsc_cycles();
	b.state = BENCH_LINK;
	stk_run();
	print_json();
	if (b.state == BENCH_FAILED) {
		fprintf(stderr, "droce-bench-echo: %s\n", b.fail_reason);
		rc = -EIO;
	} else if (b.state != BENCH_DONE) {
		fprintf(stderr, "droce-bench-echo: interrupted in state %s\n",
			bench_state_names[b.state]);
		rc = -EINTR;
	}
	stk_udp_unbind(b.udp_port);
out_stack:
	stk_teardown();
out_eal:
	rte_eal_cleanup();
	return rc == 0 ? 0 : 1;
}
