/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nsm_hold.c - NSM's monitor list is written off the lcore, and a lock is granted only once
 * the list that names its host is on disk (nfs/nlm/nsm_svc.c, struct nsm_writer). NLM v4 LOCK
 * calls, encoded here from XNFS §14 and RFC 5531, go through the NLM program over a TCP peer
 * at 127.0.0.1, on a file of a real export:
 *   - a LOCK is deferred, not answered at dispatch: a helper thread looks its file up (the
 *     open_by_handle_at the lcore must not do); one from a new host is then held; polling the server
 *     answers it NLM4_GRANTED, and when the answer is encoded statedir/nsm.hosts already names
 *     the host; the write ran on the helper thread (none on the lcore);
 *   - a second LOCK from that host, and the UNLOCKs, wait only for their file's key;
 *   - over UDP from a server with room to keep the datagram (orpc_peer.defer_ok: orpc_tcp's
 *     ORPC_UDP_CALLS slots) the LOCK is deferred and held as over TCP; from one without room
 *     it is answered at once (the key looked up on the lcore, counted), counted unheld, and
 *     the list is still written;
 *   - three SM_MONs in a row: all three held, two writes (the later changes coalesce behind
 *     the write in flight), each answered STAT_SUCC with its host on disk;
 *   - nlm_server_flush answers a held LOCK with its host written (what droce-nfsd does before
 *     its transports go).
 * Needs root (open_by_handle_at): 77 otherwise.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "nfs4_fixture.h"
#include "nlm_svc.h"
#include "orpc_svc.h"

static struct nlm_server nlm;
static struct orpc_svc svc;
static struct nfs_fh file_fh;

struct slot {
	uint8_t msg[512];
	uint8_t out[256];
	uint32_t out_len;
	bool done;
	char entry[64]; /**< the host's line in nsm.hosts */
	bool on_disk;	/**< nsm.hosts had it when the answer was encoded */
};
static struct slot slots[16];
static bool udp_room; /**< the UDP peer's defer_ok: its server can keep the call */

static uint32_t word(const uint8_t *p, uint32_t i)
{
	return (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
	       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
}

static void put(uint8_t *p, uint32_t *w, uint32_t v)
{
	p[4 * *w] = (uint8_t)(v >> 24);
	p[4 * *w + 1] = (uint8_t)(v >> 16);
	p[4 * *w + 2] = (uint8_t)(v >> 8);
	p[4 * *w + 3] = (uint8_t)v;
	(*w)++;
}

static void put_opaque(uint8_t *p, uint32_t *w, const void *b, uint32_t len)
{
	put(p, w, len);
	memset(p + 4 * *w, 0, (len + 3) & ~3u);
	memcpy(p + 4 * *w, b, len);
	*w += (len + 3) / 4;
}

/* does statedir/nsm.hosts have the line "entry\n"? A lock's host is "127.0.0.1<TAB>name" (its
 * address and caller_name); an SM_MON's "name<TAB>+name" */
static bool listed(const char *entry)
{
	char path[256], line[512], want[300];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/nsm.hosts", n4f_statedir);
	snprintf(want, sizeof(want), "%s\n", entry);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strcmp(line, want) == 0;
	fclose(f);
	return found;
}

/* the transport's resume: the reply encoded now, and what the disk says at that moment */
static void resume(struct orpc_pending *p, void *arg)
{
	struct slot *k = arg;
	enum orpc_outcome oc;

	k->on_disk = listed(k->entry);
	k->out_len = orpc_svc_finish(&svc, p, k->out, sizeof(k->out), &oc);
	assert_int_equal(oc, ORPC_OUT_SUCCESS);
	k->done = true;
}

/* Slot i emptied, and an RFC 5531 call header written into it: xid i + 1, prog/vers/proc,
 * AUTH_SYS {stamp, "", uid 0, gid 0, no gids}, no verifier. @return the words written */
static uint32_t call_start(uint32_t i, uint32_t prog, uint32_t vers, uint32_t proc)
{
	const uint32_t hdr[] = {i + 1, 0, 2, prog, vers, proc, 1, 20, 0, 0, 0, 0, 0, 0, 0};
	struct slot *k = &slots[i];
	uint32_t w = 0;

	memset(k, 0, sizeof(*k));
	for (uint32_t v = 0; v < sizeof(hdr) / sizeof(hdr[0]); v++)
		put(k->msg, &w, hdr[v]);
	return w;
}

/* Slot i's call of @p words words, from 127.0.0.1 over @p xprt, through the programs.
 * @return what dispatch answered at once (0: deferred, and taken with resume) */
static uint32_t dispatch(uint32_t i, uint32_t words, enum orpc_xprt xprt)
{
	struct slot *k = &slots[i];
	struct orpc_peer peer = {0};
	struct sockaddr_in *sin = (struct sockaddr_in *)&peer.addr;
	enum orpc_outcome oc;
	uint32_t n;

	peer.xprt = xprt;
	peer.defer_ok = xprt == ORPC_XPRT_UDP && udp_room;
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	n = orpc_svc_dispatch_peer(&svc, k->msg, 4 * words, NULL, &peer, k->out, sizeof(k->out),
				   &oc);
	if (n == 0) {
		assert_int_equal(oc, ORPC_OUT_DEFERRED);
		assert_non_null(orpc_svc_take_deferred(&svc, resume, k));
	} else {
		k->out_len = n;
		k->done = true;
	}
	return n;
}

/* NLM4 LOCK (proc 2) or UNLOCK (proc 4) of bytes [off, off + 10) of the file by host/svid,
 * xid i + 1, into slot i. @return what dispatch answered at once (0: held, taken) */
static uint32_t call(uint32_t i, uint32_t proc, const char *host, int32_t svid, uint64_t off,
		     enum orpc_xprt xprt)
{
	struct slot *k = &slots[i];
	uint32_t w = call_start(i, 100021, 4, proc), cookie = 0xc0000000u + i;
	char oh[32];

	snprintf(k->entry, sizeof(k->entry), "127.0.0.1\t%s", host);
	snprintf(oh, sizeof(oh), "%d@%s", svid, host);
	put_opaque(k->msg, &w, &cookie, 4);
	if (proc == NLM4_PROC_LOCK) {
		put(k->msg, &w, 0); /* block */
		put(k->msg, &w, 1); /* exclusive */
	}
	put_opaque(k->msg, &w, host, (uint32_t)strlen(host)); /* caller_name */
	put_opaque(k->msg, &w, file_fh.data, file_fh.len);
	put_opaque(k->msg, &w, oh, (uint32_t)strlen(oh));
	put(k->msg, &w, (uint32_t)svid);
	put(k->msg, &w, 0);
	put(k->msg, &w, (uint32_t)off);
	put(k->msg, &w, 0);
	put(k->msg, &w, 10);
	if (proc == NLM4_PROC_LOCK) {
		put(k->msg, &w, 0); /* reclaim */
		put(k->msg, &w, 3); /* state */
	}
	return dispatch(i, w, xprt);
}

/* slot i's answer: xid i + 1, accepted, SUCCESS, its cookie, NLM4_GRANTED */
static void granted(uint32_t i)
{
	const struct slot *k = &slots[i];

	assert_true(k->done);
	assert_int_equal(k->out_len, 36);
	assert_int_equal(word(k->out, 0), i + 1);
	assert_int_equal(word(k->out, 5), 0); /* SUCCESS */
	assert_int_equal(word(k->out, 6), 4); /* the cookie's length */
	assert_int_equal(word(k->out, 8), NLM4_GRANTED);
}

/* poll the server until slot i is answered (bounded: 10 s) */
static void poll_until_done(uint32_t i)
{
	for (int t = 0; t < 10000 && !slots[i].done; t++)
		if (!nlm_server_poll(&nlm))
			usleep(1000);
		else
			usleep(100);
	assert_true(slots[i].done);
}

/* Slot 0: host's first LOCK over xprt is deferred for its file's key (a helper's
 * open_by_handle_at), then held for the list, and answered NLM4_GRANTED with the host on disk */
static void first_lock_held(const char *host, enum orpc_xprt xprt)
{
	assert_int_equal(call(0, NLM4_PROC_LOCK, host, 1, 0, xprt), 0);
	assert_false(slots[0].done);
	assert_int_equal(nlm.st.key_deferred, 1);
	assert_int_equal(nlm.st.key_inline, 0);
	poll_until_done(0);
	granted(0);
	assert_true(slots[0].on_disk);
	assert_int_equal(nlm.st.nsm_held, 1);
}

static int fresh(void **state)
{
	struct nlm_conf c = {.grace_s = 0, .my_name = "127.0.0.1", .no_notify = true};
	char err[256];
	char path[256];

	(void)state;
	udp_room = false;
	snprintf(path, sizeof(path), "%s/nsm.hosts", n4f_statedir);
	unlink(path);
	memset(&svc, 0, sizeof(svc));
	if (nlm_server_init(&nlm, n4f_fs, &c, err, sizeof(err)) != 0)
		return -1;
	svc.ctx = &nlm;
	orpc_svc_add(&svc, &nlm_program);
	orpc_svc_add(&svc, &nsm_program);
	return nlm.pool ? 0 : -1; /* the helper threads are what this tests */
}

static int done(void **state)
{
	(void)state;
	nlm_server_fini(&nlm);
	return 0;
}

static void test_granted_after_write(void **state)
{
	(void)state;
	first_lock_held("c1", ORPC_XPRT_TCP);
	assert_int_equal(nlm.st.nsm_writes, 1);
	assert_int_equal(nlm.st.nsm_sync_writes, 0);
	assert_int_equal(nlm.st.nsm_write_errors, 0);

	/* the host is known: its next lock waits only for its file's key, not for a write */
	assert_int_equal(call(1, NLM4_PROC_LOCK, "c1", 2, 100, ORPC_XPRT_TCP), 0);
	poll_until_done(1);
	granted(1);
	assert_int_equal(nlm.st.nsm_held, 1);
	assert_int_equal(nlm.st.nsm_writes, 1);
	assert_int_equal(call(2, NLM4_PROC_UNLOCK, "c1", 1, 0, ORPC_XPRT_TCP), 0);
	poll_until_done(2);
	granted(2);
	assert_int_equal(call(3, NLM4_PROC_UNLOCK, "c1", 2, 100, ORPC_XPRT_TCP), 0);
	poll_until_done(3);
	granted(3);
	assert_int_equal(nlm.st.key_deferred, 4);
	assert_int_equal(nlm.st.key_inline, 0);
	assert_int_equal(nlm.st.nlm_stat[NLM4_GRANTED], 4);
}

/* UDP from a server with no room to keep the call: answered at dispatch */
static void test_udp_unheld(void **state)
{
	(void)state;
	assert_true(call(0, NLM4_PROC_LOCK, "c2", 1, 0, ORPC_XPRT_UDP) > 0);
	granted(0);
	assert_int_equal(nlm.st.nsm_held, 0);
	assert_int_equal(nlm.st.nsm_unheld, 1);
	assert_int_equal(nlm.st.key_inline, 1); /* nothing holds a UDP call: looked up here */
	assert_int_equal(nlm.st.key_deferred, 0);
	/* the list is still written, by the helper */
	for (int t = 0; t < 10000 && nlm_server_poll(&nlm); t++)
		usleep(1000);
	assert_true(listed("127.0.0.1\tc2"));
	assert_int_equal(nlm.st.nsm_writes, 1);
	assert_int_equal(nlm.st.nsm_sync_writes, 0);
}

/* UDP from a server that can keep the call: deferred for its key, held for the list, as over
 * TCP (Linux's lockd sends LOCK over UDP for a proto=udp mount) */
static void test_udp_held(void **state)
{
	(void)state;
	udp_room = true;
	first_lock_held("c3", ORPC_XPRT_UDP);
	assert_int_equal(nlm.st.nsm_unheld, 0);
	assert_int_equal(nlm.st.nsm_writes, 1);
}

/* NSM SM_MON (proc 2) of mon_name host from 127.0.0.1 over TCP, xid i + 1, into slot i.
 * @return what dispatch answered at once (0: held, taken) */
static uint32_t sm_mon(uint32_t i, const char *host)
{
	struct slot *k = &slots[i];
	uint32_t w = call_start(i, 100024, 1, 2);

	snprintf(k->entry, sizeof(k->entry), "%s\t+%s", host, host);
	put_opaque(k->msg, &w, host, (uint32_t)strlen(host)); /* mon_name */
	put_opaque(k->msg, &w, "localhost", 9);		      /* my_id: my_name */
	put(k->msg, &w, 100021);			      /* my_prog, my_vers, my_proc */
	put(k->msg, &w, 4);
	put(k->msg, &w, 16);
	for (uint32_t v = 0; v < 4; v++) /* priv[16] */
		put(k->msg, &w, 0);
	return dispatch(i, w, ORPC_XPRT_TCP);
}

/* SM_MON's answer in slot i: STAT_SUCC and our (odd) state */
static void monitored(uint32_t i)
{
	const struct slot *k = &slots[i];

	assert_true(k->done);
	assert_int_equal(k->out_len, 32);
	assert_int_equal(word(k->out, 0), i + 1);
	assert_int_equal(word(k->out, 5), 0); /* SUCCESS */
	assert_int_equal(word(k->out, 6), NSM_STAT_SUCC);
	assert_int_equal(word(k->out, 7), (uint32_t)nlm.nsm_state);
}

static void test_coalesced(void **state)
{
	static const char *const hosts[] = {"c4", "c5", "c6"};

	(void)state;
	/* SM_MON has no file to look up: all three change the list before any write ends */
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(sm_mon(i, hosts[i]), 0);
	assert_int_equal(nlm.st.nsm_held, 3);
	assert_int_equal(nlm.st.nsm_writes, 1); /* the first; the other two wait behind it */
	for (uint32_t i = 0; i < 3; i++)
		poll_until_done(i);
	for (uint32_t i = 0; i < 3; i++) {
		monitored(i);
		assert_true(slots[i].on_disk);
	}
	assert_int_equal(nlm.st.nsm_writes, 2); /* one more, of the newest list */
	assert_int_equal(nlm.st.nsm_sync_writes, 0);
}

static void test_flush_answers(void **state)
{
	(void)state;
	assert_int_equal(call(0, NLM4_PROC_LOCK, "c3", 1, 0, ORPC_XPRT_TCP), 0);
	assert_false(slots[0].done);
	nlm_server_flush(&nlm);
	granted(0);
	assert_int_equal(nlm.st.key_deferred, 1);
	assert_true(slots[0].on_disk);
	assert_null(nlm.wr.held);
}

static int group_setup(void **state)
{
	struct nfs_fh root;
	struct nfs_attr attr;
	enum nfs_stat st;

	n4f_setup(state);
	root = n4f_root_fh();
	st = nfs_fs_lookup(&n4f_ctx, &root, "file", 4, &file_fh, &attr, NULL, NULL);
	return st == NFS_OK ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_granted_after_write, fresh, done),
		cmocka_unit_test_setup_teardown(test_udp_unheld, fresh, done),
		cmocka_unit_test_setup_teardown(test_udp_held, fresh, done),
		cmocka_unit_test_setup_teardown(test_coalesced, fresh, done),
		cmocka_unit_test_setup_teardown(test_flush_answers, fresh, done),
	};

	if (geteuid() != 0) {
		fprintf(stderr, "test_nsm_hold: needs root (open_by_handle_at); skipped\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, group_setup, n4f_teardown);
}
