/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The packet arbiter as it was first written, one packet per step and
 * every visit opened and closed (the arb_ib_sim.c of before the fast
 * path), kept for tests only: test_arb_sim.c holds the fast arbiter to
 * it, field for field, on random configurations.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arb_sim_slow.h"

enum { SIM_HIGH, SIM_LOW };

/* All int32_t, no padding: states are compared with memcmp. */
struct sim_state {
	int32_t phase;
	int32_t pos[2];		/* current (open) or next entry, per table */
	int32_t open[2];
	int32_t credit[2];	/* bytes, of the open visit */
	int32_t high_sent;	/* bytes since the last low turn */
	int32_t deficit[ARB_NUM_VLS];
};

struct sim {
	const struct arb_sim_spec *spec;
	const struct arb_table *table[2];
	bool active[2];		/* the table has a weighted backlogged entry */
	bool limited;		/* both tables active and limit < 255 */
	bool low_packet;	/* the low turn is one packet */
	int32_t limit_bytes;
	int clock_table;	/* whose wraps make checkpoints */
	uint64_t wraps;
	int n[2];				/* entries per table */
	int n_active[2];			/* of them active */
	uint8_t next[2][ARB_MAX_ENTRIES];	/* next active entry, cyclically */
	uint8_t vl[2][ARB_MAX_ENTRIES];
	int32_t weight_bytes[2][ARB_MAX_ENTRIES];
};

static bool sim_entry_active(const struct sim *m, const struct arb_entry *e)
{
	return e->weight && e->vl < ARB_VL15 &&
	       (m->spec->backlogged & (1u << e->vl));
}

static bool sim_table_active(const struct sim *m, const struct arb_table *t)
{
	int i;

	for (i = 0; t && i < t->n_entries; i++)
		if (sim_entry_active(m, &t->entries[i]))
			return true;
	return false;
}

static bool sim_can_send(const struct sim *m, int vl, int32_t credit)
{
	if (m->spec->deficit_round)
		return credit >= (int32_t)m->spec->packet_bytes[vl];
	return credit > 0;
}

/* Open the next active entry of table @k at or after its position. */
static inline __attribute__((always_inline)) int sim_open(struct sim *m, struct sim_state *st, int k)
{
	int pos = m->next[k][st->pos[k]], vl = m->vl[k][pos];

	if (pos < st->pos[k] && k == m->clock_table)
		m->wraps++;
	st->pos[k] = pos;
	st->open[k] = 1;
	st->credit[k] = m->weight_bytes[k][pos];
	if (m->spec->sem.carry) {
		st->credit[k] += st->deficit[vl];
		st->deficit[vl] = 0;
	}
	return vl;
}

/* Close table @k's open visit, keeping its leftover when carried. */
static inline __attribute__((always_inline)) void sim_close(struct sim *m, struct sim_state *st, int k)
{
	int pos = st->pos[k] + 1;

	if (m->spec->sem.carry)
		st->deficit[m->vl[k][st->pos[k]]] += st->credit[k];
	st->open[k] = 0;
	st->credit[k] = 0;
	if (pos == m->n[k]) {
		pos = 0;
		if (k == m->clock_table)
			m->wraps++;
	}
	st->pos[k] = pos;
}

/* Charge a packet of @vl to table @k's open visit; close it when spent. */
static int32_t sim_send(struct sim *m, struct sim_state *st, int k, int vl)
{
	int32_t bytes = (int32_t)m->spec->packet_bytes[vl];

	st->credit[k] -= bytes;
	if (!sim_can_send(m, vl, st->credit[k]))
		sim_close(m, st, k);
	return bytes;
}

/* The VL of table @k's next packet, opening visits until one can send. */
static inline __attribute__((always_inline)) int sim_take(struct sim *m, struct sim_state *st, int k)
{
	int vl;

	for (;;) {
		vl = st->open[k] ? m->vl[k][st->pos[k]] :
				   sim_open(m, st, k);
		if (sim_can_send(m, vl, st->credit[k]))
			return vl;
		sim_close(m, st, k);
	}
}

/* A high packet; reaching the limit hands the next turn to the low table. */
static int sim_high_packet(struct sim *m, struct sim_state *st,
			   int32_t *bytes)
{
	int vl = sim_take(m, st, SIM_HIGH);

	*bytes = sim_send(m, st, SIM_HIGH, vl);
	if (!m->limited)
		return vl;
	st->high_sent += *bytes;
	if (st->high_sent >= m->limit_bytes) {
		st->high_sent = 0;
		st->phase = SIM_LOW;
	}
	return vl;
}

/*
 * A low turn's packet, or -1 when an entry turn passes without sending
 * (a pass over the low table's active entries finds every VL owing more
 * than its entry's weight).
 */
static int sim_low_packet(struct sim *m, struct sim_state *st,
			  int32_t *bytes)
{
	int vl, i;

	if (m->low_packet) {
		vl = sim_take(m, st, SIM_LOW);
		*bytes = sim_send(m, st, SIM_LOW, vl);
		st->phase = SIM_HIGH;
		return vl;
	}
	vl = st->open[SIM_LOW] ? m->vl[SIM_LOW][st->pos[SIM_LOW]] : -1;
	if (vl >= 0 && !sim_can_send(m, vl, st->credit[SIM_LOW])) {
		sim_close(m, st, SIM_LOW);
		vl = -1;
	}
	for (i = 0; vl < 0 && i < m->n_active[SIM_LOW]; i++) {
		vl = sim_open(m, st, SIM_LOW);
		if (!sim_can_send(m, vl, st->credit[SIM_LOW])) {
			sim_close(m, st, SIM_LOW);
			vl = -1;
		}
	}
	if (vl < 0) {
		st->phase = SIM_HIGH;
		return -1;
	}
	*bytes = sim_send(m, st, SIM_LOW, vl);
	if (!st->open[SIM_LOW])
		st->phase = SIM_HIGH;
	return vl;
}

/* One packet: returns its VL and sets *bytes. */
static int sim_step(struct sim *m, struct sim_state *st, int32_t *bytes)
{
	int vl;

	if (!m->active[SIM_HIGH]) {
		vl = sim_take(m, st, SIM_LOW);
		*bytes = sim_send(m, st, SIM_LOW, vl);
		return vl;
	}
	if (st->phase == SIM_LOW) {
		vl = sim_low_packet(m, st, bytes);
		if (vl >= 0)
			return vl;
	}
	return sim_high_packet(m, st, bytes);
}

/* The entries of table @k, and for each position the next active one. */
static void sim_init_table(struct sim *m, int k)
{
	const struct arb_table *t = m->table[k];
	int i, next = -1;

	if (!m->active[k])
		return;
	m->n[k] = t->n_entries;
	for (i = 2 * t->n_entries - 1; i >= 0; i--) {
		const struct arb_entry *e = &t->entries[i % t->n_entries];

		if (sim_entry_active(m, e))
			next = i % t->n_entries;
		if (i < t->n_entries && sim_entry_active(m, e))
			m->n_active[k]++;
		if (i < t->n_entries) {
			m->next[k][i] = next;
			m->vl[k][i] = e->vl;
			m->weight_bytes[k][i] = (int32_t)e->weight * ARB_UNIT_BYTES;
		}
	}
}

static void sim_init(struct sim *m, const struct arb_sim_spec *spec)
{
	memset(m, 0, sizeof(*m));
	m->spec = spec;
	m->table[SIM_HIGH] = spec->high;
	m->table[SIM_LOW] = spec->low;
	m->active[SIM_HIGH] = sim_table_active(m, spec->high);
	m->active[SIM_LOW] = sim_table_active(m, spec->low);
	m->limited = m->active[SIM_HIGH] && m->active[SIM_LOW] &&
		     spec->limit != ARB_LIMIT_NONE;
	m->limit_bytes = spec->limit * ARB_LIMIT_UNIT_BYTES;
	m->clock_table = m->active[SIM_HIGH] ? SIM_HIGH : SIM_LOW;
	sim_init_table(m, SIM_HIGH);
	sim_init_table(m, SIM_LOW);
	m->low_packet = spec->sem.low_turn == ARB_LOW_PACKET ||
			(spec->limit == 0 && spec->sem.limit0 == ARB_LIMIT0_ALTERNATE);
}

/* Largest credit swing of a queue: bounds how far a window strays. */
static double sim_window_bound(const struct sim *m, uint64_t total_bytes)
{
	double swing = 0;
	int k, i;

	for (k = 0; k < 2; k++)
		for (i = 0; m->active[k] && i < m->table[k]->n_entries; i++)
			swing += (double)m->table[k]->entries[i].weight * ARB_UNIT_BYTES;
	for (i = 0; i < ARB_NUM_VLS; i++)
		if (m->spec->backlogged & (1u << i))
			swing += 2.0 * m->spec->packet_bytes[i];
	/* a share is within 1 of any other: a bound past that says nothing more */
	return total_bytes && swing < total_bytes ? swing / total_bytes : 1;
}

/*
 * Checkpoints: the state at the first step after each wrap of the high
 * table (of the low table when it runs alone), with the bytes sent so far.
 * Two equal checkpoints bound one exact period.
 */
struct sim_mark {
	struct sim_state st;
	uint64_t step;
	uint64_t bytes[ARB_NUM_VLS];
};

struct sim_marks {
	struct sim_mark *mark;		/* in order of steps */
	int32_t *slot;			/* hash: index into mark, -1 empty */
	uint32_t n, cap, slots;
};

static uint32_t sim_hash(const struct sim_state *st)
{
	const uint32_t *w = (const uint32_t *)st;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < sizeof(*st) / 4; i++)
		h = (h ^ w[i]) * 16777619u;
	return h ^ (h >> 15);
}

/* Double the marks and rebuild the hash; -ENOMEM leaves them as they were. */
static int sim_marks_grow(struct sim_marks *mk)
{
	uint32_t cap = mk->cap ? 2 * mk->cap : 1024, i, h;
	struct sim_mark *mark = realloc(mk->mark, cap * sizeof(*mark));
	int32_t *slot;

	if (!mark)
		return -ENOMEM;
	mk->mark = mark;
	slot = malloc(2 * cap * sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	free(mk->slot);
	mk->slot = slot;
	mk->cap = cap;
	mk->slots = 2 * cap;
	memset(slot, 0xff, mk->slots * sizeof(*slot));
	for (i = 0; i < mk->n; i++) {
		h = sim_hash(&mark[i].st) & (mk->slots - 1);
		while (slot[h] >= 0)
			h = (h + 1) & (mk->slots - 1);
		slot[h] = (int32_t)i;
	}
	return 0;
}

/* The earlier mark equal to @st, or record @st and return NULL. */
static const struct sim_mark *sim_marks_seen(struct sim_marks *mk,
					     const struct sim_state *st,
					     uint64_t step, const uint64_t *bytes)
{
	struct sim_mark *k;
	uint32_t h;

	if (mk->n == mk->cap && (mk->cap >= ARB_SIM_MAX_MARKS || sim_marks_grow(mk)) && !mk->n)
		return NULL;
	h = sim_hash(st) & (mk->slots - 1);
	for (; mk->slot[h] >= 0; h = (h + 1) & (mk->slots - 1))
		if (!memcmp(&mk->mark[mk->slot[h]].st, st, sizeof(*st)))
			return &mk->mark[mk->slot[h]];
	if (mk->n >= ARB_SIM_MAX_MARKS)	/* the contract: no more are kept */
		return NULL;
	mk->slot[h] = (int32_t)mk->n;
	k = &mk->mark[mk->n++];
	k->st = *st;
	k->step = step;
	memcpy(k->bytes, bytes, sizeof(k->bytes));
	return NULL;
}

/* Count the gap before a packet of @vl at @step when @count. */
static void sim_gap(struct arb_sim_out *out, uint64_t *last, bool *seen,
		    int vl, uint64_t step, bool count)
{
	uint64_t gap;

	if (count && seen[vl]) {
		gap = step - last[vl] - 1;
		out->gap_sum[vl] += gap;
		if (gap > out->gap_max[vl])
			out->gap_max[vl] = gap;
	}
	seen[vl] = true;
	last[vl] = step;
}

/* A checkpoint at @step: true when it closes a period (out filled). */
static bool sim_checkpoint(struct sim_marks *mk, const struct sim_state *st,
			   uint64_t step, const uint64_t *bytes,
			   struct arb_sim_out *out)
{
	const struct sim_mark *prev = sim_marks_seen(mk, st, step, bytes);
	int q;

	if (!prev)
		return false;
	out->exact = true;
	out->packets_total = step - prev->step;
	for (q = 0; q < ARB_NUM_VLS; q++)
		out->bytes[q] = bytes[q] - prev->bytes[q];
	return true;
}

/*
 * The VL of every packet sent, when gaps are wanted: a period's gaps are
 * then counted over it, with no second run and no counting per packet.
 * Room for max_steps packets is taken at once (pages are only touched as
 * they fill); without it, gaps are counted as the packets go.
 */
struct sim_seq {
	uint8_t *vl;			/* NULL: count gaps as the packets go */
	uint64_t n;
};

/* The gaps of the packets recorded, in order: as counting them as they went. */
static void sim_seq_gaps_linear(const struct sim_seq *s, struct arb_sim_out *out)
{
	uint64_t last[ARB_NUM_VLS];
	bool seen[ARB_NUM_VLS] = { false };
	uint64_t i;

	for (i = 0; i < s->n; i++)
		sim_gap(out, last, seen, s->vl[i], i, true);
}

/*
 * The gaps of one period, the packets from @from for @len, as the second
 * period would count them: each gap reaching back into the first.
 */
static void sim_seq_gaps(const struct sim_seq *s, uint64_t from, uint64_t len,
			 struct arb_sim_out *out)
{
	uint64_t last[ARB_NUM_VLS] = { 0 }, r, gap;
	int vl;

	memset(out->packets, 0, sizeof(out->packets));
	memset(out->gap_sum, 0, sizeof(out->gap_sum));
	memset(out->gap_max, 0, sizeof(out->gap_max));
	for (r = 0; r < len; r++)
		last[s->vl[from + r]] = r;
	for (r = 0; r < len; r++) {
		vl = s->vl[from + r];
		gap = len + r - last[vl] - 1;
		out->gap_sum[vl] += gap;
		if (gap > out->gap_max[vl])
			out->gap_max[vl] = gap;
		out->packets[vl]++;
		last[vl] = len + r;
	}
}

/*
 * Step until a checkpoint repeats: the bytes between the two are one
 * exact period; its gaps are counted over the packets recorded, as a
 * second period would see them (each gap reaching back into the period
 * before), or by running that second period when they could not be
 * kept. Without a repeat within max_steps, the window since the first
 * checkpoint is measured, gaps included.
 */
static void sim_detect(struct sim *m, struct sim_state *st, uint64_t max_steps,
		       struct sim_marks *mk, struct arb_sim_out *out)
{
	uint64_t bytes[ARB_NUM_VLS] = { 0 }, last[ARB_NUM_VLS], step, end = max_steps;
	bool seen[ARB_NUM_VLS] = { false };
	struct sim_seq seq = { .vl = m->spec->want_gaps ? malloc(max_steps) : NULL };
	uint64_t wraps = 0;
	int32_t b;
	int vl, q;

	for (step = 0; step < end; step++) {
		if (m->wraps != wraps && !out->exact) {
			wraps = m->wraps;
			if (sim_checkpoint(mk, st, step, bytes, out)) {
				if (!m->spec->want_gaps)
					break;
				if (seq.vl) {
					sim_seq_gaps(&seq, step - out->packets_total,
						     out->packets_total, out);
					break;
				}
				end = step + out->packets_total;
				memset(out->packets, 0, sizeof(out->packets));
				memset(out->gap_sum, 0, sizeof(out->gap_sum));
				memset(out->gap_max, 0, sizeof(out->gap_max));
			}
		}
		vl = sim_step(m, st, &b);
		bytes[vl] += b;
		out->packets[vl]++;
		if (seq.vl)
			seq.vl[seq.n++] = (uint8_t)vl;
		else if (m->spec->want_gaps)
			sim_gap(out, last, seen, vl, step, true);
	}
	if (seq.vl && !out->exact)
		sim_seq_gaps_linear(&seq, out);
	free(seq.vl);
	if (out->exact)
		return;
	out->packets_total = step - (mk->n ? mk->mark[0].step : 0);
	for (q = 0; q < ARB_NUM_VLS; q++)
		out->bytes[q] = bytes[q] - (mk->n ? mk->mark[0].bytes[q] : 0);
}

int arb_sim_run_slow(const struct arb_sim_spec *spec, struct arb_sim_out *out)
{
	uint64_t max_steps = spec->max_steps ? spec->max_steps : ARB_SIM_MAX_STEPS;
	struct sim_marks mk = { 0 };
	struct sim_state st;
	struct sim m;
	uint64_t total = 0;
	int q;

	memset(out, 0, sizeof(*out));
	memset(&st, 0, sizeof(st));
	sim_init(&m, spec);
	if (!m.active[SIM_HIGH] && !m.active[SIM_LOW])
		return -EINVAL;
	sim_detect(&m, &st, max_steps, &mk, out);
	free(mk.mark);
	free(mk.slot);
	if (!out->exact) {
		for (q = 0; q < ARB_NUM_VLS; q++)
			total += out->bytes[q];
		out->bound = sim_window_bound(&m, total);
	}
	return 0;
}
