/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libFuzzer target: what the coordinator takes from an agent
 * (coord/coord_session.c) before any step runs: the agent's hello,
 * its answers to the clock's time exchanges, and its ready to a step's
 * setup, whose environment goes into the reports. The input is all an
 * agent sends on the control connection before it half-closes, and two
 * agents on the loopback send it; the real coordinator reaches them
 * (coord_connect_agents, without a token), sets up a step of one lat
 * flow from one to the other (coord_setup), and what the destination's
 * ready told of its environment goes into the converge document's head
 * (report_converge_event_start) and the rate check.
 *
 * A run that fails says why (c->error); a ready taken leaves the step's
 * connections and, when it told one, the agent's environment: an object,
 * written into the document as it came.
 */
#define _GNU_SOURCE	/* pipe2 */
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/log.h"
#include "coord/coord.h"
#include "report/converge_info.h"
#include "report/report_converge.h"
#include "fuzz.h"

#define FUZZ_COORD_MAX		8192

/* An agent's end: its listening port, what it sends, and the run's end (readable: over). */
struct fuzz_coord_agent {
	int lfd, done;
	const uint8_t *data;
	size_t size;
};

static struct scenario fuzz_coord_sc;
static int fuzz_coord_lfd[2] = { -1, -1 };

/* A listening socket on the loopback, its port in *@port. */
static int fuzz_coord_port(unsigned *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 4) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl))
		abort();
	*port = ntohs(sa.sin_port);
	return lfd;
}

/* The two agents' ports, and a scenario of a lat flow from one to the other; made once. */
static void fuzz_coord_setup(void)
{
	char text[256], err[256];
	unsigned port[2];

	if (fuzz_coord_lfd[0] >= 0)
		return;
	log_set_level(LOG_LEVEL_QUIET);	/* every failed run is an error */
	fuzz_coord_lfd[0] = fuzz_coord_port(&port[0]);
	fuzz_coord_lfd[1] = fuzz_coord_port(&port[1]);
	snprintf(text, sizeof(text), "[global]\ndestination = 127.0.0.1:%u\nduration = 1s\n\n"
		 "[lat]\nhost = 127.0.0.1:%u\ntype = lat\n", port[0], port[1]);
	if (scenario_parse("fuzz.ini", text, "/nonexistent", &fuzz_coord_sc, err, sizeof(err))) {
		fprintf(stderr, "fuzz_coord: %s\n", err);
		abort();
	}
}

/*
 * An agent: accept the coordinator, say all of the input, read until it
 * hangs up. A coordinator that failed before it reached this agent never
 * connects: the run's end ends the wait (the connection, once made, is
 * there to accept before the run ends).
 */
static void *fuzz_coord_agent_main(void *arg)
{
	const struct fuzz_coord_agent *ag = arg;
	struct pollfd p[2] = { { .fd = ag->lfd, .events = POLLIN },
			       { .fd = ag->done, .events = POLLIN } };
	char sink[4096];
	int fd;

	if (poll(p, 2, -1) < 1 || !(p[0].revents & POLLIN))
		return NULL;
	fd = accept(ag->lfd, NULL, NULL);
	if (fd < 0)
		abort();
	/* All of it fits the socket's buffer; a coordinator gone early is no matter. */
	send(fd, ag->data, ag->size, MSG_NOSIGNAL);
	shutdown(fd, SHUT_WR);
	while (read(fd, sink, sizeof(sink)) > 0)
		;
	close(fd);
	return NULL;
}

/* The agent's environment @env in the converge document's head, as a run reports it. */
static void fuzz_coord_report(struct coord *c, struct coord_agent *a)
{
	struct converge_report_info info = {
		.scenario = "fuzz", .destination = a->addr, .baseline = "no",
		.fit = "configured", .env = &c->env, .n_agents = 1,
	};
	char why[256] = "";
	json_t *doc;
	char *text;

	if (!json_is_object(a->env))
		abort();
	info.agent_envs = json_pack("{sO}", a->addr, a->env);
	doc = report_converge_event_start(&info);
	text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	if (!text || !json_equal(json_object_get(json_object_get(json_object_get(doc,
			"environment"), "agents"), a->addr), a->env))
		abort();
	free(text);
	json_decref(doc);
	json_decref(info.agent_envs);
	if (coord_rate_check(a, a, 0, 1.0, why, sizeof(why)) && !why[0])
		abort();
}

/* Reach the agent, then a step's setup and its ready; the agent's end closed after. */
static void fuzz_coord_run(struct coord *c)
{
	struct converge_step st = { .active_bw = 0 };
	json_t *conns[2] = { NULL, NULL };	/* the destination's, the source's */
	int rc;

	rc = coord_connect_agents(c);
	if (rc && !c->error[0])
		abort();
	if (!rc) {
		rc = coord_setup(c, &st, conns);
		if (rc ? !c->error[0] : !json_is_array(conns[0]) || !json_is_array(conns[1]))
			abort();
		if (!rc && c->agents[0].env)
			fuzz_coord_report(c, &c->agents[0]);
	}
	json_decref(conns[0]);
	json_decref(conns[1]);
	coord_hangup(c, false);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct converge_opts o = { .timeout_s = 1 };
	struct fuzz_coord_agent ag[2];
	static struct coord c;
	pthread_t t[2];
	int done[2], i;

	if (size > FUZZ_COORD_MAX)
		return 0;
	fuzz_coord_setup();
	if (pipe2(done, O_CLOEXEC))
		abort();
	memset(&c, 0, sizeof(c));
	c.o = &o;
	c.sc = fuzz_coord_sc;
	for (i = 0; i < 2; i++) {
		ag[i] = (struct fuzz_coord_agent){ .lfd = fuzz_coord_lfd[i], .done = done[0],
						   .data = data, .size = size };
		if (pthread_create(&t[i], NULL, fuzz_coord_agent_main, &ag[i]))
			abort();
	}
	fuzz_coord_run(&c);
	close(done[1]);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	close(done[0]);
	coord_agents_free(&c);
	return 0;
}
