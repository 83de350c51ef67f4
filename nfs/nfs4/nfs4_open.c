/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_open.c - stateids and opens (nfs4_open.h): the table of states by serial, the owners
 * and states of each client, the checks every stateid goes through (RFC 8881 §8.2.2-§8.2.4,
 * §16.2.3.1.2), and the operations OPEN (§18.16), OPEN_DOWNGRADE (§18.18), CLOSE (§18.2),
 * TEST_STATEID (§18.48) and FREE_STATEID (§18.38). OPEN creates through the backend's CREATE
 * (the same call NFSv3's CREATE makes) and opens nothing in the kernel: an open is a share
 * reservation and a stateid, the I/O goes by handle as NFSv3's does.
 *
 *   OPEN claim:  CLAIM_NULL (name in the current directory), CLAIM_FH (the current file)
 *                CLAIM_DELEGATE_CUR, CLAIM_DELEG_CUR_FH: the same, under a delegation of the
 *                client's on that file (its stateid checked)
 *                CLAIM_PREVIOUS: the current file, reclaimed in grace by a client whose owner
 *                the stable records name (nfs4_recover.h), else NO_GRACE; never a delegation
 *                CLAIM_DELEGATE_PREV, CLAIM_DELEG_PREV_FH -> NOTSUPP (no delegation survives)
 *   grace:       any other claim during grace, or before the client's RECLAIM_COMPLETE -> GRACE
 *   records:     a client's first successful OPEN records its owner in the state directory
 *   create:      UNCHECKED4, GUARDED4 (EXIST), EXCLUSIVE4 and EXCLUSIVE4_1 (the verifier in
 *                the file's times, as NFSv3's EXCLUSIVE; EXCLUSIVE4_1's attributes after)
 *   the file:    a directory ISDIR, a symbolic link SYMLINK, other non-regular WRONG_TYPE;
 *                access checked for what is asked (the owner may always open, as knfsd)
 *   shares:      access & another's deny, or deny & another's access -> SHARE_DENIED
 *   delegation:  a read one when nfs4_cb.c's rules allow it (nfs4_deleg_offer), else
 *                OPEN_DELEGATE_NONE, or NONE_EXT with the reason to a client that said what it
 *                wants; an OPEN for writing (or denying reads) recalls other clients' and is
 *                told DELAY until they are back
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfs4_int.h"

#define SID_BUCKETS 4096u
#define NS_PER_S 1000000000ull

struct nfs4_otab {
	uint32_t boot;
	uint64_t next_serial;
	struct nfs4_stid *hash[SID_BUCKETS];
	struct nfs4_otab_stats st;
};

struct nfs4_otab *nfs4_otab_create(uint32_t boot)
{
	struct nfs4_otab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->boot = boot;
	t->next_serial = 1;
	return t;
}

void nfs4_otab_destroy(struct nfs4_otab *t)
{
	/* the clients' release freed every state before (nfs4_state_destroy comes first) */
	free(t);
}

void nfs4_otab_stats(const struct nfs4_otab *t, struct nfs4_otab_stats *st)
{
	*st = t->st;
}

uint64_t nfs4_otab_delegs(const struct nfs4_otab *t)
{
	return t->st.delegs;
}

uint32_t nfs4_lock_host(uint64_t clientid, char *buf)
{
	return (uint32_t)snprintf(buf, 24, "nfs4:%016" PRIx64, clientid);
}

static struct nfs4_cstate *cstate(struct nfs4_client *clp, bool create)
{
	if (!clp->owners && create)
		clp->owners = calloc(1, sizeof(struct nfs4_cstate));
	return clp->owners;
}

/* the client has no state left: its record can go (DESTROY_CLIENTID) */
static void cstate_maybe_free(struct nfs4_client *clp)
{
	struct nfs4_cstate *cs = clp->owners;

	if (cs && !cs->stids && !cs->owners) {
		free(cs);
		clp->owners = NULL;
	}
}

struct nfs4_owner *nfs4_owner_get(struct nfs4_server *s, struct nfs4_client *clp, bool lock,
				  const struct nfs4_ref *name, bool create)
{
	struct nfs4_cstate *cs = cstate(clp, create);
	struct nfs4_owner *o;

	if (!cs)
		return NULL;
	for (o = cs->owners; o; o = o->next)
		if (o->lock == lock && o->len == name->len &&
		    memcmp(o->name, name->p, name->len) == 0)
			return o;
	if (!create)
		return NULL;
	o = calloc(1, sizeof(*o) + name->len);
	if (!o) {
		cstate_maybe_free(clp);
		return NULL;
	}
	o->clp = clp;
	o->lock = lock;
	o->len = name->len;
	memcpy(o->name, name->p, name->len);
	o->next = cs->owners;
	cs->owners = o;
	s->ot->st.owners++;
	return o;
}

static void owner_put(struct nfs4_server *s, struct nfs4_owner *o)
{
	struct nfs4_cstate *cs = o->clp->owners;
	struct nfs4_owner **pp = &cs->owners;

	if (--o->nstid)
		return;
	/* 4.1 owners carry no sequence to replay: an owner without state goes */
	while (*pp && *pp != o)
		pp = &(*pp)->next;
	if (*pp)
		*pp = o->next;
	s->ot->st.owners--;
	free(o);
}

void nfs4_owner_forget(struct nfs4_server *s, struct nfs4_owner *o)
{
	struct nfs4_client *clp = o->clp;

	if (o->nstid == 0) {
		o->nstid = 1;
		owner_put(s, o);
	}
	cstate_maybe_free(clp);
}

static uint32_t bucket(uint64_t serial)
{
	return (uint32_t)(serial * 0x9e3779b97f4a7c15ull >> 52) % SID_BUCKETS;
}

struct nfs4_stid *nfs4_stid_new(struct nfs4_server *s, struct nfs4_owner *o, enum nfs4_stid_type t,
				const struct nfs_fh *fh, const struct nfs_lock_key *key)
{
	struct nfs4_otab *ot = s->ot;
	struct nfs4_cstate *cs = o->clp->owners;
	struct nfs4_stid *st = calloc(1, sizeof(*st));
	uint32_t b;

	if (!st)
		return NULL;
	st->serial = ot->next_serial++;
	st->type = t;
	st->clp = o->clp;
	st->owner = o;
	st->fh = *fh;
	st->key = *key;
	st->id.seqid = 1;
	for (int i = 0; i < 4; i++)
		st->id.other[i] = (uint8_t)(ot->boot >> (24 - 8 * i));
	for (int i = 0; i < 8; i++)
		st->id.other[4 + i] = (uint8_t)(st->serial >> (56 - 8 * i));
	b = bucket(st->serial);
	st->hnext = ot->hash[b];
	ot->hash[b] = st;
	st->cnext = cs->stids;
	cs->stids = st;
	o->nstid++;
	ot->st.stids++;
	ot->st.stids_created++;
	ot->st.delegs += t == NFS4_STID_DELEG;
	return st;
}

void nfs4_stid_free(struct nfs4_server *s, struct nfs4_stid *st)
{
	struct nfs4_otab *ot = s->ot;
	struct nfs4_client *clp = st->clp;
	struct nfs4_cstate *cs = clp->owners;
	struct nfs4_stid **pp = &ot->hash[bucket(st->serial)];

	while (*pp && *pp != st)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = st->hnext;
	for (pp = &cs->stids; *pp && *pp != st; pp = &(*pp)->cnext)
		;
	if (*pp)
		*pp = st->cnext;
	if (st->type == NFS4_STID_OPEN) {
		/* its lock states were made from it: they cannot outlive it */
		for (struct nfs4_stid *l = cs->stids; l; l = l->cnext)
			if (l->open == st)
				l->open = NULL;
	}
	if (st->type == NFS4_STID_DELEG) {
		nfs4_deleg_forget(s, st);
		ot->st.delegs--;
	}
	owner_put(s, st->owner);
	ot->st.stids--;
	ot->st.stids_freed++;
	free(st);
	cstate_maybe_free(clp);
}

struct nfs4_stid *nfs4_stid_by_serial(struct nfs4_server *s, uint64_t serial)
{
	for (struct nfs4_stid *st = s->ot->hash[bucket(serial)]; st; st = st->hnext)
		if (st->serial == serial)
			return st;
	return NULL;
}

void nfs4_stid_each(struct nfs4_server *s, void (*fn)(void *arg, struct nfs4_stid *st), void *arg)
{
	if (!s->ot->st.stids)
		return;
	for (uint32_t b = 0; b < SID_BUCKETS; b++)
		for (struct nfs4_stid *st = s->ot->hash[b]; st; st = st->hnext)
			fn(arg, st);
}

void nfs4_stid_bump(struct nfs4_stid *st, struct nfs4_stateid *out)
{
	if (++st->id.seqid == 0)
		st->id.seqid = 1;
	*out = st->id;
}

struct nfs4_stid *nfs4_stid_of(struct nfs4_client *clp, const struct nfs4_owner *o,
			       const struct nfs_lock_key *key)
{
	struct nfs4_cstate *cs = clp->owners;

	for (struct nfs4_stid *st = cs ? cs->stids : NULL; st; st = st->cnext)
		if (st->owner == o && st->key.len == key->len &&
		    memcmp(st->key.b, key->b, key->len) == 0)
			return st;
	return NULL;
}

void nfs4_otab_release_client(struct nfs4_otab *t, struct nfs_lock_mgr *mgr, struct nfs4_client *c)
{
	struct nfs4_cstate *cs = c->owners;
	struct nfs_lock_req req = {.op = NFS_LOCK_OP_FREE_HOST};
	struct nfs_lock_res res;
	char host[24];

	if (!cs)
		return;
	while (cs->stids) {
		struct nfs4_stid *st = cs->stids, **pp = &t->hash[bucket(st->serial)];

		while (*pp && *pp != st)
			pp = &(*pp)->hnext;
		if (*pp)
			*pp = st->hnext;
		cs->stids = st->cnext;
		t->st.delegs -= st->type == NFS4_STID_DELEG;
		t->st.stids--;
		t->st.stids_freed++;
		free(st);
	}
	while (cs->owners) {
		struct nfs4_owner *o = cs->owners;

		cs->owners = o->next;
		t->st.owners--;
		free(o);
	}
	free(cs);
	c->owners = NULL;
	req.owner.host = host;
	req.owner.host_len = nfs4_lock_host(c->clientid, host);
	nfs_lock_process(mgr, &req, &res);
}

/* ---- finding and checking a stateid: a state machine (house style §4) ---- */

#define NAME_(n) #n,
static const char *const sid_names[] = {NFS4_SID_STATE_LIST(NAME_)};
_Static_assert(sizeof(sid_names) / sizeof(sid_names[0]) == NFS4_SID_NUM_STATES, "names");

const char *nfs4_sid_state_name(enum nfs4_sid_state s)
{
	return s < NFS4_SID_NUM_STATES ? sid_names[s] : "?";
}

/* the answer of each terminal state */
static const uint32_t sid_status[NFS4_SID_NUM_STATES] = {
	[NFS4_SID_VALID] = NFS4_OK,
	[NFS4_SID_ERR_STALE] = NFS4ERR_STALE_STATEID,
	[NFS4_SID_ERR_BAD] = NFS4ERR_BAD_STATEID,
	[NFS4_SID_ERR_EXPIRED] = NFS4ERR_EXPIRED,
	[NFS4_SID_ERR_OLD] = NFS4ERR_OLD_STATEID,
	[NFS4_SID_ERR_REVOKED] = NFS4ERR_DELEG_REVOKED,
};

struct sid_check {
	struct nfs4_compound *c;
	struct nfs4_otab *t;
	struct nfs4_stateid id; /**< the stateid, the current one replaced */
	uint32_t types;
	const struct nfs_fh *fh; /**< the operation's file, or NULL */
	bool check_seqid;
	enum nfs4_sid_state state;
	struct nfs4_stid *st;
};

/* the one setter: counts every entry into a state */
static void sid_set_state(struct sid_check *k, enum nfs4_sid_state to)
{
	if (k->state != to)
		k->t->st.sid_state[to]++;
	k->state = to;
}

static enum nfs4_sid_state sid_start(struct sid_check *k)
{
	uint32_t boot = 0;

	if (nfs4_sid_is(&k->id, 1, 0)) {
		/* the current stateid (§16.2.3.1.2): the compound's, if it has one */
		if (!k->c->has_cur_sid)
			return NFS4_SID_ERR_BAD;
		k->id = k->c->cur_sid;
	}
	for (int i = 0; i < 4; i++)
		boot = boot << 8 | k->id.other[i];
	if (boot == k->t->boot)
		return NFS4_SID_CHECK_KNOWN;
	/* the special stateids have zeros (or ones) there, never an epoch of ours */
	return boot == 0 || boot == UINT32_MAX ? NFS4_SID_ERR_BAD : NFS4_SID_ERR_STALE;
}

static enum nfs4_sid_state sid_check_known(struct sid_check *k)
{
	uint64_t serial = 0;

	for (int i = 0; i < 8; i++)
		serial = serial << 8 | k->id.other[4 + i];
	for (struct nfs4_stid *st = k->t->hash[bucket(serial)]; st; st = st->hnext)
		if (st->serial == serial) {
			k->st = st;
			return NFS4_SID_CHECK_CLIENT;
		}
	return NFS4_SID_ERR_BAD;
}

static enum nfs4_sid_state sid_check_client(struct sid_check *k)
{
	if (!k->c->sess || k->st->clp != k->c->sess->clp || !(k->types & (1u << k->st->type)))
		return NFS4_SID_ERR_BAD;
	return NFS4_SID_CHECK_FILE;
}

static enum nfs4_sid_state sid_check_file(struct sid_check *k)
{
	if (k->fh &&
	    (k->st->fh.len != k->fh->len || memcmp(k->st->fh.data, k->fh->data, k->fh->len) != 0))
		return NFS4_SID_ERR_BAD;
	return NFS4_SID_CHECK_LEASE;
}

static enum nfs4_sid_state sid_check_lease(struct sid_check *k)
{
	if (k->c->s->now_ns() > k->st->clp->expire_ns)
		return NFS4_SID_ERR_EXPIRED;
	if (k->st->type == NFS4_STID_DELEG && k->st->dlg == NFS4_DLG_REVOKED)
		return NFS4_SID_ERR_REVOKED;
	return NFS4_SID_CHECK_SEQID;
}

static enum nfs4_sid_state sid_check_seqid(struct sid_check *k)
{
	int32_t d = (int32_t)(k->id.seqid - k->st->id.seqid);

	if (!k->check_seqid || k->id.seqid == 0 || d == 0)
		return NFS4_SID_VALID;
	/* ahead of the state: never handed out; behind: an older one */
	return d > 0 ? NFS4_SID_ERR_BAD : NFS4_SID_ERR_OLD;
}

void nfs4_set_cur_sid(struct nfs4_compound *c, const struct nfs4_stateid *sid)
{
	c->cur_sid = *sid;
	c->has_cur_sid = true;
}

uint32_t nfs4_sid_find(struct nfs4_compound *c, const struct nfs4_stateid *sid, uint32_t types,
		       const struct nfs_fh *fh, bool check_seqid, struct nfs4_stid **out)
{
	struct sid_check k = {.c = c,
			      .t = c->s->ot,
			      .id = *sid,
			      .types = types,
			      .fh = fh,
			      .check_seqid = check_seqid,
			      .state = NFS4_SID_START};
	enum nfs4_sid_state prev;

	k.t->st.sid_state[NFS4_SID_START]++;
	do {
		prev = k.state;
		switch (k.state) {
		case NFS4_SID_START:
			sid_set_state(&k, sid_start(&k));
			break;
		case NFS4_SID_CHECK_KNOWN:
			sid_set_state(&k, sid_check_known(&k));
			break;
		case NFS4_SID_CHECK_CLIENT:
			sid_set_state(&k, sid_check_client(&k));
			break;
		case NFS4_SID_CHECK_FILE:
			sid_set_state(&k, sid_check_file(&k));
			break;
		case NFS4_SID_CHECK_LEASE:
			sid_set_state(&k, sid_check_lease(&k));
			break;
		case NFS4_SID_CHECK_SEQID:
			sid_set_state(&k, sid_check_seqid(&k));
			break;
		default: /* VALID and the ERR_ states are the answer */
			break;
		}
	} while (k.state != prev);
	/* a revoked delegation is named too: FREE_STATEID frees it */
	*out = k.state == NFS4_SID_VALID || k.state == NFS4_SID_ERR_REVOKED ? k.st : NULL;
	return sid_status[k.state];
}

bool nfs4_fh_has_state(struct nfs4_compound *c, const struct nfs_fh *fh)
{
	struct nfs4_cstate *cs = c->sess ? c->sess->clp->owners : NULL;

	for (struct nfs4_stid *st = cs ? cs->stids : NULL; st; st = st->cnext)
		if (st->fh.len == fh->len && memcmp(st->fh.data, fh->data, fh->len) == 0)
			return true;
	return false;
}

/* Does any open of the file deny what a special stateid's I/O does? */
static bool share_denies(struct nfs4_compound *c, const struct nfs_fh *fh, uint32_t deny_bit)
{
	struct nfs4_otab *t = c->s->ot;
	struct nfs_lock_key key;

	if (!t->st.stids)
		return false;
	key.len = 16;
	if (nfs_fs_file_key(c->ctx, fh, key.b) != NFS_OK)
		return false;
	for (uint32_t b = 0; b < SID_BUCKETS; b++)
		for (struct nfs4_stid *st = t->hash[b]; st; st = st->hnext)
			if (st->type == NFS4_STID_OPEN && (st->deny & deny_bit) &&
			    st->key.len == key.len && memcmp(st->key.b, key.b, key.len) == 0)
				return true;
	return false;
}

uint32_t nfs4_sid_check_io(struct nfs4_compound *c, const struct nfs4_stateid *sid,
			   const struct nfs_fh *fh, bool write)
{
	struct nfs4_stid *st, *open;
	uint32_t s;

	if (nfs4_sid_is(sid, 0, 0) || nfs4_sid_is(sid, UINT32_MAX, 0xff)) {
		bool bypass = !write && nfs4_sid_is(sid, UINT32_MAX, 0xff);

		if (bypass)
			return NFS4_OK;
		if (share_denies(c, fh,
				 write ? OPEN4_SHARE_ACCESS_WRITE : OPEN4_SHARE_ACCESS_READ)) {
			c->s->stats.share_denied++;
			return NFS4ERR_LOCKED;
		}
		return NFS4_OK;
	}
	s = nfs4_sid_find(c, sid, NFS4_SID_OPEN | NFS4_SID_LOCK | NFS4_SID_DELEG, fh, true, &st);
	if (s != NFS4_OK)
		return s;
	/* a read delegation's stateid reads (RFC 8881 §9.1.3), it never writes */
	if (st->type == NFS4_STID_DELEG)
		return write ? NFS4ERR_OPENMODE : NFS4_OK;
	open = st->type == NFS4_STID_OPEN ? st : st->open;
	/* a READ may use any open (as knfsd); a WRITE needs one for writing */
	if (write && (!open || !(open->access & OPEN4_SHARE_ACCESS_WRITE)))
		return NFS4ERR_OPENMODE;
	return NFS4_OK;
}

/* ---- OPEN ---- */

/* the directory's change attribute before and after, from its wcc */
static void cinfo_of(const struct nfs_wcc *w, struct nfs4_cinfo *ci)
{
	ci->atomic = false;
	ci->before = w->pre_valid ? (uint64_t)w->pre_ctime.sec * NS_PER_S + w->pre_ctime.nsec : 0;
	ci->after = w->post_valid ? (uint64_t)w->post.ctime.sec * NS_PER_S + w->post.ctime.nsec : 0;
}

static uint32_t type_ok(const struct nfs_attr *a)
{
	switch (a->type) {
	case NFS_REG:
		return NFS4_OK;
	case NFS_DIR:
		return NFS4ERR_ISDIR;
	case NFS_LNK:
		return NFS4ERR_SYMLINK;
	default:
		return NFS4ERR_WRONG_TYPE;
	}
}

/* The create's arguments, checked on the lcore (into the work): UNCHECKED4 and GUARDED4 set
 * their attributes at the create, EXCLUSIVE4_1 after it (the times hold the verifier) */
static uint32_t create_prep(struct nfs4_compound *c, const struct nfs4_open_args *o,
			    struct nfs4_work *w)
{
	uint32_t s;

	if (o->createmode != EXCLUSIVE4) {
		s = nfs4_fattr_to_sattr(c->s, &o->attrs, &w->sa);
		if (s != NFS4_OK)
			return s;
	}
	if (o->createmode == EXCLUSIVE4_1) {
		struct nfs4_bitmap ok;

		/* only suppattr_exclcreat's attributes may come along */
		nfs4_exclcreat_attrs(&ok);
		for (uint32_t i = 0; i < o->attrs.mask.n; i++)
			if (o->attrs.mask.w[i] & ~(i < ok.n ? ok.w[i] : 0))
				return NFS4ERR_INVAL;
		w->setattr_after = o->attrs.mask.n != 0;
	}
	if (!w->sa.set_mode) {
		w->sa.set_mode = true;
		w->sa.mode = 0644;
	}
	w->createmode = o->createmode;
	memcpy(w->verf, o->verf, NFS4_VERIFIER_SIZE);
	return NFS4_OK;
}

/* create (or find) the file named in the directory (on any thread) */
static uint32_t open_create(struct nfs_ctx *ctx, struct nfs4_work *w)
{
	static const enum nfs_createmode how[] = {NFS_CREATE_UNCHECKED, NFS_CREATE_GUARDED,
						  NFS_CREATE_EXCLUSIVE, NFS_CREATE_EXCLUSIVE};
	enum nfs_stat st;

	w->created = true;
	if (w->createmode == UNCHECKED4) {
		/* a name already there is opened, not created: its access is checked as any
		 * open's (the creator of a new file may open it whatever its mode) */
		struct nfs_attr oa, da;
		struct nfs_fh efh;
		bool dv;

		if (nfs_fs_lookup(ctx, &w->fh, w->name, w->namelen, &efh, &oa, &dv, &da) == NFS_OK)
			w->created = false;
	}
	st = nfs_fs_create(ctx, &w->fh, w->name, w->namelen, how[w->createmode],
			   w->createmode >= EXCLUSIVE4 ? &(struct nfs_sattr){0} : &w->sa, w->verf,
			   &w->newfh, &w->attr, &w->wcc);
	if (st != NFS_OK)
		return nfs4_stat_from_nfs(st);
	if (w->setattr_after) {
		struct nfs_wcc fw;

		st = nfs_fs_setattr(ctx, &w->newfh, &w->sa, NULL, &fw);
		if (st != NFS_OK)
			return nfs4_stat_from_nfs(st);
		if (fw.post_valid)
			w->attr = fw.post;
	}
	return NFS4_OK;
}

/* the file the OPEN is about (on any thread) */
static uint32_t open_find(struct nfs_ctx *ctx, struct nfs4_work *w)
{
	struct nfs_attr dir;
	enum nfs_stat st;

	switch (w->open_how) {
	case NFS4_OPENW_FH:
		w->newfh = w->fh;
		st = nfs_fs_getattr(ctx, &w->fh, &w->attr);
		return st == NFS_OK ? NFS4_OK : nfs4_stat_from_nfs(st);
	case NFS4_OPENW_CREATE:
		return open_create(ctx, w);
	case NFS4_OPENW_LOOKUP:
		break;
	}
	st = nfs_fs_lookup(ctx, &w->fh, w->name, w->namelen, &w->newfh, &w->attr, &w->dir_valid,
			   &dir);
	if (st == NFS_ERR_NOTDIR && w->dir_valid && dir.type == NFS_LNK)
		return NFS4ERR_SYMLINK;
	if (st != NFS_OK)
		return nfs4_stat_from_nfs(st);
	if (w->dir_valid)
		w->dirctime = dir.ctime;
	return NFS4_OK;
}

/* may the caller open it for access? (the owner always may, as knfsd's owner override) */
static uint32_t open_access(struct nfs_ctx *ctx, const struct nfs_fh *fh, const struct nfs_attr *at,
			    uint32_t access)
{
	uint32_t want = 0, granted = 0;
	struct nfs_attr a2;
	bool av;
	enum nfs_stat st;

	if (ctx->cred.flavor == 1 && ctx->cred.uid == at->uid && at->uid != 0)
		return NFS4_OK;
	if (access & OPEN4_SHARE_ACCESS_READ)
		want |= ACCESS4_READ;
	if (access & OPEN4_SHARE_ACCESS_WRITE)
		want |= ACCESS4_MODIFY;
	st = nfs_fs_access(ctx, fh, want, &granted, &av, &a2);
	if (st != NFS_OK)
		return nfs4_stat_from_nfs(st);
	return (granted & want) == want ? NFS4_OK : NFS4ERR_ACCESS;
}

void nfs4_open_run(struct nfs4_compound *c, struct nfs4_work *w)
{
	uint32_t s;

	w->status = NFS_OK; /* the answer is v4status */
	s = open_find(c->ctx, w);
	if (s == NFS4_OK)
		s = type_ok(&w->attr);
	if (s == NFS4_OK && !w->created)
		s = open_access(c->ctx, &w->newfh, &w->attr, w->access);
	if (s == NFS4_OK && nfs_fs_file_key(c->ctx, &w->newfh, w->key) != NFS_OK)
		s = NFS4ERR_STALE;
	w->v4status = s;
}

/* another open of the file whose deny meets access, or whose access meets deny */
static bool share_conflict(struct nfs4_server *s, const struct nfs_lock_key *key,
			   const struct nfs4_stid *self, uint32_t access, uint32_t deny)
{
	for (uint32_t b = 0; b < SID_BUCKETS; b++)
		for (struct nfs4_stid *st = s->ot->hash[b]; st; st = st->hnext)
			if (st != self && st->type == NFS4_STID_OPEN && st->key.len == key->len &&
			    memcmp(st->key.b, key->b, key->len) == 0 &&
			    ((access & st->deny) || (deny & st->access)))
				return true;
	return false;
}

/*
 * OPEN on the lcore: the claim and arguments checked, then its file work (nfs4_open_run: the
 * file found or made, its type and access checked, its key), which may wait off the lcore;
 * then nfs4_open_end makes the open state on the lcore.
 */
uint32_t nfs4_op_open(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	const struct nfs4_open_args *o = &a->open;
	uint32_t access = o->share_access & OPEN4_SHARE_ACCESS_BOTH;
	struct nfs4_work *w;
	uint32_t s;

	if (!c->sess)
		return NFS4ERR_SERVERFAULT;
	/* reclaims in grace only, new opens after it and after the client's RECLAIM_COMPLETE
	 * (RFC 8881 §8.4.2, §18.51.3; Linux sends it right after CREATE_SESSION) */
	s = nfs4_grace_check(c, o->claim == CLAIM_PREVIOUS);
	if (s != NFS4_OK)
		return s;
	if (!access ||
	    (o->share_access & ~(OPEN4_SHARE_ACCESS_BOTH | OPEN4_SHARE_ACCESS_WANT_MASK |
				 OPEN4_SHARE_ACCESS_WANT_SIGNAL | OPEN4_SHARE_ACCESS_WANT_PUSH)) ||
	    o->share_deny > OPEN4_SHARE_DENY_BOTH || o->owner.len == 0)
		return NFS4ERR_INVAL;
	w = nfs4_work_start(c, NFS4_WORK_OPEN, &c->cur.fh);
	w->access = access;
	switch (o->claim) {
	case CLAIM_NULL:
	case CLAIM_DELEGATE_CUR: /* the delegation is checked once the file is known */
		break;
	case CLAIM_FH:
	case CLAIM_DELEG_CUR_FH:
	case CLAIM_PREVIOUS: /* the file the client had open: the current one (§18.16.3) */
		if (c->cur.kind != NFS4_FH_REAL)
			return NFS4ERR_ISDIR;
		w->open_how = NFS4_OPENW_FH;
		return nfs4_work(c, r);
	default:
		return NFS4ERR_NOTSUPP; /* DELEGATE_PREV: no delegation survives a restart */
	}
	s = nfs4_check_name(&o->name);
	if (s != NFS4_OK)
		return s;
	if (c->cur.kind != NFS4_FH_REAL) {
		/* the pseudo file system: read-only, and it has only directories */
		if (o->opentype == OPEN4_CREATE)
			return NFS4ERR_ROFS;
		return NFS4ERR_ISDIR;
	}
	/* the name points into the call, which a deferred compound keeps */
	w->name = (const char *)o->name.p;
	w->namelen = o->name.len;
	w->open_how = NFS4_OPENW_LOOKUP;
	if (o->opentype == OPEN4_CREATE && o->claim == CLAIM_NULL) {
		s = create_prep(c, o, w);
		if (s != NFS4_OK)
			return s;
		w->open_how = NFS4_OPENW_CREATE;
		/* UNCHECKED4 with a size truncates a file that is there: another client's read
		 * delegation of it comes back first, as for REMOVE */
		if (o->createmode == UNCHECKED4 && w->sa.set_size &&
		    nfs4_deleg_held_name(c, &c->cur.fh, &o->name))
			return NFS4ERR_DELAY;
	}
	return nfs4_work(c, r);
}

uint32_t nfs4_open_end(struct nfs4_compound *c, struct nfs4_open_res *res)
{
	const struct nfs4_open_args *o = &c->s->args[c->opidx].open;
	uint32_t access = o->share_access & OPEN4_SHARE_ACCESS_BOTH;
	const struct nfs4_work *w = &c->work;
	struct nfs4_client *clp = c->sess ? c->sess->clp : NULL;
	struct nfs4_stid *st = NULL;
	struct nfs4_owner *owner;
	struct nfs_lock_key key;
	struct nfs_fh fh = w->newfh;

	if (w->v4status != NFS4_OK)
		return w->v4status;
	if (!clp)
		return NFS4ERR_SERVERFAULT;
	memset(res, 0, sizeof(*res));
	if (w->open_how == NFS4_OPENW_CREATE) {
		cinfo_of(&w->wcc, &res->cinfo);
		if (o->createmode != EXCLUSIVE4)
			res->attrset = o->attrs.mask;
	} else if (w->open_how == NFS4_OPENW_LOOKUP && w->dir_valid) {
		uint64_t ch = (uint64_t)w->dirctime.sec * NS_PER_S + w->dirctime.nsec;

		res->cinfo = (struct nfs4_cinfo){true, ch, ch};
	}
	key.len = 16;
	memcpy(key.b, w->key, sizeof(w->key));
	if (o->claim == CLAIM_DELEGATE_CUR || o->claim == CLAIM_DELEG_CUR_FH) {
		/* an open under the client's own delegation of this very file (§10.4.2) */
		struct nfs4_stid *d;
		uint32_t s = nfs4_sid_find(c, &o->deleg_sid, NFS4_SID_DELEG, &fh, false, &d);

		if (s != NFS4_OK)
			return s;
	}
	/* a change of the file for others: their read delegations come back first */
	if (((access & OPEN4_SHARE_ACCESS_WRITE) || (o->share_deny & OPEN4_SHARE_DENY_READ)) &&
	    nfs4_deleg_conflict(c->s, &key, clp))
		return NFS4ERR_DELAY;
	owner = nfs4_owner_get(c->s, clp, false, &o->owner, true);
	if (!owner)
		return NFS4ERR_DELAY;
	st = nfs4_stid_of(clp, owner, &key);
	if (share_conflict(c->s, &key, st, access, o->share_deny)) {
		nfs4_owner_forget(c->s, owner);
		c->s->stats.share_denied++;
		return NFS4ERR_SHARE_DENIED;
	}
	if (st) {
		/* the same open-owner again: one stateid, its share upgraded (§9.11) */
		st->access |= access;
		st->deny |= o->share_deny;
		nfs4_stid_bump(st, &res->sid);
	} else {
		st = nfs4_stid_new(c->s, owner, NFS4_STID_OPEN, &fh, &key);
		if (!st) {
			nfs4_owner_forget(c->s, owner);
			return NFS4ERR_DELAY;
		}
		st->access = access;
		st->deny = o->share_deny;
		res->sid = st->id;
	}
	res->rflags = OPEN4_RESULT_LOCKTYPE_POSIX |
		      (nfs4_cb_may_notify(c->s, clp) ? OPEN4_RESULT_MAY_NOTIFY_LOCK : 0);
	/* a reclaim gets no delegation, whatever it had (OPEN_DELEGATE_NONE: res is zeroed) */
	if (o->claim != CLAIM_PREVIOUS)
		nfs4_deleg_offer(c, clp, &fh, &key, o, res);
	nfs4_client_opened(c->s, clp);
	nfs4_set_cur_real(c, &fh);
	nfs4_set_cur_sid(c, &res->sid);
	c->s->stats.opens++;
	return NFS4_OK;
}

/* ---- OPEN_DOWNGRADE, CLOSE ---- */

uint32_t nfs4_op_open_downgrade(struct nfs4_compound *c, union nfs4_op_args *a,
				union nfs4_op_resok *r)
{
	const struct nfs4_downgrade_args *d = &a->downgrade;
	uint32_t access = d->share_access & OPEN4_SHARE_ACCESS_BOTH;
	struct nfs4_stid *st;
	uint32_t s = nfs4_sid_find(c, &d->sid, NFS4_SID_OPEN, &c->cur.fh, true, &st);

	if (s != NFS4_OK)
		return s;
	/* only down: what it has, never more (RFC 8881 §18.18.3) */
	if (!access || (access & ~st->access) || d->share_deny > OPEN4_SHARE_DENY_BOTH ||
	    (d->share_deny & ~st->deny))
		return NFS4ERR_INVAL;
	st->access = access;
	st->deny = d->share_deny;
	nfs4_stid_bump(st, &r->sid);
	nfs4_set_cur_sid(c, &r->sid);
	return NFS4_OK;
}

/* the locks and lock states made from an open go with it */
static void drop_lock_states(struct nfs4_compound *c, struct nfs4_stid *open)
{
	struct nfs4_cstate *cs = open->clp->owners;
	struct nfs4_stid *l = cs->stids, *next;

	for (; l; l = next) {
		next = l->cnext;
		if (l->type != NFS4_STID_LOCK || l->open != open)
			continue;
		nfs4_lock_state_release(c->s, l);
		nfs4_stid_free(c->s, l);
	}
}

uint32_t nfs4_op_close(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	struct nfs4_stid *st;
	uint32_t s = nfs4_sid_find(c, &a->close.sid, NFS4_SID_OPEN, &c->cur.fh, true, &st);

	if (s != NFS4_OK)
		return s;
	drop_lock_states(c, st);
	nfs4_stid_free(c->s, st);
	/* the invalid special stateid (RFC 8881 §18.2.4: nothing to use after a CLOSE) */
	memset(&r->sid, 0, sizeof(r->sid));
	r->sid.seqid = UINT32_MAX;
	nfs4_set_cur_sid(c, &r->sid);
	c->s->stats.closes++;
	return NFS4_OK;
}

/* ---- TEST_STATEID, FREE_STATEID ---- */

uint32_t nfs4_op_test_stateid(struct nfs4_compound *c, union nfs4_op_args *a,
			      union nfs4_op_resok *r)
{
	const struct nfs4_test_stateid_args *t = &a->test_stateid;

	r->test_stateid.n = t->n;
	for (uint32_t i = 0; i < t->n; i++) {
		struct nfs4_stateid sid;
		struct nfs4_stid *st;
		const uint8_t *p = t->raw.p + 16 * i;

		sid.seqid =
			(uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
		memcpy(sid.other, p + 4, 12);
		/* the current stateid means nothing here (§18.48.3): BAD_STATEID as a special */
		if (nfs4_sid_is(&sid, 1, 0))
			r->test_stateid.status[i] = NFS4ERR_BAD_STATEID;
		else
			r->test_stateid.status[i] = nfs4_sid_find(
				c, &sid, NFS4_SID_OPEN | NFS4_SID_LOCK | NFS4_SID_DELEG, NULL, true,
				&st);
	}
	return NFS4_OK;
}

uint32_t nfs4_op_free_stateid(struct nfs4_compound *c, union nfs4_op_args *a,
			      union nfs4_op_resok *r)
{
	struct nfs4_stid *st;
	uint32_t s = nfs4_sid_find(c, &a->sid, NFS4_SID_OPEN | NFS4_SID_LOCK | NFS4_SID_DELEG, NULL,
				   false, &st);

	(void)r;
	if (s == NFS4ERR_DELEG_REVOKED) {
		/* the client saw RECALLABLE_STATE_REVOKED and lets the revoked one go */
		nfs4_stid_free(c->s, st);
		return NFS4_OK;
	}
	if (s != NFS4_OK)
		return s;
	/* an open is freed by CLOSE, a lock state once it holds no lock, a delegation by
	 * DELEGRETURN (§18.38.3) */
	if (st->type == NFS4_STID_OPEN || st->type == NFS4_STID_DELEG ||
	    nfs4_lock_state_holds(c->s, st))
		return NFS4ERR_LOCKS_HELD;
	nfs4_stid_free(c->s, st);
	return NFS4_OK;
}
