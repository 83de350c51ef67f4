/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsperf_opts.c - droce-nfsperf's command line: fio's option names (rw, rwmixread, bs, iodepth,
 * numjobs, size, runtime, time_based, nrfiles, verify, verify_interval, sync, fsync, unlink,
 * nfs-version (or vers=, as mount(8) spells it),
 * output-format, group_reporting, eta, randseed, write_iops_log, write_lat_log), as --key=value
 * or as fio's bare key=value words, and droce's own (config, server, export, transport, ports,
 * credential, inline size, timeouts, lanes, plot). docs/nfsperf.md lists them.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_start.h"
#include "nfsperf.h"

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v = strtod(s, &end);
	uint64_t m = 1;

	if (end == s || v < 0)
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		m = 1024;
		break;
	case 'm':
	case 'M':
		m = 1024 * 1024;
		break;
	case 'g':
	case 'G':
		m = 1024ull * 1024 * 1024;
		break;
	case 0:
		break;
	default:
		return -1;
	}
	*out = (uint64_t)(v * (double)m);
	return 0;
}

/* A whole number from 1 to max, the whole of s. @return true with *out set */
static bool parse_count(const char *s, unsigned long max, uint32_t *out)
{
	char *end;
	unsigned long n = strtoul(s, &end, 0);

	if (*s == 0 || *end != 0 || n < 1 || n > max)
		return false;
	*out = (uint32_t)n;
	return true;
}

static int parse_rw(const char *s)
{
	static const char *const n[] = {"read", "write", "randread", "randwrite", "rw", "randrw"};

	if (!strcmp(s, "readwrite"))
		return NP_RW_RW;
	for (int i = 0; i < 6; i++)
		if (!strcmp(s, n[i]))
			return i;
	return -1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: droce-nfsperf [EAL args --] [--config FILE] --server IP [--export PATH]\n"
		"       [--nfs-version 3|4.1 (or vers=)]\n"
		"       [--transport rdma|tcp] [--port N] [--mount-port N] [--name NAME]\n"
		"       [--rw read|write|randread|randwrite|rw|randrw] [--rwmixread PCT] [--bs N]\n"
		"       [--iodepth N] [--numjobs N] [--size N] [--runtime S] [--time_based]\n"
		"       [--nrfiles N] [--verify md5|crc32c|0] [--verify_interval N] [--sync 0|1]\n"
		"       [--fsync N] [--unlink 0|1] [--output-format normal|json] [--output FILE]\n"
		"       [--group_reporting] [--eta auto|always|never] [--randseed N]\n"
		"       [--uid N] [--gid N] [--inline N] [--timeout-ms N] [--ack-timeout 1..31]\n"
		"       [--lanes N] [--nconnect N]\n"
		"       [--verify-print N]\n"
		"       [--write_iops_log PREFIX] [--write_lat_log PREFIX] [--plot PREFIX]\n"
		"   fio's key=value form works too: droce-nfsperf rw=randrw bs=4k ...\n");
}

int np_opts_parse(struct np_opts *op, int argc, char **argv)
{
	enum {
		O_PORT = 256,
		O_MPORT,
		O_INLINE,
		O_TMO,
		O_ACKTMO,
		O_VPRINT,
		O_VINT,
		O_IOPSLOG,
		O_LATLOG,
		O_PLOT,
		O_VERS,
		O_LANES,
		O_NCONNECT
	};
	static const struct option opts[] = {{"server", 1, NULL, 's'},
					     {"export", 1, NULL, 'e'},
					     {"transport", 1, NULL, 't'},
					     {"port", 1, NULL, O_PORT},
					     {"mount-port", 1, NULL, O_MPORT},
					     {"name", 1, NULL, 'n'},
					     {"rw", 1, NULL, 'r'},
					     {"readwrite", 1, NULL, 'r'},
					     {"rwmixread", 1, NULL, 'M'},
					     {"bs", 1, NULL, 'b'},
					     {"iodepth", 1, NULL, 'd'},
					     {"numjobs", 1, NULL, 'j'},
					     {"size", 1, NULL, 'S'},
					     {"runtime", 1, NULL, 'T'},
					     {"time_based", 0, NULL, 'B'},
					     {"nrfiles", 1, NULL, 'F'},
					     {"verify", 1, NULL, 'v'},
					     {"sync", 1, NULL, 'y'},
					     {"fsync", 1, NULL, 'Y'},
					     {"unlink", 1, NULL, 'u'},
					     {"output-format", 1, NULL, 'f'},
					     {"output", 1, NULL, 'o'},
					     {"group_reporting", 0, NULL, 'G'},
					     {"eta", 1, NULL, 'E'},
					     {"randseed", 1, NULL, 'R'},
					     {"uid", 1, NULL, 'U'},
					     {"gid", 1, NULL, 'g'},
					     {"inline", 1, NULL, O_INLINE},
					     {"timeout-ms", 1, NULL, O_TMO},
					     {"ack-timeout", 1, NULL, O_ACKTMO},
					     {"lanes", 1, NULL, O_LANES},
					     {"nconnect", 1, NULL, O_NCONNECT},
					     {"verify-print", 1, NULL, O_VPRINT},
					     {"verify_interval", 1, NULL, O_VINT},
					     {"write_iops_log", 1, NULL, O_IOPSLOG},
					     {"write_lat_log", 1, NULL, O_LATLOG},
					     {"plot", 1, NULL, O_PLOT},
					     {"nfs-version", 1, NULL, O_VERS},
					     {"vers", 1, NULL, O_VERS},
					     {"help", 0, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	uint64_t v;
	int o, rw;

	/* fio's bare words (key=value, time_based) become --key=value, --time_based */
	for (int i = 1; i < argc; i++)
		if (argv[i][0] != '-' && (strchr(argv[i], '=') || !strcmp(argv[i], "time_based") ||
					  !strcmp(argv[i], "group_reporting"))) {
			char *s = malloc(strlen(argv[i]) + 3);

			if (!s)
				return 1;
			sprintf(s, "--%s", argv[i]);
			argv[i] = s;
		}
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			snprintf(op->server, sizeof(op->server), "%s", optarg);
			if (stk_ipaddr_parse(optarg, &op->server_ip) != 0) {
				fprintf(stderr, "droce-nfsperf: --server needs an IP address\n");
				return APP_EXIT_CONFIG;
			}
			break;
		case 'e':
			op->export = optarg;
			break;
		case 't':
			if (!strcmp(optarg, "rdma"))
				op->xprt = NP_XPRT_RDMA;
			else if (!strcmp(optarg, "tcp"))
				op->xprt = NP_XPRT_TCP;
			else
				goto bad;
			break;
		case O_PORT:
			op->port = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case O_MPORT:
			op->mount_port = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			op->name = optarg;
			break;
		case 'r':
			rw = parse_rw(optarg);
			if (rw < 0)
				goto bad;
			op->rw = (enum np_rw)rw;
			break;
		case 'M':
			op->rwmixread = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'b':
			if (parse_size(optarg, &v) != 0 || v < 512 || v > NP_MAX_BS || v % 512)
				goto bad;
			op->bs = (uint32_t)v;
			break;
		case 'd':
			op->iodepth = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'j':
			op->numjobs = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'S':
			if (parse_size(optarg, &op->size) != 0)
				goto bad;
			break;
		case 'T':
			op->runtime = strtod(optarg, NULL);
			if (strchr(optarg, 'm') && !strchr(optarg, 's'))
				op->runtime *= 60;
			break;
		case 'B':
			op->time_based = true;
			break;
		case 'F':
			op->nrfiles = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'v':
			if (!strcmp(optarg, "md5"))
				op->verify = NP_VERIFY_MD5;
			else if (!strcmp(optarg, "crc32c") || !strcmp(optarg, "crc32c-intel"))
				op->verify = NP_VERIFY_CRC32C;
			else if (!strcmp(optarg, "0") || !strcmp(optarg, "null"))
				op->verify = NP_VERIFY_NONE;
			else
				goto bad;
			break;
		case 'y':
			op->sync = strtoul(optarg, NULL, 0) != 0;
			break;
		case 'Y':
			op->fsync = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'u':
			op->unlink = strtoul(optarg, NULL, 0) != 0;
			break;
		case 'f':
			if (!strcmp(optarg, "json"))
				op->json = true;
			else if (!strcmp(optarg, "normal"))
				op->json = false;
			else
				goto bad;
			break;
		case 'o':
			op->output = optarg;
			break;
		case 'G':
			op->group_reporting = true;
			break;
		case 'E':
			op->eta = !strcmp(optarg, "always") ? 1 : !strcmp(optarg, "never") ? -1 : 0;
			break;
		case 'R':
			op->randseed = strtoull(optarg, NULL, 0);
			break;
		case 'U':
			op->uid = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'g':
			op->gid = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case O_INLINE:
			op->inline_max = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case O_TMO:
			op->timeout_ms = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case O_ACKTMO: {
			uint32_t t;

			if (!parse_count(optarg, 31, &t)) {
				fprintf(stderr,
					"droce-nfsperf: --ack-timeout %s: give the RDMA "
					"Local ACK Timeout exponent, 1 to 31 "
					"(4.096 us x 2^N)\n",
					optarg);
				return APP_EXIT_CONFIG;
			}
			op->ack_timeout = (uint8_t)t;
			break;
		}
		case O_LANES:
			if (!parse_count(optarg, NP_MAX_LANES, &op->lanes)) {
				fprintf(stderr,
					"droce-nfsperf: --lanes %s: give the number of lcores the "
					"jobs run on, 1 to %u (the main lcore and the next EAL "
					"lcores)\n",
					optarg, NP_MAX_LANES);
				return APP_EXIT_CONFIG;
			}
			break;
		case O_NCONNECT:
			if (!parse_count(optarg, NP_MAX_NCONNECT, &op->nconnect)) {
				fprintf(stderr,
					"droce-nfsperf: --nconnect %s: give the connections per job, "
					"1 to %u\n",
					optarg, NP_MAX_NCONNECT);
				return APP_EXIT_CONFIG;
			}
			break;
		case O_VPRINT:
			op->verify_print = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case O_IOPSLOG:
			op->iops_log = optarg;
			break;
		case O_LATLOG:
			op->lat_log = optarg;
			break;
		case O_PLOT:
			op->plot = optarg;
			break;
		case O_VERS:
			if (!strcmp(optarg, "3"))
				op->v41 = false;
			else if (!strcmp(optarg, "4.1"))
				op->v41 = true;
			else
				goto bad;
			break;
		case O_VINT:
			if (parse_size(optarg, &v) != 0 || v < 2 * NP_VHDR_LEN || v > NP_MAX_BS)
				goto bad;
			op->verify_interval = (uint32_t)v;
			break;
		case 'h':
			usage();
			exit(0);
		default:
			usage();
			return APP_EXIT_CONFIG;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "droce-nfsperf: unexpected '%s'\n", argv[optind]);
		return APP_EXIT_CONFIG;
	}
	if (!op->server[0] || !op->iodepth || op->iodepth > NP_MAX_DEPTH || !op->numjobs ||
	    op->numjobs > NP_MAX_JOBS || !op->nrfiles || op->nrfiles > NP_MAX_FILES ||
	    op->rwmixread > 100) {
		fprintf(stderr,
			"droce-nfsperf: --server is needed; iodepth 1..%u, numjobs 1..%u, "
			"nrfiles 1..%u, rwmixread 0..100\n",
			NP_MAX_DEPTH, NP_MAX_JOBS, NP_MAX_FILES);
		usage();
		return APP_EXIT_CONFIG;
	}
	if (!op->port)
		op->port = op->xprt == NP_XPRT_RDMA ? 20049 : 2049;
	if (!(op->size / op->nrfiles / op->bs)) {
		fprintf(stderr, "droce-nfsperf: size must hold at least one bs per file\n");
		return APP_EXIT_CONFIG;
	}
	if (op->verify_interval && op->bs % op->verify_interval) {
		fprintf(stderr, "droce-nfsperf: bs must be a multiple of verify_interval\n");
		return APP_EXIT_CONFIG;
	}
	return 0;
bad:
	fprintf(stderr, "droce-nfsperf: bad value '%s'\n", optarg);
	usage();
	return APP_EXIT_CONFIG;
}
