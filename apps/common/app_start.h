/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_start.h - the start-up every RDMA CM tool in apps/ shares: split the EAL arguments from
 * the tool's, load the INI configuration (--config FILE or DROCE_CONF; its [dcqcn] section
 * too), start the EAL and the stack, pick the interface a server binds to or a client routes
 * through, open the RoCE device with its CM and a PD, poll them on the main lcore; and the
 * reverse at the end. Also the counts of live objects a tool can print to show that a run
 * left nothing behind.
 *
 * Exit statuses follow the rdmacm examples' conventions where they have one; what droce adds
 * (no configuration, the stack did not start) gets the statuses droce-ping uses: 22 and 19.
 */
#ifndef APP_START_H
#define APP_START_H

#include <stdbool.h>
#include <stdint.h>

#include "roce_cm.h"
#include "roce_dcqcn.h"
#include "roce_verbs.h"
#include "stk_config.h"
#include "stk_pkt.h"

#define APP_EXIT_CONFIG 22 /**< EINVAL: no or a bad configuration */
#define APP_EXIT_NODEV 19  /**< ENODEV: the stack did not start */

/** One tool's droce: filled in by the calls below, in this order. */
struct app_start {
	const char *prog;   /**< for messages: "droce-udaddy" */
	const char *config; /**< the INI file */
	struct stk_config cfg;
	bool cfg_loaded;
	bool cc_on;
	struct roce_dcqcn_params cc;
	bool eal_up, stack_up;
	uint16_t iface;
	struct roce_dev *dev;
	struct roce_cm *cm;
	struct roce_pd *pd;
	uint64_t hz; /**< TSC ticks per second */
	/** Set before app_open_dev() to run the device on several lcores (its lanes,
	 * roce_dev_set_lcores()): the first is the primary (the CM's); 0 or 1: one lane, on the
	 * main lcore, as before */
	unsigned lane_lcores[ROCE_MAX_LANES];
	unsigned nlanes;
};

/**
 * Split "prog [EAL args --] [tool args]" and take --config FILE out of the tool's part, so
 * that the tool's getopt sees only the original's options.
 * @param a         config is set from --config, else from DROCE_CONF (may stay NULL)
 * @param argc,argv the process's
 * @param eal_argc,eal_argv,app_argc,app_argv the two parts (app_argv[0] is argv[0])
 */
void app_split_args(struct app_start *a, int argc, char **argv, int *eal_argc, char ***eal_argv,
		    int *app_argc, char ***app_argv);

/**
 * Load the configuration (the stack's sections and [dcqcn]) into a->cfg, once: a tool that
 * must read it before the EAL starts (the verbs tools' -d lookup) calls this first, and
 * app_start_stack() then uses it.
 * @return 0 or APP_EXIT_CONFIG (no/bad file; says why).
 */
int app_load_config(struct app_start *a);

/**
 * Load the configuration (unless app_load_config() did), start the EAL and the stack
 * (ports, lcores).
 * @return 0, APP_EXIT_CONFIG (no/bad file; says why) or APP_EXIT_NODEV (says why).
 */
int app_start_stack(struct app_start *a, const char *argv0, int eal_argc, char **eal_argv);

/**
 * Resolve @p name as getaddrinfo() does (a literal or a host name).
 * @return 0, or getaddrinfo's error (negative EAI_*), or -1 for another family.
 */
int app_get_addr(const char *name, struct stk_ipaddr *out);

/** @return true for 0.0.0.0 or ::. */
bool app_is_any(const struct stk_ipaddr *a);

/**
 * The interface a -d NAME (ibv_devinfo's device name in the verbs tools) means: "droceN" is
 * interface N, a port section's name ("port0") that port. Needs only the loaded @p cfg, so it
 * can run before the EAL. @return 0 (*iface set; a NULL name keeps it), or -ENODEV with
 * "IB device NAME not found (droce0..droceN)" printed.
 */
int app_iface_by_name(const struct stk_config *cfg, const char *name, uint16_t *iface);

/**
 * Pick the interface: the one that owns @p bind (a server's address; NULL or a wildcard:
 * the first), else the one on whose link @p dst is, else one with a gateway of its family.
 * @return 0, or -EADDRNOTAVAIL when @p bind is no interface's.
 */
int app_pick_iface(struct app_start *a, const struct stk_ipaddr *bind,
		   const struct stk_ipaddr *dst);

/**
 * Open the RoCE device of the picked interface (with the [dcqcn] parameters), its CM and a
 * PD, and poll the device on the main lcore. @return 0, or -errno with a message printed.
 */
int app_open_dev(struct app_start *a);

/**
 * Close what app_open_dev() and app_start_stack() opened. The CM is closed after the MADs
 * it queued have left (the stack is stopped by then, so this only retries briefly).
 */
void app_stop(struct app_start *a);

/** Live objects: a tool prints them at its start and its end. */
struct app_counts {
	uint32_t qps, cqs, mrs;
	uint64_t cm_ids;
	unsigned mbufs; /**< mbufs of the stack's pool in use (in per-lcore caches count as free) */
};
void app_counts(const struct app_start *a, struct app_counts *c);

/**
 * Interface @p iface's losses into @p line as " NAME COUNT" pairs: the stack's drops by reason,
 * then the port's rx_missed and rx_nombuf, each only when not zero (cut to @p cap).
 * @return the length written, 0 when the interface lost nothing
 */
size_t app_port_drops(int iface, char *line, size_t cap);

/**
 * Print to stderr, as "PROG: port N: dropped ...", every non-zero drop reason of the stack's
 * interfaces and the port's own missed and no-mbuf counts (a tool calls it before app_stop(),
 * so that a run that lost frames says where). Prints nothing when nothing was dropped.
 */
void app_print_drops(const struct app_start *a);

/** @return milliseconds in TSC ticks. */
static inline uint64_t app_ms(const struct app_start *a, uint64_t ms)
{
	return ms * a->hz / 1000;
}

#endif /* APP_START_H */
