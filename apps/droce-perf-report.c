/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-perf-report.c - perftest's printed output (perftest_parameters.c and
 * perftest_communication.c): the test information block (ctx_print_test_info()), the
 * local/remote address lines (ctx_print_pingpong_data()), the result table headers and
 * lines, and the numbers behind them (print_report_bw(), print_full_bw_report(),
 * print_report_lat(), print_report_lat_duration()), computed from the TSC stamps the lcore
 * recorded. Same columns, widths and tabs, so scripts that parse perftest parse us.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "droce-perf.h"

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

static const char *const verb_names[] = {"Send", "RDMA_Write", "RDMA_Read", "Atomic"};

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

	if (p->duration_mode) {
		double sample = (double)(perf.run.tcompleted[0] - perf.run.tposted[0]);
		double it = perf.run.iters ? (double)perf.run.iters : 1;

		latency = sample / mhz / rtt / it;
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
	for (int64_t i = 0; i < measure_cnt; i++)
		delta[i] = perf.run.tposted[i + 1] - perf.run.tposted[i];
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
	printf(REPORT_FMT_LAT, (unsigned long)p->size, (uint64_t)p->iters, (double)delta[0] / q,
	       (double)delta[measure_cnt] / q, latency, average, stdev, (double)delta[iters_99] / q,
	       (double)delta[iters_99_9] / q);
	printf("\n");
	fflush(stdout);
	free(delta);
}
