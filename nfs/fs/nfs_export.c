/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nfs_export.c - exports(5): the parser, client matching and credential squashing.
 *
 * The text is read one logical line at a time ('\' + newline joins lines, '#' starts a comment
 * outside a quoted path). A line is
 *
 *     /path [-defaults] client[(options)] client[(options)] ...
 *
 * where the path may be quoted ("/srv/my files"), "-defaults" gives options for the clients
 * after it, and a client is "*", an IPv4 or IPv6 address, a network (a.b.c.d/len,
 * a.b.c.d/mask, ipv6/len) or a host name (resolved by nfs_exports_resolve at load time). A line
 * with no client exports to everyone, as exportfs does (it warns; we accept). Netgroups (@ng),
 * wildcard host names and gss/krb5 pseudo-clients are refused with a message. Options are one
 * table (opt_table); each client starts from the defaults of exports(5): ro, root_squash,
 * secure, sync, no_subtree_check, wdelay, hide, anonuid=anongid=65534, sec=sys.
 *
 * Matching takes the first client entry that matches, in file order (as exportfs and mountd
 * do, not the most specific). Squashing follows knfsd's nfsd_setuser(): all_squash maps every
 * caller to the anonymous ids and clears the groups; root_squash maps uid 0 to anonuid, gid 0
 * to anongid and each group 0 in the list to anongid.
 *
 * This parser reads operator-supplied text; it is bounded (every copy checks its space) and
 * fuzzed by tests/fuzz/fuzz_exports.c.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfs_fs_int.h"

#define LINE_MAX_CHARS 8192u
#define ANON_ID 65534u

/* ---- options, as data ---- */

enum opt_kind {
	OPT_SET,    /**< a flag set to true */
	OPT_CLEAR,  /**< a flag set to false */
	OPT_ID,	    /**< "=N", a 32-bit id */
	OPT_FSID,   /**< "=N"; "root" and UUIDs refused */
	OPT_SEC,    /**< "=sys" only */
	OPT_IGNORE, /**< accepted, no effect here (wdelay: knfsd's write gathering) */
};

struct opt_row {
	const char *name;
	enum opt_kind kind;
	size_t off; /**< offset of the bool or uint32_t in struct nfs_export_opts */
};

#define OPT_OFF(f) offsetof(struct nfs_export_opts, f)

static const struct opt_row opt_table[] = {
	{"ro", OPT_CLEAR, OPT_OFF(rw)},
	{"rw", OPT_SET, OPT_OFF(rw)},
	{"root_squash", OPT_SET, OPT_OFF(root_squash)},
	{"no_root_squash", OPT_CLEAR, OPT_OFF(root_squash)},
	{"all_squash", OPT_SET, OPT_OFF(all_squash)},
	{"no_all_squash", OPT_CLEAR, OPT_OFF(all_squash)},
	{"secure", OPT_CLEAR, OPT_OFF(insecure)},
	{"insecure", OPT_SET, OPT_OFF(insecure)},
	{"sync", OPT_CLEAR, OPT_OFF(async)},
	{"async", OPT_SET, OPT_OFF(async)},
	{"crossmnt", OPT_SET, OPT_OFF(crossmnt)},
	{"nohide", OPT_SET, OPT_OFF(nohide)},
	{"hide", OPT_CLEAR, OPT_OFF(nohide)},
	{"subtree_check", OPT_SET, OPT_OFF(subtree_check)},
	{"no_subtree_check", OPT_CLEAR, OPT_OFF(subtree_check)},
	{"wdelay", OPT_IGNORE, 0},
	{"no_wdelay", OPT_IGNORE, 0},
	{"anonuid", OPT_ID, OPT_OFF(anonuid)},
	{"anongid", OPT_ID, OPT_OFF(anongid)},
	{"fsid", OPT_FSID, 0},
	{"sec", OPT_SEC, 0},
};

#define OPT_ROWS (sizeof(opt_table) / sizeof(opt_table[0]))

static const char opts_accepted[] =
	"ro, rw, root_squash, no_root_squash, all_squash, no_all_squash, secure, insecure, sync, "
	"async, crossmnt, nohide, hide, subtree_check, no_subtree_check, wdelay, no_wdelay, "
	"anonuid=N, anongid=N, fsid=N, sec=sys";

static const char clients_accepted[] =
	"*, an IPv4 or IPv6 address, a.b.c.d/len, a.b.c.d/mask, ipv6/len, or a host name";

void nfs_export_opts_default(struct nfs_export_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->root_squash = true;
	o->anonuid = ANON_ID;
	o->anongid = ANON_ID;
}

/* ---- the parser's state ---- */

struct parser {
	const char *p; /**< the next unread character of the text */
	unsigned line; /**< physical line of p */
	unsigned at;   /**< physical line where the current logical line starts */
	char *err;
	size_t errlen;
};

static int fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (ps->errlen == 0)
		return -EINVAL;
	n = snprintf(ps->err, ps->errlen, "line %u: ", ps->at);
	if (n < 0 || (size_t)n >= ps->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A printable, bounded copy of a word for messages. */
static const char *shown(const char *w, size_t n, char *buf, size_t cap)
{
	size_t j = 0;

	for (size_t i = 0; i < n && j + 5 < cap; i++) {
		unsigned char c = (unsigned char)w[i];

		if (isprint(c)) {
			buf[j++] = (char)c;
		} else {
			snprintf(buf + j, cap - j, "\\x%02x", c);
			j += 4;
		}
	}
	if (n && j + 5 >= cap && j >= 3)
		memcpy(buf + j - 3, "...", 3);
	buf[j] = 0;
	return buf;
}

/*
 * The next logical line into buf: continuations joined, the comment removed.
 * @return 1 with a line, 0 at the end, -EINVAL when it is too long
 */
static int next_line(struct parser *ps, char *buf, size_t cap)
{
	size_t n = 0;
	bool quoted = false, comment = false;

	if (!*ps->p)
		return 0;
	ps->at = ps->line;
	for (; *ps->p; ps->p++) {
		char c = *ps->p;

		if (c == '\\' && ps->p[1] == '\n') {
			ps->p++;
			ps->line++;
			if (n + 1 < cap && !comment)
				buf[n++] = ' ';
			continue;
		}
		if (c == '\n') {
			ps->p++;
			ps->line++;
			break;
		}
		if (comment)
			continue;
		if (c == '"')
			quoted = !quoted;
		if (c == '#' && !quoted) {
			comment = true;
			continue;
		}
		if (n + 1 >= cap)
			return fail(ps, "line longer than %zu characters", cap - 1);
		buf[n++] = c;
	}
	buf[n] = 0;
	return 1;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* ---- options ---- */

static bool parse_u64(const char *s, size_t n, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (n == 0 || n > 20)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (x > (max - (uint64_t)(s[i] - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return true;
}

static int parse_opt(struct parser *ps, const char *w, size_t n, struct nfs_export_opts *o)
{
	const char *eq = memchr(w, '=', n);
	size_t nl = eq ? (size_t)(eq - w) : n;
	const char *val = eq ? eq + 1 : NULL;
	size_t vl = eq ? n - nl - 1 : 0;
	char b1[80], b2[80];
	uint64_t v;

	for (size_t i = 0; i < OPT_ROWS; i++) {
		const struct opt_row *r = &opt_table[i];
		bool wants_value = r->kind == OPT_ID || r->kind == OPT_FSID || r->kind == OPT_SEC;

		if (strlen(r->name) != nl || memcmp(r->name, w, nl) != 0)
			continue;
		if (wants_value && !eq)
			return fail(ps, "option '%s' needs a value (%s=...)", r->name, r->name);
		if (!wants_value && eq)
			return fail(ps, "option '%s' takes no value", shown(w, n, b1, sizeof(b1)));
		switch (r->kind) {
		case OPT_SET:
		case OPT_CLEAR:
			*(bool *)((char *)o + r->off) = r->kind == OPT_SET;
			return 0;
		case OPT_IGNORE:
			return 0;
		case OPT_ID:
			if (!parse_u64(val, vl, UINT32_MAX, &v))
				return fail(ps, "'%s': %s needs a number 0..4294967295",
					    shown(w, n, b1, sizeof(b1)), r->name);
			*(uint32_t *)((char *)o + r->off) = (uint32_t)v;
			return 0;
		case OPT_FSID:
			if (vl == 4 && memcmp(val, "root", 4) == 0)
				return fail(ps,
					    "'fsid=root' (the NFSv4 pseudo-root) is not supported: "
					    "use fsid=N");
			if (!parse_u64(val, vl, UINT64_MAX, &v))
				return fail(ps,
					    "'%s': fsid needs a number (UUIDs are not supported)",
					    shown(w, n, b1, sizeof(b1)));
			o->fsid_set = true;
			o->fsid = v;
			return 0;
		case OPT_SEC:
			/* sec=a:b:c lists flavors; only AUTH_SYS is served */
			for (size_t s = 0; s < vl;) {
				size_t e = s;

				while (e < vl && val[e] != ':')
					e++;
				if (e - s != 3 || memcmp(val + s, "sys", 3) != 0)
					return fail(
						ps,
						"security flavor '%s' in '%s' is not supported: "
						"only sec=sys",
						shown(val + s, e - s, b1, sizeof(b1)),
						shown(w, n, b2, sizeof(b2)));
				s = e + 1;
			}
			if (vl == 0)
				return fail(ps, "'sec=' needs a flavor: sec=sys");
			return 0;
		}
	}
	return fail(ps, "unknown option '%s' (accepted: %s)", shown(w, n, b1, sizeof(b1)),
		    opts_accepted);
}

static int parse_opts(struct parser *ps, const char *w, size_t n, struct nfs_export_opts *o)
{
	size_t s = 0;

	while (s <= n) {
		size_t e = s;
		int rc;

		while (e < n && w[e] != ',')
			e++;
		if (e == s) {
			if (n == 0)
				return 0; /* "()" */
			return fail(ps, "empty option in '(%.*s)'", (int)(n > 60 ? 60 : n), w);
		}
		rc = parse_opt(ps, w + s, e - s, o);
		if (rc)
			return rc;
		s = e + 1;
	}
	return 0;
}

/* ---- clients ---- */

static void mask_prefix(uint8_t *a, size_t bytes, unsigned prefix)
{
	for (size_t i = 0; i < bytes; i++) {
		unsigned have = prefix > i * 8 ? prefix - (unsigned)i * 8 : 0;

		if (have >= 8)
			continue;
		a[i] &= (uint8_t)(0xff00u >> have);
	}
}

/* "a.b.c.d" as a contiguous netmask: its prefix length, or -1 */
static int mask_to_prefix(const char *s)
{
	struct in_addr m;
	uint32_t v;
	int len = 0;

	if (inet_pton(AF_INET, s, &m) != 1)
		return -1;
	v = ntohl(m.s_addr);
	while (len < 32 && (v & 0x80000000u)) {
		v <<= 1;
		len++;
	}
	return v ? -1 : len;
}

static bool host_name_ok(const char *s, size_t n)
{
	if (n == 0 || n >= sizeof(((struct nfs_export_client *)0)->host))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!isalnum(c) && c != '.' && c != '-' && c != '_')
			return false;
	}
	return s[0] != '-' && s[0] != '.';
}

static int parse_client(struct parser *ps, const char *w, size_t n, struct nfs_export_client *c)
{
	char s[300], b[80];
	const char *slash;

	if (n == 1 && w[0] == '*') {
		c->kind = NFS_CLIENT_ANY;
		return 0;
	}
	if (n >= sizeof(s))
		return fail(ps, "client '%s' is too long", shown(w, n, b, sizeof(b)));
	memcpy(s, w, n);
	s[n] = 0;
	if (s[0] == '@')
		return fail(ps, "client '%s': netgroups are not supported (accepted: %s)", s,
			    clients_accepted);
	if (strpbrk(s, "*?[]"))
		return fail(ps, "client '%s': wildcard host names are not supported (accepted: %s)",
			    shown(w, n, b, sizeof(b)), clients_accepted);
	slash = strchr(s, '/');
	if (slash) {
		const char *pl = slash + 1;
		uint64_t len;
		int ml;

		s[slash - s] = 0;
		if (inet_pton(AF_INET, s, c->addr) == 1) {
			c->kind = NFS_CLIENT_CIDR4;
			if (parse_u64(pl, strlen(pl), 32, &len))
				c->prefix = (uint8_t)len;
			else if (strchr(pl, '.') && (ml = mask_to_prefix(pl)) >= 0)
				c->prefix = (uint8_t)ml;
			else
				return fail(ps,
					    "client '%s': bad prefix '%s' (accepted: 0..32 or a "
					    "contiguous netmask)",
					    shown(w, n, b, sizeof(b)), pl);
			mask_prefix(c->addr, 4, c->prefix);
			return 0;
		}
		if (inet_pton(AF_INET6, s, c->addr) == 1) {
			c->kind = NFS_CLIENT_CIDR6;
			if (!parse_u64(pl, strlen(pl), 128, &len))
				return fail(ps, "client '%s': bad prefix '%s' (accepted: 0..128)",
					    shown(w, n, b, sizeof(b)), pl);
			c->prefix = (uint8_t)len;
			mask_prefix(c->addr, 16, c->prefix);
			return 0;
		}
		return fail(ps, "client '%s' is not a network (accepted: %s)",
			    shown(w, n, b, sizeof(b)), clients_accepted);
	}
	if (inet_pton(AF_INET, s, c->addr) == 1) {
		c->kind = NFS_CLIENT_CIDR4;
		c->prefix = 32;
		return 0;
	}
	if (inet_pton(AF_INET6, s, c->addr) == 1) {
		c->kind = NFS_CLIENT_CIDR6;
		c->prefix = 128;
		return 0;
	}
	if (!host_name_ok(s, n))
		return fail(ps,
			    "client '%s' is not an address, network or host name (accepted: %s)",
			    shown(w, n, b, sizeof(b)), clients_accepted);
	c->kind = NFS_CLIENT_HOST;
	memcpy(c->host, s, n + 1);
	return 0;
}

/* "client(opts)", "client", "(opts)" (everyone) */
static int parse_client_word(struct parser *ps, const char *w, size_t n,
			     const struct nfs_export_opts *defaults, struct nfs_export_client *c)
{
	const char *lp = memchr(w, '(', n);
	size_t cn = lp ? (size_t)(lp - w) : n;
	char b[80];
	int rc;

	memset(c, 0, sizeof(*c));
	c->opts = *defaults;
	if (cn == 0) {
		c->kind = NFS_CLIENT_ANY;
	} else {
		rc = parse_client(ps, w, cn, c);
		if (rc)
			return rc;
	}
	if (!lp)
		return 0;
	if (w[n - 1] != ')' || memchr(lp + 1, '(', n - cn - 1))
		return fail(ps, "'%s': options must be one '(...)' right after the client",
			    shown(w, n, b, sizeof(b)));
	return parse_opts(ps, lp + 1, n - cn - 2, &c->opts);
}

/* ---- lines ---- */

/* The path word: quoted or up to white space; normalized without a trailing '/'. */
static int parse_path(struct parser *ps, const char **cur, char *path)
{
	const char *s = *cur, *e;
	size_t n;
	char b[80];

	if (*s == '"') {
		s++;
		e = strchr(s, '"');
		if (!e)
			return fail(ps, "path '%s' has no closing quote",
				    shown(s - 1, strlen(s - 1), b, sizeof(b)));
		*cur = e + 1;
		if (**cur && !is_space(**cur))
			return fail(ps, "path '%s': white space must follow the closing quote",
				    shown(s - 1, (size_t)(e - s) + 2, b, sizeof(b)));
	} else {
		e = s;
		while (*e && !is_space(*e))
			e++;
		*cur = e;
	}
	n = (size_t)(e - s);
	if (n == 0 || s[0] != '/')
		return fail(ps, "'%s' is not an absolute path (an export line starts with /path)",
			    shown(s, n, b, sizeof(b)));
	if (n >= NFS_PATH_MAX)
		return fail(ps, "path '%s' is longer than %u bytes", shown(s, n, b, sizeof(b)),
			    NFS_PATH_MAX - 1);
	if (memchr(s, 0, n))
		return fail(ps, "path has a NUL byte");
	while (n > 1 && s[n - 1] == '/')
		n--;
	memcpy(path, s, n);
	path[n] = 0;
	return 0;
}

static int parse_line(struct parser *ps, const char *line, struct nfs_export *e)
{
	struct nfs_export_opts defaults;
	const char *cur = line;
	bool fsid_seen = false;
	int rc;

	nfs_export_opts_default(&defaults);
	memset(e, 0, sizeof(*e));
	e->root_fd = -1;
	rc = parse_path(ps, &cur, e->path);
	if (rc)
		return rc;
	for (;;) {
		const char *w;
		size_t n;

		while (is_space(*cur))
			cur++;
		if (!*cur)
			break;
		w = cur;
		while (*cur && !is_space(*cur))
			cur++;
		n = (size_t)(cur - w);
		if (w[0] == '-') {
			rc = parse_opts(ps, w + 1, n - 1, &defaults);
			if (rc)
				return rc;
			continue;
		}
		if (e->nclients == NFS_EXPORT_CLIENTS_MAX)
			return fail(ps, "more than %u clients for %s", NFS_EXPORT_CLIENTS_MAX,
				    e->path);
		rc = parse_client_word(ps, w, n, &defaults, &e->clients[e->nclients]);
		if (rc)
			return rc;
		e->nclients++;
	}
	if (e->nclients == 0) {
		/* no client: everyone, with the line's defaults (exportfs warns, then does so) */
		e->clients[0].kind = NFS_CLIENT_ANY;
		e->clients[0].opts = defaults;
		e->nclients = 1;
	}
	for (uint32_t i = 0; i < e->nclients && !fsid_seen; i++) {
		if (e->clients[i].opts.fsid_set) {
			e->fsid = e->clients[i].opts.fsid;
			fsid_seen = true;
		}
	}
	return 0;
}

int nfs_exports_parse(const char *text, struct nfs_export *out, uint32_t cap, char *err,
		      size_t errlen)
{
	struct parser ps = {.p = text, .line = 1, .at = 1, .err = err, .errlen = errlen};
	uint32_t n = 0;
	char line[LINE_MAX_CHARS];
	int rc;

	if (errlen)
		err[0] = 0;
	while ((rc = next_line(&ps, line, LINE_MAX_CHARS)) == 1) {
		const char *s = line;

		while (is_space(*s))
			s++;
		if (!*s)
			continue;
		if (n == cap) {
			fail(&ps, "more than %u exports", cap);
			rc = -ENOSPC;
			break;
		}
		rc = parse_line(&ps, s, &out[n]);
		if (rc)
			break;
		for (uint32_t i = 0; i < n; i++) {
			if (strcmp(out[i].path, out[n].path) == 0) {
				rc = fail(&ps,
					  "'%s' is exported twice (merge its clients into one "
					  "line)",
					  out[n].path);
				break;
			}
		}
		if (rc)
			break;
		n++;
	}
	return rc < 0 ? rc : (int)n;
}

/* ---- host names ---- */

int nfs_exports_resolve(struct nfs_export *exp, uint32_t n, char *err, size_t errlen)
{
	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t j = 0; j < exp[i].nclients; j++) {
			struct nfs_export_client *c = &exp[i].clients[j];
			struct addrinfo hints = {.ai_family = AF_UNSPEC,
						 .ai_socktype = SOCK_STREAM};
			struct addrinfo *res = NULL;
			int rc;

			if (c->kind != NFS_CLIENT_HOST)
				continue;
			rc = getaddrinfo(c->host, NULL, &hints, &res);
			if (rc != 0) {
				snprintf(err, errlen, "export %s: host '%s' does not resolve (%s)",
					 exp[i].path, c->host, gai_strerror(rc));
				return -EHOSTUNREACH;
			}
			c->naddrs = 0;
			for (struct addrinfo *a = res; a && c->naddrs < NFS_CLIENT_ADDRS_MAX;
			     a = a->ai_next) {
				uint8_t *d = c->addrs[c->naddrs];
				bool dup = false;

				if (a->ai_family == AF_INET) {
					const struct sockaddr_in *s4 = (const void *)a->ai_addr;

					memset(d, 0, 10);
					d[10] = d[11] = 0xff;
					memcpy(d + 12, &s4->sin_addr, 4);
				} else if (a->ai_family == AF_INET6) {
					const struct sockaddr_in6 *s6 = (const void *)a->ai_addr;

					memcpy(d, &s6->sin6_addr, 16);
				} else {
					continue;
				}
				for (uint32_t k = 0; k < c->naddrs; k++)
					dup |= memcmp(c->addrs[k], d, 16) == 0;
				if (!dup)
					c->naddrs++;
			}
			freeaddrinfo(res);
		}
	}
	return 0;
}

/* ---- matching ---- */

static bool prefix_eq(const uint8_t *a, const uint8_t *b, unsigned bits)
{
	size_t whole = bits / 8;
	unsigned rest = bits % 8;

	if (memcmp(a, b, whole) != 0)
		return false;
	if (!rest)
		return true;
	return ((a[whole] ^ b[whole]) & (uint8_t)(0xff00u >> rest)) == 0;
}

static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* The peer as 16 bytes (IPv4 mapped into IPv6); false for other families. */
static bool peer_addr(const struct sockaddr_storage *peer, uint8_t a[16])
{
	if (peer->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)peer;

		memcpy(a, v4mapped, 12);
		memcpy(a + 12, &s4->sin_addr, 4);
		return true;
	}
	if (peer->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)peer;

		memcpy(a, &s6->sin6_addr, 16);
		return true;
	}
	return false;
}

static bool client_matches(const struct nfs_export_client *c, const uint8_t a[16], bool known)
{
	switch (c->kind) {
	case NFS_CLIENT_ANY:
		return true;
	case NFS_CLIENT_CIDR4:
		return known && memcmp(a, v4mapped, 12) == 0 &&
		       prefix_eq(a + 12, c->addr, c->prefix > 32 ? 32 : c->prefix);
	case NFS_CLIENT_CIDR6:
		return known && prefix_eq(a, c->addr, c->prefix > 128 ? 128 : c->prefix);
	case NFS_CLIENT_HOST:
		for (uint32_t i = 0; known && i < c->naddrs && i < NFS_CLIENT_ADDRS_MAX; i++)
			if (memcmp(a, c->addrs[i], 16) == 0)
				return true;
		return false;
	}
	return false;
}

const struct nfs_export_client *nfs_export_match(const struct nfs_export *exp,
						 const struct sockaddr_storage *peer)
{
	uint8_t a[16];
	bool known = peer_addr(peer, a);

	for (uint32_t i = 0; i < exp->nclients && i < NFS_EXPORT_CLIENTS_MAX; i++)
		if (client_matches(&exp->clients[i], a, known))
			return &exp->clients[i];
	return NULL;
}

/* ---- squashing ---- */

bool nfs_export_squash(const struct nfs_export_opts *o, const struct nfs_cred *in,
		       struct nfs_cred *out)
{
	bool changed = false;

	*out = *in;
	if (out->ngroups > NFS_MAX_GROUPS)
		out->ngroups = NFS_MAX_GROUPS;
	if (in->flavor == 0 || o->all_squash) {
		changed = in->uid != o->anonuid || in->gid != o->anongid || in->ngroups != 0;
		out->uid = o->anonuid;
		out->gid = o->anongid;
		out->ngroups = 0;
		return changed;
	}
	if (!o->root_squash)
		return false;
	if (out->uid == 0) {
		out->uid = o->anonuid;
		changed = true;
	}
	if (out->gid == 0) {
		out->gid = o->anongid;
		changed = true;
	}
	for (uint32_t i = 0; i < out->ngroups; i++) {
		if (out->groups[i] == 0) {
			out->groups[i] = o->anongid;
			changed = true;
		}
	}
	return changed;
}
