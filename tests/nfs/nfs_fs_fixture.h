/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_fs_fixture.h - the fixture of the backend's tests (test_nfs_fs.c, test_nfs_fs_cred.c,
 * test_nfs_fs_ops.c): export trees under a fresh directory in /tmp, the exports text that
 * serves them, optionally a private mount namespace with a tmpfs under export A, and the
 * helpers every test uses (paths in the tree, files and directories as a given owner, the
 * backend opened on an exports text, a caller's context, MOUNT, LOOKUP, CREATE and WRITE).
 *
 * The tree (nfsf_up()): a/ (file, sub/, tmp/ with the sticky bit, big/ with NFSF_NENTRIES
 * empty files, mnt/, etclink -> /etc), b/, new/, ro/ (file), sq/ (0777). The exports:
 *   a   127.0.0.1(rw,no_root_squash) 10.0.0.0/8(rw)
 *   b   127.0.0.1(rw,no_root_squash)
 *   ro  127.0.0.1(ro,no_root_squash)
 *   sq  127.0.0.1(rw,all_squash,anonuid=1234,anongid=1234)
 */
#ifndef NFS_FS_FIXTURE_H
#define NFS_FS_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "nfs_fs.h"

#define NFSF_NENTRIES 500 /* files in a/big */

extern char nfsf_base[256]; /**< the temporary tree */
extern char nfsf_statedir[300];
extern char nfsf_exports[4096]; /**< the exports text the backend is opened with */
extern bool nfsf_have_ns;	/**< a private mount namespace with a tmpfs under export A */

/**
 * Make the tree under a fresh directory in /tmp, and with @mount_ns the mount namespace.
 * @return 0; 77 (skip) when not root or when the file system gives no usable file handles,
 *         with a line saying why; 1 when the directory cannot be made
 */
int nfsf_up(bool mount_ns);
/** Unmount the tmpfs (if any) and remove the tree. */
void nfsf_down(void);

/** @out = the tree's directory, "/", then @fmt formatted. */
void nfsf_pathf(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/** Create (or truncate) @rel in the tree with @mode, owned by @uid:@uid, holding @data. */
void nfsf_mkfile(const char *rel, mode_t mode, uid_t uid, const char *data);
/** Make directory @rel in the tree (it may exist) and give it @mode. */
void nfsf_mkdir_rel(const char *rel, mode_t mode);
/** The backend on exports @text and nfsf_statedir; fails the test if it does not open. */
struct nfs_fs *nfsf_open_fs(const char *text);
/** A caller at @ip (v4 or v6, port 700) with AUTH_SYS @uid/@gid. */
struct nfs_ctx nfsf_ctx_of(struct nfs_fs *fs, const char *ip, uint32_t uid, uint32_t gid);
/** MOUNT of the tree's @rel; fails the test unless NFS_OK. */
struct nfs_fh nfsf_mount_of(struct nfs_ctx *c, const char *rel);
/** LOOKUP of @name in @dir; @a may be NULL. */
enum nfs_stat nfsf_lookup(struct nfs_ctx *c, const struct nfs_fh *dir, const char *name,
			  struct nfs_fh *fh, struct nfs_attr *a);
/** The two handles are the same bytes. */
bool nfsf_fh_eq(const struct nfs_fh *a, const struct nfs_fh *b);
/** CREATE of @name in @dir with @mode; @verf, @fh and @a may be NULL. */
enum nfs_stat nfsf_create(struct nfs_ctx *c, const struct nfs_fh *dir, const char *name,
			  enum nfs_createmode how, uint32_t mode, const uint8_t *verf,
			  struct nfs_fh *fh, struct nfs_attr *a);
/** A FILE_SYNC WRITE of the string @data at @off; on NFS_OK all of it was written. */
enum nfs_stat nfsf_write_at(struct nfs_ctx *c, const struct nfs_fh *fh, uint64_t off,
			    const char *data);

#endif /* NFS_FS_FIXTURE_H */
