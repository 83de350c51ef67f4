/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nfs3_xdr.c - the NFSv3 and MOUNT XDR codecs (nfs/xdr) against real traffic and the RFCs.
 *
 * Captures: every NFSv3 (and MOUNT, if any) call and reply of tests/data/nfs_rdma_full.pcap
 * and tests/data/nfs_rdma_rpc_msgs.pcap (Linux 6.1 xprtrdma client against knfsd, RPC-over-RDMA
 * over rdma_rxe) decodes with the procedure's routine, consumes the message exactly, and
 * re-encodes to the same bytes; so does every prefix of it fail to decode (heap copies of
 * exactly that size, so ASan sees any over-read). Messages not whole in their SEND:
 * - calls whose DDP data came by read chunk (WRITE): the chunk's bytes are spliced back in at
 *   its XDR position as zeros (the data itself travelled by RDMA READ);
 * - replies whose DDP data went by write chunk (READ): zeros of the chunk's written length are
 *   appended, where the data opaque's content belongs (RFC 8166 §3.4.5);
 * - RDMA_NOMSG replies (the whole message in a reply chunk): rebuilt from the RDMA WRITEs
 *   into the chunk's segments when the capture has them (nfs_rdma_full.pcap: READDIRPLUS),
 *   else skipped and counted (nfs_rdma_rpc_msgs.pcap holds SENDs only); RDMA_NOMSG calls
 *   (position-zero read chunk) are skipped.
 * MOUNT goes over TCP, so neither capture has any: MOUNT is checked by the RFC vectors.
 * A few decoded fields are compared with what tshark 4.x printed for the same frames.
 *
 * RFC vectors: handle and name limits, strict bools, READDIR(PLUS) sizes, MOUNT v1/v3
 * messages built by hand from RFC 1813 Appendix I and RFC 1094 Appendix A.
 */
#include <endian.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mount_xdr.h"
#include "nfs3_xdr.h"
#include "orpc_msg.h"
#include "pcap_walk.h"
#include "rpcrdma_hdr.h"

#define RNDUP4(n) (((n) + 3u) & ~3u)

static uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return p + 4;
}

/* ---- decode / encode helpers ---- */

static struct nfs_dirent dirents[1024];
static union {
	uint8_t b[1024];
	uint64_t align;
	struct nfs3_readdir_res rd;
} obj;

static void prep(bool dir)
{
	memset(&obj, 0, sizeof(obj));
	if (dir) {
		obj.rd.entries = dirents;
		obj.rd.cap = sizeof(dirents) / sizeof(dirents[0]);
	}
}

/* decode b[0..len) into obj; true when it decodes and consumes exactly len bytes */
static bool decode(xdrproc_t fn, bool dir, const uint8_t *b, uint32_t len)
{
	bool ok;
	XDR x;

	prep(dir);
	xdrmem_create(&x, (char *)(uintptr_t)b, len, XDR_DECODE);
	ok = fn(&x, &obj, 0) && xdr_getpos(&x) == len;
	xdr_destroy(&x);
	return ok;
}

/* encode obj into out; its length, or -1 when the routine fails */
static int encode(xdrproc_t fn, uint8_t *out, uint32_t cap)
{
	int n = -1;
	XDR x;

	xdrmem_create(&x, (char *)out, cap, XDR_ENCODE);
	if (fn(&x, &obj, 0))
		n = (int)xdr_getpos(&x);
	xdr_destroy(&x);
	return n;
}

/* every prefix of a valid message fails, reading only its own bytes */
static void prefixes_fail(const char *what, unsigned frame, xdrproc_t fn, bool dir,
			  const uint8_t *b, uint32_t len)
{
	for (uint32_t n = 0; n < len; n++) {
		uint8_t *c = malloc(n ? n : 1);
		bool ok;

		assert_non_null(c);
		memcpy(c, b, n);
		ok = decode(fn, dir, c, n);
		free(c);
		if (ok)
			fail_msg("%s frame %u: a %u-byte prefix of %u decodes", what, frame, n,
				 len);
	}
}

static void roundtrip(const char *what, unsigned frame, xdrproc_t fn, bool dir, const uint8_t *b,
		      uint32_t len)
{
	static uint8_t out[1 << 18];
	int n;

	if (!decode(fn, dir, b, len))
		fail_msg("%s frame %u: does not decode (%u bytes)", what, frame, len);
	n = encode(fn, out, sizeof(out));
	if (n != (int)len || memcmp(out, b, len) != 0)
		fail_msg("%s frame %u: re-encodes to %d bytes, not the %u received", what, frame, n,
			 len);
}

/* ---- the capture walk ---- */

#define MAX_XIDS 8192u

struct walk {
	bool full; /**< nfs_rdma_full.pcap: check tshark's fields */
	struct {
		uint32_t xid, prog, vers, proc;
	} calls[MAX_XIDS];
	uint32_t ncalls;
	unsigned call_ok[NFS3_NPROCS], reply_ok[NFS3_NPROCS];
	unsigned mnt_calls, mnt_replies;
	unsigned spliced_calls, spliced_replies, nomsg, reply_chunk;
	unsigned prefix_msgs;
	/* RDMA WRITEs seen, to rebuild replies sent through a reply chunk */
	struct {
		uint32_t qp, rkey;
		uint64_t va;
		uint32_t len;
		uint8_t data[8192];
	} writes[64];
	uint32_t nwrites, cur; /**< cur: the WRITE that MIDDLE/LAST packets continue */
};

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* RDMA WRITE FIRST/ONLY (0x06, 0x0a: BTH + RETH) start a write, MIDDLE/LAST (0x07, 0x08)
 * continue it (one at a time on a QP, IBA 9.4); the first 8 KiB of each are kept */
static void rdma_write(struct walk *w, const uint8_t *f, uint32_t len)
{
	uint32_t ihl, udp, ulen, bth, op, pad, qp, off, n;

	if (len < 14 + 20 + 8 + 12 + 4 || f[12] != 0x08 || f[13] != 0x00 || f[23] != 17)
		return;
	ihl = (f[14] & 15u) * 4;
	udp = 14 + ihl;
	ulen = get16(f + udp + 4);
	bth = udp + 8;
	if (udp + ulen > len || get16(f + udp + 2) != 4791 || ulen < 8 + 12 + 16 + 4)
		return;
	op = f[bth];
	pad = (f[bth + 1] >> 4) & 3u;
	qp = get32(f + bth + 4) & 0xffffffu;
	if (op == 0x06 || op == 0x0a) {
		if (w->nwrites == sizeof(w->writes) / sizeof(w->writes[0]))
			return;
		w->cur = w->nwrites++;
		w->writes[w->cur].qp = qp;
		w->writes[w->cur].va = (uint64_t)get32(f + bth + 12) << 32 | get32(f + bth + 16);
		w->writes[w->cur].rkey = get32(f + bth + 20);
		w->writes[w->cur].len = 0;
		off = 12 + 16;
	} else if ((op == 0x07 || op == 0x08) && w->nwrites && w->writes[w->cur].qp == qp) {
		off = 12;
	} else {
		return;
	}
	n = ulen - 8 - off - 4 - pad;
	for (uint32_t k = 0; k < n && w->writes[w->cur].len < sizeof(w->writes[0].data); k++)
		w->writes[w->cur].data[w->writes[w->cur].len++] = f[bth + off + k];
}

/* an RDMA_NOMSG reply: its message is what the server wrote into the reply chunk's segments
 * (their lengths rewritten to the bytes written, RFC 8166 §3.4.6) */
static uint32_t reply_chunk(struct walk *w, const struct rpcrdma_hdr *h, uint8_t *out, uint32_t cap)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < h->reply_nsegs; k++) {
		struct rpcrdma_seg s;
		uint32_t i;

		rpcrdma_reply_seg(h, k, &s);
		/* a segment may be filled by several WRITEs, each where the last one ended */
		for (uint32_t got = 0, c; got < s.length; got += c) {
			for (i = w->nwrites; i-- > 0;)
				if (w->writes[i].rkey == s.handle &&
				    w->writes[i].va == s.offset + got)
					break;
			if (i == UINT32_MAX || !w->writes[i].len)
				return 0;
			c = w->writes[i].len < s.length - got ? w->writes[i].len : s.length - got;
			if (n + c > cap)
				return 0;
			memcpy(out + n, w->writes[i].data, c);
			n += c;
		}
	}
	return n;
}

/* the RC SEND ONLY (with Invalidate) payload of an RoCEv2 frame over IPv4 */
static const uint8_t *send_payload(const uint8_t *f, uint32_t len, uint32_t *plen)
{
	uint32_t ihl, udp, ulen, bth, hdr;

	if (len < 14 + 20 + 8 + 12 + 4 || f[12] != 0x08 || f[13] != 0x00 || f[23] != 17)
		return NULL;
	ihl = (f[14] & 15u) * 4;
	udp = 14 + ihl;
	if (udp + 8 + 12 + 4 > len || get16(f + udp + 2) != 4791)
		return NULL;
	ulen = get16(f + udp + 4);
	bth = udp + 8;
	/* IBA 9.2: SEND ONLY 0x04 carries BTH only, SEND ONLY WITH INVALIDATE 0x17 also IETH */
	hdr = f[bth] == 0x04 ? 12 : f[bth] == 0x17 ? 16 : 0;
	if (!hdr || udp + ulen > len || ulen < 8 + hdr + 4 + ((f[bth + 1] >> 4) & 3u))
		return NULL;
	*plen = ulen - 8 - hdr - 4 - ((f[bth + 1] >> 4) & 3u);
	return f + bth + hdr;
}

static int find_call(struct walk *w, uint32_t xid)
{
	for (uint32_t i = w->ncalls; i-- > 0;)
		if (w->calls[i].xid == xid)
			return (int)i;
	return -1;
}

static void check_tshark(unsigned frame, bool call);

static void msg_args(struct walk *w, unsigned frame, const char *what, uint32_t prog, uint32_t vers,
		     uint32_t proc, const uint8_t *b, uint32_t len, bool spliced)
{
	xdrproc_t fn;

	if (prog == NFS3_PROGRAM && vers == NFS3_VERSION && proc < NFS3_NPROCS) {
		fn = nfs3_xdr_procs[proc].xdr_args;
		w->call_ok[proc]++;
	} else if (prog == NFS_MNT_PROGRAM && (vers == 1 || vers == 3) && proc < NFS_MNT_NPROCS) {
		fn = (vers == 3 ? nfs_mnt_xdr_procs_v3 : nfs_mnt_xdr_procs_v1)[proc].xdr_args;
		w->mnt_calls++;
	} else {
		return;
	}
	w->spliced_calls += spliced;
	roundtrip(what, frame, fn, false, b, len);
	if (w->full && prog == NFS3_PROGRAM)
		check_tshark(frame, true);
	if (len <= 4096) {
		prefixes_fail(what, frame, fn, false, b, len);
		w->prefix_msgs++;
	}
}

static void msg_res(struct walk *w, unsigned frame, const char *what, uint32_t prog, uint32_t vers,
		    uint32_t proc, const uint8_t *b, uint32_t len, bool spliced)
{
	bool dir = false;
	xdrproc_t fn;

	if (prog == NFS3_PROGRAM && vers == NFS3_VERSION && proc < NFS3_NPROCS) {
		fn = nfs3_xdr_procs[proc].xdr_res;
		dir = proc == NFS3_PROC_READDIR || proc == NFS3_PROC_READDIRPLUS;
		w->reply_ok[proc]++;
	} else if (prog == NFS_MNT_PROGRAM && (vers == 1 || vers == 3) && proc < NFS_MNT_NPROCS) {
		fn = (vers == 3 ? nfs_mnt_xdr_procs_v3 : nfs_mnt_xdr_procs_v1)[proc].xdr_res;
		w->mnt_replies++;
	} else {
		return;
	}
	w->spliced_replies += spliced;
	roundtrip(what, frame, fn, dir, b, len);
	if (w->full && prog == NFS3_PROGRAM)
		check_tshark(frame, false);
	if (len <= 4096) {
		prefixes_fail(what, frame, fn, dir, b, len);
		w->prefix_msgs++;
	}
}

static uint8_t spliced[1 << 18];

static void on_frame(void *ctx, unsigned frame, const uint8_t *f, uint32_t flen)
{
	struct walk *w = ctx;
	struct orpc_reply_hdr rh;
	static struct orpc_call c;
	struct rpcrdma_hdr h;
	const uint8_t *pl, *m;
	uint32_t plen, len, off;
	bool ws = false;
	int i;

	pl = send_payload(f, flen, &plen);
	if (!pl) {
		rdma_write(w, f, flen);
		return;
	}
	if (rpcrdma_hdr_decode(pl, plen, &h) != RPCRDMA_DEC_OK)
		return;
	m = pl + h.hdr_len;
	len = plen - h.hdr_len;
	if (h.proc == RPCRDMA_NOMSG) {
		w->nomsg++;
		i = find_call(w, be32toh(h.xid));
		if (i < 0 || !h.has_reply) /* a call in a position-zero read chunk */
			return;
		len = reply_chunk(w, &h, spliced, sizeof(spliced));
		if (!len)
			return;
		m = spliced;
		w->reply_chunk += w->calls[i].prog == NFS3_PROGRAM && w->calls[i].vers == 3;
	} else if (h.proc != RPCRDMA_MSG) {
		return;
	}
	if (len >= 8 && m[4] == 0 && m[5] == 0 && m[6] == 0 && m[7] == 0) {
		assert_int_equal(orpc_call_decode(m, len, &c), ORPC_CALL_OK);
		assert_true(w->ncalls < MAX_XIDS);
		w->calls[w->ncalls].xid = c.xid;
		w->calls[w->ncalls].prog = c.prog;
		w->calls[w->ncalls].vers = c.vers;
		w->calls[w->ncalls++].proc = c.proc;
		if (h.nr_rsegs) {
			/* one read chunk (WRITE's data): its bytes belong at its position */
			struct rpcrdma_rseg s;
			uint32_t pos, total = 0;

			rpcrdma_read_seg(&h, 0, &s);
			pos = s.position;
			for (uint32_t k = 0; k < h.nr_rsegs; k++) {
				rpcrdma_read_seg(&h, k, &s);
				assert_int_equal(s.position, pos);
				total += s.seg.length;
			}
			assert_true(pos <= len && len + RNDUP4(total) <= sizeof(spliced));
			memcpy(spliced, m, pos);
			memset(spliced + pos, 0, RNDUP4(total));
			memcpy(spliced + pos + RNDUP4(total), m + pos, len - pos);
			m = spliced;
			len += RNDUP4(total);
		}
		msg_args(w, frame, "call", c.prog, c.vers, c.proc, m + c.args_off, len - c.args_off,
			 m == spliced);
		return;
	}
	assert_int_equal(orpc_reply_decode(m, len, &rh, &off), 0);
	i = find_call(w, rh.xid);
	if (i < 0 || rh.denied || rh.stat != SUCCESS)
		return;
	if (h.nr_wchunks) {
		/* the DDP data (READ's opaque content) went by RDMA WRITE: what was written,
		 * as the reply's segment lengths say, goes back at the end, padded */
		uint32_t total = 0;

		ws = true;
		for (uint32_t k = 0; k < h.wchunk_nsegs[0]; k++) {
			struct rpcrdma_seg s;

			rpcrdma_write_seg(&h, 0, k, &s);
			total += s.length;
		}
		if (total) {
			assert_true(len + RNDUP4(total) <= sizeof(spliced));
			memmove(spliced, m, len);
			memset(spliced + len, 0, RNDUP4(total));
			m = spliced;
			len += RNDUP4(total);
		} else {
			ws = false;
		}
	}
	msg_res(w, frame, "reply", w->calls[i].prog, w->calls[i].vers, w->calls[i].proc, m + off,
		len - off, ws);
}

/*
 * Fields of nfs_rdma_full.pcap as tshark printed them (run once:
 *   tshark -r tests/data/nfs_rdma_full.pcap -Y 'frame.number in {10,18,...}' -T fields
 *   -E occurrence=a -e frame.number -e nfs.fsinfo.rtmax -e nfs.fsinfo.wtmax
 *   -e nfs.fsinfo.maxfilesize -e nfs.fattr3.fileid -e nfs.fattr3.size -e nfs.mtime.sec
 *   -e nfs.fh.length -e nfs.access_rights -e nfs.name -e nfs.offset3 -e nfs.count3
 *   -e nfs.write.stable -e nfs.createmode), checked on the struct just decoded.
 */
static unsigned tshark_checked;

static void check_tshark(unsigned frame, bool call)
{
	switch (frame) {
	case 10: /* FSINFO reply: rtmax 131072, wtmax 131072, maxfilesize 2^63-1 */
		assert_false(call);
		assert_int_equal(((struct nfs3_fsinfo_res *)&obj)->fi.rtmax, 131072);
		assert_int_equal(((struct nfs3_fsinfo_res *)&obj)->fi.wtmax, 131072);
		assert_true(((struct nfs3_fsinfo_res *)&obj)->fi.maxfilesize ==
			    9223372036854775807ull);
		break;
	case 18: { /* GETATTR reply: fileid 1, size 40, mtime.sec 1795344807 */
		struct nfs3_getattr_res *r = (void *)&obj;

		assert_int_equal(r->status, NFS_OK);
		assert_int_equal(r->attr.type, NFS_DIR);
		assert_int_equal(r->attr.fileid, 1);
		assert_int_equal(r->attr.size, 40);
		assert_int_equal(r->attr.mtime.sec, 1795344807u);
		break;
	}
	case 129: /* ACCESS reply: access 0x1f */
		assert_int_equal(((struct nfs3_access_res *)&obj)->access, 0x1f);
		break;
	case 131: { /* LOOKUP call: fh length 8, name "file-v3" */
		struct nfs3_diropargs *a = (void *)&obj;

		assert_true(call);
		assert_int_equal(a->dir.len, 8);
		assert_int_equal(a->namelen, 7);
		assert_memory_equal(a->name, "file-v3", 7);
		break;
	}
	case 133: /* LOOKUP reply: NFS3ERR_NOENT (2), dir_attributes fileid 1 */
		assert_int_equal(((struct nfs3_lookup_res *)&obj)->status, NFS_ERR_NOENT);
		assert_true(((struct nfs3_lookup_res *)&obj)->dir_attr.valid);
		assert_int_equal(((struct nfs3_lookup_res *)&obj)->dir_attr.attr.fileid, 1);
		break;
	case 141: /* CREATE call: name "file-v3", createmode UNCHECKED (0) */
		assert_int_equal(((struct nfs3_create_args *)&obj)->mode, NFS_CREATE_UNCHECKED);
		assert_int_equal(((struct nfs3_create_args *)&obj)->where.namelen, 7);
		break;
	case 143: { /* CREATE reply: fh length 20, fileid 2 size 0, dir wcc post fileid 1 size 60 */
		struct nfs3_create_res *r = (void *)&obj;

		assert_true(r->fh.valid && r->attr.valid && r->dir_wcc.post_valid);
		assert_int_equal(r->fh.fh.len, 20);
		assert_int_equal(r->attr.attr.fileid, 2);
		assert_int_equal(r->attr.attr.size, 0);
		assert_int_equal(r->dir_wcc.post.fileid, 1);
		assert_int_equal(r->dir_wcc.post.size, 60);
		break;
	}
	case 145: { /* WRITE call (tshark shows it reassembled in frame 214): fh length 20,
		     * offset 0, count 65536, stable FILE_SYNC (2) */
		struct nfs3_write_args *a = (void *)&obj;

		assert_int_equal(a->fh.len, 20);
		assert_int_equal(a->offset, 0);
		assert_int_equal(a->count, 65536);
		assert_int_equal(a->data_len, 65536);
		assert_int_equal(a->stable, NFS_FILE_SYNC);
		break;
	}
	case 299: { /* READ reply (data by write chunk): count 65536, file size 65536 */
		struct nfs3_read_res *r = (void *)&obj;

		assert_int_equal(r->count, 65536);
		assert_int_equal(r->data_len, 65536);
		assert_int_equal(r->attr.attr.size, 65536);
		break;
	}
	case 310: { /* READDIRPLUS reply, rebuilt from the reply chunk (tshark: -e
		     * nfs.readdirplus.entry.name -e ...fileid -e ...cookie -e nfs.readdir.eof):
		     * ".", "..", "file-v3"; fileids 1, 1, 2; cookies 1, 2, 3; eof */
		struct nfs3_readdir_res *r = &obj.rd;

		assert_int_equal(r->count, 3);
		assert_true(r->eof);
		assert_int_equal(r->entries[2].namelen, 7);
		assert_memory_equal(r->entries[2].name, "file-v3", 7);
		assert_int_equal(r->entries[1].namelen, 2);
		for (uint32_t k = 0; k < 3; k++)
			assert_int_equal(r->entries[k].cookie, k + 1);
		assert_int_equal(r->entries[0].fileid, 1);
		assert_int_equal(r->entries[2].fileid, 2);
		break;
	}
	default:
		return;
	}
	tshark_checked++;
}

static struct walk *walk_file(const char *path, bool full)
{
	struct walk *w = calloc(1, sizeof(*w));
	uint8_t *buf;
	long sz;

	assert_non_null(w);
	w->full = full;
	buf = pcap_slurp(path, &sz);
	assert_non_null(buf);
	pcap_walk(buf, sz, on_frame, w);
	free(buf);
	for (uint32_t p = 0; p < NFS3_NPROCS; p++)
		if (w->call_ok[p] || w->reply_ok[p])
			printf("# %s: %-11s %3u calls %3u replies\n", path, nfs3_proc_name(p),
			       w->call_ok[p], w->reply_ok[p]);
	printf("# %s: MOUNT %u calls %u replies; read chunk spliced %u calls, write chunk "
	       "spliced %u replies; RDMA_NOMSG %u, of which NFSv3 replies rebuilt from the reply "
	       "chunk's WRITEs %u; %u messages prefix-checked\n",
	       path, w->mnt_calls, w->mnt_replies, w->spliced_calls, w->spliced_replies, w->nomsg,
	       w->reply_chunk, w->prefix_msgs);
	return w;
}

static unsigned sum(const unsigned *v)
{
	unsigned n = 0;

	for (uint32_t p = 0; p < NFS3_NPROCS; p++)
		n += v[p];
	return n;
}

static void test_capture_full(void **state)
{
	struct walk *w;

	(void)state;
	tshark_checked = 0;
	w = walk_file(DATA_DIR "/nfs_rdma_full.pcap", true);
	/* NULL, GETATTR x3, LOOKUP x2, ACCESS x3, READ, WRITE, CREATE, READDIRPLUS, FSINFO x2,
	 * PATHCONF: 16 calls and their replies (READDIRPLUS's came in a reply chunk) */
	assert_int_equal(sum(w->call_ok), 16);
	assert_int_equal(sum(w->reply_ok), 16);
	assert_int_equal(w->call_ok[NFS3_PROC_WRITE], 1);
	assert_int_equal(w->reply_ok[NFS3_PROC_READ], 1);
	assert_int_equal(w->spliced_calls, 1);
	assert_int_equal(w->spliced_replies, 1);
	assert_int_equal(w->reply_chunk, 1);
	assert_int_equal(w->reply_ok[NFS3_PROC_READDIRPLUS], 1);
	assert_int_equal(tshark_checked, 10);
	free(w);
}

static void test_capture_msgs(void **state)
{
	struct walk *w;

	(void)state;
	w = walk_file(DATA_DIR "/nfs_rdma_rpc_msgs.pcap", false);
	assert_true(sum(w->call_ok) >= 290);
	/* this capture has the SENDs only: READDIRPLUS's reply, in a reply chunk, is not here */
	assert_int_equal(sum(w->call_ok), sum(w->reply_ok) + 1);
	assert_int_equal(w->reply_ok[NFS3_PROC_READDIRPLUS], 0);
	assert_true(w->call_ok[NFS3_PROC_COMMIT] >= 1 && w->reply_ok[NFS3_PROC_COMMIT] >= 1);
	free(w);
}

/* ---- hand-written vectors (RFC 1813) ---- */

static uint8_t vec[4096];

/* fh3 of n bytes, then a filename3 of namelen bytes ('a'...): LOOKUP3args */
static uint32_t build_lookup(uint32_t fhlen, uint32_t namelen)
{
	uint8_t *p = put32(vec, fhlen);

	memset(p, 0x11, RNDUP4(fhlen));
	p += RNDUP4(fhlen);
	p = put32(p, namelen);
	memset(p, 0, RNDUP4(namelen));
	memset(p, 'a', namelen);
	return (uint32_t)(p - vec) + RNDUP4(namelen);
}

static void test_fh_limits(void **state)
{
	xdrproc_t getattr = nfs3_xdr_procs[NFS3_PROC_GETATTR].xdr_args;
	uint32_t n;

	(void)state;
	n = build_lookup(64, 1);
	assert_true(decode(nfs3_xdr_procs[NFS3_PROC_LOOKUP].xdr_args, false, vec, n));
	assert_true(decode(getattr, false, vec, 4 + 64));
	n = build_lookup(65, 1);
	assert_false(decode(nfs3_xdr_procs[NFS3_PROC_LOOKUP].xdr_args, false, vec, n));
	assert_false(decode(getattr, false, vec, 4 + 68));
	/* a length word of 2^32-1 */
	put32(vec, 0xffffffffu);
	assert_false(decode(getattr, false, vec, 4 + 68));
	/* encode refuses what decode would */
	memset(&obj, 0, sizeof(obj));
	((struct nfs3_fh_args *)&obj)->fh.len = 65;
	assert_int_equal(encode(getattr, vec, sizeof(vec)), -1);
}

static void test_name_limits(void **state)
{
	xdrproc_t lookup = nfs3_xdr_procs[NFS3_PROC_LOOKUP].xdr_args;
	struct nfs3_diropargs *a = (void *)&obj;
	uint32_t n;

	(void)state;
	/* 256..1024 decode: the handler answers NFS3ERR_NAMETOOLONG */
	n = build_lookup(8, 300);
	assert_true(decode(lookup, false, vec, n));
	assert_int_equal(a->namelen, 300);
	assert_ptr_equal(a->name, (const char *)vec + 4 + 8 + 4);
	n = build_lookup(8, 1024);
	assert_true(decode(lookup, false, vec, n));
	n = build_lookup(8, 1025);
	assert_false(decode(lookup, false, vec, n));
	/* the length word claims more than the buffer holds */
	n = build_lookup(8, 16);
	assert_false(decode(lookup, false, vec, n - 4));
	/* an empty name decodes (not NULL) */
	n = build_lookup(8, 0);
	assert_true(decode(lookup, false, vec, n));
	assert_int_equal(a->namelen, 0);
	assert_non_null(a->name);
	/* SYMLINK's path has the same limit */
	{
		uint8_t *p = vec + build_lookup(8, 4);

		for (int i = 0; i < 6; i++) /* sattr3: nothing set */
			p = put32(p, 0);
		p = put32(p, 1025);
		memset(p, 'x', 1028);
		assert_false(decode(nfs3_xdr_procs[NFS3_PROC_SYMLINK].xdr_args, false, vec,
				    (uint32_t)(p - vec) + 1028));
		put32(p - 4, 1024);
		assert_true(decode(nfs3_xdr_procs[NFS3_PROC_SYMLINK].xdr_args, false, vec,
				   (uint32_t)(p - vec) + 1024));
	}
}

static void test_strict_words(void **state)
{
	xdrproc_t getattr_res = nfs3_xdr_procs[NFS3_PROC_GETATTR].xdr_res;
	xdrproc_t access_res = nfs3_xdr_procs[NFS3_PROC_ACCESS].xdr_res;
	uint8_t *p;

	(void)state;
	/* post_op_attr's attributes_follow must be 0 or 1 */
	p = put32(vec, NFS_OK);
	p = put32(p, 2);
	put32(p, 7);
	assert_false(decode(access_res, false, vec, 12));
	put32(vec + 4, 0);
	assert_true(decode(access_res, false, vec, 12));
	/* a failed GETATTR is the status alone */
	put32(vec, NFS_ERR_STALE);
	assert_true(decode(getattr_res, false, vec, 4));
	/* stable_how beyond FILE_SYNC, createmode beyond EXCLUSIVE, time_how beyond CLIENT */
	p = put32(vec, 8);
	memset(p, 0, 8);
	p += 8;
	p = put32(put32(put32(p, 0), 0), 0); /* offset, count */
	p = put32(p, 3);		     /* stable */
	p = put32(p, 0);		     /* data<> */
	assert_false(
		decode(nfs3_xdr_procs[NFS3_PROC_WRITE].xdr_args, false, vec, (uint32_t)(p - vec)));
	put32(p - 8, 2);
	assert_true(
		decode(nfs3_xdr_procs[NFS3_PROC_WRITE].xdr_args, false, vec, (uint32_t)(p - vec)));
	p = vec + build_lookup(8, 1);
	p = put32(p, 3);
	memset(p, 0, 8);
	assert_false(decode(nfs3_xdr_procs[NFS3_PROC_CREATE].xdr_args, false, vec,
			    (uint32_t)(p - vec) + 8));
	put32(p - 4, NFS_CREATE_EXCLUSIVE);
	assert_true(decode(nfs3_xdr_procs[NFS3_PROC_CREATE].xdr_args, false, vec,
			   (uint32_t)(p - vec) + 8));
	p = vec + build_lookup(8, 1);
	for (int i = 0; i < 4; i++)
		p = put32(p, 0);
	p = put32(put32(p, 3), 0);
	assert_false(
		decode(nfs3_xdr_procs[NFS3_PROC_MKDIR].xdr_args, false, vec, (uint32_t)(p - vec)));
	/* MKNOD of a regular file: the default (void) arm decodes; the handler says BADTYPE */
	p = vec + build_lookup(8, 1);
	p = put32(p, NFS_REG);
	assert_true(
		decode(nfs3_xdr_procs[NFS3_PROC_MKNOD].xdr_args, false, vec, (uint32_t)(p - vec)));
}

/* XDR_FREE, as orpc_svc_dispatch calls it after every decode, touches nothing */
static void test_free_is_noop(void **state)
{
	(void)state;
	for (uint32_t p = 1; p < NFS3_NPROCS; p++) {
		memset(&obj, 0xa5, sizeof(obj));
		xdr_free(nfs3_xdr_procs[p].xdr_args, (char *)&obj);
		xdr_free(nfs3_xdr_procs[p].xdr_res, (char *)&obj);
		assert_int_equal(obj.b[0], 0xa5);
	}
	for (uint32_t p = 1; p < NFS_MNT_NPROCS; p++) {
		xdr_free(nfs_mnt_xdr_procs_v3[p].xdr_res, (char *)&obj);
		xdr_free(nfs_mnt_xdr_procs_v1[p].xdr_res, (char *)&obj);
	}
}

static void test_tables(void **state)
{
	(void)state;
	for (uint32_t p = 0; p < NFS3_NPROCS; p++) {
		assert_string_equal(nfs3_xdr_procs[p].name, nfs3_proc_name(p));
		assert_true(nfs3_xdr_procs[p].args_size <= 1024 &&
			    nfs3_xdr_procs[p].res_size <= 1024);
		assert_true(nfs3_xdr_procs[p].ddp_res ==
			    (p == NFS3_PROC_READ || p == NFS3_PROC_READLINK));
	}
	{
		/* READLINK's path is DDP-eligible (RFC 8267 §4.1) because it ends the results:
		 * the transport lifts the last PAD4(len) + len bytes into the write chunk and
		 * leaves the length word inline */
		static const char path[] = "a/b/../some-target"; /* 18 bytes: 2 of pad */
		struct nfs3_readlink_res *rl = (struct nfs3_readlink_res *)&obj;
		uint8_t out[512];
		int n;

		memset(&obj, 0, sizeof(obj));
		rl->status = NFS_OK;
		rl->path = path;
		rl->pathlen = (uint32_t)strlen(path);
		n = encode((xdrproc_t)xdr_nfs3_readlink_res, out, sizeof(out));
		assert_int_equal(n, 4 + 4 + 4 + 20);
		assert_memory_equal(out + n - 20, path, 18);
		assert_int_equal(out[n - 2] | out[n - 1], 0);
		assert_int_equal(out[n - 21], 18); /* the length word just before */
	}
	assert_string_equal(nfs3_proc_name(NFS3_NPROCS), "unknown");
	for (uint32_t p = 0; p < NFS_MNT_NPROCS; p++) {
		assert_string_equal(nfs_mnt_xdr_procs_v3[p].name, nfs_mnt_proc_name(p));
		assert_string_equal(nfs_mnt_xdr_procs_v1[p].name, nfs_mnt_proc_name(p));
	}
}

/* ---- READDIR(PLUS): a handler filling to the client's count stops at the helpers' sizes ---- */

static const char *const names[] = {".",
				    "..",
				    "a",
				    "bb",
				    "ccc",
				    "dddd",
				    "eeeee",
				    "a-longer-name",
				    "x123456789012345678901234567890"};
#define NNAMES (sizeof(names) / sizeof(names[0]))

static struct nfs_dirent src[64];

static void make_entries(void)
{
	for (uint32_t i = 0; i < 64; i++) {
		struct nfs_dirent *e = &src[i];

		memset(e, 0, sizeof(*e));
		e->fileid = 1000 + i;
		e->name = names[i % NNAMES];
		e->namelen = (uint32_t)strlen(e->name);
		e->cookie = 0x100u * (i + 1);
		e->attr_valid = i % 3 != 0;
		e->attr.type = NFS_REG;
		e->attr.fileid = e->fileid;
		e->fh_valid = i % 4 != 1;
		e->fh.len = 8 + (i % 5) * 7; /* 8..36, some not multiples of 4 */
		memset(e->fh.data, (int)i, e->fh.len);
	}
}

/* fill as a handler does: entries while the resok still fits in count */
static uint32_t fill(struct nfs3_readdir_res *r, uint32_t count, bool plus)
{
	uint32_t size = nfs3_readdir_resok_overhead(r->dir_attr.valid);

	r->entries = src;
	for (r->count = 0; r->count < 64; r->count++) {
		const struct nfs_dirent *e = &src[r->count];
		uint32_t n = plus ? nfs3_readdirplus_entry_xdr_size(e->namelen, e->fh_valid,
								    e->fh.len, e->attr_valid)
				  : nfs3_readdir_entry_xdr_size(e->namelen);

		if (size + n > count)
			break;
		size += n;
	}
	r->eof = r->count == 64;
	return size;
}

static void readdir_sizes(bool plus)
{
	xdrproc_t fn = plus ? nfs3_xdr_procs[NFS3_PROC_READDIRPLUS].xdr_res
			    : nfs3_xdr_procs[NFS3_PROC_READDIR].xdr_res;
	static uint8_t out[65536];

	make_entries();
	/* RFC 1813 §3.3.16: entry3 = value_follows, fileid3, filename3, cookie3 */
	assert_int_equal(nfs3_readdir_entry_xdr_size(1), 4 + 8 + 4 + 4 + 8);
	assert_int_equal(nfs3_readdir_entry_xdr_size(4), 4 + 8 + 4 + 4 + 8);
	assert_int_equal(nfs3_readdir_entry_xdr_size(5), 4 + 8 + 4 + 8 + 8);
	assert_int_equal(nfs3_readdirplus_entry_xdr_size(1, false, 0, false), 28 + 4 + 4);
	assert_int_equal(nfs3_readdirplus_entry_xdr_size(1, true, 30, true), 28 + 88 + 4 + 4 + 32);
	for (uint32_t count = 0; count < 4000; count += 7) {
		for (int va = 0; va < 2; va++) {
			struct nfs3_readdir_res *r = &obj.rd;
			uint32_t size, sent;
			int n;

			memset(&obj, 0, sizeof(obj));
			r->dir_attr.valid = va;
			size = fill(r, count, plus);
			assert_int_equal(size, nfs3_readdir_resok_xdr_size(r, plus));
			n = encode(fn, out, sizeof(out));
			assert_int_equal(n, 4 + size); /* the status word is not part of resok */
			if (size <= count) {
				/* exactly the room it needs, and not a byte less */
				assert_int_equal(encode(fn, out, 4 + size), (int)(4 + size));
				assert_int_equal(encode(fn, out, 4 + size - 1), -1);
			}
			/* decodes back (client side) into the caller's array */
			sent = r->count;
			assert_true(decode(fn, true, out, (uint32_t)n));
			assert_int_equal(obj.rd.count, sent);
		}
	}
	/* the client's cap: one entry fewer than sent fails */
	memset(&obj, 0, sizeof(obj));
	obj.rd.entries = src;
	obj.rd.count = 5;
	{
		int n = encode(fn, out, sizeof(out));
		XDR x;

		memset(&obj, 0, sizeof(obj));
		obj.rd.entries = dirents;
		obj.rd.cap = 4;
		xdrmem_create(&x, (char *)out, (u_int)n, XDR_DECODE);
		assert_false(fn(&x, &obj, 0));
		xdr_destroy(&x);
		assert_true(decode(fn, true, out, (uint32_t)n));
		assert_int_equal(obj.rd.count, 5);
		assert_int_equal(dirents[4].namelen, src[4].namelen);
		assert_memory_equal(dirents[4].name, src[4].name, src[4].namelen);
		assert_ptr_equal(dirents[4].name >= (const char *)out, true);
		if (plus) {
			assert_int_equal(dirents[1].fh_valid, src[1].fh_valid);
			assert_int_equal(dirents[2].fh.len, src[2].fh.len);
		} else {
			assert_false(dirents[2].fh_valid);
		}
	}
}

static void test_readdir_sizes(void **state)
{
	(void)state;
	readdir_sizes(false);
}

static void test_readdirplus_sizes(void **state)
{
	(void)state;
	readdir_sizes(true);
}

/* ---- MOUNT (RFC 1813 Appendix I, RFC 1094 Appendix A), built by hand ---- */

static uint8_t *put_str(uint8_t *p, const char *s)
{
	uint32_t n = (uint32_t)strlen(s);

	p = put32(p, n);
	memset(p, 0, RNDUP4(n));
	memcpy(p, s, n);
	return p + RNDUP4(n);
}

static void test_mount_vectors(void **state)
{
	static struct nfs_mnt_mount mounts[4];
	static struct nfs_mnt_export exports[4];
	static struct nfs_mnt_str groups[4];
	uint8_t *p;
	uint32_t n;

	(void)state;
	/* MNT / UMNT args: dirpath "/export" */
	p = put_str(vec, "/export");
	n = (uint32_t)(p - vec);
	roundtrip("mnt", 0, nfs_mnt_xdr_procs_v3[NFS_MNT_PROC_MNT].xdr_args, false, vec, n);
	roundtrip("umnt", 0, nfs_mnt_xdr_procs_v1[NFS_MNT_PROC_UMNT].xdr_args, false, vec, n);
	prefixes_fail("mnt", 0, nfs_mnt_xdr_procs_v3[NFS_MNT_PROC_MNT].xdr_args, false, vec, n);
	/* mountres3: MNT3_OK, a 28-byte fhandle3, flavors {AUTH_SYS, AUTH_NONE} */
	p = put32(vec, 0);
	p = put32(p, 28);
	memset(p, 0x5a, 28);
	p = put32(put32(put32(p + 28, 2), 1), 0);
	n = (uint32_t)(p - vec);
	roundtrip("mountres3", 0, nfs_mnt_xdr_procs_v3[NFS_MNT_PROC_MNT].xdr_res, false, vec, n);
	prefixes_fail("mountres3", 0, nfs_mnt_xdr_procs_v3[NFS_MNT_PROC_MNT].xdr_res, false, vec,
		      n);
	assert_int_equal(((struct nfs_mnt_res3 *)&obj)->fh.len, 28);
	assert_int_equal(((struct nfs_mnt_res3 *)&obj)->nflavors, 2);
	/* an fhandle3 of 65 bytes, 17 flavors; an error is the status alone */
	put32(vec + 4, 65);
	assert_false(decode((xdrproc_t)xdr_nfs_mnt_res3, false, vec, 4 + 4 + 68 + 4));
	p = put32(vec, 0);
	p = put32(p, 4);
	p = put32(p + 4, 17);
	assert_false(decode((xdrproc_t)xdr_nfs_mnt_res3, false, vec, 12 + 4 + 17 * 4));
	put32(vec, NFS_MNT3_ERR_ACCES);
	roundtrip("mountres3 err", 0, (xdrproc_t)xdr_nfs_mnt_res3, false, vec, 4);
	/* fhstatus (v1): status 0 and a fixed 32-byte fhandle; a shorter handle is padded */
	p = put32(vec, 0);
	memset(p, 0x33, 32);
	roundtrip("fhstatus", 0, nfs_mnt_xdr_procs_v1[NFS_MNT_PROC_MNT].xdr_res, false, vec, 36);
	prefixes_fail("fhstatus", 0, (xdrproc_t)xdr_nfs_mnt_res1, false, vec, 36);
	memset(&obj, 0, sizeof(obj));
	((struct nfs_mnt_res1 *)&obj)->fh.len = 20;
	memset(((struct nfs_mnt_res1 *)&obj)->fh.data, 0x33, 20);
	assert_int_equal(encode((xdrproc_t)xdr_nfs_mnt_res1, vec, sizeof(vec)), 36);
	assert_int_equal(vec[4 + 19], 0x33);
	assert_int_equal(vec[4 + 20], 0);
	((struct nfs_mnt_res1 *)&obj)->fh.len = 33;
	assert_int_equal(encode((xdrproc_t)xdr_nfs_mnt_res1, vec, sizeof(vec)), -1);
	/* mountlist: two entries, then the end */
	p = put32(vec, 1);
	p = put_str(put_str(p, "client-a"), "/export");
	p = put32(p, 1);
	p = put_str(put_str(p, "10.99.0.3"), "/export/sub");
	p = put32(p, 0);
	n = (uint32_t)(p - vec);
	memset(&obj, 0, sizeof(obj));
	{
		struct nfs_mnt_dump_res d = {.mounts = mounts, .cap = 4};
		uint8_t out[512];
		XDR x;

		xdrmem_create(&x, (char *)vec, n, XDR_DECODE);
		assert_true(xdr_nfs_mnt_dump_res(&x, &d) && xdr_getpos(&x) == n);
		xdr_destroy(&x);
		assert_int_equal(d.count, 2);
		assert_int_equal(mounts[1].host.len, 9);
		assert_memory_equal(mounts[1].dir.s, "/export/sub", 11);
		xdrmem_create(&x, (char *)out, sizeof(out), XDR_ENCODE);
		assert_true(xdr_nfs_mnt_dump_res(&x, &d) && xdr_getpos(&x) == n);
		xdr_destroy(&x);
		assert_memory_equal(out, vec, n);
		d.cap = 1;
		xdrmem_create(&x, (char *)vec, n, XDR_DECODE);
		assert_false(xdr_nfs_mnt_dump_res(&x, &d));
		xdr_destroy(&x);
	}
	/* exports: "/export" to two groups, "/pub" to none */
	p = put32(vec, 1);
	p = put_str(p, "/export");
	p = put32(p, 1);
	p = put_str(p, "10.99.0.0/24");
	p = put32(p, 1);
	p = put_str(p, "*.example.org");
	p = put32(p, 0);
	p = put32(p, 1);
	p = put_str(p, "/pub");
	p = put32(p, 0);
	p = put32(p, 0);
	n = (uint32_t)(p - vec);
	{
		struct nfs_mnt_export_res e = {
			.exports = exports, .cap = 4, .groups = groups, .groups_cap = 4};
		uint8_t out[512];
		XDR x;

		xdrmem_create(&x, (char *)vec, n, XDR_DECODE);
		assert_true(xdr_nfs_mnt_export_res(&x, &e) && xdr_getpos(&x) == n);
		xdr_destroy(&x);
		assert_int_equal(e.count, 2);
		assert_int_equal(e.ngroups_total, 2);
		assert_int_equal(exports[0].ngroups, 2);
		assert_int_equal(exports[1].ngroups, 0);
		assert_memory_equal(exports[0].groups[1].s, "*.example.org", 13);
		xdrmem_create(&x, (char *)out, sizeof(out), XDR_ENCODE);
		assert_true(xdr_nfs_mnt_export_res(&x, &e) && xdr_getpos(&x) == n);
		xdr_destroy(&x);
		assert_memory_equal(out, vec, n);
		e.groups_cap = 1;
		xdrmem_create(&x, (char *)vec, n, XDR_DECODE);
		assert_false(xdr_nfs_mnt_export_res(&x, &e));
		xdr_destroy(&x);
	}
	/* limits: dirpath 1024 decodes, 1025 does not; a hostname of 256 does not */
	put32(vec, 1024);
	memset(vec + 4, '/', 1024);
	assert_true(decode((xdrproc_t)xdr_nfs_mnt_dirpath, false, vec, 4 + 1024));
	put32(vec, 1025);
	memset(vec + 4, '/', 1028);
	assert_false(decode((xdrproc_t)xdr_nfs_mnt_dirpath, false, vec, 4 + 1028));
	p = put32(vec, 1);
	p = put32(p, 256);
	memset(p, 'h', 256);
	p = put_str(p + 256, "/x");
	p = put32(p, 0);
	{
		struct nfs_mnt_dump_res d = {.mounts = mounts, .cap = 4};
		XDR x;

		xdrmem_create(&x, (char *)vec, (u_int)(p - vec), XDR_DECODE);
		assert_false(xdr_nfs_mnt_dump_res(&x, &d));
		xdr_destroy(&x);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_full),
		cmocka_unit_test(test_capture_msgs),
		cmocka_unit_test(test_fh_limits),
		cmocka_unit_test(test_name_limits),
		cmocka_unit_test(test_strict_words),
		cmocka_unit_test(test_free_is_noop),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_readdir_sizes),
		cmocka_unit_test(test_readdirplus_sizes),
		cmocka_unit_test(test_mount_vectors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
