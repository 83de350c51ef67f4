/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * orpc_testprog.h - two RPC programs for testing rpc/ end to end, as data tables:
 *
 * ORPC_TEST_PROG (versions 1 and 2, any flavor):
 *   0 NULL; 1 ECHO(opaque<>) -> opaque<> (large arguments and results);
 *   2 WHOAMI -> {flavor, uid, gid, ngids}; 3 FAIL -> SYSTEM_ERR; 4 not served (PROC_UNAVAIL);
 *   5 FILL(len) -> opaque<> of len bytes of a fixed pattern (a READ: DDP-eligible results)
 * ORPC_TEST_SYS_PROG (version 1, AUTH_SYS only; uid 666 is refused with AUTH_REJECTEDCRED):
 *   0 NULL; 1 WHOAMI
 */
#ifndef ORPC_TESTPROG_H
#define ORPC_TESTPROG_H

#include "orpc_svc.h"

#define ORPC_TEST_PROG 0x20000099u
#define ORPC_TEST_SYS_PROG 0x20000098u
#define ORPC_TEST_ECHO 1u
#define ORPC_TEST_WHOAMI 2u
#define ORPC_TEST_FAIL 3u
#define ORPC_TEST_UNSERVED 4u
#define ORPC_TEST_FILL 5u
#define ORPC_TEST_LATER 6u /**< ECHO, deferred until orpc_test_later_run() */
#define ORPC_TEST_BUMP 7u  /**< counter += arg, answers it: in the duplicate request cache */
/** FILL's results, put straight into the transport's DDP sink when it offers one
 * (orpc_peer.ddp_sink: RPC-over-RDMA with a write chunk), else encoded inline */
#define ORPC_TEST_PLACE 8u
#define ORPC_TEST_ECHO_MAX (1u << 20) /**< 1 MiB */

struct orpc_test_blob {
	u_int len;
	char *data;
};

struct orpc_test_who {
	u_int flavor, uid, gid, ngids;
};

bool_t orpc_test_xdr_blob(XDR *x, struct orpc_test_blob *b);
bool_t orpc_test_xdr_who(XDR *x, struct orpc_test_who *w);

extern const struct orpc_program orpc_test_program;

/** LATER calls waiting; end them all (echoing), in arrival order. @return how many ended */
uint32_t orpc_test_later_waiting(void);
uint32_t orpc_test_later_run(void);
/** Forget the LATER calls waiting (a test that ends them itself) */
void orpc_test_later_forget(void);
/** The backchannel id (orpc_peer.bc_id) the last NULL call came with */
extern uint64_t orpc_test_last_bc_id;
/** BUMP's counter */
u_int orpc_test_bump_value(void);
extern const struct orpc_program orpc_test_sys_program;

#endif /* ORPC_TESTPROG_H */
