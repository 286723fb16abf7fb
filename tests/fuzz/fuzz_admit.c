/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libFuzzer target: a converge sink's admission of data connections
 * (agent/agent_sink.c), the first code a data connection's bytes reach
 * once its hello is whole. The input: a hello frame (CONN_HELLO_BYTES, as
 * a source sends it), one byte naming the address it comes from (an
 * expected flow's source, by index, or one no flow has), then a setup
 * message body (ctl_parse(), as the channel delivers it) whose "expect"
 * agent_sink_expect() takes. The hello is admitted over and over, as a
 * source's connections would be.
 *
 * Each verdict must be the one the first flow showing the hello's secret
 * decides (no such flow: -EACCES; another address: -EPERM; larger
 * messages: -EMSGSIZE; its connections all made: -EUSERS; else 0), and a
 * flow never admits more connections than it has.
 */
#include <errno.h>

#include "agent/agent_int.h"
#include "wire/ctl.h"
#include "fuzz.h"

/* The verdict the step's expected flows give @h from @src: the oracle. */
static int fuzz_admit_want(const struct agent_step *st, const struct conn_hello *h,
			   const char *src)
{
	const struct agent_expect *e;
	size_t i;

	for (i = 0; i < st->n_expect; i++) {
		e = &st->expect[i];
		if (memcmp(e->secret, h->secret, CONN_SECRET_BYTES))
			continue;
		if (strcmp(e->src, src))
			return -EPERM;
		if (h->max_msg_bytes > e->size_bytes)
			return -EMSGSIZE;
		return e->used >= e->conns ? -EUSERS : 0;
	}
	return -EACCES;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct agent_step st;
	struct conn_hello h;
	const char *src;
	char err[256];
	json_t *m;
	unsigned k;
	size_t i;
	int want, got;

	if (size < CONN_HELLO_BYTES + 1 || conn_hello_unpack(data, &h))
		return 0;
	if (ctl_parse((const char *)data + CONN_HELLO_BYTES + 1, size - CONN_HELLO_BYTES - 1, &m,
		      err, sizeof(err)))
		return 0;
	if (strcmp(ctl_type(m), "setup")) {
		json_decref(m);
		return 0;
	}
	memset(&st, 0, sizeof(st));
	agent_sink_expect(&st, m);
	json_decref(m);
	if (st.n_expect > CTL_MAX_FLOWS || st.sink.admit != agent_sink_admit)
		abort();
	k = data[CONN_HELLO_BYTES];
	src = k < st.n_expect ? st.expect[k].src : "203.0.113.9";
	/* One more than the most connections a flow may have: the last is refused. */
	for (i = 0; i < 4097; i++) {
		want = fuzz_admit_want(&st, &h, src);
		got = agent_sink_admit(&st, &h, src, err, sizeof(err));
		if (got != want || (got && !err[0]))
			abort();
		if (got)
			break;
	}
	for (i = 0; i < st.n_expect; i++)
		if (st.expect[i].used > st.expect[i].conns)
			abort();
	return 0;
}
