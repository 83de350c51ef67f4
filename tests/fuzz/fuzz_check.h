/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_check.h - what every fuzz target shares: the libFuzzer entry points' prototypes and
 * CHECK(), which aborts with the failed condition (a finding for libFuzzer, a failure for the
 * corpus replay).
 */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c);                    \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#endif /* FUZZ_CHECK_H */
