/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_opcode.c - the opcode table. Offsets are computed at compile time from the header set,
 * in wire order (IBTA 9.2): BTH, DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH.
 */
#include "roce_opcode.h"
#include "roce_hdr.h"

#define HAS_(f, x) (((f)&ROCE_OPF_##x) != 0)
#define O_DETH(f) 12
#define O_RETH(f) (O_DETH(f) + (HAS_(f, DETH) ? 8 : 0))
#define O_ATOMICETH(f) (O_RETH(f) + (HAS_(f, RETH) ? 16 : 0))
#define O_AETH(f) (O_ATOMICETH(f) + (HAS_(f, ATOMICETH) ? 28 : 0))
#define O_ATOMICACKETH(f) (O_AETH(f) + (HAS_(f, AETH) ? 4 : 0))
#define O_IMMDT(f) (O_ATOMICACKETH(f) + (HAS_(f, ATOMICACKETH) ? 8 : 0))
#define O_IETH(f) (O_IMMDT(f) + (HAS_(f, IMMDT) ? 4 : 0))
#define HLEN(f) (O_IETH(f) + (HAS_(f, IETH) ? 4 : 0) + (HAS_(f, CNP) ? 16 : 0))
#define OFF(f, x) (HAS_(f, x) ? O_##x(f) : 0)

#define ROCE_OP_ROW_(nm, val, f)                                                                   \
	[val] = {                                                                                  \
		.name = #nm,                                                                       \
		.flags = (f),                                                                      \
		.hdr_len = HLEN(f),                                                                \
		.off =                                                                             \
			{                                                                          \
				[ROCE_EXT_DETH] = OFF(f, DETH),                                    \
				[ROCE_EXT_RETH] = OFF(f, RETH),                                    \
				[ROCE_EXT_ATOMICETH] = OFF(f, ATOMICETH),                          \
				[ROCE_EXT_AETH] = OFF(f, AETH),                                    \
				[ROCE_EXT_ATOMICACKETH] = OFF(f, ATOMICACKETH),                    \
				[ROCE_EXT_IMMDT] = OFF(f, IMMDT),                                  \
				[ROCE_EXT_IETH] = OFF(f, IETH),                                    \
			},                                                                         \
	},

const struct roce_opinfo roce_optab[256] = {ROCE_OPCODE_LIST(ROCE_OP_ROW_)};

const char *roce_opcode_name(uint8_t op)
{
	return roce_optab[op].name ? roce_optab[op].name : "UNKNOWN";
}
