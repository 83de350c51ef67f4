/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-perf - perftest (linux-rdma/perftest 4.5, which reports version 6.06) on droce: the
 * RDMA WRITE/READ/SEND/atomic bandwidth and WRITE/READ/SEND latency tests, with perftest's
 * options, its out-of-band exchange (TCP, or rdma_cm with -R) byte for byte, its traffic
 * patterns and its printed output, so that either side can be ib_write_bw & co. on a Linux
 * host.
 *
 * Usage: droce-perf [EAL args --] TEST --droce-config=FILE [perftest options] [server]
 *        TEST is write_bw, read_bw, send_bw, atomic_bw, write_lat, read_lat or send_lat; a
 *        link named ib_<TEST> (ib_write_bw, ...) to droce-perf selects the test by its name.
 *
 * This file: options (perftest's parser() and force_dependecies() for what droce-perf
 * supports), the buffer plan, verbs set-up and teardown, and main(). The parts are listed
 * in droce-perf.h.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "app_start.h"
#include "droce-perf.h"
#include "roce_cm_wire.h"
#include "stk_config.h"
#include "stk_stack.h"

struct perf_state perf = {.listen_fd = -1, .sock_fd = -1};

#define PERF_TEST_NAME_(e, n, v, b) [PERF_##e] = n,
static const char *const test_names[] = {PERF_TEST_LIST(PERF_TEST_NAME_)};
#define PERF_TEST_VERB_(e, n, v, b) [PERF_##e] = v,
static const enum perf_verb test_verbs[] = {PERF_TEST_LIST(PERF_TEST_VERB_)};
#define PERF_TEST_BW_(e, n, v, b) [PERF_##e] = b,
static const bool test_bw[] = {PERF_TEST_LIST(PERF_TEST_BW_)};

const char *perf_test_name(enum perf_test t)
{
	return (unsigned)t < PERF_NUM_TESTS ? test_names[t] : "?";
}

static void on_signal(int sig)
{
	(void)sig;
	stk_stop();
}

/* ------------------------------------------------------------------ the buffer plan */

uint64_t perf_inc(uint64_t size)
{
	uint64_t cl = perf.p.cache_line_size;

	return size > cl ? (size + cl - 1) / cl * cl : cl;
}

uint64_t perf_slots(uint64_t size)
{
	return size <= perf.p.cycle_buffer / 2 ? perf.p.cycle_buffer / perf_inc(size) : 1;
}

uint8_t *perf_local_area(uint32_t qp)
{
	return perf.buf + (uint64_t)qp * perf.lay.buff;
}

uint8_t *perf_remote_area(uint32_t qp)
{
	return perf.buf + (uint64_t)(perf.p.num_qps + qp) * perf.lay.buff;
}

uint8_t *perf_recv_area(uint32_t qp)
{
	return perf.buf + (uint64_t)(perf.p.num_qps + qp) * perf.lay.inc_buff;
}

/* alloc_ctx(): each QP has an area of BUFF_SIZE(size, cycle buffer) to send from and one the
 * peer addresses (the second half), each rounded to the cache line; sized for the largest
 * size we will run. */
int perf_plan_layout(void)
{
	struct perf_layout *l = &perf.lay;
	uint64_t cl = perf.p.cache_line_size;

	if (perf.p.cycle_buffer > PERF_MAX_CYCLE || cl > PERF_MAX_CACHE_LINE || cl == 0 ||
	    perf.p.cycle_buffer == 0) {
		fprintf(stderr,
			"droce-perf: page size %u / cache line %u agreed with the peer are "
			"beyond what droce-perf planned for (%u / %u)\n",
			perf.p.cycle_buffer, (unsigned)cl, PERF_MAX_CYCLE, PERF_MAX_CACHE_LINE);
		return -EINVAL;
	}
	l->buff = RTE_MAX(perf.p.max_size, (uint64_t)perf.p.cycle_buffer);
	l->inc_buff = l->buff > cl ? (l->buff + cl - 1) / cl * cl : cl;
	l->total = l->inc_buff * 2 * perf.p.num_qps;
	if (l->total > perf.buf_len)
		return -ENOMEM;
	return 0;
}

void perf_fill_buffers(void)
{
	const struct perf_params *p = &perf.p;
	bool write_lat = p->test == PERF_WRITE_LAT;

	if (!p->verify) {
		/* create_single_mr(): random bytes, zeros for ib_write_lat (it polls the last
		 * byte for the iteration number) */
		if (write_lat) {
			memset(perf.buf, 0, perf.buf_len);
		} else {
			for (uint64_t i = 0; i + 8 <= perf.buf_len; i += 8) {
				uint64_t r = rte_rand();

				memcpy(perf.buf + i, &r, 8);
			}
		}
		return;
	}
	/* --droce-verify: what a sender sends is perf_pattern() of its offset; what is READ
	 * is the server's pattern; destinations start at zero */
	memset(perf.buf, 0, perf.buf_len);
	for (uint32_t q = 0; q < p->num_qps; q++) {
		uint8_t *a = perf_local_area(q);

		if (p->verb == PERF_VERB_READ) {
			if (p->servername)
				continue; /* the client READs into zeros */
			a = perf_remote_area(q);
		}
		for (uint64_t o = 0; o < perf.lay.buff; o++)
			a[o] = perf_pattern(q, o);
	}
}

/* ------------------------------------------------------------------ options */

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage:\n"
		"  %s [EAL args --] TEST --droce-config=FILE [options]         start a server and "
		"wait for connection\n"
		"  %s [EAL args --] TEST --droce-config=FILE [options] <host>  connect to server "
		"at <host>\n"
		"  TEST: write_bw read_bw send_bw atomic_bw write_lat read_lat send_lat; a link "
		"named\n"
		"  ib_<TEST> (ib_write_bw, ...) to droce-perf selects the test by its own name.\n"
		"\n"
		"perftest 4.5 (version " PERF_VERSION
		") on the droce stack: the same exchange (TCP, "
		"or rdma_cm with -R),\n"
		"traffic and output, so either side can be perftest on a Linux host.\n"
		"Options:\n"
		"      --droce-config=<file> droce INI configuration (docs/config.md); required\n"
		"      --droce-verify     patterned buffers, checked after each run (both sides "
		"droce-perf,\n"
		"                         same -s/-n/-a/-q; iterations mode)\n"
		"  -a, --all              Run sizes from 2 till 2^23 (not atomic_bw)\n"
		"  -A, --atomic_type=<type> CMP_AND_SWAP or FETCH_AND_ADD (default FETCH_AND_ADD)\n"
		"  -c, --connection=RC    Connection type (only RC)\n"
		"  -d, --ib-dev=<dev>     droceN or the config section (default droce0)\n"
		"  -D, --duration=<sec>   Run for <sec> seconds instead of -n iterations\n"
		"  -f, --margin=<sec>     Duration mode: margin before and after sampling\n"
		"  -F, --CPU-freq         Accepted (droce-perf measures with the TSC)\n"
		"  -h, --help             this text\n"
		"  -i, --ib-port=<port>   Use port <port> of the device (only 1)\n"
		"  -I, --inline_size=<size> Max size of message to be sent inline (up to %d)\n"
		"  -m, --mtu=<mtu>        MTU size: 256 - 4096 (default port mtu)\n"
		"  -n, --iters=<iters>    Number of exchanges (at least 5)\n"
		"  -N, --noPeak           Don't measure the peak bandwidth\n"
		"  -o, --outs=<num>       outstanding reads/atomics (default and max %d)\n"
		"  -p, --port=<port>      Listen on/connect to port <port> (default %d)\n"
		"  -q, --qp=<num>         Num of QPs running in the process (BW tests, up to %d)\n"
		"  -Q, --cq-mod           Generate a completion every <n> WRs (BW tests)\n"
		"  -r, --rx-depth=<dep>   Rx queue size (SEND tests)\n"
		"  -R, --rdma_cm          Connect QPs with rdma_cm and run the exchange over it\n"
		"  -s, --size=<size>      Size of message to exchange (K/M suffixes)\n"
		"  -S, --sl=<sl>          SL (sent as the 802.1Q priority)\n"
		"  -t, --tx-depth=<dep>   Size of tx queue\n"
		"  -u, --qp-timeout=<t>   QP timeout: 4.096 usec * 2^t (default 14)\n"
		"  -V, --version          Display version number\n"
		"  -x, --gid-index=<idx>  0 link-local IPv6, 1 IPv4-mapped, 2 global IPv6\n"
		"      --report_gbits     Report bandwidth in Gb/sec instead of MB/sec\n"
		"      --out_json         Save the report in a JSON file (latency tests; perftest's\n"
		"                         keys, and droce's percentiles per size under \"droce\")\n"
		"      --out_json_file=<file> Name of the JSON file (default " PERF_JSON_FILE ")\n"
		"      --droce-percentiles latency tests: after perftest's table, a second one with\n"
		"                         p50 p90 p99 p99.9 p99.99 max (log-linear histogram)\n"
		"Exit status: 0 success; 1 the exchange, a transfer or --droce-verify failed;\n"
		"2 bad arguments or configuration; 3 stack start-up failed.\n",
		prog, prog, ROCE_MAX_INLINE, ROCE_MAX_RD_ATOMIC, PERF_DEF_PORT, PERF_MAX_QPS);
}

/* perftest's CHECK_VALUE_IN_RANGE: an integer in [min, max] or a message and -1 */
static int num_in(const char *what, const char *v, long min, long max, long *out)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(v, &end, 0);
	if (errno || end == v || *end) {
		fprintf(stderr, " %s argument %s should be an integer\n", what, v);
		return -1;
	}
	if (x < min || x > max) {
		fprintf(stderr, " %s should be between %ld and %ld\n", what, min, max);
		return -1;
	}
	*out = x;
	return 0;
}

/* -s: a number with an optional K or M suffix, 1 .. UINT_MAX/2 (perftest parser()) */
static int parse_size(const char *v, uint64_t *out)
{
	char copy[32], *end;
	size_t n = strlen(v);
	uint64_t factor = 1;
	long x;

	if (n == 0 || n >= sizeof(copy))
		goto bad;
	memcpy(copy, v, n + 1);
	if (copy[n - 1] == 'K') {
		factor = 1024;
		copy[n - 1] = '\0';
	} else if (copy[n - 1] == 'M') {
		factor = 1024 * 1024;
		copy[n - 1] = '\0';
	}
	errno = 0;
	x = strtol(copy, &end, 0);
	if (errno || end == copy || *end || x < 1 || (uint64_t)x * factor > UINT_MAX / 2)
		goto bad;
	*out = (uint64_t)x * factor;
	return 0;
bad:
	fprintf(stderr, " Message Size should be between %d and %d\n", 1, UINT_MAX / 2);
	return -1;
}

static int test_by_name(const char *name)
{
	for (int t = 0; t < PERF_NUM_TESTS; t++)
		if (!strcmp(name, test_names[t]))
			return t;
	return -1;
}

/* the test from argv[0] ("ib_write_bw") or from the first argument ("write_bw") */
static int pick_test(int *argc, char ***argv)
{
	char prog[PATH_MAX];
	const char *base;
	int t;

	snprintf(prog, sizeof(prog), "%s", (*argv)[0]);
	base = basename(prog);
	if (!strncmp(base, "ib_", 3) && (t = test_by_name(base + 3)) >= 0)
		return t;
	if (*argc >= 2 && (t = test_by_name((*argv)[1])) >= 0) {
		(*argv)[1] = (*argv)[0];
		(*argc)--;
		(*argv)++;
		return t;
	}
	return -1;
}

/* init_perftest_params(): the defaults that depend on the test */
static void set_defaults(struct perf_params *p, enum perf_test t)
{
	memset(p, 0, sizeof(*p));
	p->test = t;
	p->verb = test_verbs[t];
	p->bw = test_bw[t];
	p->port = PERF_DEF_PORT;
	p->size = p->bw ? 65536 : 2;
	p->tx_depth = p->bw ? 128 : 1;
	p->iters = (p->bw && p->verb == PERF_VERB_WRITE) ? 5000 : 1000;
	p->rx_depth = p->verb == PERF_VERB_SEND ? 512 : 1;
	p->num_qps = 1;
	p->gid_index = -1;
	p->inline_size = -1;
	p->cq_mod = 100;
	p->qp_timeout = 14;
	p->duration = 5;
	p->margin = -1;
	p->atomic_type = PERF_FETCH_AND_ADD;
	p->out_json_file = PERF_JSON_FILE;
	if (p->verb == PERF_VERB_ATOMIC)
		p->size = 8;
	p->cycle_buffer = (uint32_t)sysconf(_SC_PAGESIZE);
	if ((int32_t)p->cycle_buffer <= 0)
		p->cycle_buffer = 4096;
	p->cache_line_size = (uint32_t)sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	if ((int32_t)p->cache_line_size <= 0)
		p->cache_line_size = 64;
}

/* force_dependecies() and the checks of parser() for what droce-perf supports */
static int dependencies(struct perf_params *p, int out_reads)
{
	if (!p->duration_mode) {
		if (p->tx_depth > p->iters)
			p->tx_depth = p->iters;
		if (p->verb == PERF_VERB_SEND && p->rx_depth > p->iters)
			p->rx_depth = p->iters;
	}
	if (p->size > 8192 && !p->run_all && !p->req_cq_mod)
		p->cq_mod = 1; /* MSG_SIZE_CQ_MOD_LIMIT */
	if (p->cq_mod > p->tx_depth)
		p->cq_mod = p->tx_depth;
	if (p->verb == PERF_VERB_READ || p->verb == PERF_VERB_ATOMIC)
		p->inline_size = 0;
	if (p->run_all)
		p->size = PERF_MAX_SIZE;
	if (p->verb == PERF_VERB_ATOMIC && p->size != 8) {
		printf("---------------------------------------------------------------------------"
		       "------------\n");
		printf("Message size cannot be changed for Atomic tests \n");
		return -1;
	}
	if (p->duration_mode) {
		p->iters = 0;
		p->no_peak = true;
		if (p->run_all) {
			fprintf(stderr, "Duration mode currently doesn't support running on all "
					"sizes.\n");
			return -1;
		}
		if (p->margin < 0)
			p->margin = p->duration / 4;
		if (!(p->duration > 2 * p->margin)) {
			fprintf(stderr, "please check that DURATION > 2*MARGIN\n");
			return -1;
		}
	}
	if (p->verb == PERF_VERB_SEND && p->bw && !p->servername)
		p->no_peak = true;
	/* "WA for a bug when rx_depth is odd in SEND" */
	if (p->verb == PERF_VERB_SEND && (p->rx_depth % 2 == 1) && !p->run_all)
		p->rx_depth += 1;
	if (!p->duration_mode && p->iters > 20000 && p->bw)
		p->no_peak = true;
	/* ctx_set_max_inline() of a device perftest knows: 220 for WRITE latency, 236 for
	 * SEND latency, 0 for bandwidth; droce holds up to ROCE_MAX_INLINE */
	if (p->inline_size < 0) {
		if (p->bw)
			p->inline_size = 0;
		else if (p->verb == PERF_VERB_WRITE)
			p->inline_size = 220;
		else if (p->verb == PERF_VERB_SEND)
			p->inline_size = 236;
		else
			p->inline_size = 0;
	}
	if (p->inline_size > ROCE_MAX_INLINE) {
		printf("  Actual inline-size(%d) > requested inline-size(%d)\n", ROCE_MAX_INLINE,
		       p->inline_size);
		p->inline_size = ROCE_MAX_INLINE;
	}
	/* ctx_set_out_reads(): the device maximum unless asked for less */
	if (p->verb == PERF_VERB_READ || p->verb == PERF_VERB_ATOMIC) {
		if (out_reads > ROCE_MAX_RD_ATOMIC) {
			printf("-------------------------------------------------------------------"
			       "--------------------\n");
			fprintf(stderr, " Number of outstanding reads is above max = %d\n",
				ROCE_MAX_RD_ATOMIC);
			fprintf(stderr, " Changing to that max value\n");
		}
		p->out_reads = out_reads <= 0 || out_reads > ROCE_MAX_RD_ATOMIC
				       ? ROCE_MAX_RD_ATOMIC
				       : (uint32_t)out_reads;
	} else {
		p->out_reads = 1;
	}
	p->max_size = p->size;
	if (p->verify && p->duration_mode) {
		fprintf(stderr, "droce-perf: --droce-verify needs iterations (-n), not -D\n");
		return -1;
	}
	return 0;
}

/* perftest's parser() for the options droce-perf implements. @return 0, 1 (exit 0: -h, -V)
 * or -1 (bad arguments). */
static int parse_args(int argc, char **argv, enum perf_test t)
{
	enum {
		OPT_REPORT_GBITS = 256,
		OPT_CONFIG,
		OPT_VERIFY,
		OPT_OUT_JSON,
		OPT_OUT_JSON_FILE,
		OPT_PERCENTILES,
	};
	static const struct option opts[] = {
		{"port", required_argument, NULL, 'p'},
		{"ib-dev", required_argument, NULL, 'd'},
		{"ib-port", required_argument, NULL, 'i'},
		{"mtu", required_argument, NULL, 'm'},
		{"size", required_argument, NULL, 's'},
		{"iters", required_argument, NULL, 'n'},
		{"tx-depth", required_argument, NULL, 't'},
		{"qp-timeout", required_argument, NULL, 'u'},
		{"sl", required_argument, NULL, 'S'},
		{"gid-index", required_argument, NULL, 'x'},
		{"all", no_argument, NULL, 'a'},
		{"CPU-freq", no_argument, NULL, 'F'},
		{"connection", required_argument, NULL, 'c'},
		{"qp", required_argument, NULL, 'q'},
		{"inline_size", required_argument, NULL, 'I'},
		{"outs", required_argument, NULL, 'o'},
		{"rdma_cm", no_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		{"rx-depth", required_argument, NULL, 'r'},
		{"cq-mod", required_argument, NULL, 'Q'},
		{"noPeak", no_argument, NULL, 'N'},
		{"version", no_argument, NULL, 'V'},
		{"atomic_type", required_argument, NULL, 'A'},
		{"duration", required_argument, NULL, 'D'},
		{"margin", required_argument, NULL, 'f'},
		{"report_gbits", no_argument, NULL, OPT_REPORT_GBITS},
		{"droce-config", required_argument, NULL, OPT_CONFIG},
		{"droce-verify", no_argument, NULL, OPT_VERIFY},
		{"out_json", no_argument, NULL, OPT_OUT_JSON},
		{"out_json_file", required_argument, NULL, OPT_OUT_JSON_FILE},
		{"droce-percentiles", no_argument, NULL, OPT_PERCENTILES},
		{NULL, 0, NULL, 0},
	};
	struct perf_params *p = &perf.p;
	long x, out_reads = 0;
	int c;

	set_defaults(p, t);
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:d:i:m:s:n:t:u:S:x:c:q:I:o:r:Q:A:D:f:aFRNVh", opts,
				NULL)) != -1) {
		switch (c) {
		case 'p':
			if (num_in("Port", optarg, 1, 65535, &x))
				return -1;
			p->port = (uint16_t)x;
			break;
		case 'd':
			p->ib_dev = optarg;
			break;
		case 'i':
			if (num_in("IB Port", optarg, 1, 1, &x))
				return -1;
			break;
		case 'm':
			if (num_in("MTU", optarg, 0, INT_MAX, &x))
				return -1;
			p->mtu_req = (int)x;
			break;
		case 's':
			if (parse_size(optarg, &p->size))
				return -1;
			break;
		case 'n':
			if (num_in("Iteration num", optarg, 5, 100000000, &x))
				return -1;
			p->iters = (uint32_t)x;
			break;
		case 't':
			if (num_in("Tx depth", optarg, 1, 15000, &x))
				return -1;
			p->tx_depth = (uint32_t)x;
			break;
		case 'u':
			if (num_in("QP Timeout", optarg, 0, 31, &x))
				return -1;
			p->qp_timeout = (uint8_t)x;
			break;
		case 'S':
			if (num_in("Service Level", optarg, 0, 15, &x))
				return -1;
			p->sl = (uint8_t)x;
			break;
		case 'x':
			if (num_in("Gid index", optarg, 0, 64, &x))
				return -1;
			p->gid_index = (int)x;
			p->use_gid_user = true;
			break;
		case 'c':
			if (strcmp(optarg, "RC") != 0) {
				fprintf(stderr, " droce-perf runs RC only (-c %s)\n", optarg);
				return -1;
			}
			break;
		case 'q':
			if (!p->bw) {
				fprintf(stderr, " Multiple QPs only available on bw tests\n");
				return -1;
			}
			if (num_in("num of Qps", optarg, 1, PERF_MAX_QPS, &x))
				return -1;
			p->num_qps = (uint32_t)x;
			break;
		case 'I':
			if (num_in("Max inline", optarg, 0, 912, &x))
				return -1;
			if (p->verb == PERF_VERB_READ || p->verb == PERF_VERB_ATOMIC) {
				fprintf(stderr,
					" Inline feature not available on READ/Atomic verbs\n");
				return -1;
			}
			p->inline_size = (int)x;
			break;
		case 'o':
			if (num_in("Outstanding Reads", optarg, INT_MIN, INT_MAX, &out_reads))
				return -1;
			if (p->verb != PERF_VERB_READ && p->verb != PERF_VERB_ATOMIC) {
				fprintf(stderr, " Setting Outstanding reads only available on READ "
						"verb\n");
				return -1;
			}
			break;
		case 'r':
			if (num_in(" Rx depth", optarg, 1, 16384, &x))
				return -1;
			if (p->verb != PERF_VERB_SEND && x > 1) {
				fprintf(stderr, " On RDMA verbs rx depth can be only 1\n");
				return -1;
			}
			p->rx_depth = (uint32_t)x;
			break;
		case 'Q':
			if (num_in("CQ moderation", optarg, 1, 1024, &x))
				return -1;
			p->cq_mod = (uint32_t)x;
			p->req_cq_mod = true;
			break;
		case 'A':
			if (p->verb != PERF_VERB_ATOMIC) {
				fprintf(stderr, " You are not running the atomic_lat/bw test!\n");
				fprintf(stderr,
					" To change the atomic action type, you must run one "
					"of the atomic tests\n");
				return -1;
			}
			if (!strcmp(optarg, "CMP_AND_SWAP")) {
				p->atomic_type = PERF_CMP_AND_SWAP;
			} else if (!strcmp(optarg, "FETCH_AND_ADD")) {
				p->atomic_type = PERF_FETCH_AND_ADD;
			} else {
				fprintf(stderr, " Invalid Atomic type! please choose from "
						"{CMP_AND_SWAP,FETCH_AND_ADD}\n");
				return -1;
			}
			break;
		case 'D':
			if (num_in("Duration period", optarg, 1, INT_MAX, &x))
				return -1;
			p->duration = (int)x;
			p->duration_mode = true;
			break;
		case 'f':
			if (num_in("Margin", optarg, 0, INT_MAX, &x))
				return -1;
			p->margin = (int)x;
			break;
		case 'a':
			if (p->verb == PERF_VERB_ATOMIC) {
				/* perftest accepts -a and then refuses the size */
				printf("-------------------------------------------------------------"
				       "--------------------------\n");
				printf("Message size cannot be changed for Atomic tests \n");
				return -1;
			}
			p->run_all = true;
			break;
		case 'F':
			p->cpu_freq_f = true;
			break;
		case 'R':
			p->rdma_cm = true;
			break;
		case 'N':
			if (!p->bw) {
				fprintf(stderr, " NoPeak only valid for BW tests\n");
				return -1;
			}
			p->no_peak = true;
			break;
		case 'V':
			printf("Version: %s\n", PERF_VERSION);
			return 1;
		case 'h':
			usage(stdout, argv[0]);
			return 1;
		case OPT_REPORT_GBITS:
			p->report_gbits = true;
			break;
		case OPT_CONFIG:
			p->config = optarg;
			break;
		case OPT_VERIFY:
			p->verify = true;
			break;
		case OPT_OUT_JSON:
			p->out_json = true;
			break;
		case OPT_OUT_JSON_FILE:
			p->out_json_file = optarg;
			break;
		case OPT_PERCENTILES:
			p->percentiles = true;
			break;
		default:
			usage(stderr, argv[0]);
			return -1;
		}
	}
	if (optind == argc - 1) {
		p->servername = argv[optind];
	} else if (optind < argc) {
		fprintf(stderr, " Invalid Command line. Please check command rerun \n");
		return -1;
	}
	if (!p->config) {
		fprintf(stderr, "droce-perf: --droce-config=FILE is required (see "
				"conf/example.ini)\n");
		return -1;
	}
	return dependencies(p, (int)out_reads);
}

/* -d: "droceN" names interface N; the config section name ("port0") works too. */
static int pick_iface(const struct stk_config *cfg)
{
	return app_iface_by_name(cfg, perf.p.ib_dev, &perf.p.iface) ? -1 : 0;
}

/* ------------------------------------------------------------------ GIDs and MTU */

/* The GID table, in rxe's order: 0 the link-local address from the MAC, 1 the IPv4-mapped
 * address, 2 the global IPv6 address. Without -x perftest picks the best one
 * (get_best_gid_index(): IPv4-mapped RoCEv2 first). @return 0 or -ENOENT. */
static int pick_gid(void)
{
	const struct stk_iface *ifc = stk_iface_get(perf.p.iface);
	const struct stk_ipaddr *a = NULL;
	int idx = perf.p.gid_index;

	if (!perf.p.use_gid_user)
		idx = ifc->ip4.family == 4 ? 1 : ifc->ip6.family == 6 ? 2 : 0;
	if (idx == 0)
		a = &ifc->ip6_ll;
	else if (idx == 1 && ifc->ip4.family == 4)
		a = &ifc->ip4;
	else if (idx == 2 && ifc->ip6.family == 6)
		a = &ifc->ip6;
	if (!a || !a->family)
		return -ENOENT;
	perf.p.gid_index = idx;
	perf.my_ip = *a;
	return roce_gid_from_ip(a, perf.my_gid);
}

/* The port's active MTU: the largest IB MTU whose packets fit the interface (droce's
 * roce_dev_open() rule: IP + UDP + BTH + the largest extension set + ICRC, sized for IPv6),
 * then set_mtu(): -m if it is an IB MTU no larger than that. */
static void pick_mtu(void)
{
	const struct stk_iface *ifc = stk_iface_get(perf.p.iface);
	uint32_t room = ifc->mtu > 92 ? ifc->mtu - 92u : 0, m = 4096;
	enum roce_mtu active = ROCE_MTU_4096, cur;

	while (m > room && m > 256) {
		m >>= 1;
		active = (enum roce_mtu)(active - 1);
	}
	perf.p.active_mtu = active;
	cur = active;
	if (perf.p.mtu_req) {
		switch (perf.p.mtu_req) {
		case 256:
		case 512:
		case 1024:
		case 2048:
		case 4096:
			cur = (enum roce_mtu)(__builtin_ctz((unsigned)perf.p.mtu_req) - 7);
			break;
		default:
			fprintf(stderr, " Invalid MTU - %d \n", perf.p.mtu_req);
			fprintf(stderr, " Please choose mtu from {256,512,1024,2048,4096}\n");
			fprintf(stderr, " Will run with the port active mtu - %d\n", active);
			break;
		}
		if (cur > active) {
			fprintf(stdout, "Requested mtu is higher than active mtu \n");
			fprintf(stdout, "Changing to active mtu - %d\n", active);
			cur = active;
		}
	}
	perf.p.curr_mtu = cur;
}

/* ------------------------------------------------------------------ verbs */

static struct roce_qp *make_qp(struct roce_cq *scq, struct roce_cq *rcq, uint32_t sw, uint32_t rw,
			       uint32_t inl)
{
	struct roce_qp_init_attr ia;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.qp_type = ROCE_QPT_RC;
	ia.cap.max_send_wr = sw;
	ia.cap.max_recv_wr = rw;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = inl;
	return roce_create_qp(perf.pd, &ia);
}

/* ctx_modify_qp_to_init(): the remote rights the test needs */
static int qp_to_init(struct roce_qp *qp)
{
	struct roce_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = ROCE_QPS_INIT;
	a.port_num = 1;
	switch (perf.p.verb) {
	case PERF_VERB_ATOMIC:
		a.qp_access_flags = ROCE_ACCESS_REMOTE_ATOMIC;
		break;
	case PERF_VERB_READ:
		a.qp_access_flags = ROCE_ACCESS_REMOTE_READ;
		break;
	case PERF_VERB_WRITE:
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE;
		break;
	case PERF_VERB_SEND:
		a.qp_access_flags = ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_LOCAL_WRITE;
		break;
	}
	return roce_modify_qp(
		qp, &a, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_PORT | ROCE_QP_ACCESS_FLAGS);
}

static int setup_verbs(void)
{
	const struct perf_params *p = &perf.p;
	uint32_t access = ROCE_ACCESS_LOCAL_WRITE, nq = p->num_qps;
	uint64_t plan = RTE_MAX(p->max_size, (uint64_t)PERF_MAX_CYCLE);
	uint32_t rx = p->verb == PERF_VERB_SEND ? p->rx_depth : 1;

	/* the device with [dcqcn], its CM (answering MADs; -R connects through it) and a PD,
	 * polled on the main lcore */
	perf.app.iface = p->iface;
	if (app_open_dev(&perf.app) != 0)
		goto fail;
	perf.dev = perf.app.dev;
	perf.cm = perf.app.cm;
	perf.pd = perf.app.pd;
	perf.send_cq = roce_create_cq(perf.dev, p->tx_depth * nq + 16);
	perf.recv_cq = perf.send_cq ? roce_create_cq(perf.dev, rx * nq + 16) : NULL;
	if (!perf.recv_cq)
		goto fail;
	/* the plan: PERF_MAX_CYCLE and PERF_MAX_CACHE_LINE cover any page size and cache
	 * line a peer may bring (check_sys_data() takes the larger) */
	plan = (plan + PERF_MAX_CACHE_LINE - 1) / PERF_MAX_CACHE_LINE * PERF_MAX_CACHE_LINE;
	perf.buf_len = plan * 2 * nq;
	perf.buf = rte_zmalloc("perf_buf", perf.buf_len, 4096);
	if (!perf.buf)
		goto fail;
	switch (p->verb) {
	case PERF_VERB_WRITE:
		access |= ROCE_ACCESS_REMOTE_WRITE;
		break;
	case PERF_VERB_READ:
		access |= ROCE_ACCESS_REMOTE_READ;
		break;
	case PERF_VERB_ATOMIC:
		access |= ROCE_ACCESS_REMOTE_ATOMIC;
		break;
	case PERF_VERB_SEND:
		break;
	}
	perf.mr = roce_reg_mr(perf.pd, perf.buf, perf.buf_len, (uintptr_t)perf.buf, access);
	if (!perf.mr)
		goto fail;
	for (uint32_t i = 0; i < nq; i++) {
		perf.qp[i] = make_qp(perf.send_cq, perf.recv_cq, p->tx_depth, rx,
				     (uint32_t)p->inline_size);
		if (!perf.qp[i])
			goto fail;
		/* rdma_cm moves its QPs itself; perftest's own go to INIT in ctx_init() */
		if (!p->rdma_cm && qp_to_init(perf.qp[i]) != 0) {
			fprintf(stderr, "Failed to modify QP to INIT\n");
			return -1;
		}
	}
	if (p->rdma_cm) {
		/* the comm QP: perftest's create_comm_struct() (RC, tx/rx depth 1, SEND) */
		perf.comm_cq = roce_create_cq(perf.dev, 2 * PERF_COMM_RX + 4);
		perf.comm_buf = rte_zmalloc("perf_comm", PERF_COMM_MSG * (PERF_COMM_RX + 1), 64);
		if (!perf.comm_cq || !perf.comm_buf)
			goto fail;
		perf.comm_mr =
			roce_reg_mr(perf.pd, perf.comm_buf, PERF_COMM_MSG * (PERF_COMM_RX + 1),
				    (uintptr_t)perf.comm_buf, ROCE_ACCESS_LOCAL_WRITE);
		perf.comm_qp = perf.comm_mr ? make_qp(perf.comm_cq, perf.comm_cq, 2, PERF_COMM_RX,
						      PERF_COMM_MSG)
					    : NULL;
		if (!perf.comm_qp)
			goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "droce-perf: couldn't create the device, PD, CQs, QPs or buffers: %s\n",
		rte_strerror(rte_errno));
	return -1;
}

static void teardown_verbs(void)
{
	for (uint32_t i = 0; i < PERF_MAX_QPS; i++)
		if (perf.qp[i])
			roce_destroy_qp(perf.qp[i]);
	if (perf.comm_qp)
		roce_destroy_qp(perf.comm_qp);
	if (perf.send_cq)
		roce_destroy_cq(perf.send_cq);
	if (perf.recv_cq)
		roce_destroy_cq(perf.recv_cq);
	if (perf.comm_cq)
		roce_destroy_cq(perf.comm_cq);
	/* after stk_run(): frames still queued are sent by polling the main lcore */
	if (perf.mr)
		roce_dereg_mr_drain(perf.mr, stk_lcore_get(rte_get_main_lcore()), 100000);
	if (perf.comm_mr)
		roce_dereg_mr_drain(perf.comm_mr, stk_lcore_get(rte_get_main_lcore()), 100000);
	/* the PD, the CM and the device go with app_stop() */
}

/* the time stamps the runs record (alloc_ctx(): one per WR unless the peak is not sought) */
static int alloc_stamps(void)
{
	const struct perf_params *p = &perf.p;
	uint64_t n = 1;

	if (p->bw && !p->no_peak)
		n = (uint64_t)p->iters * p->num_qps;
	else if (!p->bw && !p->duration_mode)
		n = p->iters;
	perf.run.n_stamps = n;
	perf.run.tposted = rte_zmalloc("perf_tposted", n * sizeof(uint64_t), 0);
	perf.run.tcompleted = rte_zmalloc("perf_tcompleted", n * sizeof(uint64_t), 0);
	return perf.run.tposted && perf.run.tcompleted ? 0 : -ENOMEM;
}

static void *control_thread(void *arg)
{
	(void)arg;
	perf.ctl_status = perf_script();
	/* close the TCP connection while the stack still runs, so that its FIN reaches a peer
	 * that would otherwise wait for our next message forever */
	perf_xchg_shutdown();
	__atomic_store_n(&perf.ctl_finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

int main(int argc, char **argv)
{
	int eal_argc, app_argc, status = 1, rc, t;
	char **eal_argv, **app_argv;
	pthread_t tid;
	bool thread = false;

	stk_split_args(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	t = pick_test(&app_argc, &app_argv);
	if (t < 0) {
		if (app_argc >= 2 &&
		    (!strcmp(app_argv[1], "-h") || !strcmp(app_argv[1], "--help"))) {
			usage(stdout, app_argv[0]);
			return 0;
		}
		fprintf(stderr,
			"droce-perf: name the test first: write_bw, read_bw, send_bw, "
			"atomic_bw, write_lat, read_lat or send_lat (or run as ib_<test>)\n");
		return 2;
	}
	rc = parse_args(app_argc, app_argv, (enum perf_test)t);
	if (rc)
		return rc > 0 ? 0 : 2;
	/* the shared start-up, with perftest's exit statuses kept: 2 for the configuration, 3
	 * for the stack; -d is looked up before the EAL starts */
	perf.app.prog = "droce-perf";
	perf.app.config = perf.p.config;
	if (app_load_config(&perf.app) != 0 || pick_iface(&perf.app.cfg) != 0)
		return 2;
	rc = app_start_stack(&perf.app, argv[0], eal_argc, eal_argv);
	if (rc != 0) {
		app_stop(&perf.app);
		return rc == APP_EXIT_CONFIG ? 2 : 3;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	srand48((long)getpid() * (long)time(NULL));
	if (pick_gid() != 0) {
		fprintf(stderr, "can't read sgid of index %d\n", perf.p.gid_index);
		goto out;
	}
	pick_mtu();
	if (setup_verbs() != 0 || alloc_stamps() != 0)
		goto out;
	if (!perf.p.servername) {
		if (perf.p.rdma_cm) {
			/* one listener for the comm connection and then the test ones (perftest
			 * listens twice on the same port, one after the other) */
			perf.listen_id = roce_cm_create_id(perf.cm, ROCE_CM_PS_TCP, NULL);
			if (!perf.listen_id ||
			    roce_cm_listen(perf.listen_id, perf.p.port, (int)perf.p.num_qps + 1)) {
				fprintf(stderr, " rdma_listen failed\n");
				goto out;
			}
		} else if (perf_tcp_listen() != 0) {
			goto out;
		}
	}
	rc = rte_ctrl_thread_create(&tid, "perf-ctl", NULL, control_thread, NULL);
	if (rc != 0) {
		fprintf(stderr, "droce-perf: cannot start the control thread: %s\n", strerror(rc));
		goto out;
	}
	thread = true;
	stk_lcore_add_poll(stk_lcore_get(rte_get_main_lcore()), perf_lcore_poll, NULL);
	stk_run();
	status = __atomic_load_n(&perf.ctl_finished, __ATOMIC_ACQUIRE) ? perf.ctl_status : 1;
out:
	stk_stop(); /* the control thread, if still waiting, watches for it */
	if (thread)
		pthread_join(tid, NULL);
	if (thread && !perf.ctl_finished)
		status = 1;
	perf_xchg_shutdown();
	perf_lcore_release();
	teardown_verbs();
	rte_free(perf.buf);
	rte_free(perf.comm_buf);
	rte_free(perf.run.tposted);
	rte_free(perf.run.tcompleted);
	app_stop(&perf.app); /* CM, PD, stack, device, EAL */
	return status;
}
