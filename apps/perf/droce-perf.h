/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * droce-perf.h - what the parts of droce-perf (perftest on droce) share.
 *
 *   droce-perf.c         options, resources, start-up and teardown
 *   droce-perf-xchg.c    the out-of-band channel: TCP or an rdma_cm "comm" QP, and
 *                        perftest's message formats on it
 *   droce-perf-script.c  each test's sequence of exchanges (perftest's per-tool main())
 *   droce-perf-report.c  perftest's printed output: header, addresses, result tables
 *   droce-perf-lcore.c   the lcore side: commands, CM events, QP bring-up, the traffic
 *
 * Threads: the main lcore runs the stack loop with perf_lcore_poll() as a poll hook; it never
 * blocks. The control thread runs the test's script: blocking TCP I/O on kernel sockets bound
 * to droce's address (through the exception TAP), and for everything that touches verbs or
 * the CM it hands a command to the lcore and waits for its result (perf_lcore_cmd()). With
 * -R the exchange itself goes over the comm QP: the control thread queues messages to the
 * lcore and takes received ones from it (perf_comm_send()/perf_comm_recv()).
 */
#ifndef DROCE_PERF_H
#define DROCE_PERF_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "app_perftest.h"
#include "app_start.h"
#include "roce_cm.h"
#include "roce_dcqcn.h"
#include "roce_verbs.h"
#include "stk_lcore.h"

#define PERF_VERSION "6.06"	 /**< the perftest version whose protocol we speak */
#define PERF_VERSION_LEN 16	 /**< perftest MAX_VERSION: bytes of the version exchange */
#define PERF_DEF_PORT 18515	 /**< perftest DEF_PORT */
#define PERF_MAX_SIZE (1u << 23) /**< perftest MAX_SIZE: the -a sweep ends at 8 MiB */
#define PERF_MAX_QPS 64
#define PERF_MAX_CYCLE 65536	/**< largest page size a peer may agree on (the buffer plan) */
#define PERF_MAX_CACHE_LINE 256 /**< largest cache line a peer may agree on */
#define PERF_COMM_MSG 64	/**< comm QP message slot; perftest's largest message is 56 B */
#define PERF_COMM_RX 8		/**< receives kept posted on the comm QP */
#define PERF_JSON_FILE "perftest_out.json" /**< perftest DEFAULT_JSON_FILE_NAME */
#define PERF_MAX_LAT_ROWS 32 /**< latency rows kept for the JSON and the extra table */

/** perftest's VerbType: the values index its names ("Send", "RDMA_Write", ...). */
enum perf_verb { PERF_VERB_SEND, PERF_VERB_WRITE, PERF_VERB_READ, PERF_VERB_ATOMIC };

/** perftest's AtomicType. */
enum perf_atomic { PERF_CMP_AND_SWAP, PERF_FETCH_AND_ADD };

/* X(enum, name, verb, bw): the tests, by the name on the command line (or ib_<name>) */
#define PERF_TEST_LIST(X)                                                                          \
	X(WRITE_BW, "write_bw", PERF_VERB_WRITE, true)                                             \
	X(READ_BW, "read_bw", PERF_VERB_READ, true)                                                \
	X(SEND_BW, "send_bw", PERF_VERB_SEND, true)                                                \
	X(ATOMIC_BW, "atomic_bw", PERF_VERB_ATOMIC, true)                                          \
	X(WRITE_LAT, "write_lat", PERF_VERB_WRITE, false)                                          \
	X(READ_LAT, "read_lat", PERF_VERB_READ, false)                                             \
	X(SEND_LAT, "send_lat", PERF_VERB_SEND, false)

#define PERF_TEST_ENUM_(e, n, v, b) PERF_##e,
enum perf_test { PERF_TEST_LIST(PERF_TEST_ENUM_) PERF_NUM_TESTS };
#undef PERF_TEST_ENUM_

/** What the user asked for, after perftest's defaults and dependencies (force_dependecies). */
struct perf_params {
	enum perf_test test;
	enum perf_verb verb;
	bool bw;		/**< a bandwidth test (perftest tst == BW), else latency */
	const char *config;	/**< --droce-config */
	const char *servername; /**< NULL: we are the server */
	const char *ib_dev;	/**< -d: droceN or a config section name */
	uint16_t iface;
	uint16_t port;	   /**< -p: TCP port, and the rdma_cm port with -R */
	uint64_t size;	   /**< -s (the current size during an -a sweep) */
	uint64_t max_size; /**< what the buffers are planned for (PERF_MAX_SIZE with -a) */
	uint32_t iters;	   /**< -n per QP (0 in duration mode) */
	uint32_t tx_depth, rx_depth;
	uint32_t num_qps;
	int mtu_req;		  /**< -m in bytes, 0 = the port's */
	enum roce_mtu active_mtu; /**< largest path MTU of the interface */
	enum roce_mtu curr_mtu;	  /**< agreed with the peer (check_mtu) */
	int gid_index;
	bool use_gid_user; /**< -x given */
	int inline_size;
	uint32_t out_reads; /**< READ/atomic outstanding we serve and ask for */
	uint32_t cq_mod;
	bool req_cq_mod;
	bool duration_mode; /**< -D */
	int duration, margin;
	bool run_all; /**< -a */
	bool rdma_cm; /**< -R */
	bool report_gbits;
	bool no_peak;
	bool cpu_freq_f;
	bool verify;		   /**< --droce-verify: patterned buffers, checked after the run */
	bool out_json;		   /**< --out_json: the report in a JSON file, as perftest does */
	const char *out_json_file; /**< --out_json_file (perftest's default name) */
	bool percentiles;	   /**< --droce-percentiles: the extra table after perftest's */
	enum perf_atomic atomic_type;
	uint8_t qp_timeout;
	uint8_t sl;
	uint32_t cycle_buffer;	  /**< page size, the max of both sides after check_sys_data */
	uint32_t cache_line_size; /**< likewise */
	char rem_version[PERF_VERSION_LEN + 1];
};

/**
 * struct pingpong_dest as perftest sends it over the rdma_cm comm QP (rdma_write_keys():
 * the struct's own bytes, each field converted to big endian, on x86-64/LP64).
 */
struct perf_dest_wire {
	rte_be32_t lid;	      /**< 0 on RoCE */
	rte_be32_t out_reads; /**< outstanding READ/atomic the sender serves */
	rte_be32_t qpn;	      /**< the sender's QP number */
	rte_be32_t psn;	      /**< its starting PSN */
	rte_be32_t rkey;      /**< its buffer's rkey */
	uint32_t hole;	      /**< alignment hole before vaddr (not initialised by perftest) */
	rte_be64_t vaddr;     /**< where the peer may READ/WRITE/atomic */
	uint8_t gid[16];      /**< the sender's GID (wire order) */
	rte_be32_t srqn;      /**< XRC/DC SRQ number; 0 */
	rte_be32_t gid_index; /**< the sender's GID index */
} __rte_packed;
_Static_assert(sizeof(struct perf_dest_wire) == 56, "perftest's pingpong_dest is 56 bytes");

/** perftest's bw_report_data, the part that is exchanged. */
struct perf_bw_report {
	uint64_t size;
	uint64_t iters;
	double bw_peak;
	double bw_avg;
	double msg_rate;
};

/** Where things are in the buffer (perftest alloc_ctx() and set_up_connection()). */
struct perf_layout {
	uint64_t buff;	   /**< BUFF_SIZE(max_size, cycle_buffer): one QP's area */
	uint64_t inc_buff; /**< INC(buff, cache line): one QP's receive area */
	uint64_t total;	   /**< inc_buff * 2 * num_qps */
};

/** Control-thread requests the lcore carries out (perf_lcore_cmd()). */
enum perf_cmd {
	PERF_CMD_NONE,
	PERF_CMD_CM_COMM,    /**< -R: the comm connection (connect, or accept the first REQ) */
	PERF_CMD_CM_TEST,    /**< -R: the num_qps test connections */
	PERF_CMD_QP_CONNECT, /**< TCP: test QPs to RTR/RTS from the exchanged dests, peer MAC */
	PERF_CMD_POST_RECVS, /**< SEND tests: rx_depth receives per QP for the current size */
	PERF_CMD_RUN,	     /**< the traffic of the current size */
	PERF_CMD_VERIFY,     /**< --droce-verify: check what arrived */
	PERF_CMD_CM_CLOSE,   /**< -R: disconnect and release the identifiers */
	PERF_CMD_NUM
};

/** What one PERF_CMD_RUN measured. */
struct perf_run {
	uint64_t *tposted;    /**< TSC per posted WR (or the start) */
	uint64_t *tcompleted; /**< TSC per completed WR (or the end) */
	uint64_t n_stamps;    /**< entries of both arrays */
	uint64_t iters;	      /**< duration mode: completions in the sample window */
	uint64_t verified;    /**< bytes compared by PERF_CMD_VERIFY (and on receipt) */
	uint64_t mismatches;  /**< of which differed */
	char why[200];	      /**< the failure, when a command fails */
};

/** Everything, shared by the parts; one instance (perf). */
struct perf_state {
	struct perf_params p;
	/* the start-up every tool shares (apps/common/app_start.h): config, EAL, stack, the
	 * device with [dcqcn], its CM and a PD; dev, cm and pd below are app's */
	struct app_start app;
	/* verbs */
	struct roce_dev *dev;
	struct roce_cm *cm;
	struct roce_pd *pd;
	struct roce_cq *send_cq, *recv_cq, *comm_cq;
	struct roce_qp *qp[PERF_MAX_QPS];
	struct roce_qp *comm_qp;
	struct roce_mr *mr, *comm_mr;
	uint8_t *buf; /**< the test region (registered as mr, iova = address) */
	uint64_t buf_len;
	uint8_t *comm_buf; /**< PERF_COMM_RX receive slots, then one send slot */
	struct roce_cm_id *listen_id;
	struct perf_layout lay;
	/* addressing */
	uint8_t my_gid[16];
	struct stk_ipaddr my_ip, peer_ip;
	struct perf_dest my_dest[PERF_MAX_QPS], rem_dest[PERF_MAX_QPS];
	/* TCP */
	int listen_fd, sock_fd;
	/* results */
	struct perf_run run;
	/* control thread <-> lcore (atomics) */
	int cmd;	  /**< enum perf_cmd requested; the lcore clears it when taken */
	int cmd_done;	  /**< set by the lcore when the command finished */
	int cmd_rc;	  /**< its result: 0 or -errno */
	int comm_up;	  /**< -R: 1 once the comm connection is up, -1 once it is gone */
	uint32_t rx_head; /**< comm messages received (lcore) */
	uint32_t rx_tail; /**< comm messages taken (control thread) */
	uint32_t tx_req;  /**< comm sends requested (control thread) */
	uint32_t tx_done; /**< comm sends completed (lcore) */
	int tx_rc;	  /**< status of the last comm send */
	int ctl_finished; /**< the control thread is done: the lcore lingers, then stops */
	int ctl_status;	  /**< its exit status */
	struct {
		uint32_t len;
		uint8_t data[PERF_COMM_MSG];
	} rx[PERF_COMM_RX];
	uint32_t tx_len;
	uint8_t tx_data[PERF_COMM_MSG];
};

extern struct perf_state perf;

static inline uint64_t perf_ms_to_tsc(uint64_t ms)
{
	return ms * rte_get_tsc_hz() / 1000;
}

/* droce-perf.c */
const char *perf_test_name(enum perf_test t);
/** Lay the buffer out for the agreed page and cache line size (after check_sys_data()). */
int perf_plan_layout(void);
/** Fill the buffer as the test expects it before the run (random, zeros or --droce-verify
 * patterns). */
void perf_fill_buffers(void);
/** --droce-verify: the byte a sender puts at @p off of QP @p qp's area. */
static inline uint8_t perf_pattern(uint32_t qp, uint64_t off)
{
	return (uint8_t)(off * 131u + (off >> 9) * 7u + qp * 29u + 0x5au);
}
uint8_t *perf_local_area(uint32_t qp);	/**< what we send from / READ into */
uint8_t *perf_remote_area(uint32_t qp); /**< what the peer writes/reads: my_dest.vaddr */
uint8_t *perf_recv_area(uint32_t qp);	/**< where SENDs land */
/** INC(size, cache line) of perftest: the stride of the cycling addresses. */
uint64_t perf_inc(uint64_t size);
/** How many distinct slots the BW tests cycle through for @p size (1: no cycling). */
uint64_t perf_slots(uint64_t size);

/* droce-perf-xchg.c */
int perf_xchg_open(void);
int perf_xchg_data(const void *mine, void *theirs, uint32_t len);
int perf_hand_shake(const struct perf_dest *mine, struct perf_dest *theirs);
int perf_close_connection(void);
void perf_xchg_shutdown(void);
int perf_exchange_versions(void);
int perf_check_sys_data(void);
int perf_check_mtu(void);
int perf_xchg_bw_reports(const struct perf_bw_report *mine, struct perf_bw_report *theirs);
int perf_tcp_listen(void);
int perf_comm_send(const void *data, uint32_t len);
int perf_comm_recv(void *data, uint32_t len);

/* droce-perf-script.c */
/** The test's whole sequence; the control thread's body. @return the exit status. */
int perf_script(void);

/* droce-perf-report.c */
void perf_print_waiting(void);
void perf_print_test_info(void);
void perf_print_dest(const struct perf_dest *d, bool remote);
void perf_print_result_header(void);
void perf_print_line(void);
void perf_report_bw(struct perf_bw_report *rep);
void perf_print_bw(const struct perf_bw_report *rep);
void perf_report_lat(void);
/** --droce-percentiles: the table of the extra percentiles of every size so far. */
void perf_print_percentiles(void);

/* droce-perf-lcore.c */
/** Run @p cmd on the lcore and wait for it. @return 0 or -errno (why in perf.run.why). */
int perf_lcore_cmd(enum perf_cmd cmd);
/** The poll hook: commands, CM events, the comm QP and the traffic. */
void perf_lcore_poll(struct stk_lcore *lc, void *arg);
/** After stk_run(): release what the lcore left (identifiers, the CM). */
void perf_lcore_release(void);

#endif /* DROCE_PERF_H */
