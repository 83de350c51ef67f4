/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_verbs.h - verbs objects of the droce transport: device, protection domains, memory
 * regions, completion queues, shared receive queues and queue pairs, modelled on libibverbs
 * (names, access flags, QP attributes and masks, work-completion status and opcodes mirror
 * <infiniband/verbs.h>, so rdma-core users feel at home).
 *
 * Threading: a device runs on one or more lcores (its lanes, roce_dev_set_lcores()). A QP, its
 * CQs and SRQ belong to one lane (run to completion): post_send, post_recv, poll_cq,
 * cq_process and get_async_event are called on that lane's lcore; another lcore is refused
 * with -EXDEV once the lane runs. A QP runs on the primary lane (the CM's) until it reaches
 * RTS, then on its home lane (roce_qp_init_attr.lcore or the device's placement). Creating
 * and destroying objects and registering memory is control-path work, done before the lcores
 * use the object. Asynchronous events (QP, CQ, SRQ, port, device) queue per lane; a handler
 * runs at the end of roce_poll(), outside the engines, on the lane's lcore.
 *
 * Errors: constructors return the object or NULL with rte_errno set; everything else
 * returns 0 or -errno. Invalid calls never crash (IBA C10-*: wrong state, exceeded limits,
 * bad lkey, a length beyond the MR).
 *
 * Position: the QP engines (roce_requester.c, roce_responder.c, roce_completer.c) consume
 * what this file queues; rpc/ builds its four transport primitives (send, recv, ddp-write,
 * ddp-read) on these calls (rpc/rpcrdma). docs/roce.md documents each call.
 */
#ifndef ROCE_VERBS_H
#define ROCE_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf_core.h>

#include "roce_hdr.h"
#include "stk_pkt.h"

#define ROCE_MAX_SGE 16
#define ROCE_MAX_INLINE 256
#define ROCE_MAX_QP_WR 16384
#define ROCE_MAX_CQE 65536
#define ROCE_MAX_RD_ATOMIC 16
#define ROCE_MAX_MR 65536
#define ROCE_MAX_QP 4096
#define ROCE_MAX_MSG (1u << 31) /**< IBA: messages up to 2^31 bytes */

/* ------------------------------------------------------------------ objects */

struct roce_dev;
struct roce_pd;
struct roce_cq;
struct roce_srq;
struct roce_qp;

/** Memory access rights (values of enum ibv_access_flags). */
enum roce_access {
	ROCE_ACCESS_LOCAL_WRITE = 1,
	ROCE_ACCESS_REMOTE_WRITE = 2,
	ROCE_ACCESS_REMOTE_READ = 4,
	ROCE_ACCESS_REMOTE_ATOMIC = 8,
};
#define ROCE_ACCESS_ALL                                                                            \
	(ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ |            \
	 ROCE_ACCESS_REMOTE_ATOMIC)

/** Memory region state (FRWR: a region made with roce_alloc_mr() starts FREE). */
enum roce_mr_state {
	ROCE_MR_FREE,	 /**< allocated for fast registration, not mapped */
	ROCE_MR_VALID,	 /**< keys usable */
	ROCE_MR_INVALID, /**< invalidated (local or remote); re-register to use */
	ROCE_MR_DEAD,	 /**< being deregistered: keys dead, frames still point into it */
};

#define ROCE_MAX_LANES 8 /* lcores one device can run on (roce_dev_set_lcores()) */

/** Internal: one lane's reference count on a region's bytes, on a cache line of its own. */
struct roce_zc_ref {
	struct rte_mbuf_ext_shared_info s;
} __rte_cache_aligned;

/** A memory region: what the peer addresses by (rkey, iova) and we by (lkey, addr). */
struct roce_mr {
	struct roce_pd *pd;
	void *addr;    /**< where the bytes are in our address space */
	uint64_t iova; /**< address the peer uses (RETH/AtomicETH VA) */
	uint64_t length;
	uint32_t lkey;
	uint32_t rkey;
	uint32_t access; /**< enum roce_access bits */
	uint8_t state;	 /**< enum roce_mr_state */
	bool fast_reg;	 /**< made by roce_alloc_mr() */
	uint32_t index;	 /**< slot in the key table (key >> 8) */
	/** Internal: zero-copy frames (request payloads, READ responses) attach the region's
	 * bytes as external buffers sharing zc[lane of the QP that sent them]; each count is 1 +
	 * the frames of that lane that point into the region, wherever they wait (TX buffer, PFC
	 * hold queue, neighbour queue). One per lane, so lanes sending from one region do not
	 * bounce a shared count between their cores (bench/README.md, lanes). */
	struct roce_zc_ref zc[ROCE_MAX_LANES];
	/* Internal: the region's IOVAs for the NIC, resolved once at registration (and at each
	 * REG_MR WR of a fast-registration region), never per packet: */
	uint64_t dma_base;   /**< IOVA of addr when IOVA-contiguous; else UINT64_MAX */
	uint64_t *dma_pages; /**< not contiguous: the IOVA of each page from addr's page on */
	uint32_t dma_npages;
	uint8_t dma_shift; /**< log2 of the page size dma_pages[] counts in */
};

/**
 * The reserved local key (IB's reserved lkey, Linux's local_dma_lkey): an SGE with this lkey
 * may point anywhere in memory DPDK registered by construction - its hugepage heap
 * (rte_malloc), memzones and the mempools in them, extmem added with rte_extmem_register() -
 * without a region of its own, for any PD. It is local only: it never matches as an rkey,
 * and grants LOCAL_WRITE. [addr, addr+len) must lie in one of DPDK's memory segment lists,
 * else the SGE is refused like a bad lkey. Its payloads go out zero-copy like a region's;
 * roce_dev_close() answers -EBUSY while such frames are still queued.
 */
#define ROCE_RESERVED_LKEY 0u

/** Open the RoCE device on stack interface @p iface. @return the device or NULL (rte_errno). */
struct roce_dev *roce_dev_open(uint16_t iface);
/** @return whether zero-copy frames still point into @p mr (any lane's). */
bool roce_mr_busy(const struct roce_mr *mr);

/** Close a device. @return 0, or -EBUSY while PDs, CQs, QPs or MRs remain (a region stays
 * until no queued zero-copy frame points into it, see roce_dereg_mr()), or while zero-copy
 * frames of ROCE_RESERVED_LKEY SGEs are queued. */
int roce_dev_close(struct roce_dev *dev);

/** @return the largest path MTU (256..4096 bytes) whose packets fit @p dev's interface: the
 * most a QP's path_mtu may be, and the largest UD message. */
uint32_t roce_dev_max_path_mtu(const struct roce_dev *dev);

/**
 * Run @p dev on the @p n lcores in @p lcores (its lanes; n <= ROCE_MAX_LANES, each registers
 * roce_poll(lc, dev) on its stk_lcore). The first is the primary lane: the CM, QP1, the link
 * and every QP before it reaches RTS run there. Frames one lane receives for another lane's
 * QP are decoded and checked once, then handed over through the owner's ring. Control path:
 * before any lcore polls the device. Without it a device has one lane, claimed by the first
 * lcore that polls it.
 * @return 0, -EINVAL (n is 0 or too large, an lcore twice or not an EAL lcore), -EBUSY (the
 * device is already polled or has QPs) or -ENOMEM.
 */
int roce_dev_set_lcores(struct roce_dev *dev, const unsigned *lcores, unsigned n);

/**
 * Forget the lcores that ran @p dev: it is back to one lane, claimed by the first lcore that
 * polls it, and roce_dev_set_lcores() may be called again (a program that moves a device to
 * other lcores between phases, as rc-bench does between its placements). Control path: only
 * once no lcore polls the device any more (its stk_lcore destroyed or its poll hook removed)
 * and its QPs are destroyed. Frames already waiting for the device stay for its next owner.
 * @return 0, -EINVAL (NULL), -EBUSY (QPs remain, QP1 included; or, on a device that ran
 * several lanes, CQs or SRQs, which belong to a lane once a QP used them).
 */
int roce_dev_release_lcores(struct roce_dev *dev);

/** How QPs created without roce_qp_init_attr.on_lcore choose their home lane. */
enum roce_place {
	ROCE_PLACE_PRIMARY,	 /**< all on the primary lane (the default) */
	ROCE_PLACE_ROUND_ROBIN,	 /**< lane after lane, in creation order */
	ROCE_PLACE_LEAST_LOADED, /**< the lane with the fewest QPs */
	ROCE_PLACE_NUM
};
/** Set @p dev's placement (applies to QPs created afterwards, the CM's consumers' included).
 * @return 0 or -EINVAL. */
int roce_dev_set_placement(struct roce_dev *dev, enum roce_place policy);

/**
 * Apply @p dev's placement now: @return the lcore the next QP should live on (advances the
 * round-robin). A consumer that makes CQs per lane picks the lane first, then creates the QP
 * with roce_qp_init_attr.on_lcore and that lane's CQ. Control path or the primary lane.
 */
unsigned roce_dev_pick_lcore(struct roce_dev *dev);

/** @return the lcore of @p qp's home lane (where it runs from RTS on; RTE_MAX_LCORE: the
 * first lcore to poll the device). */
unsigned roce_qp_lcore(const struct roce_qp *qp);

struct roce_pd *roce_alloc_pd(struct roce_dev *dev);
/** @return 0, or -EBUSY while MRs, QPs or SRQs use it. */
int roce_dealloc_pd(struct roce_pd *pd);

/**
 * Register @p length bytes at @p addr, addressed by the peer as @p iova (ibv_reg_mr_iova).
 * The bytes' IOVAs (what a NIC reads zero-copy payloads from) are resolved here, once: the
 * address itself in IOVA-as-VA mode; in PA mode DPDK's memsegs, or rte_mem_virt2iova() (one
 * /proc/self/pagemap read per page) for memory DPDK does not know, keeping one IOVA per page
 * when the region is not IOVA-contiguous. Memory outside DPDK must stay mapped and pinned
 * while registered (mlock it), as for any RDMA region; rte_extmem_register() it for PCI NICs.
 * Control path.
 * @return the region, or NULL with rte_errno EINVAL (length 0 or > 2^40, unknown access bit,
 * REMOTE_WRITE/ATOMIC without LOCAL_WRITE, iova+length overflow), ENOMEM (also: more than
 * 2^21 pages without contiguous IOVAs), ENOSPC (table full).
 */
struct roce_mr *roce_reg_mr(struct roce_pd *pd, void *addr, uint64_t length, uint64_t iova,
			    uint32_t access);
/** Allocate a region for fast registration (IB_MR_TYPE_MEM_REG): FREE until a REG_MR WR. */
struct roce_mr *roce_alloc_mr(struct roce_pd *pd, uint64_t max_length);
/**
 * Deregister a region. Its keys die at once (state ROCE_MR_DEAD): no packet reads or writes
 * a byte of it from this call on. The rest of a WRITE being placed into it is answered with a
 * remote-access NAK, READ responses still to send from it stop with one (IBA 9.7.5.2.3, as
 * rxe's per-packet rkey re-check does), and a send WQE whose payload lies in it fails with
 * LOC_PROT_ERR. Frames already built point into the memory (zero copy) and may still wait in
 * a TX buffer, the PFC hold queue or a neighbour's pending queue: while any does, the call
 * returns -EBUSY and the region stays allocated. Keep polling the lcore that runs the device
 * and call again; 0 means no frame points into the memory any more, and it may be freed.
 * @return 0; -EBUSY (keys dead, frames still point into it: call again); -EINVAL (NULL, or
 * not a registered region).
 */
int roce_dereg_mr(struct roce_mr *mr);

/**
 * roce_dereg_mr() for teardown paths outside the poll loop (after stk_run() returned, or in a
 * test's teardown): while it answers -EBUSY, poll @p lc (the lcore that runs the device) and
 * try again, at most @p max_polls times. Never call it from a poll hook (it would poll the
 * loop that runs the hook).
 * @return 0, -EBUSY when frames still point into the region after max_polls, -EINVAL
 */
struct stk_lcore;
int roce_dereg_mr_drain(struct roce_mr *mr, struct stk_lcore *lc, unsigned max_polls);

/**
 * Find the region an lkey (@p remote false) or rkey (@p remote true) names and check that
 * [addr, addr+len) lies inside it, byte-exact, with the rights in @p access, on @p pd.
 * For rkeys @p addr is an iova; for lkeys a local address.
 * @return the region, or NULL with *why = ROCE_KEY_* telling which check failed.
 */
enum roce_key_err {
	ROCE_KEY_OK,
	ROCE_KEY_UNKNOWN,
	ROCE_KEY_STATE,
	ROCE_KEY_PD,
	ROCE_KEY_BOUNDS,
	ROCE_KEY_ACCESS
};
struct roce_mr *roce_mr_lookup(struct roce_dev *dev, uint32_t key, bool remote,
			       const struct roce_pd *pd, uint64_t addr, uint64_t len,
			       uint32_t access, enum roce_key_err *why);

/**
 * Invalidate the region named by @p key (local invalidate, or with @p remote a
 * SEND_WITH_INV): its keys die at once, as in roce_dereg_mr(). Only fast-registered regions
 * may be invalidated, and remotely only one granted a remote right.
 * @return 0 or -EINVAL.
 */
int roce_mr_invalidate(struct roce_dev *dev, uint32_t key, const struct roce_pd *pd, bool remote);

/* ------------------------------------------------------------------ completions */

/* X(name, value): work completion status, values of enum ibv_wc_status. */
#define ROCE_WC_STATUS_LIST(X)                                                                     \
	X(SUCCESS, 0)                                                                              \
	X(LOC_LEN_ERR, 1)                                                                          \
	X(LOC_QP_OP_ERR, 2)                                                                        \
	X(LOC_EEC_OP_ERR, 3)                                                                       \
	X(LOC_PROT_ERR, 4)                                                                         \
	X(WR_FLUSH_ERR, 5)                                                                         \
	X(MW_BIND_ERR, 6)                                                                          \
	X(BAD_RESP_ERR, 7)                                                                         \
	X(LOC_ACCESS_ERR, 8)                                                                       \
	X(REM_INV_REQ_ERR, 9)                                                                      \
	X(REM_ACCESS_ERR, 10)                                                                      \
	X(REM_OP_ERR, 11)                                                                          \
	X(RETRY_EXC_ERR, 12)                                                                       \
	X(RNR_RETRY_EXC_ERR, 13)                                                                   \
	X(LOC_RDD_VIOL_ERR, 14)                                                                    \
	X(REM_INV_RD_REQ_ERR, 15)                                                                  \
	X(REM_ABORT_ERR, 16)                                                                       \
	X(INV_EECN_ERR, 17)                                                                        \
	X(INV_EEC_STATE_ERR, 18)                                                                   \
	X(FATAL_ERR, 19)                                                                           \
	X(RESP_TIMEOUT_ERR, 20)                                                                    \
	X(GENERAL_ERR, 21)

#define ROCE_WC_ENUM_(n, v) ROCE_WC_##n = (v),
enum roce_wc_status { ROCE_WC_STATUS_LIST(ROCE_WC_ENUM_) };
#undef ROCE_WC_ENUM_

/** @return "SUCCESS", "LOC_LEN_ERR", ... ("?" when unknown). */
const char *roce_wc_status_str(enum roce_wc_status s);

/** Work completion opcodes (values of enum ibv_wc_opcode; REG_MR from the kernel's). */
enum roce_wc_opcode {
	ROCE_WC_SEND = 0,
	ROCE_WC_RDMA_WRITE = 1,
	ROCE_WC_RDMA_READ = 2,
	ROCE_WC_COMP_SWAP = 3,
	ROCE_WC_FETCH_ADD = 4,
	ROCE_WC_BIND_MW = 5,
	ROCE_WC_LOCAL_INV = 6,
	ROCE_WC_REG_MR = 8,
	ROCE_WC_RECV = 128,
	ROCE_WC_RECV_RDMA_WITH_IMM = 129,
};

enum roce_wc_flags {
	ROCE_WC_GRH = 1 << 0, /**< UD: the first 40 bytes of the buffer hold the GRH area */
	ROCE_WC_WITH_IMM = 1 << 1,
	ROCE_WC_WITH_INV = 1 << 3,
};

/**
 * Completion callback for WRs that name a struct roce_cqe instead of a wr_id (Linux's ib_cqe):
 * embed the roce_cqe in the request's own structure, put its address in the WR's wr_cqe (the
 * union with wr_id, as in struct ib_send_wr), and roce_cq_process() calls done() with the
 * completion; recover the request with container_of(wc->wr_cqe, struct my_req, cqe).
 */
struct roce_cqe;
struct roce_wc;
typedef void (*roce_done_fn)(struct roce_cq *cq, struct roce_wc *wc);
struct roce_cqe {
	roce_done_fn done;
};

struct roce_wc {
	union {
		uint64_t wr_id;		 /**< the WR's wr_id (roce_poll_cq consumers) */
		struct roce_cqe *wr_cqe; /**< the WR's wr_cqe (roce_cq_process consumers) */
	};
	struct roce_qp *qp; /**< the QP the WR was posted to (ib_wc.qp), set by the engine */
	enum roce_wc_status status;
	enum roce_wc_opcode opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	union {
		rte_be32_t imm_data; /**< network order, as in ibv_wc */
		uint32_t invalidated_rkey;
	};
	uint32_t qp_num;
	uint32_t src_qp;
	uint32_t wc_flags;
	uint16_t pkey_index;
	/**
	 * The message as an mbuf chain (issue 12 item 5): set on a successful receive posted with
	 * ROCE_RECV_MBUF (the SEND's payload) and on a successful RDMA READ posted with
	 * ROCE_SEND_MBUF (the response data); byte_len bytes, rte_pktmbuf_pkt_len() of it. The
	 * segments are the received frames' own buffers, headers, pad and ICRC stripped, in
	 * order: nothing was copied. The consumer owns the chain and frees it
	 * (rte_pktmbuf_free()); until then it holds the receiving port's mbufs. NULL otherwise,
	 * and for a message of 0 bytes.
	 */
	struct rte_mbuf *mbuf;
};

/** Create a CQ of at least @p cqe entries. @return the CQ or NULL (EINVAL, ENOMEM). */
struct roce_cq *roce_create_cq(struct roce_dev *dev, uint32_t cqe);
/**
 * roce_create_cq() with a context pointer (ibv_create_cq's cq_context): roce_cq_context()
 * returns it, and the CQ's asynchronous events carry it. @return the CQ or NULL (EINVAL, ENOMEM).
 */
struct roce_cq *roce_create_cq_ctx(struct roce_dev *dev, uint32_t cqe, void *cq_context);
/** @return the cq_context given at creation (NULL for roce_create_cq()). */
void *roce_cq_context(const struct roce_cq *cq);
/** @return 0, or -EBUSY while a QP or SRQ uses it. */
int roce_destroy_cq(struct roce_cq *cq);
/**
 * Take up to @p n completions. A CQ in error (it overflowed, ROCE_EVENT_CQ_ERR) still gives
 * back the completions it holds, then 0: it takes no new ones.
 * Threading: the lcore of the CQ's lane (the lane of the QPs that use it); another lcore of a
 * multi-lane device gets -EXDEV (counted; a panic in debug builds).
 * @return how many (0..n), -EINVAL or -EXDEV.
 */
int roce_poll_cq(struct roce_cq *cq, int n, struct roce_wc *wc);
/**
 * Dispatch up to @p budget completions to their WRs' wr_cqe->done(cq, wc) callbacks, one at a
 * time in completion order (Linux's ib_process_cq_direct()). Every WR whose completion lands
 * on this CQ must carry a wr_cqe; a completion whose wr_cqe or done is NULL is skipped and
 * counted (roce_dev_counts.wc_no_done). A callback may post WRs, poll other CQs, modify or
 * destroy QPs; it must not destroy this CQ or call roce_cq_process() on it again.
 * Threading: the lcore that owns the CQ (as roce_poll_cq()).
 * @return completions dispatched (0..budget); -EINVAL (NULL CQ, budget < 1); -EBUSY (called
 * from one of this CQ's own callbacks); -EXDEV (another lane's lcore).
 */
int roce_cq_process(struct roce_cq *cq, int budget);
/** @return true once the CQ overflowed: it is in error (IBA 10.10.2.3, CQ Error). */
bool roce_cq_in_error(const struct roce_cq *cq);
/**
 * Engine side: add a completion. When the CQ is full it goes to error: the completion is lost
 * (counted, roce_dev_counts.cqe_lost; a roce_wc.mbuf chain it carries is freed), ROCE_EVENT_CQ_ERR is raised once, and every QP that
 * uses the CQ (past RESET) goes to ERR at the engine's next safe point, with
 * ROCE_EVENT_QP_FATAL (IBA 10.10.2.3: CQ Error, then Local Work Queue Catastrophic Error).
 * @return 0; -ENOSPC (the CQ overflowed now); -EIO (the CQ was already in error).
 */
int roce_cq_push(struct roce_cq *cq, const struct roce_wc *wc);

/* ------------------------------------------------------------------ work requests */

struct roce_sge {
	uint64_t addr; /**< local address */
	uint32_t length;
	uint32_t lkey;
};

/** Send work request opcodes (values of enum ibv_wr_opcode; REG_MR as the kernel's). */
enum roce_wr_opcode {
	ROCE_WR_RDMA_WRITE = 0,
	ROCE_WR_RDMA_WRITE_WITH_IMM = 1,
	ROCE_WR_SEND = 2,
	ROCE_WR_SEND_WITH_IMM = 3,
	ROCE_WR_RDMA_READ = 4,
	ROCE_WR_ATOMIC_CMP_AND_SWP = 5,
	ROCE_WR_ATOMIC_FETCH_AND_ADD = 6,
	ROCE_WR_LOCAL_INV = 7,
	ROCE_WR_SEND_WITH_INV = 9,
	ROCE_WR_REG_MR = 32,
};

enum roce_send_flags {
	ROCE_SEND_FENCE = 1 << 0,
	ROCE_SEND_SIGNALED = 1 << 1,
	ROCE_SEND_SOLICITED = 1 << 2,
	ROCE_SEND_INLINE = 1 << 3,
	/**
	 * Zero copy with mbufs (issue 12 item 5). On a SEND or RDMA WRITE kind: the payload is
	 * the chain roce_send_wr.mbuf (all rte_pktmbuf_pkt_len() bytes of it; num_sge 0). Its
	 * segments may be pool mbufs, indirect mbufs or external buffers (rte_pktmbuf_attach_
	 * extbuf) over any memory with a valid buf_iova; each frame points into them (indirect
	 * mbufs, no copy). The QP owns the chain from a successful post on, and frees it when the
	 * WR completes, with any status, or is flushed or dropped; frames still queued keep
	 * their own references. On an RDMA READ: the response data is not placed in SGEs but
	 * kept as the frames' buffers and handed over in roce_wc.mbuf; num_sge 0, wr.rdma.length
	 * bytes, and the WR must be signaled (the completion carries the chain).
	 */
	ROCE_SEND_MBUF = 1 << 4,
};

struct roce_ah; /**< UD address handle: where a datagram goes */

/** Size of the GRH area at the start of every UD receive buffer (IBA 11.4.1.2). For RoCEv2 over
 * IPv4 its last 20 bytes hold the sender's IPv4 header, as rdma-core expects. */
#define ROCE_GRH_LEN 40

struct roce_send_wr {
	union {
		uint64_t wr_id;
		struct roce_cqe *wr_cqe;
	};
	struct roce_send_wr *next;
	struct roce_sge *sg_list;
	int num_sge;
	enum roce_wr_opcode opcode;
	uint32_t send_flags; /**< enum roce_send_flags */
	union {
		rte_be32_t imm_data; /**< network order */
		uint32_t invalidate_rkey;
	};
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
			uint32_t length; /**< RDMA READ with ROCE_SEND_MBUF: bytes to read */
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct roce_ah *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
		struct {
			struct roce_mr *mr;
			uint32_t key; /**< new key: index part must match, low byte is new */
			uint32_t access;
			uint64_t iova;
			uint64_t length;
			void *addr;
		} reg;
	} wr;
	struct rte_mbuf *mbuf; /**< ROCE_SEND_MBUF on a SEND or WRITE kind: the payload */
};

/** roce_recv_wr.flags. A WR's unused fields must be zero (designated initialisers do it). */
enum roce_recv_flags {
	/**
	 * Take the SEND's payload as an mbuf chain (roce_wc.mbuf) instead of copying it into
	 * SGEs: the frames' own buffers, headers stripped, in order (the "ddp-read into pages
	 * attached to mbufs" of the FreeBSD NFS/RDMA plan). num_sge 0; max_len is the longest
	 * message taken, a longer one completes LOC_LEN_ERR as a short buffer would. RC and UC
	 * (also through an SRQ); not UD. A chain also fails LOC_LEN_ERR when it would need more
	 * than UINT16_MAX segments (rte_mbuf's limit).
	 */
	ROCE_RECV_MBUF = 1 << 0,
};

struct roce_recv_wr {
	union {
		uint64_t wr_id;
		struct roce_cqe *wr_cqe;
	};
	struct roce_recv_wr *next;
	struct roce_sge *sg_list;
	int num_sge;
	uint32_t flags;	  /**< enum roce_recv_flags */
	uint32_t max_len; /**< ROCE_RECV_MBUF: the longest message it takes, bytes */
};

/* ------------------------------------------------------------------ queue pairs */

/**
 * QP types (enum ibv_qp_type values). ROCE_QPT_GSI is the device's one general services QP:
 * a UD QP that gets QPN 1 (IBA 10.2.5), used by connection management (roce_cm.h).
 */
enum roce_qp_type { ROCE_QPT_RC = 2, ROCE_QPT_UC = 3, ROCE_QPT_UD = 4, ROCE_QPT_GSI = 0x10 };

/* X(name): QP states, IBA 10.3.1 */
#define ROCE_QPS_LIST(X) X(RESET) X(INIT) X(RTR) X(RTS) X(SQD) X(SQE) X(ERR)
#define ROCE_QPS_ENUM_(n) ROCE_QPS_##n,
enum roce_qp_state { ROCE_QPS_LIST(ROCE_QPS_ENUM_) ROCE_QPS_NUM_STATES };
#undef ROCE_QPS_ENUM_

const char *roce_qp_state_str(enum roce_qp_state s);

/** A QP's transport counters and its loss-recovery state (telemetry /droce/roce shows them too). */
struct roce_qp_stats {
	uint64_t tx_pkts;	/**< packets sent, first sends and resends */
	uint64_t retransmits;	/**< go-backs: NAK, RTO, timeout, READ gap */
	uint64_t timeouts;	/**< configured IBA timeout expiries (spend retry_cnt) */
	uint64_t rto_early;	/**< adaptive RTO expiries before the configured timeout */
	uint64_t backlog_waits; /**< configured timeouts waited out: the responder was replaying */
	uint64_t stale_capped;	/**< answers to older requests past the hold (ROCE_STALE_HOLD) */
	uint64_t dup_acks_rx;	/**< ACKs for PSNs already acknowledged (answers to duplicates) */
	uint64_t nak_seq_rx;	/**< NAK-sequence-errors received */
	uint64_t nak_seq_tx;	/**< and sent by our responder */
	uint64_t cwnd_cut_skipped; /**< losses inside a window already cut */
	uint64_t rnr_nak_tx;	   /**< RNR NAKs our responder sent: a SEND found no receive */
	uint64_t rnr_nak_rx;	   /**< RNR NAKs received */
	uint64_t acks_rx;	/**< ACKs received (AETH syndrome ACK; coalesced: one per many) */
	uint64_t nak_fatal_rx;	/**< NAKs that end the QP received (invalid request, access, op) */
	uint64_t lcore_moves;	/**< times its engines ran on another lcore than the time before:
				 *   1 placed before the lanes ran, 2 moved home while they ran */
	uint32_t cwnd;		/**< in-flight window now, PSNs */
	double srtt_us, rto_us; /**< smoothed RTT and the adaptive RTO now (0: no sample) */
};

/** Fill @p s for @p qp (read on the lcore that owns the QP, or when it is quiet). */
void roce_qp_query_stats(const struct roce_qp *qp, struct roce_qp_stats *s);

/** Path MTU codes of ibv_mtu: 1=256 ... 5=4096. */
enum roce_mtu { ROCE_MTU_256 = 1, ROCE_MTU_512, ROCE_MTU_1024, ROCE_MTU_2048, ROCE_MTU_4096 };

/** @return the MTU in bytes, or 0 for an invalid code. */
static inline uint32_t roce_mtu_bytes(enum roce_mtu m)
{
	return m >= ROCE_MTU_256 && m <= ROCE_MTU_4096 ? 128u << m : 0;
}

/** Where the peer is: the address vector of an RC/UC QP or a UD address handle. */
struct roce_path {
	struct stk_ipaddr dgid_ip;  /**< the peer's IP (its RoCEv2 GID) */
	struct stk_ipaddr sgid_ip;  /**< our source; family 0 = the interface's */
	struct rte_ether_addr dmac; /**< all zeros: resolve through the stack's ARP/ND */
	uint16_t vlan_id;	    /**< 0 = the interface's */
	uint8_t pcp;		    /**< 802.1Q priority (with ROCE_PATH_PCP) */
	uint8_t dscp;		    /**< traffic class >> 2 (with ROCE_PATH_DSCP) */
	uint8_t flags;		    /**< ROCE_PATH_*: which of dscp/pcp override the port's */
	uint8_t ecn;		    /**< 0..3 */
	uint8_t hop_limit;	    /**< 0 = 64 */
	uint32_t flow_label;	    /**< 0 = derive the UDP source port from the QPNs */
};

/**
 * roce_path.flags. Without them a QP's frames take the interface's RoCE class (struct stk_qos:
 * DSCP 26, priority 3 by default) - the per-port setting; with them the QP's own DSCP or PCP
 * (the per-QP override through its path attributes). CNPs always use the port's CNP class.
 */
#define ROCE_PATH_DSCP 0x1 /**< dscp is this QP's */
#define ROCE_PATH_PCP 0x2  /**< pcp is this QP's */

enum roce_qp_attr_mask {
	ROCE_QP_STATE = 1 << 0,
	ROCE_QP_CUR_STATE = 1 << 1,
	ROCE_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
	ROCE_QP_ACCESS_FLAGS = 1 << 3,
	ROCE_QP_PKEY_INDEX = 1 << 4,
	ROCE_QP_PORT = 1 << 5,
	ROCE_QP_QKEY = 1 << 6,
	ROCE_QP_AV = 1 << 7,
	ROCE_QP_PATH_MTU = 1 << 8,
	ROCE_QP_TIMEOUT = 1 << 9,
	ROCE_QP_RETRY_CNT = 1 << 10,
	ROCE_QP_RNR_RETRY = 1 << 11,
	ROCE_QP_RQ_PSN = 1 << 12,
	ROCE_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	ROCE_QP_ALT_PATH = 1 << 14,
	ROCE_QP_MIN_RNR_TIMER = 1 << 15,
	ROCE_QP_SQ_PSN = 1 << 16,
	ROCE_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	ROCE_QP_PATH_MIG_STATE = 1 << 18,
	ROCE_QP_CAP = 1 << 19,
	ROCE_QP_DEST_QPN = 1 << 20,
};

struct roce_qp_attr {
	enum roce_qp_state qp_state;
	enum roce_qp_state cur_qp_state;
	enum roce_mtu path_mtu;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	uint32_t qp_access_flags; /**< remote rights the responder grants (enum roce_access) */
	struct roce_path ah_attr;
	uint16_t pkey_index;
	uint8_t port_num;
	uint8_t max_rd_atomic;	    /**< outstanding READ/atomic we may issue */
	uint8_t max_dest_rd_atomic; /**< outstanding READ/atomic we accept */
	uint8_t min_rnr_timer;	    /**< 5-bit IBA RNR timer code we NAK with */
	uint8_t timeout;	    /**< local ACK timeout: 4.096 us * 2^timeout, 0 = infinite */
	uint8_t retry_cnt;	    /**< 0..7 */
	uint8_t rnr_retry;	    /**< 0..7; 7 = infinite */
};

struct roce_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

struct roce_qp_init_attr {
	struct roce_cq *send_cq;
	struct roce_cq *recv_cq;
	struct roce_srq *srq;	/**< NULL: the QP has its own receive queue */
	struct roce_qp_cap cap; /**< requested; the granted values are written back */
	enum roce_qp_type qp_type;
	bool sq_sig_all;  /**< every send WR is signalled */
	void *qp_context; /**< the consumer's: roce_qp_context(), the QP's async events */
	bool on_lcore;	  /**< its home lane is @p lcore's; false: the device's placement */
	unsigned lcore;	  /**< with on_lcore: one of the device's lanes' lcores */
};

/**
 * Create an address handle for UD sends to @p path (its dgid_ip is required).
 * @return the handle, or NULL with rte_errno = EINVAL / ENOMEM.
 */
struct roce_ah *roce_create_ah(struct roce_pd *pd, const struct roce_path *path);
/** @return 0 or -EINVAL. */
int roce_destroy_ah(struct roce_ah *ah);

struct roce_qp *roce_create_qp(struct roce_pd *pd, struct roce_qp_init_attr *init);
/** @return 0 or -EINVAL; -EBUSY while another lcore's lane runs the QP: the call asked that
 * lane to let it go, call again after its next poll (every lane's, in fact). */
int roce_destroy_qp(struct roce_qp *qp);
/**
 * Change QP attributes and state (IBA 10.3.1, Table 91-style required/optional attributes).
 * From an lcore that is not the QP's lane's (while that lane runs), only a move to ERR is
 * taken: it is queued for the lane, which applies it at its next poll.
 * @return 0; -EINVAL for a transition that is not allowed, a missing required attribute, an
 * attribute not allowed in the transition, or a value out of range; -EXDEV from the wrong
 * lcore; -ENOBUFS when the lane's command ring is full.
 */
int roce_modify_qp(struct roce_qp *qp, const struct roce_qp_attr *attr, int attr_mask);
int roce_query_qp(const struct roce_qp *qp, struct roce_qp_attr *attr,
		  struct roce_qp_init_attr *init);
uint32_t roce_qp_num(const struct roce_qp *qp);
enum roce_qp_state roce_qp_state(const struct roce_qp *qp);
/** @return the qp_context of the QP's init attributes (also in roce_query_qp()'s @p init). */
void *roce_qp_context(const struct roce_qp *qp);

/**
 * Queue send work requests and start them. Each WR is checked before anything is queued for
 * it. Then, on a QP in RTS, per the device's post mode (roce_dev_set_post_mode(), default
 * ROCE_POST_IMMEDIATE): called on the lcore that owns the device, the requester runs in the
 * call (up to 32 packets per QP between two polls, shared with the poll; the window, DCQCN
 * pacing, fence and max_rd_atomic apply as in the poll) and the lcore's TX buffers are flushed, so the frames are on the port when it
 * returns; called while the device's engines or CM run, or in ROCE_POST_DOORBELL mode, they
 * leave at the end of the current stk_lcore_poll() iteration, after the poll hooks. What is
 * not sent then (beyond the burst, a closed window, a PFC pause, a next hop still being
 * resolved), and every post from another thread, is sent by the owner's next roce_poll().
 * Threading: the owner lcore, or any thread while no lcore polls the device (those only queue).
 * @return 0; -EINVAL (bad opcode for the QP type, num_sge out of range, inline too long,
 * atomic address not 8-byte aligned, unknown flags, bad lkey or an SGE beyond its MR: the
 * last two as IBA requires them caught at post time, C10-*), -ENOMEM (send queue full),
 * -EAGAIN / -EINVAL for the QP state (RESET/INIT/RTR: -EINVAL). *bad_wr names the first WR
 * not queued; earlier ones stay queued (and are started). An error the requester meets while
 * sending (a region gone) is not returned: it completes the WR with an error status and moves
 * the QP to ERR, as in the poll.
 */
int roce_post_send(struct roce_qp *qp, struct roce_send_wr *wr, struct roce_send_wr **bad_wr);

/** When roce_post_send() starts transmission (see there). */
enum roce_post_mode {
	ROCE_POST_QUEUE,    /**< only queue: the owner's next roce_poll() sends (before issue 12) */
	ROCE_POST_DOORBELL, /**< at the end of the current loop iteration, after the poll hooks */
	ROCE_POST_IMMEDIATE, /**< in the call, on the owner lcore (the default) */
	ROCE_POST_NUM_MODES
};

/**
 * Set how posts on @p dev's QPs start transmission. Control path (or on the owner lcore).
 * @return 0; -EINVAL (NULL, unknown mode).
 */
int roce_dev_set_post_mode(struct roce_dev *dev, enum roce_post_mode mode);
/** @return @p dev's post mode. */
enum roce_post_mode roce_dev_post_mode(const struct roce_dev *dev);

/** Queue receive WRs (on the QP, or on its SRQ: -EINVAL). Same error conventions. */
int roce_post_recv(struct roce_qp *qp, struct roce_recv_wr *wr, struct roce_recv_wr **bad_wr);

struct roce_srq_init_attr {
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit; /**< > 0: armed at creation (as rxe); see roce_modify_srq() */
	void *srq_context;  /**< the consumer's: roce_srq_context(), the SRQ's async events */
};
struct roce_srq *roce_create_srq(struct roce_pd *pd, struct roce_srq_init_attr *init);
int roce_destroy_srq(struct roce_srq *srq);
int roce_post_srq_recv(struct roce_srq *srq, struct roce_recv_wr *wr, struct roce_recv_wr **bad_wr);
/** @return the srq_context of the SRQ's init attributes. */
void *roce_srq_context(const struct roce_srq *srq);

/** SRQ attributes (ibv_srq_attr). */
struct roce_srq_attr {
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit; /**< armed limit; 0 = not armed (it disarms when it fires) */
};
/** roce_modify_srq() mask bits (enum ibv_srq_attr_mask values). */
enum roce_srq_attr_mask { ROCE_SRQ_MAX_WR = 1 << 0, ROCE_SRQ_LIMIT = 1 << 1 };

/**
 * Arm (srq_limit > 0) or disarm (0) the SRQ limit, as ibv_modify_srq(IBV_SRQ_LIMIT) does:
 * when a receive WQE taken from the SRQ leaves fewer than srq_limit WQEs on it,
 * ROCE_EVENT_SRQ_LIMIT_REACHED is raised once and the limit disarms (reads back 0) until it
 * is armed again. Threading: the lcore that owns the SRQ, or while it is quiet.
 * @return 0; -EINVAL (NULL, srq_limit > max_wr, ROCE_SRQ_MAX_WR: resizing is not supported,
 * unknown mask bits).
 */
int roce_modify_srq(struct roce_srq *srq, const struct roce_srq_attr *attr, int attr_mask);
/** @return 0 with @p attr filled (srq_limit: the armed limit, 0 once fired), or -EINVAL. */
int roce_query_srq(const struct roce_srq *srq, struct roce_srq_attr *attr);

struct stk_lcore;

/**
 * The engine's poll hook: run every QP of device @p dev (a struct roce_dev *) on this lcore -
 * send what the send queues allow, fire retransmission and RNR timers. Register it with
 * stk_lcore_add_poll(lc, roce_poll, dev) on each lcore that runs one of the device's lanes
 * (roce_dev_set_lcores()). Without lanes set, the first lcore that polls a device owns it;
 * frames any lcore receives for it before that wait in the device's ring for the owner, and
 * another lcore polling the same device does nothing.
 * It also reads the port's link every 100 ms (PORT_ACTIVE / PORT_ERR / DEVICE_FATAL), fails the
 * QPs a CQ error marked, and ends by handing queued events to the roce_set_async_handler().
 */
void roce_poll(struct stk_lcore *lc, void *dev);

/* ------------------------------------------------------------------ asynchronous events */

/** What an asynchronous event names (the union member of roce_async_event.element). */
enum roce_event_elem {
	ROCE_ELEM_CQ,
	ROCE_ELEM_QP,
	ROCE_ELEM_SRQ,
	ROCE_ELEM_PORT,
	ROCE_ELEM_DEV,
};

/*
 * X(name, value, element, raised): asynchronous event types, values of enum ibv_event_type,
 * the object each names, and whether droce raises it (1) or only keeps the number (0). The
 * affiliated events and errors are IBA 10.10.2 (10.10.2.3: asynchronous errors).
 *   CQ_ERR              a CQ overflowed: it is in error, its QPs go to ERR (QP_FATAL each)
 *   QP_FATAL            the QP went to ERR: the requester or completer failed it
 *                       (roce_qp_fatal(): retry or RNR retry exceeded, a NAK, bad response,
 *                       local protection), or its CQ went to error
 *   QP_REQ_ERR          responder: an invalid request (NAKed), the QP went to ERR
 *   QP_ACCESS_ERR       responder: an rkey, bounds or rights violation (NAKed), QP to ERR
 *   DEVICE_FATAL        the device's DPDK port is gone: every QP went to ERR
 *   PORT_ACTIVE / _ERR  the port's link came up / went down (checked every 100 ms)
 *   SRQ_LIMIT_REACHED   fewer WQEs than the armed limit are left on the SRQ (then disarmed)
 *   QP_LAST_WQE_REACHED a QP with an SRQ entered ERR: no more of the SRQ's WQEs will
 *                       complete on it (raised after its flush completions are queued)
 */
#define ROCE_EVENT_LIST(X)                                                                         \
	X(CQ_ERR, 0, CQ, 1)                                                                        \
	X(QP_FATAL, 1, QP, 1)                                                                      \
	X(QP_REQ_ERR, 2, QP, 1)                                                                    \
	X(QP_ACCESS_ERR, 3, QP, 1)                                                                 \
	X(COMM_EST, 4, QP, 0)                                                                      \
	X(SQ_DRAINED, 5, QP, 0)                                                                    \
	X(PATH_MIG, 6, QP, 0)                                                                      \
	X(PATH_MIG_ERR, 7, QP, 0)                                                                  \
	X(DEVICE_FATAL, 8, DEV, 1)                                                                 \
	X(PORT_ACTIVE, 9, PORT, 1)                                                                 \
	X(PORT_ERR, 10, PORT, 1)                                                                   \
	X(LID_CHANGE, 11, PORT, 0)                                                                 \
	X(PKEY_CHANGE, 12, PORT, 0)                                                                \
	X(SM_CHANGE, 13, PORT, 0)                                                                  \
	X(SRQ_ERR, 14, SRQ, 0)                                                                     \
	X(SRQ_LIMIT_REACHED, 15, SRQ, 1)                                                           \
	X(QP_LAST_WQE_REACHED, 16, QP, 1)                                                          \
	X(CLIENT_REREGISTER, 17, PORT, 0)                                                          \
	X(GID_CHANGE, 18, PORT, 0)

#define ROCE_EVENT_ENUM_(n, v, e, r) ROCE_EVENT_##n = (v),
enum roce_event_type { ROCE_EVENT_LIST(ROCE_EVENT_ENUM_) ROCE_EVENT_NUM };
#undef ROCE_EVENT_ENUM_

/** @return "CQ_ERR", "QP_FATAL", ... ("?" when unknown). */
const char *roce_event_type_str(enum roce_event_type t);
/** @return the kind of object events of type @p t name (ROCE_ELEM_DEV when unknown). */
enum roce_event_elem roce_event_type_elem(enum roce_event_type t);

/** An asynchronous event (ibv_async_event, with the element's context as ib_event's). */
struct roce_async_event {
	enum roce_event_type event_type;
	union {
		struct roce_cq *cq;
		struct roce_qp *qp;
		struct roce_srq *srq;
		uint8_t port_num; /**< always 1 */
	} element;		  /**< the member roce_event_type_elem(event_type) names */
	void *context; /**< the element's cq_context / qp_context / srq_context, else NULL */
};

/** Depth of a device's event queue. */
#define ROCE_ASYNC_QLEN 1024

/**
 * Take the oldest queued asynchronous event of @p dev (ibv_get_async_event without blocking,
 * and without an ack: destroying a QP, CQ or SRQ removes its queued events, counted
 * roce_dev_counts.async_purged, so an event never names freed memory).
 * The queue holds ROCE_ASYNC_QLEN events and keeps the oldest: an event raised while it is
 * full is not queued (nor given to the handler) but counted, per device
 * (roce_dev_counts.async_dropped) and by type (async_raised[] counts every one raised). The
 * oldest are kept because the first event is the cause of those after it (CQ_ERR before the
 * QP_FATALs it causes).
 * Threading: the lcore that polls the device, or while no lcore does.
 * @return 0 with @p ev filled; -EAGAIN (none queued); -EINVAL (NULL argument).
 */
int roce_get_async_event(struct roce_dev *dev, struct roce_async_event *ev);

/** Asynchronous event handler (ib_event_handler): @p ev is valid during the call only. */
typedef void (*roce_async_fn)(const struct roce_async_event *ev, void *arg);

/**
 * Have roce_poll() hand @p dev's queued events to @p fn, oldest first, at the end of each
 * poll: never from inside the engines, so the handler may modify, destroy or post to QPs,
 * CQs and SRQs. NULL: events stay queued for roce_get_async_event().
 * Threading: control path (before the lcore polls the device, or on that lcore).
 * @return 0 or -EINVAL (NULL device).
 */
int roce_set_async_handler(struct roce_dev *dev, roce_async_fn fn, void *arg);

/** Counts of live objects (tests check everything is back to zero), and event counters. */
struct roce_dev_counts {
	uint32_t pds, mrs, cqs, srqs, qps;
	uint64_t rx_handoff;  /**< frames another lcore received and passed to the owner */
	uint64_t wrong_lcore; /**< calls refused: an object used from another lane's lcore */
	uint64_t qp_joined;   /**< QPs a lane took over (placement at RTS, or joined while live) */
	uint64_t mr_dereg_busy; /**< roce_dereg_mr() answered -EBUSY (frames pointed into it) */
	uint64_t async_raised[ROCE_EVENT_NUM]; /**< asynchronous events raised, by type */
	uint64_t async_dropped; /**< raised while the event queue was full: not delivered */
	uint64_t async_purged;	/**< queued events removed when their QP, CQ or SRQ was destroyed */
	uint64_t cqe_lost;	/**< completions a CQ could not take (overflow, or in error) */
	uint64_t wc_no_done;	/**< roce_cq_process(): completions without wr_cqe->done */
	uint64_t post_tx_now;	/**< posts that put frames on the port in the call (IMMEDIATE) */
	uint64_t
		post_doorbell; /**< posts that rang the doorbell (DOORBELL, or inside the engines) */
	uint64_t iova_resolved; /**< regions whose IOVAs were resolved (registrations, REG_MR) */
	uint64_t post_deferred; /**< posts on the owner left to the next poll: QP not sending, a
				 *   PFC pause of its priority, the next hop's MAC unresolved */
};
void roce_dev_counts(const struct roce_dev *dev, struct roce_dev_counts *c);

#endif /* ROCE_VERBS_H */
