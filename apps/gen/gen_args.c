/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_args.c - droce-gen's command line: the options of every mode, their ranges, and which
 * of them go together (droce-gen.h's gen_parse_args()).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "droce-gen.h"
#include "stk_iface.h"

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [EAL args] -- -c FILE [options]\n"
		"UDP datagram endpoint on the droce stack: echo server and/or verifying sender.\n"
		"  -c, --config FILE     droce INI configuration (see docs/config.md); required\n"
		"  -e, --echo PORT       echo datagrams that arrive on UDP PORT\n"
		"  -p, --peer ADDR:PORT  send datagrams to ADDR:PORT ([v6addr]:PORT for IPv6)\n"
		"  -n, --count N         datagrams to send (default 10, max 10000000)\n"
		"  -s, --size BYTES      payload size, 16..MTU-48 (default 64)\n"
		"  -i, --interval-us US  gap between datagrams (default 1000)\n"
		"  -w, --wait-ms MS      wait for echoes after the last send (default 2000)\n"
		"  -r, --resolve-ms MS   give up resolving the peer after MS (default 10000)\n"
		"  -l, --linger SEC      keep serving after sending; -1 = until SIGINT/SIGTERM\n"
		"                        (default 0 with --peer, -1 without)\n"
		"      --sport PORT      our UDP source port; echoes come back to it (40000)\n"
		"      --dscp N          DSCP 0..63 of what we send (default 0)\n"
		"      --ecn N           ECN codepoint 0..3 of what we send (default 0)\n"
		"      --iface N         interface index (default 0)\n"
		"      --rate SECONDS    rate mode: send to --peer as fast as possible for SECONDS\n"
		"                        (after 0.5 s warm-up) and report frames/s; no echoes\n"
		"      --frame-size N    rate mode: Ethernet frame bytes without FCS (default 64)\n"
		"      --roce            rate mode: RoCEv2 RC SEND ONLY frames (BTH, ICRC) instead\n"
		"                        of UDP datagrams; the payload rounded down to 4 bytes\n"
		"      --roce-qpn N      rate mode: their destination QP (default 0x11)\n"
		"      --template        rate mode: copy every frame from one built at the start,\n"
		"                        changing the sequence number, the PSN and the ICRC\n"
		"      --replay FILE     replay mode: send the RoCEv2 frames of a pcap/pcapng capture\n"
		"                        to --peer, rewritten: our MAC and address as the source,\n"
		"                        the peer's as the destination (IPv4 or IPv6, whatever\n"
		"                        the capture's), the ICRC again\n"
		"      --replay-pps N    at N frames a second (default 0: the capture's own pace)\n"
		"      --replay-loops N  the capture N times (default 1)\n"
		"      --qpn-map A:B     destination QP A becomes B (up to 16)\n"
		"      --rkey-map A:B    RETH/AtomicETH rkey A becomes B (up to 16)\n"
		"      --sqpn-map A:B    a UD frame's source QP (DETH) A becomes B (up to 16)\n"
		"      --psn-base N      each destination QP's first PSN becomes N, the rest follow\n"
		"      --loopback        loopback mode: -n RoCEv2 frames from --iface to the address\n"
		"                        of --rx-iface (the other end of a cable), counted there:\n"
		"                        lost, duplicated, reordered, bad, one-way latency\n"
		"      --rx-iface N      loopback: the receiving interface (default 1)\n"
		"      --pps N           loopback: frames a second (default 0: as fast as it can)\n"
		"      --catalogue VERB  catalogue mode: malformed and adversarial frames to the QPs\n"
		"                        of a perftest server at --peer ADDR:PORT (VERB write:\n"
		"                        ib_write_bw -q N; atomic: ib_atomic_bw -q N), each entry's\n"
		"                        reaction and a probe checked against the spec (docs/gen.md)\n"
		"      --cat-qps         print the server's -q for --catalogue VERB and exit\n"
		"      --cat-list        print the catalogue and exit\n"
		"      --cat-only LIST   only these entries (comma-separated names)\n"
		"      --cat-wait MS     how long to watch for replies, per phase (default 200)\n"
		"      --cat-peer KIND   droce or rxe: whose known deviations are accepted\n"
		"      --flow OPS        flow mode: droce's QPs as the requester. A perftest server\n"
		"                        at --peer ADDR:PORT: OPS write (ib_write_bw -q N), read\n"
		"                        (ib_read_bw -q N; -s at least the largest size), send\n"
		"                        (ib_send_bw -q N -n I with --iters I) or atomic\n"
		"                        (ib_atomic_bw -q N: FETCH_AND_ADD). With\n"
		"                        --manual: write, read, send, atomic or a weighted mix\n"
		"                        (write:3,read:1,send:1,atomic:1), or ud (UD SENDs)\n"
		"      --manual          flow: print droce's keys per QP on stderr, read the peer's\n"
		"                        from stdin, a line per QP: qpn= psn= rkey= va= len=\n"
		"                        [mtu=] [rd_atomic=] (ud: qpn= [qkey=]); --peer A.B.C.D\n"
		"      --keys KEYS       flow ud: the peer's keys on the command line (qpn=N\n"
		"                        [qkey=K]), once, or once per QP; with --cm: the peer's\n"
		"                        region (rkey=K,va=A,len=N)\n"
		"      --cm              flow: the RDMA CM connects each RC QP to --peer ADDR:PORT\n"
		"                        (REQ, REP, RTU), or resolves each UD QP's peer (SIDR)\n"
		"      --qps N           flow: QPs, the server's -q (default 1)\n"
		"      --depth N         flow: WRs in flight per QP (default 16)\n"
		"      --seconds N       flow: how long (default 5; with --iters: at most)\n"
		"      --iters N         flow: exactly N messages per QP, then stop (a perftest\n"
		"                        server's -n: ib_send_bw counts its receives)\n"
		"      --sizes LIST      flow: SIZE[:WEIGHT],... message sizes by weight (64k; ud: 1k)\n"
		"      --pps N           flow: at most N packets a second (loopback: frames)\n"
		"      --gbps G          flow: at most G Gbit/s of payload\n"
		"      --pcp N           flow: 802.1Q priority 0..7 (with --dscp: the QPs' own\n"
		"                        marking instead of the port's RoCE class)\n"
		"      --hold            when done, stop polling but keep the ports open until\n"
		"                        SIGINT/SIGTERM (a memif peer may then leave safely)\n"
		"  -j, --json            print the result as one JSON line\n"
		"  -q, --quiet           only the result\n"
		"  -h, --help            this text\n"
		"Exit status: 0 all echoes verified (or server only), 1 loss or corruption,\n"
		"2 bad arguments or configuration, 3 stack start-up failed.\n",
		prog);
}

static int parse_u32(const char *opt, const char *v, uint32_t min, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 0);
	if (errno || end == v || *end || v[0] == '-' || x < min || x > max) {
		fprintf(stderr, "droce-gen: %s %s: expected an integer from %u to %u\n", opt, v,
			min, max);
		return -1;
	}
	*out = (uint32_t)x;
	return 0;
}

static int parse_peer(const char *v)
{
	char buf[80];
	char *colon;
	uint32_t port;

	if (strlen(v) >= sizeof(buf))
		goto bad;
	strcpy(buf, v);
	if (buf[0] == '[') {
		char *close = strchr(buf, ']');

		if (!close || close[1] != ':')
			goto bad;
		*close = '\0';
		colon = close + 1; /* the port follows; only the address moves below */
		memmove(buf, buf + 1, strlen(buf + 1) + 1);
	} else {
		colon = strrchr(buf, ':');
		if (!colon) {
			/* an IPv4 address alone: for the flows whose keys come without TCP */
			if (stk_ipaddr_parse(buf, &g.peer) != 0 || g.peer.family != 4)
				goto bad;
			g.peer_port = 0;
			g.has_peer = true;
			return 0;
		}
	}
	*colon = '\0';
	if (stk_ipaddr_parse(buf, &g.peer) != 0 ||
	    parse_u32("--peer port", colon + 1, 1, 65535, &port) != 0)
		goto bad;
	g.peer_port = (uint16_t)port;
	g.has_peer = true;
	return 0;
bad:
	fprintf(stderr,
		"droce-gen: --peer %s: expected A.B.C.D:PORT or [IPv6]:PORT (A.B.C.D alone with "
		"--flow --manual or --keys)\n",
		v);
	return -1;
}

int gen_parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"echo", required_argument, NULL, 'e'},
		{"peer", required_argument, NULL, 'p'},
		{"count", required_argument, NULL, 'n'},
		{"size", required_argument, NULL, 's'},
		{"interval-us", required_argument, NULL, 'i'},
		{"wait-ms", required_argument, NULL, 'w'},
		{"resolve-ms", required_argument, NULL, 'r'},
		{"linger", required_argument, NULL, 'l'},
		{"sport", required_argument, NULL, 1},
		{"dscp", required_argument, NULL, 2},
		{"ecn", required_argument, NULL, 3},
		{"iface", required_argument, NULL, 4},
		{"hold", no_argument, NULL, 5},
		{"rate", required_argument, NULL, 6},
		{"frame-size", required_argument, NULL, 7},
		{"roce", no_argument, NULL, 8},
		{"roce-qpn", required_argument, NULL, 9},
		{"template", no_argument, NULL, 10},
		{"replay", required_argument, NULL, 11},
		{"replay-pps", required_argument, NULL, 12},
		{"replay-loops", required_argument, NULL, 13},
		{"qpn-map", required_argument, NULL, 14},
		{"rkey-map", required_argument, NULL, 15},
		{"psn-base", required_argument, NULL, 16},
		{"loopback", no_argument, NULL, 17},
		{"rx-iface", required_argument, NULL, 18},
		{"pps", required_argument, NULL, 19},
		{"catalogue", required_argument, NULL, 20},
		{"cat-qps", no_argument, NULL, 21},
		{"cat-list", no_argument, NULL, 22},
		{"cat-only", required_argument, NULL, 23},
		{"cat-wait", required_argument, NULL, 24},
		{"cat-peer", required_argument, NULL, 25},
		{"flow", required_argument, NULL, 26},
		{"qps", required_argument, NULL, 27},
		{"depth", required_argument, NULL, 28},
		{"seconds", required_argument, NULL, 29},
		{"sizes", required_argument, NULL, 30},
		{"gbps", required_argument, NULL, 31},
		{"pcp", required_argument, NULL, 32},
		{"manual", no_argument, NULL, 33},
		{"keys", required_argument, NULL, 34},
		{"sqpn-map", required_argument, NULL, 35},
		{"cm", no_argument, NULL, 36},
		{"iters", required_argument, NULL, 37},
		{"json", no_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint32_t x;
	int c, n;
	bool sizes_set = false;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:e:p:n:s:i:w:r:l:jqh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			g.config = optarg;
			break;
		case 'e':
			if (parse_u32("--echo", optarg, 1, 65535, &x))
				return -1;
			g.echo_port = (uint16_t)x;
			break;
		case 'p':
			if (parse_peer(optarg))
				return -1;
			break;
		case 'n':
			if (parse_u32("--count", optarg, 1, 10000000, &g.count))
				return -1;
			break;
		case 's':
			if (parse_u32("--size", optarg, GEN_HDR, 9000, &g.size))
				return -1;
			break;
		case 'i':
			if (parse_u32("--interval-us", optarg, 0, 10000000, &g.interval_us))
				return -1;
			break;
		case 'w':
			if (parse_u32("--wait-ms", optarg, 0, 600000, &g.wait_ms))
				return -1;
			break;
		case 'r':
			if (parse_u32("--resolve-ms", optarg, 1, 600000, &g.resolve_ms))
				return -1;
			break;
		case 'l':
			if (!strcmp(optarg, "-1")) {
				g.linger_s = -1;
			} else {
				if (parse_u32("--linger", optarg, 0, 86400, &x))
					return -1;
				g.linger_s = (int)x;
			}
			break;
		case 1:
			if (parse_u32("--sport", optarg, 1, 65535, &x))
				return -1;
			g.sport = (uint16_t)x;
			break;
		case 2:
			if (parse_u32("--dscp", optarg, 0, 63, &x))
				return -1;
			g.dscp = (uint8_t)x;
			g.dscp_set = true;
			break;
		case 3:
			if (parse_u32("--ecn", optarg, 0, 3, &x))
				return -1;
			g.ecn = (uint8_t)x;
			break;
		case 4:
			if (parse_u32("--iface", optarg, 0, STK_MAX_PORTS - 1, &x))
				return -1;
			g.iface = (uint16_t)x;
			break;
		case 5:
			g.hold = true;
			break;
		case 6:
			if (parse_u32("--rate", optarg, 1, 3600, &g.rate_s))
				return -1;
			break;
		case 7:
			if (parse_u32("--frame-size", optarg, 60, 9018, &g.frame_size))
				return -1;
			break;
		case 8:
			g.roce = true;
			break;
		case 9:
			if (parse_u32("--roce-qpn", optarg, 1, 0xffffff, &g.roce_qpn))
				return -1;
			break;
		case 10:
			g.template = true;
			break;
		case 11:
			g.replay = optarg;
			break;
		case 12:
			if (parse_u32("--replay-pps", optarg, 0, 100000000, &g.replay_pps))
				return -1;
			break;
		case 13:
			if (parse_u32("--replay-loops", optarg, 1, 1000000, &g.replay_loops))
				return -1;
			break;
		case 14:
		case 15:
		case 35: {
			struct gen_map *m = c == 14 ? &g.rw.qpn : c == 15 ? &g.rw.rkey : &g.rw.sqpn;

			if (gen_map_add(m, optarg, c == 15 ? 0xffffffffu : 0xffffffu) != 0) {
				fprintf(stderr,
					"droce-gen: --%s %s: expected FROM:TO (decimal or 0x hex, "
					"%s), at most %u of them\n",
					c == 14	  ? "qpn-map"
					: c == 15 ? "rkey-map"
						  : "sqpn-map",
					optarg, c == 15 ? "32-bit keys" : "24-bit QP numbers",
					GEN_MAP_MAX);
				return -1;
			}
			break;
		}
		case 16:
			if (parse_u32("--psn-base", optarg, 0, 0xffffff, &g.rw.psn_base))
				return -1;
			g.rw.psn_rebase = true;
			break;
		case 17:
			g.loopback = true;
			break;
		case 18:
			if (parse_u32("--rx-iface", optarg, 0, STK_MAX_PORTS - 1, &x))
				return -1;
			g.rx_iface = (uint16_t)x;
			g.rx_iface_set = true;
			break;
		case 19:
			if (parse_u32("--pps", optarg, 0, 100000000, &g.pps))
				return -1;
			break;
		case 20:
			g.catalogue = true;
			g.cat.verb = gen_cat_verb_parse(optarg);
			if (g.cat.verb == GEN_CAT_NUM_VERBS) {
				fprintf(stderr,
					"droce-gen: --catalogue %s: expected write (an ib_write_bw "
					"server) or atomic (ib_atomic_bw)\n",
					optarg);
				return -1;
			}
			break;
		case 21:
			g.cat_qps = true;
			break;
		case 22:
			g.cat_list = true;
			break;
		case 23:
			g.cat.only = optarg;
			break;
		case 24:
			if (parse_u32("--cat-wait", optarg, 10, 60000, &g.cat.wait_ms))
				return -1;
			break;
		case 25:
			if (strcmp(optarg, "droce") != 0 && strcmp(optarg, "rxe") != 0) {
				fprintf(stderr, "droce-gen: --cat-peer %s: expected droce or rxe\n",
					optarg);
				return -1;
			}
			g.cat.peer = optarg;
			break;
		case 26:
			g.flow = true;
			if (gen_flow_parse_mix(optarg, &g.fo.mix) != 0) {
				fprintf(stderr,
					"droce-gen: --flow %s: expected write, read, send, atomic, a "
					"mix of them with weights 1 to 1000 (write:3,read:1,send:1), "
					"each named once, or ud\n",
					optarg);
				return -1;
			}
			break;
		case 27:
			g.flow_opt = true;
			if (parse_u32("--qps", optarg, 1, GEN_FLOW_MAX_QPS, &g.fo.qps))
				return -1;
			break;
		case 28:
			g.flow_opt = true;
			if (parse_u32("--depth", optarg, 1, 1024, &g.fo.depth))
				return -1;
			break;
		case 29:
			g.flow_opt = true;
			if (parse_u32("--seconds", optarg, 1, 3600, &g.fo.seconds))
				return -1;
			break;
		case 37:
			g.flow_opt = true;
			if (parse_u32("--iters", optarg, 1, 100000000, &g.fo.iters))
				return -1;
			break;
		case 30:
			g.flow_opt = true;
			n = gen_flow_parse_sizes(optarg, g.fo.size, g.fo.weight);
			if (n < 0) {
				fprintf(stderr,
					"droce-gen: --sizes %s: expected SIZE[:WEIGHT],... with at "
					"most %u sizes of 1 B to 1m (k and m suffixes) and weights of "
					"1 to 1000\n",
					optarg, GEN_FLOW_MAX_SIZES);
				return -1;
			}
			g.fo.nsizes = (uint32_t)n;
			sizes_set = true;
			break;
		case 31: {
			char *end;

			g.gbps = strtod(optarg, &end);
			if (*end || !(g.gbps >= 0.001 && g.gbps <= 1000)) {
				fprintf(stderr, "droce-gen: --gbps %s: expected 0.001 to 1000\n",
					optarg);
				return -1;
			}
			break;
		}
		case 32:
			if (parse_u32("--pcp", optarg, 0, 7, &x))
				return -1;
			g.pcp = (uint8_t)x;
			g.pcp_set = true;
			break;
		case 33:
		case 36:
			g.flow_opt = true;
			if ((c == 33 && g.fo.xchg == GEN_XCHG_CM) ||
			    (c == 36 && g.fo.xchg == GEN_XCHG_MANUAL)) {
				fprintf(stderr,
					"droce-gen: --manual or --cm: one way to connect\n");
				return -1;
			}
			g.fo.xchg = c == 33 ? GEN_XCHG_MANUAL : GEN_XCHG_CM;
			break;
		case 34: {
			char why[160];

			g.flow_opt = true;
			if (g.fo.nkeys == GEN_FLOW_MAX_QPS ||
			    gen_keys_parse(optarg, &g.fo.keys[g.fo.nkeys], why, sizeof(why)) <= 0) {
				fprintf(stderr, "droce-gen: --keys %s: %s\n", optarg,
					g.fo.nkeys == GEN_FLOW_MAX_QPS ? "more than one per QP"
					: why[0]		       ? why
								       : "no key=value in it");
				return -1;
			}
			g.fo.nkeys++;
			if (g.fo.xchg == GEN_XCHG_PERFTEST)
				g.fo.xchg = GEN_XCHG_KEYS;
			break;
		}
		case 'j':
			g.json = true;
			break;
		case 'q':
			g.quiet = true;
			break;
		case 'h':
			usage(stdout, argv[0]);
			exit(0);
		default:
			usage(stderr, argv[0]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "droce-gen: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (g.cat_list) {
		gen_cat_list(stdout);
		exit(0);
	}
	if (g.cat_qps || g.cat.only || g.cat.peer) {
		if (!g.catalogue) {
			fprintf(stderr, "droce-gen: --cat-qps, --cat-only and --cat-peer go with "
					"--catalogue VERB\n");
			return -1;
		}
		n = gen_cat_qps(g.cat.verb, g.cat.only);
		if (n < 0)
			return -1;
		if (g.cat_qps) {
			printf("%d\n", n);
			exit(0);
		}
	}
	if (!g.config) {
		fprintf(stderr, "droce-gen: -c/--config FILE is required (see conf/example.ini)\n");
		return -1;
	}
	if ((g.pcp_set || g.gbps > 0 || g.flow_opt) && !g.flow) {
		fprintf(stderr,
			"droce-gen: --qps, --depth, --seconds, --iters, --sizes, --manual, --keys, "
			"--pcp and --gbps go with --flow\n");
		return -1;
	}
	if (g.has_peer && !g.peer_port &&
	    !(g.flow && (g.fo.xchg == GEN_XCHG_MANUAL || g.fo.xchg == GEN_XCHG_KEYS))) {
		fprintf(stderr, "droce-gen: --peer needs :PORT here (only the flows of --manual "
				"and --keys take an address alone)\n");
		return -1;
	}
	if (g.flow) {
		if (!g.has_peer || g.peer.family != 4 || g.loopback || g.rate_s || g.replay ||
		    g.echo_port || g.catalogue) {
			fprintf(stderr,
				"droce-gen: --flow needs --peer A.B.C.D:PORT (the perftest "
				"server's IPv4 address and port, 18515 by default; the "
				"address alone with --manual or --keys) and no other mode\n");
			return -1;
		}
		if (g.pps && g.gbps > 0) {
			fprintf(stderr, "droce-gen: --flow: --pps or --gbps, not both\n");
			return -1;
		}
		if (g.rx_iface_set) {
			fprintf(stderr, "droce-gen: --flow: --rx-iface goes with --loopback\n");
			return -1;
		}
		g.fo.pps = g.pps;
		g.fo.gbps = g.gbps;
		g.fo.dscp = g.dscp;
		g.fo.dscp_set = g.dscp_set;
		g.fo.ecn = g.ecn;
		g.fo.pcp = g.pcp;
		g.fo.pcp_set = g.pcp_set;
		g.fo.server = g.peer;
		g.fo.port = g.peer_port;
		g.fo.iface = g.iface;
		g.fo.json = g.json;
		if (g.fo.mix.ud && !sizes_set)
			g.fo.size[0] = 1024; /* a datagram is one packet */
		return gen_flow_check(&g.fo);
	}
	if (g.catalogue) {
		if (!g.has_peer || g.peer.family != 4 || g.loopback || g.rate_s || g.replay ||
		    g.echo_port) {
			fprintf(stderr,
				"droce-gen: --catalogue needs --peer A.B.C.D:PORT (the perftest "
				"server's IPv4 address and port, 18515 by default) and no "
				"other mode\n");
			return -1;
		}
		g.cat.server = g.peer;
		g.cat.port = g.peer_port;
		g.cat.iface = g.iface;
		g.cat.json = g.json;
		return 0;
	}
	if (g.loopback) {
		if (g.has_peer || g.rate_s || g.replay || g.echo_port) {
			fprintf(stderr,
				"droce-gen: --loopback sends to --rx-iface's own address: no "
				"--peer, --echo, --rate or --replay with it\n");
			return -1;
		}
		if (!g.rx_iface_set)
			g.rx_iface = 1;
		if (g.rx_iface == g.iface) {
			fprintf(stderr,
				"droce-gen: --loopback: --rx-iface must differ from --iface\n");
			return -1;
		}
		if (g.frame_size < ROCE_OVERHEAD + GEN_HDR)
			g.frame_size = 128; /* room for the magic, the sequence and the TSC */
		g.roce = true;
		if (g.linger_s == -2)
			g.linger_s = 0;
		return 0;
	}
	if ((g.rx_iface_set || g.pps) && !g.loopback) {
		fprintf(stderr, "droce-gen: --rx-iface and --pps go with --loopback\n");
		return -1;
	}
	if (!g.has_peer && !g.echo_port) {
		fprintf(stderr, "droce-gen: nothing to do: give --echo PORT and/or --peer "
				"ADDR:PORT\n");
		return -1;
	}
	if (g.has_peer && g.echo_port == g.sport) {
		fprintf(stderr, "droce-gen: --sport must differ from --echo\n");
		return -1;
	}
	if (g.rate_s && !g.has_peer) {
		fprintf(stderr, "droce-gen: --rate needs --peer ADDR:PORT\n");
		return -1;
	}
	if (g.replay && (!g.has_peer || g.rate_s)) {
		fprintf(stderr, "droce-gen: --replay needs --peer A.B.C.D:PORT or [IPv6]:PORT (the "
				"port is not used: RoCEv2 goes to 4791) and no --rate\n");
		return -1;
	}
	if (!g.replay && (g.replay_pps || g.replay_loops || g.rw.qpn.n || g.rw.rkey.n ||
			  g.rw.sqpn.n || g.rw.psn_rebase)) {
		fprintf(stderr, "droce-gen: --replay-pps, --replay-loops, --qpn-map, --rkey-map, "
				"--sqpn-map "
				"and --psn-base go with --replay FILE\n");
		return -1;
	}
	if (g.replay) {
		FILE *f = fopen(g.replay, "rb");

		if (!g.replay_loops)
			g.replay_loops = 1;
		if (f && fseek(f, 0, SEEK_END) == 0 && (g.cap_len = ftell(f)) > 0 &&
		    fseek(f, 0, SEEK_SET) == 0 && (g.cap_buf = malloc((size_t)g.cap_len)) &&
		    fread(g.cap_buf, 1, (size_t)g.cap_len, f) == (size_t)g.cap_len &&
		    gen_pcap_open(&g.cap, g.cap_buf, (uint64_t)g.cap_len) == 0) {
			fclose(f);
		} else {
			fprintf(stderr, "droce-gen: --replay %s: %s\n", g.replay,
				!f ? strerror(errno) : "not a pcap or pcapng capture");
			if (f)
				fclose(f);
			return -1;
		}
	}
	if (g.linger_s == -2)
		g.linger_s = g.has_peer ? 0 : -1;
	return 0;
}

/* Rate mode's result: frames per second the port sent in the measured window. */
