/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_pfc.c - libFuzzer target for the IEEE 802.1Qbb PFC decoder (stk_pfc_decode) and what
 * follows a decoded frame: applying it to a port's pause state. Checks: a decoded frame
 * re-encodes to the same 34 header+body bytes for the enabled quanta; the pause state never
 * pauses a priority the frame did not enable, and never for longer than 0xffff quanta.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stk_pfc.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0; /* pure code: no EAL needed */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint64_t hz = 1000000000ull, link = 10000000000ull, now = 1000;
	struct stk_pfc_rx_state st;
	struct stk_pfc p, q;
	uint8_t buf[STK_PFC_FRAME_LEN];

	if (stk_pfc_decode(data, size, &p) != 0)
		return 0;
	memset(&st, 0, sizeof(st));
	stk_pfc_apply(&st, &p, now, hz, link);
	for (unsigned i = 0; i < STK_PFC_PRIOS; i++) {
		if (!(p.class_enable & (1u << i)) && st.paused_until[i] != 0)
			abort();
		/* 0xffff quanta x 512 bits at 10 Gbit/s is 3.36 ms */
		if (st.paused_until[i] > now + 3400000)
			abort();
	}
	if (stk_pfc_encode((const struct rte_ether_addr *)(data + 6), &p, buf, sizeof(buf)) !=
		    STK_PFC_FRAME_LEN ||
	    stk_pfc_decode(buf, sizeof(buf), &q) != 0 || memcmp(&p, &q, sizeof(p)) != 0)
		abort();
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
