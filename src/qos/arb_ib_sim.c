/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The packet-level table arbiter (see arb_ib_sim.h). It exists apart from
 * the analyses so that every InfiniBand reading and DTable run the same
 * arbiter, and so that the exactness argument is made once: the arbiter
 * is a deterministic machine on a finite state (table positions, open
 * visits' credits, per-queue deficits, bytes since the last low turn), so
 * its state repeats, and the shares of one period are the long-run shares.
 *
 * One step sends one packet:
 *  - a visit opens with credit = weight x 64 bytes, plus the queue's
 *    deficit when sem.carry; it sends whole packets while the credit is
 *    positive (the last may overshoot: entries round up to a packet), or,
 *    for DTable, while the credit covers a whole packet;
 *  - on closing, the leftover (overshoot owed, or unspent credit) is the
 *    queue's deficit when carried, else dropped; one deficit per queue,
 *    or one per queue and table (sem.deficit_per_table);
 *  - the high table sends until limit x 4096 bytes are reached (a packet
 *    started below it completes; limit 0 is one packet), then the low
 *    table gets a turn: one packet (ARB_LOW_PACKET, or limit 0 with
 *    ARB_LIMIT0_ALTERNATE), or one entry visit (ARB_LOW_ENTRY); entries
 *    whose VL owes more than their weight are passed over, and a turn
 *    passes without sending only when a whole pass over the low table
 *    finds none that can send;
 *  - a high visit cut by the limit resumes after the low turn.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qos/arb_ib_sim.h"

enum { SIM_HIGH, SIM_LOW };

#define SIM_BURST_MAX	(1u << 14)	/* packets a burst sends at most */
#define SIM_MARK_WORK	16		/* a checkpoint's work: hashed, looked up */

/*
 * All int32_t, no padding: states are compared with memcmp. A table's
 * position counts its active entries only; a position past the last
 * active entry that the spec's table would count as wrapped only at the
 * next open (weight-0 entries follow) is kept as 0 with pend set, so
 * that equal states are equal positions of the spec's table.
 */
struct sim_state {
	int32_t phase;
	int32_t pos[2];		/* current (open) or next active entry */
	int32_t pend[2];	/* a wrap is counted at the next open */
	int32_t open[2];
	int32_t credit[2];	/* bytes, of the open visit */
	int32_t high_sent;	/* bytes since the last low turn */
	int32_t deficit[2][ARB_NUM_VLS];	/* per table, or [0] for both */
};

struct sim {
	const struct arb_sim_spec *spec;
	const struct arb_table *table[2];
	bool active[2];		/* the table has a weighted backlogged entry */
	enum arb_ib_mode mode;
	int32_t limit_bytes;
	int32_t packet_bytes[ARB_NUM_VLS];
	int n[2];				/* active entries per table */
	/* active entries, then an end mark that can always send */
	int32_t weight[2][ARB_MAX_ENTRIES + 1];	/* bytes */
	uint8_t vl[2][ARB_MAX_ENTRIES + 1];	/* VL15 (unused) at the mark */
	bool last_at_end[2];	/* the last active entry ends the table */
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

/*
 * The stepping itself. A burst runs packets until the clock table wraps
 * (a checkpoint follows) with the state unpacked into locals, so that the
 * compiler keeps it in registers; it is written once and specialised on
 * the semantics (constant arguments of an always-inlined function), so a
 * step tests no reading it does not depend on. Visits keep the spec's
 * order: open (credit = weight, plus the deficit when carried, which is
 * then 0), send while the credit allows, close (the leftover is the
 * deficit when carried); a wrap of the clock table is counted when the
 * position passes its end, at a close or at the open that jumps back.
 */
#define SIM_INLINE static inline __attribute__((always_inline))

/* One table while a burst runs. */
struct sim_reg {
	int32_t pos, pend, open, credit;
	const int32_t *weight;
	const uint8_t *vl;
	int32_t n;
	bool last_at_end;
	bool wrapped;		/* its position passed its end */
	uint64_t visits;	/* entries looked at: the work besides packets */
};

SIM_INLINE bool sim_can(const int32_t *pb, int vl, int32_t credit,
			const bool round)
{
	return round ? credit >= pb[vl] : credit > 0;
}

/* Past the last active entry: wrapped now, or at the next open. */
SIM_INLINE void sim_next(struct sim_reg *t)
{
	if (++t->pos == t->n) {
		t->pos = 0;
		if (t->last_at_end)
			t->wrapped = true;
		else
			t->pend = 1;
	}
}

/*
 * Close the open visit: with carry its credit left (an overshoot, or
 * DTable's remainder) joins the VL's deficit, to which a visit of the
 * VL in the other table may have added since this one opened.
 */
SIM_INLINE void sim_close(struct sim_reg *t, int32_t *def, const bool carry)
{
	if (carry)
		def[t->vl[t->pos]] += t->credit;
	t->open = 0;
	t->credit = 0;
	sim_next(t);
}

/*
 * Open visits from the table's position until one can send (a visit
 * that cannot is closed at once: with carry, its credit is the deficit).
 * Returns its VL; when @pass, returns -1 once a whole pass over the
 * table's entries has found none that can (a low entry turn that passes).
 */
SIM_INLINE int sim_open(struct sim_reg *t, int32_t *def, const int32_t *pb,
			const bool carry, const bool round, const bool pass)
{
	int32_t at = t->pos, credit, failed = 0;
	int vl;

	if (t->pend) {
		t->pend = 0;
		t->wrapped = true;
	}
	for (;;) {
		t->visits++;
		vl = t->vl[at];
		credit = t->weight[at] + (carry ? def[vl] : 0);
		if (sim_can(pb, vl, credit, round)) {
			if (at < t->n)
				break;
			at = 0;		/* the end mark: wrap */
			t->wrapped = true;
			continue;
		}
		if (carry)
			def[vl] = credit;
		if (pass && ++failed == t->n) {
			t->pos = at;
			sim_next(t);
			return -1;
		}
		at++;
	}
	if (carry)
		def[vl] = 0;
	t->pos = at;
	t->open = 1;
	t->credit = credit;
	return vl;
}

/* The VL of the table's next packet, opening visits until one can send. */
SIM_INLINE int sim_take(struct sim_reg *t, int32_t *def, const int32_t *pb,
			const bool carry, const bool round)
{
	int vl;

	if (t->open) {
		vl = t->vl[t->pos];
		if (sim_can(pb, vl, t->credit, round))
			return vl;
		sim_close(t, def, carry);
	}
	return sim_open(t, def, pb, carry, round, false);
}

/* Charge a packet of @vl to the open visit; close it when spent. */
SIM_INLINE void sim_send(struct sim_reg *t, int32_t *def, const int32_t *pb,
			 int vl, const bool carry, const bool round)
{
	t->credit -= pb[vl];
	if (!sim_can(pb, vl, t->credit, round))
		sim_close(t, def, carry);
}

SIM_INLINE int sim_table_packet(struct sim_reg *t, int32_t *def,
				const int32_t *pb, const bool carry,
				const bool round)
{
	int vl = sim_take(t, def, pb, carry, round);

	sim_send(t, def, pb, vl, carry, round);
	return vl;
}

/*
 * A low turn's packet, or -1 when an entry turn passes without sending
 * (a pass over the low table finds every VL owing more than its entry's
 * weight); *phase back to high when the turn is over.
 */
SIM_INLINE int sim_low_turn(struct sim_reg *lo, int32_t *def, const int32_t *pb,
			    int32_t *phase, const bool carry, const bool round,
			    const bool packet_turn)
{
	int vl;

	if (packet_turn) {
		*phase = SIM_HIGH;
		return sim_table_packet(lo, def, pb, carry, round);
	}
	vl = lo->open ? lo->vl[lo->pos] : -1;
	if (vl < 0 || !sim_can(pb, vl, lo->credit, round)) {
		if (vl >= 0)
			sim_close(lo, def, carry);
		vl = sim_open(lo, def, pb, carry, round, true);
	}
	if (vl < 0) {
		*phase = SIM_HIGH;
		return -1;
	}
	sim_send(lo, def, pb, vl, carry, round);
	if (!lo->open)
		*phase = SIM_HIGH;
	return vl;
}

static void sim_reg_load(const struct sim *m, const struct sim_state *st,
			 int k, struct sim_reg *t)
{
	t->pos = st->pos[k];
	t->pend = st->pend[k];
	t->open = st->open[k];
	t->credit = st->credit[k];
	t->weight = m->weight[k];
	t->vl = m->vl[k];
	t->n = m->n[k];
	t->last_at_end = m->last_at_end[k];
	t->wrapped = false;
	t->visits = 0;
}

static void sim_reg_store(const struct sim_reg *t, int k, struct sim_state *st)
{
	st->pos[k] = t->pos;
	st->pend[k] = t->pend;
	st->open[k] = t->open;
	st->credit[k] = t->credit;
}

/* The clock table wrapped (no pointer to it: its fields stay in registers). */
#define SIM_CLOCK_WRAPPED(mode, hi, lo) \
	((mode) == ARB_IB_ONLY_LOW ? (lo).wrapped : (hi).wrapped)

/*
 * Up to @n packets into @seq, stopping after the step in which the clock
 * table wraps (*wrapped set) or the work reaches @work_left. Returns the
 * packets sent; *work grows by them and by the entries looked at.
 */
SIM_INLINE uint64_t sim_burst(const struct sim *m, struct sim_state *st,
			      uint8_t *seq, uint64_t n, uint64_t work_left, bool *wrapped,
			      uint64_t *empty, uint64_t *work, const enum arb_ib_mode mode,
			      const bool carry, const bool round)
{
	const int32_t *pb = m->packet_bytes;
	int32_t def[2][ARB_NUM_VLS], phase = st->phase, sent = st->high_sent;
	int32_t *dhi = def[0], *dlo = def[m->spec->sem.deficit_per_table];
	const int32_t limit_bytes = m->limit_bytes;
	struct sim_reg hi, lo;
	uint64_t i;
	int vl;

	sim_reg_load(m, st, SIM_HIGH, &hi);
	sim_reg_load(m, st, SIM_LOW, &lo);
	memcpy(def, st->deficit, sizeof(def));
	for (i = 0; i < n && !SIM_CLOCK_WRAPPED(mode, hi, lo) &&
		    i + hi.visits + lo.visits < work_left; i++) {
		if (mode == ARB_IB_ONLY_LOW) {
			vl = sim_table_packet(&lo, dlo, pb, carry, round);
		} else if (mode == ARB_IB_ONLY_HIGH) {
			vl = sim_table_packet(&hi, dhi, pb, carry, round);
		} else {
			vl = -1;
			if (phase == SIM_LOW) {
				vl = sim_low_turn(&lo, dlo, pb, &phase, carry, round,
						  mode == ARB_IB_LIMITED_PACKET);
				*empty += vl < 0;
			}
			if (vl < 0) {
				vl = sim_table_packet(&hi, dhi, pb, carry, round);
				sent += pb[vl];
				if (sent >= limit_bytes) {
					sent = 0;
					phase = SIM_LOW;
				}
			}
		}
		seq[i] = (uint8_t)vl;
	}
	sim_reg_store(&hi, SIM_HIGH, st);
	sim_reg_store(&lo, SIM_LOW, st);
	memcpy(st->deficit, def, sizeof(def));
	st->phase = phase;
	st->high_sent = sent;
	*wrapped = SIM_CLOCK_WRAPPED(mode, hi, lo);
	*work += i + hi.visits + lo.visits;
	return i;
}

#define SIM_BURST(mode, carry, round) \
	case (mode) * 4 + (carry) * 2 + (round): \
		return sim_burst(m, st, seq, n, work_left, wrapped, empty, work, mode, carry, round)

/* A mode's three semantics: no carry; carry; carry with the deficit round. */
#define SIM_BURSTS(mode) \
	SIM_BURST(mode, 0, 0); \
	SIM_BURST(mode, 1, 0); \
	SIM_BURST(mode, 1, 1)

/* sim_burst, specialised on the mode and the semantics. */
static uint64_t sim_run_burst(const struct sim *m, struct sim_state *st,
			      uint8_t *seq, uint64_t n, uint64_t work_left, bool *wrapped,
			      uint64_t *empty, uint64_t *work)
{
	switch (m->mode * 4 + m->spec->sem.carry * 2 + m->spec->deficit_round) {
	SIM_BURSTS(ARB_IB_ONLY_LOW);
	SIM_BURSTS(ARB_IB_ONLY_HIGH);
	SIM_BURSTS(ARB_IB_LIMITED_PACKET);
	SIM_BURSTS(ARB_IB_LIMITED_ENTRY);
	default:
		return sim_burst(m, st, seq, n, work_left, wrapped, empty, work, m->mode,
				 m->spec->sem.carry, m->spec->deficit_round);
	}
}

/* The active entries of table @k, in order. */
static void sim_init_table(struct sim *m, int k)
{
	const struct arb_table *t = m->table[k];
	const struct arb_entry *e;
	int i;

	if (!m->active[k])
		return;
	for (i = 0; i < t->n_entries; i++) {
		e = &t->entries[i];
		if (!sim_entry_active(m, e))
			continue;
		m->weight[k][m->n[k]] = (int32_t)e->weight * ARB_UNIT_BYTES;
		m->vl[k][m->n[k]++] = e->vl;
		m->last_at_end[k] = i == t->n_entries - 1;
	}
	m->weight[k][m->n[k]] = INT32_MAX / 2;
	m->vl[k][m->n[k]] = ARB_VL15;
}

enum arb_ib_mode arb_ib_mode_of(bool high, bool low, int limit, const struct arb_semantics *sem)
{
	if (!high)
		return ARB_IB_ONLY_LOW;
	if (!low || limit == ARB_LIMIT_NONE)
		return ARB_IB_ONLY_HIGH;
	if (sem->low_turn == ARB_LOW_PACKET || (limit == 0 && sem->limit0 == ARB_LIMIT0_ALTERNATE))
		return ARB_IB_LIMITED_PACKET;
	return ARB_IB_LIMITED_ENTRY;
}

static void sim_init(struct sim *m, const struct arb_sim_spec *spec)
{
	int q;

	memset(m, 0, sizeof(*m));
	m->spec = spec;
	m->table[SIM_HIGH] = spec->high;
	m->table[SIM_LOW] = spec->low;
	m->active[SIM_HIGH] = sim_table_active(m, spec->high);
	m->active[SIM_LOW] = sim_table_active(m, spec->low);
	m->limit_bytes = spec->limit * ARB_LIMIT_UNIT_BYTES;
	for (q = 0; q < ARB_NUM_VLS; q++)
		m->packet_bytes[q] = (int32_t)spec->packet_bytes[q];
	sim_init_table(m, SIM_HIGH);
	sim_init_table(m, SIM_LOW);
	m->mode = arb_ib_mode_of(m->active[SIM_HIGH], m->active[SIM_LOW], spec->limit, &spec->sem);
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
 * table (of the low table when it runs alone), and that step. Two equal
 * checkpoints bound one exact period.
 */
struct sim_mark {
	struct sim_state st;
	uint32_t hash;
	uint64_t step;
	uint64_t empty;		/* low turns passed empty before it */
};

struct sim_marks {
	struct sim_mark *mark;		/* in order of steps */
	int32_t *slot;			/* hash: index into mark, -1 empty */
	uint32_t n, cap, slots;
};

static uint32_t sim_hash(const struct sim_state *st)
{
	uint64_t w[sizeof(*st) / 8], h = 0x9e3779b97f4a7c15ull;
	size_t i;

	memcpy(w, st, sizeof(w));
	for (i = 0; i < sizeof(*st) / 8; i++)
		h = (h ^ w[i]) * 0xff51afd7ed558ccdull;
	return (uint32_t)(h ^ (h >> 29) ^ (h >> 47));
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
		h = mark[i].hash & (mk->slots - 1);
		while (slot[h] >= 0)
			h = (h + 1) & (mk->slots - 1);
		slot[h] = (int32_t)i;
	}
	return 0;
}

/*
 * The earlier mark equal to @st, or record @st and return NULL. Past
 * ARB_SIM_MAX_MARKS nothing more is recorded (memory stays bounded): a later
 * state is still looked up, so a period that starts within the first
 * marks is found, one that starts later is not.
 */
static const struct sim_mark *sim_marks_seen(struct sim_marks *mk,
					     const struct sim_state *st,
					     uint64_t step, uint64_t empty)
{
	uint32_t hash = sim_hash(st), h;
	struct sim_mark *k;

	if (mk->n == mk->cap && (mk->cap >= ARB_SIM_MAX_MARKS || sim_marks_grow(mk)) && !mk->n)
		return NULL;
	h = hash & (mk->slots - 1);
	for (; mk->slot[h] >= 0; h = (h + 1) & (mk->slots - 1))
		if (!memcmp(&mk->mark[mk->slot[h]].st, st, sizeof(*st)))
			return &mk->mark[mk->slot[h]];
	if (mk->n == mk->cap)
		return NULL;
	mk->slot[h] = (int32_t)mk->n;
	k = &mk->mark[mk->n++];
	k->st = *st;
	k->hash = hash;
	k->step = step;
	k->empty = empty;
	return NULL;
}

/*
 * The VL of every packet sent: a period's bytes, packets and gaps are
 * counted over it afterwards, with no counting per packet while the
 * arbiter runs. It grows by doubling, up to max_steps.
 */
struct sim_seq {
	uint8_t *vl;
	uint64_t n, cap;
};

/* Room for at least one more packet; -ENOMEM when none can be had. */
static int sim_seq_room(struct sim_seq *s, uint64_t max_steps)
{
	uint64_t cap = s->cap ? 2 * s->cap : 1u << 16;
	uint8_t *vl;

	if (cap > max_steps)
		cap = max_steps;
	vl = realloc(s->vl, cap);
	if (!vl)
		return -ENOMEM;
	s->vl = vl;
	s->cap = cap;
	return 0;
}

/* Packets per queue among the packets [@from, @to). */
static void sim_seq_count(const struct sim_seq *s, uint64_t from, uint64_t to,
			  uint64_t count[ARB_NUM_VLS])
{
	uint64_t i;

	memset(count, 0, sizeof(uint64_t) * ARB_NUM_VLS);
	for (i = from; i < to; i++)
		count[s->vl[i]]++;
}

/* The gaps of the packets recorded, in order, each after a queue's first. */
static void sim_seq_gaps_linear(const struct sim_seq *s, struct arb_sim_out *out)
{
	uint64_t last[ARB_NUM_VLS], i, gap;
	bool seen[ARB_NUM_VLS] = { false };
	int vl;

	for (i = 0; i < s->n; i++) {
		vl = s->vl[i];
		if (seen[vl]) {
			gap = i - last[vl] - 1;
			out->gap_sum[vl] += gap;
			if (gap > out->gap_max[vl])
				out->gap_max[vl] = gap;
		}
		seen[vl] = true;
		last[vl] = i;
	}
}

/*
 * Packets and gaps of one period, the packets from @from for @len,
 * counted cyclically: a queue's first gap reaches back to its last
 * packet, as a second period would count it. So each queue's gaps sum
 * to the period less its own packets, and only the largest is searched:
 * each queue's last packet, taken one period back, starts the search
 * (@queues: those that may send, to stop looking back once all are seen).
 */
static void sim_seq_gaps(const struct sim_seq *s, uint64_t from, uint64_t len,
			 uint16_t queues, struct arb_sim_out *out)
{
	const uint8_t *vl = s->vl + from;
	int64_t last[ARB_NUM_VLS], r, gap, gap_max[ARB_NUM_VLS] = { 0 };
	int q, left = __builtin_popcount(queues);

	for (q = 0; q < ARB_NUM_VLS; q++)
		last[q] = 1;
	for (r = (int64_t)len - 1; left && r >= 0; r--) {
		if (last[vl[r]] > 0) {
			last[vl[r]] = r - (int64_t)len;
			left--;
		}
	}
	for (r = 0; r < (int64_t)len; r++) {
		gap = r - last[vl[r]] - 1;
		if (gap > gap_max[vl[r]])
			gap_max[vl[r]] = gap;
		last[vl[r]] = r;
		out->packets[vl[r]]++;
	}
	for (q = 0; q < ARB_NUM_VLS; q++) {
		if (!out->packets[q])
			continue;
		out->gap_sum[q] = len - out->packets[q];
		out->gap_max[q] = (uint64_t)gap_max[q];
	}
}

/*
 * Run until a checkpoint repeats, max_steps packets are sent or the work
 * (packets, entries looked at and checkpoints) passes max_work, every packet recorded
 * in @seq, the low turns passed empty counted in *empty. Returns the
 * mark the last checkpoint repeats, or NULL (no period; -ENOMEM in *err
 * when @seq could not grow).
 */
static const struct sim_mark *sim_detect(struct sim *m, struct sim_state *st,
					 uint64_t max_steps, uint64_t max_work,
					 struct sim_marks *mk, struct sim_seq *seq,
					 uint64_t *empty, uint64_t *work, int *err)
{
	const struct sim_mark *prev = NULL;
	bool wrapped = false;
	uint64_t n;

	while (seq->n < max_steps && *work < max_work) {
		if (wrapped) {
			*work += SIM_MARK_WORK;
			prev = sim_marks_seen(mk, st, seq->n, *empty);
			if (prev)
				return prev;
		}
		if (seq->n == seq->cap && (*err = sim_seq_room(seq, max_steps)))
			return NULL;
		n = (seq->cap < max_steps ? seq->cap : max_steps) - seq->n;
		if (n > SIM_BURST_MAX)
			n = SIM_BURST_MAX;	/* the work is checked that often at least */
		seq->n += sim_run_burst(m, st, seq->vl + seq->n, n, max_work - *work,
					&wrapped, empty, work);
	}
	return NULL;
}

/* The queues of the active entries of the tables that get turns. */
static uint16_t sim_queues(const struct sim *m)
{
	uint16_t queues = 0;
	int k, i;

	for (k = 0; k < 2; k++)
		for (i = 0; i < m->n[k]; i++)
			if (k == SIM_HIGH ? m->mode != ARB_IB_ONLY_LOW :
			    m->mode != ARB_IB_ONLY_HIGH)
				queues |= 1u << m->vl[k][i];
	return queues;
}

/*
 * Out of the packets recorded: over the period that ends them (from
 * @prev), or, with none found, over the window since the first
 * checkpoint. Packets per queue are of the period when gaps are wanted,
 * else of every packet sent; gaps reach back one period, or, without
 * one, are counted from each queue's first packet.
 */
static void sim_measure(const struct sim *m, const struct sim_seq *seq,
			const struct sim_marks *mk, const struct sim_mark *prev,
			struct arb_sim_out *out)
{
	uint64_t from = prev ? prev->step : mk->n ? mk->mark[0].step : 0;
	uint64_t head[ARB_NUM_VLS];
	int q;

	out->exact = prev != NULL;
	out->packets_total = seq->n - from;
	if (prev && m->spec->want_gaps)
		sim_seq_gaps(seq, from, seq->n - from, sim_queues(m), out);
	else
		sim_seq_count(seq, from, seq->n, out->packets);
	for (q = 0; q < ARB_NUM_VLS; q++)
		out->bytes[q] = out->packets[q] * (uint64_t)m->packet_bytes[q];
	if (!prev && m->spec->want_gaps)
		sim_seq_gaps_linear(seq, out);
	if (prev && m->spec->want_gaps)
		return;
	sim_seq_count(seq, 0, from, head);
	for (q = 0; q < ARB_NUM_VLS; q++)
		out->packets[q] += head[q];
}

/*
 * The marks and packets of a run in @mem's memory, if any: emptied, with
 * the room an earlier run grew (its pages already touched).
 */
static void sim_mem_take(const struct arb_sim_mem *mem, struct sim_marks *mk,
			 struct sim_seq *seq)
{
	if (!mem || !mem->mark_cap)
		return;
	mk->mark = mem->mark;
	mk->slot = mem->slot;
	mk->cap = mem->mark_cap;
	mk->slots = 2 * mk->cap;
	memset(mk->slot, 0xff, mk->slots * sizeof(*mk->slot));
	seq->vl = mem->seq;
	seq->cap = mem->seq_cap;
}

/* A run's memory back to @mem for the next run, or freed without one. */
static void sim_mem_give(struct arb_sim_mem *mem, struct sim_marks *mk,
			 struct sim_seq *seq)
{
	if (!mem || !mk->cap) {
		free(seq->vl);
		free(mk->mark);
		free(mk->slot);
		return;
	}
	mem->mark = mk->mark;
	mem->slot = mk->slot;
	mem->mark_cap = mk->cap;
	mem->seq = seq->vl;
	mem->seq_cap = seq->cap;
}

void arb_sim_mem_release(struct arb_sim_mem *mem)
{
	free(mem->mark);
	free(mem->slot);
	free(mem->seq);
	memset(mem, 0, sizeof(*mem));
}

int arb_sim_run(const struct arb_sim_spec *spec, struct arb_sim_out *out)
{
	uint64_t max_steps = spec->max_steps ? spec->max_steps : ARB_SIM_MAX_STEPS;
	uint64_t max_work = spec->max_work ? spec->max_work : UINT64_MAX;
	const struct sim_mark *prev;
	struct sim_marks mk = { 0 };
	struct sim_seq seq = { 0 };
	struct sim_state st;
	struct sim m;
	uint64_t total = 0, empty = 0;
	int q, err = 0;

	memset(out, 0, sizeof(*out));
	memset(&st, 0, sizeof(st));
	sim_init(&m, spec);
	if (!m.active[SIM_HIGH] && !m.active[SIM_LOW])
		return -EINVAL;
	sim_mem_take(spec->mem, &mk, &seq);
	prev = sim_detect(&m, &st, max_steps, max_work, &mk, &seq, &empty, &out->work, &err);
	if (!err)
		sim_measure(&m, &seq, &mk, prev, out);
	out->empty_low_turns = prev ? empty - prev->empty : empty;
	sim_mem_give(spec->mem, &mk, &seq);
	if (err)
		return err;
	if (!out->exact) {
		for (q = 0; q < ARB_NUM_VLS; q++)
			total += out->bytes[q];
		out->bound = sim_window_bound(&m, total);
	}
	return 0;
}
