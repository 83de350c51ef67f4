/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_sock.h - the small kernel-socket helpers the tools' out-of-band exchanges share
 * (droce-pingpong's and droce-perf's TCP channels, through droce's exception TAP). Each
 * wait gives up at the bound or when the stack is stopping, so a tool never hangs.
 */
#ifndef APP_SOCK_H
#define APP_SOCK_H

#include <stddef.h>
#include <sys/socket.h>

/** Wait for @p events on @p fd, up to @p ms (0: no bound) in 200 ms steps.
 * @return 0, -ETIMEDOUT, -EINTR (the stack is stopping) or -errno. */
int app_wait_fd(int fd, short events, unsigned ms);

/** Write all @p len bytes (retrying on EINTR). @return 0 or -errno. */
int app_write_full(int fd, const void *p, size_t len);

/** Read exactly @p len bytes, waiting up to @p ms (0: no bound) for each part.
 * @return 0, -EPIPE (closed), -ETIMEDOUT, -EINTR (the stack is stopping) or -errno. */
int app_read_full(int fd, void *p, size_t len, unsigned ms);

/** Finish a non-blocking connect() of @p fd to @p sa within @p ms, then make @p fd blocking.
 * @return 0, -ETIMEDOUT, -EINTR or -errno (e.g. -ECONNREFUSED). */
int app_connect_bounded(int fd, const struct sockaddr *sa, socklen_t len, unsigned ms);

#endif /* APP_SOCK_H */
