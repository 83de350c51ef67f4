/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_stack.h - bring-up and life cycle of the stack in one process:
 *   stk_eal_init()  EAL from the INI config plus command-line EAL arguments
 *   stk_setup()     mempool, ports and their exception TAPs, lcores, telemetry, pdump
 *   stk_run()       run the lcore loop on every EAL lcore until stk_stop()
 *   stk_teardown()  stop ports, free everything; mempools back to full
 */
#ifndef STK_STACK_H
#define STK_STACK_H

#include <stdbool.h>

#include <rte_mempool.h>

#include "stk_config.h"
#include "stk_iface.h"
#include "stk_lcore.h"

/**
 * Split "prog [EAL args] -- [app args]". With no "--", everything is application
 * arguments (the INI file supplies the EAL ones). The app part starts with argv0 so that
 * getopt can run on it.
 */
void stk_split_args(int argc, char **argv, int *eal_argc, char ***eal_argv, int *app_argc,
		    char ***app_argv);

/**
 * Initialise the EAL from @p cfg and the command-line EAL arguments.
 * @return 0, or -errno with a message printed that says what to fix.
 */
int stk_eal_init(const struct stk_config *cfg, const char *argv0, int eal_argc, char **eal_argv);

/**
 * Create the mbuf pool, bring up every configured port with one RX/TX queue pair per EAL
 * lcore, give each its exception TAP (same MAC and addresses, link up), and create the lcore
 * contexts. The configuration is copied.
 * @return 0, or -errno with a message logged.
 */
int stk_setup(const struct stk_config *cfg);

/** Run the loop on every EAL lcore, the main one included; returns after stk_stop(). */
int stk_run(void);

/** Ask every lcore to leave its loop (async-signal-safe). */
void stk_stop(void);

/** @return true once stk_stop() was called. */
bool stk_stopping(void);

/** Stop and close ports, free lcores and pools. Safe after a failed stk_setup(). */
void stk_teardown(void);

/** @return the number of interfaces. */
uint16_t stk_iface_count(void);

/** @return interface @p idx (idx < stk_iface_count()). */
const struct stk_iface *stk_iface_get(uint16_t idx);

/**
 * Register an interface that a test built by hand (no port bring-up).
 * @return its index, or -ENOSPC.
 */
int stk_iface_add(const struct stk_iface *ifc);

/** Forget every interface added with stk_iface_add(). */
void stk_iface_reset(void);

/** @return the stack's mbuf pool (NULL before stk_setup()). */
struct rte_mempool *stk_pktmbuf_pool(void);

#endif /* STK_STACK_H */
