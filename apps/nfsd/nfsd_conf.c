/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfsd_conf.c - droce-nfsd's [nfs] and [export NAME] sections (nfsd_conf.h). Keys are a table:
 * name, range and where the value goes; each [export NAME] becomes one exports(5) line, judged
 * by the same parser as an exports file, so the two forms accept exactly the same options.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cfgfile.h>

#include "nfs_fs.h"
#include "nfsd_conf.h"
#include "orpc_svc.h"

const char *const nfsd_conf_sections[] = {"nfs", "export ", NULL};

#define EXPORT_PREFIX "export "

struct ctx {
	const char *path;
	char *err;
	size_t errlen;
};

static int bad(struct ctx *c, const char *sec, const char *key, const char *val, const char *fmt,
	       ...) __attribute__((format(printf, 5, 6)));

static int bad(struct ctx *c, const char *sec, const char *key, const char *val, const char *fmt,
	       ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s: [%s] %s = %s: %s", c->path, sec, key, val, what);
	return -EINVAL;
}

/* ---- [nfs] ---- */

enum kind { K_UINT, K_STR, K_VERSIONS, K_HOSTPORT, K_DOMAIN, K_PLACEMENT };

struct key {
	const char *name;
	enum kind kind;
	size_t off;		/**< in struct nfsd_conf */
	size_t len;		/**< K_STR, K_HOSTPORT: buffer size */
	unsigned long min, max; /**< K_UINT */
	unsigned long multiple; /**< K_UINT: the value must be a multiple of this (0: any) */
};

#define U(n, f, lo, hi, m)                                                                         \
	{                                                                                          \
		n, K_UINT, offsetof(struct nfsd_conf, f), 0, lo, hi, m                             \
	}
#define S(n, f, k)                                                                                 \
	{                                                                                          \
		n, k, offsetof(struct nfsd_conf, f), sizeof(((struct nfsd_conf *)0)->f), 0, 0, 0   \
	}

static const struct key keys[] = {
	S("exports", exports_file, K_STR),
	S("state", state, K_STR),
	U("threads", threads, 0, 64, 0),
	U("io_uring", uring_depth, 0, 4096, 0),
	U("grace", grace_s, 0, 3600, 0),
	{"versions", K_VERSIONS, 0, 0, 0, 0, 0},
	U("credits", credits, 1, 1024, 0),
	U("inline", inline_max, 1024, 65536, 0),
	U("max_io", max_io, 4096, 1048576, 4096),
	U("connections", connections, 1, NFSD_CONNS_MAX, 0),
	U("calls_per_connection", conn_calls, 1, 16, 0),
	U("drain", drain_s, 0, 600, 0),
	U("drc", drc_entries, ORPC_DRC_MIN, ORPC_DRC_MAX, ORPC_DRC_WAYS),
	U("v4_lease", v4_lease_s, 5, 3600, 0),
	U("v4_slots", v4_slots, 1, 1024, 0),
	S("v4_domain", v4_domain, K_DOMAIN),
	S("metrics", metrics, K_HOSTPORT),
	U("lcores", lcores, 1, NFSD_LANES_MAX, 0),
	{"placement", K_PLACEMENT, 0, 0, 0, 0, 0},
};

static void known(char *out, size_t cap)
{
	size_t n = 0;

	out[0] = 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && n < cap; i++)
		n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? " " : "", keys[i].name);
}

static int set_key(struct ctx *c, struct nfsd_conf *conf, const char *k, const char *v)
{
	const struct key *d = NULL;
	char list[256], *end;
	unsigned long x;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(keys[i].name, k))
			d = &keys[i];
	if (!d) {
		known(list, sizeof(list));
		return bad(c, "nfs", k, v, "unknown key; known: %s", list);
	}
	switch (d->kind) {
	case K_UINT:
		errno = 0;
		x = strtoul(v, &end, 0);
		if (errno || end == v || *end || v[0] == '-' || x < d->min || x > d->max)
			return bad(c, "nfs", k, v, "expected an integer from %lu to %lu", d->min,
				   d->max);
		if (d->multiple && x % d->multiple)
			return bad(c, "nfs", k, v, "expected a multiple of %lu from %lu to %lu",
				   d->multiple, d->min, d->max);
		*(uint32_t *)((char *)conf + d->off) = (uint32_t)x;
		return 0;
	case K_VERSIONS: {
		/* "3" or "3,4.1": v3 is always served (MOUNT, NLM and the CI's mounts need it);
		 * 4.1 opts in to NFSv4 (minor versions 1 and 2 of program version 4). 4.2's own
		 * operations are not served yet, so "4.2" is refused rather than half-promised. */
		char buf[64], *save = NULL, *tok;
		bool v3 = false, v41 = false;

		snprintf(buf, sizeof(buf), "%s", v);
		for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
			if (!strcmp(tok, "3") && !v3)
				v3 = true;
			else if (!strcmp(tok, "4.1") && !v41)
				v41 = true;
			else
				return bad(c, "nfs", k, v,
					   "expected 3 or 3,4.1 (4.2 and 4.0 are not served)");
		}
		if (!v3)
			return bad(c, "nfs", k, v, "expected 3 or 3,4.1 (v3 is always served)");
		conf->v41 = v41;
		return 0;
	}
	case K_PLACEMENT:
		if (strcmp(v, "client") && strcmp(v, "round_robin"))
			return bad(c, "nfs", k, v,
				   "expected client (a client's connections on one lane) or "
				   "round_robin");
		conf->place_rr = !strcmp(v, "round_robin");
		return 0;
	case K_HOSTPORT: {
		const char *colon = strrchr(v, ':');

		size_t hl = colon ? (size_t)(colon - v) : 0;
		char host[64];
		uint8_t a[16];

		x = colon ? strtoul(colon + 1, &end, 10) : 0;
		if (hl >= 2 && v[0] == '[' && v[hl - 1] == ']')
			snprintf(host, sizeof(host), "%.*s", (int)(hl - 2), v + 1);
		else
			snprintf(host, sizeof(host), "%.*s", (int)hl, v);
		/* the address as the listener will parse it: a literal, never a name */
		if (!colon || colon == v || !colon[1] || *end || x == 0 || x > 65535 ||
		    hl >= sizeof(host) || inet_pton(v[0] == '[' ? AF_INET6 : AF_INET, host, a) != 1)
			return bad(c, "nfs", k, v,
				   "expected IP:PORT (an IPv4 address or [IPv6], a port 1..65535)");
		break;
	}
	case K_STR:
		if (!v[0] || v[0] != '/')
			return bad(c, "nfs", k, v, "expected an absolute path");
		break;
	case K_DOMAIN:
		/* the NFSv4 owner domain: a DNS name (or empty: any domain) */
		for (const char *p = v; *p; p++)
			if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-')
				return bad(c, "nfs", k, v,
					   "expected a domain name (letters, digits, "
					   "'.', '-')");
		break;
	}
	if (strlen(v) >= d->len)
		return bad(c, "nfs", k, v, "longer than %zu characters", d->len - 1);
	memcpy((char *)conf + d->off, v, strlen(v) + 1);
	return 0;
}

/* ---- [export NAME] ---- */

/* One section -> one exports(5) line ("PATH" CLIENTS), judged alone by the exports parser so
 * the message can name the key. */
static int add_export(struct ctx *c, struct nfsd_conf *conf, struct rte_cfgfile *f, const char *sec,
		      char **text, size_t *len)
{
	static struct nfs_export one[1];
	const char *path = NULL, *clients = NULL;
	struct rte_cfgfile_entry e[8];
	char line[NFS_PATH_MAX + 4096], perr[300];
	int n = rte_cfgfile_section_num_entries(f, sec), rc;
	char *grown;

	if (n > (int)(sizeof(e) / sizeof(e[0])))
		n = sizeof(e) / sizeof(e[0]);
	n = rte_cfgfile_section_entries(f, sec, e, n);
	for (int i = 0; i < n; i++) {
		if (!strcmp(e[i].name, "path"))
			path = e[i].value;
		else if (!strcmp(e[i].name, "clients"))
			clients = e[i].value;
		else
			return bad(c, sec, e[i].name, e[i].value,
				   "unknown key; known: path clients");
	}
	if (!path || path[0] != '/') {
		snprintf(c->err, c->errlen, "%s: [%s]: needs path = /absolute/directory", c->path,
			 sec);
		return -EINVAL;
	}
	if (!clients || !clients[0]) {
		snprintf(c->err, c->errlen,
			 "%s: [%s]: needs clients = HOST(options) ... (exports(5), e.g. "
			 "clients = 10.0.0.0/24(rw) *(ro))",
			 c->path, sec);
		return -EINVAL;
	}
	if (strchr(path, '"'))
		return bad(c, sec, "path", path, "a path with '\"' cannot be exported");
	if ((size_t)snprintf(line, sizeof(line), "\"%s\" %s\n", path, clients) >= sizeof(line))
		return bad(c, sec, "clients", clients, "too long");
	rc = nfs_exports_parse(line, one, 1, perr, sizeof(perr));
	if (rc < 0) {
		/* the parser names the word; "line 1: " means nothing here */
		const char *why = strncmp(perr, "line 1: ", 8) ? perr : perr + 8;

		return bad(c, sec, "clients", clients, "%s", rc == -ENOSPC ? "too many" : why);
	}
	grown = realloc(*text, *len + strlen(line) + 1);
	if (!grown)
		return -ENOMEM;
	memcpy(grown + *len, line, strlen(line) + 1);
	*text = grown;
	*len += strlen(line);
	conf->nexport_sections++;
	return 0;
}

int nfsd_conf_set(struct nfsd_conf *conf, const char *origin, const char *key, const char *value,
		  char *err, size_t errlen)
{
	struct ctx c = {.path = origin, .err = err, .errlen = errlen};

	return set_key(&c, conf, key, value);
}

void nfsd_conf_default(struct nfsd_conf *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->state, sizeof(c->state), "/var/lib/droce-nfsd");
	c->threads = 4;
	c->uring_depth = 256;
	c->conn_calls = 4;
	c->lcores = 1;
	c->grace_s = 90;
	c->credits = 128;
	c->inline_max = 4096;
	c->max_io = 1u << 20;
	c->connections = 16;
	c->drain_s = 10;
	c->v4_lease_s = 90;
	c->v4_slots = 32;
	c->drc_entries = ORPC_DRC_ENTRIES;
}

int nfsd_conf_load(const char *path, struct nfsd_conf *conf, char *err, size_t errlen)
{
	struct ctx c = {.path = path, .err = err, .errlen = errlen};
	struct rte_cfgfile *f = rte_cfgfile_load(path, 0);
	char *text = NULL, **names = NULL;
	size_t len = 0;
	int nsec, rc = 0;

	if (!f) {
		snprintf(err, errlen, "%s: cannot read the configuration file (%s)", path,
			 strerror(errno ? errno : ENOENT));
		return -ENOENT;
	}
	nsec = rte_cfgfile_num_sections(f, NULL, 0);
	if (nsec > 0 && !(names = calloc((size_t)nsec, sizeof(*names))))
		rc = -ENOMEM;
	for (int i = 0; !rc && i < nsec; i++)
		if (!(names[i] = calloc(1, CFG_NAME_LEN)))
			rc = -ENOMEM;
	if (!rc && nsec > 0)
		rte_cfgfile_sections(f, names, nsec);
	for (int i = 0; !rc && i < nsec; i++) {
		const char *s = names[i];

		if (!strcmp(s, "nfs")) {
			int n = rte_cfgfile_section_num_entries(f, s);
			struct rte_cfgfile_entry *e = calloc(n > 0 ? (size_t)n : 1, sizeof(*e));

			if (!e) {
				rc = -ENOMEM;
				break;
			}
			n = rte_cfgfile_section_entries(f, s, e, n);
			for (int j = 0; !rc && j < n; j++)
				rc = set_key(&c, conf, e[j].name, e[j].value);
			free(e);
		} else if (!strncmp(s, EXPORT_PREFIX, strlen(EXPORT_PREFIX))) {
			rc = add_export(&c, conf, f, s, &text, &len);
		} else if (!strcmp(s, "export")) {
			snprintf(err, errlen, "%s: [export]: name the export: [export NAME]", path);
			rc = -EINVAL;
		}
	}
	if (!rc && conf->lcores > 1 && conf->v41) {
		/* NFSv4's clients, sessions and opens live in one server on the main lcore */
		snprintf(err, errlen,
			 "%s: [nfs] lcores = %u with versions = 3,4.1: NFSv4.1 is served on one "
			 "lcore only; set lcores = 1, or versions = 3 to serve NFSv3 over RDMA on "
			 "%u lcores",
			 path, conf->lcores, conf->lcores);
		rc = -EINVAL;
	}
	if (!rc && text && conf->exports_file[0]) {
		snprintf(err, errlen,
			 "%s: [nfs] exports = %s and [export NAME] sections: give one or the "
			 "other",
			 path, conf->exports_file);
		rc = -EINVAL;
	}
	if (!rc && text) {
		free(conf->exports_text);
		conf->exports_text = text;
		text = NULL;
	}
	free(text);
	for (int i = 0; names && i < nsec; i++)
		free(names[i]);
	free(names);
	rte_cfgfile_close(f);
	return rc;
}

void nfsd_conf_free(struct nfsd_conf *c)
{
	free(c->exports_text);
	c->exports_text = NULL;
}
