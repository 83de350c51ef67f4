/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_state.c - the backend's state directory, what must survive a restart:
 *   fh.key       16 random bytes (getrandom), mode 0600: the key that seals file handles, so
 *                handles given out before a restart still verify after it;
 *   exports.ids  "id<TAB>path" lines: each export path's id, the id a handle carries. Lines are
 *                never removed, so an export that comes back gets its old id, and a new path
 *                gets the largest id ever given + 1: an id is never reused for another path;
 *   boot.count   a decimal counter bumped on every open, part of the write verifier;
 *   nsm.state, nsm.hosts  the status monitor's (nfs/nlm/nsm_svc.c), through nfs_state_read
 *                and nfs_state_write.
 * Files are replaced atomically (write to a temporary name, fsync, rename).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nfs_fs_int.h"

static int path_in(const struct nfs_state *st, const char *name, char *out, size_t cap)
{
	int n = snprintf(out, cap, "%s/%s", st->dir, name);

	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* Replace statedir/name with data, atomically. */
static int put_file(const struct nfs_state *st, const char *name, const void *data, size_t len,
		    mode_t mode)
{
	char tmp[NFS_PATH_MAX + 32], fin[NFS_PATH_MAX + 32];
	const char *p = data;
	int fd, rc = 0;

	if (path_in(st, name, fin, sizeof(fin)) || snprintf(tmp, sizeof(tmp), "%s.tmp", fin) < 0)
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		p += w;
		len -= (size_t)w;
	}
	if (!rc && fsync(fd) != 0)
		rc = -errno;
	close(fd);
	if (!rc && rename(tmp, fin) != 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

/* statedir/name into buf (NUL-terminated). @return bytes, -ENOENT, -EFBIG, -errno */
static ssize_t get_file(const struct nfs_state *st, const char *name, char *buf, size_t cap)
{
	char fin[NFS_PATH_MAX + 32];
	size_t n = 0;
	int fd;

	if (path_in(st, name, fin, sizeof(fin)))
		return -ENAMETOOLONG;
	fd = open(fin, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r = read(fd, buf + n, cap - 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = -errno;

			close(fd);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap - 1) {
			close(fd);
			return -EFBIG;
		}
	}
	close(fd);
	buf[n] = 0;
	return (ssize_t)n;
}

static int mkdir_p(char *path, mode_t mode)
{
	for (char *s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(path, mode) != 0 && errno != EEXIST) {
			*s = '/';
			return -errno;
		}
		*s = '/';
	}
	if (mkdir(path, mode) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int nfs_state_open(struct nfs_state *st, const char *statedir, char *err, size_t errlen)
{
	char buf[64];
	ssize_t n;
	int rc;

	memset(st, 0, sizeof(*st));
	if (!statedir || !*statedir || strlen(statedir) >= sizeof(st->dir) - 32) {
		snprintf(err, errlen, "state directory '%s': empty or too long",
			 statedir ? statedir : "");
		return -EINVAL;
	}
	strcpy(st->dir, statedir);
	rc = mkdir_p(st->dir, 0700);
	if (rc) {
		snprintf(err, errlen, "state directory %s: %s", st->dir, strerror(-rc));
		return rc;
	}

	n = get_file(st, "fh.key", buf, sizeof(buf));
	if (n == -ENOENT) {
		if (getrandom(st->key, sizeof(st->key), 0) != (ssize_t)sizeof(st->key)) {
			snprintf(err, errlen, "getrandom: %s", strerror(errno));
			return -EIO;
		}
		rc = put_file(st, "fh.key", st->key, sizeof(st->key), 0600);
		if (rc) {
			snprintf(err, errlen, "%s/fh.key: %s", st->dir, strerror(-rc));
			return rc;
		}
	} else if (n != (ssize_t)sizeof(st->key)) {
		snprintf(err, errlen, "%s/fh.key: %s", st->dir,
			 n < 0 ? strerror((int)-n) : "not 16 bytes (remove it to make a new key)");
		return n < 0 ? (int)n : -EINVAL;
	} else {
		memcpy(st->key, buf, sizeof(st->key));
	}

	n = get_file(st, "boot.count", buf, sizeof(buf));
	st->boot = n > 0 ? (uint32_t)strtoul(buf, NULL, 10) : 0;
	st->boot++;
	n = snprintf(buf, sizeof(buf), "%u\n", st->boot);
	rc = put_file(st, "boot.count", buf, (size_t)n, 0600);
	if (rc) {
		snprintf(err, errlen, "%s/boot.count: %s", st->dir, strerror(-rc));
		return rc;
	}
	return 0;
}

#define IDS_FILE_MAX (1u << 20)

int nfs_state_export_ids(struct nfs_state *st, struct nfs_export *exp, uint32_t n, char *err,
			 size_t errlen)
{
	char *text = malloc(IDS_FILE_MAX);
	size_t len = 0;
	uint32_t max_id = 0;
	bool changed = false;
	ssize_t got;
	int rc = 0;

	if (!text)
		return -ENOMEM;
	got = get_file(st, "exports.ids", text,
		       IDS_FILE_MAX - NFS_EXPORT_MAX * (NFS_PATH_MAX + 16));
	if (got == -ENOENT) {
		got = 0;
		text[0] = 0;
	}
	if (got < 0) {
		snprintf(err, errlen, "%s/exports.ids: %s", st->dir, strerror((int)-got));
		free(text);
		return (int)got;
	}
	len = (size_t)got;
	for (uint32_t i = 0; i < n; i++)
		exp[i].id = 0;
	/* known paths keep their ids */
	for (char *l = text; *l;) {
		char *nl = strchr(l, '\n'), *tab;
		unsigned long id;

		if (!nl) {
			snprintf(err, errlen, "%s/exports.ids: the last line has no newline",
				 st->dir);
			rc = -EINVAL;
			break;
		}
		*nl = 0;
		id = strtoul(l, &tab, 10);
		if (*tab != '\t' || id == 0 || id > UINT32_MAX) {
			snprintf(err, errlen, "%s/exports.ids: bad line '%.60s'", st->dir, l);
			rc = -EINVAL;
			*nl = '\n';
			break;
		}
		if (id > max_id)
			max_id = (uint32_t)id;
		for (uint32_t i = 0; i < n; i++)
			if (strcmp(exp[i].path, tab + 1) == 0)
				exp[i].id = (uint32_t)id;
		*nl = '\n';
		l = nl + 1;
	}
	/* new paths: ids after the largest ever given */
	for (uint32_t i = 0; !rc && i < n; i++) {
		int w;

		if (exp[i].id)
			continue;
		if (max_id == UINT32_MAX) {
			snprintf(err, errlen, "%s/exports.ids: no export id left", st->dir);
			rc = -ENOSPC;
			break;
		}
		exp[i].id = ++max_id;
		w = snprintf(text + len, IDS_FILE_MAX - len, "%u\t%s\n", exp[i].id, exp[i].path);
		len += (size_t)w;
		changed = true;
	}
	if (!rc && changed) {
		rc = put_file(st, "exports.ids", text, len, 0600);
		if (rc)
			snprintf(err, errlen, "%s/exports.ids: %s", st->dir, strerror(-rc));
	}
	free(text);
	return rc;
}

long nfs_state_read(const char *statedir, const char *name, char *buf, size_t cap)
{
	struct nfs_state st;

	if (strlen(statedir) >= sizeof(st.dir))
		return -ENAMETOOLONG;
	strcpy(st.dir, statedir);
	return (long)get_file(&st, name, buf, cap);
}

int nfs_state_write(const char *statedir, const char *name, const void *data, size_t len)
{
	struct nfs_state st;

	if (strlen(statedir) >= sizeof(st.dir))
		return -ENAMETOOLONG;
	strcpy(st.dir, statedir);
	return put_file(&st, name, data, len, 0600);
}
