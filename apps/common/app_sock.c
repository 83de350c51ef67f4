/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_sock.c - kernel-socket helpers shared by the tools (app_sock.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <unistd.h>

#include "app_sock.h"
#include "stk_stack.h"

#define POLL_STEP_MS 200

int app_wait_fd(int fd, short events, unsigned ms)
{
	struct pollfd p = {.fd = fd, .events = events};
	unsigned waited = 0;

	for (;;) {
		int n;

		if (stk_stopping())
			return -EINTR;
		n = poll(&p, 1, POLL_STEP_MS);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
		waited += POLL_STEP_MS;
		if (ms && waited >= ms)
			return -ETIMEDOUT;
	}
}

int app_write_full(int fd, const void *p, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, (const uint8_t *)p + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	return 0;
}

int app_read_full(int fd, void *p, size_t len, unsigned ms)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n;
		int rc = app_wait_fd(fd, POLLIN, ms);

		if (rc)
			return rc;
		n = read(fd, (uint8_t *)p + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPIPE;
		got += (size_t)n;
	}
	return 0;
}

int app_connect_bounded(int fd, const struct sockaddr *sa, socklen_t len, unsigned ms)
{
	int err = 0, rc;
	socklen_t elen = sizeof(err);

	if (connect(fd, sa, len) != 0) {
		if (errno != EINPROGRESS)
			return -errno;
		rc = app_wait_fd(fd, POLLOUT, ms);
		if (rc)
			return rc;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) != 0)
			return -errno;
		if (err)
			return -err;
	}
	return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0 ? 0 : -errno;
}
