/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_dcqcn.c - the DCQCN reaction point and the notification point's CNP pacing (see
 * roce_dcqcn.h for the algorithm; Zhu et al. SIGCOMM 2015, Figure 7 and section 5).
 */
#include <string.h>

#include <rte_common.h>

#include "roce_dcqcn.h"

#define ST_NAME_(n) #n,
static const char *const stage_names[] = {ROCE_DCQCN_STAGES(ST_NAME_)};

const char *roce_dcqcn_stage_str(enum roce_dcqcn_stage s)
{
	return (unsigned)s < RTE_DIM(stage_names) ? stage_names[s] : "?";
}

void roce_dcqcn_params_default(struct roce_dcqcn_params *p, double line_gbps)
{
	memset(p, 0, sizeof(*p));
	p->line_gbps = line_gbps;
	p->min_gbps = 0.001;
	p->ai_gbps = 0.005;
	p->hai_gbps = 0.05;
	p->g = 1.0 / 256;
	p->f = 5;
	p->alpha_us = 55;
	p->timer_us = 55;
	p->byte_counter = 150 * 1024;
	p->cnp_interval_us = 50;
}

static uint64_t us(const struct roce_dcqcn_rp *rp, uint32_t v)
{
	return rp->hz / 1000000 * v;
}

static void set_stage(struct roce_dcqcn_rp *rp, enum roce_dcqcn_stage s)
{
	if (rp->stage != s)
		rp->stage_cnt[s]++;
	rp->stage = s;
}

void roce_dcqcn_rp_init(struct roce_dcqcn_rp *rp, const struct roce_dcqcn_params *p, uint64_t hz,
			uint64_t now)
{
	memset(rp, 0, sizeof(*rp));
	rp->p = p;
	rp->hz = hz;
	rp->rc = rp->rt = p->line_gbps;
	rp->alpha = 1.0;
	rp->stage = ROCE_DCQCN_LINE;
	rp->stage_cnt[ROCE_DCQCN_LINE] = 1;
	rp->next_tx = now;
}

void roce_dcqcn_rp_cnp(struct roce_dcqcn_rp *rp, uint64_t now)
{
	const struct roce_dcqcn_params *p = rp->p;

	rp->cnps++;
	rp->rt = rp->rc;
	rp->rc = RTE_MAX(rp->rc * (1.0 - rp->alpha / 2.0), p->min_gbps);
	rp->alpha = (1.0 - p->g) * rp->alpha + p->g;
	rp->t_count = rp->bc_count = 0;
	rp->bytes = 0;
	rp->alpha_at = now + us(rp, p->alpha_us);
	rp->timer_at = now + us(rp, p->timer_us);
	if (rp->stage == ROCE_DCQCN_LINE)
		rp->next_tx = now;
	set_stage(rp, ROCE_DCQCN_FAST_RECOVERY);
}

/* One increase event (rate timer or byte counter): IBA-free, DCQCN Figure 7. */
static void increase(struct roce_dcqcn_rp *rp)
{
	const struct roce_dcqcn_params *p = rp->p;
	uint32_t lo = RTE_MIN(rp->t_count, rp->bc_count);
	uint32_t hi = RTE_MAX(rp->t_count, rp->bc_count);

	rp->increases++;
	if (hi < p->f) {
		set_stage(rp, ROCE_DCQCN_FAST_RECOVERY);
	} else if (lo < p->f) {
		set_stage(rp, ROCE_DCQCN_ADDITIVE);
		rp->rt += p->ai_gbps;
	} else {
		set_stage(rp, ROCE_DCQCN_HYPER);
		rp->rt += (double)(lo - p->f + 1) * p->hai_gbps;
	}
	if (rp->rt > p->line_gbps)
		rp->rt = p->line_gbps;
	rp->rc = (rp->rt + rp->rc) / 2.0;
	/* back at (within a hair of) line rate: the limiter goes away */
	if (rp->rc >= p->line_gbps * 0.999) {
		rp->rc = rp->rt = p->line_gbps;
		set_stage(rp, ROCE_DCQCN_LINE);
	}
}

void roce_dcqcn_rp_tick(struct roce_dcqcn_rp *rp, uint64_t now)
{
	const struct roce_dcqcn_params *p = rp->p;

	if (rp->stage == ROCE_DCQCN_LINE)
		return;
	while (now >= rp->alpha_at) {
		rp->alpha = (1.0 - p->g) * rp->alpha;
		rp->alpha_at += us(rp, p->alpha_us);
	}
	while (rp->stage != ROCE_DCQCN_LINE && now >= rp->timer_at) {
		rp->t_count++;
		rp->timer_at += us(rp, p->timer_us);
		increase(rp);
	}
}

void roce_dcqcn_rp_sent(struct roce_dcqcn_rp *rp, uint32_t bytes, uint64_t now)
{
	if (rp->stage == ROCE_DCQCN_LINE)
		return;
	/* the next packet may leave bytes * 8 / RC later */
	if (rp->next_tx < now)
		rp->next_tx = now;
	rp->next_tx += (uint64_t)((double)bytes * 8.0 / (rp->rc * 1e9) * (double)rp->hz);
	rp->bytes += bytes;
	while (rp->stage != ROCE_DCQCN_LINE && rp->bytes >= rp->p->byte_counter) {
		rp->bytes -= rp->p->byte_counter;
		rp->bc_count++;
		increase(rp);
	}
}

bool roce_dcqcn_np_may_cnp(uint64_t *last_cnp, const struct roce_dcqcn_params *p, uint64_t hz,
			   uint64_t now)
{
	uint64_t gap = hz / 1000000 * p->cnp_interval_us;

	if (*last_cnp && now - *last_cnp < gap)
		return false;
	*last_cnp = now ? now : 1;
	return true;
}
