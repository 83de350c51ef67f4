/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_metrics.c - droce-nfsd's /metrics pieces: the text exposition writer (app_prom.c)
 * against text written by hand from the format's description (prometheus.io, "Exposition
 * formats", text format 0.0.4: HELP/TYPE lines, cumulative le buckets ending at +Inf, _sum,
 * _count), the NFSv3 latency buckets' edges, droce-nfsd's histogram of a hand-filled
 * nfs3_stats, the IP:PORT parser, and the HTTP server (app_metrics.c) over loopback: 200,
 * 404, 405, 400, an over-long head, the connection bound. Nothing is left open at the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "app_metrics.h"
#include "app_prom.h"
#include "nfs3_svc.h"
#include "nfsd_metrics.h"
#include "orpc_bc.h"

static void test_family_and_samples(void **state)
{
	struct app_buf b = {0};

	(void)state;
	app_prom_family(&b, "x_total", "counter", "calls made");
	app_prom_sample(&b, "x_total", "proc=\"READ\"", 7);
	app_prom_sample(&b, "x_total", "proc=\"WRITE\"", 18446744073709551615ull);
	app_prom_sample(&b, "y", NULL, 0);
	app_prom_sample_f(&b, "z_seconds", "", 1795642870.25);
	assert_false(b.failed);
	assert_string_equal(b.p, "# HELP x_total calls made\n"
				 "# TYPE x_total counter\n"
				 "x_total{proc=\"READ\"} 7\n"
				 "x_total{proc=\"WRITE\"} 18446744073709551615\n"
				 "y 0\n"
				 "z_seconds 1795642870.25\n");
	assert_int_equal(b.len, strlen(b.p));
	app_buf_free(&b);
	assert_null(b.p);
}

static void test_histogram(void **state)
{
	static const double le[] = {1e-6, 2e-6, 4e-6};
	static const uint64_t counts[] = {3, 0, 1, 2};
	static const double le1[] = {0.5};
	static const uint64_t counts1[] = {0, 1};
	struct app_buf b = {0};

	(void)state;
	app_prom_histogram(&b, "h_seconds", "proc=\"READ\"", le, counts, 4, 1.5e-5);
	app_prom_histogram(&b, "h_seconds", NULL, le1, counts1, 2, 2);
	assert_string_equal(b.p, "h_seconds_bucket{proc=\"READ\",le=\"1e-06\"} 3\n"
				 "h_seconds_bucket{proc=\"READ\",le=\"2e-06\"} 3\n"
				 "h_seconds_bucket{proc=\"READ\",le=\"4e-06\"} 4\n"
				 "h_seconds_bucket{proc=\"READ\",le=\"+Inf\"} 6\n"
				 "h_seconds_sum{proc=\"READ\"} 1.5e-05\n"
				 "h_seconds_count{proc=\"READ\"} 6\n"
				 "h_seconds_bucket{le=\"0.5\"} 0\n"
				 "h_seconds_bucket{le=\"+Inf\"} 1\n"
				 "h_seconds_sum 2\n"
				 "h_seconds_count 1\n");
	app_buf_free(&b);
}

/* the buffer grows past its first 4 KiB by doubling, and keeps every byte */
static void test_buf_grows(void **state)
{
	struct app_buf b = {0};

	(void)state;
	for (int i = 0; i < 10000; i++)
		app_buf_printf(&b, "line %05d\n", i);
	assert_false(b.failed);
	assert_int_equal(b.len, 10000 * 11);
	assert_memory_equal(b.p + 9999 * 11, "line 09999\n", 11);
	assert_memory_equal(b.p + 4095 * 11, "line 04095\n", 11);
	app_buf_free(&b);
}

/* bucket i: at most 2^i µs; past 2^20 µs, the last (+Inf) */
static void test_lat_bucket(void **state)
{
	(void)state;
	assert_int_equal(nfs3_lat_bucket(0), 0);
	assert_int_equal(nfs3_lat_bucket(1000), 0);
	assert_int_equal(nfs3_lat_bucket(1001), 1);
	assert_int_equal(nfs3_lat_bucket(2000), 1);
	assert_int_equal(nfs3_lat_bucket(2001), 2);
	assert_int_equal(nfs3_lat_bucket(4000), 2);
	assert_int_equal(nfs3_lat_bucket(700000), 10); /* 700 µs <= 1024 µs */
	assert_int_equal(nfs3_lat_bucket(1048576000ull), 20);
	assert_int_equal(nfs3_lat_bucket(1048576001ull), 21);
	assert_int_equal(nfs3_lat_bucket(UINT64_MAX), NFS3_LAT_BUCKETS - 1);
}

static void pool_work(void *job)
{
	(void)job;
}

static void pool_done(void *job)
{
	(void)job;
}

/* droce-nfsd's text for a hand-filled server: READ 3 calls, one in <= 1 µs, two in <= 4 µs,
 * 9 µs in all; WRITE 1 call of 4096 bytes answered NFS3ERR_NOSPC */
static void test_nfsd_text(void **state)
{
	static struct nfs3_server sv;
	struct nfsd_metrics_src src = {.nfs = {&sv, NULL}, .threads = 4, .start_time = 1.5};
	struct app_buf b = {0};

	(void)state;
	src.pool[0] = nfs_pool_create("tt", 4, pool_work);
	assert_non_null(src.pool[0]);
	sv.st.proc[NFS3_PROC_READ] = 3;
	sv.st.lat[NFS3_PROC_READ][0] = 1;
	sv.st.lat[NFS3_PROC_READ][2] = 2;
	sv.st.lat_ns[NFS3_PROC_READ] = 9000;
	sv.st.proc[NFS3_PROC_WRITE] = 1;
	sv.st.lat[NFS3_PROC_WRITE][NFS3_LAT_BUCKETS - 1] = 1;
	sv.st.lat_ns[NFS3_PROC_WRITE] = 2000000000;
	sv.st.status[nfs3_stat_slot(NFS_ERR_NOSPC)] = 1;
	sv.st.status[0] = 3;
	sv.st.status_err = 1;
	sv.st.read_bytes = 12288;
	sv.st.mount_proc[1] = 2;
	nfsd_metrics_write(&b, &src);
	assert_false(b.failed);
	assert_non_null(strstr(b.p, "# HELP droce_nfsd_start_time_seconds "));
	assert_non_null(strstr(b.p, "\ndroce_nfsd_start_time_seconds 1.5\n"));
	assert_non_null(strstr(b.p, "# TYPE droce_nfsd_nfs3_calls_total counter\n"
				    "droce_nfsd_nfs3_calls_total{proc=\"NULL\"} 0\n"));
	assert_non_null(strstr(b.p, "\ndroce_nfsd_nfs3_calls_total{proc=\"READ\"} 3\n"
				    "droce_nfsd_nfs3_calls_total{proc=\"WRITE\"} 1\n"));
	assert_non_null(strstr(b.p, "# TYPE droce_nfsd_nfs3_call_duration_seconds histogram\n"));
	assert_non_null(strstr(
		b.p,
		"\ndroce_nfsd_nfs3_call_duration_seconds_bucket{proc=\"READ\",le=\"1e-06\"} 1\n"
		"droce_nfsd_nfs3_call_duration_seconds_bucket{proc=\"READ\",le=\"2e-06\"} 1\n"
		"droce_nfsd_nfs3_call_duration_seconds_bucket{proc=\"READ\",le=\"4e-06\"} 3\n"
		"droce_nfsd_nfs3_call_duration_seconds_bucket{proc=\"READ\",le=\"8e-06\"} 3\n"));
	assert_non_null(strstr(
		b.p,
		"droce_nfsd_nfs3_call_duration_seconds_bucket{proc=\"READ\",le=\"1.048576\"} 3\n"
		"droce_nfsd_nfs3_call_duration_seconds_bucket{proc=\"READ\",le=\"+Inf\"} 3\n"
		"droce_nfsd_nfs3_call_duration_seconds_sum{proc=\"READ\"} 9e-06\n"
		"droce_nfsd_nfs3_call_duration_seconds_count{proc=\"READ\"} 3\n"));
	assert_non_null(strstr(
		b.p,
		"droce_nfsd_nfs3_call_duration_seconds_bucket{proc=\"WRITE\",le=\"1.048576\"} 0\n"
		"droce_nfsd_nfs3_call_duration_seconds_bucket{proc=\"WRITE\",le=\"+Inf\"} 1\n"
		"droce_nfsd_nfs3_call_duration_seconds_sum{proc=\"WRITE\"} 2\n"
		"droce_nfsd_nfs3_call_duration_seconds_count{proc=\"WRITE\"} 1\n"));
	assert_non_null(strstr(b.p, "\ndroce_nfsd_nfs3_replies_total{status=\"NFS3_OK\"} 3\n"));
	assert_non_null(
		strstr(b.p, "\ndroce_nfsd_nfs3_replies_total{status=\"NFS3ERR_NOSPC\"} 1\n"));
	assert_non_null(strstr(b.p, "\ndroce_nfsd_nfs3_replies_total{status=\"other\"} 0\n"));
	assert_non_null(strstr(b.p, "\ndroce_nfsd_nfs3_errors_total 1\n"));
	assert_non_null(strstr(b.p, "\ndroce_nfsd_mount_calls_total{proc=\"NULL\"} 0\n"
				    "droce_nfsd_mount_calls_total{proc=\"MNT\"} 2\n"));
	assert_non_null(strstr(b.p, "\ndroce_nfsd_nfs3_read_bytes_total 12288\n"));
	assert_non_null(strstr(b.p, "\ndroce_nfsd_helper_threads 4\n"));
	assert_non_null(strstr(b.p, "\ndroce_nfsd_helper_queue_depth 0\n"));
	/* what src does not give is left out */
	assert_null(strstr(b.p, "droce_nfsd_rdma_connections"));
	assert_null(strstr(b.p, "droce_nfsd_nlm_calls_total"));
	assert_null(strstr(b.p, "droce_nfsd_fs_stale_total"));
	assert_null(strstr(b.p, "droce_nfsd_backchannels"));
	app_buf_free(&b);
	/* the backchannel table: connections registered, backward calls sent */
	{
		static struct orpc_bc_table bt;
		static int conn;
		static const struct orpc_bc_ops ops = {.name = "x"};

		orpc_bc_table_init(&bt);
		orpc_bc_register(&bt, &ops, &conn);
		orpc_bc_register(&bt, &ops, &conn);
		bt.st.calls = 5;
		src.bc = &bt;
		memset(&b, 0, sizeof(b));
		nfsd_metrics_write(&b, &src);
		assert_false(b.failed);
		assert_non_null(strstr(b.p, "# TYPE droce_nfsd_backchannels gauge\n"
					    "droce_nfsd_backchannels 2\n"));
		assert_non_null(strstr(b.p, "\ndroce_nfsd_backchannel_calls_total 5\n"));
		app_buf_free(&b);
	}
	nfs_pool_destroy((struct nfs_pool *)src.pool[0], pool_done);
}

/* [nfs] lcores: the RDMA servers of two lanes are summed (NFSv3 calls, RPC outcomes under one
 * svc="rdma"), and the per-lane families count each lane's connections and calls */
static void test_nfsd_lanes(void **state)
{
	static struct nfs3_server tcp, l0, l1;
	static struct orpc_svc stcp, s0, s1;
	struct nfsd_metrics_src src = {.nfs = {&tcp, &l0, &l1},
				       .svc = {&stcp, &s0, &s1},
				       .svc_name = {"tcp", "rdma", "rdma"},
				       .nlanes = 2,
				       .lane_lcore = {0, 3},
				       .lane_accepted = {5, 7},
				       .lane_nfs = {&l0, &l1}};
	struct app_buf b = {0};
	char want[256];
	const char *first;

	(void)state;
	tcp.st.proc[NFS3_PROC_READ] = 1;
	l0.st.proc[NFS3_PROC_READ] = 10;
	l0.st.proc[NFS3_PROC_WRITE] = 2;
	l1.st.proc[NFS3_PROC_READ] = 100;
	stcp.stats.outcome[0] = 1;
	s0.stats.outcome[0] = 12;
	s1.stats.outcome[0] = 100;
	nfsd_metrics_write(&b, &src);
	assert_false(b.failed);
	assert_non_null(strstr(b.p, "\ndroce_nfsd_nfs3_calls_total{proc=\"READ\"} 111\n"));
	snprintf(want, sizeof(want),
		 "\ndroce_nfsd_rpc_outcomes_total{svc=\"rdma\",outcome=\"%s\"} 112\n",
		 orpc_outcome_name((enum orpc_outcome)0));
	first = strstr(b.p, want);
	assert_non_null(first);
	/* once: the second lane's server is in that sample, not in one of its own */
	snprintf(want, sizeof(want), "droce_nfsd_rpc_outcomes_total{svc=\"rdma\",outcome=\"%s\"}",
		 orpc_outcome_name((enum orpc_outcome)0));
	assert_null(strstr(first + 2, want));
	snprintf(want, sizeof(want),
		 "\ndroce_nfsd_rpc_outcomes_total{svc=\"tcp\",outcome=\"%s\"} 1\n",
		 orpc_outcome_name((enum orpc_outcome)0));
	assert_non_null(strstr(b.p, want));
	assert_non_null(strstr(b.p,
			       "\ndroce_nfsd_lane_rdma_accepted_total{lane=\"0\",lcore=\"0\"} 5\n"
			       "droce_nfsd_lane_rdma_accepted_total{lane=\"1\",lcore=\"3\"} 7\n"));
	assert_non_null(strstr(b.p,
			       "\ndroce_nfsd_lane_nfs3_calls_total{lane=\"0\",lcore=\"0\"} 12\n"
			       "droce_nfsd_lane_nfs3_calls_total{lane=\"1\",lcore=\"3\"} 100\n"));
	app_buf_free(&b);
	/* one lane (nlanes 0): no lane families */
	src.nlanes = 0;
	memset(&b, 0, sizeof(b));
	nfsd_metrics_write(&b, &src);
	assert_null(strstr(b.p, "droce_nfsd_lane_"));
	app_buf_free(&b);
}

/* [nfs] lcores: every lane's helper threads and their queue are in the gauges, not only the
 * main lcore's */
static void test_nfsd_lane_pools(void **state)
{
	static struct nfs3_server l0, l1;
	struct nfs_pool *p0 = nfs_pool_create("tm0", 2, pool_work),
			*p1 = nfs_pool_create("tm1", 2, pool_work);
	struct nfsd_metrics_src src = {.nfs = {&l0, &l1}, .threads = 2};
	struct nfsd_metrics_io io;
	struct app_buf b = {0};
	static int jobs[5];

	(void)state;
	assert_non_null(p0);
	assert_non_null(p1);
	src.pool[0] = p0;
	src.pool[1] = p1;
	for (int i = 0; i < 5; i++)
		assert_int_equal(nfs_pool_submit(i < 2 ? p0 : p1, &jobs[i]), 0);
	nfsd_metrics_io_total(&src, &io);
	assert_int_equal(io.helper_queue, 5);
	assert_int_equal(io.helper_threads, 4);
	assert_false(io.aio);
	nfsd_metrics_write(&b, &src);
	assert_false(b.failed);
	assert_non_null(strstr(b.p, "\ndroce_nfsd_helper_queue_depth 5\n"));
	assert_non_null(strstr(b.p, "\ndroce_nfsd_helper_threads 4\n"));
	assert_null(strstr(b.p, "io_uring_queue_depth"));
	app_buf_free(&b);
	for (int i = 0; i < 2000 && nfs_pool_inflight(p0) + nfs_pool_inflight(p1) > 0; i++) {
		nfs_pool_poll(p0, pool_done, 8);
		nfs_pool_poll(p1, pool_done, 8);
		usleep(1000);
	}
	assert_int_equal(nfs_pool_inflight(p0) + nfs_pool_inflight(p1), 0);
	nfs_pool_destroy(p0, pool_done);
	nfs_pool_destroy(p1, pool_done);
}

static void test_parse_addr(void **state)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	size_t sl = sizeof(ss);

	(void)state;
	assert_int_equal(app_metrics_parse_addr("127.0.0.1:9464", &ss, &sl), 0);
	assert_int_equal(in->sin_family, AF_INET);
	assert_int_equal(ntohs(in->sin_port), 9464);
	assert_int_equal(ntohl(in->sin_addr.s_addr), 0x7f000001);
	assert_int_equal(sl, sizeof(*in));
	assert_int_equal(app_metrics_parse_addr("[::1]:80", &ss, &sl), 0);
	assert_int_equal(in6->sin6_family, AF_INET6);
	assert_int_equal(ntohs(in6->sin6_port), 80);
	assert_int_equal(in6->sin6_addr.s6_addr[15], 1);
	assert_int_equal(app_metrics_parse_addr("127.0.0.1", &ss, &sl), -EINVAL);
	assert_int_equal(app_metrics_parse_addr("127.0.0.1:", &ss, &sl), -EINVAL);
	assert_int_equal(app_metrics_parse_addr("127.0.0.1:65536", &ss, &sl), -EINVAL);
	assert_int_equal(app_metrics_parse_addr("127.0.0.1:80x", &ss, &sl), -EINVAL);
	assert_int_equal(app_metrics_parse_addr(":80", &ss, &sl), -EINVAL);
	assert_int_equal(app_metrics_parse_addr("localhost:80", &ss, &sl), -EINVAL);
	assert_int_equal(app_metrics_parse_addr("::1:80", &ss, &sl), -EINVAL);
	assert_int_equal(app_metrics_parse_addr("[::1:80", &ss, &sl), -EINVAL);
	assert_int_equal(app_metrics_parse_addr("[127.0.0.1]:80", &ss, &sl), -EINVAL);
}

static void write_tiny(struct app_buf *b, void *arg)
{
	(void)arg;
	app_buf_printf(b, "a 1\n");
}

static int connect_to(uint16_t port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

/* Read from fd until the server closes it, polling the server meanwhile (2 s at most).
 * @return bytes read */
static size_t drain(struct app_metrics *m, int fd, char *out, size_t cap)
{
	size_t len = 0;

	for (int i = 0; i < 2000; i++) {
		ssize_t n;

		app_metrics_poll(m);
		n = recv(fd, out + len, cap - 1 - len, 0);
		if (n == 0 || (n < 0 && errno != EAGAIN))
			break;
		if (n > 0)
			len += (size_t)n;
		else
			usleep(1000);
	}
	out[len] = 0;
	return len;
}

static void exchange(struct app_metrics *m, const char *req, char *out, size_t cap)
{
	int fd = connect_to(app_metrics_port(m));

	assert_int_equal(send(fd, req, strlen(req), 0), (ssize_t)strlen(req));
	drain(m, fd, out, cap);
	close(fd);
}

static void test_http(void **state)
{
	char err[128], out[8192], big[6000];
	struct app_metrics *m = app_metrics_open("127.0.0.1:0", write_tiny, NULL, err, sizeof(err));
	const struct app_metrics_stats *st;

	(void)state;
	assert_non_null(m);
	st = app_metrics_stats(m);
	assert_true(app_metrics_port(m) > 0);
	exchange(m, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", out, sizeof(out));
	assert_string_equal(out, "HTTP/1.1 200 OK\r\n"
				 "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
				 "Content-Length: 4\r\n"
				 "Connection: close\r\n"
				 "\r\n"
				 "a 1\n");
	exchange(m, "GET /metrics?x=1 HTTP/1.0\n\n", out, sizeof(out));
	assert_true(strncmp(out, "HTTP/1.1 200 OK\r\n", 17) == 0);
	exchange(m, "GET / HTTP/1.1\r\n\r\n", out, sizeof(out));
	assert_true(strncmp(out, "HTTP/1.1 404 Not Found\r\n", 24) == 0);
	exchange(m, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", out, sizeof(out));
	assert_true(strncmp(out, "HTTP/1.1 405 Method Not Allowed\r\n", 33) == 0);
	assert_non_null(strstr(out, "\r\nAllow: GET\r\n"));
	exchange(m, "\x16\x03\x01 garbage\r\n\r\n", out, sizeof(out));
	assert_true(strncmp(out, "HTTP/1.1 400 Bad Request\r\n", 26) == 0);
	memset(big, 'A', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	exchange(m, big, out, sizeof(out));
	assert_true(strncmp(out, "HTTP/1.1 400 Bad Request\r\n", 26) == 0);
	assert_int_equal(st->scrapes, 2);
	assert_int_equal(st->not_found, 1);
	assert_int_equal(st->bad_method, 1);
	assert_int_equal(st->bad_request, 2);
	assert_int_equal(app_metrics_poll(m), 0);
	app_metrics_close(m);
}

/* APP_METRICS_MAX_CONNS idle connections hold every slot: one more is closed at once, and
 * the slots serve again once they are given back */
static void test_conn_bound(void **state)
{
	char err[128], out[256];
	struct app_metrics *m = app_metrics_open("127.0.0.1:0", write_tiny, NULL, err, sizeof(err));
	int fds[APP_METRICS_MAX_CONNS], extra;

	(void)state;
	assert_non_null(m);
	for (uint32_t k = 0; k < APP_METRICS_MAX_CONNS; k++) {
		fds[k] = connect_to(app_metrics_port(m));
		for (int i = 0; i < 100 && app_metrics_poll(m) < k + 1; i++)
			usleep(1000);
	}
	assert_int_equal(app_metrics_poll(m), APP_METRICS_MAX_CONNS);
	extra = connect_to(app_metrics_port(m));
	assert_int_equal(drain(m, extra, out, sizeof(out)), 0); /* closed, nothing said */
	close(extra);
	assert_int_equal(app_metrics_stats(m)->refused, 1);
	for (uint32_t k = 0; k < APP_METRICS_MAX_CONNS; k++)
		close(fds[k]);
	for (int i = 0; i < 1000 && app_metrics_poll(m) > 0; i++)
		usleep(1000);
	assert_int_equal(app_metrics_poll(m), 0);
	exchange(m, "GET /metrics HTTP/1.1\r\n\r\n", out, sizeof(out));
	assert_true(strncmp(out, "HTTP/1.1 200 OK\r\n", 17) == 0);
	app_metrics_close(m);
}

/* 6.25 MiB of text: 262144 lines of 25 bytes */
static void write_big(struct app_buf *b, void *arg)
{
	(void)arg;
	for (int i = 0; i < 4 * 65536; i++)
		app_buf_printf(b, "big_total{i=\"%07d\"} 1\n", i);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A client that asks for a long answer and does not read it: each poll still returns at once
 * (the rest waits for EPOLLOUT), another client is served meanwhile, and once the slow one
 * reads, it gets every byte */
static void test_slow_reader(void **state)
{
	char err[128], out[256], head[512];
	struct app_metrics *m = app_metrics_open("127.0.0.1:0", write_big, NULL, err, sizeof(err));
	struct sockaddr_in sa = {.sin_family = AF_INET};
	int slow = socket(AF_INET, SOCK_STREAM, 0), small = 4096, fast;
	const char *req = "GET /metrics HTTP/1.1\r\n\r\n";
	double worst = 0;
	size_t got = 0, want = 0;
	char *buf = malloc(1 << 16);

	(void)state;
	assert_non_null(m);
	assert_non_null(buf);
	sa.sin_port = htons(app_metrics_port(m));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(slow, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	assert_int_equal(connect(slow, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(send(slow, req, strlen(req), 0), (ssize_t)strlen(req));
	for (int i = 0; i < 200; i++) {
		uint64_t before = app_metrics_stats(m)->scrapes;
		double t = mono();

		app_metrics_poll(m);
		t = mono() - t;
		/* the poll that formats the text does work; the others only try to write */
		if (app_metrics_stats(m)->scrapes == before && t > worst)
			worst = t;
		usleep(500);
	}
	assert_int_equal(app_metrics_stats(m)->scrapes, 1);
	/* a blocked send would hang here until the client reads; the bound is loose for loaded
	 * or sanitized runs */
	assert_true(worst < 0.5);
	assert_int_equal(app_metrics_poll(m), 1); /* still writing to the slow one */
	/* the bound of 8 is not reached: a second client is answered meanwhile */
	fast = connect_to(app_metrics_port(m));
	assert_int_equal(send(fast, req, strlen(req), 0), (ssize_t)strlen(req));
	/* poll while reading the start of fast's answer into a 256-byte buffer */
	memset(out, 0, sizeof(out));
	{
		size_t n = 0;

		for (int i = 0; i < 20000 && n < sizeof(out) - 1; i++) {
			ssize_t r;

			app_metrics_poll(m);
			r = recv(fast, out + n, sizeof(out) - 1 - n, 0);
			if (r > 0)
				n += (size_t)r;
			else
				usleep(100);
		}
	}
	assert_true(strncmp(out, "HTTP/1.1 200 OK\r\n", 17) == 0);
	close(fast);
	/* now the slow one reads: the head, then exactly Content-Length bytes, then the close */
	fcntl(slow, F_SETFL, O_NONBLOCK);
	for (int i = 0; i < 200000; i++) {
		ssize_t r;

		app_metrics_poll(m);
		r = recv(slow, buf, 1 << 16, 0);
		if (r == 0)
			break;
		if (r < 0) {
			assert_int_equal(errno, EAGAIN);
			usleep(100);
			continue;
		}
		if (!want) {
			char *end;

			memcpy(head, buf, sizeof(head) - 1);
			head[sizeof(head) - 1] = 0;
			end = strstr(head, "\r\n\r\n");
			assert_non_null(end);
			assert_non_null(strstr(head, "Content-Length: "));
			want = strtoul(strstr(head, "Content-Length: ") + 16, NULL, 10) +
			       (size_t)(end + 4 - head);
		}
		got += (size_t)r;
	}
	/* the head: status line, Content-Type, "Content-Length: 6553600", Connection: 119 bytes */
	assert_int_equal(want, 4 * 65536 * 25 + 119);
	assert_int_equal(got, want);
	close(slow);
	free(buf);
	assert_int_equal(app_metrics_stats(m)->scrapes, 2);
	app_metrics_close(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_family_and_samples),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_buf_grows),
		cmocka_unit_test(test_lat_bucket),
		cmocka_unit_test(test_nfsd_text),
		cmocka_unit_test(test_nfsd_lanes),
		cmocka_unit_test(test_nfsd_lane_pools),
		cmocka_unit_test(test_parse_addr),
		cmocka_unit_test(test_http),
		cmocka_unit_test(test_conn_bound),
		cmocka_unit_test(test_slow_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
