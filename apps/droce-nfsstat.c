/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-nfsstat - nfsstat -s for droce-nfsd: reads its Prometheus metrics (droce-nfsd
 * --metrics IP:PORT, docs/observability.md) over HTTP and prints the server's NFSv3 calls per
 * procedure with their share and latency (p50/p99 estimated from the histograms), bytes, the
 * statuses answered, the duplicate request cache, connections and helper threads; when it
 * serves NFSv4.1/4.2, its COMPOUNDs and the operations that ran, the same way, with the
 * failed operations by status, bytes, clients and sessions.
 *
 * Usage: droce-nfsstat [-s IP:PORT] [-j] [-w SECONDS [-n COUNT]]
 *   -s  where droce-nfsd serves /metrics (default 127.0.0.1:9464)
 *   -j  JSON instead of tables (one object; in watch mode one object per line)
 *   -w  watch: every SECONDS, the rates per second over the last interval
 *   -n  with -w: stop after COUNT intervals (default: until interrupted)
 * Exit: 0, 1 when droce-nfsd cannot be reached or answers something else, 2 for bad usage.
 */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "app_metrics.h"

#define MAX_BODY (16u << 20)
#define TIMEOUT_MS 5000
#define NPROCS 22

#define V4 "droce_nfsd_nfs4_"
#define V4_HIST V4 "op_duration_seconds_bucket"

static const char *const procs[NPROCS] = {
	"NULL",	   "GETATTR",	  "SETATTR", "LOOKUP", "ACCESS",   "READLINK", "READ",	 "WRITE",
	"CREATE",  "MKDIR",	  "SYMLINK", "MKNOD",  "REMOVE",   "RMDIR",    "RENAME", "LINK",
	"READDIR", "READDIRPLUS", "FSSTAT",  "FSINFO", "PATHCONF", "COMMIT"};

/* One sample of the exposition: "name{labels} value". */
struct sample {
	char *name, *labels; /* labels without braces, "" for none */
	double v;
};

struct scrape {
	char *text;
	struct sample *s;
	size_t n, cap;
	double when; /* CLOCK_MONOTONIC seconds */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int wait_fd(int fd, short events, double deadline)
{
	struct pollfd p = {.fd = fd, .events = events};

	for (;;) {
		int ms = (int)((deadline - mono_s()) * 1000);
		int n;

		if (ms <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, ms);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

/* GET /metrics from at. @return the body (malloc'd), or NULL with *err an errno value, or
 * with *status the HTTP status when it was not 200 */
static char *http_get(const char *at, int *err, int *status)
{
	struct sockaddr_storage ss;
	size_t sl = sizeof(ss), len = 0, cap = 65536;
	double deadline = mono_s() + TIMEOUT_MS / 1000.0;
	char req[256], *buf = NULL, *body;
	int fd = -1, e = 0, code;

	*status = 0;
	if (app_metrics_parse_addr(at, &ss, &sl) != 0) {
		*err = EINVAL;
		return NULL;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*err = errno;
		return NULL;
	}
	if (connect(fd, (struct sockaddr *)&ss, (socklen_t)sl) != 0) {
		socklen_t el = sizeof(e);

		if (errno != EINPROGRESS) {
			e = errno;
			goto fail;
		}
		if ((e = -wait_fd(fd, POLLOUT, deadline)) != 0)
			goto fail;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0)
			e = errno;
		if (e)
			goto fail;
	}
	snprintf(req, sizeof(req),
		 "GET /metrics HTTP/1.1\r\nHost: %s\r\nUser-Agent: droce-nfsstat\r\n"
		 "Accept: text/plain\r\nConnection: close\r\n\r\n",
		 at);
	for (size_t off = 0; off < strlen(req);) {
		ssize_t n = send(fd, req + off, strlen(req) - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EAGAIN && (e = -wait_fd(fd, POLLOUT, deadline)) == 0)
			continue;
		if (n < 0) {
			e = e ? e : errno;
			goto fail;
		}
		off += (size_t)n;
	}
	buf = malloc(cap);
	if (!buf) {
		e = ENOMEM;
		goto fail;
	}
	for (;;) {
		ssize_t n;

		if (len + 1 == cap) {
			char *p = cap < MAX_BODY ? realloc(buf, cap * 2) : NULL;

			if (!p) {
				e = EFBIG;
				goto fail;
			}
			buf = p;
			cap *= 2;
		}
		n = recv(fd, buf + len, cap - 1 - len, 0);
		if (n == 0)
			break;
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			if ((e = -wait_fd(fd, POLLIN, deadline)) != 0)
				goto fail;
			continue;
		}
		if (n < 0) {
			e = errno;
			goto fail;
		}
		len += (size_t)n;
	}
	close(fd);
	buf[len] = 0;
	body = strstr(buf, "\r\n\r\n");
	if (sscanf(buf, "HTTP/1.%*d %d", &code) != 1 || !body) {
		free(buf);
		*err = EPROTO;
		return NULL;
	}
	if (code != 200) {
		free(buf);
		*status = code;
		*err = EPROTO;
		return NULL;
	}
	body += 4;
	memmove(buf, body, strlen(body) + 1);
	return buf;
fail:
	free(buf);
	close(fd);
	*err = e ? e : EIO;
	return NULL;
}

/* Split the text into samples, in place. Comments and blank lines are skipped. */
static int parse(struct scrape *sc)
{
	char *line = sc->text, *next;

	for (; line && *line; line = next) {
		char *sp, *brace, *end;
		struct sample s;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (*line == '#' || !*line)
			continue;
		brace = strchr(line, '{');
		sp = strrchr(line, ' ');
		if (!sp)
			continue;
		*sp = 0;
		s.v = strtod(sp + 1, &end);
		if (brace && brace < sp) {
			char *close = strrchr(brace, '}');

			if (!close)
				continue;
			*brace = 0;
			*close = 0;
			s.labels = brace + 1;
		} else {
			s.labels = sp; /* "" */
		}
		s.name = line;
		if (sc->n == sc->cap) {
			size_t cap = sc->cap ? sc->cap * 2 : 512;
			struct sample *p = realloc(sc->s, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			sc->s = p;
			sc->cap = cap;
		}
		sc->s[sc->n++] = s;
	}
	return 0;
}

static void scrape_free(struct scrape *sc)
{
	free(sc->text);
	free(sc->s);
	memset(sc, 0, sizeof(*sc));
}

static int scrape(const char *at, struct scrape *sc)
{
	int err, status;

	memset(sc, 0, sizeof(*sc));
	sc->text = http_get(at, &err, &status);
	sc->when = mono_s();
	if (!sc->text) {
		if (status)
			fprintf(stderr,
				"droce-nfsstat: droce-nfsd's metrics at %s answered HTTP %d, not "
				"200\n",
				at, status);
		else
			fprintf(stderr,
				"droce-nfsstat: cannot reach droce-nfsd's metrics at %s: %s; start "
				"droce-nfsd with --metrics IP:PORT\n",
				at, strerror(err));
		return -1;
	}
	if (parse(sc) != 0) {
		fprintf(stderr, "droce-nfsstat: out of memory\n");
		return -1;
	}
	return 0;
}

/* The value of name{labels} (labels exactly as droce-nfsd writes them), 0 when absent. */
static double get(const struct scrape *sc, const char *name, const char *labels)
{
	for (size_t i = 0; i < sc->n; i++)
		if (strcmp(sc->s[i].name, name) == 0 && strcmp(sc->s[i].labels, labels) == 0)
			return sc->s[i].v;
	return 0;
}

static bool has(const struct scrape *sc, const char *name)
{
	for (size_t i = 0; i < sc->n; i++)
		if (strcmp(sc->s[i].name, name) == 0)
			return true;
	return false;
}

/* The sum over every series of a name whose labels contain want ("" for all). */
static double sum(const struct scrape *sc, const char *name, const char *want)
{
	double v = 0;

	for (size_t i = 0; i < sc->n; i++)
		if (strcmp(sc->s[i].name, name) == 0 && strstr(sc->s[i].labels, want))
			v += sc->s[i].v;
	return v;
}

static double calls(const struct scrape *sc, int p)
{
	char lab[64];

	snprintf(lab, sizeof(lab), "proc=\"%s\"", procs[p]);
	return get(sc, "droce_nfsd_nfs3_calls_total", lab);
}

/*
 * The q-quantile of procedure p's latency in µs, from its histogram (Prometheus'
 * histogram_quantile: linear within the bucket that holds it). NAN without calls; past the
 * last finite bound, that bound (and *over set).
 */
static double hist_quantile_us(const struct scrape *sc, const char *hb, const char *key,
			       const char *name, double q, bool *over)
{
	char want[96];
	double total = 0, prev_le = 0, prev_cum = 0, rank;
	size_t first = sc->n;

	*over = false;
	snprintf(want, sizeof(want), "%s=\"%s\",le=\"", key, name);
	for (size_t i = 0; i < sc->n; i++)
		if (strcmp(sc->s[i].name, hb) == 0 &&
		    strncmp(sc->s[i].labels, want, strlen(want)) == 0) {
			if (first == sc->n)
				first = i;
			total = sc->s[i].v; /* buckets are cumulative: the last is +Inf */
		}
	if (total <= 0)
		return NAN;
	rank = q * total;
	for (size_t i = first; i < sc->n && strcmp(sc->s[i].name, hb) == 0; i++) {
		const char *lv = sc->s[i].labels + strlen(want);
		double le, cum = sc->s[i].v;

		if (strncmp(sc->s[i].labels, want, strlen(want)) != 0)
			break;
		if (strncmp(lv, "+Inf", 4) == 0) {
			*over = true;
			return prev_le * 1e6;
		}
		le = strtod(lv, NULL);
		if (cum >= rank && cum > prev_cum)
			return (prev_le + (le - prev_le) * (rank - prev_cum) / (cum - prev_cum)) *
			       1e6;
		prev_le = le;
		prev_cum = cum;
	}
	return NAN;
}

static double quantile_us(const struct scrape *sc, int p, double q, bool *over)
{
	return hist_quantile_us(sc, "droce_nfsd_nfs3_call_duration_seconds_bucket", "proc",
				procs[p], q, over);
}

/* NFSv4: the operations' labels (op="NAME") in the order droce-nfsd lists them (opcode
 * order); *n of them. @return the labels (pointers into sc), NULL when none */
static const char **v4_ops(const struct scrape *sc, size_t *n)
{
	const char **ops = NULL;

	*n = 0;
	for (size_t i = 0; i < sc->n; i++) {
		const char **p;

		if (strcmp(sc->s[i].name, V4 "ops_total") != 0 ||
		    strncmp(sc->s[i].labels, "op=\"", 4) != 0)
			continue;
		p = realloc(ops, (*n + 1) * sizeof(*ops));
		if (!p)
			break;
		ops = p;
		ops[(*n)++] = sc->s[i].labels;
	}
	return ops;
}

/* op="READ": the name's length (it starts at lab + 4) */
static int op_len(const char *lab)
{
	return (int)strcspn(lab + 4, "\"");
}

static double v4_calls(const struct scrape *sc, const char *lab)
{
	return get(sc, V4 "ops_total", lab);
}

static double v4_quantile_us(const struct scrape *sc, const char *lab, double q, bool *over)
{
	char name[64];

	snprintf(name, sizeof(name), "%.*s", op_len(lab), lab + 4);
	return hist_quantile_us(sc, V4_HIST, "op", name, q, over);
}

static void print_us(FILE *f, double us, bool over)
{
	if (isnan(us))
		fprintf(f, "  %10s", "-");
	else
		fprintf(f, " %s%10.0f", over ? ">" : " ", us);
}

static void print_v4_table(const struct scrape *sc)
{
	size_t n;
	const char **ops = v4_ops(sc, &n);
	double total = 0;
	bool any = false;

	for (size_t i = 0; i < n; i++)
		total += v4_calls(sc, ops[i]);
	printf("\nServer nfs v4: %.0f compounds, %.0f failed; %.0f operations\n",
	       get(sc, V4 "compounds_total", ""), get(sc, V4 "compound_errors_total", ""), total);
	printf("%-20s %12s %7s %9s %11s %11s\n", "op", "calls", "%", "errors", "p50 us", "p99 us");
	for (size_t i = 0; i < n; i++) {
		double c = v4_calls(sc, ops[i]);
		bool o50, o99;
		double p50, p99;

		if (c <= 0)
			continue; /* the table lists what ran; the JSON every operation */
		p50 = v4_quantile_us(sc, ops[i], 0.5, &o50);
		p99 = v4_quantile_us(sc, ops[i], 0.99, &o99);
		printf("%-20.*s %12.0f %6.1f%% %9.0f", op_len(ops[i]), ops[i] + 4, c,
		       total > 0 ? 100.0 * c / total : 0.0, get(sc, V4 "op_errors_total", ops[i]));
		print_us(stdout, p50, o50);
		print_us(stdout, p99, o99);
		printf("\n");
	}
	printf("\nv4 bytes: read %.0f, written %.0f\n", get(sc, V4 "read_bytes_total", ""),
	       get(sc, V4 "written_bytes_total", ""));
	printf("v4 failed operations by status:");
	for (size_t i = 0; i < sc->n; i++) {
		const char *l = sc->s[i].labels + 8; /* status=" */

		if (strcmp(sc->s[i].name, V4 "op_status_total") != 0 || sc->s[i].v <= 0)
			continue;
		printf("%s %.*s %.0f", any ? "," : "", (int)strcspn(l, "\""), l, sc->s[i].v);
		any = true;
	}
	printf(any ? "\n" : " none\n");
	printf("v4 clients %.0f, sessions %.0f; delegations granted %.0f, recalled %.0f; in "
	       "grace %.0f\n",
	       get(sc, V4 "clients", ""), get(sc, V4 "sessions", ""),
	       get(sc, V4 "delegations_granted_total", ""),
	       get(sc, V4 "delegations_recalled_total", ""), get(sc, V4 "in_grace", ""));
	free(ops);
}

static void print_v4_json(const struct scrape *sc)
{
	size_t n;
	const char **ops = v4_ops(sc, &n);
	bool any = false;

	printf(",\"nfs4\":{\"compounds\":%.0f,\"compound_errors\":%.0f,\"ops\":{",
	       get(sc, V4 "compounds_total", ""), get(sc, V4 "compound_errors_total", ""));
	for (size_t i = 0; i < n; i++) {
		bool o;
		double q50 = v4_quantile_us(sc, ops[i], 0.5, &o);
		double q99 = v4_quantile_us(sc, ops[i], 0.99, &o);

		printf("%s\"%.*s\":{\"calls\":%.0f,\"errors\":%.0f", i ? "," : "", op_len(ops[i]),
		       ops[i] + 4, v4_calls(sc, ops[i]), get(sc, V4 "op_errors_total", ops[i]));
		if (!isnan(q50))
			printf(",\"p50_us\":%.1f,\"p99_us\":%.1f", q50, q99);
		printf("}");
	}
	printf("},\"status\":{");
	for (size_t i = 0; i < sc->n; i++)
		if (strcmp(sc->s[i].name, V4 "op_status_total") == 0 && sc->s[i].v > 0) {
			const char *l = sc->s[i].labels + 8; /* status=" */

			printf("%s\"%.*s\":%.0f", any ? "," : "", (int)strcspn(l, "\""), l,
			       sc->s[i].v);
			any = true;
		}
	printf("},\"read_bytes\":%.0f,\"written_bytes\":%.0f,\"clients\":%.0f,"
	       "\"sessions\":%.0f}",
	       get(sc, V4 "read_bytes_total", ""), get(sc, V4 "written_bytes_total", ""),
	       get(sc, V4 "clients", ""), get(sc, V4 "sessions", ""));
	free(ops);
}

static void print_table(const char *at, const struct scrape *sc)
{
	double total = 0, start = get(sc, "droce_nfsd_start_time_seconds", "");

	for (int p = 0; p < NPROCS; p++)
		total += calls(sc, p);
	printf("droce-nfsd at %s, up %.0f s\n\n", at, start > 0 ? (double)time(NULL) - start : 0);
	printf("Server nfs v3: %.0f calls, %.0f errors\n", total,
	       get(sc, "droce_nfsd_nfs3_errors_total", ""));
	printf("%-12s %12s %7s %11s %11s\n", "proc", "calls", "%", "p50 us", "p99 us");
	for (int p = 0; p < NPROCS; p++) {
		double n = calls(sc, p);
		bool o50, o99;
		double p50 = quantile_us(sc, p, 0.5, &o50), p99 = quantile_us(sc, p, 0.99, &o99);

		printf("%-12s %12.0f %6.1f%%", procs[p], n, total > 0 ? 100.0 * n / total : 0.0);
		print_us(stdout, p50, o50);
		print_us(stdout, p99, o99);
		printf("\n");
	}
	printf("\nbytes: read %.0f, written %.0f\n",
	       get(sc, "droce_nfsd_nfs3_read_bytes_total", ""),
	       get(sc, "droce_nfsd_nfs3_written_bytes_total", ""));
	printf("errors by status:");
	for (size_t i = 0, any = 0; i < sc->n; i++) {
		const char *l = sc->s[i].labels + 8; /* status=" */

		if (strcmp(sc->s[i].name, "droce_nfsd_nfs3_replies_total") != 0 ||
		    sc->s[i].v <= 0 || strstr(sc->s[i].labels, "\"NFS3_OK\""))
			continue;
		printf("%s %.*s %.0f", any++ ? "," : "", (int)strcspn(l, "\""), l, sc->s[i].v);
	}
	printf(get(sc, "droce_nfsd_nfs3_errors_total", "") > 0 ? "\n" : " none\n");
	printf("drc: inserted %.0f, replayed %.0f, in progress drops %.0f, evicted %.0f, too big "
	       "%.0f\n",
	       get(sc, "droce_nfsd_drc_inserted_total", ""),
	       get(sc, "droce_nfsd_drc_replayed_total", ""),
	       get(sc, "droce_nfsd_drc_in_progress_drops_total", ""),
	       get(sc, "droce_nfsd_drc_evicted_total", ""),
	       get(sc, "droce_nfsd_drc_too_big_total", ""));
	if (has(sc, "droce_nfsd_rdma_connections"))
		printf("connections: rdma %.0f open (accepted %.0f, rejected %.0f, closed %.0f); ",
		       get(sc, "droce_nfsd_rdma_connections", ""),
		       get(sc, "droce_nfsd_rdma_accepted_total", ""),
		       get(sc, "droce_nfsd_rdma_rejected_total", ""),
		       get(sc, "droce_nfsd_rdma_closed_total", ""));
	else
		printf("connections: rdma not served (--listen); ");
	printf("tcp %.0f open (accepted %.0f)\n", sum(sc, "droce_nfsd_tcp_connections", ""),
	       sum(sc, "droce_nfsd_tcp_accepted_total", ""));
	printf("helper threads: %.0f, calls %.0f, inline %.0f, queued now %.0f\n",
	       get(sc, "droce_nfsd_helper_threads", ""),
	       get(sc, "droce_nfsd_helper_calls_total", ""),
	       get(sc, "droce_nfsd_helper_inline_total", ""),
	       get(sc, "droce_nfsd_helper_queue_depth", ""));
	if (has(sc, V4 "compounds_total"))
		print_v4_table(sc);
}

static void print_json(const char *at, const struct scrape *sc)
{
	double total = 0;

	for (int p = 0; p < NPROCS; p++)
		total += calls(sc, p);
	printf("{\"server\":\"%s\",\"start_time\":%.3f,\"nfs3\":{\"calls\":%.0f,\"errors\":%.0f,"
	       "\"procs\":{",
	       at, get(sc, "droce_nfsd_start_time_seconds", ""), total,
	       get(sc, "droce_nfsd_nfs3_errors_total", ""));
	for (int p = 0; p < NPROCS; p++) {
		bool o;
		double q50 = quantile_us(sc, p, 0.5, &o), q99 = quantile_us(sc, p, 0.99, &o);

		printf("%s\"%s\":{\"calls\":%.0f", p ? "," : "", procs[p], calls(sc, p));
		if (!isnan(q50))
			printf(",\"p50_us\":%.1f,\"p99_us\":%.1f", q50, q99);
		printf("}");
	}
	printf("},\"status\":{");
	for (size_t i = 0, any = 0; i < sc->n; i++)
		if (strcmp(sc->s[i].name, "droce_nfsd_nfs3_replies_total") == 0) {
			const char *l = sc->s[i].labels + 8; /* status=" */

			printf("%s\"%.*s\":%.0f", any++ ? "," : "", (int)strcspn(l, "\""), l,
			       sc->s[i].v);
		}
	printf("},\"read_bytes\":%.0f,\"written_bytes\":%.0f},",
	       get(sc, "droce_nfsd_nfs3_read_bytes_total", ""),
	       get(sc, "droce_nfsd_nfs3_written_bytes_total", ""));
	printf("\"drc\":{\"inserted\":%.0f,\"replayed\":%.0f,\"in_progress_drops\":%.0f,"
	       "\"evicted\":%.0f,\"too_big\":%.0f},",
	       get(sc, "droce_nfsd_drc_inserted_total", ""),
	       get(sc, "droce_nfsd_drc_replayed_total", ""),
	       get(sc, "droce_nfsd_drc_in_progress_drops_total", ""),
	       get(sc, "droce_nfsd_drc_evicted_total", ""),
	       get(sc, "droce_nfsd_drc_too_big_total", ""));
	printf("\"connections\":{\"rdma\":%.0f,\"rdma_accepted\":%.0f,\"tcp\":%.0f,"
	       "\"tcp_accepted\":%.0f},",
	       get(sc, "droce_nfsd_rdma_connections", ""),
	       get(sc, "droce_nfsd_rdma_accepted_total", ""),
	       sum(sc, "droce_nfsd_tcp_connections", ""),
	       sum(sc, "droce_nfsd_tcp_accepted_total", ""));
	printf("\"helper\":{\"threads\":%.0f,\"calls\":%.0f,\"inline\":%.0f,\"queue\":%.0f}",
	       get(sc, "droce_nfsd_helper_threads", ""),
	       get(sc, "droce_nfsd_helper_calls_total", ""),
	       get(sc, "droce_nfsd_helper_inline_total", ""),
	       get(sc, "droce_nfsd_helper_queue_depth", ""));
	if (has(sc, V4 "compounds_total"))
		print_v4_json(sc);
	printf("}\n");
}

/* Watch mode: rates per second between two scrapes. */
static void print_rates(const struct scrape *a, const struct scrape *b, bool json)
{
	double dt = b->when - a->when, total = 0;
	double rd = get(b, "droce_nfsd_nfs3_read_bytes_total", "") -
		    get(a, "droce_nfsd_nfs3_read_bytes_total", "");
	double wr = get(b, "droce_nfsd_nfs3_written_bytes_total", "") -
		    get(a, "droce_nfsd_nfs3_written_bytes_total", "");

	size_t n4 = 0;
	const char **ops = has(b, V4 "compounds_total") ? v4_ops(b, &n4) : NULL;
	double c4 = get(b, V4 "compounds_total", "") - get(a, V4 "compounds_total", "");

	if (dt <= 0)
		dt = 1e-9;
	for (int p = 0; p < NPROCS; p++)
		total += calls(b, p) - calls(a, p);
	rd += get(b, V4 "read_bytes_total", "") - get(a, V4 "read_bytes_total", "");
	wr += get(b, V4 "written_bytes_total", "") - get(a, V4 "written_bytes_total", "");
	if (json) {
		printf("{\"interval_s\":%.3f,\"calls_per_s\":%.1f,\"procs_per_s\":{", dt,
		       total / dt);
		for (int p = 0, any = 0; p < NPROCS; p++) {
			double d = calls(b, p) - calls(a, p);

			if (d > 0)
				printf("%s\"%s\":%.1f", any++ ? "," : "", procs[p], d / dt);
		}
		printf("}");
		if (ops) {
			printf(",\"nfs4_compounds_per_s\":%.1f,\"nfs4_ops_per_s\":{", c4 / dt);
			for (size_t i = 0, any = 0; i < n4; i++) {
				double d = v4_calls(b, ops[i]) - v4_calls(a, ops[i]);

				if (d > 0)
					printf("%s\"%.*s\":%.1f", any++ ? "," : "", op_len(ops[i]),
					       ops[i] + 4, d / dt);
			}
			printf("}");
		}
		printf(",\"read_bytes_per_s\":%.0f,\"written_bytes_per_s\":%.0f}\n", rd / dt,
		       wr / dt);
	} else {
		printf("%.1f s: %.1f calls/s, read %.0f B/s, written %.0f B/s", dt, total / dt,
		       rd / dt, wr / dt);
		for (int p = 0; p < NPROCS; p++) {
			double d = calls(b, p) - calls(a, p);

			if (d > 0)
				printf(", %s %.1f/s", procs[p], d / dt);
		}
		if (ops)
			printf("; v4 %.1f compounds/s", c4 / dt);
		for (size_t i = 0; i < n4; i++) {
			double d = v4_calls(b, ops[i]) - v4_calls(a, ops[i]);

			if (d > 0)
				printf(", %.*s %.1f/s", op_len(ops[i]), ops[i] + 4, d / dt);
		}
		printf("\n");
	}
	free(ops);
	fflush(stdout);
}

static int usage(void)
{
	fprintf(stderr,
		"usage: droce-nfsstat [-s IP:PORT] [-j] [-w SECONDS [-n COUNT]]\n"
		"  -s  droce-nfsd's --metrics address (default 127.0.0.1:%u)\n"
		"  -j  JSON\n"
		"  -w  every SECONDS, the rates per second; -n: COUNT times\n",
		APP_METRICS_DEFAULT_PORT);
	return 2;
}

int main(int argc, char **argv)
{
	char def[32], *end;
	const char *at = def;
	double every = 0;
	long count = -1;
	bool json = false;
	struct scrape prev, cur;
	int o;

	snprintf(def, sizeof(def), "127.0.0.1:%u", APP_METRICS_DEFAULT_PORT);
	while ((o = getopt(argc, argv, "s:jw:n:h")) != -1) {
		if (o == 's') {
			at = optarg;
		} else if (o == 'j') {
			json = true;
		} else if (o == 'w') {
			every = strtod(optarg, &end);
			if (*end || !(every > 0))
				return usage();
		} else if (o == 'n') {
			count = strtol(optarg, &end, 10);
			if (*end || count < 1)
				return usage();
		} else {
			return usage();
		}
	}
	if (optind != argc || (count > 0 && every <= 0))
		return usage();
	{
		struct sockaddr_storage ss;
		size_t sl = sizeof(ss);

		if (app_metrics_parse_addr(at, &ss, &sl) != 0) {
			fprintf(stderr, "droce-nfsstat: -s %s: give IP:PORT\n", at);
			return 2;
		}
	}
	if (scrape(at, &prev) != 0)
		return 1;
	if (every <= 0) {
		if (json)
			print_json(at, &prev);
		else
			print_table(at, &prev);
		scrape_free(&prev);
		return 0;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (long i = 0; !stop && (count < 0 || i < count); i++) {
		struct timespec ts = {.tv_sec = (time_t)every,
				      .tv_nsec = (long)((every - (double)(time_t)every) * 1e9)};

		while (nanosleep(&ts, &ts) != 0 && !stop)
			;
		if (stop)
			break;
		if (scrape(at, &cur) != 0) {
			scrape_free(&prev);
			return 1;
		}
		print_rates(&prev, &cur, json);
		scrape_free(&prev);
		prev = cur;
	}
	scrape_free(&prev);
	return 0;
}
