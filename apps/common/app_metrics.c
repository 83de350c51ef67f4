/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_metrics.c - the HTTP side of /metrics (RFC 9112 message syntax, as little of it as a
 * scraper needs): each connection reads one request head (up to the blank line), is answered
 * with "Connection: close" and a Content-Length, and is closed once the answer is written.
 * Everything goes through one epoll set tagged by connection slot; writes use MSG_DONTWAIT,
 * and what the socket does not take waits for EPOLLOUT.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "app_metrics.h"

#define TAG_LISTEN UINT64_MAX

struct mconn {
	int fd;			       /* -1: a free slot */
	char req[APP_METRICS_MAX_REQ]; /* the request head so far */
	size_t rlen;
	struct app_buf out; /* the answer, once the head is complete */
	size_t off;	    /* bytes of out written */
	uint64_t last_ms;   /* the last progress */
};

struct app_metrics {
	int lfd, ep;
	app_metrics_write_t fn;
	void *arg;
	uint32_t nconns;
	struct mconn conns[APP_METRICS_MAX_CONNS];
	struct app_metrics_stats st;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int app_metrics_parse_addr(const char *ipport, void *sa, size_t *salen)
{
	const char *colon = strrchr(ipport, ':');
	char host[64], *end;
	bool bracketed;
	size_t hl;
	long port;

	if (!colon || colon == ipport)
		return -EINVAL;
	port = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || port < 0 || port > 65535)
		return -EINVAL;
	hl = (size_t)(colon - ipport);
	bracketed = ipport[0] == '[';
	if (bracketed) {
		if (hl < 3 || ipport[hl - 1] != ']')
			return -EINVAL;
		ipport++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, ipport, hl);
	host[hl] = 0;
	if (!bracketed != !strchr(host, ':'))
		return -EINVAL; /* IPv6 only in brackets, and only IPv6 */
	if (!bracketed) {
		struct sockaddr_in *in = sa;

		memset(in, 0, sizeof(*in));
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		*salen = sizeof(*in);
		return inet_pton(AF_INET, host, &in->sin_addr) == 1 ? 0 : -EINVAL;
	}
	struct sockaddr_in6 *in6 = sa;

	memset(in6, 0, sizeof(*in6));
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons((uint16_t)port);
	*salen = sizeof(*in6);
	return inet_pton(AF_INET6, host, &in6->sin6_addr) == 1 ? 0 : -EINVAL;
}

struct app_metrics *app_metrics_open(const char *ipport, app_metrics_write_t fn, void *arg,
				     char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	size_t sl = sizeof(ss);
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = TAG_LISTEN};
	struct app_metrics *m;
	int one = 1, e;

	if (app_metrics_parse_addr(ipport, &ss, &sl) != 0) {
		snprintf(err, errlen, "--metrics %s: give IP:PORT (IPv4, or [IPv6]:PORT)", ipport);
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->fn = fn;
	m->arg = arg;
	for (uint32_t k = 0; k < APP_METRICS_MAX_CONNS; k++)
		m->conns[k].fd = -1;
	m->ep = epoll_create1(EPOLL_CLOEXEC);
	m->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (m->ep < 0 || m->lfd < 0)
		goto fail;
	setsockopt(m->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(m->lfd, (struct sockaddr *)&ss, (socklen_t)sl) != 0 || listen(m->lfd, 16) != 0 ||
	    epoll_ctl(m->ep, EPOLL_CTL_ADD, m->lfd, &ev) != 0)
		goto fail;
	return m;
fail:
	e = errno;
	snprintf(err, errlen, "cannot listen for metrics at %s: %s", ipport, strerror(e));
	if (m->lfd >= 0)
		close(m->lfd);
	if (m->ep >= 0)
		close(m->ep);
	free(m);
	errno = e;
	return NULL;
}

uint16_t app_metrics_port(const struct app_metrics *m)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getsockname(m->lfd, (struct sockaddr *)&ss, &sl) != 0)
		return 0;
	return ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
					     : ((struct sockaddr_in6 *)&ss)->sin6_port);
}

int app_metrics_fd(const struct app_metrics *m)
{
	return m->ep;
}

const struct app_metrics_stats *app_metrics_stats(const struct app_metrics *m)
{
	return &m->st;
}

static void conn_close(struct app_metrics *m, struct mconn *c)
{
	char sink[4096];

	/* what the peer sent past its head (an over-long one) would make close() send a reset,
	 * which may cost the peer our answer: read it away first, a bounded amount */
	for (int i = 0; i < 16 && recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++)
		;
	close(c->fd); /* leaves the epoll set with it */
	c->fd = -1;
	app_buf_free(&c->out);
	m->nconns--;
}

static void do_accept(struct app_metrics *m)
{
	/* take what is queued, so the listener does not stay readable; over the bound, close */
	for (int i = 0; i < 16; i++) {
		int fd = accept4(m->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		uint32_t k;

		if (fd < 0)
			return;
		for (k = 0; k < APP_METRICS_MAX_CONNS && m->conns[k].fd >= 0; k++)
			;
		struct epoll_event ev = {.events = EPOLLIN, .data.u64 = k};

		if (k == APP_METRICS_MAX_CONNS || epoll_ctl(m->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
			close(fd);
			m->st.refused++;
			continue;
		}
		m->conns[k].fd = fd;
		m->conns[k].rlen = 0;
		m->conns[k].off = 0;
		m->conns[k].last_ms = now_ms();
		m->nconns++;
		m->st.accepted++;
	}
}

/* Write what the socket takes. @return 1 when all is written, 0 when more waits, -1 on error */
static int flush(struct mconn *c)
{
	while (c->off < c->out.len) {
		ssize_t n = send(c->fd, c->out.p + c->off, c->out.len - c->off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
		c->off += (size_t)n;
	}
	return 1;
}

static void answer(struct app_metrics *m, struct mconn *c, int code, const char *reason,
		   const char *extra)
{
	struct app_buf body = {0};

	if (code == 200)
		m->fn(&body, m->arg);
	else
		app_buf_printf(&body, "%d %s\n", code, reason);
	if (body.failed) {
		app_buf_free(&body);
		code = 500;
		reason = "Internal Server Error";
		app_buf_printf(&body, "500 out of memory\n");
	}
	app_buf_printf(&c->out,
		       "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
		       "Connection: close\r\n\r\n",
		       code, reason,
		       code == 200 ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain",
		       body.len, extra ? extra : "");
	if (body.len)
		app_buf_printf(&c->out, "%s", body.p);
	app_buf_free(&body);
}

/* The head is complete (or too long): judge its request line and queue the answer. */
static void judge(struct app_metrics *m, struct mconn *c, bool too_long)
{
	char method[16], target[256], version[16];

	c->req[c->rlen] = 0;
	if (too_long || memchr(c->req, 0, c->rlen) ||
	    sscanf(c->req, "%15s %255s %15s", method, target, version) != 3 ||
	    strncmp(version, "HTTP/1.", 7) != 0) {
		m->st.bad_request++;
		answer(m, c, 400, "Bad Request", NULL);
	} else if (strcmp(method, "GET") != 0) {
		m->st.bad_method++;
		answer(m, c, 405, "Method Not Allowed", "Allow: GET\r\n");
	} else if (strcmp(target, "/metrics") != 0 && strncmp(target, "/metrics?", 9) != 0) {
		m->st.not_found++;
		answer(m, c, 404, "Not Found", NULL);
	} else {
		m->st.scrapes++;
		answer(m, c, 200, "OK", NULL);
	}
}

static void do_conn(struct app_metrics *m, struct mconn *c)
{
	struct epoll_event ev = {.events = EPOLLOUT, .data.u64 = (uint64_t)(c - m->conns)};
	bool complete;
	int rc;

	if (!c->out.len) {
		ssize_t n =
			recv(c->fd, c->req + c->rlen, sizeof(c->req) - 1 - c->rlen, MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (n <= 0) { /* the peer left before its request was whole */
			conn_close(m, c);
			return;
		}
		c->rlen += (size_t)n;
		c->last_ms = now_ms();
		/* the head ends at a blank line; a NUL in it is never HTTP, judge it at once */
		complete = memmem(c->req, c->rlen, "\r\n\r\n", 4) ||
			   memmem(c->req, c->rlen, "\n\n", 2);
		if (!complete && !memchr(c->req, 0, c->rlen) && c->rlen < sizeof(c->req) - 1)
			return;
		judge(m, c, !complete);
		if (c->out.failed) {
			conn_close(m, c);
			return;
		}
	}
	rc = flush(c);
	if (rc != 0) { /* all written, or the peer is gone */
		conn_close(m, c);
		return;
	}
	c->last_ms = now_ms();
	epoll_ctl(m->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

uint32_t app_metrics_poll(struct app_metrics *m)
{
	struct epoll_event evs[APP_METRICS_MAX_CONNS + 1];
	int n = epoll_wait(m->ep, evs, APP_METRICS_MAX_CONNS + 1, 0);

	for (int i = 0; i < n; i++) {
		uint64_t tag = evs[i].data.u64;

		if (tag == TAG_LISTEN)
			do_accept(m);
		else if (tag < APP_METRICS_MAX_CONNS && m->conns[tag].fd >= 0)
			do_conn(m, &m->conns[tag]);
	}
	if (m->nconns) {
		uint64_t now = now_ms();

		for (uint32_t k = 0; k < APP_METRICS_MAX_CONNS; k++) {
			struct mconn *c = &m->conns[k];

			if (c->fd >= 0 && now - c->last_ms > APP_METRICS_IDLE_S * 1000u) {
				m->st.idle_drops++;
				conn_close(m, c);
			}
		}
	}
	return m->nconns;
}

void app_metrics_close(struct app_metrics *m)
{
	if (!m)
		return;
	for (uint32_t k = 0; k < APP_METRICS_MAX_CONNS; k++)
		if (m->conns[k].fd >= 0)
			conn_close(m, &m->conns[k]);
	close(m->lfd);
	close(m->ep);
	free(m);
}
