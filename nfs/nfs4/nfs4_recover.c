/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_recover.c - stable client records and the grace period (nfs4_recover.h; RFC 8881
 * §8.4.2, §8.4.3): the records file's reader (a bounded parser: a file that does not parse is
 * ignored whole and counted) and writer, each record's life (enum nfs4_rec_state) and the
 * grace period's (enum nfs4_grace_state), each set through one counting setter, and the rule
 * OPEN and LOCK ask (nfs4_recov_check).
 *
 * Records are few (one per client that sent RECLAIM_COMPLETE or held state) and searched
 * linearly. The file is written by a helper thread (a one-worker nfs_pool), one write at a
 * time, coalesced by generation.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4_proto.h"
#include "nfs4_recover.h"
#include "nfs_fs.h"
#include "nfs_pool.h"

#define HEADER "droce-nfs4-clients 1 "
#define EPOCH_HEADER "droce-nfs4-epoch 1 "

#define NAME_(n) #n,
static const char *const rec_names[] = {NFS4_REC_STATE_LIST(NAME_)};
static const char *const grace_names[] = {NFS4_GRACE_STATE_LIST(NAME_)};
_Static_assert(sizeof(rec_names) / sizeof(rec_names[0]) == NFS4_REC_NUM_STATES, "names");
_Static_assert(sizeof(grace_names) / sizeof(grace_names[0]) == NFS4_GRACE_NUM_STATES, "names");

const char *nfs4_rec_state_name(enum nfs4_rec_state s)
{
	return s < NFS4_REC_NUM_STATES ? rec_names[s] : "?";
}

const char *nfs4_grace_state_name(enum nfs4_grace_state s)
{
	return s < NFS4_GRACE_NUM_STATES ? grace_names[s] : "?";
}

static void job_work(void *arg);

/* the one setter of each machine: counts every entry into a state */
static void rec_set_state(struct nfs4_recov *r, struct nfs4_rec *e, enum nfs4_rec_state to)
{
	if (e->state != to)
		r->st.rec_state[to]++;
	e->state = to;
}

static void grace_set_state(struct nfs4_recov *r, enum nfs4_grace_state to)
{
	if (r->grace != to)
		r->st.grace_state[to]++;
	r->grace = to;
}

void nfs4_recov_init(struct nfs4_recov *r, const char *dir, uint64_t grace_ns, uint64_t now)
{
	memset(r, 0, sizeof(*r));
	r->dir = dir;
	r->grace_ns = grace_ns;
	r->grace_end_ns = now + grace_ns;
	r->grace = NFS4_GRACE_RECLAIM;
	r->st.grace_state[NFS4_GRACE_RECLAIM]++;
	/* the writer's helper, from the start: its event fd is known before serving (a failure
	 * is tried again at the first write, and writes go on the lcore meanwhile) */
	if (dir)
		r->pool = nfs_pool_create("nfs4rec", 1, job_work);
}

void nfs4_recov_fini(struct nfs4_recov *r)
{
	nfs4_recov_flush(r);
	r->closing = true;
	if (r->pool)
		nfs_pool_destroy(r->pool, NULL);
	r->pool = NULL;
	for (uint32_t i = 0; i < r->n; i++)
		free(r->rec[i]);
	r->n = 0;
	r->st.records = 0;
}

struct nfs4_rec *nfs4_recov_find(struct nfs4_recov *r, const uint8_t *owner, uint32_t len)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (r->rec[i]->len == len && memcmp(r->rec[i]->owner, owner, len) == 0)
			return r->rec[i];
	return NULL;
}

static struct nfs4_rec *rec_add(struct nfs4_recov *r, const uint8_t *owner, uint32_t len,
				enum nfs4_rec_state state)
{
	struct nfs4_rec *e;

	if (r->n == NFS4_RECORDS_MAX) {
		r->st.full++;
		return NULL;
	}
	e = malloc(sizeof(*e) + len);
	if (!e) {
		r->st.full++;
		return NULL;
	}
	e->state = NFS4_REC_GONE; /* so that the setter counts the first state */
	rec_set_state(r, e, state);
	e->len = len;
	memcpy(e->owner, owner, len);
	r->rec[r->n++] = e;
	r->st.records++;
	return e;
}

/* GONE records leave the table */
static void rec_sweep(struct nfs4_recov *r)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < r->n; i++) {
		if (r->rec[i]->state == NFS4_REC_GONE) {
			free(r->rec[i]);
			r->st.records--;
			continue;
		}
		r->rec[k++] = r->rec[i];
	}
	r->n = k;
}

/* ---- the file ---- */

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

/* the decimal count after the header, up to its newline; -1 when it is not one */
static long parse_count(const char *p, size_t len, size_t *pos)
{
	long n = 0;
	size_t i = *pos, start = i;

	while (i < len && p[i] >= '0' && p[i] <= '9' && i - start < 5)
		n = n * 10 + (p[i++] - '0');
	if (i == start || i >= len || p[i] != '\n' || n > (long)NFS4_RECORDS_MAX)
		return -1;
	*pos = i + 1;
	return n;
}

/* one "<hex>\n" line into owner; its byte count, or -1 */
static long parse_line(const char *p, size_t len, size_t *pos, uint8_t *owner)
{
	size_t i = *pos;
	long n = 0;

	for (;;) {
		int hi, lo;

		if (i >= len)
			return -1; /* truncated */
		if (p[i] == '\n')
			break;
		if (n == (long)NFS4_OPAQUE_LIMIT || i + 1 >= len)
			return -1;
		hi = hexval(p[i]);
		lo = hexval(p[i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		owner[n++] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	if (n == 0)
		return -1;
	*pos = i + 1;
	return n;
}

int nfs4_recov_parse(struct nfs4_recov *r, const char *text, size_t len)
{
	uint8_t owner[NFS4_OPAQUE_LIMIT];
	uint32_t first = r->n, loaded = 0;
	size_t pos = sizeof(HEADER) - 1;
	long count, i;

	if (len < pos || memcmp(text, HEADER, pos) != 0)
		goto bad;
	count = parse_count(text, len, &pos);
	if (count < 0)
		goto bad;
	for (i = 0; i < count; i++) {
		long n = parse_line(text, len, &pos, owner);

		if (n < 0)
			goto bad;
		if (nfs4_recov_find(r, owner, (uint32_t)n))
			continue;
		if (!rec_add(r, owner, (uint32_t)n, NFS4_REC_PREV))
			goto bad;
		loaded++;
	}
	if (pos != len)
		goto bad; /* more than it said */
	r->st.loaded += loaded;
	return (int)loaded;
bad:
	/* nothing from this file: a partial list would let the wrong clients go */
	for (uint32_t k = first; k < r->n; k++) {
		rec_set_state(r, r->rec[k], NFS4_REC_GONE);
		free(r->rec[k]);
		r->st.records--;
	}
	r->n = first;
	r->st.files_ignored++;
	return -EINVAL;
}

int nfs4_recov_load(struct nfs4_recov *r)
{
	size_t cap =
		sizeof(HEADER) + 8 + (size_t)NFS4_RECORDS_MAX * (2 * NFS4_OPAQUE_LIMIT + 1) + 1;
	char *buf;
	long n;
	int rc;

	if (!r->dir)
		return 0;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	n = nfs_state_read(r->dir, NFS4_RECORDS_FILE, buf, cap);
	if (n == -ENOENT) {
		free(buf);
		return 0;
	}
	if (n < 0) {
		r->st.files_ignored++;
		free(buf);
		return (int)n;
	}
	rc = nfs4_recov_parse(r, buf, (size_t)n);
	free(buf);
	return rc;
}

/* ---- the writer: the text on the lcore, write + fsync + rename on the helper ---- */

struct rec_job {
	struct nfs4_recov *r;
	uint64_t gen; /**< the set's generation this text is */
	int rc;	      /**< nfs_state_write's, set by the helper */
	size_t len;
	char text[];
};

/* on the helper thread: r is only read for its directory, set before the pool started */
static void job_work(void *arg)
{
	struct rec_job *j = arg;

	j->rc = nfs_state_write(j->r->dir, NFS4_RECORDS_FILE, j->text, j->len);
}

static void job_end(struct nfs4_recov *r, struct rec_job *j)
{
	r->gen_done = j->gen;
	if (j->rc) {
		r->st.write_errors++;
	} else {
		r->st.writes++;
		r->gen_durable = j->gen;
	}
	free(j);
}

/* the PREV and ACTIVE records, as the file holds them, tagged with the set's generation */
static struct rec_job *rec_text(struct nfs4_recov *r)
{
	static const char hex[] = "0123456789abcdef";
	size_t cap = sizeof(HEADER) + 16;
	struct rec_job *j;
	char *p;

	for (uint32_t i = 0; i < r->n; i++)
		cap += 2 * (size_t)r->rec[i]->len + 1;
	j = malloc(sizeof(*j) + cap);
	if (!j)
		return NULL;
	j->r = r;
	j->gen = r->gen;
	j->rc = 0;
	p = j->text + snprintf(j->text, cap, HEADER "%u\n", r->n);
	for (uint32_t i = 0; i < r->n; i++) {
		const struct nfs4_rec *e = r->rec[i];

		for (uint32_t k = 0; k < e->len; k++) {
			*p++ = hex[e->owner[k] >> 4];
			*p++ = hex[e->owner[k] & 15];
		}
		*p++ = '\n';
	}
	j->len = (size_t)(p - j->text);
	return j;
}

/* one write of the newest set, unless one is in flight (its end starts the next) or the file
 * has it already */
static void rec_kick(struct nfs4_recov *r)
{
	struct rec_job *j;

	if (r->inflight || r->gen_sent == r->gen || r->closing)
		return;
	j = rec_text(r);
	if (!j) {
		r->st.write_errors++;
		return; /* the next change, poll or flush tries again */
	}
	r->gen_sent = j->gen;
	if (r->pool && nfs_pool_submit(r->pool, j) == 0) {
		r->inflight = true;
		return;
	}
	/* no helper: the lcore writes (counted, so that it shows) */
	r->st.sync_writes++;
	job_work(j);
	job_end(r, j);
}

static void job_done(void *arg)
{
	struct rec_job *j = arg;
	struct nfs4_recov *r = j->r;

	r->inflight = false;
	job_end(r, j);
	rec_kick(r); /* the changes made while it was written */
}

/* the set changed: a new generation to write */
static void rec_write(struct nfs4_recov *r)
{
	if (!r->dir)
		return;
	r->gen++;
	if (!r->pool && !r->closing)
		r->pool = nfs_pool_create("nfs4rec", 1, job_work);
	rec_kick(r);
}

uint32_t nfs4_recov_poll(struct nfs4_recov *r)
{
	uint32_t n = 0;

	if (r->pool)
		n = nfs_pool_poll(r->pool, job_done, 4);
	rec_kick(r); /* one that could not be built before */
	return n;
}

bool nfs4_recov_busy(const struct nfs4_recov *r)
{
	return r->inflight || r->gen_sent != r->gen;
}

int nfs4_recov_event_fd(const struct nfs4_recov *r)
{
	return r->pool ? nfs_pool_event_fd(r->pool) : -1;
}

void nfs4_recov_flush(struct nfs4_recov *r)
{
	int tries = 0;

	while (nfs4_recov_busy(r)) {
		struct pollfd pfd = {.fd = nfs4_recov_event_fd(r), .events = POLLIN};

		if (r->inflight && pfd.fd >= 0)
			poll(&pfd, 1, 10);
		nfs4_recov_poll(r);
		/* a text that cannot be built (no memory) is not waited for for ever */
		if (!r->inflight && r->gen_sent != r->gen && ++tries > 100)
			break;
	}
}

/* ---- the boot epoch ---- */

uint32_t nfs4_recov_epoch(struct nfs4_recov *r, uint32_t floor)
{
	char buf[64], *end;
	unsigned long long last;
	uint32_t epoch = floor;
	long n;
	int len;

	if (!r->dir)
		return epoch ? epoch : 1;
	n = nfs_state_read(r->dir, NFS4_EPOCH_FILE, buf, sizeof(buf));
	if (n >= 0) {
		const size_t hl = sizeof(EPOCH_HEADER) - 1;

		errno = 0;
		if ((size_t)n > hl && memcmp(buf, EPOCH_HEADER, hl) == 0 && buf[hl] >= '0' &&
		    buf[hl] <= '9' && (last = strtoull(buf + hl, &end, 10), errno == 0) &&
		    end == buf + n - 1 && *end == '\n' && last <= UINT32_MAX) {
			if (last >= epoch)
				epoch = (uint32_t)last + 1;
		} else {
			r->st.epoch_files_ignored++;
		}
	} else if (n != -ENOENT) {
		r->st.epoch_files_ignored++;
	}
	/* 0 and all ones are the special stateids' words (nfs4_open.c), never an epoch */
	if (epoch == 0 || epoch == UINT32_MAX)
		epoch = 1;
	len = snprintf(buf, sizeof(buf), EPOCH_HEADER "%u\n", epoch);
	if (nfs_state_write(r->dir, NFS4_EPOCH_FILE, buf, (size_t)len) != 0)
		r->st.epoch_write_errors++;
	return epoch;
}

/* ---- the grace period ---- */

static bool any_prev(const struct nfs4_recov *r)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (r->rec[i]->state == NFS4_REC_PREV)
			return true;
	return false;
}

static enum nfs4_grace_state grace_step_reclaim(struct nfs4_recov *r, uint64_t now)
{
	/* knfsd ends grace early too once every client it tracks has completed */
	if (now >= r->grace_end_ns || !any_prev(r))
		return NFS4_GRACE_OVER;
	return NFS4_GRACE_RECLAIM;
}

/* entering OVER: the owners that did not complete cannot reclaim any more */
static void grace_over(struct nfs4_recov *r)
{
	bool dropped = false;

	for (uint32_t i = 0; i < r->n; i++)
		if (r->rec[i]->state == NFS4_REC_PREV) {
			rec_set_state(r, r->rec[i], NFS4_REC_GONE);
			dropped = true;
		}
	rec_sweep(r);
	if (dropped)
		rec_write(r);
}

void nfs4_recov_step(struct nfs4_recov *r, uint64_t now)
{
	enum nfs4_grace_state prev;

	do {
		enum nfs4_grace_state next = r->grace;

		prev = r->grace;
		switch (r->grace) {
		case NFS4_GRACE_RECLAIM:
			next = grace_step_reclaim(r, now);
			break;
		default: /* OVER lasts */
			break;
		}
		grace_set_state(r, next);
		if (prev == NFS4_GRACE_RECLAIM && next == NFS4_GRACE_OVER)
			grace_over(r);
	} while (r->grace != prev);
}

uint32_t nfs4_recov_check(struct nfs4_recov *r, const uint8_t *owner, uint32_t len,
			  bool reclaim_done, bool reclaim, uint64_t now)
{
	const struct nfs4_rec *e;

	nfs4_recov_step(r, now);
	if (!reclaim) {
		/* RFC 8881 §18.51.3: no new state before the client's RECLAIM_COMPLETE (Linux
		 * sends it right after CREATE_SESSION); §8.4.2: none from anyone in grace */
		if (!reclaim_done || r->grace == NFS4_GRACE_RECLAIM) {
			r->st.grace_refused++;
			return NFS4ERR_GRACE;
		}
		return NFS4_OK;
	}
	/* §8.4.3: reclaims only in grace, only from an owner that held state before the
	 * restart, only until its RECLAIM_COMPLETE (§18.51.3) */
	e = nfs4_recov_find(r, owner, len);
	if (r->grace != NFS4_GRACE_RECLAIM || reclaim_done || !e || e->state != NFS4_REC_PREV) {
		r->st.no_grace++;
		return NFS4ERR_NO_GRACE;
	}
	r->st.reclaims++;
	return NFS4_OK;
}

bool nfs4_recov_opened(struct nfs4_recov *r, const uint8_t *owner, uint32_t len)
{
	struct nfs4_rec *e = nfs4_recov_find(r, owner, len);

	if (e)
		return e->state == NFS4_REC_ACTIVE;
	if (!rec_add(r, owner, len, NFS4_REC_ACTIVE))
		return false;
	rec_write(r);
	return true;
}

bool nfs4_recov_complete(struct nfs4_recov *r, const uint8_t *owner, uint32_t len, uint64_t now)
{
	struct nfs4_rec *e = nfs4_recov_find(r, owner, len);
	bool active = false;

	if (e && e->state == NFS4_REC_PREV) {
		rec_set_state(r, e, NFS4_REC_ACTIVE);
		rec_write(r);
	}
	active = e && e->state == NFS4_REC_ACTIVE;
	nfs4_recov_step(r, now);
	return active;
}

void nfs4_recov_forget(struct nfs4_recov *r, const uint8_t *owner, uint32_t len)
{
	struct nfs4_rec *e = nfs4_recov_find(r, owner, len);

	if (!e || e->state != NFS4_REC_ACTIVE)
		return;
	rec_set_state(r, e, NFS4_REC_GONE);
	rec_sweep(r);
	rec_write(r);
}
