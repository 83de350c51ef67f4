/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * roce_cm_event.c - the CM's side facing the application: the event queue (a ring, and an
 * overflow list so that no event is ever dropped, issue 11 item 9), the event names, and the
 * counters and telemetry. Split out of roce_cm.c (same behaviour); the state machine itself
 * stays there.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_telemetry.h>

#include "roce_cm_int.h"

#define CM_EV_NAME_(n) #n,
static const char *const cm_event_names[] = {ROCE_CM_EVENT_LIST(CM_EV_NAME_)};

const char *roce_cm_event_str(enum roce_cm_event_type e)
{
	return (unsigned)e < RTE_DIM(cm_event_names) ? cm_event_names[e] : "?";
}

/*
 * Queue an event for the application. Events are never dropped: the ring holds CM_EVENTS;
 * beyond that they wait, in order, on an overflow list that roce_cm_get_event() moves into the
 * ring as it empties. What bounds the list is that new REQs and SIDR_REQs are refused while
 * roce_cmi_events_full() (issue 11 item 9), so only connections that already exist add
 * events, a few each. @return the event, for the caller to add the peer's parameters to;
 * NULL only if no memory is left for the overflow (counted as events_dropped).
 */
struct roce_cm_event *roce_cmi_post_event(struct roce_cm *cm, struct cm_conn *c,
					  enum roce_cm_event_type t, int status, const void *pdata,
					  size_t plen)
{
	struct roce_cm_event *e;

	if (cm->ev_head - cm->ev_tail < CM_EVENTS && !cm->ovf_head) {
		e = &cm->ev[cm->ev_head % CM_EVENTS];
		cm->ev_head++;
	} else {
		struct cm_ev_node *n = rte_malloc("roce_cm_ev", sizeof(*n), 0);

		if (!n) {
			cm->st.events_dropped++;
			return NULL;
		}
		n->next = NULL;
		if (cm->ovf_tail)
			cm->ovf_tail->next = n;
		else
			cm->ovf_head = n;
		cm->ovf_tail = n;
		cm->ovf_count++;
		cm->st.events_deferred++;
		e = &n->ev;
	}
	memset(e, 0, offsetof(struct roce_cm_event, private_data));
	e->event = t;
	e->status = status;
	e->id = &c->id;
	e->listen_id = c->listener ? &c->listener->id : NULL;
	if (plen > sizeof(e->private_data))
		plen = sizeof(e->private_data);
	if (pdata && plen)
		memcpy(e->private_data, pdata, plen);
	e->private_data_len = (uint8_t)plen;
	cm->st.events++;
	return e;
}

bool roce_cmi_events_full(const struct roce_cm *cm)
{
	return cm->ev_head - cm->ev_tail + cm->ovf_count >= CM_EVENTS;
}

/* the ring has room: the oldest waiting events move up */
static void refill_events(struct roce_cm *cm)
{
	while (cm->ovf_head && cm->ev_head - cm->ev_tail < CM_EVENTS) {
		struct cm_ev_node *n = cm->ovf_head;

		cm->ev[cm->ev_head % CM_EVENTS] = n->ev;
		cm->ev_head++;
		cm->ovf_head = n->next;
		cm->ovf_count--;
		rte_free(n);
	}
	if (!cm->ovf_head)
		cm->ovf_tail = NULL;
}

int roce_cm_get_event(struct roce_cm *cm, struct roce_cm_event *ev)
{
	if (!cm || !ev)
		return -EINVAL;
	if (cm->ev_head == cm->ev_tail)
		return -EAGAIN;
	*ev = cm->ev[cm->ev_tail % CM_EVENTS];
	cm->ev_tail++;
	refill_events(cm);
	return 0;
}

/* drop the queued events of an identifier that goes away */
void roce_cmi_purge_events(struct roce_cm *cm, struct roce_cm_id *id)
{
	struct cm_ev_node **pp = &cm->ovf_head, *last = NULL;
	uint32_t w = cm->ev_tail;

	for (uint32_t r = cm->ev_tail; r != cm->ev_head; r++) {
		struct roce_cm_event *e = &cm->ev[r % CM_EVENTS];

		if (e->id == id)
			continue;
		if (e->listen_id == id)
			e->listen_id = NULL;
		if (w != r)
			cm->ev[w % CM_EVENTS] = *e;
		w++;
	}
	cm->ev_head = w;
	while (*pp) {
		struct cm_ev_node *n = *pp;

		if (n->ev.id == id) {
			*pp = n->next;
			cm->ovf_count--;
			rte_free(n);
			continue;
		}
		if (n->ev.listen_id == id)
			n->ev.listen_id = NULL;
		last = n;
		pp = &n->next;
	}
	cm->ovf_tail = last;
	refill_events(cm);
}

void roce_cm_stats(const struct roce_cm *cm, struct roce_cm_stats *s)
{
	*s = cm->st;
}

int roce_cm_listen_stats(const struct roce_cm_id *id, struct roce_cm_listen_stats *s)
{
	const struct cm_conn *c = (const struct cm_conn *)id;

	if (!id || !s || c->state != CM_LISTEN)
		return -EINVAL;
	*s = c->lst;
	s->pending = (uint64_t)c->pending;
	return 0;
}

void roce_cm_telemetry(const struct roce_cm *cm, struct rte_tel_data *d)
{
	static const char *const names[] = {"ids",
					    "rx_mads",
					    "tx_mads",
					    "retransmits",
					    "rx_drop_bad",
					    "rx_drop_nomatch",
					    "rx_dup",
					    "rej_sent",
					    "rej_no_listener",
					    "rej_backlog",
					    "rej_stale",
					    "events",
					    "events_dropped",
					    "rx_drop_peer_addr",
					    "rx_drop_comm_id",
					    "rej_events_full",
					    "half_open_expired",
					    "events_deferred",
					    "tx_drop",
					    "tx_waited"};
	const uint64_t *v = (const uint64_t *)&cm->st;
	char key[40];

	_Static_assert(sizeof(struct roce_cm_stats) == sizeof(names) / sizeof(names[0]) * 8,
		       "one name per counter");
	rte_tel_data_start_dict(d);
	for (unsigned i = 0; i < RTE_DIM(names); i++)
		rte_tel_data_add_dict_u64(d, names[i], v[i]);
	rte_tel_data_add_dict_u64(d, "events_queued",
				  cm->ev_head - cm->ev_tail + (uint64_t)cm->ovf_count);
	/* each listener's requests and refusals (issue 11 item 9); the first 64 listeners, so
	 * the dictionary stays within RTE_TEL_MAX_DICT_ENTRIES */
	for (unsigned i = 0, shown = 0; i < CM_MAX_IDS && shown < 64; i++) {
		const struct cm_conn *l = cm->tab[i];
		struct roce_cm_listen_stats ls;
		struct rte_tel_data *x;

		if (!l || roce_cm_listen_stats(&l->id, &ls) != 0)
			continue;
		x = rte_tel_data_alloc();
		if (!x)
			break;
		rte_tel_data_start_dict(x);
		rte_tel_data_add_dict_u64(x, "pending", ls.pending);
		rte_tel_data_add_dict_u64(x, "requests", ls.requests);
		rte_tel_data_add_dict_u64(x, "rej_backlog", ls.rej_backlog);
		rte_tel_data_add_dict_u64(x, "rej_events_full", ls.rej_events_full);
		rte_tel_data_add_dict_u64(x, "half_open_expired", ls.half_open_expired);
		snprintf(key, sizeof(key), "listen_%s_%u",
			 l->id.ps == ROCE_CM_PS_TCP ? "tcp" : "udp", l->id.local_port);
		rte_tel_data_add_dict_container(d, key, x, 0);
		shown++;
	}
	/* how often each state was entered (STYLE 4: the setter counts) */
	for (unsigned i = 0; i < CM_NUM_STATES; i++) {
		snprintf(key, sizeof(key), "entered_%s", roce_cmi_state_name((enum cm_state)i));
		rte_tel_data_add_dict_u64(d, key, cm->state_cnt[i]);
	}
}
