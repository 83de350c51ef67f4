/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rc-bench-post.c - rc-bench's runs of how work reaches the wire: the SEND ping-pong in each
 * roce_post_mode compared (--pp-post, rounds interleaved), the parsing of post modes
 * (--post, --pp-post), and where the registered memory sits (--region heap|mmap: DPDK memory,
 * or anonymous memory whose IOVAs only the kernel's pagemap has; --iova picks when they are
 * looked up). The QP pair, side B's lcore and the options are rc-bench.c's (rc-bench-int.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "rc-bench-int.h"

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

static void pp_fail(struct rcb_pingpong *p, const char *why)
{
	if (p->ok)
		snprintf(p->why, sizeof(p->why), "%s", why);
	p->ok = false;
}

_Static_assert(
	ROCE_POST_QUEUE == 0 && ROCE_POST_DOORBELL == 1 && ROCE_POST_IMMEDIATE == 2 &&
		ROCE_POST_NUM_MODES == RCB_PP_MODES,
	"rcb_post_names[] and the report's immediate/queue ratio follow enum roce_post_mode");

/* Post mode @p m on both devices (B parked or on this lcore). */
static void set_post_mode(enum roce_post_mode m)
{
	for (int k = 0; k < 2; k++)
		roce_dev_set_post_mode(rcb_g.s[k].dev, m);
}

/*
 * SEND ping-pong: A sends 64 B, B's hook answers with 64 B on receipt; one round trip is
 * from A's post to A's receive completion of the answer. Sends are unsignalled on both
 * sides (their ACKs free the send queue), so only receives complete. Both devices post in
 * mode p->post. One round: its samples are appended at rtt[*nrtt].
 */
static void pingpong_round(struct rcb_pingpong *p, uint64_t *rtt, uint32_t *nrtt)
{
	struct side *a = &rcb_g.s[0], *b = &rcb_g.s[1];
	struct roce_dev_counts c0[2], c1[2];
	uint64_t t_end, warm = 1000, i = 0;
	uint32_t n = *nrtt,
		 lim_n = n + PP_MAX_SAMPLES / rcb_g.pp_rounds; /* a share for each round */

	rcb_park_b();
	set_post_mode(p->post);
	if (rcb_pair_create(p->mtu) != 0) {
		pp_fail(p, "QP pair");
		rcb_pair_destroy();
		rcb_unpark_b();
		return;
	}
	for (uint32_t j = 0; j < PP_RECVS; j++) {
		if (rcb_post_recv(a, j, a->buf + DST_OFF + j * 64, 64) != 0 ||
		    rcb_post_recv(b, j, b->buf + DST_OFF + j * 64, 64) != 0)
			pp_fail(p, "posting receives");
	}
	rcb_fill(a->buf + SRC_OFF, 64, 7);
	rcb_fill(b->buf + SRC_OFF, 64, 8);
	rcb_bc.mode = B_PONG;
	rcb_bc.recvs = 0;
	rcb_bc.err = 0;
	for (int k = 0; k < 2; k++)
		roce_dev_counts(rcb_g.s[k].dev, &c0[k]);
	rcb_unpark_b();
	t_end = rte_rdtsc() + (uint64_t)((rcb_g.secs + rcb_g.warmup) * (double)rcb_g.hz);
	while (p->ok && n < lim_n && rte_rdtsc() < t_end) {
		uint64_t t0 = rte_rdtsc(), lim = t0 + STALL_S * rcb_g.hz;
		struct roce_wc wc;
		int got = 0;

		if (rcb_post_send(a, ROCE_WR_SEND, i, a->buf + SRC_OFF, 64, 0, 0, false) != 0) {
			pp_fail(p, "post_send");
			break;
		}
		while (got == 0 && rte_rdtsc() < lim) {
			stk_lcore_poll(rcb_g.la);
			got = roce_poll_cq(a->cq, 1, &wc);
		}
		if (got != 1 || wc.status != ROCE_WC_SUCCESS || wc.opcode != ROCE_WC_RECV ||
		    wc.byte_len != 64) {
			pp_fail(p, got ? "bad reply completion" : "no reply within 2 s");
			break;
		}
		if (i++ >= warm)
			rtt[n++] = rte_rdtsc() - t0;
		if (rcb_post_recv(a, wc.wr_id, a->buf + DST_OFF + wc.wr_id * 64, 64) != 0) {
			pp_fail(p, "reposting a receive");
			break;
		}
	}
	rcb_settle(5); /* the last ACKs */
	rcb_park_b();
	if (rcb_bc.err)
		pp_fail(p, "side B reported an error");
	if (p->ok && memcmp(a->buf + DST_OFF, b->buf + SRC_OFF, 64) != 0)
		pp_fail(p, "reply bytes differ");
	*nrtt = n;
	for (int k = 0; k < 2; k++) { /* how the posts of each side went out */
		roce_dev_counts(rcb_g.s[k].dev, &c1[k]);
		p->tx_now[k] += c1[k].post_tx_now - c0[k].post_tx_now;
		p->doorbell[k] += c1[k].post_doorbell - c0[k].post_doorbell;
		p->deferred[k] += c1[k].post_deferred - c0[k].post_deferred;
	}
	rcb_pair_destroy();
	set_post_mode(rcb_g.post);
	rcb_bc.mode = B_IDLE;
	rcb_unpark_b();
}

/* The percentiles of @p n round trips in @p rtt (sorted here). */
static void pingpong_stats(struct rcb_pingpong *p, uint64_t *rtt, uint32_t n)
{
	if (p->ok && n > 0) {
		double sum = 0, us = 1e6 / (double)rcb_g.hz;

		qsort(rtt, n, sizeof(rtt[0]), cmp_u64);
		for (uint32_t j = 0; j < n; j++)
			sum += (double)rtt[j];
		p->n = n;
		p->min_us = (double)rtt[0] * us;
		p->p50_us = (double)rtt[n / 2] * us;
		p->p99_us = (double)rtt[(uint64_t)n * 99 / 100] * us;
		p->p999_us = (double)rtt[(uint64_t)n * 999 / 1000] * us;
		p->mean_us = sum / n * us;
	} else if (p->ok) {
		pp_fail(p, "no samples");
	}
}

/* Ping-pong at @p mtu in every post mode asked for, rounds interleaved (mode 1, mode 2, ...,
 * mode 1, ...), so that a busy moment of the machine falls on all of them alike. */
void rcb_run_pingpongs(struct rcb_mode *r, uint32_t mtu)
{
	static uint64_t rtt[RCB_PP_MODES][PP_MAX_SAMPLES];
	uint32_t n[RCB_PP_MODES] = {0};
	struct rcb_pingpong *p = &r->pp[r->npp];

	for (unsigned k = 0; k < rcb_g.npp_post; k++) {
		memset(&p[k], 0, sizeof(p[k]));
		p[k].mtu = mtu;
		p[k].post = rcb_g.pp_post[k];
		p[k].busy_ns = rcb_g.pp_busy_ns;
		p[k].ok = true;
	}
	for (unsigned round = 0; round < rcb_g.pp_rounds; round++)
		for (unsigned k = 0; k < rcb_g.npp_post; k++)
			if (p[k].ok)
				pingpong_round(&p[k], rtt[k], &n[k]);
	for (unsigned k = 0; k < rcb_g.npp_post; k++) {
		pingpong_stats(&p[k], rtt[k], n[k]);
		fprintf(stderr, "rc-bench: %u lcore(s): ping-pong @%u, post %s: p50 %.2f us\n",
			r->lcores, mtu, rcb_post_names[p[k].post], p[k].p50_us);
	}
	r->npp += rcb_g.npp_post;
}

/* ------------------------------------------------------------------ post modes */

/* "immediate", "doorbell", "queue" -> the mode. @return 0 or -1. */
int rcb_parse_post(const char *s, enum roce_post_mode *m)
{
	for (int k = 0; k < ROCE_POST_NUM_MODES; k++) {
		if (!strcmp(s, rcb_post_names[k])) {
			*m = (enum roce_post_mode)k;
			return 0;
		}
	}
	return -1;
}

/* ------------------------------------------------------------------ memory placement */

uint8_t *rcb_side_buf(void)
{
	uint8_t *buf;

	if (rcb_g.region_mmap) {
		/* memory DPDK does not know: in PA mode only the kernel's pagemap has its
		 * IOVAs (looked up at registration, or per packet with --iova packet) */
		void *p = mmap(NULL, SIDE_BUF, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

		buf = p == MAP_FAILED ? NULL : p;
		if (buf && mlock(buf, SIDE_BUF) != 0)
			fprintf(stderr, "rc-bench: mlock: %s\n", strerror(errno));
	} else {
		buf = rte_zmalloc("rcb_buf", SIDE_BUF, 4096);
	}
	return buf;
}
