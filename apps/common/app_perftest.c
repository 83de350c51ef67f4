/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_perftest.c - perftest's text keys (app_perftest.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_perftest.h"

void app_pt_format_keys(const struct perf_dest *d, char msg[APP_PT_KEYS_LEN])
{
	int n;

	n = snprintf(msg, APP_PT_KEYS_LEN, "%04x:%04x:%06x:%06x:%08x:%016llx:", d->lid,
		     d->out_reads, d->qpn, d->psn, d->rkey, (unsigned long long)d->vaddr);
	for (int i = 0; i < 16; i++)
		n += snprintf(msg + n, (size_t)(APP_PT_KEYS_LEN - n), "%02x:", d->gid[i]);
	snprintf(msg + n, (size_t)(APP_PT_KEYS_LEN - n), "%08x:", d->srqn);
}

int app_pt_parse_keys(const char msg[APP_PT_KEYS_LEN], struct perf_dest *d)
{
	static const uint64_t max[7] = {0xffff,	     0xffff,	 0xffffff, 0xffffff,
					0xffffffffu, UINT64_MAX, 0};
	uint64_t v[23];
	const char *s = msg;
	int i;

	for (i = 0; i < 23; i++) {
		const char *colon = memchr(s, ':', (size_t)(msg + APP_PT_KEYS_LEN - s));
		char field[20], *end;
		size_t n;

		if (!colon)
			return -EINVAL;
		n = (size_t)(colon - s);
		if (n == 0 || n >= sizeof(field))
			return -EINVAL;
		memcpy(field, s, n);
		field[n] = '\0';
		errno = 0;
		v[i] = strtoull(field, &end, 16);
		if (errno || *end)
			return -EINVAL;
		if (i < 6 && v[i] > max[i])
			return -EINVAL;
		if (i >= 6 && i < 22 && v[i] > 0xff)
			return -EINVAL;
		s = colon + 1;
	}
	d->lid = (uint32_t)v[0];
	d->out_reads = (uint32_t)v[1];
	d->qpn = (uint32_t)v[2];
	d->psn = (uint32_t)v[3];
	d->rkey = (uint32_t)v[4];
	d->vaddr = v[5];
	for (i = 0; i < 16; i++)
		d->gid[i] = (uint8_t)v[6 + i];
	d->srqn = (uint32_t)v[22];
	return 0;
}
