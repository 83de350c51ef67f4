/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lock_tool.c - fcntl(2) and flock(2) locks for tests/interop/nfs_lock.sh, run in the lab VM
 * on an NFS mount (built statically on this machine: the VM image has no flock(1)).
 *   lock_tool try FILE     F_SETLK, a write lock on the whole file: exit 0 got it, 1 refused
 *   lock_tool hold FILE S  F_SETLKW, then hold it S seconds
 *   lock_tool wait FILE    F_SETLKW; prints how long it waited ("waited N ms")
 *   lock_tool ftry FILE    flock(LOCK_EX | LOCK_NB): exit 0 got it, 1 refused
 *   lock_tool fhold FILE S flock(LOCK_EX), then hold it S seconds
 * Any other failure: exit 2 with the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	long long t0;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: lock_tool try|hold|wait|ftry|fhold FILE [SECONDS]\n");
		return 2;
	}
	fd = open(argv[2], O_RDWR | O_CREAT, 0666);
	if (fd < 0) {
		printf("open %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	t0 = now_ms();
	if (!strcmp(argv[1], "try") || !strcmp(argv[1], "ftry")) {
		int rc = argv[1][0] == 'f' ? flock(fd, LOCK_EX | LOCK_NB) : fcntl(fd, F_SETLK, &fl);

		if (rc == 0) {
			printf("got\n");
			return 0;
		}
		printf("refused: %s\n", strerror(errno));
		return errno == EAGAIN || errno == EACCES || errno == EWOULDBLOCK ? 1 : 2;
	}
	if (!strcmp(argv[1], "fhold") ? flock(fd, LOCK_EX) : fcntl(fd, F_SETLKW, &fl)) {
		printf("lock: %s\n", strerror(errno));
		return 2;
	}
	if (!strcmp(argv[1], "wait")) {
		printf("waited %lld ms\n", now_ms() - t0);
		return 0;
	}
	printf("holding\n");
	fflush(stdout);
	sleep(argc > 3 ? (unsigned)atoi(argv[3]) : 60);
	return 0;
}
