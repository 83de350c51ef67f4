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
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int hosts_save(struct nlm_server *s)
{
	static char buf[NSM_MAX_HOSTS * (64 + 256 + 2)];
	size_t n = 0;

	for (uint32_t i = 0; i < s->nhosts; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s\t%s%s\n", s->hosts[i].addr,
				      s->hosts[i].by_mon ? "+" : "", s->hosts[i].name);
	return nfs_state_write(nfs_fs_state_dir(s->fs), NSM_HOSTS_FILE, buf, n);
}

/* "address<TAB>[+]name" lines ('+': added by SM_MON); bad lines are skipped */
static void hosts_load(struct nlm_server *s)
{
	static char buf[NSM_MAX_HOSTS * (64 + 256 + 2) + 1];
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
	return hosts_save(s);
}

static void unmonitor(struct nlm_server *s, const char *name, bool all_by_mon)
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
		hosts_save(s);
}

/* an SM_NOTIFY we sent was answered: that host knows; it leaves the list */
void nsm_notified(struct nlm_server *s, const char *addr)
{
	for (uint32_t i = 0; i < s->nhosts; i++)
		if (!strcmp(s->hosts[i].addr, addr)) {
			s->hosts[i] = s->hosts[--s->nhosts];
			hosts_save(s);
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

	o->state = s->nsm_state;
	o->res_stat = NSM_STAT_FAIL;
	if (from_loopback(r) && cstr(&m->mon_id.mon_name, name, sizeof(name)) &&
	    nsm_monitor(s, name, name, true) == 0)
		o->res_stat = NSM_STAT_SUCC;
	return counted(r);
}

static enum accept_stat m_unmon(struct orpc_req *r, void *a, void *res)
{
	struct nsm_mon_id *m = a;
	struct nsm_stat *o = res;
	struct nlm_server *s = server_of(r);
	char name[256];

	o->state = s->nsm_state;
	if (from_loopback(r) && cstr(&m->mon_name, name, sizeof(name)))
		unmonitor(s, name, false);
	return counted(r);
}

static enum accept_stat m_unmon_all(struct orpc_req *r, void *a, void *res)
{
	struct nsm_stat *o = res;
	struct nlm_server *s = server_of(r);

	(void)a;
	o->state = s->nsm_state;
	if (from_loopback(r))
		unmonitor(s, NULL, true);
	return counted(r);
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
