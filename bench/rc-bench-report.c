/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rc-bench-report.c - rc-bench's output: one table per placement (1 or 2 lcores), the ratios
 * of the transport's rates to the baselines measured in the same run, and the JSON for plots.
 * See bench/README.md for how to read them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_version.h>

#include "rc-bench.h"
#include "roce_icrc.h"
#include "roce_tx.h"

const char *const rcb_op_names[RCB_NUM_OPS] = {"WRITE", "READ", "SEND", "READMB"};
const char *const rcb_post_names[RCB_PP_MODES] = {"queue", "doorbell", "immediate"};

static const struct rcb_raw *raw_for(const struct rcb_mode *r, uint32_t payload)
{
	for (unsigned i = 0; i < r->nraw; i++)
		if (r->raw[i].payload == payload && r->raw[i].ok)
			return &r->raw[i];
	return NULL;
}

static const struct rcb_cell *cell_for(const struct rcb_mode *r, enum rcb_op op, uint32_t mtu,
				       uint32_t size)
{
	for (unsigned i = 0; i < r->ncells; i++) {
		const struct rcb_cell *c = &r->cells[i];

		if (c->op == op && c->mtu == mtu && c->size == size && c->ok)
			return c;
	}
	return NULL;
}

static void print_cell(const struct rcb_cell *c)
{
	printf("%-6s %5u %8u %5u ", rcb_op_names[c->op], c->mtu, c->size, c->depth);
	if (!c->ok) {
		printf("FAIL: %s\n", c->why);
		return;
	}
	printf("%12.0f %9.2f %8.3f %5.2f %5.2f %5.2f %5.2f %6" PRIu64 " %5" PRIu64 " %4u ok%s\n",
	       c->mps, c->gbps, c->data_mpps, c->cpu_a, c->cpu_b, c->busy_a, c->busy_b, c->resent,
	       c->drops, c->verified,
	       c->cpu_a < 0.9 || (c->cpu_b > 0 && c->cpu_b < 0.9) ? " (CPU shared)" : "");
}

void rcb_print_mode(const struct rcb_mode *r)
{
	printf("\n== %u lcore%s: %s ==\n", r->lcores, r->lcores > 1 ? "s" : "",
	       r->lcores > 1 ? "side A (requester) on the main lcore, side B (responder) on the "
			       "next one"
			     : "one lcore runs both sides");
	printf("%-6s %5s %8s %5s %12s %9s %8s %5s %5s %5s %5s %6s %5s %4s\n", "op", "mtu", "size",
	       "depth", "msgs/s", "Gbit/s", "data-Mpps", "cpuA", "cpuB", "busyA", "busyB", "resent",
	       "drops", "chk");
	for (unsigned i = 0; i < r->ncells; i++)
		print_cell(&r->cells[i]);
	if (r->line_rtt_ns > 0)
		printf("-- cache line round trip between the two lcores: %.0f ns\n",
		       r->line_rtt_ns);
	printf("-- 64 B message rate (deep queue)\n");
	for (unsigned i = 0; i < r->nrate; i++)
		print_cell(&r->rate[i]);
	printf("-- SEND ping-pong, 64 B, round trip in us (one-way ~ RTT/2), by post mode "
	       "(immediate: the post sends; queue: the next poll sends; doorbell: the end of the "
	       "loop iteration)\n");
	for (unsigned i = 0; i < r->npp; i++) {
		const struct rcb_pingpong *p = &r->pp[i];

		if (!p->ok) {
			printf("mtu %4u %-9s: FAIL: %s\n", p->mtu, rcb_post_names[p->post], p->why);
			continue;
		}
		printf("mtu %4u %-9s: n=%u  min %.2f  p50 %.2f  p99 %.2f  p99.9 %.2f  mean %.2f  "
		       "posts A/B: now %" PRIu64 "/%" PRIu64 " bell %" PRIu64 "/%" PRIu64
		       " deferred %" PRIu64 "/%" PRIu64 "\n",
		       p->mtu, rcb_post_names[p->post], p->n, p->min_us, p->p50_us, p->p99_us,
		       p->p999_us, p->mean_us, p->tx_now[0], p->tx_now[1], p->doorbell[0],
		       p->doorbell[1], p->deferred[0], p->deferred[1]);
	}
	for (unsigned i = 0; i < r->npp; i++) { /* immediate against queue, same MTU, same run */
		const struct rcb_pingpong *a = &r->pp[i];

		if (!a->ok || a->post != 2)
			continue;
		for (unsigned k = 0; k < r->npp; k++) {
			const struct rcb_pingpong *q = &r->pp[k];

			if (q->ok && q->mtu == a->mtu && q->post == 0 && q->p50_us > 0)
				printf("mtu %4u: immediate / queue: p50 %.2f, p99 %.2f "
				       "(%.2f us less at p50)\n",
				       a->mtu, a->p50_us / q->p50_us, a->p99_us / q->p99_us,
				       q->p50_us - a->p50_us);
		}
	}
	printf("-- stack UDP baseline A->B (stk_udp_send -> sink, zero checksum, payload "
	       "untouched)\n");
	for (unsigned i = 0; i < r->nraw; i++) {
		const struct rcb_raw *w = &r->raw[i];

		if (!w->ok)
			printf("payload %5u B: skipped or failed\n", w->payload);
		else
			printf("payload %5u B: %.2f Mpps (%.0f ns/frame)  drops %" PRIu64
			       "  refused %" PRIu64 "\n",
			       w->payload, w->mpps, 1e3 / w->mpps, w->drops, w->send_failed);
	}
}

/* The ratios the issue asks for, from this placement's own baselines. */
void rcb_print_ratios(const struct rcb_run *run, const struct rcb_mode *r)
{
	const struct rcb_raw *r64 = raw_for(r, 64);

	printf("-- ratios (%u lcore%s)\n", r->lcores, r->lcores > 1 ? "s" : "");
	for (unsigned m = 0; m < run->nmtus; m++) {
		uint32_t mtu = run->mtus[m];
		const struct rcb_raw *rw = raw_for(r, mtu + 16);

		for (int op = 0; op < RCB_NUM_OPS; op++) {
			const struct rcb_cell *c = cell_for(r, (enum rcb_op)op, mtu, 65536);

			if (!c || !rw)
				continue;
			printf("%-5s 64 KiB @%4u: %6.2f Gbit/s = %.2f Mpps of %u B; stack UDP "
			       "%.2f Mpps x %u B = %.1f Gbit/s; ratio %.2f\n",
			       rcb_op_names[op], mtu, c->gbps, c->data_mpps, mtu, rw->mpps, mtu,
			       rw->mpps * mtu * 8 / 1e3, c->gbps / (rw->mpps * mtu * 8 / 1e3));
		}
	}
	for (unsigned m = 0; m < run->nmtus; m++) {
		const struct rcb_cell *reg = cell_for(r, RCB_READ, run->mtus[m], 65536);
		const struct rcb_cell *mb = cell_for(r, RCB_READ_MBUF, run->mtus[m], 65536);

		/* issue 12: 64 KiB READ goodput into mbufs against into a region */
		if (reg && mb && reg->gbps > 0)
			printf("READ 64 KiB @%4u into mbufs %.2f Gbit/s, into a region %.2f Gbit/s; "
			       "ratio %.2f\n",
			       run->mtus[m], mb->gbps, reg->gbps, mb->gbps / reg->gbps);
	}
	for (unsigned i = 0; i < r->nrate; i++) {
		const struct rcb_cell *c = &r->rate[i];

		if (c->ok && r64)
			printf("%-5s 64 B msg rate @%4u: %.2f M msgs/s; stack UDP 64 B %.2f Mpps; "
			       "ratio %.2f\n",
			       rcb_op_names[c->op], c->mtu, c->mps / 1e6, r64->mpps,
			       c->mps / 1e6 / r64->mpps);
	}
	{
		const struct rcb_cell *c = cell_for(r, RCB_WRITE, 4096, 65536);

		/* per core against per core: the goodput divided by the lcores that made it */
		if (c)
			printf("target: RDMA WRITE 64 KiB @4096 >= 50 Gbit/s per core: %.2f Gbit/s "
			       "on %u core%s = %.2f per core -> %s\n",
			       c->gbps, r->lcores, r->lcores > 1 ? "s" : "", c->gbps / r->lcores,
			       c->gbps / r->lcores >= 50 ? "met" : "NOT met");
	}
	for (unsigned i = 0; i < r->nrate; i++) {
		const struct rcb_cell *c = &r->rate[i];
		/* issue 12: >= 5 M msgs/s with both sides on one lcore, >= 6 M/s on two (memif) */
		double want = r->lcores > 1 ? 6.0 : 5.0;

		if (c->ok)
			printf("target: %s 64 B msg rate @%u >= %.0f M msgs/s on %u core%s: %.2f -> "
			       "%s\n",
			       rcb_op_names[c->op], c->mtu, want, r->lcores,
			       r->lcores > 1 ? "s" : "", c->mps / 1e6,
			       c->mps / 1e6 >= want ? "met" : "NOT met");
	}
}

static void json_cell(FILE *f, const struct rcb_cell *c, bool first)
{
	fprintf(f,
		"%s\n      {\"op\":\"%s\",\"mtu\":%u,\"size\":%u,\"depth\":%u,\"ok\":%s,"
		"\"why\":\"%s\",\"msgs\":%" PRIu64 ",\"secs\":%.4f,\"gbit_s\":%.3f,"
		"\"msgs_s\":%.0f,\"data_mpps\":%.4f,\"cpu_a\":%.3f,\"cpu_b\":%.3f,"
		"\"busy_a\":%.3f,\"busy_b\":%.3f,"
		"\"total_msgs\":%" PRIu64 ",\"resent_pkts\":%" PRIu64 ",\"stack_drops\":%" PRIu64
		",\"slots_verified\":%u}",
		first ? "" : ",", rcb_op_names[c->op], c->mtu, c->size, c->depth,
		c->ok ? "true" : "false", c->why, c->msgs, c->secs, c->gbps, c->mps, c->data_mpps,
		c->cpu_a, c->cpu_b, c->busy_a, c->busy_b, c->total, c->resent, c->drops,
		c->verified);
}

static void cpu_model(char *out, size_t n)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(out, n, "?");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && c) {
			snprintf(out, n, "%s", c + 2);
			out[strcspn(out, "\n")] = '\0';
			break;
		}
	}
	fclose(f);
}

int rcb_write_json(const struct rcb_run *run, const char *path)
{
	FILE *f = fopen(path, "w");
	char cpu[128];

	if (!f) {
		fprintf(stderr, "rc-bench: cannot write %s: %s\n", path, strerror(errno));
		return -errno;
	}
	cpu_model(cpu, sizeof(cpu));
	fprintf(f,
		"{\n  \"machine\":{\"cpu\":\"%s\",\"cpus\":%ld,\"dpdk\":\"%s\","
		"\"hugepages\":%s,\"icrc_engine\":\"%s\"},\n",
		cpu, sysconf(_SC_NPROCESSORS_ONLN), rte_version(),
		rte_eal_has_hugepages() ? "true" : "false",
		roce_icrc_impl() == ROCE_CRC_ISAL ? "isa-l" : "table");
	fprintf(f,
		"  \"params\":{\"seconds\":%.3f,\"warmup\":%.3f,\"max_depth\":%u,"
		"\"inflight_bytes\":%u,\"rate_depth\":%u,\"mbuf_room\":%u,\"ip_mtu\":%u,"
		"\"ring\":%u,\"pool\":%u,\"post\":\"%s\",\"copy_max\":%u},\n",
		run->secs, run->warmup, run->depth, run->inflight, run->rate_depth, run->mbuf_room,
		run->ip_mtu, run->ring, run->pool, rcb_post_names[run->post], roce_copy_max);
	fprintf(f, "  \"baselines\":{\"memcpy_4k_gb_s\":%.3f,\"memcpy_64k_gb_s\":%.3f",
		run->memcpy_gbs[0], run->memcpy_gbs[1]);
	for (unsigned m = 0; m < run->nmtus; m++)
		fprintf(f, ",\"icrc_check_%u_gb_s\":%.3f", run->mtus[m], run->icrc_gbs[m]);
	fprintf(f, "},\n  \"modes\":[");
	for (unsigned i = 0; i < run->nres; i++) {
		const struct rcb_mode *r = &run->res[i];

		fprintf(f, "%s\n    {\"lcores\":%u,\"line_rtt_ns\":%.1f,\"cells\":[", i ? "," : "",
			r->lcores, r->line_rtt_ns);
		for (unsigned k = 0; k < r->ncells; k++)
			json_cell(f, &r->cells[k], k == 0);
		fprintf(f, "],\n     \"msg_rate\":[");
		for (unsigned k = 0; k < r->nrate; k++)
			json_cell(f, &r->rate[k], k == 0);
		fprintf(f, "],\n     \"pingpong_rtt_us\":[");
		for (unsigned k = 0; k < r->npp; k++) {
			const struct rcb_pingpong *p = &r->pp[k];

			fprintf(f,
				"%s{\"mtu\":%u,\"post\":\"%s\",\"ok\":%s,\"n\":%u,\"min\":%.3f,"
				"\"p50\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"mean\":%.3f,"
				"\"busy_ns\":%u,\"posts_tx_now\":[%" PRIu64 ",%" PRIu64 "],"
				"\"posts_doorbell\":[%" PRIu64 ",%" PRIu64 "],"
				"\"posts_deferred\":[%" PRIu64 ",%" PRIu64 "]}",
				k ? "," : "", p->mtu, rcb_post_names[p->post],
				p->ok ? "true" : "false", p->n, p->min_us, p->p50_us, p->p99_us,
				p->p999_us, p->mean_us, p->busy_ns, p->tx_now[0], p->tx_now[1],
				p->doorbell[0], p->doorbell[1], p->deferred[0], p->deferred[1]);
		}
		fprintf(f, "],\n     \"stack_udp\":[");
		for (unsigned k = 0; k < r->nraw; k++)
			fprintf(f,
				"%s{\"payload\":%u,\"ok\":%s,\"mpps\":%.4f,\"drops\":%" PRIu64 "}",
				k ? "," : "", r->raw[k].payload, r->raw[k].ok ? "true" : "false",
				r->raw[k].mpps, r->raw[k].drops);
		fprintf(f, "],\n     \"ratios\":{");
		{
			bool first = true;

			for (unsigned m = 0; m < run->nmtus; m++) {
				const struct rcb_raw *rw = raw_for(r, run->mtus[m] + 16);

				for (int op = 0; op < RCB_NUM_OPS && rw; op++) {
					const struct rcb_cell *c =
						cell_for(r, (enum rcb_op)op, run->mtus[m], 65536);

					if (!c)
						continue;
					fprintf(f, "%s\"%s_64k_mtu%u_vs_stack_udp\":%.4f",
						first ? "" : ",", rcb_op_names[op], run->mtus[m],
						c->gbps / (rw->mpps * run->mtus[m] * 8 / 1e3));
					first = false;
				}
			}
			for (unsigned m = 0; m < run->nmtus; m++) {
				const struct rcb_cell *reg =
					cell_for(r, RCB_READ, run->mtus[m], 65536);
				const struct rcb_cell *mb =
					cell_for(r, RCB_READ_MBUF, run->mtus[m], 65536);

				if (!reg || !mb || reg->gbps <= 0)
					continue;
				fprintf(f, "%s\"READMB_64k_mtu%u_vs_READ\":%.4f", first ? "" : ",",
					run->mtus[m], mb->gbps / reg->gbps);
				first = false;
			}
			for (unsigned k = 0; k < r->nrate; k++) {
				const struct rcb_raw *r64 = raw_for(r, 64);

				if (!r->rate[k].ok || !r64)
					continue;
				fprintf(f, "%s\"%s_64b_rate_mtu%u_vs_stack_udp\":%.4f",
					first ? "" : ",", rcb_op_names[r->rate[k].op],
					r->rate[k].mtu, r->rate[k].mps / 1e6 / r64->mpps);
				first = false;
			}
		}
		fprintf(f, "}}");
	}
	fprintf(f, "\n  ]\n}\n");
	printf("JSON: %s\n", path);
	return fclose(f) == 0 ? 0 : -errno;
}
