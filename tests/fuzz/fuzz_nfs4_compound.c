/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_nfs4_compound.c - libFuzzer target for the NFSv4.1 COMPOUND decoder (nfs/nfs4/nfs4_xdr.c
 * by the operation table) and the dispatcher above it. The input, copied into a heap buffer of
 * exactly its size so ASan catches a read past it, is COMPOUND4args:
 * - decoded header and operations (as the dispatcher does, up to NFS4_MAX_OPS, stopping at an
 *   opcode the table does not decode); what decoded re-encodes to as many bytes as it took,
 *   and that encoding decodes and re-encodes to the same bytes;
 * - then run through nfs4_compound_io() (with a DDP sink, as RPC-over-RDMA gives one) against
 *   a server exporting FUZZ_EXPORT (a file f, a directory d, a symlink l; reached from the
 *   pseudo root by LOOKUP "tmp", "droce_fuzz_nfs4", "e"), whose client, session and open
 *   table lives across inputs (sessions made by one input serve the next); its reply must
 *   decode as COMPOUND4res with exactly its length (a placed READ's data appended first).
 * State from the start: the harness makes a client and a session and OPENs f (share BOTH) at
 * initialization. In an input, a SEQUENCE whose session id is sixteen 0x01 bytes becomes that
 * session's, with the slot's next sequence id (so the operations after it run), and any run of
 * twelve 0x02 bytes becomes the harness open's stateid `other`: OPEN_DOWNGRADE, CLOSE, READ,
 * WRITE, SETATTR, LOCK, LOCKU, TEST_STATEID and FREE_STATEID are reached with live state. The
 * export's files change as inputs run (the harness puts f, d and l back when they are gone).
 * The export's path is fixed (the seeds LOOKUP it by name) and emptied at start: without root,
 * two runs of this target at once would share it (the suites run one at a time).
 *
 * The export's files are real: ALLOCATE reserves blocks, WRITE and COPY place data. A CI run
 * once ended in ENOSPC right after this target (a fuzzed ALLOCATE on ext4). As root the export
 * lives in a tmpfs of FUZZ_TMPFS_SIZE in a mount namespace of the process's own (gone when it
 * exits), which bounds the run's disk use; otherwise RLIMIT_FSIZE caps each file at
 * FUZZ_FILE_CAP (SIGXFSZ ignored: the call fails with EFBIG and the server answers NFS4ERR_FBIG
 * or IO), which bounds each file, not how many the inputs create.
 *
 * The backchannel: every input comes on a connection registered in an orpc_bc_table whose fake
 * transport answers each backward call at once, inside the call (the harness session asks
 * CONN_BACK_CHAN with AUTH_NONE, so it is probed and delegations are granted: a seed OPENs g
 * for reading and wants one). A run of twelve 0x03 bytes becomes the `other` of a delegation
 * stateid in the table (DELEGRETURN, TEST_STATEID, FREE_STATEID, CLAIM_DELEG_CUR_FH reach a
 * live one). After an input whose last byte is odd, the harness breaks the delegations of g as
 * an NFSv3 WRITE would (nfs4_deleg_break), and the fake transport answers the recall by the
 * last byte's bits 1-2: success, DELAY, bytes that do not decode, or -ENOTCONN.
 *
 * Waiting for file work: with bit 3 of the last byte set the input may wait (nfs4_io.defer); a
 * READ, WRITE, COMMIT, CREATE, REMOVE, RENAME, LINK or SETATTR then leaves the compound waiting
 * (struct nfs4_cont), which keeps the input's bytes. The waiting compounds finish (their work
 * run, nfs4_cont_resume, the reply checked as above) at the start of the next input, unless its
 * last byte has bit 4 set and fewer than WAITING wait: so a retry on a waiting slot (DELAY),
 * other compounds meanwhile and a session destroyed meanwhile are reached.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "nfs4_cb_xdr.h"
#include "nfs4_int.h"
#include "orpc_bc.h"

#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUZZ_TOP "/tmp/droce_fuzz_nfs4"
#define FUZZ_EXPORT FUZZ_TOP "/e"
#define FUZZ_TMPFS_SIZE "size=256m,mode=0755"
#define FUZZ_FILE_CAP (64u << 20)

static struct nfs_fs *fs;
static struct nfs4_server *srv;
static uint8_t sessionid[NFS4_SESSIONID_SIZE];
static uint8_t open_other[12];
static bool have_session;
static uint8_t sink[1u << 16];
static union nfs4_op_args args[2][NFS4_MAX_OPS];
static uint32_t ops[2][NFS4_MAX_OPS];
static uint8_t out[2][70000];
static struct orpc_bc_table bct;
static uint64_t bc_id;
static uint8_t deleg_other[12];
static uint32_t reply_mode; /* the fake transport's next answer to a recall */

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* The fake transport: answers at once. A CB_NULL with success; a CB_COMPOUND by reply_mode,
 * its CB_SEQUENCE echoed from the call (AUTH_NONE: the compound's head is at word 10). */
static int fake_call(void *conn, const uint8_t *msg, uint32_t len, orpc_bc_done_t done, void *ctx)
{
	uint8_t r[128];
	uint32_t n = 24;

	(void)conn;
	CHECK(len >= 40);
	memset(r, 0, sizeof(r));
	memcpy(r, msg, 4);
	wr32(r + 4, 1);
	if (rd32(msg + 20) == NFS4_CB_PROC_COMPOUND) {
		if (reply_mode == 3) {
			done(ctx, -ENOTCONN, NULL, 0);
			return 0;
		}
		CHECK(len >= 4 * 15 + 24);
		wr32(r + 24, reply_mode == 1 ? NFS4ERR_DELAY : 0); /* status, tag "" */
		wr32(r + 32, 2);
		wr32(r + 36, NFS4_CB_OP_SEQUENCE);
		memcpy(r + 44, msg + 4 * 15, 16 + 8); /* session, sequence, slot */
		wr32(r + 76, NFS4_CB_OP_RECALL);
		wr32(r + 80, reply_mode == 1 ? NFS4ERR_DELAY : 0);
		n = 84;
		if (reply_mode == 2)
			n = 50; /* cut short */
	}
	done(ctx, 0, r, n);
	return 0;
}

static const struct orpc_bc_ops fake_ops = {.call = fake_call, .name = "fuzz"};

static void find_deleg(void *arg, struct nfs4_stid *st)
{
	(void)arg;
	if (st->type == NFS4_STID_DELEG)
		memcpy(deleg_other, st->id.other, 12);
}

/* decode header and operations; @return the operations decoded, or -1 */
static int decode(const uint8_t *b, uint32_t len, struct nfs4_compound_hdr *h,
		  union nfs4_op_args *a, uint32_t *op, uint32_t *pos)
{
	uint32_t n = 0;
	bool known = true;
	XDR x;

	xdrmem_create(&x, (char *)(uintptr_t)b, len, XDR_DECODE);
	if (!nfs4_xdr_compound_hdr(&x, h)) {
		xdr_destroy(&x);
		return -1;
	}
	*pos = xdr_getpos(&x);
	while (n < h->numops && n < NFS4_MAX_OPS) {
		memset(&a[n], 0, sizeof(a[n]));
		if (!nfs4_xdr_argop(&x, &op[n], &a[n], &known) || !known)
			break;
		n++;
		*pos = xdr_getpos(&x);
	}
	xdr_destroy(&x);
	return (int)n;
}

static int encode(const struct nfs4_compound_hdr *h, union nfs4_op_args *a, const uint32_t *op,
		  uint32_t n, uint8_t *buf, uint32_t cap)
{
	struct nfs4_compound_hdr hh = *h;
	int len = -1;
	XDR x;

	hh.numops = n;
	xdrmem_create(&x, (char *)buf, cap, XDR_ENCODE);
	if (nfs4_xdr_compound_hdr(&x, &hh)) {
		uint32_t i;

		for (i = 0; i < n; i++) {
			uint32_t o = op[i];

			if (!xdr_uint32_t(&x, &o) || !nfs4_op_desc(o)->xargs(&x, &a[i]))
				break;
		}
		if (i == n)
			len = (int)xdr_getpos(&x);
	}
	xdr_destroy(&x);
	return len;
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag;
	return f->level ? remove(p) : 0;
}

/* f, d and l in the export, as the seeds expect them */
static void tree(void)
{
	int fd;

	mkdir(FUZZ_EXPORT, 0777);
	mkdir(FUZZ_EXPORT "/d", 0777);
	if (symlink("f", FUZZ_EXPORT "/l") != 0) {
		/* there already */
	}
	fd = open(FUZZ_EXPORT "/f", O_CREAT | O_WRONLY, 0666);
	if (fd >= 0) {
		if (write(fd, "droce fuzz\n", 11) != 11) {
			/* a short file is as good */
		}
		close(fd);
	}
}

static uint32_t run(const uint8_t *b, uint32_t len, const uint8_t **rep, struct nfs4_io *io)
{
	struct nfs_ctx ctx = {.fs = fs, .cred = {.flavor = 1}};
	struct nfs4_io plain = {.sink = NULL};

	ctx.peer.ss_family = AF_INET;
	if (!io)
		io = &plain;
	io->bc_id = bc_id;
	return nfs4_compound_io(srv, &ctx, b, len, io, rep);
}

/* an NFSv3 caller changes g: its delegations are recalled (or revoked) */
static void break_g(void)
{
	struct nfs_ctx ctx = {.fs = fs, .cred = {.flavor = 1}};
	struct nfs_fh root, fh;
	struct nfs_attr at, dat;
	bool dv;

	ctx.peer.ss_family = AF_INET;
	if (nfs_fs_mount(&ctx, FUZZ_EXPORT, &root) != NFS_OK ||
	    nfs_fs_lookup(&ctx, &root, "g", 1, &fh, &at, &dv, &dat) != NFS_OK)
		return;
	nfs4_deleg_break(srv, &ctx, &fh);
}

/* one op by the table into x */
static void put_op(XDR *x, uint32_t op, union nfs4_op_args *a)
{
	CHECK(xdr_uint32_t(x, &op));
	CHECK(nfs4_op_desc(op)->xargs(x, a));
}

/* a compound of the harness: run it, decode its results into r (up to 8) */
static uint32_t harness_run(XDR *x, uint8_t *buf, struct nfs4_op_res *r)
{
	struct nfs4_compound_res_hdr rh;
	const uint8_t *rep;
	uint32_t n = run(buf, xdr_getpos(x), &rep, NULL);
	XDR d;

	xdr_destroy(x);
	xdrmem_create(&d, (char *)(uintptr_t)rep, n, XDR_DECODE);
	CHECK(nfs4_xdr_compound_res_hdr(&d, &rh) && rh.numres <= 8);
	for (uint32_t i = 0; i < rh.numres; i++)
		CHECK(nfs4_xdr_resop(&d, &r[i]));
	xdr_destroy(&d);
	return rh.status;
}

static uint32_t slot3_seq; /* the harness's own slot: 3 */

/* a compound header and SEQUENCE on slot 3 into x */
static void harness_seq(XDR *x, uint8_t *buf, uint32_t cap, uint32_t numops)
{
	struct nfs4_compound_hdr h = {{NULL, 0}, 1, numops};
	union nfs4_op_args a = {0};

	xdrmem_create(x, (char *)buf, cap, XDR_ENCODE);
	CHECK(nfs4_xdr_compound_hdr(x, &h));
	memcpy(a.seq.sessionid, sessionid, NFS4_SESSIONID_SIZE);
	a.seq.sequenceid = ++slot3_seq;
	a.seq.slotid = 3;
	a.seq.highest_slotid = 3;
	put_op(x, NFS4_OP_SEQUENCE, &a);
}

/* EXCHANGE_ID and CREATE_SESSION: the harness's client and session */
static void harness_session(void)
{
	struct nfs4_compound_hdr h = {{NULL, 0}, 1, 1};
	union nfs4_op_args a = {0};
	struct nfs4_op_res r[8];
	uint8_t buf[1024];
	XDR x;

	have_session = false;
	memcpy(a.exid.verifier, "fuzzverf", 8);
	a.exid.ownerid = (struct nfs4_ref){(const uint8_t *)"fuzz harness", 12};
	xdrmem_create(&x, (char *)buf, sizeof(buf), XDR_ENCODE);
	CHECK(nfs4_xdr_compound_hdr(&x, &h));
	put_op(&x, NFS4_OP_EXCHANGE_ID, &a);
	if (harness_run(&x, buf, r) != NFS4_OK)
		return; /* the inputs filled the client table: later */
	memset(&a, 0, sizeof(a));
	a.csess.clientid = r[0].u.exid.clientid;
	a.csess.sequence = r[0].u.exid.sequenceid;
	a.csess.fore =
		(struct nfs4_chan_attrs){0, 1049620, 1049480, 8192, NFS4_MAX_OPS, 4, false, 0};
	a.csess.back = a.csess.fore;
	/* a backchannel on the inputs' connection, AUTH_NONE: callback_sec_parms4<1> {0} */
	{
		static const uint8_t sec_none[4] = {0, 0, 0, 0};

		a.csess.flags = CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
		a.csess.cb_program = 0x40000000;
		a.csess.sec_parms = (struct nfs4_raw){1, {sec_none, 4}};
	}
	xdrmem_create(&x, (char *)buf, sizeof(buf), XDR_ENCODE);
	CHECK(nfs4_xdr_compound_hdr(&x, &h));
	put_op(&x, NFS4_OP_CREATE_SESSION, &a);
	if (harness_run(&x, buf, r) != NFS4_OK)
		return;
	memcpy(sessionid, r[0].u.csess.sessionid, NFS4_SESSIONID_SIZE);
	have_session = true;
	slot3_seq = 0;
	/* new state only after RECLAIM_COMPLETE (RFC 8881 §18.51.3) */
	harness_seq(&x, buf, sizeof(buf), 2);
	memset(&a, 0, sizeof(a));
	put_op(&x, NFS4_OP_RECLAIM_COMPLETE, &a);
	harness_run(&x, buf, r);
}

/* SEQUENCE, PUTROOTFH, LOOKUP tmp, droce_fuzz_nfs4, e, OPEN f (share BOTH) */
static void harness_open(void)
{
	static const char *const path[] = {"tmp", "droce_fuzz_nfs4", "e"};
	union nfs4_op_args a = {0};
	struct nfs4_op_res r[8];
	uint8_t buf[1024];
	XDR x;

	harness_seq(&x, buf, sizeof(buf), 6);
	put_op(&x, NFS4_OP_PUTROOTFH, &a);
	for (int i = 0; i < 3; i++) {
		a.name = (struct nfs4_ref){(const uint8_t *)path[i], (uint32_t)strlen(path[i])};
		put_op(&x, NFS4_OP_LOOKUP, &a);
	}
	memset(&a, 0, sizeof(a));
	a.open.share_access = OPEN4_SHARE_ACCESS_BOTH;
	a.open.owner = (struct nfs4_ref){(const uint8_t *)"harness", 7};
	a.open.claim = CLAIM_NULL;
	a.open.name = (struct nfs4_ref){(const uint8_t *)"f", 1};
	put_op(&x, NFS4_OP_OPEN, &a);
	/* without root the backend has no handles: the harness then has no open to offer */
	if (harness_run(&x, buf, r) == NFS4_OK)
		memcpy(open_other, r[5].u.open.sid.other, 12);
}

/* After an input: the harness's session and open are back if the input ended them. */
static void harness_state(void)
{
	struct nfs4_session *ss =
		have_session ? nfs4_session_find(nfs4_server_state(srv), sessionid) : NULL;
	union nfs4_op_args a = {0};
	struct nfs4_op_res r[8];
	uint8_t raw[16] = {0}, buf[512];
	XDR x;

	if (!ss) {
		harness_session();
		if (have_session)
			harness_open();
		return;
	}
	/* an input may have used slot 3 */
	slot3_seq = ss->slots[3].seqid;
	memcpy(raw + 4, open_other, 12);
	harness_seq(&x, buf, sizeof(buf), 2);
	a.test_stateid = (struct nfs4_test_stateid_args){1, {raw, 16}};
	put_op(&x, NFS4_OP_TEST_STATEID, &a);
	if (harness_run(&x, buf, r) != NFS4_OK || r[1].u.test_stateid.status[0] != NFS4_OK)
		harness_open();
}

/* see the top of the file: a tmpfs of our own as root, a per-file cap otherwise */
static void bound_disk(void)
{
	struct rlimit rl = {FUZZ_FILE_CAP, FUZZ_FILE_CAP};

	signal(SIGXFSZ, SIG_IGN);
	mkdir(FUZZ_TOP, 0755);
	if (geteuid() == 0 && unshare(CLONE_NEWNS) == 0 &&
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
	    mount("droce_fuzz", FUZZ_TOP, "tmpfs", MS_NOSUID | MS_NODEV, FUZZ_TMPFS_SIZE) == 0)
		return;
	fprintf(stderr,
		"fuzz_nfs4_compound: no private tmpfs for the export (%s); files are capped "
		"at %u MiB each instead\n",
		geteuid() ? "not root" : strerror(errno), FUZZ_FILE_CAP >> 20);
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		fprintf(stderr, "fuzz_nfs4_compound: setrlimit: %s\n", strerror(errno));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/tmp/fuzz_nfs4.XXXXXX", err[256];
	struct nfs4_server_conf c;

	(void)argc, (void)argv;
	bound_disk();
	/* what an earlier run left in the export goes: every run starts from f, d and l */
	nftw(FUZZ_EXPORT, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	tree();
	if (!mkdtemp(dir) || nfs_fs_open(&fs, FUZZ_EXPORT " *(rw,no_root_squash,insecure)\n", dir,
					 err, sizeof(err)) != 0) {
		fs = NULL;
		return 0;
	}
	nfs4_server_conf_default(&c);
	c.state.max_clients = 16;
	c.state.slots = 4;
	c.max_io = 1u << 16;
	srv = nfs4_server_create(fs, &c);
	orpc_bc_table_init(&bct);
	bc_id = orpc_bc_register(&bct, &fake_ops, &bct);
	if (srv) {
		nfs4_server_set_bc(srv, &bct);
		harness_state();
	}
	return 0;
}

/* the harness's session and open where the input names them (see the top of the file) */
static void patch(uint8_t *b, uint32_t len)
{
	struct nfs4_compound_hdr h;
	uint32_t pos, op = 0;
	XDR x;

	for (uint32_t i = 0; i + 12 <= len; i++) {
		uint32_t k = 0;

		while (k < 12 && b[i + k] == 0x02)
			k++;
		if (k == 12) {
			memcpy(b + i, open_other, 12);
			i += 11;
			continue;
		}
		for (k = 0; k < 12 && b[i + k] == 0x03;)
			k++;
		if (k == 12) {
			memcpy(b + i, deleg_other, 12);
			i += 11;
		}
	}
	if (!have_session)
		return;
	xdrmem_create(&x, (char *)b, len, XDR_DECODE);
	if (nfs4_xdr_compound_hdr(&x, &h) && xdr_uint32_t(&x, &op) && op == NFS4_OP_SEQUENCE &&
	    (pos = xdr_getpos(&x)) + 16 + 8 <= len) {
		static const uint8_t marker[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
		uint32_t slot = (uint32_t)b[pos + 20] << 24 | (uint32_t)b[pos + 21] << 16 |
				(uint32_t)b[pos + 22] << 8 | b[pos + 23];
		struct nfs4_session *ss = NULL;

		if (memcmp(b + pos, marker, 16) == 0) {
			memcpy(b + pos, sessionid, 16);
			ss = nfs4_session_find(nfs4_server_state(srv), sessionid);
			if (ss && slot < ss->fore.maxrequests) {
				uint32_t next = ss->slots[slot].seqid + 1;

				b[pos + 16] = (uint8_t)(next >> 24);
				b[pos + 17] = (uint8_t)(next >> 16);
				b[pos + 18] = (uint8_t)(next >> 8);
				b[pos + 19] = (uint8_t)next;
			}
		}
	}
	xdr_destroy(&x);
}

/* A reply: COMPOUND4res of exactly its length (a placed READ's data appended first). */
static void check_reply(const uint8_t *rep, uint32_t rl, const struct nfs4_io *io)
{
	struct nfs4_compound_res_hdr rh;
	struct nfs4_op_res r;
	uint8_t *whole = NULL;
	XDR x;

	CHECK(rl > 0);
	CHECK(io->ddp_len <= rl || io->placed);
	if (io->placed) {
		/* the data went to the sink: put it back where the reply would carry it */
		uint32_t pad = (4 - io->ddp_len % 4) % 4;

		CHECK(io->ddp_len <= sizeof(sink));
		whole = calloc(1, rl + io->ddp_len + pad);
		memcpy(whole, rep, rl);
		memcpy(whole + rl, sink, io->ddp_len);
		rep = whole;
		rl += io->ddp_len + pad;
	}
	xdrmem_create(&x, (char *)(uintptr_t)rep, rl, XDR_DECODE);
	CHECK(nfs4_xdr_compound_res_hdr(&x, &rh));
	for (uint32_t i = 0; i < rh.numres; i++)
		CHECK(nfs4_xdr_resop(&x, &r));
	CHECK(xdr_getpos(&x) == rl);
	xdr_destroy(&x);
	free(whole);
}

#define WAITING 4
static struct {
	struct nfs4_cont *t;
	uint8_t *buf; /* the input the compound's arguments point into */
} waiting[WAITING];
static unsigned nwaiting;

static void finish_waiting(void)
{
	for (unsigned i = 0; i < nwaiting; i++) {
		const uint8_t *rep;
		uint32_t rl;

		nfs4_cont_work(waiting[i].t);
		rl = nfs4_cont_resume(waiting[i].t, &rep);
		check_reply(rep, rl, nfs4_cont_io(waiting[i].t));
		nfs4_cont_free(waiting[i].t);
		free(waiting[i].buf);
	}
	nwaiting = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nfs4_compound_hdr h1, h2;
	uint32_t pos1 = 0, pos2 = 0;
	uint8_t *buf;
	int n1, n2, l1, l2;

	if (size > 65536)
		return 0;
	buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	n1 = decode(buf, (uint32_t)size, &h1, args[0], ops[0], &pos1);
	if (n1 >= 0) {
		l1 = encode(&h1, args[0], ops[0], (uint32_t)n1, out[0], sizeof(out[0]));
		CHECK(l1 >= 0);
		CHECK((uint32_t)l1 == pos1);
		n2 = decode(out[0], (uint32_t)l1, &h2, args[1], ops[1], &pos2);
		CHECK(n2 == n1);
		l2 = encode(&h2, args[1], ops[1], (uint32_t)n2, out[1], sizeof(out[1]));
		CHECK(l2 == l1);
		CHECK(memcmp(out[0], out[1], (size_t)l1) == 0);
	}
	CHECK(srv); /* a fresh state directory and a /tmp export need nothing special */
	if (!(size && (data[size - 1] & 16) && nwaiting < WAITING))
		finish_waiting();
	memset(deleg_other, 0, sizeof(deleg_other));
	nfs4_stid_each(srv, find_deleg, NULL);
	patch(buf, (uint32_t)size);
	{
		struct nfs4_io io = {.sink = sink, .sink_len = sizeof(sink)};
		const uint8_t *rep;
		uint32_t rl;

		io.defer = size && (data[size - 1] & 8) && nwaiting < WAITING;
		io.defer_pool = io.defer;
		rl = run(buf, (uint32_t)size, &rep, &io);
		if (io.cont) {
			CHECK(io.defer && rl == 0);
			waiting[nwaiting].t = io.cont;
			waiting[nwaiting++].buf = buf;
			buf = NULL; /* the waiting compound's now */
		} else {
			check_reply(rep, rl, &io);
		}
	}
	if (size && (data[size - 1] & 1)) {
		reply_mode = (data[size - 1] >> 1) & 3;
		break_g();
	}
	tree();
	harness_state();
	free(buf);
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
