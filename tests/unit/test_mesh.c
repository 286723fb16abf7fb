/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf mesh without agents: the round-robin schedule (every ordered pair
 * once, no host twice in a step, N - 1 rounds for an even N), the
 * outlier rule on made-up matrices (and on a sampled pass's subset), the
 * OpenMetrics text, the table with
 * an agent's words escaped, the hops located over a topology. With --openmetrics, prints a made-up mesh's
 * OpenMetrics text instead (for promtool), with --located-om that of a
 * located mesh of two traffic classes on one SL, with --located the JSON of a
 * mesh over two switches with its hops (for the schema), its table on
 * stderr (tests/unit/mesh-cli.sh).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "coord/mesh.h"
#include "coord/mesh_sample.h"
#include "report/report_mesh.h"
#include "unit.h"

#define MAX_N 41

/* Every ordered pair exactly once over the rounds' two halves; no host twice in a half. */
static void check_schedule(size_t n)
{
	static unsigned seen[MAX_N][MAX_N];
	struct mesh_match mt[MAX_N / 2 + 1];
	size_t r, i, k, h, rounds = mesh_n_rounds(n);
	unsigned busy[MAX_N];
	int s, d;

	memset(seen, 0, sizeof(seen));
	assert_int_equal(rounds, n % 2 ? n : n - 1);
	for (r = 0; r < rounds; r++) {
		k = mesh_round(n, r, mt);
		assert_int_equal(k, n / 2);
		for (h = 0; h < 2; h++) {
			memset(busy, 0, sizeof(busy));
			for (i = 0; i < k; i++) {
				s = h ? mt[i].b : mt[i].a;
				d = h ? mt[i].a : mt[i].b;
				assert_true(s >= 0 && (size_t)s < n && d >= 0 && (size_t)d < n);
				assert_int_not_equal(s, d);
				assert_int_equal(busy[s]++, 0);
				assert_int_equal(busy[d]++, 0);
				seen[s][d]++;
			}
		}
	}
	for (s = 0; (size_t)s < n; s++)
		for (d = 0; (size_t)d < n; d++)
			if (s != d && seen[s][d] != 1)
				fail_msg("n %zu: %d -> %d measured %u times", n, s, d, seen[s][d]);
}

static void test_schedule(void **state)
{
	size_t n;

	(void)state;
	assert_int_equal(mesh_n_rounds(0), 0);
	assert_int_equal(mesh_n_rounds(1), 0);
	for (n = 2; n <= MAX_N; n++)
		check_schedule(n);
	assert_int_equal(mesh_n_rounds(8), 7);
	assert_int_equal(mesh_n_rounds(1000), 999);
}

/*
 * Beyond one step's flows (2 * MESH_STEP_FLOWS hosts, the cap there
 * once was): each round's pairings in parts of at most MESH_STEP_FLOWS,
 * every ordered pair of every class in exactly one part, no host twice
 * in a part, and as many steps as mesh_init() counts.
 */
static void check_schedule_parts(size_t n, size_t n_classes)
{
	struct mesh_opts o = { .n_hosts = n, .n_classes = n_classes };
	struct mesh_match *mt = calloc(n / 2 + 1, sizeof(*mt));
	unsigned char *busy = calloc(n, 1);
	size_t r, h, p, k, i, at, in, steps = 0;
	struct mesh_run m;
	int s, d;

	assert_non_null(mt);
	assert_non_null(busy);
	assert_int_equal(mesh_init(&m, &o), 0);
	assert_int_equal(m.n_pairs, n_classes * n * (n - 1));
	for (r = 0; r < m.rounds; r++) {
		k = mesh_round(n, r, mt);
		for (size_t c = 0; c < n_classes; c++)
			for (h = 0; h < 2; h++)
				for (p = 0; p < mesh_round_parts(n); p++, steps++) {
					in = mesh_round_part(k, p, &at);
					assert_true(in >= 1 && in <= MESH_STEP_FLOWS);
					memset(busy, 0, n);
					for (i = at; i < at + in; i++) {
						s = h ? mt[i].b : mt[i].a;
						d = h ? mt[i].a : mt[i].b;
						assert_int_equal(busy[s]++ + busy[d]++, 0);
						m.pairs[mesh_pair_index(n, s, d, c)].outlier ^= 1;
						assert_true(m.pairs[mesh_pair_index(n, s, d, c)].outlier);
					}
				}
		assert_int_equal(mesh_round_part(k, mesh_round_parts(n), &at), 0);
	}
	assert_int_equal(steps, m.steps);
	for (i = 0; i < m.n_pairs; i++)
		if (!m.pairs[i].outlier)
			fail_msg("n %zu: pair %zu measured in no step", n, i);
	mesh_free(&m);
	free(mt);
	free(busy);
}

static void test_schedule_large(void **state)
{
	(void)state;
	assert_true(MESH_MAX_HOSTS >= 4096);
	assert_int_equal(mesh_round_parts(2 * MESH_STEP_FLOWS), 1);
	assert_int_equal(mesh_round_parts(2 * MESH_STEP_FLOWS + 2), 2);
	assert_int_equal(mesh_round_parts(4096), 4096 / 2 / MESH_STEP_FLOWS);
	check_schedule_parts(2 * MESH_STEP_FLOWS + 1, 1);
	check_schedule_parts(300, 2);
	check_schedule_parts(517, 1);
}

static const char *const hosts[] = { "h1", "h2", "h3", "h4", "h5" };

/* A pair's RTTs: @n samples around @ns (+- 1 %, spread evenly), @zeros
 * unresolved, in a sketch as a pass joins them. */
static struct sketch *rtts(double ns, unsigned n, unsigned zeros)
{
	struct hist *h = hist_new();
	struct sketch *s = NULL;
	unsigned i;

	assert_non_null(h);
	for (i = 0; i < zeros; i++)
		hist_record(h, 0);
	for (i = 0; i < n; i++)
		hist_record(h, (uint64_t)(ns * (0.99 + 0.02 * i / n)));
	assert_int_equal(sketch_add_hist(&s, h, 1.0), 0);
	hist_free(h);
	return s;
}

/* A mesh of @n hosts on @n_cls classes, class k's pairs at base * (1 + k / 2). */
static void made_up(struct mesh_run *m, struct mesh_opts *o, size_t n, size_t n_cls)
{
	size_t i, k;

	memset(o, 0, sizeof(*o));
	o->hosts = hosts;
	o->n_hosts = n;
	o->n_classes = n_cls;
	for (k = 0; k < n_cls; k++)
		o->classes[k] = (struct mesh_class){ .sl = (int)k, .tclass = 0 };
	o->mad_k = 3;
	o->duration_s = 1;
	o->size_bytes = 64;
	assert_int_equal(mesh_init(m, o), 0);
	m->pass = 1;
	for (i = 0; i < m->n_pairs; i++)
		m->pairs[i].rtt_ns = rtts(10000 * (1 + 0.5 * (double)m->pairs[i].cls) *
					  (1 + 0.004 * (double)(i % 5)), 2000, 0);
	m->complete = true;
}

/* Host @h's pairs on class @k at @ns. */
static void slow_host(struct mesh_run *m, int h, size_t k, double ns)
{
	size_t i;

	for (i = 0; i < m->n_pairs; i++)
		if (m->pairs[i].cls == k && (m->pairs[i].src == h || m->pairs[i].dst == h)) {
			sketch_free(m->pairs[i].rtt_ns);
			m->pairs[i].rtt_ns = rtts(ns, 2000, 0);
		}
}

static size_t count_kind(const struct mesh_run *m, enum mesh_outlier_kind kind)
{
	size_t i, n = 0;

	for (i = 0; i < m->n_outliers; i++)
		n += m->outliers[i].kind == kind;
	return n;
}

/*
 * A sampled pass over two leaves (h1 h2 | h3 h4 h5), one target across
 * a host: the pairs it left out hold nothing and are neither judged nor
 * reported; h5, slow, is named on the pairs measured; the JSON lists
 * those pairs alone and says the schedule, the table says "not run".
 */
static void test_sampled_subset(void **state)
{
	static const size_t leaf[5] = { 0, 0, 1, 1, 1 };
	struct mesh_report_info info = { .source = "--hosts" };
	struct mesh_sample_pass sp;
	size_t i, len = 0, measured = 0;
	struct mesh_opts o;
	struct mesh_run m;
	char *text = NULL;
	json_t *doc;
	FILE *f;

	(void)state;
	made_up(&m, &o, 5, 1);
	slow_host(&m, 4, 0, 20000);
	o.leaf = leaf;
	o.sample_k = 1;
	assert_non_null(m.sample = calloc(1, sizeof(*m.sample)));
	assert_int_equal(mesh_sample_init(m.sample, leaf, 5, 1), 0);
	assert_int_equal(mesh_sample_pass(m.sample, 0, &sp), 0);
	for (i = 0; i < sp.n_pairs; i++)
		m.pairs[mesh_pair_index(5, sp.pairs[i].a, sp.pairs[i].b, 0)].measured = true;
	mesh_sample_pass_free(&sp);
	for (i = 0; i < m.n_pairs; i++) {
		measured += m.pairs[i].measured;
		if (!m.pairs[i].measured) {
			sketch_free(m.pairs[i].rtt_ns);
			m.pairs[i].rtt_ns = NULL;
		}
	}
	assert_true(measured > 4 && measured < m.n_pairs);
	assert_int_equal(mesh_outliers(&m), 0);
	for (i = 0; i < m.n_pairs; i++)
		assert_int_equal(m.pairs[i].outlier, m.pairs[i].measured &&
				 (m.pairs[i].src == 4 || m.pairs[i].dst == 4));
	assert_int_equal(count_kind(&m, MESH_OUT_HOST), 1);
	doc = report_mesh_json(&info, &m);
	assert_int_equal(json_array_size(json_object_get(doc, "pairs")), measured);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "schedule"),
							      "name")), "sampled");
	json_decref(doc);
	assert_non_null(f = open_memstream(&text, &len));
	report_mesh_table(f, &info, &m);
	fclose(f);
	assert_non_null(strstr(text, "not run"));
	assert_non_null(strstr(text, "rotation 1 of"));
	free(text);
	mesh_free(&m);
}

/* One slow host of five: its 8 pairs named, it named, no one else. */
static void test_outlier_host(void **state)
{
	struct mesh_opts o;
	struct mesh_run m;
	size_t i;

	(void)state;
	made_up(&m, &o, 5, 1);
	slow_host(&m, 4, 0, 20000);
	assert_int_equal(mesh_outliers(&m), 0);
	for (i = 0; i < m.n_pairs; i++) {
		assert_int_equal(m.pairs[i].outlier, m.pairs[i].src == 4 || m.pairs[i].dst == 4);
		if (m.pairs[i].outlier)
			assert_non_null(strstr(m.pairs[i].why, "median"));
	}
	assert_int_equal(count_kind(&m, MESH_OUT_PAIR), 8);
	assert_int_equal(count_kind(&m, MESH_OUT_HOST), 1);
	for (i = 0; i < m.n_outliers; i++)
		if (m.outliers[i].kind == MESH_OUT_HOST) {
			assert_string_equal(m.outliers[i].name, "h5");
			assert_non_null(strstr(m.outliers[i].why, "8 of its 8 pairs"));
		}
	mesh_free(&m);
}

/*
 * The host rule judges only pairs with an interval: h5's two pairs with
 * h1 slow, its six others with 480 unresolved samples of 1000 (a p50,
 * but the low end of its interval among the unresolved, so never an
 * outlier): two of its two judged pairs, a host outlier (counting the
 * six, two of eight would name no one).
 */
static void test_outlier_host_judged(void **state)
{
	struct mesh_opts o;
	struct mesh_run m;
	size_t i;

	(void)state;
	made_up(&m, &o, 5, 1);
	for (i = 0; i < m.n_pairs; i++) {
		struct mesh_pair *p = &m.pairs[i];

		if (p->src != 4 && p->dst != 4)
			continue;
		sketch_free(p->rtt_ns);
		p->rtt_ns = p->src == 0 || p->dst == 0 ? rtts(20000, 2000, 0) :
			    rtts(10000, 520, 480);
	}
	assert_int_equal(mesh_outliers(&m), 0);
	assert_int_equal(count_kind(&m, MESH_OUT_PAIR), 2);
	assert_int_equal(count_kind(&m, MESH_OUT_HOST), 1);
	for (i = 0; i < m.n_outliers; i++)
		if (m.outliers[i].kind == MESH_OUT_HOST) {
			assert_string_equal(m.outliers[i].name, "h5");
			assert_non_null(strstr(m.outliers[i].why, "2 of its 2 pairs"));
		}
	mesh_free(&m);
}

/*
 * Within the floor: a pair 3 % above a spread of nothing is not named
 * (5 % of the median); 8 % above is. A pair whose p50 is unresolved is
 * not judged, and an empty one neither.
 */
static void test_outlier_floor(void **state)
{
	struct mesh_opts o;
	struct mesh_run m;
	size_t i;

	(void)state;
	made_up(&m, &o, 4, 1);
	for (i = 0; i < m.n_pairs; i++) {
		sketch_free(m.pairs[i].rtt_ns);
		m.pairs[i].rtt_ns = rtts(10000, 2000, 0);
	}
	sketch_free(m.pairs[1].rtt_ns);
	m.pairs[1].rtt_ns = rtts(10300, 2000, 0);
	sketch_free(m.pairs[2].rtt_ns);
	m.pairs[2].rtt_ns = rtts(50000, 1000, 1500);	/* p50 among the zeros */
	sketch_free(m.pairs[3].rtt_ns);
	m.pairs[3].rtt_ns = NULL;
	assert_int_equal(mesh_outliers(&m), 0);
	assert_int_equal(m.n_outliers, 0);
	assert_int_equal(m.pairs[2].p50.state, HIST_Q_UNRESOLVED);
	assert_int_equal(m.pairs[3].p50.state, HIST_Q_EMPTY);
	sketch_free(m.pairs[1].rtt_ns);
	m.pairs[1].rtt_ns = rtts(10800, 2000, 0);
	assert_int_equal(mesh_outliers(&m), 0);
	assert_int_equal(m.n_outliers, 1);
	assert_true(m.pairs[1].outlier);
	assert_string_equal(m.outliers[0].name, "h1 -> h3");
	mesh_free(&m);
}

/* Two classes, the second 1.5 times the first: it is named, the first not. */
static void test_outlier_class(void **state)
{
	struct mesh_opts o;
	struct mesh_run m;

	(void)state;
	made_up(&m, &o, 4, 2);
	assert_int_equal(mesh_outliers(&m), 0);
	assert_int_equal(count_kind(&m, MESH_OUT_PAIR), 0);
	assert_int_equal(count_kind(&m, MESH_OUT_CLASS), 1);
	assert_string_equal(m.outliers[0].name, "sl 1");
	assert_non_null(strstr(m.outliers[0].why, "fastest class's (sl 0)"));
	mesh_free(&m);
}

/*
 * Two switches joined by a trunk, h1 and h2 on sw1, h3 and h4 on sw2;
 * every pair 10 us, 20 us more across the trunk: the trunk is located at
 * 20 us and named slow, no host link is; the JSON and the OpenMetrics
 * text carry the hops. With a reference of the same figures less 20 us
 * across, the excess puts the trunk at 20 us again and the host links at 0.
 */
static void two_switches_cls(struct mesh_run *m, struct mesh_opts *o, struct topo *topo,
			     struct mesh_ref *refs, size_t n_cls)
{
	static const char fabric[] = "h1 sw1:p1\nh2 sw1:p2\nh3 sw2:p1\nh4 sw2:p2\n"
				     "sw1:p3 sw2:p3\n";
	char err[256];
	bool across;
	size_t i;

	memset(topo, 0, sizeof(*topo));
	assert_int_equal(topo_parse(topo, "fabric", fabric, "file", NULL, err, sizeof(err)), 0);
	made_up(m, o, 4, n_cls);
	if (n_cls == 2)		/* two traffic classes on one SL */
		o->classes[1] = (struct mesh_class){ .sl = 0, .tclass = 96 };
	o->topo = topo;
	for (i = 0; i < m->n_pairs; i++) {
		across = (m->pairs[i].src < 2) != (m->pairs[i].dst < 2);
		sketch_free(m->pairs[i].rtt_ns);
		m->pairs[i].rtt_ns = rtts(across ? 30000 : 10000, 2000, 0);
		refs[i] = (struct mesh_ref){ .sl = 0, .p50_ns = 10000, .ci_low_ns = 9990,
					     .ci_high_ns = 10010 };
		snprintf(refs[i].src, sizeof(refs[i].src), "%s", hosts[m->pairs[i].src]);
		snprintf(refs[i].dst, sizeof(refs[i].dst), "%s", hosts[m->pairs[i].dst]);
	}
	assert_int_equal(mesh_outliers(m), 0);
	assert_int_equal(mesh_locate(m), 0);
}

static void two_switches(struct mesh_run *m, struct mesh_opts *o, struct topo *topo,
			 struct mesh_ref *refs)
{
	two_switches_cls(m, o, topo, refs, 1);
}

static void test_locate(void **state)
{
	const struct locate_hop *h;
	struct topo topo;
	struct mesh_ref refs[12];
	struct mesh_report_info info = { .source = "--hosts" };
	struct mesh_opts o;
	struct mesh_run m;
	char *text = NULL;
	size_t i, len = 0, n_slow = 0;
	json_t *doc;
	FILE *f;
	bool across;

	(void)state;
	two_switches(&m, &o, &topo, refs);
	assert_true(m.loc[0].ok);
	assert_int_equal(m.loc[0].res.n_used, 12);
	for (i = 0; i < m.loc[0].res.n_hops; i++) {
		h = &m.loc[0].res.hops[i];
		assert_true(h->identifiable);
		across = topo.nodes[topo.links[h->link].a].is_switch &&
			 topo.nodes[topo.links[h->link].b].is_switch;
		assert_near(h->est_ns, across ? 20000 : 5000, 200);
		assert_int_equal(h->slow, across);
		n_slow += h->slow;
	}
	assert_int_equal(n_slow, 1);
	doc = report_mesh_json(&info, &m);
	assert_int_equal(json_array_size(json_object_get(doc, "hops")), 5);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "locate"), "used")),
			 12);
	json_decref(doc);
	f = open_memstream(&text, &len);
	assert_int_equal(report_mesh_openmetrics(f, &m), 0);
	fclose(f);
	assert_non_null(strstr(text, "rperf_mesh_hop_slow{link=\"sw1:p3 - sw2:p3\",sl=\"0\","
			       "tclass=\"0\"} 1\n"));
	free(text);
	/* The excess over a reference at 10 us everywhere. */
	o.refs = refs;
	o.n_refs = m.n_pairs;
	assert_int_equal(mesh_locate(&m), 0);
	assert_true(m.loc[0].ok);
	for (i = 0; i < m.loc[0].res.n_hops; i++) {
		h = &m.loc[0].res.hops[i];
		across = topo.nodes[topo.links[h->link].a].is_switch &&
			 topo.nodes[topo.links[h->link].b].is_switch;
		assert_near(h->est_ns, across ? 20000 : 0, 200);
	}
	mesh_free(&m);
	topo_free(&topo);
}

/* Hosts of two CAs (an InfiniBand fat tree's h1 mlx5_0 and h1 mlx5_1):
 * with -d the mesh's HOST is its rail on that device; without, "h1" is
 * ambiguous and the class says so. */
static void test_multi_rail(void **state)
{
	const char *files[] = { TEST_DATA "/ib/fat-tree.ibnetdiscover.txt" };
	struct scenario *sc = calloc(1, sizeof(*sc));
	struct topo topo = { 0 };
	struct mesh_opts o;
	struct mesh_run m;
	char err[256];

	(void)state;
	assert_non_null(sc);
	assert_int_equal(topo_read(&topo, files, 1, NULL, err, sizeof(err)), 0);
	made_up(&m, &o, 4, 1);
	o.topo = &topo;
	o.base = sc;
	assert_int_equal(mesh_outliers(&m), 0);
	assert_int_equal(mesh_locate(&m), 0);
	assert_false(m.loc[0].ok);
	assert_non_null(strstr(m.loc[0].error, "host 'h1' is not in the topology as one node: it "
				"has several devices"));
	snprintf(sc->device, sizeof(sc->device), "mlx5_1");
	assert_int_equal(mesh_locate(&m), 0);
	assert_true(m.loc[0].ok);
	assert_int_equal(m.loc[0].res.n_used, 12);
	mesh_free(&m);
	topo_free(&topo);
	free(sc);
}

/* The made-up mesh behind the OpenMetrics test: an unresolved pair, an empty one. */
static void om_mesh(struct mesh_run *m, struct mesh_opts *o)
{
	made_up(m, o, 3, 2);
	sketch_free(m->pairs[0].rtt_ns);
	m->pairs[0].rtt_ns = rtts(12000, 100, 9950);	/* p50, p99 unresolved */
	sketch_free(m->pairs[1].rtt_ns);
	m->pairs[1].rtt_ns = NULL;
	assert_int_equal(mesh_outliers(m), 0);
}

/*
 * An agent's words in the table (a pair's error, the run's) reach the
 * terminal escaped: no ESC, no line of their own. They once went raw.
 */
static void test_table_peer_text(void **state)
{
	struct mesh_report_info info = { .source = "--hosts" };
	struct mesh_opts o;
	struct mesh_run m;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	om_mesh(&m, &o);
	m.pairs[0].error = strdup("x\n\x1b[2Jall pairs fine");
	m.complete = false;
	snprintf(m.error, sizeof(m.error), "agent 'h2': \x1b[2Jz\nrperf: y");
	assert_non_null(f = open_memstream(&text, &len));
	report_mesh_table(f, &info, &m);
	fclose(f);
	assert_null(strchr(text, 0x1b));
	assert_non_null(strstr(text, ": x\\x0a\\x1b[2Jall pairs fine\n"));
	assert_non_null(strstr(text, "\nincomplete: agent 'h2': \\x1b[2Jz\\x0arperf: y\n"));
	free(text);
	mesh_free(&m);
}

/*
 * A pair's description (report_mesh_fields) and mesh.schema.json name the
 * same keys: each JSON key is a property of $defs/pair and each property
 * is described once; each CSV column reads a figure and is named once;
 * the OpenMetrics labels are JSON keys too.
 */
static void test_pair_fields_match_schema(void **state)
{
	const char *key;
	const struct report_field *f;
	json_t *schema, *props, *v;
	size_t n, i, j, found;

	(void)state;
	schema = unit_schema_load("mesh.schema.json");
	props = json_object_get(json_object_get(json_object_get(schema, "$defs"), "pair"),
				"properties");
	assert_non_null(props);
	f = report_mesh_fields(&n);
	for (i = 0; i < n; i++) {
		if (f[i].key && !json_object_get(props, f[i].key))
			fail_msg("pair field %s is not in mesh.schema.json's pair", f[i].key);
		if (!report_field_reads(&f[i]) || (!f[i].key && !f[i].csv) || (f[i].label && !f[i].key))
			fail_msg("pair field %zu reads nothing or is named nowhere", i);
		for (j = 0; f[i].csv && j < i; j++)
			if (f[j].csv && !strcmp(f[i].csv, f[j].csv))
				fail_msg("CSV column %s is named twice", f[i].csv);
	}
	json_object_foreach(props, key, v) {
		for (found = 0, i = 0; i < n; i++)
			found += f[i].key && !strcmp(f[i].key, key);
		if (found != 1)
			fail_msg("mesh.schema.json's pair property %s is not described once", key);
	}
	json_decref(schema);
}

static void test_openmetrics(void **state)
{
	struct mesh_opts o;
	struct mesh_run m;
	char *text = NULL, *p50;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	double p50_s;

	(void)state;
	om_mesh(&m, &o);
	assert_int_equal(report_mesh_openmetrics(f, &m), 0);
	fclose(f);
	assert_non_null(strstr(text, "# TYPE rperf_mesh_rtt_seconds summary\n"));
	assert_non_null(strstr(text, "# HELP rperf_mesh_rtt_seconds "));
	/* Pair h2 -> h3 on sl 0, 10.12 us within the sketch's resolution;
	 * 2000 samples are too few for p99.9. */
	p50 = strstr(text, "rperf_mesh_rtt_seconds{src=\"h2\",dst=\"h3\",sl=\"0\","
		     "tclass=\"0\",quantile=\"0.5\"} ");
	assert_non_null(p50);
	assert_int_equal(sscanf(strchr(p50, '}') + 1, "%lf", &p50_s), 1);
	assert_true(fabs(p50_s - 10.12e-6) <= 10.12e-6 * SKETCH_REL_ERROR);
	assert_null(strstr(text, "{src=\"h2\",dst=\"h3\",sl=\"0\",tclass=\"0\",quantile=\"0.999\"}"));
	/* h1 -> h3, sl 0, measured nothing: no summary at all. */
	assert_null(strstr(text, "_count{src=\"h1\",dst=\"h3\",sl=\"0\""));
	/* h1 -> h2, sl 0: 9950 of 10050 unresolved: no p50, no p99, yet p99.9. */
	assert_null(strstr(text, "{src=\"h1\",dst=\"h2\",sl=\"0\",tclass=\"0\",quantile=\"0.5\"}"));
	assert_null(strstr(text, "{src=\"h1\",dst=\"h2\",sl=\"0\",tclass=\"0\",quantile=\"0.99\"}"));
	assert_non_null(strstr(text, "rperf_mesh_rtt_seconds_count{src=\"h1\",dst=\"h2\",sl=\"0\","
			       "tclass=\"0\"} 100\n"));
	assert_non_null(strstr(text, "rperf_mesh_rtt_unresolved_samples{src=\"h1\",dst=\"h2\","
			       "sl=\"0\",tclass=\"0\"} 9950\n"));
	/* sl 1's pairs: 1.5 times. */
	assert_non_null(strstr(text, "{src=\"h3\",dst=\"h2\",sl=\"1\",tclass=\"0\","
			       "quantile=\"0.5\"} 1.5"));
	assert_true(len > 6 && !strcmp(text + len - 6, "# EOF\n"));
	free(text);
	mesh_free(&m);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedule),
		cmocka_unit_test(test_schedule_large),
		cmocka_unit_test(test_outlier_host),
		cmocka_unit_test(test_sampled_subset),
		cmocka_unit_test(test_outlier_host_judged),
		cmocka_unit_test(test_outlier_floor),
		cmocka_unit_test(test_outlier_class),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_table_peer_text),
		cmocka_unit_test(test_pair_fields_match_schema),
		cmocka_unit_test(test_locate),
		cmocka_unit_test(test_multi_rail),
	};
	struct mesh_report_info info = { .source = "--hosts" };
	struct mesh_ref refs[12];
	struct mesh_opts o;
	struct mesh_run m;
	struct topo topo;
	json_t *doc;

	if (argc == 2 && !strcmp(argv[1], "--openmetrics")) {
		om_mesh(&m, &o);
		report_mesh_openmetrics(stdout, &m);
		mesh_free(&m);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--located-om")) {
		struct mesh_ref refs2[24];

		two_switches_cls(&m, &o, &topo, refs2, 2);
		report_mesh_openmetrics(stdout, &m);
		mesh_free(&m);
		topo_free(&topo);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--located")) {
		two_switches(&m, &o, &topo, refs);
		doc = report_mesh_json(&info, &m);
		json_dumpf(doc, stdout, JSON_INDENT(2));
		json_decref(doc);
		report_mesh_table(stderr, &info, &m);
		mesh_free(&m);
		topo_free(&topo);
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
