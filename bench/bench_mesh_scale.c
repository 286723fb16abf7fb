/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Cost of rperf mesh's per-pair bookkeeping at scale, without agents: a
 * pass of one class over HOSTS hosts, every step's lat flows simulated
 * and joined to their pairs in the schedule's order (mesh_round(), parts
 * of MESH_STEP_FLOWS), then every pair's p50 with its interval, then the
 * outlier rule. A flow's RTTs are one of 64 made-up histograms in TSC
 * ticks (2.6 a ns): 20000 RTTs log-normal (5 %) around 2 to 4 us, 1 % of
 * them three times slower, 0.5 % unresolved.
 *
 * Each way runs in a process of its own, so that its peak resident
 * memory (getrusage of the child) is its own:
 *   sketch  what rperf mesh keeps: mesh_join() into each pair's sketch,
 *           the p50s by sketch_quantile(), then mesh_outliers();
 *   full    what it kept before: a histogram per pair (hist.h), the same
 *           flows joined by figures_hist_add_ns(), the p50s by
 *           hist_quantile().
 * Prints, for each, the CPU seconds of the joins, of the p50s and (the
 * sketch) of the outlier rule, the bytes a pair holds and the peak
 * memory; then full over sketch. A way whose
 * pairs would take more than half the memory available (MemAvailable)
 * is not run, and says what it would take.
 *
 * And, asked by name, the agents' side of the pass:
 *   sync    the coordinator (coord_session.c) reaching HOSTS simulated
 *           agents on the loopback, each through the real agent gate
 *           (agent_gate.c) with a token, so the handshake is the sealed
 *           one, then answering every time exchange after DELAY_MS
 *           (default 1), as a far host would: the wall seconds of
 *           coord_connect_agents() (connect, handshake, clock sync) and
 *           of a step's coord_start() (the sync again, then the starts),
 *           and the coordinator's peak memory (the agents run in a
 *           process of their own).
 *
 * And the sampled schedule (coord/mesh_sample.h), asked by name:
 *   sample  HOSTS in leaves of LEAF_HOSTS (default 32), K (default 4)
 *           targets a host across leaves: every rotation built, the steps
 *           of a pass (parts of MESH_STEP_FLOWS) against the tournament's,
 *           their time at STEP_S a step (default 2.7, the lab's step in
 *           rperf-mesh(1)), the passes until every ordered pair and every
 *           ordered pair of leaves has been crossed; then the sketch way
 *           over the first rotation's pairs in a process of its own (CPU
 *           and peak memory, the table of every pair included).
 *
 * usage: bench_mesh_scale [HOSTS (default 4096)] [sketch|full|both (default)]
 *        bench_mesh_scale HOSTS sync [DELAY_MS]
 *        bench_mesh_scale HOSTS sample [LEAF_HOSTS [K [STEP_S]]]
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "agent/agent.h"
#include "coord/coord.h"
#include "coord/mesh.h"
#include "coord/mesh_sample.h"
#include "flow/figures.h"
#include "rdma/conn.h"

#define TEMPLATES	64
#define TEMPLATE_RTTS	20000
#define TICKS_PER_NS	2.6
#define SIM_WAIT_MS	60000		/* a simulated agent's longest wait */
#define SIM_STACK_BYTES	(256 * 1024)
#define SIM_TIMEOUT_S	10		/* the coordinator's --timeout */
#define SIM_SPAN_MS	2100		/* past the span a clock's rate takes (coord_session.c) */

enum way { WAY_SKETCH, WAY_FULL, WAY_SYNC, WAY_SAMPLE };

static const char *const way_names[] = { "sketch", "full", "sync", "sample" };

/* The sampled way's shape: hosts a leaf, cross-leaf targets a host. */
static size_t sample_leaf_hosts = 32, sample_k = 4;

/* The simulated agents' ports, the token they ask, their answers' delay. */
struct sim {
	int *lfds;
	uint16_t *ports;
	char token[CTL_NONCE_HEX + 1];
	long delay_ns;
};

/* What a way measured, sent from its process to the parent. */
struct way_result {
	double join_s, p50_s, outliers_s;
	double connect_s, start_s;	/* sync: wall seconds */
	double pair_bytes;		/* per measured pair: its store, its struct */
	size_t pairs;
	int error;
};

/* The process's CPU time: a busy machine slows the wall clock, not this. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x2545f4914f6cdd1dull;

/* Uniform in (0, 1]. */
static double unit(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return ((double)((rng * 0x2545f4914f6cdd1dull) >> 11) + 1.0) / 9007199254740992.0;
}

/* The flows' made-up RTT histograms, in ticks; NULL when out of memory. */
static struct hist **templates(void)
{
	struct hist **t = calloc(TEMPLATES, sizeof(*t));
	double ns, z;
	size_t i, j;

	for (i = 0; t && i < TEMPLATES; i++) {
		t[i] = hist_new();
		if (!t[i])
			return NULL;
		for (j = 0; j < TEMPLATE_RTTS; j++) {
			z = sqrt(-2 * log(unit())) * cos(2 * M_PI * unit());
			ns = (2000 + 2000.0 * (double)i / TEMPLATES) * exp(0.05 * z) *
			     (unit() < 0.01 ? 3 : 1);
			hist_record(t[i], unit() < 0.005 ? 0 : (uint64_t)(ns * TICKS_PER_NS));
		}
	}
	return t;
}

/* The bytes a pair takes in way @w: its struct, its store (@store_bytes,
 * on average), the allocator's 16 a block. */
static double pair_bytes(enum way w, struct hist *const *t, double store_bytes)
{
	if (w == WAY_FULL)
		store_bytes = (double)hist_memory_bytes(t[0]);
	return (double)sizeof(struct mesh_pair) + store_bytes + 16;
}

/* What a pair's store would take in way @w, before the pass: the sketch
 * of the widest made-up flow. NAN when out of memory. */
static double store_guess(enum way w, struct hist *const *t)
{
	const struct clock_cal clk = { .ticks_per_ns = TICKS_PER_NS };
	struct sketch *s = NULL;
	double b;

	if (w == WAY_FULL)
		return (double)hist_memory_bytes(t[0]);
	if (figures_sketch_add_ns(&s, t[TEMPLATES - 1], &clk))
		return NAN;
	b = (double)sketch_memory_bytes(s);
	sketch_free(s);
	return b;
}

/* The available memory (MemAvailable), in bytes; 0 when unknown. */
static double mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	double kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

/* The wall clock: the sync's time is mostly waiting. */
static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One simulated agent: @arg's gate, then every message taken @delay_ns
 * after it came, time exchanges answered, until the coordinator hangs up. */
static void *sim_agent(void *arg)
{
	const struct sim *sy = ((void **)arg)[0];
	struct agent *a = ((void **)arg)[1];
	struct timespec d = { .tv_sec = sy->delay_ns / 1000000000,
			      .tv_nsec = sy->delay_ns % 1000000000 };
	struct ctl_chan ch;
	char err[256];
	json_t *m, *r;
	int ret = 0;

	if (!agent_gate_wait(a, -1, SIM_WAIT_MS, &ch))
		return NULL;
	while (!ret && poll(&(struct pollfd){ .fd = ch.fd, .events = POLLIN }, 1,
			    SIM_WAIT_MS) > 0) {
		nanosleep(&d, NULL);
		ret = ctl_recv(&ch, &m, SIM_WAIT_MS, err, sizeof(err));
		if (ret || strcmp(ctl_type(m), "time")) {
			json_decref(ret ? NULL : m);
			continue;	/* a start, or the hang-up */
		}
		json_decref(m);
		r = ctl_msg("time");
		json_object_set_new(r, "now_ns", json_integer((json_int_t)ctl_now_ns()));
		ret = ctl_send(&ch, r, SIM_WAIT_MS, err, sizeof(err));
		json_decref(r);
	}
	ctl_chan_forget(&ch);
	close(ch.fd);
	return NULL;
}

/* @n simulated agents, a thread each, until their coordinator hangs up. */
static int sim_agents(const struct sim *sy, size_t n)
{
	struct agent *a = calloc(n, sizeof(*a));
	void *(*args)[2] = calloc(n, sizeof(*args));
	pthread_t *tid = calloc(n, sizeof(*tid));
	pthread_attr_t at;
	size_t i;

	if (!a || !args || !tid)
		return -ENOMEM;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, SIM_STACK_BYTES);
	for (i = 0; i < n; i++) {
		agent_gate_init(&a[i], sy->lfds[i], sy->token);
		args[i][0] = (void *)sy;
		args[i][1] = &a[i];
		if (pthread_create(&tid[i], &at, sim_agent, args[i]))
			break;
	}
	n = i;
	while (i)
		pthread_join(tid[--i], NULL);
	return n;
}

/* @n listening sockets on the loopback and their ports into @sy, a fresh
 * token; the agents on them started in a process of their own. */
static pid_t sim_start(struct sim *sy, size_t n)
{
	struct sockaddr_in sa;
	socklen_t sl;
	char err[256];
	size_t i;
	pid_t pid;

	if (ctl_nonce(sy->token, err, sizeof(err)))
		return -EIO;
	for (i = 0; i < n; i++) {
		sy->lfds[i] = conn_listen("127.0.0.1", 0, err, sizeof(err));
		sl = sizeof(sa);
		if (sy->lfds[i] < 0 || getsockname(sy->lfds[i], (struct sockaddr *)&sa, &sl))
			return fprintf(stderr, "sync: %s\n", err), -EIO;
		sy->ports[i] = ntohs(sa.sin_port);
	}
	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(sim_agents(sy, n) == (int)n ? 0 : 1);
	for (i = 0; i < n; i++)
		close(sy->lfds[i]);
	return pid < 0 ? -errno : pid;
}

/* The coordinator over @n simulated agents (@sy): reached and synced,
 * then one step's start. */
static struct way_result run_sync(size_t n, const struct sim *sy)
{
	struct way_result res = { .pairs = n * (n - 1) };
	struct converge_opts o = { .timeout_s = SIM_TIMEOUT_S };
	struct coord *c = calloc(1, sizeof(*c));
	char (*names)[32] = calloc(n, sizeof(*names));
	const char **hosts = calloc(n, sizeof(*hosts));
	double t0;
	size_t i;

	if (!c || !names || !hosts) {
		res.error = ENOMEM;
		return res;
	}
	for (i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "127.0.0.1:%u", sy->ports[i]);
		hosts[i] = names[i];
	}
	*c = (struct coord){ .o = &o, .hosts = hosts, .n_hosts = n };
	c->sc.agent_port = CTL_DEFAULT_PORT;
	c->sc.warmup_s = 0.2;		/* rperf mesh's defaults: the start's window */
	c->sc.duration_s = 1;
	snprintf(c->token, sizeof(c->token), "%s", sy->token);
	log_set_level(LOG_LEVEL_WARN);
	t0 = wall_s();
	res.error = -coord_connect_agents(c);
	res.connect_s = wall_s() - t0;
	if (!res.error) {
		poll(NULL, 0, SIM_SPAN_MS);	/* the start then waits for no rate */
		for (i = 0; i < c->n_agents; i++)
			c->agents[i].in_step = true;
		t0 = wall_s();
		res.error = -coord_start(c);
		res.start_s = wall_s() - t0;
	}
	if (res.error)
		fprintf(stderr, "sync: %s\n", c->error);
	coord_hangup(c, false);
	coord_agents_free(c);
	return res;
}

/* Way @w's join of @st's flows (@pairs) into @m, or into @full. */
static int join(enum way w, struct mesh_run *m, struct hist **full, struct converge_step *st,
		const size_t *pairs)
{
	size_t i;

	if (w != WAY_FULL)
		return mesh_join(m, st, pairs);
	for (i = 0; i < st->n_flows; i++) {
		if (!full[pairs[i]])
			full[pairs[i]] = hist_new();
		if (!full[pairs[i]] ||
		    figures_hist_add_ns(full[pairs[i]], st->flows[i].rtt, &st->flows[i].rtt_clk))
			return -ENOMEM;
	}
	return 0;
}

/* One step of the @n_mt pairings at @mt (a -> b, or b -> a for @h 1):
 * their flows made up and joined. */
static int step_join(enum way w, struct mesh_run *m, struct hist **full, struct hist *const *t,
		     struct converge_step *st, const struct mesh_match *mt, size_t n_mt, size_t h)
{
	size_t i, pairs[MESH_STEP_FLOWS];
	int s, d;

	st->n_flows = n_mt;
	for (i = 0; i < n_mt; i++) {
		s = h ? mt[i].b : mt[i].a;
		d = h ? mt[i].a : mt[i].b;
		pairs[i] = mesh_pair_index(m->o->n_hosts, s, d, 0);
		m->pairs[pairs[i]].measured = true;
		st->flows[i].rtt = t[(size_t)(s * 31 + d * 17) % TEMPLATES];
		st->flows[i].rtt_clk.ticks_per_ns = TICKS_PER_NS;
	}
	return join(w, m, full, st, pairs);
}

/* The sampled way's pass (its first rotation), each step in parts. */
static int sample_pass(struct mesh_run *m, struct hist *const *t, struct converge_step *st)
{
	struct mesh_sample_pass sp;
	size_t i, p, at, in;
	int ret = mesh_sample_pass(m->sample, 0, &sp);

	for (i = 0; !ret && i < sp.n_steps; i++)
		for (p = 0; !ret && (in = mesh_round_part(sp.step_at[i + 1] - sp.step_at[i], p,
							   &at)); p++)
			ret = step_join(WAY_SAMPLE, m, NULL, t, st, sp.pairs + sp.step_at[i] + at,
					in, 0);
	mesh_sample_pass_free(&sp);
	return ret;
}

/* Every step of the pass: its flows made up and joined. */
static int pass(enum way w, struct mesh_run *m, struct hist **full, struct hist *const *t)
{
	size_t n = m->o->n_hosts, r, h, p, k, at;
	struct mesh_match *mt = calloc(n / 2 + 1, sizeof(*mt));
	struct converge_step *st = calloc(1, sizeof(*st));
	int ret = !mt || !st ? -ENOMEM : 0;

	if (!ret && m->sample)
		ret = sample_pass(m, t, st);
	for (r = 0; !ret && !m->sample && r < m->rounds; r++) {
		k = mesh_round(n, r, mt);
		for (h = 0; !ret && h < 2; h++)
			for (p = 0; !ret && p < mesh_round_parts(n); p++) {
				size_t in = mesh_round_part(k, p, &at);

				ret = step_join(w, m, full, t, st, mt + at, in, h);
			}
	}
	free(st);
	free(mt);
	return ret;
}

/* Every pair's p50 with its interval; their sum, so that none is skipped. */
static double p50s(enum way w, const struct mesh_run *m, struct hist *const *full)
{
	struct hist_quantile q;
	double sum = 0;
	size_t i;

	for (i = 0; i < m->n_pairs; i++) {
		if (!m->pairs[i].measured)
			continue;
		if (w != WAY_FULL)
			sketch_quantile(m->pairs[i].rtt_ns, 50, &q);
		else
			hist_quantile(full[i], 50, hist_zeros(full[i]), &q);
		sum += (double)q.value + (double)q.hi - (double)q.lo;
	}
	return sum;
}

/* The bytes of the pairs' stores, on average. */
static double store_bytes(enum way w, const struct mesh_run *m, struct hist *const *full)
{
	double sum = 0;
	size_t i, n = 0;

	for (i = 0; i < m->n_pairs; i++) {
		if (!m->pairs[i].measured)
			continue;
		n++;
		sum += w != WAY_FULL ? (double)sketch_memory_bytes(m->pairs[i].rtt_ns) :
		       (double)hist_memory_bytes(full[i]);
	}
	return n ? sum / (double)n : 0;
}

/* Way @w over @n hosts, in this process. */
static struct way_result run_way(enum way w, size_t n, struct hist *const *t)
{
	struct way_result res = { .pairs = n * (n - 1) };
	struct mesh_opts o = { .n_hosts = n, .n_classes = 1, .mad_k = 3 };
	char (*names)[24] = calloc(n, sizeof(*names));
	const char **hosts = calloc(n, sizeof(*hosts));
	size_t *leaf = calloc(n, sizeof(*leaf));
	struct hist **full = NULL;
	struct mesh_run m;
	double t0, sum;
	size_t i;

	for (i = 0; names && hosts && leaf && i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "h%zu", i + 1);
		hosts[i] = names[i];
		leaf[i] = i / sample_leaf_hosts;
	}
	o.hosts = hosts;
	o.leaf = leaf;
	o.sample_k = w == WAY_SAMPLE ? sample_k : 0;
	if (!names || !hosts || !leaf || mesh_init(&m, &o) ||
	    (w == WAY_FULL && !(full = calloc(res.pairs, sizeof(*full))))) {
		res.error = ENOMEM;
		return res;
	}
	t0 = now_s();
	res.error = -pass(w, &m, full, t);
	res.join_s = now_s() - t0;
	t0 = now_s();
	sum = res.error ? 0 : p50s(w, &m, full);
	res.p50_s = now_s() - t0;
	t0 = now_s();
	if (!res.error && w != WAY_FULL)
		res.error = -mesh_outliers(&m);
	for (i = 0, res.pairs = 0; i < m.n_pairs; i++)
		res.pairs += m.pairs[i].measured;
	res.outliers_s = now_s() - t0;
	res.pair_bytes = pair_bytes(w, t, res.error ? 0 : store_bytes(w, &m, full));
	if (!isfinite(sum))
		res.error = EINVAL;
	return res;	/* the process ends: its memory goes with it */
}

/* Way @w in a child process: its result, its peak resident memory in KiB. */
static int fork_way(enum way w, size_t n, struct hist *const *t, const struct sim *sy,
		    struct way_result *res, long *maxrss_kb)
{
	struct rusage ru;
	int fd[2], status;
	pid_t pid;

	if (pipe(fd))
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		*res = w == WAY_SYNC ? run_sync(n, sy) : run_way(w, n, t);
		_exit(write(fd[1], res, sizeof(*res)) == sizeof(*res) ? 0 : 1);
	}
	close(fd[1]);
	if (read(fd[0], res, sizeof(*res)) != sizeof(*res))
		res->error = EIO;
	close(fd[0]);
	if (wait4(pid, &status, 0, &ru) < 0)
		return -errno;
	*maxrss_kb = ru.ru_maxrss;
	return res->error ? -res->error : 0;
}

/* The sync way over @n simulated agents, each message taken @delay_ms late. */
static int sync_main(size_t n, double delay_ms)
{
	struct sim sy = { .lfds = calloc(n, sizeof(int)), .ports = calloc(n, sizeof(uint16_t)),
			  .delay_ns = (long)(delay_ms * 1e6) };
	struct way_result res;
	long rss = 0;
	pid_t agents;
	int ret;

	if (!sy.lfds || !sy.ports)
		return 1;
	agents = sim_start(&sy, n);
	if (agents < 0) {
		printf("sync   failed: %s\n", strerror((int)-agents));
		return 1;
	}
	ret = fork_way(WAY_SYNC, n, NULL, &sy, &res, &rss);
	kill(agents, SIGTERM);
	waitpid(agents, NULL, 0);
	if (ret) {
		printf("sync   failed: %s\n", strerror(-ret));
		return 1;
	}
	printf("%zu agents, each message taken %.1f ms late: connect %.3f s, "
	       "a step's sync and start %.3f s (wall); coordinator peak resident %.1f MiB\n",
	       n, delay_ms, res.connect_s, res.start_s, (double)rss / 1024);
	return 0;
}

/* What the passes of a sampled schedule take, from its first rotation on. */
struct sample_figures {
	size_t passes, steps_min, steps_max, pairs_min, pairs_max;
	size_t leaf_pass_max;		/* passes until every ordered pair of leaves is crossed */
	double leaf_pass_mean;
};

/* Pass @p of @s into @f: its steps (parts of MESH_STEP_FLOWS) and pairs;
 * the leaf pairs it crosses first into @first (leaves x leaves, 0: not yet). */
static int sample_figures_pass(const struct mesh_sample *s, size_t p, const size_t *leaf,
			       size_t *first, struct sample_figures *f)
{
	struct mesh_sample_pass sp;
	size_t i, steps = 0, *at;

	if (mesh_sample_pass(s, p, &sp))
		return -ENOMEM;
	for (i = 0; i < sp.n_steps; i++)
		steps += (sp.step_at[i + 1] - sp.step_at[i] + MESH_STEP_FLOWS - 1) / MESH_STEP_FLOWS;
	for (i = sp.step_at[sp.n_intra_steps]; i < sp.n_pairs; i++) {
		at = &first[leaf[sp.pairs[i].a] * s->n_leaves + leaf[sp.pairs[i].b]];
		*at = *at ? *at : p + 1;
	}
	f->steps_min = !p || steps < f->steps_min ? steps : f->steps_min;
	f->steps_max = steps > f->steps_max ? steps : f->steps_max;
	f->pairs_min = !p || sp.n_pairs < f->pairs_min ? sp.n_pairs : f->pairs_min;
	f->pairs_max = sp.n_pairs > f->pairs_max ? sp.n_pairs : f->pairs_max;
	mesh_sample_pass_free(&sp);
	return 0;
}

/* Every pass of the sampled schedule over @leaf (@n hosts), one class. */
static int sample_figures(size_t n, const size_t *leaf, struct sample_figures *f)
{
	struct mesh_sample s;
	size_t p, g, *first = NULL, sum = 0;
	int ret = mesh_sample_init(&s, leaf, n, sample_k);

	*f = (struct sample_figures){ 0 };
	if (!ret && !(first = calloc(s.n_leaves * s.n_leaves, sizeof(*first))))
		ret = -ENOMEM;
	f->passes = ret ? 0 : mesh_sample_n_passes(&s);
	for (p = 0; !ret && p < f->passes; p++)
		ret = sample_figures_pass(&s, p, leaf, first, f);
	for (g = 0; !ret && g < s.n_leaves * s.n_leaves; g++) {
		if (g % (s.n_leaves + 1) == 0)
			continue;	/* a leaf with itself */
		sum += first[g];
		f->leaf_pass_max = first[g] > f->leaf_pass_max ? first[g] : f->leaf_pass_max;
	}
	if (!ret && s.n_leaves > 1)
		f->leaf_pass_mean = (double)sum / (double)(s.n_leaves * (s.n_leaves - 1));
	free(first);
	mesh_sample_free(&s);
	return ret;
}

/*
 * The sampled schedule against the tournament over @n hosts, one class,
 * a step taking @step_s: the steps and time of a pass, the passes until
 * a slow link between two leaves is crossed, and the coordinator's
 * memory and CPU over a sampled pass (the sketch way's flows).
 */
static int sample_main(size_t n, struct hist *const *t, double step_s)
{
	size_t *leaf = calloc(n, sizeof(*leaf)), i;
	size_t full = mesh_n_rounds(n) * 2 * mesh_round_parts(n);
	struct sample_figures f;
	struct way_result res;
	long rss = 0;
	int ret;

	for (i = 0; leaf && i < n; i++)
		leaf[i] = i / sample_leaf_hosts;
	ret = leaf ? sample_figures(n, leaf, &f) : -ENOMEM;
	free(leaf);
	if (ret)
		return printf("sample failed: %s\n", strerror(-ret)), 1;
	printf("%zu hosts, leaves of %zu, K %zu, one class, %.2f s a step:\n"
	       "tournament: %zu steps a pass, %.1f h; every pair each pass\n"
	       "sampled:    %zu to %zu steps a pass (%zu to %zu pairs), %.2f to %.2f h; "
	       "every ordered pair within %zu passes (%.1f days)\n"
	       "a slow link between two leaves: crossed within %zu passes (%.1f on average), "
	       "%.1f h at the most (%.1f on average); a leaf's uplink: every pass\n",
	       n, sample_leaf_hosts, sample_k, step_s, full, (double)full * step_s / 3600,
	       f.steps_min, f.steps_max, f.pairs_min, f.pairs_max,
	       (double)f.steps_min * step_s / 3600, (double)f.steps_max * step_s / 3600,
	       f.passes, (double)f.passes * (double)f.steps_max * step_s / 86400,
	       f.leaf_pass_max, f.leaf_pass_mean, (double)f.leaf_pass_max * (double)f.steps_max *
	       step_s / 3600, f.leaf_pass_mean * (double)f.steps_max * step_s / 3600);
	ret = fork_way(WAY_SAMPLE, n, t, NULL, &res, &rss);
	if (ret)
		return printf("sample failed: %s\n", strerror(-ret)), 1;
	printf("sample CPU: joins %.3f s, p50s %.3f s, outliers %.3f s over its %zu pairs; "
	       "%.0f bytes a measured pair; peak resident %.1f MiB\n", res.join_s, res.p50_s,
	       res.outliers_s, res.pairs, res.pair_bytes, (double)rss / 1024);
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 4096, pairs;
	const char *which = argc > 2 ? argv[2] : "both";
	struct hist **t = templates();
	struct way_result res[2];
	bool ran[2] = { false, false };
	long rss[2] = { 0, 0 };
	double need, avail = mem_available();
	int w, ret;

	if (n < 2 || n > MESH_MAX_HOSTS || !t) {
		fprintf(stderr, "usage: bench_mesh_scale [HOSTS 2..%d] [sketch|full|both | "
			"sync [DELAY_MS] | sample [LEAF_HOSTS [K [STEP_S]]]]\n",
			MESH_MAX_HOSTS);
		return 2;
	}
	if (!strcmp(which, "sync"))
		return sync_main(n, argc > 3 ? atof(argv[3]) : 1);
	if (!strcmp(which, "sample")) {
		sample_leaf_hosts = argc > 3 ? strtoul(argv[3], NULL, 10) : 32;
		sample_k = argc > 4 ? strtoul(argv[4], NULL, 10) : 4;
		if (!sample_leaf_hosts)
			return fprintf(stderr, "sample: leaves of at least one host\n"), 2;
		return sample_main(n, t, argc > 5 ? atof(argv[5]) : 2.7);
	}
	pairs = n * (n - 1);
	printf("%zu hosts, one class: %zu pairs, %zu steps of up to %d flows\n", n, pairs,
	       mesh_n_rounds(n) * 2 * mesh_round_parts(n), MESH_STEP_FLOWS);
	for (w = WAY_SKETCH; w <= WAY_FULL; w++) {
		if (strcmp(which, "both") && strcmp(which, way_names[w]))
			continue;
		need = (double)pairs * pair_bytes((enum way)w, t, store_guess((enum way)w, t));
		if (avail && need > avail / 2) {
			printf("%-6s not run: its pairs would take %.1f GiB, %.1f GiB available\n",
			       way_names[w], need / 1073741824.0, avail / 1073741824.0);
			continue;
		}
		ret = fork_way((enum way)w, n, t, NULL, &res[w], &rss[w]);
		if (ret) {
			printf("%-6s failed: %s\n", way_names[w], strerror(-ret));
			continue;
		}
		ran[w] = true;
		printf("%-6s CPU: joins %.3f s, p50s %.3f s", way_names[w], res[w].join_s,
		       res[w].p50_s);
		if (w == WAY_SKETCH)	/* the rule reads the sketches */
			printf(", outliers %.3f s", res[w].outliers_s);
		printf("; %.0f bytes a pair; peak resident %.1f MiB\n", res[w].pair_bytes,
		       (double)rss[w] / 1024);
	}
	if (ran[WAY_SKETCH] && ran[WAY_FULL])
		printf("full / sketch: joins %.2f, p50s %.2f, bytes a pair %.1f, "
		       "peak resident %.1f\n",
		       res[WAY_FULL].join_s / res[WAY_SKETCH].join_s,
		       res[WAY_FULL].p50_s / res[WAY_SKETCH].p50_s,
		       res[WAY_FULL].pair_bytes / res[WAY_SKETCH].pair_bytes,
		       (double)rss[WAY_FULL] / (double)rss[WAY_SKETCH]);
	return 0;
}
