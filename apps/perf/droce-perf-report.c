/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-perf-report.c - perftest's printed output (perftest_parameters.c and
 * perftest_communication.c): the test information block (ctx_print_test_info()), the
 * local/remote address lines (ctx_print_pingpong_data()), the result table headers and
 * lines, and the numbers behind them (print_report_bw(), print_full_bw_report(),
 * print_report_lat(), print_report_lat_duration()), computed from the TSC stamps the lcore
 * recorded. Same columns, widths and tabs, so scripts that parse perftest parse us.
 *
 * Beyond perftest, for the latency tests: every size's samples also go into a log-linear
 * histogram (stk_hist.h), whose p50, p90, p99, p99.9, p99.99 and max are printed as a second
 * table after perftest's (--droce-percentiles) and kept in the JSON (--out_json, perftest's
 * file and keys, with droce's rows under "droce"). Those percentiles cover all iters - 1
 * samples, the two largest that perftest leaves out of its columns included; like perftest's
 * columns they are one-way for SEND and WRITE (half the round trip) and the round trip for
 * READ.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "droce-perf.h"
#include "stk_hist.h"

#define RESULT_LINE                                                                                \
	"---------------------------------------------------------------------------------------\n"
#define RESULT_FMT                                                                                 \
	" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
#define RESULT_FMT_G                                                                               \
	" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
#define RESULT_FMT_LAT                                                                             \
	" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "    \
	"t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] "
#define RESULT_FMT_LAT_DUR " #bytes        #iterations       t_avg[usec]    tps average"
#define REPORT_FMT " %-7lu    %-10" PRIu64 "       %-7.2lf            %-7.2lf\t\t   %-7.6lf"
#define REPORT_FMT_EXT                                                                             \
	" %-7lu    %" PRIu64 "           %-7.6lf            %-7.6lf            %-7.6lf"
#define REPORT_FMT_LAT                                                                             \
	" %-7lu %" PRIu64                                                                          \
	"          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t"             \
	"%-7.2f \t\t%-7.2f"
#define REPORT_FMT_LAT_DUR " %-7lu       %" PRIu64 "            %-7.2f        %-7.2f"
#define LAT_MEASURE_TAIL 2
#define RESULT_FMT_PCT                                                                             \
	" #bytes #iterations    p50[usec]    p90[usec]    p99[usec]  p99.9[usec] p99.99[usec]    " \
	"max[usec]"
#define REPORT_FMT_PCT " %-7lu %-11" PRIu64 " %-12.2f %-12.2f %-12.2f %-12.2f %-12.2f %-12.2f"

/* One latency row: perftest's columns and the histogram's, in usec. */
struct lat_row {
	uint64_t size, iters;
	bool duration;
	double t_min, t_max, typical, avg, stdev, p99, p999; /**< perftest's columns */
	double tps;					     /**< duration mode */
	uint64_t n;					     /**< samples in the histogram */
	double h_min, h_mean, h_stdev, h_max, h_pct[5];	     /**< p50 p90 p99 p99.9 p99.99 */
};

static const double pcts[5] = {50, 90, 99, 99.9, 99.99};
static const char *const pct_names[5] = {"p50", "p90", "p99", "p99.9", "p99.99"};
static struct lat_row rows[PERF_MAX_LAT_ROWS];
static unsigned nrows;

static void write_json(void);

static const char *const verb_names[] = {"Send", "RDMA_Write", "RDMA_Read", "Atomic"};

static struct lat_row *next_row(void)
{
	struct lat_row *r = &rows[nrows < PERF_MAX_LAT_ROWS ? nrows++ : PERF_MAX_LAT_ROWS - 1];

	memset(r, 0, sizeof(*r));
	return r;
}

void perf_print_line(void)
{
	printf(RESULT_LINE);
	fflush(stdout);
}

void perf_print_waiting(void)
{
	printf("\n************************************\n");
	printf("* Waiting for client to connect... *\n");
	printf("************************************\n");
	fflush(stdout);
}

/* ctx_print_test_info(), with droce's answers to its questions */
void perf_print_test_info(void)
{
	const struct perf_params *p = &perf.p;
	char dev[32];

	snprintf(dev, sizeof(dev), "%s", p->ib_dev ? p->ib_dev : "droce0");
	if (!p->ib_dev)
		snprintf(dev, sizeof(dev), "droce%u", p->iface);
	printf(RESULT_LINE);
	printf("                    ");
	printf("%s ", verb_names[p->verb]);
	if (p->verb == PERF_VERB_ATOMIC)
		printf("%s ",
		       p->atomic_type == PERF_FETCH_AND_ADD ? "FETCH_AND_ADD" : "CMP_AND_SWAP");
	printf(p->bw ? "BW " : "Latency ");
	printf("Test\n");
	printf(" Dual-port       : %s\t\tDevice         : %s\n", "OFF", dev);
	printf(" Number of qps   : %u\t\tTransport type : %s\n", p->num_qps, "IB");
	printf(" Connection type : %s\t\tUsing SRQ      : %s\n", "RC", "OFF");
	printf(" PCIe relax order: %s\n", "Unsupported");
	printf(" ibv_wr* API     : %s\n", "OFF");
	if (p->servername)
		printf(" TX depth        : %u\n", p->tx_depth);
	if (p->verb == PERF_VERB_SEND && !p->servername)
		printf(" RX depth        : %u\n", p->rx_depth);
	if (p->bw)
		printf(" CQ Moderation   : %u\n", p->cq_mod);
	printf(" Mtu             : %u[B]\n", roce_mtu_bytes(p->curr_mtu));
	printf(" Link type       : %s\n", "Ethernet");
	printf(" GID index       : %d\n", p->gid_index);
	if (p->verb != PERF_VERB_READ && p->verb != PERF_VERB_ATOMIC)
		printf(" Max inline data : %d[B]\n", p->inline_size);
	else
		printf(" Outstand reads  : %u\n", p->out_reads);
	printf(" rdma_cm QPs\t : %s\n", p->rdma_cm ? "ON" : "OFF");
	printf(" Data ex. method : %s", p->rdma_cm ? "rdma_cm" : "Ethernet");
	if (p->rdma_cm && !p->servername) {
		putchar('\n');
		printf(RESULT_LINE);
		printf(" Waiting for client rdma_cm QP to connect\n");
		printf(" Please run the same command with the IB/RoCE interface IP");
	}
	putchar('\n');
	printf(RESULT_LINE);
	fflush(stdout);
}

/* ctx_print_pingpong_data(): READ adds the outstanding reads, READ and WRITE the rkey and
 * address; the GID in decimal, as perftest prints it */
void perf_print_dest(const struct perf_dest *d, bool remote)
{
	const uint8_t *g = d->gid;

	printf(" %s address: LID %#04x QPN %#06x PSN %#06x", remote ? "remote" : "local", d->lid,
	       d->qpn, d->psn);
	if (perf.p.verb == PERF_VERB_READ)
		printf(" OUT %#04x", d->out_reads);
	if (perf.p.verb == PERF_VERB_READ || perf.p.verb == PERF_VERB_WRITE)
		printf(" RKey %#08x VAddr %#016llx", d->rkey, (unsigned long long)d->vaddr);
	putchar('\n');
	printf(" %s: %02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d\n",
	       "GID", g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11],
	       g[12], g[13], g[14], g[15]);
	fflush(stdout);
}

void perf_print_result_header(void)
{
	printf(RESULT_LINE);
	if (perf.p.bw)
		printf("%s", perf.p.report_gbits ? RESULT_FMT_G : RESULT_FMT);
	else
		printf("%s", perf.p.duration_mode ? RESULT_FMT_LAT_DUR : RESULT_FMT_LAT);
	printf("\n");
	fflush(stdout);
}

/* print_full_bw_report() without a remote report (unidirectional) */
void perf_print_bw(const struct perf_bw_report *rep)
{
	bool inc_accuracy = rep->bw_avg < 0.1 && perf.p.report_gbits;

	printf(inc_accuracy ? REPORT_FMT_EXT : REPORT_FMT, (unsigned long)rep->size, rep->iters,
	       rep->bw_peak, rep->bw_avg, rep->msg_rate);
	printf("\n");
	fflush(stdout);
}

/* print_report_bw(): the average from the first post to the last completion, the peak from
 * the best (completion - post) / WRs over the signalled completions */
void perf_report_bw(struct perf_bw_report *rep)
{
	const struct perf_params *p = &perf.p;
	const uint64_t *tp = perf.run.tposted, *tc = perf.run.tcompleted;
	double hz = (double)rte_get_tsc_hz();
	double ff = p->report_gbits ? 125000000.0 : 1048576.0; /* Gb/s, or MB/s (0x100000) */
	uint64_t n = p->duration_mode ? perf.run.iters : (uint64_t)p->iters * p->num_qps;
	uint64_t opt_delta = tc[0] - tp[0], last = p->no_peak ? 0 : (n ? n - 1 : 0), sum;
	double peak = 0;

	if (!p->no_peak && n) {
		uint64_t cq_mod = p->cq_mod;

		for (uint64_t i = 0; i < n; i++) {
			uint64_t j =
				(i + 1) % cq_mod == 0 ? i : ((i + 1) / cq_mod + 1) * cq_mod - 1;

			for (; j < n; j += cq_mod) {
				uint64_t t = (tc[j] - tp[i]) / (j - i + 1);

				if (t < opt_delta)
					opt_delta = t;
			}
			/* a completion explicitly signalled for the last WR */
			if (n % cq_mod) {
				uint64_t t = (tc[n - 1] - tp[i]) / (n - 1 - i + 1);

				if (t < opt_delta)
					opt_delta = t;
			}
		}
		if (opt_delta)
			peak = (double)p->size * hz / ((double)opt_delta * ff);
	}
	sum = tc[last] - tp[0];
	if (!sum)
		sum = 1;
	rep->size = p->size;
	rep->iters = n;
	rep->bw_peak = peak;
	rep->bw_avg = (double)p->size * (double)n * hz / ((double)sum * ff);
	rep->msg_rate = (double)n * hz / ((double)sum * 1000000.0);
	perf_print_bw(rep);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* print_report_lat() (iterations) and print_report_lat_duration() */
void perf_report_lat(void)
{
	const struct perf_params *p = &perf.p;
	double mhz = (double)rte_get_tsc_hz() / 1e6;
	int rtt = (p->verb == PERF_VERB_READ || p->verb == PERF_VERB_ATOMIC) ? 1 : 2;
	double q = mhz * rtt, average_sum = 0, average, stdev_sum = 0, latency, stdev;
	uint64_t *delta, median;
	int64_t measure_cnt;
	int64_t iters_99, iters_99_9;
	struct lat_row *row;
	struct stk_hist *h;

	if (p->duration_mode) {
		double sample = (double)(perf.run.tcompleted[0] - perf.run.tposted[0]);
		double it = perf.run.iters ? (double)perf.run.iters : 1;

		latency = sample / mhz / rtt / it;
		row = next_row();
		row->size = p->size;
		row->iters = perf.run.iters;
		row->duration = true;
		row->avg = latency;
		row->tps = (double)perf.run.iters / (sample / (mhz * 1000000.0));
		write_json();
		printf(REPORT_FMT_LAT_DUR, (unsigned long)p->size, perf.run.iters, latency,
		       (double)perf.run.iters / (sample / (mhz * 1000000.0)));
		printf("\n");
		fflush(stdout);
		return;
	}
	measure_cnt = (int64_t)p->iters - 1;
	delta = malloc(sizeof(*delta) * (size_t)measure_cnt);
	if (!delta)
		return;
	h = stk_hist_create(0);
	for (int64_t i = 0; i < measure_cnt; i++) {
		delta[i] = perf.run.tposted[i + 1] - perf.run.tposted[i];
		if (h)
			stk_hist_record(h, delta[i]);
	}
	qsort(delta, (size_t)measure_cnt, sizeof(*delta), cmp_u64);
	measure_cnt -= LAT_MEASURE_TAIL;
	/* get_median() */
	median = (measure_cnt - 1) % 2 ? (delta[measure_cnt / 2] + delta[measure_cnt / 2 - 1]) / 2
				       : delta[measure_cnt / 2];
	for (int64_t i = 0; i < measure_cnt; i++)
		average_sum += (double)delta[i] / q;
	average = average_sum / (double)measure_cnt;
	/* perftest sums the squared deviations as ints: same here, same numbers */
	for (int64_t i = 0; i < measure_cnt; i++) {
		int temp_var = (int)(average - (double)delta[i] / q);
		int pow_var = (int)pow(temp_var, 2);

		stdev_sum += pow_var;
	}
	latency = (double)median / q;
	stdev = sqrt(stdev_sum / (double)measure_cnt);
	iters_99 = (int64_t)ceil((double)measure_cnt * 0.99);
	iters_99_9 = (int64_t)ceil((double)measure_cnt * 0.999);
	row = next_row();
	*row = (struct lat_row){
		.size = p->size,
		.iters = p->iters,
		.t_min = (double)delta[0] / q,
		.t_max = (double)delta[measure_cnt] / q,
		.typical = latency,
		.avg = average,
		.stdev = stdev,
		.p99 = (double)delta[iters_99] / q,
		.p999 = (double)delta[iters_99_9] / q,
	};
	if (h) {
		row->n = stk_hist_count(h);
		row->h_min = (double)stk_hist_min(h) / q;
		row->h_max = (double)stk_hist_max(h) / q;
		row->h_mean = stk_hist_mean(h) / q;
		row->h_stdev = stk_hist_stdev(h) / q;
		for (int k = 0; k < 5; k++)
			row->h_pct[k] = (double)stk_hist_percentile(h, pcts[k]) / q;
		stk_hist_free(h);
	}
	write_json();
	printf(REPORT_FMT_LAT, (unsigned long)p->size, (uint64_t)p->iters, (double)delta[0] / q,
	       (double)delta[measure_cnt] / q, latency, average, stdev, (double)delta[iters_99] / q,
	       (double)delta[iters_99_9] / q);
	printf("\n");
	fflush(stdout);
	free(delta);
}

/* --droce-percentiles: a second table, after perftest's closing line, one row per size */
void perf_print_percentiles(void)
{
	if (!perf.p.percentiles || perf.p.bw || perf.p.duration_mode || nrows == 0)
		return;
	printf(" droce: percentiles of all %s samples per size (log-linear histogram, within 0.2%%)\n",
	       perf.p.verb == PERF_VERB_READ ? "round-trip" : "one-way (RTT/2)");
	printf("%s\n", RESULT_FMT_PCT);
	for (unsigned i = 0; i < nrows; i++) {
		const struct lat_row *r = &rows[i];

		printf(REPORT_FMT_PCT "\n", (unsigned long)r->size, r->n, r->h_pct[0], r->h_pct[1],
		       r->h_pct[2], r->h_pct[3], r->h_pct[4], r->h_max);
	}
	printf(RESULT_LINE);
	fflush(stdout);
}

/* write_test_info_to_file() of perftest: its keys, droce's answers (as in the text header) */
static void json_test_info(FILE *f)
{
	const struct perf_params *p = &perf.p;
	char dev[32];

	if (p->ib_dev)
		snprintf(dev, sizeof(dev), "%s", p->ib_dev);
	else
		snprintf(dev, sizeof(dev), "droce%u", p->iface);
	fprintf(f, "\"test_info\": {\n");
	fprintf(f, "\"test\": \"%s_%s_Test\",\n", verb_names[p->verb], p->bw ? "BW" : "Latency");
	fprintf(f, "\"Dual_port\": \"OFF\",\n\"Device\": \"%s\",\n", dev);
	fprintf(f, "\"Number_of_qps\": %u,\n\"Transport_type\": \"IB\",\n", p->num_qps);
	fprintf(f, "\"Connection_type\": \"RC\",\n\"Using_SRQ\": \"OFF\",\n");
	fprintf(f, "\"PCIe_relax_order\": \"Unsupported\",\n\"ibv_wr_API\": \"OFF\",\n");
	if (p->servername)
		fprintf(f, "\"TX_depth\": %u,\n", p->tx_depth);
	if (p->verb == PERF_VERB_SEND && !p->servername)
		fprintf(f, "\"RX_depth\": %u,\n", p->rx_depth);
	if (p->bw)
		fprintf(f, "\"CQ_Moderation\": %u,\n", p->cq_mod);
	fprintf(f, "\"Mtu\": %u,\n\"Link_type\": \"Ethernet\",\n", roce_mtu_bytes(p->curr_mtu));
	if (p->gid_index != -1)
		fprintf(f, "\"GID_index\": %d,\n", p->gid_index);
	if (p->verb != PERF_VERB_READ && p->verb != PERF_VERB_ATOMIC)
		fprintf(f, "\"Max_inline_data\": %d,\n", p->inline_size);
	else
		fprintf(f, "\"Outstand_reads\": %u,\n", p->out_reads);
	fprintf(f, "\"rdma_cm_QPs\": \"%s\",\n", p->rdma_cm ? "ON" : "OFF");
	fprintf(f, "\"Use_ROCm_memory\": \"OFF\",\n\"Use_MUSA_memory\": \"OFF\",\n");
	fprintf(f, "\"Data_ex_method\": \"%s\"\n},\n", p->rdma_cm ? "rdma_cm" : "Ethernet");
}

/* perftest's REPORT_FMT_LAT_JSON / REPORT_FMT_LAT_DUR_JSON keys for one row */
static void json_perftest_row(FILE *f, const struct lat_row *r)
{
	fprintf(f, "\"MsgSize\": %lu,\n\"n_iterations\": %" PRIu64 ",\n", (unsigned long)r->size,
		r->iters);
	if (r->duration) {
		fprintf(f, "\"t_avg\": %.2f,\n\"tps_average\": %.2f\n", r->avg, r->tps);
		return;
	}
	fprintf(f,
		"\"t_min\": %.2f,\n\"t_max\": %.2f,\n\"t_typical\": %.2f,\n\"t_avg\": %.2f,\n"
		"\"t_stdev\": %.2f,\n\"percentile_99\": %.2f,\n\"percentile_99.9\": %.2f\n",
		r->t_min, r->t_max, r->typical, r->avg, r->stdev, r->p99, r->p999);
}

/*
 * --out_json: perftest's file (test_info and the results of the last size, its keys), and
 * "droce": every size so far with perftest's columns and the histogram's. Rewritten after
 * each size, as perftest rewrites it, so a sweep leaves them all.
 */
static void write_json(void)
{
	const char *path = perf.p.out_json_file;
	FILE *f;

	if (!perf.p.out_json || nrows == 0)
		return;
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "failed to open %s\n", path);
		return;
	}
	fprintf(f, "{\n");
	json_test_info(f);
	fprintf(f, "\"results\": {\n");
	json_perftest_row(f, &rows[nrows - 1]);
	fprintf(f, "},\n\"droce\": {\n\"units\": \"usec\",\n\"one_way\": %s,\n\"rows\": [\n",
		perf.p.verb == PERF_VERB_READ ? "false" : "true");
	for (unsigned i = 0; i < nrows; i++) {
		const struct lat_row *r = &rows[i];

		fprintf(f, "{\n");
		json_perftest_row(f, r);
		if (!r->duration) {
			fprintf(f,
				",\"samples\": %" PRIu64 ", \"min\": %.3f, \"mean\": %.3f, "
				"\"stdev\": %.3f, \"max\": %.3f",
				r->n, r->h_min, r->h_mean, r->h_stdev, r->h_max);
			for (int k = 0; k < 5; k++)
				fprintf(f, ", \"%s\": %.3f", pct_names[k], r->h_pct[k]);
			fprintf(f, "\n");
		}
		fprintf(f, "}%s\n", i + 1 < nrows ? "," : "");
	}
	fprintf(f, "]\n}\n}\n");
	if (fclose(f) != 0)
		fprintf(stderr, "failed to write %s\n", path);
}
