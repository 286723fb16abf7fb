/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The agent's side of the control connection while a session runs: the
 * next message from the coordinator (time exchanges answered on the way,
 * other coordinators refused), a start's window, and the messages that
 * may come during a step. Below the session and both roles, so that the
 * session calls the roles and every one of them calls this, never back.
 */
#ifndef RPERF_AGENT_CTL_H
#define RPERF_AGENT_CTL_H

#include <stddef.h>
#include <jansson.h>

#include "agent/agent.h"
#include "wire/ctl.h"

struct agent_step;

/* Message @o's integer field @k as an int: ctl_validate checked its range (0: absent). */
int agent_ctl_int(const json_t *o, const char *k);

/*
 * Peers waiting on @a's control port while a session runs: nothing read
 * from them, one short error naming the one being served sent, closed.
 * AGENT_REFUSE_BATCH a call at most; nothing when none waits.
 */
void agent_ctl_refuse_waiting(struct agent *a);

/*
 * The next message on @ch that is not a time exchange (those are
 * answered here), within @tmo_ms of silence. 0 with *@m (the caller's
 * reference), -EINTR when a stop is requested, -ETIMEDOUT, or what
 * ctl_recv() returns; the reason in @err.
 */
int agent_ctl_next(struct agent *a, struct ctl_chan *ch, json_t **m, int tmo_ms, char *err,
		   size_t errlen);

/*
 * Is a start at @at_ns (our CLOCK_MONOTONIC) at most CTL_START_LEAD_MAX_S
 * after @now_ns? 0, or -EINVAL with how far ahead it is in @err. Pure.
 */
int agent_ctl_start_check(uint64_t at_ns, uint64_t now_ns, char *err, size_t errlen);

/* A start message's instant, warm-up and window into @st; 0, or
 * agent_ctl_start_check()'s refusal (@st unchanged). */
int agent_ctl_window(struct agent_step *st, const json_t *m, char *err, size_t errlen);

/*
 * One message once @st is set up: a sink takes its start here (0); stop
 * ends the step (-EINTR, its reason kept in @st); anything else is a
 * protocol error (-EPROTO). On any error @st is marked stopped.
 */
int agent_ctl_during_run(struct agent_step *st, struct ctl_chan *ch, char *err, size_t errlen);

#endif
