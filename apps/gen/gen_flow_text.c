/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_flow_text.c - droce-gen flow mode's text: the operation mix, the size mix and the keys
 * of the manual exchange (gen_flow_text.h, docs/gen.md). Bounded parsers over NUL-terminated
 * strings; nothing is allocated.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_flow.h"
#include "gen_flow_text.h"

static const char *const verb_names[GEN_FLOW_NUM_VERBS] = {"write", "read", "send", "atomic"};

const char *gen_flow_verb_name(enum gen_flow_verb v)
{
	return (unsigned)v < GEN_FLOW_NUM_VERBS ? verb_names[v] : "?";
}

/* ------------------------------------------------------------------ the operation mix */

static int verb_of(const char *s, size_t n)
{
	for (int v = 0; v < GEN_FLOW_NUM_VERBS; v++)
		if (strlen(verb_names[v]) == n && strncmp(s, verb_names[v], n) == 0)
			return v;
	return -1;
}

int gen_flow_parse_mix(const char *s, struct gen_flow_mix *m)
{
	const char *p = s;

	memset(m, 0, sizeof(*m));
	if (strcmp(s, "ud") == 0) {
		m->ud = 1;
		m->weight[GEN_FLOW_SEND] = 1;
		m->wsum = 1;
		return 0;
	}
	while (*p) {
		size_t n = strcspn(p, ":,");
		int v = verb_of(p, n);
		unsigned long w = 1;
		char *end = (char *)p + n;

		if (v < 0 || m->weight[v])
			goto bad; /* unknown, or named twice */
		if (*end == ':') {
			if (end[1] < '0' || end[1] > '9')
				goto bad;
			errno = 0;
			w = strtoul(end + 1, &end, 10);
			if (errno || w < 1 || w > 1000)
				goto bad;
		}
		if (*end != ',' && *end != '\0')
			goto bad;
		if (*end == ',' && end[1] == '\0')
			goto bad; /* a trailing comma: an empty item */
		m->weight[v] = (uint32_t)w;
		m->wsum += (uint32_t)w;
		p = *end ? end + 1 : end;
	}
	if (m->wsum)
		return 0;
bad:
	memset(m, 0, sizeof(*m));
	return -1;
}

void gen_flow_format_mix(const struct gen_flow_mix *m, char *buf, size_t n)
{
	size_t off = 0;

	if (!n)
		return;
	buf[0] = '\0';
	if (m->ud) {
		snprintf(buf, n, "ud");
		return;
	}
	for (int v = 0; v < GEN_FLOW_NUM_VERBS && off < n; v++) {
		int k;

		if (!m->weight[v])
			continue;
		k = m->weight[v] == 1
			    ? snprintf(buf + off, n - off, "%s%s", off ? "," : "", verb_names[v])
			    : snprintf(buf + off, n - off, "%s%s:%" PRIu32, off ? "," : "",
				       verb_names[v], m->weight[v]);
		if (k < 0)
			return;
		off += (size_t)k;
	}
}

/* ------------------------------------------------------------------ the size mix */

static int parse_size(const char *s, char **end, uint32_t *out)
{
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, end, 10);
	if (errno || *end == s)
		return -1;
	if (v > GEN_FLOW_MAX_SIZE)
		return -1; /* before any shift can wrap */
	if (**end == 'k' || **end == 'K')
		v <<= 10, (*end)++;
	else if (**end == 'm' || **end == 'M')
		v <<= 20, (*end)++;
	if (v < 1 || v > GEN_FLOW_MAX_SIZE)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int gen_flow_parse_sizes(const char *s, uint32_t size[GEN_FLOW_MAX_SIZES],
			 uint32_t weight[GEN_FLOW_MAX_SIZES])
{
	const char *p = s;
	int n = 0;

	while (*p) {
		char *end;
		uint32_t sz, w = 1;

		if (n == GEN_FLOW_MAX_SIZES || parse_size(p, &end, &sz) != 0)
			goto bad;
		if (*end == ':') {
			unsigned long x;

			if (end[1] < '0' || end[1] > '9')
				goto bad;
			errno = 0;
			x = strtoul(end + 1, &end, 10);
			if (errno || x < 1 || x > 1000)
				goto bad;
			w = (uint32_t)x;
		}
		if (*end != ',' && *end != '\0')
			goto bad;
		if (*end == ',' && end[1] == '\0')
			goto bad; /* a trailing comma: an empty item */
		size[n] = sz;
		weight[n++] = w;
		p = *end ? end + 1 : end;
	}
	if (n)
		return n;
bad:
	return -1;
}

/* ------------------------------------------------------------------ the keys */

/* Each key: its name, the largest value, and whether it is written in hex. */
static const struct {
	const char *name;
	uint64_t max;
	int hex;
} key_tab[GEN_KEY_NUM] = {
	[GEN_KEY_QPN] = {"qpn", 0xffffff, 1},	  [GEN_KEY_PSN] = {"psn", 0xffffff, 1},
	[GEN_KEY_RKEY] = {"rkey", 0xffffffff, 1}, [GEN_KEY_VA] = {"va", UINT64_MAX, 1},
	[GEN_KEY_LEN] = {"len", 0xffffffff, 0},	  [GEN_KEY_QKEY] = {"qkey", 0xffffffff, 1},
	[GEN_KEY_MTU] = {"mtu", 4096, 0},	  [GEN_KEY_RD_ATOMIC] = {"rd_atomic", 16, 0},
	[GEN_KEY_IP] = {"ip", 0xffffffff, 0},
};

const char *gen_key_name(enum gen_key key)
{
	return (unsigned)key < GEN_KEY_NUM ? key_tab[key].name : "?";
}

static int parse_value(enum gen_key key, const char *s, uint64_t *out)
{
	char *end;

	if (key == GEN_KEY_IP) {
		struct in_addr a;

		if (inet_pton(AF_INET, s, &a) != 1)
			return -1;
		*out = ntohl(a.s_addr);
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -1; /* no sign, no blank: strtoull would take them */
	errno = 0;	   /* hex with 0x, else decimal (a leading 0 is not octal) */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (!isxdigit((unsigned char)s[2]) || s[3] == 'x' || s[3] == 'X')
			return -1; /* strtoull would take a second 0x */
		*out = strtoull(s + 2, &end, 16);
	} else {
		*out = strtoull(s, &end, 10);
	}
	if (errno || *end || *out > key_tab[key].max)
		return -1;
	if (key == GEN_KEY_MTU && *out != 256 && *out != 512 && *out != 1024 && *out != 2048 &&
	    *out != 4096)
		return -1;
	if (key == GEN_KEY_RD_ATOMIC && *out < 1)
		return -1;
	return 0;
}

int gen_keys_parse(const char *line, struct gen_keys *k, char *why, size_t whylen)
{
	const char *p = line;
	int found = 0;

	memset(k, 0, sizeof(*k));
	if (whylen)
		why[0] = '\0';
	for (;;) {
		char word[64];
		size_t n;
		const char *eq;
		int key = -1;

		p += strspn(p, " \t,\r\n");
		if (!*p)
			break;
		n = strcspn(p, " \t,\r\n");
		eq = memchr(p, '=', n);
		if (!eq) {
			p += n; /* a word that is not a key */
			continue;
		}
		for (int i = 0; i < GEN_KEY_NUM; i++)
			if (strlen(key_tab[i].name) == (size_t)(eq - p) &&
			    strncmp(p, key_tab[i].name, (size_t)(eq - p)) == 0)
				key = i;
		if (key < 0) {
			snprintf(why, whylen,
				 "unknown key '%.*s' (expected qpn, psn, rkey, va, len, "
				 "qkey, mtu, rd_atomic or ip)",
				 (int)((eq - p) < 40 ? (eq - p) : 40), p);
			return -1;
		}
		if (k->have & (1u << key)) {
			snprintf(why, whylen, "%s given twice", key_tab[key].name);
			return -1;
		}
		n -= (size_t)(eq + 1 - p);
		if (n == 0 || n >= sizeof(word) ||
		    (memcpy(word, eq + 1, n), word[n] = '\0', parse_value(key, word, &k->v[key])) !=
			    0) {
			snprintf(why, whylen, "%s=%.*s: expected %s", key_tab[key].name,
				 (int)(n < 40 ? n : 40), eq + 1,
				 key == GEN_KEY_IP		  ? "an IPv4 address"
				 : key == GEN_KEY_MTU		  ? "256, 512, 1024, 2048 or 4096"
				 : key == GEN_KEY_RD_ATOMIC	  ? "1 to 16"
				 : key_tab[key].max == 0xffffff	  ? "0 to 0xffffff"
				 : key_tab[key].max == 0xffffffff ? "0 to 0xffffffff"
								  : "a 64-bit number");
			return -1;
		}
		k->have |= 1u << key;
		found++;
		p = eq + 1 + n;
	}
	return found;
}

void gen_keys_format(const struct gen_keys *k, char *buf, size_t n)
{
	size_t off = 0;

	if (!n)
		return;
	buf[0] = '\0';
	for (int i = 0; i < GEN_KEY_NUM && off < n; i++) {
		int w;

		if (!(k->have & (1u << i)))
			continue;
		if (i == GEN_KEY_IP) {
			uint32_t a = (uint32_t)k->v[i];

			w = snprintf(buf + off, n - off, "%sip=%u.%u.%u.%u", off ? " " : "",
				     a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
		} else {
			w = snprintf(buf + off, n - off,
				     key_tab[i].hex ? "%s%s=%#" PRIx64 : "%s%s=%" PRIu64,
				     off ? " " : "", key_tab[i].name, k->v[i]);
		}
		if (w < 0)
			return;
		off += (size_t)w;
	}
}

/* ------------------------------------------------------------------ a profile's consistency */

uint32_t gen_flow_keys_needed(const struct gen_flow_opts *o)
{
	const uint32_t *w = o->mix.weight;
	uint32_t need = 1u << GEN_KEY_QPN;

	if (o->mix.ud) /* over the CM, SIDR_REP gives the QPN and the Q_Key */
		return o->xchg == GEN_XCHG_CM ? 0 : need;
	need |= 1u << GEN_KEY_PSN;
	if (o->xchg == GEN_XCHG_CM) /* the CM exchanges the QPNs and PSNs */
		need &= ~(1u << GEN_KEY_QPN | 1u << GEN_KEY_PSN);
	if (w[GEN_FLOW_WRITE] || w[GEN_FLOW_READ] || w[GEN_FLOW_ATOMIC])
		need |= 1u << GEN_KEY_RKEY | 1u << GEN_KEY_VA | 1u << GEN_KEY_LEN;
	return need;
}

int gen_flow_keys_ok(const struct gen_flow_opts *o, const struct gen_keys *k, char *why,
		     size_t whylen)
{
	const uint32_t *w = o->mix.weight;
	uint32_t need = gen_flow_keys_needed(o), max = 0;
	uint64_t room = w[GEN_FLOW_ATOMIC] ? GEN_FLOW_ATOMIC_ROOM : 0;
	char mix[64];

	gen_flow_format_mix(&o->mix, mix, sizeof(mix));
	for (int i = 0; i < GEN_KEY_NUM; i++)
		if ((need & (1u << i)) && !(k->have & (1u << i))) {
			snprintf(why, whylen, "%s is missing (--flow %s needs %s%s%s)",
				 gen_key_name((enum gen_key)i), mix,
				 o->mix.ud		  ? "qpn"
				 : o->xchg == GEN_XCHG_CM ? "(with --cm) "
							  : "qpn, psn",
				 need & (1u << GEN_KEY_RKEY) ? ", rkey, va and len" : "",
				 o->mix.ud ? ", qkey optional" : "");
			return -1;
		}
	for (uint32_t s = 0; s < o->nsizes; s++)
		max = o->size[s] > max ? o->size[s] : max;
	if (!o->mix.ud && (k->have & (1u << GEN_KEY_QPN)) && k->v[GEN_KEY_QPN] <= 1) {
		snprintf(why, whylen, "qpn=%" PRIu64 ": QPs 0 and 1 are not RC QPs",
			 k->v[GEN_KEY_QPN]);
		return -1;
	}
	if (o->mix.ud && (k->have & (1u << GEN_KEY_MTU)) && max > k->v[GEN_KEY_MTU]) {
		snprintf(why, whylen,
			 "mtu=%" PRIu64 ": a datagram is one packet, and --sizes goes up to %u",
			 k->v[GEN_KEY_MTU], max);
		return -1;
	}
	if (!o->mix.ud && (w[GEN_FLOW_WRITE] || w[GEN_FLOW_READ]) &&
	    k->v[GEN_KEY_LEN] < room + max) {
		snprintf(why, whylen,
			 "len=%" PRIu64
			 " is short: WRITEs and READs of up to %u bytes at va + %" PRIu64
			 " need %" PRIu64,
			 k->v[GEN_KEY_LEN], max, room, room + max);
		return -1;
	}
	if (!o->mix.ud && w[GEN_FLOW_ATOMIC] && (k->v[GEN_KEY_LEN] < 8 || k->v[GEN_KEY_VA] % 8)) {
		snprintf(why, whylen,
			 "atomics at va need va 8-byte aligned and len at least 8 (va=%#" PRIx64
			 " len=%" PRIu64 ")",
			 k->v[GEN_KEY_VA], k->v[GEN_KEY_LEN]);
		return -1;
	}
	if ((k->have & (1u << GEN_KEY_VA)) &&
	    k->v[GEN_KEY_VA] + k->v[GEN_KEY_LEN] < k->v[GEN_KEY_VA]) {
		snprintf(why, whylen, "va + len wraps around");
		return -1;
	}
	return 0;
}

int gen_flow_check(const struct gen_flow_opts *o)
{
	const uint32_t *w = o->mix.weight;
	char mix[64], why[200];

	gen_flow_format_mix(&o->mix, mix, sizeof(mix));
	if (o->xchg == GEN_XCHG_PERFTEST) {
		int one = (w[GEN_FLOW_WRITE] != 0) + (w[GEN_FLOW_READ] != 0) +
			  (w[GEN_FLOW_SEND] != 0) + (w[GEN_FLOW_ATOMIC] != 0);

		if (one != 1) {
			fprintf(stderr,
				"droce-gen: --flow %s: a perftest server takes write (ib_write_bw), "
				"read (ib_read_bw), send (ib_send_bw), ud (ib_send_bw -c UD) or "
				"atomic (ib_atomic_bw, FETCH_AND_ADD) alone; a mix needs a peer that "
				"gives its keys: --manual\n",
				mix);
			return -1;
		}
		if (w[GEN_FLOW_SEND] && !o->iters) {
			fprintf(stderr,
				"droce-gen: --flow %s to a perftest server: ib_send_bw's server "
				"counts its receives and waits for exactly its -n per QP, so give "
				"--iters N with the server's -n%s\n",
				mix,
				o->mix.ud ? " (and no more than its receive queue holds: a "
					    "datagram that finds no receive is dropped, and the "
					    "server then waits for ever)"
					  : "");
			return -1;
		}
		return 0;
	}
	if (o->xchg == GEN_XCHG_CM && o->mix.ud && o->nkeys) {
		fprintf(stderr, "droce-gen: --cm --flow ud: the peer's QPN and Q_Key come from its "
				"SIDR_REP; --keys names them without the CM (one or the other)\n");
		return -1;
	}
	if (o->xchg == GEN_XCHG_CM && (o->dscp_set || o->pcp_set)) {
		fprintf(stderr, "droce-gen: --cm: the CM sets the QPs' path, so --dscp and --pcp "
				"(the QPs' own marking) do not go with it; the port's RoCE class "
				"applies\n");
		return -1;
	}
	if (o->xchg == GEN_XCHG_CM && o->nkeys != 1 && o->nkeys != o->qps &&
	    (gen_flow_keys_needed(o) || o->nkeys)) {
		fprintf(stderr,
			"droce-gen: --cm --flow %s: the peer's region (--keys rkey=K,va=A,len=N) "
			"once for every QP, or once per QP (given %u times for %u QPs)\n",
			mix, o->nkeys, o->qps);
		return -1;
	}
	if (o->xchg == GEN_XCHG_KEYS && !o->mix.ud) {
		fprintf(stderr,
			"droce-gen: --keys is for --flow ud: an RC peer must know droce's QPN "
			"and PSN before droce sends, so RC takes --manual (ours printed, "
			"theirs read from stdin)\n");
		return -1;
	}
	if (o->xchg == GEN_XCHG_KEYS && o->nkeys != 1 && o->nkeys != o->qps) {
		fprintf(stderr,
			"droce-gen: --keys given %u times for %u QPs: give it once (every QP sends "
			"to that peer) or once per QP\n",
			o->nkeys, o->qps);
		return -1;
	}
	if (o->xchg != GEN_XCHG_KEYS && o->xchg != GEN_XCHG_CM && o->nkeys) {
		fprintf(stderr, "droce-gen: --keys and --manual are two ways to give the peer's "
				"keys: one of them\n");
		return -1;
	}
	if (o->mix.ud)
		for (uint32_t s = 0; s < o->nsizes; s++)
			if (o->size[s] > 4096) {
				fprintf(stderr,
					"droce-gen: --flow ud: a datagram is one packet: --sizes "
					"at most the path MTU (4096 at most), not %u\n",
					o->size[s]);
				return -1;
			}
	for (uint32_t i = 0; i < o->nkeys; i++)
		if (gen_flow_keys_ok(o, &o->keys[i], why, sizeof(why)) != 0) {
			fprintf(stderr, "droce-gen: --keys (%u): %s\n", i + 1, why);
			return -1;
		}
	return 0;
}
