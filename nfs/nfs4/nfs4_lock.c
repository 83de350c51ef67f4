/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_lock.c - LOCK, LOCKT and LOCKU (RFC 8881 §18.10-§18.12) on the lock manager (nfs/lock)
 * that NLM uses, so NFSv3 and NFSv4 locks on one file conflict. A lock state is one lock-owner
 * on one file, made from an open by LOCK with open_to_lock_owner4. Blocking lock types
 * (READW_LT, WRITEW_LT) are not queued: a conflict is DENIED and the client polls, as it may;
 * a client with a backchannel is also sent CB_NOTIFY_LOCK once a lock on the file goes
 * (LOCKU, CLOSE, its holder's end: nfs4_cb.c), and OPEN says so (OPEN4_RESULT_MAY_NOTIFY_LOCK).
 *
 *   length 0, or offset + length past 2^64 (length not all ones)  -> INVAL
 *   WRITE_LT on an open without write access                      -> OPENMODE
 *   reclaim out of grace, by an owner not recorded, or after
 *     the client's RECLAIM_COMPLETE (nfs4_recover.h)                 -> NO_GRACE
 *   no reclaim in grace, or before the client's RECLAIM_COMPLETE    -> GRACE
 *   LOCKT in grace                                                 -> GRACE
 *   the lock manager's grace period (NLM's, after a restart)       -> GRACE
 *   a conflicting lock, NFSv3's or NFSv4's                         -> DENIED with LOCK4denied
 *   the lock manager full                                          -> DELAY
 */
#include <string.h>

#include "nfs4_int.h"

#define OH_CLIENT 8u /* the client id heads each owner handle */

/* the range as the lock manager takes it (length 0: to the end) */
static uint32_t range(uint64_t off, uint64_t len, uint64_t *moff, uint64_t *mlen)
{
	if (len == 0)
		return NFS4ERR_INVAL;
	if (len != UINT64_MAX && off > UINT64_MAX - len)
		return NFS4ERR_INVAL;
	*moff = off;
	*mlen = len == UINT64_MAX ? 0 : len;
	return NFS4_OK;
}

/* the owner as the lock manager names it: host "nfs4:<clientid>", handle clientid + owner */
struct lk_owner {
	char host[24];
	uint8_t oh[NFS_LOCK_OH_MAX];
};

static uint32_t name_owner(uint64_t clientid, const uint8_t *name, uint32_t len, struct lk_owner *b,
			   struct nfs_lock_owner *o)
{
	if (len > NFS_LOCK_OH_MAX - OH_CLIENT)
		return NFS4ERR_BADXDR; /* an owner longer than any client sends */
	o->host = b->host;
	o->host_len = nfs4_lock_host(clientid, b->host);
	for (uint32_t i = 0; i < OH_CLIENT; i++)
		b->oh[i] = (uint8_t)(clientid >> (56 - 8 * i));
	memcpy(b->oh + OH_CLIENT, name, len);
	o->oh = b->oh;
	o->oh_len = OH_CLIENT + len;
	o->svid = 0;
	return NFS4_OK;
}

static void fill_denied(const struct nfs_lock_holder *h, struct nfs4_lock_denied *d)
{
	d->offset = h->off;
	d->length = h->len == 0 ? UINT64_MAX : h->len;
	d->type = h->exclusive ? WRITE_LT : READ_LT;
	/* a v4 holder's handle starts with its client id; an NLM holder's is its own */
	if (h->oh_len >= OH_CLIENT) {
		d->owner.clientid = 0;
		for (uint32_t i = 0; i < OH_CLIENT; i++)
			d->owner.clientid = d->owner.clientid << 8 | h->oh[i];
		d->owner.owner = (struct nfs4_ref){h->oh + OH_CLIENT, h->oh_len - OH_CLIENT};
	} else {
		d->owner.clientid = 0;
		d->owner.owner = (struct nfs4_ref){h->oh, h->oh_len};
	}
}

static uint32_t from_lock_status(struct nfs4_compound *c, enum nfs_lock_status st,
				 const struct nfs_lock_res *res, union nfs4_op_resok *r)
{
	switch (st) {
	case NFS_LOCK_GRANTED:
		return NFS4_OK;
	case NFS_LOCK_DENIED:
	case NFS_LOCK_BLOCKED:
		c->s->stats.locks_denied++;
		/* the holder's bytes live in the server until the reply is encoded */
		c->s->lock_res = *res;
		fill_denied(&c->s->lock_res.holder, &r->denied);
		return NFS4ERR_DENIED;
	case NFS_LOCK_GRACE:
		return NFS4ERR_GRACE;
	case NFS_LOCK_NOLOCKS:
		return NFS4ERR_DELAY;
	default:
		return NFS4ERR_INVAL;
	}
}

static bool exclusive(uint32_t type)
{
	return type == WRITE_LT || type == WRITEW_LT;
}

/* The lock state LOCK works on: the existing one, or one made from the open. */
static uint32_t lock_state(struct nfs4_compound *c, const struct nfs4_lock_args *l,
			   struct nfs4_stid **out, bool *made)
{
	struct nfs4_stid *open, *st;
	struct nfs4_owner *o;
	uint32_t s;

	*made = false;
	if (!l->new_owner)
		return nfs4_sid_find(c, &l->lock_sid, NFS4_SID_LOCK, &c->cur.fh, true, out);
	s = nfs4_sid_find(c, &l->open_sid, NFS4_SID_OPEN, &c->cur.fh, true, &open);
	if (s != NFS4_OK)
		return s;
	if (l->lock_owner.owner.len == 0)
		return NFS4ERR_INVAL;
	o = nfs4_owner_get(c->s, open->clp, true, &l->lock_owner.owner, true);
	if (!o)
		return NFS4ERR_DELAY;
	st = nfs4_stid_of(open->clp, o, &open->key);
	if (!st) {
		st = nfs4_stid_new(c->s, o, NFS4_STID_LOCK, &open->fh, &open->key);
		if (!st) {
			nfs4_owner_forget(c->s, o);
			return NFS4ERR_DELAY;
		}
		st->open = open;
		*made = true;
	}
	*out = st;
	return NFS4_OK;
}

uint32_t nfs4_op_lock(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	const struct nfs4_lock_args *l = &a->lock;
	struct nfs_lock_req req = {.op = NFS_LOCK_OP_LOCK};
	struct nfs_lock_res res;
	struct nfs4_stid *st;
	struct lk_owner b;
	bool made;
	uint32_t s;

	if (c->cur.kind != NFS4_FH_REAL)
		return NFS4ERR_ISDIR;
	s = range(l->offset, l->length, &req.off, &req.len);
	if (s != NFS4_OK)
		return s;
	/* reclaims in grace only, new locks after it (RFC 8881 §8.4.2, §18.51.3) */
	s = nfs4_grace_check(c, l->reclaim);
	if (s != NFS4_OK)
		return s;
	s = lock_state(c, l, &st, &made);
	if (s != NFS4_OK)
		return s;
	if (exclusive(l->type) && (!st->open || !(st->open->access & OPEN4_SHARE_ACCESS_WRITE))) {
		s = NFS4ERR_OPENMODE;
		goto fail;
	}
	s = name_owner(st->clp->clientid, st->owner->name, st->owner->len, &b, &req.owner);
	if (s != NFS4_OK)
		goto fail;
	req.file = st->key;
	req.addr = c->ctx->peer;
	req.exclusive = exclusive(l->type);
	req.reclaim = l->reclaim; /* a shared manager in NLM's grace takes it then */
	s = from_lock_status(c, nfs_lock_process(c->s->mgr, &req, &res), &res, r);
	if (s == NFS4ERR_DENIED && (l->type == READW_LT || l->type == WRITEW_LT))
		nfs4_lock_wait(c->s, st);
	if (s != NFS4_OK)
		goto fail;
	st->locked = true;
	/* a new lock state's first stateid has seqid 1 (RFC 8881 §8.2.2), later locks bump it */
	if (made)
		r->sid = st->id;
	else
		nfs4_stid_bump(st, &r->sid);
	nfs4_set_cur_sid(c, &r->sid);
	return NFS4_OK;
fail:
	if (made)
		nfs4_stid_free(c->s, st);
	return s;
}

uint32_t nfs4_op_lockt(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	const struct nfs4_lockt_args *l = &a->lockt;
	struct nfs_lock_req req = {.op = NFS_LOCK_OP_TEST};
	struct nfs_lock_res res;
	struct lk_owner b;
	uint32_t s;

	if (c->cur.kind != NFS4_FH_REAL)
		return NFS4ERR_ISDIR;
	if (!c->sess)
		return NFS4ERR_SERVERFAULT;
	/* nothing is known of the locks not yet reclaimed (knfsd answers the same) */
	if (nfs4_server_in_grace(c->s))
		return NFS4ERR_GRACE;
	s = range(l->offset, l->length, &req.off, &req.len);
	if (s != NFS4_OK)
		return s;
	/* with a session the owner is the session's client's (RFC 8881 §18.11.3) */
	s = name_owner(c->sess->clp->clientid, l->owner.owner.p, l->owner.owner.len, &b,
		       &req.owner);
	if (s != NFS4_OK)
		return s;
	req.file.len = 16;
	if (nfs_fs_file_key(c->ctx, &c->cur.fh, req.file.b) != NFS_OK)
		return NFS4ERR_STALE;
	req.addr = c->ctx->peer;
	req.exclusive = exclusive(l->type);
	return from_lock_status(c, nfs_lock_process(c->s->mgr, &req, &res), &res, r);
}

uint32_t nfs4_op_locku(struct nfs4_compound *c, union nfs4_op_args *a, union nfs4_op_resok *r)
{
	const struct nfs4_locku_args *l = &a->locku;
	struct nfs_lock_req req = {.op = NFS_LOCK_OP_UNLOCK};
	struct nfs_lock_res res;
	struct nfs4_stid *st;
	struct lk_owner b;
	uint32_t s;

	if (c->cur.kind != NFS4_FH_REAL)
		return NFS4ERR_ISDIR;
	s = range(l->offset, l->length, &req.off, &req.len);
	if (s != NFS4_OK)
		return s;
	s = nfs4_sid_find(c, &l->sid, NFS4_SID_LOCK, &c->cur.fh, true, &st);
	if (s != NFS4_OK)
		return s;
	s = name_owner(st->clp->clientid, st->owner->name, st->owner->len, &b, &req.owner);
	if (s != NFS4_OK)
		return s;
	req.file = st->key;
	req.addr = c->ctx->peer;
	nfs_lock_process(c->s->mgr, &req, &res);
	nfs4_lock_released(c->s, &st->key, true);
	nfs4_stid_bump(st, &r->sid);
	nfs4_set_cur_sid(c, &r->sid);
	return NFS4_OK;
}

bool nfs4_lock_state_holds(struct nfs4_server *s, const struct nfs4_stid *l)
{
	struct nfs_lock_owner o;
	struct lk_owner b;

	if (!l->locked ||
	    name_owner(l->clp->clientid, l->owner->name, l->owner->len, &b, &o) != NFS4_OK)
		return false;
	return nfs_lock_owner_holds(s->mgr, &l->key, &o);
}

void nfs4_lock_state_release(struct nfs4_server *s, const struct nfs4_stid *l)
{
	struct nfs_lock_req req = {.op = NFS_LOCK_OP_UNLOCK, .file = l->key};
	struct nfs_lock_res res;
	struct lk_owner b;

	if (!l->locked ||
	    name_owner(l->clp->clientid, l->owner->name, l->owner->len, &b, &req.owner) != NFS4_OK)
		return;
	nfs_lock_process(s->mgr, &req, &res); /* offset 0, length 0: the whole file */
	nfs4_lock_released(s, &l->key, true);
}
