/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_cc_conf.c - the [dcqcn] section of droce's INI file: whether a device runs DCQCN and
 * every parameter of it (roce_dcqcn.h). The stack's loader leaves the section to us (it
 * belongs to the transport layer); the same file, parsed a second time with rte_cfgfile.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_cfgfile.h>
#include <rte_common.h>

#include "roce_dcqcn.h"

#define SEC "dcqcn"

static int bad(char *err, size_t n, const char *path, const char *k, const char *v, const char *why)
{
	snprintf(err, n, "%s: [" SEC "] %s = %s: %s", path, k, v, why);
	return -EINVAL;
}

static bool num(const char *v, double lo, double hi, double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (errno || end == v || *end || !(x >= lo && x <= hi))
		return false;
	*out = x;
	return true;
}

/* One key: the parameter it sets and its range. */
struct cc_key {
	const char *name;
	double lo, hi;
	const char *range; /* for the message */
	bool integer;
	size_t off;
	enum { K_DBL, K_U32, K_U64 } type;
};

#define DKEY(n, field, lo, hi, r)                                                                  \
	{                                                                                          \
		n, lo, hi, r, false, offsetof(struct roce_dcqcn_params, field), K_DBL              \
	}
#define UKEY(n, field, lo, hi, r, t)                                                               \
	{                                                                                          \
		n, lo, hi, r, true, offsetof(struct roce_dcqcn_params, field), t                   \
	}

static const struct cc_key keys[] = {
	DKEY("line_gbps", line_gbps, 0.001, 1000, "a link rate in Gbit/s, 0.001 to 1000"),
	DKEY("min_gbps", min_gbps, 0.0001, 1000, "Gbit/s, 0.0001 to 1000"),
	DKEY("ai_gbps", ai_gbps, 0, 1000, "Gbit/s, 0 to 1000"),
	DKEY("hai_gbps", hai_gbps, 0, 1000, "Gbit/s, 0 to 1000"),
	DKEY("g", g, 1e-6, 1, "a gain between 0 and 1, e.g. 0.00390625 (1/256)"),
	UKEY("f", f, 1, 64, "stages, 1 to 64", K_U32),
	UKEY("alpha_us", alpha_us, 1, 1000000, "microseconds, 1 to 1000000", K_U32),
	UKEY("timer_us", timer_us, 1, 1000000, "microseconds, 1 to 1000000", K_U32),
	UKEY("byte_counter", byte_counter, 64, 1e12, "bytes, 64 or more", K_U64),
	UKEY("cnp_interval_us", cnp_interval_us, 0, 1000000, "microseconds, 0 to 1000000", K_U32),
};

int roce_dcqcn_config_load(const char *path, bool *enable, struct roce_dcqcn_params *p, char *err,
			   size_t errlen)
{
	struct rte_cfgfile_entry *e = NULL;
	struct rte_cfgfile *f;
	int n, rc = 0;

	*enable = false;
	roce_dcqcn_params_default(p, 100);
	f = rte_cfgfile_load(path, 0);
	if (!f) {
		snprintf(err, errlen, "%s: cannot read it", path);
		return -ENOENT;
	}
	if (!rte_cfgfile_has_section(f, SEC))
		goto out;
	n = rte_cfgfile_section_num_entries(f, SEC);
	e = n > 0 ? calloc((size_t)n, sizeof(*e)) : NULL;
	if (n > 0 && !e) {
		rc = -ENOMEM;
		goto out;
	}
	n = n > 0 ? rte_cfgfile_section_entries(f, SEC, e, n) : 0;
	*enable = true; /* a [dcqcn] section turns it on unless it says enable = no */
	for (int i = 0; i < n && rc == 0; i++) {
		const char *k = e[i].name, *v = e[i].value;
		const struct cc_key *key = NULL;
		double x;

		if (!strcmp(k, "enable")) {
			if (!strcasecmp(v, "yes") || !strcmp(v, "1") || !strcasecmp(v, "on"))
				*enable = true;
			else if (!strcasecmp(v, "no") || !strcmp(v, "0") || !strcasecmp(v, "off"))
				*enable = false;
			else
				rc = bad(err, errlen, path, k, v, "say yes or no");
			continue;
		}
		for (unsigned j = 0; j < RTE_DIM(keys); j++)
			if (!strcmp(k, keys[j].name))
				key = &keys[j];
		if (!key) {
			rc = bad(
				err, errlen, path, k, v,
				"unknown key; known: enable line_gbps min_gbps ai_gbps hai_gbps g f "
				"alpha_us timer_us byte_counter cnp_interval_us");
			continue;
		}
		if (!num(v, key->lo, key->hi, &x) || (key->integer && x != (double)(uint64_t)x)) {
			rc = bad(err, errlen, path, k, v, key->range);
			continue;
		}
		switch (key->type) {
		case K_DBL:
			*(double *)((char *)p + key->off) = x;
			break;
		case K_U32:
			*(uint32_t *)((char *)p + key->off) = (uint32_t)x;
			break;
		case K_U64:
			*(uint64_t *)((char *)p + key->off) = (uint64_t)x;
			break;
		}
	}
	if (rc == 0 && p->min_gbps > p->line_gbps)
		rc = bad(err, errlen, path, "min_gbps", "", "must not exceed line_gbps");
out:
	free(e);
	rte_cfgfile_close(f);
	return rc;
}
