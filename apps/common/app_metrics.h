/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_metrics.h - a small HTTP server for Prometheus' scrapes: GET /metrics answers 200 with
 * the text an application's callback writes (app_prom.h), any other path 404, any other
 * method 405, a request that is not HTTP 400. One request per connection, then close.
 *
 * It uses the kernel's sockets and never blocks: a non-blocking listener and connections in
 * an epoll set of its own, whose descriptor (app_metrics_fd) an application that sleeps in
 * epoll adds to its own set; app_metrics_poll does what is ready, from the application's
 * loop. Bounded: APP_METRICS_MAX_CONNS connections (more are accepted and closed at once),
 * APP_METRICS_MAX_REQ bytes of request head, and a connection that makes no progress for
 * APP_METRICS_IDLE_S seconds is dropped (a slow reader cannot hold its slot).
 */
#ifndef APP_METRICS_H
#define APP_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "app_prom.h"

#define APP_METRICS_MAX_CONNS 8u
#define APP_METRICS_MAX_REQ 4096u
#define APP_METRICS_IDLE_S 5u
#define APP_METRICS_DEFAULT_PORT 9464u /**< droce-nfsstat's default; the exporters' range */

/** Writes the metrics' text into @p b (on the thread that calls app_metrics_poll). */
typedef void (*app_metrics_write_t)(struct app_buf *b, void *arg);

struct app_metrics_stats {
	uint64_t accepted;    /**< connections taken */
	uint64_t refused;     /**< connections closed at once: every slot busy */
	uint64_t scrapes;     /**< 200 answers to GET /metrics */
	uint64_t not_found;   /**< 404 */
	uint64_t bad_method;  /**< 405 */
	uint64_t bad_request; /**< 400 (not HTTP, or a request head over APP_METRICS_MAX_REQ) */
	uint64_t idle_drops;  /**< connections dropped after APP_METRICS_IDLE_S without progress */
};

struct app_metrics;

/**
 * Parse "IP:PORT" (IPv4, or "[IPv6]:PORT"; port 0 lets the kernel pick) into a socket address.
 * @return 0, or -EINVAL
 */
int app_metrics_parse_addr(const char *ipport, void *sa, size_t *salen);

/**
 * Listen on @p ipport for scrapes answered by @p fn.
 * @return the server, or NULL with errno set (EINVAL for a bad address, EADDRINUSE, ...)
 *         and a message in @p err
 */
struct app_metrics *app_metrics_open(const char *ipport, app_metrics_write_t fn, void *arg,
				     char *err, size_t errlen);

/** The port listened on (the kernel's pick for port 0). */
uint16_t app_metrics_port(const struct app_metrics *m);

/** The server's epoll descriptor: readable when app_metrics_poll has something to do. */
int app_metrics_fd(const struct app_metrics *m);

/** Accept, read, answer and write whatever is ready, without blocking.
 * @return connections open after the call */
uint32_t app_metrics_poll(struct app_metrics *m);

/** The server's counters. */
const struct app_metrics_stats *app_metrics_stats(const struct app_metrics *m);

/** Close the listener and every connection, and free. NULL is a no-op. */
void app_metrics_close(struct app_metrics *m);

#endif /* APP_METRICS_H */
