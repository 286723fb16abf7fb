/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The agent's control helpers (see agent_ctl.h): apart from the session
 * so that the session, the sources and the sink all call down into one
 * place for the messages they wait on.
 */
#define _GNU_SOURCE	/* accept4 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/agent_ctl.h"
#include "agent/agent_int.h"
#include "rdma/conn.h"
#include "base/errbuf.h"
#include "base/log.h"
#include "base/stop.h"

#define AGENT_SLICE_MS		200	/* waits look at a stop and the control port this often */

int agent_ctl_int(const json_t *o, const char *k)
{
	return (int)json_integer_value(json_object_get(o, k));
}

void agent_ctl_refuse_waiting(struct agent *a)
{
	struct ctl_chan ch;
	int fd, i;

	if (a->lfd < 0)
		return;
	/*
	 * Nothing read from them: our one short frame, then closed (lfd does
	 * not block). The peer is not authenticated: it is not told whom we serve.
	 */
	for (i = 0; i < AGENT_REFUSE_BATCH && (fd = accept4(a->lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0;
	     i++) {
		ctl_chan_init(&ch, fd, false);
		ctl_send_error(&ch, NULL, "busy with another coordinator", AGENT_REFUSE_MS);
		log_warn("%s refused: busy with coordinator %s", ch.peer, a->peer);
		close(fd);
	}
}

/*
 * Wait up to @tmo_ms for the coordinator to speak, refusing others and
 * ending early (-EINTR) when a stop is requested. 0 once @cfd is readable.
 */
static int agent_ctl_wait(struct agent *a, int cfd, int tmo_ms, char *err, size_t errlen)
{
	uint64_t end = ctl_now_ns() + (uint64_t)tmo_ms * 1000000u, now;
	struct pollfd p[2] = { { .fd = cfd, .events = POLLIN },
			       { .fd = a->lfd, .events = POLLIN } };

	for (;;) {
		if (stop_requested())
			return errbuf_set(err, errlen, -EINTR, "the agent was told to quit");
		now = ctl_now_ns();
		if (now >= end)
			return errbuf_set(err, errlen, -ETIMEDOUT,
					  "the coordinator said nothing for %d s", tmo_ms / 1000);
		if (poll(p, a->lfd >= 0 ? 2 : 1, AGENT_SLICE_MS) <= 0)
			continue;
		if (p[0].revents)
			return 0;
		agent_ctl_refuse_waiting(a);
	}
}

/* Answer a time exchange with our clock. 0 or -errno with the reason. */
static int agent_ctl_answer_time(struct ctl_chan *ch, char *err, size_t errlen)
{
	json_t *m = ctl_msg("time");
	int ret;

	json_object_set_new(m, "now_ns", json_integer((json_int_t)ctl_now_ns()));
	ret = ctl_send(ch, m, AGENT_MSG_MS, err, errlen);
	json_decref(m);
	return ret;
}

int agent_ctl_next(struct agent *a, struct ctl_chan *ch, json_t **m, int tmo_ms, char *err,
		   size_t errlen)
{
	int ret;

	for (;;) {
		ret = agent_ctl_wait(a, ch->fd, tmo_ms, err, errlen);
		if (!ret)
			ret = ctl_recv(ch, m, AGENT_MSG_MS, err, errlen);
		if (ret || strcmp(ctl_type(*m), "time"))
			return ret;
		json_decref(*m);
		*m = NULL;
		ret = agent_ctl_answer_time(ch, err, errlen);
		if (ret)
			return ret;
	}
}

int agent_ctl_start_check(uint64_t at_ns, uint64_t now_ns, char *err, size_t errlen)
{
	if (at_ns <= now_ns + (uint64_t)CTL_START_LEAD_MAX_S * 1000000000u)
		return 0;
	return errbuf_set(err, errlen, -EINVAL, "a start %.0f s ahead: at most %d s",
			  (double)(at_ns - now_ns) / 1e9, CTL_START_LEAD_MAX_S);
}

int agent_ctl_window(struct agent_step *st, const json_t *m, char *err, size_t errlen)
{
	uint64_t at = (uint64_t)json_integer_value(json_object_get(m, "at_ns"));
	int ret = agent_ctl_start_check(at, ctl_now_ns(), err, errlen);

	if (ret)
		return ret;
	st->warmup_ns = (uint64_t)agent_ctl_int(m, "warmup_ms") * 1000000u;
	st->duration_ns = (uint64_t)agent_ctl_int(m, "duration_ms") * 1000000u;
	/* Last: the sink's thread takes the window once it sees the start. */
	__atomic_store_n(&st->at_ns, at, __ATOMIC_RELEASE);
	return 0;
}

int agent_ctl_during_run(struct agent_step *st, struct ctl_chan *ch, char *err, size_t errlen)
{
	json_t *m;
	int ret;

	ret = agent_ctl_next(st->agent, ch, &m, AGENT_MSG_MS, err, errlen);
	if (ret) {
		st->stop = 1;
		return ret;
	}
	if (strcmp(ctl_type(m), "stop")) {
		ret = errbuf_set(err, errlen, -EPROTO, "'%s' during a run", ctl_type(m));
		st->stop = 1;
	} else {
		ret = errbuf_set(err, errlen, -EINTR, "stopped");
		snprintf(st->stop_reason, sizeof(st->stop_reason), "%s",
			 json_string_value(json_object_get(m, "reason")) ?: "");
		st->stop = 1;
	}
	json_decref(m);
	return ret;
}
