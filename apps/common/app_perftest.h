/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_perftest.h - perftest's connection keys (struct pingpong_dest) and their text form on
 * its TCP exchange (KEY_PRINT_FMT_GID, ethernet_write_keys() / ethernet_read_keys()), shared
 * by droce-perf and by droce-gen's catalogue, which plays a perftest client towards any
 * perftest server (ib_write_bw on Linux, droce-perf).
 */
#ifndef APP_PERFTEST_H
#define APP_PERFTEST_H

#include <stdint.h>

#define APP_PT_KEYS_LEN 108 /**< perftest KEY_MSG_SIZE_GID: the text keys with their NUL */

/** One side's connection data (perftest struct pingpong_dest), host order. */
struct perf_dest {
	uint32_t lid;
	uint32_t out_reads;
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint64_t vaddr;
	uint8_t gid[16]; /**< wire order */
	uint32_t srqn;
};

/** The 108-byte text "LID:OUT_READS:QPN:PSN:RKEY:VADDR:GID[0]:...:GID[15]:SRQN:" of @p d. */
void app_pt_format_keys(const struct perf_dest *d, char msg[APP_PT_KEYS_LEN]);

/** Parse the text keys: 23 colon-terminated hex fields within @p msg, each in its range.
 * @return 0 or -EINVAL. */
int app_pt_parse_keys(const char msg[APP_PT_KEYS_LEN], struct perf_dest *d);

#endif /* APP_PERFTEST_H */
