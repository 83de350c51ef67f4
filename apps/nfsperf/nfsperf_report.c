/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsperf_report.c - droce-nfsperf's numbers: completion latencies in a log-linear histogram
 * (64 sub-buckets per power of two, so a percentile is within 1.6 % of the exact value, as
 * fio's own plat histogram is), per-second series, and the two outputs:
 *   - fio's JSON (--output-format=json): the keys fio 3.x writes for a job ("jobname",
 *     "read"/"write"/"trim" with io_bytes, bw (KiB/s), iops, runtime (ms), total_ios,
 *     clat_ns/lat_ns with "percentile" keyed "50.000000" etc., the bw_ and iops_ series, "sync" for
 *     COMMITs, usr_cpu/sys_cpu), so fio's plotting and anyone's fio scripts read it; what is
 *     droce's own goes under "nfs" (transport, calls per procedure, errors by name);
 *   - fio's text layout (the default).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "nfsperf.h"

/* fio's default percentile_list */
static const double pcts[] = {1,  5,  10, 20, 30,   40,	  50,	 60,   70,
			      80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
#define NPCTS (sizeof(pcts) / sizeof(pcts[0]))

uint64_t np_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void np_err_count(struct np_errs *e, const char *name)
{
	for (uint32_t i = 0; i < e->n; i++)
		if (strcmp(e->e[i].name, name) == 0) {
			e->e[i].count++;
			return;
		}
	if (e->n < NP_MAX_ERRNAMES) {
		e->e[e->n].name = name;
		e->e[e->n].count = 1;
		e->n++;
	}
}

static void errs_merge(struct np_errs *to, const struct np_errs *from)
{
	for (uint32_t i = 0; i < from->n; i++)
		for (uint64_t k = 0; k < from->e[i].count; k++)
			np_err_count(to, from->e[i].name);
}

/* value v: below 2 * SUB one bucket each; above, SUB buckets per power of two */
static uint32_t bucket(uint64_t v)
{
	uint32_t msb, shift;

	if (v < 2 * NP_HIST_SUB)
		return (uint32_t)v;
	msb = 63u - (uint32_t)__builtin_clzll(v);
	shift = msb - 6u; /* NP_HIST_SUB is 2^6: v >> shift is in [SUB, 2 * SUB) */
	return shift * NP_HIST_SUB + (uint32_t)(v >> shift);
}

static uint64_t bucket_mid(uint32_t b)
{
	uint32_t shift;

	if (b < 2 * NP_HIST_SUB)
		return b;
	shift = b / NP_HIST_SUB - 1u;
	return ((uint64_t)(b - shift * NP_HIST_SUB) << shift) + ((1ull << shift) >> 1);
}

void np_lat_add(struct np_lat *l, uint64_t ns)
{
	uint32_t b = bucket(ns);

	if (!l->n || ns < l->min)
		l->min = ns;
	if (ns > l->max)
		l->max = ns;
	l->n++;
	l->sum += (double)ns;
	l->sumsq += (double)ns * (double)ns;
	l->hist[b < NP_HIST_NB ? b : NP_HIST_NB - 1]++;
}

void np_lat_merge(struct np_lat *to, const struct np_lat *from)
{
	if (!from->n)
		return;
	if (!to->n || from->min < to->min)
		to->min = from->min;
	if (from->max > to->max)
		to->max = from->max;
	to->n += from->n;
	to->sum += from->sum;
	to->sumsq += from->sumsq;
	for (uint32_t i = 0; i < NP_HIST_NB; i++)
		to->hist[i] += from->hist[i];
}

uint64_t np_lat_pct(const struct np_lat *l, double pct)
{
	/* as fio: the first bucket where the running count reaches pct of the samples */
	double want = pct / 100.0 * (double)l->n;
	uint64_t seen = 0;

	if (!l->n)
		return 0;
	for (uint32_t i = 0; i < NP_HIST_NB; i++) {
		seen += l->hist[i];
		if (l->hist[i] && (double)seen >= want) {
			uint64_t v = bucket_mid(i);

			return v < l->min ? l->min : v > l->max ? l->max : v;
		}
	}
	return l->max;
}

void np_series_add(struct np_series *s, double v)
{
	if (!s->n || v < s->min)
		s->min = v;
	if (!s->n || v > s->max)
		s->max = v;
	s->n++;
	s->sum += v;
	s->sumsq += v * v;
}

void np_series_merge(struct np_series *to, const struct np_series *from)
{
	if (!from->n)
		return;
	if (!to->n || from->min < to->min)
		to->min = from->min;
	if (!to->n || from->max > to->max)
		to->max = from->max;
	to->n += from->n;
	to->sum += from->sum;
	to->sumsq += from->sumsq;
}

void np_result_merge(struct np_result *to, const struct np_result *from)
{
	for (int d = 0; d < NP_NDIRS; d++) {
		struct np_dirstats *t = &to->d[d];
		const struct np_dirstats *f = &from->d[d];

		t->ios += f->ios;
		t->bytes += f->bytes;
		t->short_ios += f->short_ios;
		t->errors += f->errors;
		t->verify_errors += f->verify_errors;
		np_lat_merge(&t->clat, &f->clat);
		np_series_merge(&t->iops_s, &f->iops_s);
		np_series_merge(&t->bw_s, &f->bw_s);
	}
	errs_merge(&to->errs, &from->errs);
	for (uint32_t p = 0; p < NFS3_NPROCS; p++)
		to->calls[p] += from->calls[p];
	to->calls4 += from->calls4;
	/* merged jobs: the fewest slots any session had */
	if (from->slots4 && (!to->slots4 || from->slots4 < to->slots4))
		to->slots4 = from->slots4;
	for (uint32_t p = 0; p <= NFS4_OP_LAST; p++)
		to->ops4[p] += from->ops4[p];
	to->sync_ios += from->sync_ios;
	for (uint32_t k = 0; k < from->nconn && k < NP_MAX_NCONNECT; k++)
		to->conn_calls[k] += from->conn_calls[k];
	if (from->nconn > to->nconn)
		to->nconn = from->nconn;
	np_lat_merge(&to->sync_lat, &from->sync_lat);
	if (from->runtime_s > to->runtime_s)
		to->runtime_s = from->runtime_s;
	if (!to->error)
		to->error = from->error;
}

static double mean(double sum, uint64_t n)
{
	return n ? sum / (double)n : 0.0;
}

static double stddev(double sum, double sumsq, uint64_t n)
{
	double m, v;

	if (n < 2)
		return 0.0;
	m = sum / (double)n;
	v = (sumsq - (double)n * m * m) / (double)(n - 1);
	return v > 0 ? sqrt(v) : 0.0;
}

static const char *rw_name(enum np_rw rw)
{
	static const char *const n[] = {"read", "write", "randread", "randwrite", "rw", "randrw"};

	return n[rw];
}

/* ---- JSON ---- */

static void json_lat(FILE *f, const char *key, const struct np_lat *l, bool pct, const char *ind)
{
	fprintf(f,
		"%s\"%s\" : {\n%s  \"min\" : %" PRIu64 ",\n%s  \"max\" : %" PRIu64
		",\n%s  \"mean\" : %f,\n%s  \"stddev\" : %f,\n%s  \"N\" : %" PRIu64,
		ind, key, ind, l->n ? l->min : 0, ind, l->max, ind, mean(l->sum, l->n), ind,
		stddev(l->sum, l->sumsq, l->n), ind, l->n);
	if (pct && l->n) {
		fprintf(f, ",\n%s  \"percentile\" : {\n", ind);
		for (size_t i = 0; i < NPCTS; i++)
			fprintf(f, "%s    \"%f\" : %" PRIu64 "%s\n", ind, pcts[i],
				np_lat_pct(l, pcts[i]), i + 1 < NPCTS ? "," : "");
		fprintf(f, "%s  }", ind);
	}
	fprintf(f, "\n%s}", ind);
}

static void json_dir(FILE *f, const char *key, const struct np_dirstats *d, double rt_s)
{
	const char *ind = "        ";
	uint64_t rt_ms = (uint64_t)(rt_s * 1000.0 + 0.5);
	double bw_bytes = rt_s > 0 ? (double)d->bytes / rt_s : 0.0;
	double iops = rt_s > 0 ? (double)d->ios / rt_s : 0.0;

	if (!d->ios)
		rt_ms = 0;
	fprintf(f, "      \"%s\" : {\n", key);
	fprintf(f,
		"%s\"io_bytes\" : %" PRIu64 ",\n%s\"io_kbytes\" : %" PRIu64
		",\n%s\"bw_bytes\" : %" PRIu64 ",\n%s\"bw\" : %" PRIu64 ",\n%s\"iops\" : %f,\n"
		"%s\"runtime\" : %" PRIu64 ",\n%s\"total_ios\" : %" PRIu64
		",\n%s\"short_ios\" : %" PRIu64 ",\n%s\"drop_ios\" : 0,\n",
		ind, d->bytes, ind, d->bytes / 1024, ind, (uint64_t)bw_bytes, ind,
		(uint64_t)(bw_bytes / 1024.0), ind, iops, ind, rt_ms, ind, d->ios, ind,
		d->short_ios, ind);
	fprintf(f,
		"%s\"slat_ns\" : {\n%s  \"min\" : 0,\n%s  \"max\" : 0,\n%s  \"mean\" : 0.0,\n"
		"%s  \"stddev\" : 0.0,\n%s  \"N\" : 0\n%s},\n",
		ind, ind, ind, ind, ind, ind, ind);
	json_lat(f, "clat_ns", &d->clat, true, ind);
	fprintf(f, ",\n");
	/* no submission latency is measured: lat (slat + clat) is clat */
	json_lat(f, "lat_ns", &d->clat, false, ind);
	fprintf(f,
		",\n%s\"bw_min\" : %" PRIu64 ",\n%s\"bw_max\" : %" PRIu64
		",\n%s\"bw_agg\" : %f,\n%s\"bw_mean\" : %f,\n%s\"bw_dev\" : %f,\n"
		"%s\"bw_samples\" : %" PRIu64 ",\n",
		ind, (uint64_t)d->bw_s.min, ind, (uint64_t)d->bw_s.max, ind, d->bytes ? 100.0 : 0.0,
		ind, mean(d->bw_s.sum, d->bw_s.n), ind,
		stddev(d->bw_s.sum, d->bw_s.sumsq, d->bw_s.n), ind, d->bw_s.n);
	fprintf(f,
		"%s\"iops_min\" : %" PRIu64 ",\n%s\"iops_max\" : %" PRIu64
		",\n%s\"iops_mean\" : %f,\n%s\"iops_stddev\" : %f,\n%s\"iops_samples\" : %" PRIu64
		"\n      }",
		ind, (uint64_t)d->iops_s.min, ind, (uint64_t)d->iops_s.max, ind,
		mean(d->iops_s.sum, d->iops_s.n), ind,
		stddev(d->iops_s.sum, d->iops_s.sumsq, d->iops_s.n), ind, d->iops_s.n);
}

static void json_job_options(FILE *f, const struct np_opts *o)
{
	fprintf(f,
		"      \"job options\" : {\n"
		"        \"rw\" : \"%s\",\n        \"rwmixread\" : \"%u\",\n"
		"        \"bs\" : \"%u\",\n        \"iodepth\" : \"%u\",\n"
		"        \"numjobs\" : \"%u\",\n        \"size\" : \"%" PRIu64 "\",\n"
		"        \"nrfiles\" : \"%u\",\n        \"runtime\" : \"%g\",\n"
		"        \"verify\" : \"%s\",\n        \"sync\" : \"%d\"\n      },\n",
		rw_name(o->rw), o->rwmixread, o->bs, o->iodepth, o->numjobs, o->size, o->nrfiles,
		o->runtime, np_verify_name(o->verify), o->sync);
}

static void json_nfs(FILE *f, const struct np_report *r, const struct np_result *res)
{
	bool first = true;

	fprintf(f,
		"      \"nfs\" : {\n        \"transport\" : \"%s\",\n        \"version\" : \"%s\",\n"
		"        \"server\" : \"%s\",\n"
		"        \"export\" : \"%s\",\n        \"verify_errors\" : %" PRIu64 ",\n",
		r->o->xprt == NP_XPRT_RDMA ? "rdma" : "tcp", r->o->v41 ? "4.1" : "3", r->o->server,
		r->o->export, res->d[NP_READ].verify_errors + res->d[NP_WRITE].verify_errors);
	if (r->o->v41)
		fprintf(f, "        \"session_slots\" : %u,\n", res->slots4);
	fprintf(f, "        \"calls\" : {");
	for (uint32_t p = 0; p < NFS3_NPROCS; p++) {
		if (!res->calls[p])
			continue;
		fprintf(f, "%s\n          \"%s\" : %" PRIu64, first ? "" : ",", nfs3_proc_name(p),
			res->calls[p]);
		first = false;
	}
	/* 4.1: the COMPOUNDs, and the operations in them by name */
	if (res->calls4) {
		fprintf(f, "%s\n          \"COMPOUND\" : %" PRIu64, first ? "" : ",", res->calls4);
		first = false;
	}
	for (uint32_t p = 0; p <= NFS4_OP_LAST; p++) {
		if (!res->ops4[p])
			continue;
		fprintf(f, ",\n          \"%s\" : %" PRIu64, nfs4_op_name(p), res->ops4[p]);
	}
	fprintf(f, "%s},\n        \"errors\" : {", first ? "" : "\n        ");
	for (uint32_t i = 0; i < res->errs.n; i++)
		fprintf(f, "%s\n          \"%s\" : %" PRIu64, i ? "," : "", res->errs.e[i].name,
			res->errs.e[i].count);
	fprintf(f, "%s},\n        \"connection_calls\" : [", res->errs.n ? "\n        " : "");
	for (uint32_t k = 0; k < res->nconn; k++)
		fprintf(f, "%s%" PRIu64, k ? ", " : "", res->conn_calls[k]);
	fprintf(f, "],\n        \"xprt_stats\" : \"%s\",\n        \"lcore\" : %u\n      },\n",
		res->xprt_stats, res->lcore);
}

void np_report_json(FILE *f, const struct np_report *r)
{
	time_t now = time(NULL);
	char tbuf[64];

	ctime_r(&now, tbuf);
	tbuf[strcspn(tbuf, "\n")] = 0;
	fprintf(f,
		"{\n  \"fio version\" : \"droce-nfsperf-1\",\n  \"timestamp\" : %lld,\n"
		"  \"timestamp_ms\" : %" PRIu64 ",\n  \"time\" : \"%s\",\n"
		"  \"global options\" : {\n    \"ioengine\" : \"droce-nfs3-%s\"\n  },\n"
		"  \"jobs\" : [\n",
		(long long)now, (uint64_t)now * 1000, tbuf,
		r->o->xprt == NP_XPRT_RDMA ? "rdma" : "tcp");
	for (uint32_t j = 0; j < r->nres; j++) {
		const struct np_result *res = &r->res[j];
		static const struct np_dirstats none;

		fprintf(f,
			"    {\n      \"jobname\" : \"%s\",\n      \"groupid\" : 0,\n"
			"      \"error\" : %d,\n      \"eta\" : 0,\n      \"elapsed\" : %u,\n",
			res->name, res->error, (unsigned)(res->runtime_s + 0.999));
		json_job_options(f, r->o);
		json_dir(f, "read", &res->d[NP_READ], res->runtime_s);
		fprintf(f, ",\n");
		json_dir(f, "write", &res->d[NP_WRITE], res->runtime_s);
		fprintf(f, ",\n");
		json_dir(f, "trim", &none, res->runtime_s);
		fprintf(f, ",\n      \"sync\" : {\n        \"total_ios\" : %" PRIu64 ",\n",
			res->sync_ios);
		json_lat(f, "lat_ns", &res->sync_lat, true, "        ");
		fprintf(f, "\n      },\n");
		json_nfs(f, r, res);
		fprintf(f,
			"      \"job_runtime\" : %" PRIu64 ",\n      \"usr_cpu\" : %f,\n"
			"      \"sys_cpu\" : %f,\n      \"ctx\" : 0,\n      \"majf\" : 0,\n"
			"      \"minf\" : 0\n    }%s\n",
			(uint64_t)(res->runtime_s * 1000.0 + 0.5), r->usr_cpu, r->sys_cpu,
			j + 1 < r->nres ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
}

/* ---- text ---- */

static void human_bytes(double b, char *buf, size_t cap)
{
	static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int i = 0;

	while (b >= 1024.0 && i < 4) {
		b /= 1024.0;
		i++;
	}
	snprintf(buf, cap, i ? "%.1f%s" : "%.0f%s", b, u[i]);
}

static void text_dir(FILE *f, const char *name, const struct np_dirstats *d, double rt_s)
{
	const struct np_lat *l = &d->clat;
	double avg = mean(l->sum, l->n);
	double div = avg >= 10e6 ? 1e6 : avg >= 10e3 ? 1e3 : 1.0;
	const char *unit = div == 1e6 ? "msec" : div == 1e3 ? "usec" : "nsec";
	char bw[32], tot[32];

	if (!d->ios)
		return;
	human_bytes(rt_s > 0 ? (double)d->bytes / rt_s : 0, bw, sizeof(bw));
	human_bytes((double)d->bytes, tot, sizeof(tot));
	fprintf(f, "  %s: IOPS=%.0f, BW=%s/s (%.1fMB/s)(%s/%.0fmsec)\n", name,
		rt_s > 0 ? (double)d->ios / rt_s : 0, bw,
		rt_s > 0 ? (double)d->bytes / rt_s / 1e6 : 0, tot, rt_s * 1000);
	fprintf(f, "    clat (%s): min=%.0f, max=%.0f, avg=%.2f, stdev=%.2f\n", unit,
		(double)l->min / div, (double)l->max / div, avg / div,
		stddev(l->sum, l->sumsq, l->n) / div);
	fprintf(f, "     clat percentiles (%s):\n", unit);
	for (size_t i = 0; i < NPCTS; i++)
		fprintf(f, "%s%5.2fth=[%6.0f]%s", i % 4 == 0 ? "     | " : " ", pcts[i],
			(double)np_lat_pct(l, pcts[i]) / div,
			i + 1 == NPCTS ? "\n"
			: i % 4 == 3   ? ",\n"
				       : ",");
	if (d->short_ios || d->errors || d->verify_errors)
		fprintf(f, "    short=%" PRIu64 ", errors=%" PRIu64 ", verify errors=%" PRIu64 "\n",
			d->short_ios, d->errors, d->verify_errors);
}

void np_report_text(FILE *f, const struct np_report *r)
{
	for (uint32_t j = 0; j < r->nres; j++) {
		const struct np_result *res = &r->res[j];

		fprintf(f,
			"%s: (groupid=0, jobs=%u): err=%2d: transport=%s, nfs=%s, rw=%s, bs=%u, "
			"iodepth=%u\n",
			res->name, r->o->group_reporting ? r->o->numjobs : 1, res->error,
			r->o->xprt == NP_XPRT_RDMA ? "rdma" : "tcp", r->o->v41 ? "4.1" : "3",
			rw_name(r->o->rw), r->o->bs, r->o->iodepth);
		text_dir(f, "read", &res->d[NP_READ], res->runtime_s);
		text_dir(f, "write", &res->d[NP_WRITE], res->runtime_s);
		if (res->sync_ios)
			fprintf(f, "  sync (COMMIT): %" PRIu64 " calls, avg %.0f usec\n",
				res->sync_ios, mean(res->sync_lat.sum, res->sync_lat.n) / 1e3);
		fprintf(f, "  calls:");
		for (uint32_t p = 0; p < NFS3_NPROCS; p++)
			if (res->calls[p])
				fprintf(f, " %s=%" PRIu64, nfs3_proc_name(p), res->calls[p]);
		if (res->calls4)
			fprintf(f, " COMPOUND=%" PRIu64 " (session slots %u)", res->calls4,
				res->slots4);
		for (uint32_t p = 0; p <= NFS4_OP_LAST; p++)
			if (res->ops4[p])
				fprintf(f, " %s=%" PRIu64, nfs4_op_name(p), res->ops4[p]);
		fprintf(f, "\n  errors:");
		if (!res->errs.n)
			fprintf(f, " none");
		for (uint32_t i = 0; i < res->errs.n; i++)
			fprintf(f, " %s=%" PRIu64, res->errs.e[i].name, res->errs.e[i].count);
		if (res->nconn > 1) {
			fprintf(f, "\n  connections %u, calls on each:", res->nconn);
			for (uint32_t k = 0; k < res->nconn; k++)
				fprintf(f, " %" PRIu64, res->conn_calls[k]);
		}
		fprintf(f, "\n  lcore %u: %s\n", res->lcore, res->xprt_stats);
	}
	fprintf(f, "  cpu          : usr=%.2f%%, sys=%.2f%%\n", r->usr_cpu, r->sys_cpu);
}
