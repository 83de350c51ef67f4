/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * orpc_tcp.c - the ONC RPC server on kernel TCP/UDP sockets (orpc_tcp.h): accept, read,
 * reassemble records (RFC 5531 §11), dispatch, write back; all non-blocking, from one epoll set
 * polled with a zero timeout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "orpc_bc.h"
#include "orpc_tcp.h"

#define TAG_LISTEN (1ull << 32)
#define READ_CHUNK 65536u

struct orpc_tcp_conn;

/* A deferred call of a connection: its record, which its arguments point into. */
struct tcp_call {
	struct orpc_tcp_conn *c;
	uint8_t *rec; /* NULL: the record is still the reassembler's (rm_held) */
	bool used;
};

struct orpc_tcp_conn {
	int fd;
	struct orpc_peer peer;
	struct orpc_tcp_srv *srv;
	/* calls deferred and not yet answered: the connection reads on while there is room,
	 * and their replies go out as they end (RPC matches replies by xid, not order) */
	struct tcp_call calls[ORPC_TCP_CONN_CALLS];
	uint32_t ncalls;
	bool rm_held;	/* a deferred call's record is in rm (no memory to take it): wait */
	uint8_t *stash; /* bytes read after the record that filled calls[]: fed when one ends */
	uint32_t stash_len;
	bool dead; /* closed while calls were deferred: freed when the last one ends */
	uint32_t slot;
	struct orpc_rm rm;
	uint8_t *out; /* reply bytes the socket did not take yet */
	uint32_t out_len, out_off;
	/* backward calls sent on this connection, waiting for their replies (orpc_bc.h) */
	struct tcp_bc {
		bool used;
		uint32_t xid; /* network order */
		orpc_bc_done_t done;
		void *ctx;
	} bc[ORPC_TCP_BC_CALLS];
};

int orpc_tcp_srv_init(struct orpc_tcp_srv *s, struct orpc_svc *svc, uint32_t max_record)
{
	memset(s, 0, sizeof(*s));
	s->svc = svc;
	s->max_record = max_record ? max_record : ORPC_RM_DEFAULT_MAX;
	/* a reply can be as large as the largest record, plus its mark */
	s->reply_cap = s->max_record + 4;
	s->reply = malloc(s->reply_cap);
	if (!s->reply)
		return -ENOMEM;
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0) {
		free(s->reply);
		return -errno;
	}
	return 0;
}

static int parse_addr(const char *ip, uint16_t port, struct sockaddr_storage *ss, socklen_t *sl)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, ip, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		*sl = sizeof(*s4);
		return 0;
	}
	if (inet_pton(AF_INET6, ip, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*sl = sizeof(*s6);
		return 0;
	}
	return -EINVAL;
}

int orpc_tcp_srv_listen(struct orpc_tcp_srv *s, const char *ip, uint16_t port, int udp,
			uint16_t *port_out)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, one = 1, rc;

	if (s->nfds == ORPC_TCP_MAX_LISTEN)
		return -ENOSPC;
	rc = parse_addr(ip, port, &ss, &sl);
	if (rc)
		return rc;
	fd = socket(ss.ss_family, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) != 0 || (!udp && listen(fd, 128) != 0))
		goto fail;
	if (port_out) {
		sl = sizeof(ss);
		if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0)
			goto fail;
		*port_out =
			ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
						      : ((struct sockaddr_in6 *)&ss)->sin6_port);
	}
	ev.data.u64 = TAG_LISTEN | s->nfds;
	if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) != 0)
		goto fail;
	s->fd_udp[s->nfds] = (uint8_t)(udp != 0);
	s->fds[s->nfds++] = fd;
	return 0;
fail:
	rc = -errno;
	close(fd);
	return rc;
}

/* No more calls are read until a deferred one ends. */
static bool paused(const struct orpc_tcp_conn *c)
{
	return c->ncalls == ORPC_TCP_CONN_CALLS || c->rm_held || c->stash;
}

/* What the connection waits for: its queued reply bytes to go (nothing is read meanwhile),
 * else more calls, unless paused. */
static void set_events(struct orpc_tcp_srv *s, struct orpc_tcp_conn *c)
{
	struct epoll_event ev = {.data.u64 = c->slot};

	ev.events = c->out ? EPOLLOUT : paused(c) ? 0 : EPOLLIN;
	epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

static void conn_free(struct orpc_tcp_conn *c)
{
	orpc_rm_fini(&c->rm);
	free(c->out);
	free(c->stash);
	free(c);
}

static void conn_close(struct orpc_tcp_srv *s, struct orpc_tcp_conn *c, uint64_t *why)
{
	struct tcp_bc gone[ORPC_TCP_BC_CALLS];

	(*why)++;
	s->stats.closed++;
	/* the backchannel goes with the connection: its id is stale from now on, and the
	 * backward calls still waiting end -ENOTCONN once the connection is put away */
	if (s->svc->bc)
		orpc_bc_unregister(s->svc->bc, c->peer.bc_id);
	c->peer.bc_id = 0;
	memcpy(gone, c->bc, sizeof(gone));
	memset(c->bc, 0, sizeof(c->bc));
	epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	s->conns[c->slot] = NULL;
	if (c->ncalls)
		c->dead = true; /* deferred calls still read their records: free it at their end */
	else
		conn_free(c);
	for (uint32_t i = 0; i < ORPC_TCP_BC_CALLS; i++) {
		if (!gone[i].used)
			continue;
		s->stats.bc_notconn++;
		if (gone[i].done)
			gone[i].done(gone[i].ctx, -ENOTCONN, NULL, 0);
	}
}

static int tcp_bc_call(void *conn, const uint8_t *msg, uint32_t len, orpc_bc_done_t done,
		       void *ctx);
static int tcp_bc_cancel(void *conn, uint32_t xid);

static const struct orpc_bc_ops tcp_bc_ops = {
	.call = tcp_bc_call, .cancel = tcp_bc_cancel, .name = "tcp"};

static void do_accept(struct orpc_tcp_srv *s, int lfd)
{
	for (;;) {
		struct epoll_event ev = {.events = EPOLLIN};
		struct orpc_tcp_conn *c;
		uint32_t slot;
		struct sockaddr_storage sa;
		socklen_t sl = sizeof(sa);
		int fd = accept4(lfd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		const int one = 1;

		if (fd < 0)
			return;
		for (slot = 0; slot < ORPC_TCP_MAX_CONNS && s->conns[slot]; slot++)
			;
		c = slot < ORPC_TCP_MAX_CONNS ? calloc(1, sizeof(*c)) : NULL;
		if (!c || orpc_rm_init(&c->rm, s->max_record) != 0) {
			free(c);
			close(fd);
			s->stats.refused_full++;
			continue;
		}
		/* a reply is written whole, one send: Nagle would only hold its tail back until
		 * the client's delayed ACK (40-200 ms on Linux) once a large reply is written in
		 * parts (knfsd's svc_tcp_init() sets it too) */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c->fd = fd;
		c->srv = s;
		c->peer.xprt = ORPC_XPRT_TCP;
		memcpy(&c->peer.addr, &sa, sizeof(sa));
		c->slot = slot;
		ev.data.u64 = slot;
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
			orpc_rm_fini(&c->rm);
			free(c);
			close(fd);
			s->stats.refused_full++;
			continue;
		}
		s->conns[slot] = c;
		s->stats.accepted++;
		if (s->svc->bc) /* 0 when the table is full: no backchannel then */
			c->peer.bc_id = orpc_bc_register(s->svc->bc, &tcp_bc_ops, c);
	}
}

/* Write what is queued; 0 when all is out, 1 when the socket is full, -1 on error. */
static int flush_out(struct orpc_tcp_srv *s, struct orpc_tcp_conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			set_events(s, c); /* stop reading until the reply is out */
			return 1;
		}
		if (n <= 0)
			return -1;
		c->out_off += (uint32_t)n;
	}
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = 0;
	set_events(s, c);
	return 0;
}

/* Queue bytes behind what is already waiting (a reply's bytes are never interleaved). */
static int queue_out(struct orpc_tcp_conn *c, const uint8_t *p, uint32_t n)
{
	uint8_t *q = realloc(c->out, c->out_len + n);

	if (!q)
		return -1;
	memcpy(q + c->out_len, p, n);
	c->out = q;
	c->out_len += n;
	return 0;
}

/* Send a reply of n bytes at s->reply + 4; what the socket does not take is queued. */
static int send_reply(struct orpc_tcp_srv *s, struct orpc_tcp_conn *c, uint32_t n)
{
	ssize_t w = 0;

	orpc_rm_mark(s->reply, n, true);
	n += 4;
	s->stats.replies++;
	if (!c->out) {
		w = send(c->fd, s->reply, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		if (w < 0)
			w = 0;
		if ((uint32_t)w == n)
			return 0;
	}
	s->stats.out_queued++;
	if (queue_out(c, s->reply + w, n - (uint32_t)w) != 0)
		return -1;
	return flush_out(s, c) < 0 ? -1 : 0;
}

static void tcp_resume(struct orpc_pending *p, void *arg);

/* The RPC direction word of a message: 0 CALL, 1 REPLY, -1 neither (or too short). */
static int msg_direction(const uint8_t *m, uint32_t len)
{
	if (len < 8)
		return -1;
	return m[4] == 0 && m[5] == 0 && m[6] == 0 && m[7] <= 1 ? m[7] : -1;
}

/* A backward call (orpc_bc_ops.call): one record, queued behind whatever is waiting to go
 * out, so it never lands inside a reply's bytes; sent now if nothing is. */
static int tcp_bc_call(void *conn, const uint8_t *msg, uint32_t len, orpc_bc_done_t done, void *ctx)
{
	struct orpc_tcp_conn *c = conn;
	struct orpc_tcp_srv *s = c->srv;
	struct tcp_bc *b = NULL;
	uint8_t mark[4];
	bool idle = !c->out;
	uint32_t had = c->out_len;

	if (c->fd < 0 || c->dead)
		return -ENOTCONN;
	if (msg_direction(msg, len) != 0)
		return -EINVAL;
	if (len > 0x7fffffffu - 4)
		return -E2BIG; /* one fragment holds it */
	for (uint32_t i = 0; i < ORPC_TCP_BC_CALLS && !b; i++)
		if (!c->bc[i].used)
			b = &c->bc[i];
	if (!b)
		return -EBUSY;
	orpc_rm_mark(mark, len, true);
	if (queue_out(c, mark, 4) != 0 || queue_out(c, msg, len) != 0) {
		/* no part of it may stay queued: cut back to what was there */
		c->out_len = had;
		if (idle) {
			free(c->out);
			c->out = NULL;
		}
		return -ENOMEM;
	}
	b->used = true;
	memcpy(&b->xid, msg, 4);
	b->done = done;
	b->ctx = ctx;
	s->stats.bc_calls++;
	/* a send error shows at the next poll (EPOLLERR), which closes the connection and
	 * ends this call -ENOTCONN */
	if (idle)
		flush_out(s, c);
	else
		set_events(s, c);
	return 0;
}

/* The upper layer gave up on a backward call: its reply, if it comes, is a stray. */
static int tcp_bc_cancel(void *conn, uint32_t xid)
{
	struct orpc_tcp_conn *c = conn;

	for (uint32_t i = 0; i < ORPC_TCP_BC_CALLS; i++) {
		if (c->bc[i].used && c->bc[i].xid == xid) {
			memset(&c->bc[i], 0, sizeof(c->bc[i]));
			return 0;
		}
	}
	return -ENOENT;
}

/* A REPLY record: the answer to one of this connection's backward calls, or a stray. */
static void bc_reply(struct orpc_tcp_srv *s, struct orpc_tcp_conn *c, const uint8_t *m,
		     uint32_t len)
{
	uint32_t xid;

	memcpy(&xid, m, 4);
	for (uint32_t i = 0; i < ORPC_TCP_BC_CALLS; i++) {
		if (c->bc[i].used && c->bc[i].xid == xid) {
			orpc_bc_done_t done = c->bc[i].done;
			void *ctx = c->bc[i].ctx;

			c->bc[i].used = false;
			s->stats.bc_replies++;
			if (done)
				done(ctx, 0, m, len);
			return;
		}
	}
	s->stats.bc_stray++;
}

/* A record is complete: dispatch it. -1: the connection was closed; 1: the call was deferred
 * and the connection is paused (ORPC_TCP_CONN_CALLS deferred); 0: go on. */
static int handle_record(struct orpc_tcp_srv *s, struct orpc_tcp_conn *c)
{
	enum orpc_outcome o;
	uint32_t n;

	s->stats.records++;
	if (s->svc->bc && msg_direction(c->rm.rec, c->rm.rec_len) == 1) {
		bc_reply(s, c, c->rm.rec, c->rm.rec_len);
		orpc_rm_consume(&c->rm);
		return 0;
	}
	n = orpc_svc_dispatch_peer(s->svc, c->rm.rec, c->rm.rec_len, c, &c->peer, s->reply + 4,
				   s->reply_cap - 4, &o);
	if (o == ORPC_OUT_DEFERRED) {
		struct tcp_call *k = NULL;

		/* reading stops at ORPC_TCP_CONN_CALLS: there is a free one */
		for (uint32_t i = 0; i < ORPC_TCP_CONN_CALLS && !k; i++)
			if (!c->calls[i].used)
				k = &c->calls[i];
		k->used = true;
		k->c = c;
		/* the record goes with the call; without memory for a new one, the reassembler
		 * keeps it and the connection waits for this call (as with one call at a time) */
		k->rec = orpc_rm_take(&c->rm);
		c->rm_held = !k->rec;
		c->ncalls++;
		orpc_svc_take_deferred(s->svc, tcp_resume, k);
		s->stats.deferred++;
		if (c->ncalls > s->stats.max_calls_at_once)
			s->stats.max_calls_at_once = c->ncalls;
		if (!paused(c))
			return 0;
		set_events(s, c); /* nothing is read until one ends */
		return 1;
	}
	orpc_rm_consume(&c->rm);
	if (o == ORPC_OUT_DROP) {
		conn_close(s, c, &s->stats.closed_garbage);
		return -1;
	}
	if (n && send_reply(s, c, n) != 0) {
		conn_close(s, c, &s->stats.closed_error);
		return -1;
	}
	return 0;
}

/* Feed bytes into the record marking, dispatching each record. -1: closed; 1: paused by a
 * deferred call (the bytes after its record wait in the stash); 0: all taken. */
static int feed(struct orpc_tcp_srv *s, struct orpc_tcp_conn *c, const uint8_t *buf, uint32_t n)
{
	uint32_t off = 0;
	int rc;

	while (off < n) {
		off += orpc_rm_feed(&c->rm, buf + off, n - off);
		switch (c->rm.state) {
		case ORPC_RM_RECORD:
			rc = handle_record(s, c);
			if (rc < 0)
				return -1;
			if (rc > 0) {
				uint8_t *q = off < n ? malloc(n - off) : NULL;

				if (off < n && !q) {
					/* the deferred calls keep the connection until they end */
					conn_close(s, c, &s->stats.closed_error);
					return -1;
				}
				if (q)
					memcpy(q, buf + off, n - off);
				c->stash = q;
				c->stash_len = n - off;
				set_events(s, c);
				return 1;
			}
			break;
		case ORPC_RM_TOO_BIG:
			conn_close(s, c, &s->stats.closed_too_big);
			return -1;
		case ORPC_RM_EMPTY:
			conn_close(s, c, &s->stats.closed_empty);
			return -1;
		default:
			break;
		}
	}
	return 0;
}

/* A deferred call ended: send its reply; when it held the connection up, go on with what was
 * read after it. */
static void tcp_resume(struct orpc_pending *p, void *arg)
{
	struct tcp_call *k = arg;
	struct orpc_tcp_conn *c = k->c;
	struct orpc_tcp_srv *s = c->srv;
	uint8_t *stash;
	uint32_t n, len;
	int rc;

	n = orpc_svc_finish(s->svc, p, c->dead ? NULL : s->reply + 4,
			    c->dead ? 0 : s->reply_cap - 4, NULL);
	if (k->rec) {
		free(k->rec);
	} else {
		orpc_rm_consume(&c->rm); /* the record was still the reassembler's */
		c->rm_held = false;
	}
	k->rec = NULL;
	k->used = false;
	c->ncalls--;
	if (c->dead) {
		if (!c->ncalls)
			conn_free(c);
		return;
	}
	if (n && send_reply(s, c, n) != 0) {
		conn_close(s, c, &s->stats.closed_error);
		return;
	}
	if (c->stash && c->ncalls < ORPC_TCP_CONN_CALLS && !c->rm_held) {
		stash = c->stash;
		len = c->stash_len;
		c->stash = NULL;
		c->stash_len = 0;
		rc = feed(s, c, stash, len);
		free(stash);
		if (rc < 0)
			return;
	}
	set_events(s, c);
}

static void do_read(struct orpc_tcp_srv *s, struct orpc_tcp_conn *c)
{
	uint8_t buf[READ_CHUNK];

	for (int rounds = 0; rounds < 16 && !c->out && !paused(c); rounds++) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			conn_close(s, c, n == 0 ? &s->stats.closed_peer : &s->stats.closed_error);
			return;
		}
		if (feed(s, c, buf, (uint32_t)n) != 0)
			return;
	}
}

/* The most a UDP reply may hold: the reply buffer, at most a datagram's IPv4 payload. */
static uint32_t udp_reply_cap(const struct orpc_tcp_srv *s)
{
	return s->reply_cap - 4 < 65507 ? s->reply_cap - 4 : 65507;
}

/* A deferred UDP call ended: its reply goes to the address it came from, and its datagram and
 * slot are free again. After orpc_tcp_srv_fini only the slot is freed (the socket is gone). */
static void udp_resume(struct orpc_pending *p, void *arg)
{
	struct orpc_udp_call *k = arg;
	struct orpc_tcp_srv *s = k->s;
	uint32_t n = orpc_svc_finish(s->svc, p, s->reply, s->reply ? udp_reply_cap(s) : 0, NULL);

	if (!s->reply)
		s->stats.udp_late_dropped++;
	else if (n && sendto(k->fd, s->reply, n, MSG_DONTWAIT, (struct sockaddr *)&k->peer,
			     k->pl) == (ssize_t)n)
		s->stats.udp_replies++;
	free(k->msg);
	k->msg = NULL;
	k->used = false;
	s->udp_ncalls--;
}

static struct orpc_udp_call *udp_free_slot(struct orpc_tcp_srv *s)
{
	for (uint32_t i = 0; i < ORPC_UDP_CALLS; i++)
		if (!s->udp[i].used)
			return &s->udp[i];
	return NULL;
}

/* Datagrams: each is dispatched, and answered at once or, when its handler defers it (a free
 * slot lets it: orpc_peer.defer_ok), when it ends. A deferred call keeps the buffer it was
 * read into, since its arguments point into it; the next datagram gets a new one. */
static void do_udp(struct orpc_tcp_srv *s, int fd)
{
	for (int rounds = 0; rounds < 32; rounds++) {
		struct sockaddr_storage peer;
		socklen_t pl = sizeof(peer);
		uint32_t cap = udp_reply_cap(s);
		struct orpc_peer from = {.xprt = ORPC_XPRT_UDP};
		struct orpc_udp_call *k;
		enum orpc_outcome o;
		ssize_t n;
		uint32_t r;

		if (!s->udp_in && !(s->udp_in = malloc(ORPC_UDP_MAX)))
			return; /* the datagrams wait in the socket */
		n = recvfrom(fd, s->udp_in, ORPC_UDP_MAX, MSG_DONTWAIT, (struct sockaddr *)&peer,
			     &pl);
		if (n <= 0)
			return;
		s->stats.udp_calls++;
		memcpy(&from.addr, &peer, sizeof(peer));
		/* a draining server (orpc_tcp_srv_quiesce) takes no new work off the loop: the drain
		 * waits only for what it holds already */
		k = s->quiesced ? NULL : udp_free_slot(s);
		from.defer_ok = k != NULL;
		if (!k && !s->quiesced)
			s->stats.udp_no_slot++;
		r = orpc_svc_dispatch_peer(s->svc, s->udp_in, (uint32_t)n, NULL, &from, s->reply,
					   cap, &o);
		if (o == ORPC_OUT_DEFERRED && k) {
			k->s = s;
			k->fd = fd;
			k->pl = pl;
			memcpy(&k->peer, &peer, sizeof(peer));
			k->msg = s->udp_in;
			k->used = true;
			s->udp_in = NULL;
			s->udp_ncalls++;
			s->stats.udp_deferred++;
			orpc_svc_take_deferred(s->svc, udp_resume, k);
			continue;
		}
		if (r && sendto(fd, s->reply, r, MSG_DONTWAIT, (struct sockaddr *)&peer, pl) ==
				 (ssize_t)r)
			s->stats.udp_replies++;
	}
}

int orpc_tcp_srv_poll(struct orpc_tcp_srv *s)
{
	struct epoll_event evs[32];
	int n = epoll_wait(s->ep, evs, 32, 0);

	for (int i = 0; i < n; i++) {
		uint64_t tag = evs[i].data.u64;
		struct orpc_tcp_conn *c;

		if (tag & TAG_LISTEN) {
			uint32_t k = (uint32_t)tag;

			if (s->fd_udp[k])
				do_udp(s, s->fds[k]);
			else
				do_accept(s, s->fds[k]);
			continue;
		}
		c = s->conns[tag];
		if (!c)
			continue;
		if (c->out) {
			if (flush_out(s, c) < 0) {
				conn_close(s, c, &s->stats.closed_error);
				continue;
			}
			if (c->out)
				continue;
		}
		if (!s->quiesced && !paused(c))
			do_read(s, c);
	}
	return n > 0 ? n : 0;
}

void orpc_tcp_srv_quiesce(struct orpc_tcp_srv *s)
{
	s->quiesced = true;
	for (uint32_t i = 0; i < s->nfds; i++) {
		if (s->fds[i] >= 0 && !s->fd_udp[i]) {
			close(s->fds[i]); /* leaves the epoll set with it */
			s->fds[i] = -1;
		}
	}
}

uint32_t orpc_tcp_srv_peers(const struct orpc_tcp_srv *s, struct orpc_peer *out, uint32_t cap)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < ORPC_TCP_MAX_CONNS && n < cap; i++)
		if (s->conns[i] && !s->conns[i]->dead)
			out[n++] = s->conns[i]->peer;
	return n;
}

uint32_t orpc_tcp_srv_nconns(const struct orpc_tcp_srv *s)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < ORPC_TCP_MAX_CONNS; i++)
		n += s->conns[i] != NULL;
	return n;
}

void orpc_tcp_srv_fini(struct orpc_tcp_srv *s)
{
	uint64_t dummy = 0;

	for (uint32_t i = 0; i < ORPC_TCP_MAX_CONNS; i++)
		if (s->conns[i])
			conn_close(s, s->conns[i],
				   &dummy); /* one with a deferred call goes at its end */
	for (uint32_t i = 0; i < s->nfds; i++)
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	if (s->ep >= 0)
		close(s->ep);
	s->ep = -1;
	free(s->reply);
	s->reply = NULL;
	free(s->udp_in);
	s->udp_in = NULL;
	s->nfds = 0;
}
