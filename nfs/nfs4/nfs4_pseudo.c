/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs4_pseudo.c - the pseudo file system (RFC 8881 §7.3, §7.4): the directories on the way
 * from "/" to each export's root, so that PUTROOTFH and LOOKUP reach every export. A node is a
 * prefix of an export's path; an export's own path is a junction to the backend's root handle
 * of that export. The tree is rebuilt from the exports in force (once per compound that needs
 * it), so a reload is seen at once; nodes are named by a hash of their path, which is also
 * their handle and their fileid, so handles stay valid across rebuilds and restarts for as
 * long as the path is on the way to an export.
 */
#include <stdio.h>
#include <string.h>

#include "nfs4_int.h"

static uint64_t fnv(const char *p, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)p[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

static const char *node_path(const struct nfs_fs *fs, const struct nfs4_pnode *n, uint32_t *len)
{
	const struct nfs_export *e;

	if (n->plen == 0) {
		*len = 1;
		return "/";
	}
	e = nfs_fs_export(fs, n->exp);
	*len = n->plen;
	return e ? e->path : "";
}

static int32_t child_by_id(const struct nfs4_pseudo *p, int32_t parent, uint64_t id)
{
	for (uint32_t i = 1; i < p->n; i++)
		if (p->node[i].parent == parent && p->node[i].id == id)
			return (int32_t)i;
	return -1;
}

void nfs4_pseudo_build(struct nfs4_pseudo *p, const struct nfs_fs *fs)
{
	const struct nfs_export *e;

	memset(&p->node[0], 0, sizeof(p->node[0]));
	p->n = 1;
	p->node[0].id = fnv("/", 1);
	p->node[0].parent = -1;
	p->node[0].exp = UINT32_MAX;
	for (uint32_t i = 0; (e = nfs_fs_export(fs, i)) != NULL; i++) {
		uint32_t len = (uint32_t)strnlen(e->path, NFS_PATH_MAX);
		int32_t cur = 0;

		while (len > 1 && e->path[len - 1] == '/')
			len--;
		for (uint32_t pos = 1; pos <= len && cur >= 0; pos++) {
			int32_t next;
			uint64_t id;

			if (pos < len && e->path[pos] != '/')
				continue;
			if (e->path[pos - 1] == '/')
				continue; /* "//" or the leading "/" */
			id = fnv(e->path, pos);
			next = child_by_id(p, cur, id);
			if (next < 0) {
				if (p->n == NFS4_PSEUDO_MAX) {
					cur = -1;
					break;
				}
				next = (int32_t)p->n++;
				p->node[next] = (struct nfs4_pnode){
					.id = id, .exp = i, .plen = pos, .parent = cur};
			}
			cur = next;
		}
		if (cur >= 0 && !p->node[cur].is_export) {
			p->node[cur].is_export = true;
			p->node[cur].exp = i;
		}
	}
}

int32_t nfs4_pseudo_find(const struct nfs4_pseudo *p, uint64_t id)
{
	for (uint32_t i = 0; i < p->n; i++)
		if (p->node[i].id == id)
			return (int32_t)i;
	return -1;
}

int32_t nfs4_pseudo_child(const struct nfs4_pseudo *p, const struct nfs_fs *fs, int32_t dir,
			  const char *name, uint32_t len)
{
	for (uint32_t i = 1; i < p->n; i++) {
		const struct nfs4_pnode *n = &p->node[i], *d = &p->node[dir];
		uint32_t plen, dlen, start;
		const char *path;

		if (n->parent != dir)
			continue;
		path = node_path(fs, n, &plen);
		node_path(fs, d, &dlen);
		start = d->plen == 0 ? 1 : dlen + 1;
		if (plen - start == len && memcmp(path + start, name, len) == 0)
			return (int32_t)i;
	}
	return -1;
}

int32_t nfs4_pseudo_by_path(const struct nfs4_pseudo *p, const struct nfs_fs *fs, const char *path)
{
	uint32_t len = (uint32_t)strnlen(path, NFS_PATH_MAX);
	int32_t i;

	while (len > 1 && path[len - 1] == '/')
		len--;
	i = nfs4_pseudo_find(p, fnv(path, len));
	if (i >= 0) {
		uint32_t nl;
		const char *np = node_path(fs, &p->node[i], &nl);

		if (nl != len || memcmp(np, path, len) != 0)
			return -1;
	}
	return i;
}

bool nfs4_pseudo_in_export(const struct nfs4_pseudo *p, int32_t i)
{
	for (; i >= 0; i = p->node[i].parent)
		if (p->node[i].is_export)
			return true;
	return false;
}

void nfs4_pseudo_path(const struct nfs4_pseudo *p, const struct nfs_fs *fs, int32_t i, char *buf,
		      size_t cap)
{
	uint32_t len;
	const char *path = node_path(fs, &p->node[i], &len);

	snprintf(buf, cap, "%.*s", (int)len, path);
}
