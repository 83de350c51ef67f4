/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_mr.c - the RoCE device, protection domains and memory regions.
 *
 * Keys are (table index << 8) | a variable byte, as in IBA and rxe: the byte changes with
 * every registration, so a stale key to a re-used slot does not match (IBA 10.6.3.5), and a
 * fast-registration WR may set it (ib_update_fast_reg_key). lkey == rkey.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_memory.h>
#include <rte_ring.h>

#include "roce_engine.h"
#include "roce_int.h"
#include "stk_lcore.h"
#include "stk_stack.h"

/* Each lane's reference on the region: the region's own, 1. */
static void roce_mr_zc_init(struct roce_mr *mr)
{
	for (unsigned i = 0; i < ROCE_MAX_LANES; i++) {
		mr->zc[i].s.free_cb = roce_zc_free;
		rte_mbuf_ext_refcnt_set(&mr->zc[i].s, 1);
	}
}

bool roce_mr_busy(const struct roce_mr *mr)
{
	for (unsigned i = 0; i < ROCE_MAX_LANES; i++)
		if (rte_mbuf_ext_refcnt_read(&mr->zc[i].s) != 1)
			return true;
	return false;
}

struct roce_dev *roce_dev_open(uint16_t iface)
{
	const struct stk_iface *ifc;
	struct roce_dev *dev;
	uint32_t room;

	if (iface >= stk_iface_count()) {
		rte_errno = ENODEV;
		return NULL;
	}
	ifc = stk_iface_get(iface);
	dev = rte_zmalloc("roce_dev", sizeof(*dev), 0);
	if (!dev)
		goto nomem;
	dev->iface = iface;
	/* largest IB MTU whose packets fit: IP + UDP + BTH + the largest extension set + ICRC
	 * (IPv6 headers are 20 bytes longer; sized for them so both families fit) */
	room = ifc->mtu > 40 + 8 + 12 + 28 + 4 ? ifc->mtu - (40 + 8 + 12 + 28 + 4) : 0;
	for (dev->max_path_mtu = 4096; dev->max_path_mtu > room && dev->max_path_mtu > 256;)
		dev->max_path_mtu >>= 1;
	dev->mrs = rte_zmalloc("roce_mrs", (ROCE_MAX_MR + 1) * sizeof(*dev->mrs), 0);
	dev->qps = rte_zmalloc("roce_qps", ROCE_MAX_QP * sizeof(*dev->qps), 0);
	if (!dev->mrs || !dev->qps)
		goto nomem;
	dev->mr_hint = 1;
	dev->key_seq = 0x5a;
	dev->rto_min = rte_get_tsc_hz() / 1000000 * ROCE_RTO_MIN_US;
	dev->gap_tsc = rte_get_tsc_hz() / 100;
	dev->nlanes = 1; /* claimed by the first lcore that polls, unless roce_dev_set_lcores() */
	dev->lane[0].lcore = RTE_MAX_LCORE;
	memset(dev->lane_of, ROCE_LANE_NONE, sizeof(dev->lane_of));
	dev->post_mode = ROCE_POST_IMMEDIATE;
	/* the reserved lkey's region: the bounds are DPDK's memory lists, checked per use */
	dev->dma_mr.lkey = ROCE_RESERVED_LKEY;
	dev->dma_mr.rkey = UINT32_MAX; /* never an rkey: remote lookups use the key table */
	dev->dma_mr.access = ROCE_ACCESS_LOCAL_WRITE;
	dev->dma_mr.state = ROCE_MR_VALID;
	dev->dma_mr.length = UINT64_MAX;
	dev->dma_mr.dma_base = UINT64_MAX;
	roce_mr_zc_init(&dev->dma_mr);
	dev->link_up = -1; /* read at the first poll (link_next 0) */
	if (roce_devs[iface]) {
		rte_free(dev->mrs);
		rte_free(dev->qps);
		rte_free(dev);
		rte_errno = EEXIST;
		return NULL;
	}
	/* one hook on UDP 4791 serves every device; it finds them by interface */
	if (!roce_nb_devs && stk_udp_bind(STK_ROCE_UDP_PORT, roce_rx, NULL) != 0) {
		rte_free(dev->mrs);
		rte_free(dev->qps);
		rte_free(dev);
		rte_errno = EBUSY;
		return NULL;
	}
	if (roce_lane_init(dev, 0) != 0) {
		roce_lane_fini(dev, 0);
		if (!roce_nb_devs)
			stk_udp_unbind(STK_ROCE_UDP_PORT);
		goto nomem;
	}
	roce_devs[iface] = dev;
	roce_nb_devs++;
	roce_telemetry_register(); /* fails harmlessly where telemetry is off */
	return dev;
nomem:
	if (dev) {
		rte_free(dev->mrs);
		rte_free(dev->qps);
		rte_free(dev);
	}
	rte_errno = ENOMEM;
	return NULL;
}

uint32_t roce_dev_max_path_mtu(const struct roce_dev *dev)
{
	return dev->max_path_mtu;
}

int roce_dev_close(struct roce_dev *dev)
{
	if (!dev)
		return -EINVAL;
	if (dev->n.pds || dev->n.cqs || dev->n.qps || dev->n.mrs || dev->n.srqs ||
	    roce_mr_busy(&dev->dma_mr))
		return -EBUSY;
	for (unsigned i = 0; i < dev->nlanes; i++) {
		roce_post_lane_close(&dev->lane[i]);
		roce_lane_fini(dev, i);
	}
	roce_devs[dev->iface] = NULL;
	if (--roce_nb_devs == 0)
		stk_udp_unbind(STK_ROCE_UDP_PORT);
	rte_free(dev->mrs);
	rte_free(dev->qps);
	rte_free(dev);
	return 0;
}

void roce_dev_counts(const struct roce_dev *dev, struct roce_dev_counts *c)
{
	*c = dev->n;
	/* the fast path counts per lane (each lcore its own) */
	for (unsigned i = 0; i < dev->nlanes; i++) {
		const struct roce_lane *l = &dev->lane[i];

		c->rx_handoff += l->drops[ROCE_RX_HANDOFF];
		c->cqe_lost += l->cnt[ROCE_LNC_cqe_lost];
		c->wc_no_done += l->cnt[ROCE_LNC_wc_no_done];
		c->post_tx_now += l->cnt[ROCE_LNC_post_tx_now];
		c->post_doorbell += l->cnt[ROCE_LNC_post_doorbell];
		c->post_deferred += l->cnt[ROCE_LNC_post_deferred];
		c->async_dropped += l->cnt[ROCE_LNC_async_dropped];
		c->async_purged += l->cnt[ROCE_LNC_async_purged];
		c->wrong_lcore += l->cnt[ROCE_LNC_wrong_lcore];
		c->qp_joined += l->cnt[ROCE_LNC_qp_joined];
		for (unsigned k = 0; k < ROCE_EVENT_NUM; k++)
			c->async_raised[k] += l->async_raised[k];
	}
}

uint64_t roce_dev_rx_drops(const struct roce_dev *dev, unsigned k)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < dev->nlanes; i++)
		n += k < ROCE_RX_NUM ? dev->lane[i].drops[k] : 0;
	return n;
}

uint64_t roce_dev_decode_drops(const struct roce_dev *dev, unsigned k)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < dev->nlanes; i++)
		n += k < ROCE_DROP_NUM ? dev->lane[i].decode_drops[k] : 0;
	return n;
}

struct roce_pd *roce_alloc_pd(struct roce_dev *dev)
{
	struct roce_pd *pd = rte_zmalloc("roce_pd", sizeof(*pd), 0);

	if (!pd) {
		rte_errno = ENOMEM;
		return NULL;
	}
	pd->dev = dev;
	dev->n.pds++;
	return pd;
}

int roce_dealloc_pd(struct roce_pd *pd)
{
	if (!pd)
		return -EINVAL;
	if (pd->users)
		return -EBUSY;
	pd->dev->n.pds--;
	rte_free(pd);
	return 0;
}

static int slot_alloc(struct roce_dev *dev, struct roce_mr *mr)
{
	for (uint32_t k = 0; k < ROCE_MAX_MR; k++) {
		uint32_t i = (dev->mr_hint + k - 1) % ROCE_MAX_MR + 1;

		if (!dev->mrs[i]) {
			dev->mrs[i] = mr;
			dev->mr_hint = i % ROCE_MAX_MR + 1;
			mr->index = i;
			mr->lkey = mr->rkey = i << 8 | dev->key_seq++;
			return 0;
		}
	}
	return -ENOSPC;
}

static struct roce_mr *mr_new(struct roce_pd *pd)
{
	struct roce_mr *mr = rte_zmalloc("roce_mr", sizeof(*mr), 0);

	if (!mr) {
		rte_errno = ENOMEM;
		return NULL;
	}
	mr->pd = pd;
	roce_mr_zc_init(mr);
	if (slot_alloc(pd->dev, mr) != 0) {
		rte_free(mr);
		rte_errno = ENOSPC;
		return NULL;
	}
	pd->users++;
	pd->dev->n.mrs++;
	return mr;
}

/* IBA 10.6.3.1: remote write or atomic rights need local write */
bool roce_access_ok(uint32_t access)
{
	if (access & ~(uint32_t)ROCE_ACCESS_ALL)
		return false;
	if ((access & (ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & ROCE_ACCESS_LOCAL_WRITE))
		return false;
	return true;
}

/* IOVA of the byte at @p p: DPDK's memseg arithmetic, or the kernel's pagemap for memory DPDK
 * does not know (a system call: only ever at registration). */
static uint64_t iova_of(const void *p)
{
	const struct rte_memseg *ms = rte_mem_virt2memseg(p, NULL);

	if (ms && ms->iova != RTE_BAD_IOVA)
		return ms->iova + (uint64_t)((uintptr_t)p - (uintptr_t)ms->addr);
	return rte_mem_virt2iova(p);
}

#define DMA_MAX_PAGES (1u << 21)

int roce_mr_dma_resolve(struct roce_mr *mr)
{
	const struct rte_memseg_list *msl;
	uintptr_t a = (uintptr_t)mr->addr, first;
	uint64_t pg, n, base;
	bool contig = true;
	uint64_t *pages;
	uint8_t shift;

	rte_free(mr->dma_pages);
	mr->dma_pages = NULL;
	mr->dma_npages = 0;
	mr->pd->dev->n.iova_resolved++;
	if (rte_eal_iova_mode() == RTE_IOVA_VA) {
		mr->dma_base = a; /* the address is the IOVA */
		return 0;
	}
	msl = rte_mem_virt2memseg_list(mr->addr);
	pg = msl ? msl->page_sz : (uint64_t)sysconf(_SC_PAGESIZE);
	shift = (uint8_t)rte_log2_u64(pg);
	first = a & ~(uintptr_t)(pg - 1);
	n = (a + mr->length - first + pg - 1) >> shift;
	base = iova_of((const void *)first);
	for (uint64_t i = 1; i < n && contig; i++)
		contig = base != RTE_BAD_IOVA &&
			 iova_of((const void *)(first + (i << shift))) == base + (i << shift);
	if (contig) {
		mr->dma_base = base == RTE_BAD_IOVA ? UINT64_MAX : base + (a - first);
		return 0;
	}
	/* not IOVA-contiguous: one IOVA per page, looked up now, indexed per packet */
	if (n > DMA_MAX_PAGES)
		return -ENOMEM;
	pages = rte_malloc("roce_mr_pages", n * sizeof(*pages), 0);
	if (!pages)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++)
		pages[i] = iova_of((const void *)(first + (i << shift)));
	mr->dma_base = UINT64_MAX;
	mr->dma_pages = pages;
	mr->dma_npages = (uint32_t)n;
	mr->dma_shift = shift;
	return 0;
}

bool roce_mr_dma(const struct roce_mr *mr, const void *p, uint32_t len, uint64_t *iova)
{
	uintptr_t a = (uintptr_t)p;

	if (mr->lkey == ROCE_RESERVED_LKEY && mr->rkey == UINT32_MAX) {
		/* DPDK's own memory: the memseg arithmetic, no system call */
		const struct rte_memseg *m0, *m1;

		if (rte_eal_iova_mode() == RTE_IOVA_VA) {
			*iova = a;
			return true;
		}
		m0 = rte_mem_virt2memseg(p, NULL);
		m1 = len > 1 ? rte_mem_virt2memseg((const void *)(a + len - 1), NULL) : m0;
		if (!m0 || !m1 || m0->iova == RTE_BAD_IOVA || m1->iova == RTE_BAD_IOVA)
			return false;
		*iova = m0->iova + (a - (uintptr_t)m0->addr);
		return m0 == m1 ||
		       m1->iova + (a + len - 1 - (uintptr_t)m1->addr) == *iova + len - 1;
	}
	/* an unknown IOVA (PA mode, a page the kernel would not tell: not populated or no
	 * right to read pagemap) is never attached: a NIC would read whatever is there */
	if (!mr->dma_pages) {
		*iova = mr->dma_base + (a - (uintptr_t)mr->addr);
		return mr->dma_base != UINT64_MAX;
	}
	{
		uintptr_t first = (uintptr_t)mr->addr & ~(((uintptr_t)1 << mr->dma_shift) - 1);
		uint64_t i = (a - first) >> mr->dma_shift,
			 j = (a + len - 1 - first) >> mr->dma_shift;
		uint64_t off = (a - first) & (((uint64_t)1 << mr->dma_shift) - 1);

		if (j >= mr->dma_npages || mr->dma_pages[i] == RTE_BAD_IOVA)
			return false;
		*iova = mr->dma_pages[i] + off;
		for (uint64_t k = i + 1; k <= j; k++)
			if (mr->dma_pages[k] != mr->dma_pages[i] + ((k - i) << mr->dma_shift))
				return false;
		return true;
	}
}

struct roce_mr *roce_reg_mr(struct roce_pd *pd, void *addr, uint64_t length, uint64_t iova,
			    uint32_t access)
{
	struct roce_mr *mr;

	if (!pd || !addr || length == 0 || length > (1ull << 40) || !roce_access_ok(access) ||
	    iova + length < iova) {
		rte_errno = EINVAL;
		return NULL;
	}
	mr = mr_new(pd);
	if (!mr)
		return NULL;
	mr->addr = addr;
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	if (roce_mr_dma_resolve(mr) != 0) {
		roce_dereg_mr(mr);
		rte_errno = ENOMEM;
		return NULL;
	}
	mr->state = ROCE_MR_VALID;
	return mr;
}

struct roce_mr *roce_alloc_mr(struct roce_pd *pd, uint64_t max_length)
{
	struct roce_mr *mr;

	if (!pd || max_length == 0 || max_length > (1ull << 40)) {
		rte_errno = EINVAL;
		return NULL;
	}
	mr = mr_new(pd);
	if (!mr)
		return NULL;
	mr->length = max_length;
	mr->dma_base = UINT64_MAX; /* resolved by each REG_MR WR */
	mr->state = ROCE_MR_FREE;
	mr->fast_reg = true;
	return mr;
}

/*
 * Deregistration kills the keys first and frees last (see roce_verbs.h): the state makes
 * every later lookup fail, so the responder's per-packet re-checks stop a WRITE being placed
 * and READ responses being sent from the region; the slot stays taken (its index cannot name
 * a new region) until no zero-copy frame references the memory any more.
 */
int roce_dereg_mr(struct roce_mr *mr)
{
	struct roce_dev *dev;

	if (!mr)
		return -EINVAL;
	dev = mr->pd->dev;
	if (dev->mrs[mr->index] != mr)
		return -EINVAL;
	mr->state = ROCE_MR_DEAD;
	if (roce_mr_busy(mr)) {
		dev->n.mr_dereg_busy++;
		return -EBUSY;
	}
	dev->mrs[mr->index] = NULL;
	mr->pd->users--;
	dev->n.mrs--;
	rte_free(mr->dma_pages);
	rte_free(mr);
	return 0;
}

struct roce_mr *roce_mr_lookup(struct roce_dev *dev, uint32_t key, bool remote,
			       const struct roce_pd *pd, uint64_t addr, uint64_t len,
			       uint32_t access, enum roce_key_err *why)
{
	uint32_t idx = key >> 8;
	struct roce_mr *mr = idx && idx <= ROCE_MAX_MR ? dev->mrs[idx] : NULL;
	uint64_t base;

	*why = ROCE_KEY_OK;
	if (key == ROCE_RESERVED_LKEY && !remote) {
		/* memory DPDK registered by construction: one memseg list holds all of it, and
		 * every page of it is allocated (a list reserves more address space than it maps) */
		struct rte_memseg_list *msl =
			rte_mem_virt2memseg_list((const void *)(uintptr_t)addr);
		uint64_t off;

		if (!msl || len > msl->len ||
		    (off = addr - (uintptr_t)msl->base_va) > msl->len - len) {
			*why = ROCE_KEY_BOUNDS;
			return NULL;
		}
		for (uint64_t pg = off / msl->page_sz;
		     pg <= (off + (len ? len - 1 : 0)) / msl->page_sz; pg++) {
			if (rte_fbarray_is_used(&msl->memseg_arr, (unsigned)pg) != 1) {
				*why = ROCE_KEY_BOUNDS;
				return NULL;
			}
		}
		if ((dev->dma_mr.access & access) != access) {
			*why = ROCE_KEY_ACCESS;
			return NULL;
		}
		return &dev->dma_mr;
	}
	if (!mr || (remote ? mr->rkey : mr->lkey) != key) {
		*why = ROCE_KEY_UNKNOWN;
		return NULL;
	}
	if (mr->state != ROCE_MR_VALID) {
		*why = ROCE_KEY_STATE;
		return NULL;
	}
	if (pd && mr->pd != pd) {
		*why = ROCE_KEY_PD;
		return NULL;
	}
	base = remote ? mr->iova : (uint64_t)(uintptr_t)mr->addr;
	/* byte-exact and overflow-safe: base <= addr and addr + len <= base + length */
	if (addr < base || addr - base > mr->length || len > mr->length - (addr - base)) {
		*why = ROCE_KEY_BOUNDS;
		return NULL;
	}
	if ((mr->access & access) != access) {
		*why = ROCE_KEY_ACCESS;
		return NULL;
	}
	return mr;
}

int roce_mr_invalidate(struct roce_dev *dev, uint32_t key, const struct roce_pd *pd, bool remote)
{
	uint32_t idx = key >> 8;
	struct roce_mr *mr = idx && idx <= ROCE_MAX_MR ? dev->mrs[idx] : NULL;
	const uint32_t rights =
		ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC;

	/* IBA 10.6.3.5: only fast-registered regions may be invalidated, with their own key */
	if (!mr || mr->rkey != key || (pd && mr->pd != pd) || !mr->fast_reg ||
	    mr->state == ROCE_MR_DEAD)
		return -EINVAL;
	/* a SEND_WITH_INV names an R_Key, and a region granted no remote right has none to
	 * name: the peer could never use its key, so it may not retire it either (issue 11,
	 * confirm list); its local invalidation stays the owner's */
	if (remote && !(mr->access & rights))
		return -EINVAL;
	mr->state = ROCE_MR_INVALID;
	return 0;
}

struct roce_ah *roce_create_ah(struct roce_pd *pd, const struct roce_path *path)
{
	struct roce_ah *ah;

	if (!pd || !path || (path->dgid_ip.family != 4 && path->dgid_ip.family != 6) ||
	    path->dscp > 63 || path->ecn > 3 || path->pcp > 7) {
		rte_errno = EINVAL;
		return NULL;
	}
	ah = rte_zmalloc("roce_ah", sizeof(*ah), 0);
	if (!ah) {
		rte_errno = ENOMEM;
		return NULL;
	}
	ah->pd = pd;
	ah->path = *path;
	pd->users++;
	return ah;
}

int roce_destroy_ah(struct roce_ah *ah)
{
	if (!ah)
		return -EINVAL;
	ah->pd->users--;
	rte_free(ah);
	return 0;
}

int roce_dereg_mr_drain(struct roce_mr *mr, struct stk_lcore *lc, unsigned max_polls)
{
	int rc = roce_dereg_mr(mr);

	for (unsigned i = 0; rc == -EBUSY && lc && i < max_polls; i++) {
		stk_lcore_poll(lc);
		rc = roce_dereg_mr(mr);
	}
	return rc;
}
