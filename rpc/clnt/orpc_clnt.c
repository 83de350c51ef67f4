/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * orpc_clnt.c - the ONC RPC client over TCP (orpc_clnt.h): record marking (RFC 5531 §11), xid
 * matching, timeouts, retransmission and reconnection, all without blocking.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "orpc_clnt.h"

#define CALL_MAX (ORPC_RM_DEFAULT_MAX)

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int do_connect(struct orpc_clnt *c)
{
	const int one = 1;

	c->fd = socket(c->peer.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	/* calls are written whole: no Nagle wait for the server's delayed ACK behind a large
	 * call's tail (the Linux client's xs_tcp_finish_connecting() sets it too) */
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(c->fd, (struct sockaddr *)&c->peer, c->peer_len) != 0 && errno != EINPROGRESS) {
		int rc = -errno;

		close(c->fd);
		c->fd = -1;
		return rc;
	}
	c->connected = false; /* known once the socket is writable */
	return 0;
}

int orpc_clnt_init(struct orpc_clnt *c, const char *ip, uint16_t port, uint32_t timeout_ms,
		   uint32_t retries)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&c->peer;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&c->peer;
	int rc;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	if (inet_pton(AF_INET, ip, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		c->peer_len = sizeof(*s4);
	} else if (inet_pton(AF_INET6, ip, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		c->peer_len = sizeof(*s6);
	} else {
		return -EINVAL;
	}
	c->timeout_ms = timeout_ms ? timeout_ms : 2000;
	c->retries = retries;
	/* xids start at a time-derived value so that a restarted client's calls are not
	 * mistaken for its predecessor's by a server's duplicate request cache */
	c->next_xid = (uint32_t)now_ms() * 2654435761u;
	rc = orpc_rm_init(&c->rm, 0);
	if (rc)
		return rc;
	rc = do_connect(c);
	if (rc)
		orpc_rm_fini(&c->rm);
	return rc;
}

static int queue(struct orpc_clnt *c, const uint8_t *p, uint32_t n)
{
	uint8_t *q = realloc(c->out, c->out_len + n);

	if (!q)
		return -ENOMEM;
	memcpy(q + c->out_len, p, n);
	c->out = q;
	c->out_len += n;
	return 0;
}

static void flush(struct orpc_clnt *c)
{
	while (c->connected && c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n <= 0)
			return; /* EAGAIN, or a broken connection that recv will report */
		c->out_off += (uint32_t)n;
	}
	if (c->out_off == c->out_len) {
		free(c->out);
		c->out = NULL;
		c->out_len = c->out_off = 0;
	}
}

/* The connection broke: open a new one and resend every outstanding call on it. */
static void reconnect(struct orpc_clnt *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->connected = false;
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_off = 0;
	orpc_rm_fini(&c->rm);
	orpc_rm_init(&c->rm, 0);
	c->stats.reconnects++;
	if (do_connect(c) != 0)
		return; /* tried again at the next timeout */
	for (uint32_t i = 0; i < ORPC_CLNT_MAX_CALLS; i++)
		if (c->calls[i].used && queue(c, c->calls[i].msg, c->calls[i].len) == 0)
			c->stats.retransmits++;
}

static void finish(struct orpc_clnt *c, struct orpc_clnt_call *k, int err,
		   const struct orpc_reply_hdr *h, const uint8_t *res, uint32_t res_len)
{
	orpc_clnt_done_t done = k->done;
	void *ctx = k->ctx;

	free(k->msg);
	memset(k, 0, sizeof(*k));
	c->outstanding--;
	if (done)
		done(ctx, err, h, res, res_len);
}

int orpc_clnt_call(struct orpc_clnt *c, uint32_t prog, uint32_t vers, uint32_t proc,
		   const struct orpc_authsys *sys, xdrproc_t xargs, const void *args,
		   orpc_clnt_done_t done, void *ctx)
{
	struct orpc_clnt_call *k = NULL;
	uint32_t len;
	uint8_t *buf;
	XDR x;

	for (uint32_t i = 0; i < ORPC_CLNT_MAX_CALLS && !k; i++)
		if (!c->calls[i].used)
			k = &c->calls[i];
	if (!k)
		return -EBUSY;
	buf = malloc(CALL_MAX);
	if (!buf)
		return -ENOMEM;
	xdrmem_create(&x, (char *)buf + 4, CALL_MAX - 4, XDR_ENCODE);
	if (!orpc_call_encode(&x, c->next_xid, prog, vers, proc, sys) ||
	    (xargs && !xargs(&x, (void *)(uintptr_t)args, 0))) {
		xdr_destroy(&x);
		free(buf);
		return -E2BIG;
	}
	len = xdr_getpos(&x);
	xdr_destroy(&x);
	orpc_rm_mark(buf, len, true);
	k->used = true;
	k->xid = c->next_xid++;
	k->msg = buf;
	k->len = len + 4;
	k->deadline_ms = now_ms() + c->timeout_ms;
	k->done = done;
	k->ctx = ctx;
	c->outstanding++;
	c->stats.calls++;
	if (queue(c, k->msg, k->len) != 0) {
		finish(c, k, -ENOMEM, NULL, NULL, 0);
		return -ENOMEM;
	}
	flush(c);
	return 0;
}

static void handle_reply(struct orpc_clnt *c)
{
	struct orpc_reply_hdr h;
	uint32_t off;

	if (orpc_reply_decode(c->rm.rec, c->rm.rec_len, &h, &off) != 0) {
		c->stats.bad_replies++;
		return;
	}
	for (uint32_t i = 0; i < ORPC_CLNT_MAX_CALLS; i++) {
		if (c->calls[i].used && c->calls[i].xid == h.xid) {
			c->stats.replies++;
			finish(c, &c->calls[i], 0, &h, c->rm.rec + off, c->rm.rec_len - off);
			return;
		}
	}
	c->stats.stray_replies++; /* a late answer to a call already retransmitted or given up */
}

static int receive(struct orpc_clnt *c)
{
	uint8_t buf[65536];
	int replies = 0;

	for (;;) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
		uint32_t off = 0;

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return replies;
		if (n <= 0) {
			reconnect(c);
			return replies;
		}
		while (off < (uint32_t)n) {
			off += orpc_rm_feed(&c->rm, buf + off, (uint32_t)n - off);
			if (c->rm.state == ORPC_RM_RECORD) {
				handle_reply(c);
				orpc_rm_consume(&c->rm);
				replies++;
			} else if (c->rm.state != ORPC_RM_MARK && c->rm.state != ORPC_RM_FRAG) {
				c->stats.bad_replies++;
				reconnect(c);
				return replies;
			}
		}
	}
}

int orpc_clnt_poll(struct orpc_clnt *c)
{
	uint64_t now = now_ms();
	int replies = 0;

	if (c->fd >= 0 && !c->connected) {
		int err = 0;
		socklen_t el = sizeof(err);
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);

		if (getpeername(c->fd, (struct sockaddr *)&ss, &sl) == 0)
			c->connected = true;
		else if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err &&
			 err != EINPROGRESS) {
			close(c->fd);
			c->fd = -1;
		}
	}
	if (c->connected) {
		flush(c);
		replies = receive(c);
	}
	for (uint32_t i = 0; i < ORPC_CLNT_MAX_CALLS; i++) {
		struct orpc_clnt_call *k = &c->calls[i];

		if (!k->used || now < k->deadline_ms)
			continue;
		if (k->tries >= c->retries) {
			c->stats.timeouts++;
			finish(c, k, -ETIMEDOUT, NULL, NULL, 0);
			continue;
		}
		k->tries++;
		k->deadline_ms = now + c->timeout_ms;
		if (c->fd < 0 || !c->connected) {
			reconnect(c); /* resends everything outstanding */
		} else if (queue(c, k->msg, k->len) == 0) {
			c->stats.retransmits++;
			flush(c);
		}
	}
	return replies;
}

struct sync_ctx {
	bool done;
	int err;
	struct orpc_reply_hdr *h;
	xdrproc_t xres;
	void *res;
};

static void sync_done(void *ctx, int err, const struct orpc_reply_hdr *h, const uint8_t *res,
		      uint32_t res_len)
{
	struct sync_ctx *s = ctx;
	XDR x;

	s->done = true;
	s->err = err;
	if (err)
		return;
	*s->h = *h;
	if (h->denied || h->stat != SUCCESS || !s->xres)
		return;
	xdrmem_create(&x, (char *)(uintptr_t)res, res_len, XDR_DECODE);
	if (!s->xres(&x, s->res, 0))
		s->err = -EBADMSG;
	xdr_destroy(&x);
}

int orpc_clnt_call_sync(struct orpc_clnt *c, uint32_t prog, uint32_t vers, uint32_t proc,
			const struct orpc_authsys *sys, xdrproc_t xargs, const void *args,
			xdrproc_t xres, void *res, struct orpc_reply_hdr *h)
{
	struct sync_ctx s = {.h = h, .xres = xres, .res = res};
	struct timespec nap = {0, 50000};
	int rc = orpc_clnt_call(c, prog, vers, proc, sys, xargs, args, sync_done, &s);

	if (rc)
		return rc;
	while (!s.done) {
		if (orpc_clnt_poll(c) == 0 && !s.done)
			nanosleep(&nap, NULL);
	}
	return s.err;
}

void orpc_clnt_fini(struct orpc_clnt *c)
{
	for (uint32_t i = 0; i < ORPC_CLNT_MAX_CALLS; i++)
		if (c->calls[i].used)
			finish(c, &c->calls[i], -ECANCELED, NULL, NULL, 0);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->out);
	c->out = NULL;
	orpc_rm_fini(&c->rm);
}
