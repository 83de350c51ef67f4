/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * orpc_tcp.h - ONC RPC server over the kernel's TCP and UDP sockets, polled without blocking:
 * one epoll set, waited on with a zero timeout from the owner's loop (an lcore, or a plain
 * thread). TCP records are reassembled with orpc_rm and dispatched through orpc_svc, the same
 * dispatch as RPC-over-RDMA calls; replies go back in one record (the "DDP" of a stream
 * transport is inline). UDP datagrams are one call each (RFC 5531 §11 does not apply).
 *
 * Bad input closes only the connection it came on: a record over the size bound, an empty
 * record, or a record that is not an RPC call (counted in orpc_tcp_stats).
 *
 * Backchannel (RFC 8881 §2.10.3.1): when the svc has a table (svc->bc), each accepted
 * connection registers in it ("tcp") and its calls carry the id (peer.bc_id). A backward call
 * goes out as one record, behind any reply bytes already queued (never interleaved); a record
 * whose direction word is REPLY is matched by xid to the connection's backward calls (up to
 * ORPC_TCP_BC_CALLS) and handed to their done, or dropped as stray; the connection stays. When
 * the connection closes it leaves the table and its waiting backward calls end -ENOTCONN.
 * UDP has no backchannel (bc_id 0).
 *
 * Threading: a server belongs to the thread that polls it.
 */
#ifndef ORPC_TCP_H
#define ORPC_TCP_H

#include <netinet/in.h>
#include <stdint.h>

#include "orpc_rm.h"
#include "orpc_svc.h"

#define ORPC_TCP_MAX_CONNS 256u
#define ORPC_TCP_MAX_LISTEN 8u
/** Deferred calls of one connection at once (each keeps its record): reading stops there */
#define ORPC_TCP_CONN_CALLS 16u
/** Backward calls (orpc_bc.h) in flight on one connection at once: -EBUSY beyond */
#define ORPC_TCP_BC_CALLS 8u
/** Deferred UDP calls of a server at once (each keeps its datagram, up to 64 KiB): a call that
 * finds none free is run at dispatch, as before deferral existed */
#define ORPC_UDP_CALLS 16u
#define ORPC_UDP_MAX 65536u /**< the largest datagram read */

struct orpc_tcp_srv;

/** A deferred UDP call: where its reply goes, and the datagram its arguments point into. */
struct orpc_udp_call {
	struct orpc_tcp_srv *s;
	int fd;
	socklen_t pl;
	struct sockaddr_storage peer;
	uint8_t *msg;
	bool used;
};

struct orpc_tcp_conn;

struct orpc_tcp_stats {
	uint64_t accepted, closed, refused_full;
	uint64_t records, replies, udp_calls, udp_replies;
	uint64_t udp_deferred;	   /**< UDP calls their handler finished later (orpc_svc_defer) */
	uint64_t udp_no_slot;	   /**< UDP calls read with every deferral slot taken (any kind) */
	uint64_t udp_late_dropped; /**< deferred UDP replies ready after the server closed */
	uint64_t closed_too_big, closed_empty, closed_garbage, closed_peer, closed_error;
	uint64_t out_queued;	    /**< replies that did not fit the socket at once */
	uint64_t deferred;	    /**< calls their handler finished later (orpc_svc_defer) */
	uint64_t max_calls_at_once; /**< the most deferred calls one connection had at once */
	uint64_t bc_calls;	    /**< backward calls sent (orpc_bc_call on a connection) */
	uint64_t bc_replies;	    /**< their replies, matched by xid */
	uint64_t bc_stray;	    /**< REPLY records matching no backward call: dropped */
	uint64_t bc_notconn;	    /**< backward calls ended -ENOTCONN by a closing connection */
};

struct orpc_tcp_srv {
	struct orpc_svc *svc;
	int ep;
	int fds[ORPC_TCP_MAX_LISTEN]; /**< listening TCP and bound UDP sockets */
	uint8_t fd_udp[ORPC_TCP_MAX_LISTEN];
	uint32_t nfds;
	bool quiesced; /**< orpc_tcp_srv_quiesce: no new connection or call */
	uint32_t max_record;
	struct orpc_tcp_conn *conns[ORPC_TCP_MAX_CONNS];
	uint8_t *reply; /**< one reply buffer: a mark then the message */
	uint32_t reply_cap;
	uint8_t *udp_in; /**< the next datagram's buffer (ORPC_UDP_MAX; a deferred call takes it) */
	struct orpc_udp_call udp[ORPC_UDP_CALLS];
	uint32_t udp_ncalls; /**< deferred UDP calls not yet ended */
	struct orpc_tcp_stats stats;
};

/** Set up an empty server over svc. max_record 0 = ORPC_RM_DEFAULT_MAX. @return 0 or -errno */
int orpc_tcp_srv_init(struct orpc_tcp_srv *s, struct orpc_svc *svc, uint32_t max_record);

/**
 * Listen on ip:port (IPv4 or IPv6 literal; port 0 picks one).
 * @param udp  bind a UDP socket instead of listening on TCP
 * @param port_out  if not NULL, the port bound
 * @return 0 or -errno (-EADDRINUSE, -EINVAL for a bad address, -ENOSPC when 8 are open)
 */
int orpc_tcp_srv_listen(struct orpc_tcp_srv *s, const char *ip, uint16_t port, int udp,
			uint16_t *port_out);

/** Handle whatever is ready, without blocking. @return events handled */
int orpc_tcp_srv_poll(struct orpc_tcp_srv *s);

/** Close every socket and free everything. */
void orpc_tcp_srv_fini(struct orpc_tcp_srv *s);

/** A drain before stopping: close the listening TCP sockets (no new connection) and read no
 * new call from the connections; replies of the calls in flight still go out, and UDP sockets
 * keep answering. Calls left unread are the client's to send again after it reconnects. */
void orpc_tcp_srv_quiesce(struct orpc_tcp_srv *s);

/** The peers of up to cap live connections, in slot order. @return how many */
uint32_t orpc_tcp_srv_peers(const struct orpc_tcp_srv *s, struct orpc_peer *out, uint32_t cap);

/** Live connections. */
uint32_t orpc_tcp_srv_nconns(const struct orpc_tcp_srv *s);

#endif /* ORPC_TCP_H */
