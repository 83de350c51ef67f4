/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nsm_svc.c - the Network Status Monitor (XNFS §11: program 100024 version 1) as droce-nfsd's
 * own statd: the lock manager's hosts are monitored in-process, with no RPC to a local statd.
 *
 * State: statedir/nsm.state holds the state number, odd while the server is up (XNFS §11.3):
 * each start makes it the next odd number. statedir/nsm.hosts lists the monitored hosts,
 * "address<TAB>name" a line: a host joins when it first locks (nlm_svc.c) or by SM_MON.
 * At start every listed host is sent SM_NOTIFY (mon_name = the address clients mounted, the
 * new state) through its portmapper, so that its lockd reclaims its locks within the grace
 * period; a host that answered leaves the list (it joins again when it locks).
 *
 *   SM_STAT      our state (STAT_SUCC)
 *   SM_MON       a host onto the list (only from a loopback address, as Linux's statd: else
 *                STAT_FAIL); SM_UNMON takes it off, SM_UNMON_ALL takes off every SM_MON host
 *   SM_NOTIFY    a client rebooted (sm-notify sends it over UDP): every lock and waiter of
 *                the host named (its caller_name or address), and of the sender's address, go
 *   SM_SIMU_CRASH  not served (PROC_UNAVAIL)
 * Callbacks to SM_MON's my_id are never made: droce's own lock manager is the only client.
 *
 * The list is written by a helper thread (struct nsm_writer in nlm_svc.h), never on the lcore;
 * a call that changed it (a first LOCK of a host, SM_MON, SM_UNMON, SM_UNMON_ALL) is answered
 * once the changed list is on disk.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfs_pool.h"
#include "nlm_svc.h"

#define NSM_STATE_FILE "nsm.state"
#define NSM_HOSTS_FILE "nsm.hosts"

static struct nlm_server *server_of(struct orpc_req *r)
{
	return r->svc->ctx;
}

static enum accept_stat counted(struct orpc_req *r)
{
	server_of(r)->st.nsm_proc[r->call.proc < NSM_NPROCS ? r->call.proc : 0]++;
	return SUCCESS;
}

#define NSM_HOSTS_BUF (NSM_MAX_HOSTS * (64 + 256 + 2))

/* one write of the monitor list: built on the lcore, written by the helper thread */
struct nsm_write_job {
	struct nlm_job job; /**< first: the helpers hand this back */
	struct nlm_server *s;
	const char *dir;
	uint64_t gen; /**< the list's generation in buf */
	int rc;	      /**< nfs_state_write's answer */
	size_t n;
	char buf[NSM_HOSTS_BUF];
};

static void write_work(struct nlm_job *arg)
{
	struct nsm_write_job *j = (struct nsm_write_job *)arg;

	j->rc = nfs_state_write(j->dir, NSM_HOSTS_FILE, j->buf, j->n);
}

static void written(struct nsm_writer *w, const struct nsm_write_job *j)
{
	w->busy = false;
	if (j->rc)
		j->s->st.nsm_write_errors++;
	if (j->gen > w->gen_done)
		w->gen_done = j->gen;
}

/* the newest list goes to the helper when no write is in flight and it is not written yet */
static void write_kick(struct nlm_server *s)
{
	struct nsm_writer *w = &s->wr;
	struct nsm_write_job *j = w->job;

	if (w->busy || w->gen_done >= w->gen)
		return;
	if (!j) { /* no buffer (no memory at start): the list is not written; nobody waits */
		s->st.nsm_write_errors++;
		w->gen_done = w->gen;
		return;
	}
	j->n = 0;
	for (uint32_t i = 0; i < s->nhosts; i++)
		j->n += (size_t)snprintf(j->buf + j->n, sizeof(j->buf) - j->n, "%s\t%s%s\n",
					 s->hosts[i].addr, s->hosts[i].by_mon ? "+" : "",
					 s->hosts[i].name);
	j->gen = w->gen;
	w->busy = true; /* until its done runs, from nlm_jobs_poll */
	if (nlm_job_submit(s, &j->job))
		s->st.nsm_writes++;
	else
		s->st.nsm_sync_writes++;
}

/* the list changed: it is written off the lcore (now, or after the write in flight) */
static void hosts_changed(struct nlm_server *s)
{
	s->wr.gen++;
	write_kick(s);
}

/* the held replies whose write ended go. The list is taken whole first: a transport that
 * sends one may dispatch the connection's next call at once, which may hold its reply anew */
static uint32_t release_held(struct nsm_writer *w)
{
	struct nsm_held *h = w->held, *next;
	uint32_t n = 0;

	w->held = NULL;
	w->held_tail = &w->held;
	for (; h; h = next) {
		next = h->next;
		if (h->gen > w->gen_done) {
			h->next = NULL;
			*w->held_tail = h;
			w->held_tail = &h->next;
			n++;
			continue;
		}
		orpc_pending_done(h->p, SUCCESS);
		free(h);
	}
	return n;
}

static void write_done(struct nlm_job *arg)
{
	struct nsm_write_job *j = (struct nsm_write_job *)arg;

	written(&j->s->wr, j);
}

uint32_t nsm_poll(struct nlm_server *s)
{
	struct nsm_writer *w = &s->wr;

	write_kick(s);
	return release_held(w) + w->busy;
}

bool nsm_hold(struct nlm_server *s, struct orpc_req *r, void *args, void *res)
{
	struct nsm_writer *w = &s->wr;
	struct nsm_held *h;

	if (w->gen_done >= w->gen)
		return false;
	h = malloc(sizeof(*h));
	/* a call that waited for its file's key is pending already */
	if (!h || !(h->p = s->cur_pending ? s->cur_pending : orpc_svc_defer(r, args, res))) {
		free(h);
		s->st.nsm_unheld++;
		return false;
	}
	h->gen = w->gen;
	h->next = NULL;
	if (!w->held_tail)
		w->held_tail = &w->held;
	*w->held_tail = h;
	w->held_tail = &h->next;
	s->st.nsm_held++;
	return true;
}

void nsm_flush(struct nlm_server *s)
{
	struct nsm_writer *w = &s->wr;

	/* the helpers' jobs end (a call whose key comes back may change the list and hold its
	 * reply), then the newest list is written; a write takes milliseconds: bounded at 10 s
	 * (a helper that never ends) */
	for (int tries = 0; tries < 10000; tries++) {
		struct pollfd pfd = {.fd = nlm_server_event_fd(s), .events = POLLIN};
		bool helpers = s->pool && nfs_pool_inflight(s->pool);

		if (!helpers && !s->ready && !w->busy && w->gen_done >= w->gen)
			break;
		if (helpers && pfd.fd >= 0)
			poll(&pfd, 1, 1);
		nlm_jobs_poll(s);
		nsm_poll(s);
	}
	if (w->gen_done < w->gen) { /* never: count it, and let nobody wait */
		s->st.nsm_write_errors++;
		w->gen_done = w->gen;
	}
	release_held(w);
}

void nsm_fini(struct nlm_server *s)
{
	struct nsm_writer *w = &s->wr;

	/* after the helpers stopped (nlm_server_fini): the buffer is nobody's now */
	release_held(w);
	free(w->job);
	w->job = NULL;
}

/* "address<TAB>[+]name" lines ('+': added by SM_MON); bad lines are skipped */
static void hosts_load(struct nlm_server *s)
{
	static char buf[NSM_HOSTS_BUF + 1];
	long n = nfs_state_read(nfs_fs_state_dir(s->fs), NSM_HOSTS_FILE, buf, sizeof(buf));
	char *l, *save = NULL;

	s->nhosts = 0;
	if (n <= 0)
		return;
	for (l = strtok_r(buf, "\n", &save); l && s->nhosts < NSM_MAX_HOSTS;
	     l = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(l, '\t');
		struct nsm_host *h = &s->hosts[s->nhosts];

		if (!tab || tab == l || (size_t)(tab - l) >= sizeof(h->addr))
			continue;
		*tab++ = '\0';
		h->by_mon = *tab == '+';
		tab += h->by_mon;
		if (!*tab || strlen(tab) >= sizeof(h->name))
			continue;
		snprintf(h->addr, sizeof(h->addr), "%s", l);
		snprintf(h->name, sizeof(h->name), "%s", tab);
		s->nhosts++;
	}
}

int nsm_monitor(struct nlm_server *s, const char *addr, const char *name, bool by_mon)
{
	struct nsm_host *h;

	for (uint32_t i = 0; i < s->nhosts; i++)
		if (!strcmp(s->hosts[i].name, name) && !strcmp(s->hosts[i].addr, addr))
			return 0;
	if (s->nhosts == NSM_MAX_HOSTS || strlen(addr) >= sizeof(h->addr) ||
	    strlen(name) >= sizeof(h->name))
		return -ENOSPC;
	h = &s->hosts[s->nhosts++];
	snprintf(h->addr, sizeof(h->addr), "%s", addr);
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->by_mon = by_mon;
	hosts_changed(s);
	return 1;
}

/* @return whether the list changed (its write is under way) */
static bool unmonitor(struct nlm_server *s, const char *name, bool all_by_mon)
{
	bool changed = false;

	for (uint32_t i = 0; i < s->nhosts;) {
		if ((all_by_mon && s->hosts[i].by_mon) ||
		    (name &&
		     (!strcmp(s->hosts[i].name, name) || !strcmp(s->hosts[i].addr, name)))) {
			s->hosts[i] = s->hosts[--s->nhosts];
			changed = true;
			continue;
		}
		i++;
	}
	if (changed)
		hosts_changed(s);
	return changed;
}

/* an SM_NOTIFY we sent was answered: that host knows; it leaves the list */
void nsm_notified(struct nlm_server *s, const char *addr)
{
	for (uint32_t i = 0; i < s->nhosts; i++)
		if (!strcmp(s->hosts[i].addr, addr)) {
			s->hosts[i] = s->hosts[--s->nhosts];
			hosts_changed(s);
			return;
		}
}

int nsm_start(struct nlm_server *s, char *err, size_t errlen)
{
	const char *dir = nfs_fs_state_dir(s->fs);
	char buf[32];
	long n = nfs_state_read(dir, NSM_STATE_FILE, buf, sizeof(buf));
	uint32_t st = n > 0 ? (uint32_t)strtoul(buf, NULL, 10) : 0;
	int rc;

	/* the next odd number: up (an even number would say "down") */
	st = (st | 1u) + 2u;
	if (st > INT32_MAX)
		st = 1;
	s->nsm_state = (int32_t)st;
	n = snprintf(buf, sizeof(buf), "%u\n", st);
	rc = nfs_state_write(dir, NSM_STATE_FILE, buf, (size_t)n);
	if (rc) {
		snprintf(err, errlen, "%s/%s: %s", dir, NSM_STATE_FILE, strerror(-rc));
		return rc;
	}
	hosts_load(s);
	s->wr.held_tail = &s->wr.held;
	s->wr.job = malloc(sizeof(*s->wr.job));
	if (s->wr.job) {
		memset(&s->wr.job->job, 0, sizeof(s->wr.job->job));
		s->wr.job->job.work = write_work;
		s->wr.job->job.done = write_done;
		s->wr.job->s = s;
		s->wr.job->dir = dir;
	}
	if (s->conf.no_notify)
		return 0;
	for (uint32_t i = 0; i < s->nhosts; i++) {
		struct nsm_stat_chge a = {.state = s->nsm_state};

		a.mon_name.b = (const uint8_t *)s->my_name;
		a.mon_name.len = (uint32_t)strlen(s->my_name);
		if (!nlm_cb_queue(s, NLM_CB_NOTIFY, s->hosts[i].addr, NSM_PROG, NSM_VERS,
				  NSM_PROC_NOTIFY, (xdrproc_t)xdr_nsm_stat_chge, &a))
			s->st.cb_dropped++;
	}
	return 0;
}

static bool from_loopback(const struct orpc_req *r)
{
	const struct sockaddr_storage *a = &r->peer->addr;

	if (a->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24) == 127;
	if (a->ss_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)a)->sin6_addr);
	return false;
}

static bool cstr(const struct nlm_obj *o, char *buf, size_t cap)
{
	if (o->len >= cap || memchr(o->b, '\0', o->len))
		return false;
	memcpy(buf, o->b, o->len);
	buf[o->len] = '\0';
	return true;
}

static enum accept_stat m_null(struct orpc_req *r, void *a, void *res)
{
	(void)a, (void)res;
	return counted(r);
}

static enum accept_stat m_stat(struct orpc_req *r, void *a, void *res)
{
	struct nsm_stat_res *o = res;

	(void)a;
	o->res_stat = NSM_STAT_SUCC;
	o->state = server_of(r)->nsm_state;
	return counted(r);
}

static enum accept_stat m_mon(struct orpc_req *r, void *a, void *res)
{
	struct nsm_mon *m = a;
	struct nsm_stat_res *o = res;
	struct nlm_server *s = server_of(r);
	char name[256];
	int rc = -EPERM;

	o->state = s->nsm_state;
	o->res_stat = NSM_STAT_FAIL;
	if (from_loopback(r) && cstr(&m->mon_id.mon_name, name, sizeof(name)))
		rc = nsm_monitor(s, name, name, true);
	if (rc >= 0)
		o->res_stat = NSM_STAT_SUCC;
	counted(r);
	/* "monitored" once the list that names it is on disk */
	return rc == 1 && nsm_hold(s, r, a, res) ? ORPC_DEFER : SUCCESS;
}

static enum accept_stat m_unmon(struct orpc_req *r, void *a, void *res)
{
	struct nsm_mon_id *m = a;
	struct nsm_stat *o = res;
	struct nlm_server *s = server_of(r);
	char name[256];

	bool changed = false;

	o->state = s->nsm_state;
	if (from_loopback(r) && cstr(&m->mon_name, name, sizeof(name)))
		changed = unmonitor(s, name, false);
	counted(r);
	return changed && nsm_hold(s, r, a, res) ? ORPC_DEFER : SUCCESS;
}

static enum accept_stat m_unmon_all(struct orpc_req *r, void *a, void *res)
{
	struct nsm_stat *o = res;
	struct nlm_server *s = server_of(r);

	bool changed = false;

	o->state = s->nsm_state;
	if (from_loopback(r))
		changed = unmonitor(s, NULL, true);
	counted(r);
	return changed && nsm_hold(s, r, a, res) ? ORPC_DEFER : SUCCESS;
}

/* a client rebooted: its locks are gone with its processes */
static enum accept_stat m_notify(struct orpc_req *r, void *a, void *res)
{
	struct nsm_stat_chge *c = a;
	struct nlm_server *s = server_of(r);
	char peer[64];

	(void)res;
	nlm_free_host(s, (const char *)c->mon_name.b, c->mon_name.len);
	nlm_peer_str(r, peer, sizeof(peer));
	if (peer[0])
		nlm_free_host(s, peer, (uint32_t)strlen(peer));
	return counted(r);
}

#define ARGS(t) (xdrproc_t) xdr_##t, sizeof(struct t)
#define VOIDA (xdrproc_t) xdr_void, 0

static const struct orpc_proc nsm_procs[NSM_NPROCS] = {
	[NSM_PROC_NULL] = {"SM_NULL", VOIDA, VOIDA, m_null, false},
	[NSM_PROC_STAT] = {"SM_STAT", ARGS(nsm_name), ARGS(nsm_stat_res), m_stat, false},
	[NSM_PROC_MON] = {"SM_MON", ARGS(nsm_mon), ARGS(nsm_stat_res), m_mon, false},
	[NSM_PROC_UNMON] = {"SM_UNMON", ARGS(nsm_mon_id), ARGS(nsm_stat), m_unmon, false},
	[NSM_PROC_UNMON_ALL] = {"SM_UNMON_ALL", ARGS(nsm_my_id), ARGS(nsm_stat), m_unmon_all,
				false},
	[NSM_PROC_SIMU_CRASH] = {"SM_SIMU_CRASH", VOIDA, VOIDA, NULL, false},
	[NSM_PROC_NOTIFY] = {"SM_NOTIFY", ARGS(nsm_stat_chge), VOIDA, m_notify, false},
};

static const struct orpc_version nsm_versions[] = {{NSM_VERS, NSM_NPROCS, nsm_procs}};

const struct orpc_program nsm_program = {
	.prog = NSM_PROG,
	.name = "status",
	.nvers = 1,
	.vers = nsm_versions,
	.flavors = ORPC_FLAVOR_BIT(AUTH_NONE) | ORPC_FLAVOR_BIT(AUTH_SYS),
};
