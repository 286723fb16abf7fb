/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The packet-level table arbiter under offered loads (see arb_ib_load.h).
 *
 * The arbiter is arb_ib_sim.c's, step for step, with one difference: an
 * entry is passed over while its queue has no packet waiting (the
 * arbiter is work-conserving), so a light SL's unused turns go to the
 * entries that follow it in its own table, as a port does, and not to
 * every other SL in proportion. With every offered queue saturated it
 * is the same machine as arb_ib_sim.c (tests/unit/test_arb_load.c holds
 * the two equal). What the specification leaves open beyond that is
 * read as follows:
 *  - one deficit per queue, or per queue and table (sem.deficit_per_table);
 *  - a visit whose queue empties closes at the next decision; with carry,
 *    unspent credit is dropped when the queue is empty (deficit round
 *    robin: an idle queue saves nothing), an overshoot stays owed;
 *  - when the high table has nothing to send the low table is served,
 *    and that counts as the low table's opportunity (the limit restarts);
 *  - SLs sharing a queue are served one packet each in turn among those
 *    with a packet waiting (their hosts interleave): a queue's packet
 *    size is the mix of the SLs that offer traffic, in proportion to
 *    what each sends.
 * Arrivals: each light SL sends its packets at a constant gap (its
 * load), its first at the phase of spec->phase_draw, or at exponential
 * gaps of the same mean (Poisson); a saturating SL always has a packet.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "qos/arb_ib_load.h"
#include "qos/arb_ib_sim.h"

enum { LD_HIGH, LD_LOW };

#define LD_STEPPED	8	/* arrivals of a constant gap stepped one by one */

struct ld_table {
	const struct arb_table *t;
	uint16_t queues;	/* queues of its weighted entries */
	uint64_t entries_of[ARB_NUM_VLS];	/* positions of each queue's */
	int pos;		/* the open entry, or the next to visit */
	bool open;
	int64_t credit;		/* bytes, of the open visit */
	int64_t *def;		/* the deficits it carries */
	uint64_t moved;		/* entries its position has moved past */
};

struct ld {
	const struct arb_load_spec *spec;
	enum arb_ib_mode mode;
	struct ld_table tab[2];
	int64_t limit_bytes, high_sent;
	int phase;
	int64_t deficit[2][ARB_NUM_VLS];	/* per table, or [0] for both */
	/* per SL */
	bool sat[ARB_NUM_SLS];
	double next_ns[ARB_NUM_SLS], gap_ns[ARB_NUM_SLS];
	double packet_ns[ARB_NUM_SLS];	/* a packet's time on the link */
	uint64_t waiting[ARB_NUM_SLS];
	uint16_t ready;			/* SLs with a packet: saturating or waiting */
	/* the light SLs whose queue a table serves: only their arrivals matter */
	int light[ARB_NUM_SLS], n_light;
	double next_arrival_ns;		/* the first of their next arrivals */
	/* per queue */
	uint16_t queue_sls[ARB_NUM_VLS];	/* SLs that offer to it */
	int sat_sls[ARB_NUM_VLS];
	uint64_t waiting_q[ARB_NUM_VLS];
	int rr[ARB_NUM_VLS];		/* the SL whose turn is next */
	uint64_t head_since[ARB_NUM_VLS];	/* packet count when first waiting */
	uint16_t avail;			/* queues with a packet waiting */
	uint64_t sent;			/* packets sent so far */
	bool low_sent;			/* the low entry turn has sent a packet */
	uint64_t low_from;		/* the low table's moved at the turn's start */
	uint64_t empty_low_turns;	/* low entry turns that found none */
	uint64_t work;			/* steps, arrivals and entries looked at */
	double now_ns;
	uint64_t rng;
};

static double ld_uniform(struct ld *m)
{
	m->rng ^= m->rng >> 12;
	m->rng ^= m->rng << 25;
	m->rng ^= m->rng >> 27;
	return ((m->rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

/* An exponential draw of mean 1. */
static double ld_exp(struct ld *m)
{
	double u;

	do
		u = ld_uniform(m);
	while (u <= 0);
	return -log(u);
}

/* The gap to an SL's next packet: constant, or exponential (Poisson). */
static double ld_gap(struct ld *m, int sl)
{
	if (!m->spec->poisson)
		return m->gap_ns[sl];
	return ld_exp(m) * m->gap_ns[sl];
}

static bool ld_entry_ok(const struct arb_entry *e)
{
	return e->weight && e->vl < ARB_VL15;
}

/* The table's position to its next entry, wrapping at its end. */
static void ld_advance(struct ld_table *t)
{
	t->moved++;
	if (++t->pos == t->t->n_entries)
		t->pos = 0;
}

/*
 * The SL whose packet queue @q sends next (one each in turn): the first
 * SL from rr[q] on, cyclically, that offers to @q and has a packet.
 */
static int ld_pick(const struct ld *m, int q)
{
	uint32_t can = m->queue_sls[q] & m->ready;
	uint32_t on = can & (0xffffu << m->rr[q]);

	if (!can)
		return -1;
	return __builtin_ctz(on ? on : can);
}

static bool ld_has(const struct ld *m, int q)
{
	return m->avail & (1u << q);
}

/* Whether @credit lets queue @q send its next packet. */
static bool ld_can(const struct ld *m, int q, int64_t credit)
{
	int sl;

	if (!m->spec->deficit_round)
		return credit > 0;
	sl = ld_pick(m, q);
	return sl >= 0 && credit >= (int64_t)m->spec->packet_bytes[sl];
}

/*
 * Close the open visit: when carried, its leftover joins the queue's
 * deficit (to which a visit of the queue in the other table may have
 * added since this one opened); an idle queue keeps no credit.
 */
static void ld_close(struct ld *m, struct ld_table *t)
{
	int q = t->t->entries[t->pos].vl;

	if (m->spec->sem.carry) {
		t->def[q] += ld_has(m, q) || t->credit < 0 ? t->credit : 0;
		if (!ld_has(m, q) && t->def[q] > 0)
			t->def[q] = 0;
	}
	t->open = false;
	t->credit = 0;
	ld_advance(t);
}

/* Positions @from to @from + @n - 1, cyclically, of a table of @size (n <= size). */
static uint64_t ld_span(int from, int n, int size)
{
	int head = size - from;		/* positions from @from to the end */
	uint64_t first;

	if (n <= head)
		return (n == 64 ? ~0ull : (1ull << n) - 1) << from;
	first = (head == 64 ? ~0ull : (1ull << head) - 1) << from;
	return first | ((1ull << (n - head)) - 1);
}

/*
 * Pass over the entries from the table's position that cannot be
 * visited (no weight, or their queue has nothing), at most @max of them,
 * up to the next that can: what visiting them one by one would do, at
 * once. With carry, the queues passed over lose a positive deficit (an
 * idle queue saves nothing). Returns how many were passed over (one at
 * least: the caller found the first one idle).
 */
static int ld_pass_over(struct ld *m, struct ld_table *t, int max)
{
	int n = t->t->n_entries, pos = t->pos, d, q;
	uint64_t can = 0, later, over;

	for (q = 0; q < ARB_NUM_VLS; q++)
		if (ld_has(m, q))
			can |= t->entries_of[q];
	later = can >> pos;
	d = later ? __builtin_ctzll(later) : can ? n - pos + __builtin_ctzll(can) : n;
	if (d > max)
		d = max;
	if (m->spec->sem.carry) {
		over = ld_span(pos, d, n);
		for (q = 0; q < ARB_NUM_VLS; q++)
			if ((t->entries_of[q] & over) && t->def[q] > 0)
				t->def[q] = 0;
	}
	t->pos = (pos + d) % n;
	t->moved += d;
	return d;
}

/*
 * Visit entries from the table's position until one can send, passing
 * over those whose queue has nothing. Returns its queue; -1 when the
 * table has nothing to send, or, when @max > 0, after @max entries
 * found none that can send (a low entry turn that passes, @max the
 * table's size: a whole pass).
 */
static int ld_open(struct ld *m, struct ld_table *t, int max)
{
	const struct arb_entry *e;
	bool carry = m->spec->sem.carry;
	int64_t credit;
	int i, q;

	if (!(t->queues & m->avail))
		return -1;
	for (i = 1;; i++) {
		m->work++;
		e = &t->t->entries[t->pos];
		q = e->vl;
		if (!ld_entry_ok(e) || !ld_has(m, q)) {
			i += ld_pass_over(m, t, max > 0 ? max - i + 1 : ARB_MAX_ENTRIES) - 1;
			if (max > 0 && i >= max)
				return -1;
			continue;
		}
		credit = (int64_t)e->weight * ARB_UNIT_BYTES + (carry ? t->def[q] : 0);
		if (ld_can(m, q, credit)) {
			if (carry)
				t->def[q] = 0;
			t->open = true;
			t->credit = credit;
			return q;
		}
		if (carry)
			t->def[q] = credit;
		ld_advance(t);
		if (max > 0 && i >= max)
			return -1;
	}
}

/* The queue of the table's next packet; -1 as ld_open. */
static int ld_take(struct ld *m, struct ld_table *t, int max)
{
	int q;

	if (t->open) {
		q = t->t->entries[t->pos].vl;
		if (ld_has(m, q) && ld_can(m, q, t->credit))
			return q;
		ld_close(m, t);
	}
	return ld_open(m, t, max);
}

/*
 * The next packet of a low entry turn whose visit is open, or -1 when
 * the turn ends: the visit goes on while its VL has a packet; when the
 * VL has emptied with credit left (ld_send closes a visit whose credit
 * is spent, and ends the turn), low=entry ends the turn and
 * low=continue opens the next entry that can send, the whole turn
 * moving past at most one pass over the table.
 */
static int ld_low_next(struct ld *m, struct ld_table *lo)
{
	int q = lo->t->entries[lo->pos].vl, left;

	if (ld_has(m, q) && ld_can(m, q, lo->credit))
		return q;
	ld_close(m, lo);
	if (m->spec->sem.low_turn != ARB_LOW_CONTINUE)
		return -1;
	left = lo->t->n_entries - (int)(lo->moved - m->low_from);
	return left > 0 ? ld_open(m, lo, left) : -1;
}

/* A low turn's queue, or -1 when it passes; the phase returns to high. */
static int ld_low_turn(struct ld *m, struct ld_table **by)
{
	struct ld_table *lo = &m->tab[LD_LOW];
	int q;

	*by = lo;
	if (m->mode == ARB_IB_LIMITED_PACKET) {
		m->phase = LD_HIGH;
		return ld_take(m, lo, 0);
	}
	if (m->low_sent) {
		q = ld_low_next(m, lo);
	} else {
		m->low_from = lo->moved;
		q = ld_take(m, lo, lo->t->n_entries);
		m->empty_low_turns += q < 0;
	}
	if (q < 0)
		m->phase = LD_HIGH;
	return q;
}

/* The queue the arbiter serves next, and the table it charges; -1: none. */
static int ld_decide(struct ld *m, struct ld_table **by)
{
	struct ld_table *hi = &m->tab[LD_HIGH], *lo = &m->tab[LD_LOW];
	int q;

	if (m->mode == ARB_IB_ONLY_LOW || !(hi->queues & m->avail)) {
		*by = lo;
		q = lo->t ? ld_take(m, lo, 0) : -1;
		if (q >= 0) {
			m->high_sent = 0;
			m->phase = LD_HIGH;
		}
		return q;
	}
	if (m->mode != ARB_IB_ONLY_HIGH && m->phase == LD_LOW) {
		if (lo->queues & m->avail) {
			q = ld_low_turn(m, by);
			if (q >= 0)
				return q;
		}
		m->phase = LD_HIGH;
	}
	*by = hi;
	return ld_take(m, hi, 0);
}

/* Queue @q sends one packet charged to @t; returns its SL. */
static int ld_send(struct ld *m, struct ld_table *t, int q)
{
	int sl = ld_pick(m, q);
	int64_t bytes = m->spec->packet_bytes[sl];

	if (!m->sat[sl]) {
		if (!--m->waiting[sl])
			m->ready &= ~(1u << sl);
		if (!--m->waiting_q[q] && !m->sat_sls[q])
			m->avail &= ~(1u << q);
	}
	m->rr[q] = (sl + 1) % ARB_NUM_SLS;
	m->head_since[q] = m->sent + 1;
	t->credit -= bytes;
	if (!(ld_has(m, q) ? ld_can(m, q, t->credit) :
	      (m->spec->deficit_round ? t->credit >= bytes : t->credit > 0)))
		ld_close(m, t);
	if (t == &m->tab[LD_HIGH] && m->mode != ARB_IB_ONLY_HIGH) {
		m->high_sent += bytes;
		if (m->high_sent >= m->limit_bytes) {
			m->high_sent = 0;
			m->phase = LD_LOW;
			m->low_sent = false;
		}
	} else if (t == &m->tab[LD_LOW] && m->mode == ARB_IB_LIMITED_ENTRY &&
		   m->phase == LD_LOW) {
		m->low_sent = true;
		if (!t->open)
			m->phase = LD_HIGH;
	}
	m->sent++;
	return sl;
}

/*
 * How many of a Poisson process's arrivals fall in a span of @mean gaps:
 * counted by its exponential gaps when few, else the normal
 * approximation of the Poisson count (its mean is large).
 */
static uint64_t ld_poisson_count(struct ld *m, double mean)
{
	double t, u, z;
	uint64_t k = 0;

	if (mean < LD_STEPPED * 4) {
		for (t = ld_exp(m); t <= mean; t += ld_exp(m))
			k++;
		return k;
	}
	do
		u = ld_uniform(m);
	while (u <= 0);
	z = sqrt(-2 * log(u)) * cos(2 * M_PI * ld_uniform(m));
	t = mean + sqrt(mean) * z;
	return t > 0 ? (uint64_t)llround(t) : 0;
}

/*
 * The packets of light SL @sl that have arrived by now (at least one),
 * its next arrival moved past now. The first few are stepped gap by gap;
 * the rest (a light SL of small packets can have thousands arrive while
 * one large packet is sent) are counted at once: for constant gaps, by
 * division; for Poisson's, by drawing how many fall before now and,
 * the process being memoryless, the next one's gap from now.
 */
static uint64_t ld_due(struct ld *m, int sl)
{
	double gap = m->gap_ns[sl];
	uint64_t k = 0;

	while (m->next_ns[sl] <= m->now_ns && k < LD_STEPPED) {
		m->next_ns[sl] += ld_gap(m, sl);
		k++;
	}
	m->work += k;
	if (m->next_ns[sl] > m->now_ns)
		return k;
	m->work++;
	if (m->spec->poisson) {
		k += 1 + ld_poisson_count(m, (m->now_ns - m->next_ns[sl]) / gap);
		m->next_ns[sl] = m->now_ns + ld_gap(m, sl);
		return k;
	}
	k += (uint64_t)((m->now_ns - m->next_ns[sl]) / gap);
	m->next_ns[sl] += (double)(k - LD_STEPPED) * gap;
	while (m->next_ns[sl] <= m->now_ns) {
		m->next_ns[sl] += gap;
		k++;
	}
	return k;
}

/*
 * Packets that have arrived by now join their queues (light SLs of a
 * queue no table serves are left out: nothing could ever send them).
 */
static void ld_arrivals(struct ld *m)
{
	double next = INFINITY;
	uint64_t k;
	int i, sl, q;

	if (m->next_arrival_ns > m->now_ns)
		return;
	for (i = 0; i < m->n_light; i++) {
		sl = m->light[i];
		q = m->spec->queue[sl];
		if (m->next_ns[sl] <= m->now_ns) {
			if (!ld_has(m, q))
				m->head_since[q] = m->sent;
			m->avail |= 1u << q;
			m->ready |= 1u << sl;
			k = ld_due(m, sl);
			m->waiting[sl] += k;
			m->waiting_q[q] += k;
		}
		if (m->next_ns[sl] < next)
			next = m->next_ns[sl];
	}
	m->next_arrival_ns = next;
}

static void ld_table_init(struct ld_table *t, const struct arb_table *tab,
			  uint16_t offered)
{
	int i;

	memset(t, 0, sizeof(*t));
	if (!tab)
		return;
	for (i = 0; i < tab->n_entries; i++) {
		if (!ld_entry_ok(&tab->entries[i]))
			continue;
		t->queues |= (1u << tab->entries[i].vl) & offered;
		t->entries_of[tab->entries[i].vl] |= 1ull << i;
	}
	if (t->queues)
		t->t = tab;
}

/* The light SLs a table serves, and the first of their arrivals. */
static void ld_init_light(struct ld *m)
{
	uint16_t served = m->tab[LD_HIGH].queues | m->tab[LD_LOW].queues;
	int sl, q;

	m->next_arrival_ns = INFINITY;
	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		q = m->spec->queue[sl];
		if (m->sat[sl] || q < 0 || q >= ARB_NUM_VLS || m->gap_ns[sl] <= 0 ||
		    !(served & (1u << q)))
			continue;
		m->light[m->n_light++] = sl;
		m->next_arrival_ns = fmin(m->next_arrival_ns, m->next_ns[sl]);
	}
}

/* The arbiter's start; returns false when no weighted entry has traffic. */
static bool ld_init(struct ld *m, const struct arb_load_spec *spec)
{
	uint16_t offered = 0;
	int sl, q, mult = (spec->phase_draw + 1) % ARB_LOAD_PHASES;

	memset(m, 0, sizeof(*m));
	m->spec = spec;
	m->rng = spec->seed ? spec->seed : 0x9e3779b97f4a7c15ull;
	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		m->packet_ns[sl] = spec->packet_bytes[sl] * 8.0 / spec->link_gbps;
		q = spec->queue[sl];
		if (q < 0 || q >= ARB_NUM_VLS || spec->load_gbps[sl] == 0)
			continue;
		offered |= 1u << q;
		m->sat[sl] = spec->load_gbps[sl] < 0;
		m->queue_sls[q] |= 1u << sl;
		if (m->sat[sl]) {
			m->ready |= 1u << sl;
			m->sat_sls[q]++;
			m->avail |= 1u << q;
			continue;
		}
		m->gap_ns[sl] = spec->packet_bytes[sl] * 8.0 / spec->load_gbps[sl];
		m->next_ns[sl] = spec->poisson ? ld_gap(m, sl) :
				 m->gap_ns[sl] * fmod(0.618034 * (sl + 1) * mult, 1.0);
	}
	ld_table_init(&m->tab[LD_HIGH], spec->high, offered);
	ld_table_init(&m->tab[LD_LOW], spec->low, offered);
	ld_init_light(m);
	m->tab[LD_HIGH].def = m->deficit[0];
	m->tab[LD_LOW].def = m->deficit[spec->sem.deficit_per_table];
	m->limit_bytes = (int64_t)spec->limit * ARB_LIMIT_UNIT_BYTES;
	m->mode = arb_ib_mode_of(m->tab[LD_HIGH].t != NULL, m->tab[LD_LOW].t != NULL, spec->limit,
				 &spec->sem);
	return m->tab[LD_HIGH].t || m->tab[LD_LOW].t;
}

/* What the measured window holds, per batch and in all. */
struct ld_window {
	double bytes[ARB_LOAD_BATCHES][ARB_NUM_SLS];
	double ns[ARB_LOAD_BATCHES];
	uint64_t dist_sum[ARB_NUM_VLS];
};

/*
 * One step: arrivals up to now, then one packet (or, with nothing to
 * send, a jump to the next arrival). Returns the SL sent, -1 when the
 * link idled, -2 when nothing will ever come.
 */
static int ld_step(struct ld *m, int *queue, uint64_t *distance)
{
	struct ld_table *by = NULL;
	double next;
	int q, sl;

	m->work++;
	ld_arrivals(m);
	q = (m->avail & (m->tab[LD_HIGH].queues | m->tab[LD_LOW].queues)) ?
	    ld_decide(m, &by) : -1;
	if (q < 0) {
		next = m->next_arrival_ns;
		if (isinf(next))
			return -2;
		m->now_ns = next;
		return -1;
	}
	*queue = q;
	*distance = m->sent - m->head_since[q];
	sl = ld_send(m, by, q);
	m->now_ns += m->packet_ns[sl];
	return sl;
}

/*
 * Run @n packets into batch @b of @w (NULL: warm-up), or fewer once the
 * work reaches @max_work (one at least; *ran: the packets run). -EINVAL:
 * none come.
 */
static int ld_batch(struct ld *m, uint64_t n, uint64_t max_work, struct ld_window *w,
		    int b, struct arb_load_out *out, uint64_t *ran)
{
	double start = m->now_ns;
	uint64_t i = 0, d;
	int sl, q;

	while (i < n && (!i || m->work < max_work)) {
		sl = ld_step(m, &q, &d);
		if (sl == -2)
			return -EINVAL;
		if (sl < 0)
			continue;
		i++;
		if (!w)
			continue;
		w->bytes[b][sl] += m->spec->packet_bytes[sl];
		out->packets[q]++;
		w->dist_sum[q] += d;
		if (d > out->max_distance[q])
			out->max_distance[q] = d;
	}
	*ran = i;
	if (w)
		w->ns[b] = m->now_ns - start;
	return 0;
}

/* What the arbiter's state can hold at either end of a window (bytes). */
static double ld_state_bytes(const struct ld *m)
{
	double bytes = 0;
	int k, i;

	for (k = 0; k < 2; k++)
		for (i = 0; m->tab[k].t && i < m->tab[k].t->n_entries; i++)
			bytes += m->tab[k].t->entries[i].weight * (double)ARB_UNIT_BYTES;
	for (i = 0; i < ARB_NUM_SLS; i++)
		if (m->spec->queue[i] >= 0 && m->spec->load_gbps[i] != 0)
			bytes += 2.0 * m->spec->packet_bytes[i];
	return bytes;
}

/* Rates of the window, and the bound of its shares. */
static void ld_finish(const struct ld *m, const struct ld_window *w,
		      struct arb_load_out *out)
{
	double ns = 0, mean, var, share, se, worst = 0;
	int b, sl, q;

	for (b = 0; b < ARB_LOAD_BATCHES; b++)
		ns += w->ns[b];
	for (sl = 0; sl < ARB_NUM_SLS; sl++) {
		mean = var = 0;
		for (b = 0; b < ARB_LOAD_BATCHES; b++) {
			out->gbps[sl] += w->bytes[b][sl] * 8.0 / ns;
			mean += w->bytes[b][sl] * 8.0 / w->ns[b] / ARB_LOAD_BATCHES;
		}
		for (b = 0; b < ARB_LOAD_BATCHES; b++) {
			share = w->bytes[b][sl] * 8.0 / w->ns[b] - mean;
			var += share * share / (ARB_LOAD_BATCHES - 1);
		}
		se = sqrt(var / ARB_LOAD_BATCHES) / m->spec->link_gbps;
		if (se > worst)
			worst = se;
	}
	for (q = 0; q < ARB_NUM_VLS; q++)
		out->mean_distance[q] = out->packets[q] ?
					(double)w->dist_sum[q] / out->packets[q] : 0;
	/* a share is within 1 of any other: a bound past that says nothing more */
	out->bound = fmin(1, fmax(3 * worst, ld_state_bytes(m) * 8.0 /
				  (ns * m->spec->link_gbps)));
}

int arb_load_run(const struct arb_load_spec *spec, struct arb_load_out *out)
{
	uint64_t n = spec->packets ? spec->packets : ARB_LOAD_PACKETS;
	uint64_t batch = n / ARB_LOAD_BATCHES, ran = 0, end = UINT64_MAX, start;
	struct ld_window w;
	struct ld m;
	int b;

	memset(out, 0, sizeof(*out));
	memset(&w, 0, sizeof(w));
	if (!ld_init(&m, spec) || spec->link_gbps <= 0)
		return -EINVAL;
	/* with a budget, the warm-up and each batch take a ninth of it at most */
	if (spec->max_work)
		end = spec->max_work / (ARB_LOAD_BATCHES + 1);
	if (ld_batch(&m, batch, end, NULL, 0, out, &ran))
		return -EINVAL;
	start = m.work;
	m.empty_low_turns = 0;
	for (b = 0; b < ARB_LOAD_BATCHES; b++) {
		if (spec->max_work)
			end = start + (b + 1) * ((spec->max_work - start) / ARB_LOAD_BATCHES);
		if (ld_batch(&m, batch, end, &w, b, out, &ran))
			return -EINVAL;
		out->window_packets += ran;
	}
	ld_finish(&m, &w, out);
	out->empty_low_turns = m.empty_low_turns;
	out->work = m.work;
	return 0;
}
