/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_exports.c - libFuzzer target for the exports(5) parser (nfs/fs/nfs_export.c): any bytes
 * as the text. The parser must either fail with -EINVAL or -ENOSPC and a message that starts
 * with the line ("line N: ") and fits its buffer, or answer 0..cap exports each with an
 * absolute path, 1..NFS_EXPORT_CLIENTS_MAX clients and prefixes within their family. Client
 * matching and squashing then run on every parsed entry (no host name is resolved here).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"

#include "nfs_fs.h"
#include "nfs_fs_int.h"

#define CAP 4u

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct nfs_export exp[CAP];
	char *text = malloc(size + 1);
	char err[160];
	int n;

	CHECK(text);
	memcpy(text, data, size);
	text[size] = 0;
	memset(err, 0x5a, sizeof(err));
	n = nfs_exports_parse(text, exp, CAP, err, sizeof(err));
	if (n < 0) {
		CHECK(n == -EINVAL || n == -ENOSPC);
		CHECK(memchr(err, 0, sizeof(err)) != NULL);
		CHECK(strncmp(err, "line ", 5) == 0);
		free(text);
		return 0;
	}
	CHECK((uint32_t)n <= CAP);
	for (int i = 0; i < n; i++) {
		const struct nfs_export *e = &exp[i];
		struct sockaddr_storage peer = {0};
		struct sockaddr_in *s4 = (struct sockaddr_in *)&peer;
		struct nfs_cred in = {
			.flavor = 1, .uid = 0, .gid = 0, .ngroups = 2, .groups = {0, 1}};
		struct nfs_cred out;

		CHECK(e->path[0] == '/');
		CHECK(memchr(e->path, 0, sizeof(e->path)) != NULL);
		CHECK(e->nclients >= 1 && e->nclients <= NFS_EXPORT_CLIENTS_MAX);
		for (uint32_t j = 0; j < e->nclients; j++) {
			const struct nfs_export_client *c = &e->clients[j];

			CHECK(c->kind <= NFS_CLIENT_HOST);
			CHECK(c->kind != NFS_CLIENT_CIDR4 || c->prefix <= 32);
			CHECK(c->kind != NFS_CLIENT_CIDR6 || c->prefix <= 128);
			CHECK(c->kind != NFS_CLIENT_HOST || (c->host[0] && c->naddrs == 0));
			nfs_export_squash(&c->opts, &in, &out);
			CHECK(out.ngroups <= NFS_MAX_GROUPS);
			CHECK(!c->opts.all_squash ||
			      (out.uid == c->opts.anonuid && out.ngroups == 0));
		}
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, text, size < 4 ? size : 4);
		(void)nfs_export_match(e, &peer);
	}
	free(text);
	return 0;
}

#ifdef DROCE_FUZZ_REPLAY
#include "replay_main.h"
#endif
