/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cc-bench - RC goodput under congestion: two sender endpoints and one receiver through the
 * congestion switch (bench/ccswitch), one lcore, for a bounded time per scenario:
 *   baseline-write/send  unimpaired: no loss, no PFC, no ECN, a buffer larger than all in flight
 *   pfc                  lossless: PFC XOFF/XON from a small buffer, ECN off
 *   dcqcn                ECN marking (RED, Kmin/Kmax/Pmax) with DCQCN on every endpoint
 *   loss0.1-write/send   0.1 % random loss at the bottleneck, no PFC
 *   loss1-write/send     1 % random loss, no PFC
 * For each: goodput, its ratio to the unimpaired run of the same operation, p99 message
 * latency (post to completion), bottleneck queue depth (mean/p99/max over 100 us samples),
 * drops, CE marks, PFC pauses, CNPs and retransmitted packets. A table on stdout, everything
 * as JSON with --json, the DCQCN run's per-flow rate and queue depth plotted with --plot
 * (gnuplot). It asserts nothing; the loss target (1 % loss >= 80 % of lossless, WRITE and
 * SEND) is printed.
 *
 * Usage: cc-bench [EAL args] -- [--json FILE] [--plot FILE.png] [--seconds S] [--warmup S]
 *        [--gbps G] [--size BYTES] [--depth N] [--mtu BYTES] [--only NAME[,NAME...]]
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "cc_lab.h"

#define MAX_SCEN 8

enum kind { K_BASE, K_PFC, K_DCQCN, K_LOSS };

struct scen {
	struct ccl_scenario s;
	enum kind kind;
	double loss;
	bool ran;
	struct ccl_result r;
	double ratio; /**< goodput / unimpaired of the same op (0 when that did not run) */
};

static struct {
	const char *json, *plot, *only;
	double secs, warmup, gbps;
	uint32_t size, depth, mtu;
} opt = {.secs = 0.5, .warmup = 0.2, .gbps = 2.0, .size = 65536, .depth = 16, .mtu = 1024};

static struct scen sc[MAX_SCEN];
static unsigned nsc;
static char *series_json; /* the DCQCN run's switch JSON */
static size_t series_len;

static void add(const char *name, enum kind k, enum ccl_op op, double loss)
{
	struct scen *x = &sc[nsc++];
	struct ccs_egress_conf *b = &x->s.bottle;

	ccl_scenario_default(&x->s);
	x->s.name = name;
	x->s.op = op;
	x->s.secs = opt.secs;
	x->s.warmup = opt.warmup;
	x->s.msg_size = opt.size;
	x->s.depth = opt.depth;
	x->s.mtu = opt.mtu;
	x->s.qp_timeout = 10; /* 4 ms, the adaptive RTO works below it */
	x->kind = k;
	x->loss = loss;
	b->rate_bps = (uint64_t)(opt.gbps * 1e9);
	/* more than all the flows can have in flight: the unimpaired queue never drops */
	b->capacity = 2 * 2 * opt.depth * opt.size + (1u << 20);
	switch (k) {
	case K_PFC:
		b->capacity = 192u << 10;
		b->pfc = true;
		b->pfc_xoff = 48u << 10;
		b->pfc_xon = 24u << 10;
		break;
	case K_DCQCN:
		b->ecn = true;
		x->s.dcqcn = true;
		x->s.line_gbps = 10;
		x->s.warmup = opt.warmup + 0.3; /* DCQCN converges from line rate */
		break;
	case K_LOSS:
		b->loss = loss;
		break;
	case K_BASE:
	default:
		break;
	}
}

static bool wanted(const char *name)
{
	char buf[256], *save = NULL;

	if (!opt.only)
		return true;
	snprintf(buf, sizeof(buf), "%s", opt.only);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (!strcmp(t, name))
			return true;
	return false;
}

static uint64_t resent(const struct scen *x)
{
	uint64_t n = 0, per = (x->s.msg_size + x->s.mtu - 1) / x->s.mtu;

	for (unsigned f = 0; f < x->s.nsenders; f++) {
		uint64_t need = x->r.f[f].total * per;

		n += x->r.f[f].tx_pkts > need ? x->r.f[f].tx_pkts - need : 0;
	}
	return n;
}

/* the senders' QP counter at offset @off of struct roce_qp_stats, summed */
static uint64_t qsum(const struct scen *x, size_t off)
{
	uint64_t n = 0;

	for (unsigned f = 0; f < x->s.nsenders; f++)
		n += *(const uint64_t *)((const char *)&x->r.f[f].qs + off);
	return n;
}

#define QSUM(x, field) qsum(x, offsetof(struct roce_qp_stats, field))

static double p99_us(const struct scen *x)
{
	double m = 0;

	for (unsigned f = 0; f < x->s.nsenders; f++)
		m = RTE_MAX(m, x->r.f[f].p99_us);
	return m;
}

static uint64_t cnps(const struct scen *x)
{
	uint64_t n = 0;

	for (unsigned f = 0; f < x->s.nsenders; f++)
		n += x->r.f[f].cnp_rx;
	return n;
}

static void print_table(void)
{
	printf("\ncc-bench: 2 flows -> 1 receiver, bottleneck %.2f Gbit/s, %u B messages x %u in "
	       "flight per flow, path MTU %u, %.2f s measured after warm-up\n",
	       opt.gbps, opt.size, opt.depth, opt.mtu, opt.secs);
	printf("%-14s %-5s %4s %8s %6s %9s %8s %8s %8s %7s %7s %7s %6s %7s %6s %6s %s\n",
	       "scenario", "op", "ok", "Gbit/s", "ratio", "p99 us", "qmean KB", "qp99 KB",
	       "qmax KB", "drops", "marks", "pauses", "CNPs", "resent", "gobk", "rtoE",
	       "flows Gbit/s");
	for (unsigned i = 0; i < nsc; i++) {
		const struct scen *x = &sc[i];

		if (!x->ran)
			continue;
		printf("%-14s %-5s %4s %8.3f %6.2f %9.0f %8.1f %8.1f %8.1f %7lu %7lu %7lu %6lu %7lu "
		       "%6lu %6lu %.3f/%.3f%s%s\n",
		       x->s.name, x->s.op == CCL_WRITE ? "WRITE" : "SEND", x->r.ok ? "yes" : "NO",
		       x->r.gbps, x->ratio, p99_us(x), x->r.q_mean / 1024, x->r.q_p99 / 1024,
		       x->r.q_max / 1024.0, (unsigned long)x->r.sw.drops,
		       (unsigned long)x->r.sw.marks, (unsigned long)x->r.sw.pauses,
		       (unsigned long)cnps(x), (unsigned long)resent(x),
		       (unsigned long)QSUM(x, retransmits), (unsigned long)QSUM(x, rto_early),
		       x->r.f[0].gbps, x->r.f[1].gbps, x->r.ok ? "" : "  ",
		       x->r.ok ? "" : x->r.why);
	}
	for (unsigned i = 0; i < nsc; i++) {
		const struct scen *x = &sc[i];

		if (x->ran && x->kind == K_LOSS && x->loss >= 0.01)
			printf("target: %s at 1 %% loss = %.0f %% of lossless (goal >= 80 %%): %s\n",
			       x->s.op == CCL_WRITE ? "WRITE" : "SEND", 100 * x->ratio,
			       x->ratio >= 0.8 ? "met" : "NOT met");
	}
	fflush(stdout);
}

static int write_json(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f,
		"{\"bottleneck_gbps\":%g,\"msg_size\":%u,\"depth\":%u,\"mtu\":%u,\"secs\":%g,"
		"\"scenarios\":[",
		opt.gbps, opt.size, opt.depth, opt.mtu, opt.secs);
	for (unsigned i = 0, n = 0; i < nsc; i++) {
		const struct scen *x = &sc[i];

		if (!x->ran)
			continue;
		fprintf(f,
			"%s\n{\"name\":\"%s\",\"op\":\"%s\",\"ok\":%s,\"why\":\"%s\",\"gbps\":%.4f,"
			"\"ratio\":%.4f,\"p99_us\":%.1f,\"q_mean\":%.0f,\"q_p99\":%.0f,\"q_max\":%u,"
			"\"q_below_kmax\":%.4f,\"drops\":%lu,\"drop_tail\":%lu,\"drop_loss\":%lu,"
			"\"marks\":%lu,\"pauses\":%lu,\"xons\":%lu,\"cnps\":%lu,\"resent\":%lu,"
			"\"go_backs\":%lu,\"rto_early\":%lu,\"timeouts\":%lu,\"flows\":[",
			n++ ? "," : "", x->s.name, x->s.op == CCL_WRITE ? "WRITE" : "SEND",
			x->r.ok ? "true" : "false", x->r.why, x->r.gbps, x->ratio, p99_us(x),
			x->r.q_mean, x->r.q_p99, x->r.q_max, x->r.q_below_kmax,
			(unsigned long)x->r.sw.drops, (unsigned long)x->r.sw.drop_tail,
			(unsigned long)x->r.sw.drop_loss, (unsigned long)x->r.sw.marks,
			(unsigned long)x->r.sw.pauses, (unsigned long)x->r.sw.xons,
			(unsigned long)cnps(x), (unsigned long)resent(x),
			(unsigned long)QSUM(x, retransmits), (unsigned long)QSUM(x, rto_early),
			(unsigned long)QSUM(x, timeouts));
		for (unsigned k = 0; k < x->s.nsenders; k++) {
			const struct ccl_flow_res *fr = &x->r.f[k];

			fprintf(f,
				"%s{\"gbps\":%.4f,\"msgs\":%lu,\"verified\":%lu,\"p50_us\":%.1f,"
				"\"p99_us\":%.1f,\"max_us\":%.1f,\"cnp_rx\":%lu,\"rate_gbps\":%.3f,"
				"\"tx_pkts\":%lu,\"pfc_rx\":%lu}",
				k ? "," : "", fr->gbps, (unsigned long)fr->msgs,
				(unsigned long)fr->verified, fr->p50_us, fr->p99_us, fr->max_us,
				(unsigned long)fr->cnp_rx, fr->rate_gbps,
				(unsigned long)fr->tx_pkts, (unsigned long)fr->pfc_rx);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "\n],\"dcqcn_switch\":%.*s}\n", series_json ? (int)series_len : 4,
		series_json ? series_json : "null");
	return fclose(f) == 0 ? 0 : -EIO;
}

/* The DCQCN run's time series as columns: t (ms), flow rates (Gbit/s), queue (KB). */
static int write_series_tsv(struct ccs *sw, const char *path, uint64_t t0, uint64_t sample_us)
{
	uint32_t n;
	const struct ccs_sample *s = ccs_samples(sw, &n);
	double hz = (double)rte_get_tsc_hz();
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "# t_ms flow0_gbps flow1_gbps queue_kb marks\n");
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%.3f %.4f %.4f %.2f %lu\n", ((double)s[i].tsc - (double)t0) * 1e3 / hz,
			(double)s[i].in_bytes[1] * 8 / ((double)sample_us * 1e3),
			(double)s[i].in_bytes[2] * 8 / ((double)sample_us * 1e3),
			s[i].q_bytes[0] / 1024.0, (unsigned long)s[i].marks);
	return fclose(f) == 0 ? 0 : -EIO;
}

static void plot(struct ccs *sw, const struct scen *x, uint64_t t0)
{
	char tsv[512], gp[512], cmd[1200];
	FILE *f;

	snprintf(tsv, sizeof(tsv), "%s.tsv", opt.plot);
	if (write_series_tsv(sw, tsv, t0, x->s.sample_us) != 0) {
		fprintf(stderr, "cc-bench: cannot write %s\n", tsv);
		return;
	}
	printf("cc-bench: DCQCN time series in %s (t_ms, per-flow Gbit/s, queue KB, marks)\n", tsv);
	if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
		printf("cc-bench: gnuplot is not installed: no plot written to %s (apt-get install "
		       "gnuplot-nox, or plot %s yourself)\n",
		       opt.plot, tsv);
		return;
	}
	snprintf(gp, sizeof(gp), "%s.gp", opt.plot);
	f = fopen(gp, "w");
	if (!f)
		return;
	/* 1 ms moving average: the 100 us samples are dominated by packet granularity */
	fprintf(f,
		"set terminal pngcairo size 1200,700 noenhanced\n"
		"set output '%s'\n"
		"set multiplot layout 2,1 title 'cc-bench: DCQCN, 2 flows into %.2f Gbit/s "
		"(Kmin %u B, Kmax %u B, Pmax %g)'\n"
		"set xlabel 't (ms)'\nset ylabel 'Gbit/s'\nset grid\n"
		"plot '%s' using 1:2 with lines title 'flow 0', '' using 1:3 with lines "
		"title 'flow 1'\n"
		"set ylabel 'queue (KB)'\n"
		"plot '%s' using 1:4 with lines title 'bottleneck queue', %g with lines dt 2 "
		"title 'Kmax', %g with lines dt 3 title 'Kmin'\n"
		"unset multiplot\n",
		opt.plot, opt.gbps, x->s.bottle.kmin, x->s.bottle.kmax, x->s.bottle.pmax, tsv, tsv,
		x->s.bottle.kmax / 1024.0, x->s.bottle.kmin / 1024.0);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "gnuplot '%s'", gp);
	if (system(cmd) == 0)
		printf("cc-bench: plot written to %s\n", opt.plot);
	else
		printf("cc-bench: gnuplot failed on %s\n", gp);
}

static void usage(void)
{
	fprintf(stderr, "usage: cc-bench [EAL args] -- [--json FILE] [--plot FILE.png] "
			"[--seconds S] [--warmup S] [--gbps G] [--size BYTES] [--depth N] "
			"[--mtu BYTES] [--only NAME,...]\n");
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", required_argument, NULL, 'j'},
		{"plot", required_argument, NULL, 'p'},
		{"seconds", required_argument, NULL, 's'},
		{"warmup", required_argument, NULL, 'w'},
		{"gbps", required_argument, NULL, 'g'},
		{"size", required_argument, NULL, 'z'},
		{"depth", required_argument, NULL, 'd'},
		{"mtu", required_argument, NULL, 'm'},
		{"only", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt.json = optarg;
			break;
		case 'p':
			opt.plot = optarg;
			break;
		case 's':
			opt.secs = atof(optarg);
			break;
		case 'w':
			opt.warmup = atof(optarg);
			break;
		case 'g':
			opt.gbps = atof(optarg);
			break;
		case 'z':
			opt.size = (uint32_t)atoi(optarg);
			break;
		case 'd':
			opt.depth = (uint32_t)atoi(optarg);
			break;
		case 'm':
			opt.mtu = (uint32_t)atoi(optarg);
			break;
		case 'o':
			opt.only = optarg;
			break;
		default:
			usage();
		}
	}
	if (opt.secs <= 0 || opt.secs > 60 || opt.warmup < 0 || opt.gbps <= 0 || opt.size < 16 ||
	    opt.size > (4u << 20) || opt.depth == 0 || opt.depth > 64 || opt.mtu < 256 ||
	    opt.mtu > 4096)
		usage();
}

int main(int argc, char **argv)
{
	struct ccl *lab;
	int ret = rte_eal_init(argc, argv);

	if (ret < 0)
		rte_exit(EXIT_FAILURE, "cc-bench: EAL init failed\n");
	parse_args(argc - ret, argv + ret);
	add("baseline-write", K_BASE, CCL_WRITE, 0);
	add("baseline-send", K_BASE, CCL_SEND, 0);
	add("pfc", K_PFC, CCL_WRITE, 0);
	add("dcqcn", K_DCQCN, CCL_WRITE, 0);
	add("loss0.1-write", K_LOSS, CCL_WRITE, 0.001);
	add("loss0.1-send", K_LOSS, CCL_SEND, 0.001);
	add("loss1-write", K_LOSS, CCL_WRITE, 0.01);
	add("loss1-send", K_LOSS, CCL_SEND, 0.01);
	lab = ccl_create(2);
	if (!lab)
		rte_exit(EXIT_FAILURE, "cc-bench: lab: %s\n", rte_strerror(rte_errno));
	for (unsigned i = 0; i < nsc; i++) {
		struct scen *x = &sc[i];
		int rc;

		if (!wanted(x->s.name))
			continue;
		rc = ccl_run(lab, &x->s, &x->r);
		if (rc != 0) {
			fprintf(stderr, "cc-bench: %s: %s\n", x->s.name, strerror(-rc));
			continue;
		}
		x->ran = true;
		for (unsigned j = 0; j < nsc; j++)
			if (sc[j].ran && sc[j].kind == K_BASE && sc[j].s.op == x->s.op &&
			    sc[j].r.gbps > 0)
				x->ratio = x->r.gbps / sc[j].r.gbps;
		fprintf(stderr, "cc-bench: %s: %s %.3f Gbit/s\n", x->s.name,
			x->r.ok ? "ok" : x->r.why, x->r.gbps);
		if (x->kind == K_DCQCN) {
			FILE *m = open_memstream(&series_json, &series_len);

			if (m) {
				ccs_write_json(ccl_switch(lab), m);
				fclose(m);
			}
			if (opt.plot)
				plot(ccl_switch(lab), x, ccl_window_start(lab));
		}
	}
	print_table();
	if (opt.json) {
		if (write_json(opt.json) != 0)
			fprintf(stderr, "cc-bench: cannot write %s\n", opt.json);
		else
			printf("cc-bench: JSON in %s\n", opt.json);
	}
	free(series_json);
	ccl_destroy(lab);
	rte_eal_cleanup();
	return 0;
}
