/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stk_config.h - the INI configuration (conf/NAME.ini, read with DPDK's rte_cfgfile) and the EAL
 * arguments derived from it. Keys are documented in docs/config.md.
 */
#ifndef STK_CONFIG_H
#define STK_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "stk_iface.h"
#include "stk_impair.h"
#include "stk_neigh.h"

#define STK_MAX_LCORES 128u /**< lcore ids the [stack] idle_sleep_us list may name */

#define STK_MAX_VDEVS 16
#define STK_CFG_STR 256

enum stk_huge {
	STK_HUGE_AUTO, /**< use hugepages when enough are free, else --no-huge with a note */
	STK_HUGE_YES,  /**< require hugepages */
	STK_HUGE_NO,   /**< --no-huge */
};

struct stk_port_conf {
	char name[32];		/**< section name: "port0" */
	char dev[STK_CFG_STR];	/**< DPDK device name, or PCI address */
	char vdev[STK_CFG_STR]; /**< optional --vdev for it, e.g. net_af_packet0,iface=veth0 */
	struct stk_ipaddr ip4, gw4, ip6, gw6;
	uint8_t ip4_prefix, ip6_prefix;
	bool vlan;
	uint16_t vlan_id;
	uint8_t pcp, dscp;
	struct stk_qos qos; /**< defaults, then the roce_dscp/roce_prio/cnp_dscp/cnp_prio/dscp_prio
			     * keys */
	uint16_t mtu;
	uint16_t rx_desc, tx_desc;
	bool promisc;
	char exc_ifname[16];		  /**< exception TAP name; empty = no exception path */
	struct stk_impair_conf impair_rx; /**< fault injection on received frames; zero = off */
	struct stk_impair_conf impair_tx; /**< and on sent ones (stk_impair.h) */
	/* PFC (docs/config.md); resolved when the section ends, so none of these is 0 */
	enum stk_pfc_mode pfc; /**< off (default), auto, sw or hw */
	uint8_t pfc_prios;     /**< lossless priorities, bitmask (default 1 << qos.roce_prio) */
	uint32_t pfc_xoff;     /**< RX backlog for XOFF, frames (default 3/4 of rx_desc) */
	uint32_t pfc_xon;      /**< RX backlog for XON, frames (default 1/4 of rx_desc) */
	uint16_t pfc_quanta;   /**< pause time XOFF asks for (default 65535) */
	uint32_t pfc_wd_ms;    /**< storm watchdog, ms; 0 = default 200, UINT32_MAX = off */
	uint32_t pfc_wd_restore_ms; /**< quiet time that ends a storm, ms; 0 = pfc_wd_ms */
	uint32_t link_speed;	    /**< Mbit/s for pause times; 0 = ask the PMD (none: 100000) */
};

struct stk_config {
	/* [eal] */
	char lcores[64]; /**< EAL -l list; empty = EAL default */
	enum stk_huge huge;
	unsigned mem_mb; /**< -m, 0 = EAL default (required > 0 with --no-huge) */
	char file_prefix[64];
	unsigned nb_vdevs;
	char vdevs[STK_MAX_VDEVS][STK_CFG_STR];
	char eal_extra[STK_CFG_STR]; /**< extra EAL arguments, space separated */
	/* [mempool] */
	unsigned nb_mbufs, mbuf_cache, mbuf_data_room;
	/* [neigh] */
	struct stk_neigh_params neigh;
	/* [stack] */
	unsigned exc_ring_size;
	/** idle back-off per EAL lcore id: sleep this long (µs) once the loop has had nothing to
	 * do for idle_after_us; 0 = spin (default) */
	uint32_t idle_sleep_us[STK_MAX_LCORES];
	uint32_t idle_after_us;
	/* [portN] */
	unsigned nb_ports;
	struct stk_port_conf ports[STK_MAX_PORTS];
	/** Sections an upper layer reads from the same file (set before stk_config_load; NULL-
	 * terminated): a name ending in a space is a prefix ("export " for "[export NAME]"). The
	 * stack skips them instead of calling them unknown. */
	const char *const *upper_sections;
};

/** Fill @p cfg with defaults (no ports). */
void stk_config_default(struct stk_config *cfg);

/**
 * Load an INI file into @p cfg (on top of defaults).
 * @param err  receives a message naming the file, section and key to fix
 * @return 0, -ENOENT (cannot read the file) or -EINVAL (a bad section or value).
 */
int stk_config_load(const char *path, struct stk_config *cfg, char *err, size_t errlen);

/**
 * Build the EAL argument vector: argv0, then what the config implies, then @p user_argv
 * (command-line EAL arguments pass through and, where EAL allows, override).
 * Hugepages in "auto" mode become --no-huge, with a note on stderr, when not enough are free.
 * @return argc (>= 1) with *argv_out allocated (free with stk_config_free_args), or -ENOMEM.
 */
int stk_config_eal_args(const struct stk_config *cfg, const char *argv0, int user_argc,
			char **user_argv, char ***argv_out);

/** Free what stk_config_eal_args() allocated. */
void stk_config_free_args(int argc, char **argv);

#endif /* STK_CONFIG_H */
