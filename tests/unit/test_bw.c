/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* bw: the pacing schedule, option validation, the bw client's server
 * queries and interval sums, and the JSON shape. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "unit.h"
#include "base/units.h"
#include "cli/bw.h"
#include "engine/bw_client.h"
#include "engine/load.h"
#include "report/report_bw.h"

/* ---- the bw client ---- */

/* One QP whose queries go to a socket the test answers as the server. */
/* A follow callback that counts the intervals it was handed. */
static void count_interval(void *arg, const struct bw_interval *iv)
{
	(void)iv;
	(*(size_t *)arg)++;
}

struct fake_worker {
	struct load_qp qp;
	struct load load;
	struct bw_client c;
	int server_fd;
};

static void fake_worker_init(struct fake_worker *f)
{
	struct bw_client_cfg cfg = { .size_bytes = 64, .n_qps = 1, .max_snaps = 4 };
	int sv[2];

	memset(f, 0, sizeof(*f));
	f->qp.ctl_fd = -1;
	f->load = (struct load){ .qps = &f->qp, .n_qps = 1 };
	assert_int_equal(bw_client_init(&f->c, &cfg, &f->load), 0);
	assert_int_equal(bw_client_results_init(&f->c, NULL, 0), 0);
	assert_ptr_equal(f->qp.res, &f->c.res[0]);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	f->c.query_fd[0] = sv[0];
	f->server_fd = sv[1];
}

static void fake_worker_release(struct fake_worker *f)
{
	bw_client_close(&f->c);
	assert_int_equal(f->c.query_fd[0], -1);
	close(f->server_fd);
	bw_client_release(&f->c);
}

/* The server's answer, @kind with these counts, sent ahead of the read. */
static void fake_send(struct fake_worker *f, uint16_t kind, uint64_t msgs, uint64_t bytes)
{
	struct conn_msg a = { .kind = kind, .v = { msgs, bytes } };

	assert_int_equal(conn_send_msg(f->server_fd, &a, 1000), 0);
}

/* The server: take one QUERY, answer with @kind and these counts. */
static void fake_answer(struct fake_worker *f, uint16_t kind, uint64_t msgs, uint64_t bytes)
{
	struct conn_msg q;

	assert_int_equal(conn_recv_msg(f->server_fd, &q, 1000), 0);
	assert_int_equal(q.kind, CONN_MSG_QUERY);
	fake_send(f, kind, msgs, bytes);
}

static void fake_interval(struct fake_worker *f, unsigned index, uint64_t msgs, bool last)
{
	struct load_interval iv = { .index = index, .start_ticks = 100,
				    .now_ticks = 100 + 1000 * (index + 1), .msgs = msgs,
				    .bytes = msgs * 64, .last = last };

	bw_client_on_interval(&f->c, &iv);
}

/*
 * Each boundary asks, the next one reads the answer: a snapshot is
 * published once its answer is in, and the last one is read at once.
 */
static void test_client_queries(void **state)
{
	struct fake_worker f;

	(void)state;
	fake_worker_init(&f);
	fake_interval(&f, 0, 10, false);
	assert_int_equal(f.c.n_snaps, 0);
	fake_answer(&f, CONN_MSG_STATS, 9, 576);
	fake_interval(&f, 1, 30, false);
	assert_int_equal(f.c.n_snaps, 1);
	assert_true(f.c.snaps[0].rx_valid);
	assert_int_equal(f.c.snaps[0].rx_msgs, 9);
	assert_int_equal(f.c.snaps[0].rx_bytes, 576);
	assert_int_equal(f.c.snaps[0].t_ticks, 1000);
	fake_answer(&f, CONN_MSG_STATS, 29, 1856);
	/* The last boundary's answer must be there when it reads it. */
	fake_send(&f, CONN_MSG_STATS, 40, 2560);
	fake_interval(&f, 2, 40, true);
	assert_int_equal(f.c.n_snaps, 3);
	assert_int_equal(f.c.snaps[1].rx_msgs, 29);
	assert_int_equal(f.c.snaps[2].msgs, 40);
	assert_int_equal(f.c.snaps[2].rx_msgs, 40);
	assert_true(f.c.res[0].rx_valid);
	assert_int_equal(f.c.res[0].rx_bytes, 2560);
	fake_worker_release(&f);
}

/* A wrong answer spoils its snapshot and every later one: they would not match. */
static void test_client_broken_answer(void **state)
{
	struct fake_worker f;

	(void)state;
	fake_worker_init(&f);
	fake_interval(&f, 0, 10, false);
	fake_answer(&f, CONN_MSG_MR, 9, 576);
	fake_interval(&f, 1, 30, false);
	assert_false(f.c.snaps[0].rx_valid);
	assert_false(f.c.snaps[1].rx_valid);
	fake_interval(&f, 2, 40, true);
	assert_int_equal(f.c.n_snaps, 3);
	assert_false(f.c.snaps[2].rx_valid);
	assert_false(f.c.res[0].rx_valid);
	assert_int_equal(f.c.snaps[2].msgs, 40);
	fake_worker_release(&f);
}

/*
 * Two workers over intervals of 1 s on a 1 GHz clock; the second stopped
 * after its first snapshot and without answers: its last one stands for
 * the later intervals and adds nothing to them.
 */
static void test_client_sum(void **state)
{
	static const struct clock_cal clk = { .ticks_per_ns = 1.0 };
	struct bw_snap a[2] = {
		{ .t_ticks = 1000000000, .msgs = 10, .bytes = 640, .rx_valid = true,
		  .rx_msgs = 8, .rx_bytes = 512 },
		{ .t_ticks = 2100000000, .msgs = 25, .bytes = 1600, .rx_valid = true,
		  .rx_msgs = 20, .rx_bytes = 1280 },
	};
	struct bw_snap b[1] = { { .t_ticks = 900000000, .msgs = 5, .bytes = 320 } };
	struct bw_client ca = { .snaps = a, .n_snaps = 2, .done = true };
	struct bw_client cb = { .snaps = b, .n_snaps = 1, .done = true };
	struct bw_client *c[2] = { &ca, &cb };
	struct bw_client_set s = { .c = c, .n = 2, .interval_s = 1.0, .clk = &clk };
	size_t n[2];
	bool all_done;
	struct bw_interval iv;

	(void)state;
	assert_true(bw_client_ready(&s, 1, n, &all_done));
	assert_true(all_done);
	assert_int_equal(n[0], 2);
	assert_int_equal(n[1], 1);
	bw_client_sum(&s, 0, n, &iv);
	assert_near(iv.start_s, 0, 0);
	assert_near(iv.end_s, 1.0, 1e-12);
	assert_int_equal(iv.msgs, 15);
	assert_int_equal(iv.bytes, 960);
	assert_false(iv.rx_valid);
	bw_client_sum(&s, 1, n, &iv);
	assert_near(iv.start_s, 1.0, 0);
	assert_near(iv.end_s, 2.1, 1e-12);
	assert_int_equal(iv.msgs, 15);
	assert_int_equal(iv.rx_msgs, 12);
	assert_int_equal(iv.rx_bytes, 768);
	/* Worker b's snapshot is invalid, so the sum's received is too. */
	assert_false(iv.rx_valid);
	/* Without b, worker a's answers make the interval's received known. */
	s.n = 1;
	bw_client_sum(&s, 1, n, &iv);
	assert_true(iv.rx_valid);
	assert_int_equal(iv.rx_msgs, 12);
}

/* Not ready while a running worker lacks the snapshot; follow sums each once. */
static void test_client_follow(void **state)
{
	static const struct clock_cal clk = { .ticks_per_ns = 1.0 };
	struct bw_snap a[2] = { { .t_ticks = 1000000000, .msgs = 10 },
				{ .t_ticks = 1500000000, .msgs = 12 } };
	struct bw_client ca = { .snaps = a, .n_snaps = 1 };
	struct bw_client *c[1] = { &ca };
	struct bw_client_set s = { .c = c, .n = 1, .interval_s = 1.0, .clk = &clk };
	struct bw_interval iv[4];
	size_t n[1], calls = 0;
	bool all_done;

	(void)state;
	assert_true(bw_client_ready(&s, 0, n, &all_done));
	assert_false(bw_client_ready(&s, 1, n, &all_done));
	assert_false(all_done);
	ca.n_snaps = 2;
	ca.done = true;
	assert_int_equal(bw_client_follow(&s, iv, count_interval, &calls), 2);
	assert_int_equal(calls, 2);
	assert_int_equal(iv[1].msgs, 2);
	assert_near(iv[1].end_s, 1.5, 1e-12);
}

/* ---- pacing ---- */

/* 1 KiB at 5 Mbit/s on a 1 GHz clock: one message every 1638400 ticks. */
static void test_pace_exact(void **state)
{
	struct load_pace p;

	(void)state;
	assert_int_equal(load_pace_init(&p, 1000, 1024, 5000000, 1e9), 0);
	assert_int_equal(load_pace_due(&p, 0), 1000);
	assert_int_equal(load_pace_due(&p, 1), 1000 + 1638400);
	assert_int_equal(load_pace_due(&p, 10), 1000 + 16384000);
	assert_int_equal(load_pace_count(&p, 999), 0);
	assert_int_equal(load_pace_count(&p, 1000), 1);
	assert_int_equal(load_pace_count(&p, 1000 + 1638399), 1);
	assert_int_equal(load_pace_count(&p, 1000 + 1638400), 2);
}

/* No drift: after a day at a rate whose interval is not a whole number of
 * ticks, message n is still due at exactly start + n * interval. */
static void test_pace_no_drift(void **state)
{
	const double tps = 2.1e9;		/* 2.1 GHz TSC */
	const uint64_t n = 86400ull * 1000000;	/* a day at 1 Mmsg/s */
	struct load_pace p;
	double want;

	(void)state;
	/* 64 B at 512 Mbit/s: 1 us = 2100 ticks a message. */
	assert_int_equal(load_pace_init(&p, 0, 64, 512000000, tps), 0);
	assert_int_equal(load_pace_due(&p, n), n * 2100);
	/* 3 B at 7 bit/s... every 3.43 s: 24 / 7 s, never a whole tick. */
	assert_int_equal(load_pace_init(&p, 5, 3, 7, tps), 0);
	want = 5 + 1e6 * 24.0 / 7.0 * tps;
	assert_near((double)load_pace_due(&p, 1000000), want, 1);
	/* count() and due() agree everywhere. */
	assert_int_equal(load_pace_count(&p, load_pace_due(&p, 12345)), 12346);
	assert_int_equal(load_pace_count(&p, load_pace_due(&p, 12345) - 1), 12345);
}

static void test_pace_bad(void **state)
{
	struct load_pace p;

	(void)state;
	assert_int_equal(load_pace_init(&p, 0, 64, 0, 1e9), -EINVAL);
	assert_int_equal(load_pace_init(&p, 0, 0, 1000, 1e9), -EINVAL);
	/* Huge messages on a fast clock still fit, by halving the fraction. */
	assert_int_equal(load_pace_init(&p, 0, 1ull << 32, 1000000000, 4e9), 0);
	assert_near((double)load_pace_due(&p, 1), 34.359738368 * 4e9, 1e3);
}

/* Event mode wakes at the next due message of a paced QP with room. */
static void test_wake_at(void **state)
{
	struct load_qp qps[2] = { { .posted = 3 }, { .posted = 5 } };
	struct load l = { .qps = qps, .n_qps = 2, .tx_depth = 8 };
	struct load_cfg cfg = { .tx_depth = 8, .batch = 2, .rate_bps = 8000000 };
	struct load_pace p;

	(void)state;
	/* 1000-byte messages at 8 Mbit/s on a 1 GHz clock: one per ms. */
	assert_int_equal(load_pace_init(&p, 1000, 1000, 8000000, 1e9), 0);
	assert_int_equal(load_wake_at(&l, &cfg, &p, NULL, 0, 1000000000), 1000 + 3000000);
	/* The limit comes first. */
	assert_int_equal(load_wake_at(&l, &cfg, &p, NULL, 0, 2000000), 2000000);
	/* QP 0's window has no room for a list: QP 1 sets the time. */
	qps[0].outstanding = 7;
	assert_int_equal(load_wake_at(&l, &cfg, &p, NULL, 0, 1000000000), 1000 + 5000000);
	/* No room anywhere: only a completion (or the limit) helps. */
	qps[1].outstanding = 8;
	assert_int_equal(load_wake_at(&l, &cfg, &p, NULL, 0, 1000000000), 1000000000);
	/* Unpaced: the limit. */
	qps[0].outstanding = qps[1].outstanding = 0;
	cfg.rate_bps = 0;
	assert_int_equal(load_wake_at(&l, &cfg, &p, NULL, 0, 77), 77);
}

/* Bursts: on 10, off 30 from 100; a pace runs on the on-time alone. */
static void test_burst(void **state)
{
	struct load_burst b = { .start_ticks = 100, .on_ticks = 10, .off_ticks = 30 };
	struct load_burst always = { .start_ticks = 100 };
	struct load_qp qps[1] = { { .posted = 0 } };
	struct load l = { .qps = qps, .n_qps = 1, .tx_depth = 8 };
	struct load_cfg cfg = { .tx_depth = 8, .batch = 1, .cq_mod = 1, .rate_bps = 8000000 };
	struct load_pace p;
	uint64_t t, on = 0;

	(void)state;
	assert_true(load_burst_on(&b, 100) && load_burst_on(&b, 109));
	assert_false(load_burst_on(&b, 110) || load_burst_on(&b, 139));
	assert_true(load_burst_on(&b, 140));
	assert_int_equal(load_burst_on_time(&b, 125), 10);
	assert_int_equal(load_burst_on_time(&b, 145), 15);
	assert_int_equal(load_burst_on_time(&b, 100 + 40 * 7 + 3), 73);
	assert_int_equal(load_burst_next_on(&b, 111), 140);
	assert_int_equal(load_burst_next_on(&b, 105), 105);
	assert_int_equal(load_burst_at(&b, 15), 145);
	assert_int_equal(load_burst_at(&b, 10), 140);
	/* The duty cycle, counted tick by tick over whole periods: on / (on + off). */
	for (t = 100; t < 100 + 40 * 25; t++)
		on += load_burst_on(&b, t);
	assert_int_equal(on, 250);
	assert_int_equal(load_burst_on_time(&b, 100 + 40 * 25), on);
	/* Always on: the wall clock. */
	assert_true(load_burst_on(&always, 5000));
	assert_int_equal(load_burst_on_time(&always, 5000), 4900);
	/* A paced QP off: wakes when its next message is due in on-time. One
	 * 1000-byte message per ms at 8 Mbit/s on a 1 GHz clock, on 10 ms of
	 * every 40 ms. */
	b = (struct load_burst){ .start_ticks = 0, .on_ticks = 10000000, .off_ticks = 30000000 };
	assert_int_equal(load_pace_init(&p, 0, 1000, 8000000, 1e9), 0);
	qps[0].posted = 10;	/* message 10 is due at on-time 10 ms: the next on phase */
	assert_int_equal(load_wake_at(&l, &cfg, &p, &b, 12000000, 1000000000), 40000000);
	qps[0].posted = 12;
	assert_int_equal(load_wake_at(&l, &cfg, &p, &b, 41000000, 1000000000), 42000000);
	/* Unpaced and off: the next on phase, or the limit if it comes first. */
	cfg.rate_bps = 0;
	assert_int_equal(load_wake_at(&l, &cfg, &p, &b, 12000000, 1000000000), 40000000);
	assert_int_equal(load_wake_at(&l, &cfg, &p, &b, 12000000, 20000000), 20000000);
	assert_int_equal(load_wake_at(&l, &cfg, &p, &b, 5000000, 20000000), 20000000);
	/* One of on and off alone is refused. */
	cfg.off_ticks = 5;
	assert_int_equal(load_cfg_check(&cfg, NULL, 0), -EINVAL);
	cfg.on_ticks = 5;
	assert_int_equal(load_cfg_check(&cfg, NULL, 0), 0);
}

/* ---- options ---- */

#define PARSE(o, ...) parse(o, (char *[]){ "bw", __VA_ARGS__, NULL })

static char err[256];

static int parse(struct bw_opts *o, char **args)
{
	int argc = 0;

	while (args[argc])
		argc++;
	err[0] = '\0';
	return bw_opts_parse(argc, args, o, err, sizeof(err));
}

static void test_opts_defaults(void **state)
{
	struct bw_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "h2"), 0);
	assert_string_equal(o.flow.host, "h2");
	assert_int_equal(o.flow.spec.size_bytes, 65536);
	assert_int_equal(o.tx_depth, 128);
	assert_int_equal(o.batch, 1);
	assert_int_equal(o.cq_mod, 16);
	assert_int_equal(o.flow.spec.qps, 1);
	assert_int_equal(o.flow.qp_timeout, 14);
	assert_int_equal(o.flow.spec.rate_bps, 0);
	assert_false(o.write);
	assert_false(o.event);
	assert_near(o.duration_s, 10, 0);
	assert_near(o.interval_s, 1, 0);
}

static void test_opts_full(void **state)
{
	struct bw_opts o;

	(void)state;
	assert_int_equal(PARSE(&o, "--sl", "5", "--tclass", "64", "-x", "1", "-d", "rxe0",
			       "--threads", "2", "--cpu", "0,1", "--qps", "4", "-s", "4k", "-D",
			       "30", "--interval", "0.5", "--tx-depth", "256", "--batch", "8",
			       "--cq-mod", "32", "--rate", "2.5g", "--write", "--event", "--json", "-",
			       "h3"), 0);
	assert_int_equal(o.flow.spec.sl, 5);
	assert_int_equal(o.flow.spec.tclass, 64);
	assert_int_equal(o.flow.gid_index, 1);
	assert_string_equal(o.flow.device, "rxe0");
	assert_int_equal(o.flow.spec.threads, 2);
	assert_int_equal(o.flow.spec.qps, 4);
	assert_int_equal(o.flow.spec.size_bytes, 4096);
	assert_int_equal(o.tx_depth, 256);
	assert_int_equal(o.batch, 8);
	assert_int_equal(o.cq_mod, 32);
	assert_int_equal(o.flow.spec.rate_bps, 2500000000ull);
	assert_true(o.write);
	assert_true(o.event);
	assert_int_equal(o.flow.pkey_index, 0);
	assert_int_equal(PARSE(&o, "--pkey-index", "3", "h3"), 0);
	assert_int_equal(o.flow.pkey_index, 3);
	/* WRITE over rdma_cm too: the MR travels on the side connection. */
	assert_int_equal(PARSE(&o, "--write", "--rdma-cm", "h3"), 0);
	assert_true(o.write && o.flow.rdma_cm);
}

static void test_opts_rates(void **state)
{
	struct bw_opts o;
	uint64_t r;

	(void)state;
	assert_int_equal(units_parse_bps("5m", &r), 0);
	assert_int_equal(r, 5000000);
	assert_int_equal(units_parse_bps("10mbit", &r), 0);
	assert_int_equal(r, 10000000);
	assert_int_equal(units_parse_bps("800K", &r), 0);
	assert_int_equal(r, 800000);
	assert_int_equal(units_parse_bps("1000bit", &r), 0);
	assert_int_equal(r, 1000);
	/* A bare rate is Gb/s, as in a scenario. */
	assert_int_equal(units_parse_bps("1000", &r), 0);
	assert_int_equal(r, 1000000000000ull);
	assert_int_equal(units_parse_bps("5x", &r), -EINVAL);
	assert_int_equal(units_parse_bps("-5m", &r), -EINVAL);
	assert_int_equal(units_parse_bps("", &r), -EINVAL);
	/* Zero reads as a scenario's rate = 0 does: unpaced, the default. */
	assert_int_equal(PARSE(&o, "--rate", "0", "h"), 0);
	assert_int_equal(o.flow.spec.rate_bps, 0);
	assert_int_equal(PARSE(&o, "--rate", "5", "h"), 0);
	assert_int_equal(o.flow.spec.rate_bps, 5000000000ull);
}

/* Each rule, with the words its message must contain. */
static void test_opts_bad(void **state)
{
	static const struct {
		const char *args[8];
		const char *msg;
	} cases[] = {
		{ { "--sl", "16", "h" }, "service level" },
		{ { "--tx-depth", "0", "h" }, "--tx-depth" },
		{ { "--batch", "65", "h" }, "--batch" },
		{ { "--batch", "32", "--tx-depth", "16", "h" }, "above --tx-depth" },
		{ { "--cq-mod", "64", "--tx-depth", "16", "h" }, "above --tx-depth" },
		{ { "--rate", "5m", "--hw-rate", "5m", "h" }, "not both" },
		{ { "--event", "--yield", "h" }, "--event" },
		{ { "--rate", "fast", "h" }, "--rate 'fast'" },
		{ { "--hw-rate", "500bit", "h" }, "1 kbit/s" },
		{ { "--interval", "5", "-D", "2", "h" }, "longer than -D" },
		{ { "--qps", "2", "--rdma-cm", "h" }, "--rdma-cm runs one QP" },
		{ { "--threads", "2", "--rdma-cm", "h" }, "--rdma-cm runs one thread" },
		{ { "--threads", "2", "--cpu", "1", "h" }, "--cpu lists 1" },
		{ { "-s", "0", "h" }, "--size '0'" },
		{ { "--bogus", "h" }, "unknown option" },
		{ { "h", "h2" }, "more than one server" },
		{ { "-D", "5" }, "no server" },
	};
	char *argv[10];
	struct bw_opts o;
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		argv[0] = "bw";
		for (j = 0; cases[i].args[j]; j++)
			argv[j + 1] = (char *)cases[i].args[j];
		argv[j + 1] = NULL;
		assert_int_equal(parse(&o, argv), -EINVAL);
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].msg);
	}
}

/* ---- JSON ---- */

static const struct clock_cal clk_1ghz = {
	.source = CLOCK_SRC_MONOTONIC, .ticks_per_ns = 1.0, .method = "test",
};

/* The bw --json-stream event @ev: @key is @want (the document's). */
static void assert_event_has(json_t *ev, const char *key, json_t *want)
{
	if (!json_equal(json_object_get(ev, key), want))
		fail_msg("the %s event's %s is not the document's", json_string_value(
			 json_object_get(ev, "event")), key);
}

/*
 * bw --json-stream: start with the document's config and clock, an
 * interval and the total as the document has them; the end of a run that
 * failed before it began has a null total.
 */
static void check_stream_events(const struct bw_report_info *info, const struct flow_result *total,
				const struct bw_interval *iv, json_t *doc)
{
	json_t *ev;

	ev = report_bw_event_start(info);
	assert_event_has(ev, "command", json_object_get(doc, "command"));
	assert_event_has(ev, "config", json_object_get(doc, "config"));
	assert_event_has(ev, "clock", json_object_get(doc, "clock"));
	json_decref(ev);
	ev = report_bw_event_interval(1, &iv[1]);
	assert_string_equal(json_string_value(json_object_get(ev, "command")), "bw");
	assert_int_equal(json_integer_value(json_object_get(ev, "index")), 1);
	assert_event_has(ev, "interval", json_array_get(json_object_get(doc, "intervals"), 1));
	json_decref(ev);
	ev = report_bw_event_end(info, total, 2, NULL);
	assert_event_has(ev, "total", json_object_get(doc, "total"));
	assert_event_has(ev, "complete", json_object_get(doc, "complete"));
	assert_int_equal(json_integer_value(json_object_get(ev, "intervals")), 2);
	json_decref(ev);
	ev = report_bw_event_end(&(struct bw_report_info){ 0 }, NULL, 0, "no device");
	assert_true(json_is_null(json_object_get(ev, "total")));
	assert_true(json_is_false(json_object_get(ev, "complete")));
	assert_string_equal(json_string_value(json_object_get(ev, "error")), "no device");
	assert_int_equal(json_array_size(json_object_get(ev, "criteria")), 0);
	json_decref(ev);
}

static void test_json_shape(void **state)
{
	struct bw_report_info info = {
		.flow = { .server = "h3", .device = "rxe0", .port = 1, .gid_index = 1,
			  .roce = true, .mtu = "1024", .path = { .sl = 2, .tclass = 32 },
			  .clk = &clk_1ghz, .threads = 1 },
		.size_bytes = 1000, .qps = 1, .tx_depth = 128, .batch = 1, .cq_mod = 16,
		.rate_bps = 5000000, .duration_s = 2, .interval_s = 1,
	};
	struct bw_interval iv[2] = {
		{ .start_s = 0, .end_s = 1, .msgs = 1000, .bytes = 1000000, .rx_valid = true,
		  .rx_msgs = 500, .rx_bytes = 500000 },
		{ .start_s = 1, .end_s = 2, .msgs = 10, .bytes = 10000 },
	};
	struct flow_result total;
	json_t *doc, *t;

	(void)state;
	assert_int_equal(flow_result_init(&total, 1000), 0);
	total.msgs = 2000;
	total.bytes = 2000000;
	total.elapsed_ticks = 2000000000;
	total.rx_valid = true;
	total.rx_msgs = 1000;
	total.rx_bytes = 1000000;
	doc = report_bw_json(&info, &total, iv, 2, NULL);
	assert_string_equal(json_string_value(json_object_get(doc, "command")), "bw");
	assert_int_equal(json_integer_value(json_object_get(doc, "schema_version")), 2);
	t = json_object_get(doc, "config");
	assert_string_equal(json_string_value(json_object_get(t, "op")), "send");
	assert_int_equal(json_integer_value(json_object_get(t, "rate_bps")), 5000000);
	assert_true(json_is_null(json_object_get(t, "hw_rate_bps")));
	assert_true(json_is_null(json_object_get(t, "hw_rate_applied_bps")));
	assert_true(json_is_null(json_object_get(t, "hw_rate_method")));
	assert_int_equal(json_integer_value(json_object_get(t, "sl")), 2);
	assert_string_equal(json_string_value(json_object_get(t, "completion")), "poll");
	assert_int_equal(json_array_size(json_object_get(doc, "intervals")), 2);
	t = json_array_get(json_object_get(doc, "intervals"), 0);
	assert_near(json_real_value(json_object_get(json_object_get(t, "sent"), "gbps")), 0.008,
		    1e-12);
	assert_near(json_real_value(json_object_get(json_object_get(t, "received"), "mpps")),
		    0.0005, 1e-12);
	t = json_array_get(json_object_get(doc, "intervals"), 1);
	assert_true(json_is_null(json_object_get(t, "received")));
	t = json_object_get(doc, "total");
	assert_near(json_real_value(json_object_get(t, "elapsed_s")), 2, 1e-12);
	assert_near(json_real_value(json_object_get(json_object_get(t, "received"), "gbps")),
		    0.004, 1e-12);
	assert_true(json_is_true(json_object_get(doc, "complete")));
	assert_true(json_is_null(json_object_get(doc, "error")));
	check_stream_events(&info, &total, iv, doc);
	json_decref(doc);
	info.event = true;
	doc = report_bw_json(&info, &total, iv, 0, "server 'h3' went away");
	t = json_object_get(doc, "config");
	assert_string_equal(json_string_value(json_object_get(t, "completion")), "event");
	assert_true(json_is_false(json_object_get(doc, "complete")));
	assert_string_equal(json_string_value(json_object_get(doc, "error")),
			    "server 'h3' went away");
	json_decref(doc);
	/* 40 Gb/s asked, 25 Gb/s read back: both said, and how. */
	info.hw_rate_bps = 40000000000ull;
	info.hw_rate_applied_bps = 25000000000ull;
	doc = report_bw_json(&info, &total, iv, 0, NULL);
	t = json_object_get(doc, "config");
	assert_int_equal(json_integer_value(json_object_get(t, "hw_rate_bps")), 40000000000ll);
	assert_int_equal(json_integer_value(json_object_get(t, "hw_rate_applied_bps")),
			 25000000000ll);
	assert_string_equal(json_string_value(json_object_get(t, "hw_rate_method")),
			    "static_rate");
	json_decref(doc);
	flow_result_release(&total);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_client_queries),
		cmocka_unit_test(test_client_broken_answer),
		cmocka_unit_test(test_client_sum),
		cmocka_unit_test(test_client_follow),
		cmocka_unit_test(test_pace_exact),
		cmocka_unit_test(test_pace_no_drift),
		cmocka_unit_test(test_pace_bad),
		cmocka_unit_test(test_wake_at),
		cmocka_unit_test(test_burst),
		cmocka_unit_test(test_opts_defaults),
		cmocka_unit_test(test_opts_full),
		cmocka_unit_test(test_opts_rates),
		cmocka_unit_test(test_opts_bad),
		cmocka_unit_test(test_json_shape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
