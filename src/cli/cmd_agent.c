/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf agent: runs on every host of a converge scenario and does what
 * the coordinator's messages ask, with the same engines the commands use:
 * the destination's agent is a server (sink), the others run lat (probe)
 * and bw (load) flows to it. It listens on a control port (ctl.h), takes
 * every handshake at once (agent/agent_gate.c), serves one
 * coordinator at a time, and never runs a command or opens a file
 * that a message names. Off the loopback it wants a shared token. Here:
 * the options and the listening loop; a coordinator's session is in
 * agent/agent_session.c, the sources' flows in agent_source.c, the
 * destination's sink in agent_sink.c.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/agent.h"
#include "wire/ctl.h"
#include "cli/cmd.h"
#include "rdma/conn.h"
#include "base/errbuf.h"
#include "base/log.h"
#include "base/stop.h"
#include "base/opts.h"

struct agent_opts {
	const char *bind;		/* NULL: every address */
	uint16_t port;
	const char *token_file;
	const char *new_token;		/* write a new token there, then exit */
	bool once;
	size_t max_pinned_bytes;
};

#define AGENT_STR_(x) #x
#define AGENT_STR(x) AGENT_STR_(x)

static const struct opts_entry agent_opts_table[] = {
	OPT_STRING('b', "bind", "ADDR", "listen on this address only (default: every address)",
		   struct agent_opts, bind),
	OPT_UINT('p', "port", "N", "control port (default " AGENT_STR(CTL_DEFAULT_PORT) ")",
		 struct agent_opts, port, 1, 65535),
	OPT_STRING(0, "token-file", "FILE", "shared token; required unless bound to the loopback\n"
		   "('-': standard input's first line; the agent ends\nwhen it closes)",
		   struct agent_opts, token_file),
	OPT_STRING(0, "new-token", "FILE", "write a new random token to FILE (32 bytes as hex,\n"
		   "mode 0600, never over an existing file) and exit", struct agent_opts, new_token),
	OPT_FLAG(0, "once", "serve one coordinator, then exit", struct agent_opts, once),
	OPT_VALUE(OPTS_BYTES, 0, "max-pinned", "SIZE", "refuse a step whose buffers would pin more\n"
		  "than SIZE (default 1g)", struct agent_opts, max_pinned_bytes, 4096, 1ull << 40),
	OPT_END(),
};

static const struct opts_usage agent_opts_usage = {
	.cmd = "agent",
	.args = "",
	.about = "Run the flows an 'rperf converge' coordinator gives this host.",
	.table = agent_opts_table,
};

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

/* The command line into @o: 0, OPTS_HELP, or -EINVAL with the reason. */
static int agent_opts_parse(int argc, char **argv, void *p, char *err, size_t errlen)
{
	struct agent_opts *o = p;
	const char *arg;
	int n, ret;

	*o = (struct agent_opts){ .port = CTL_DEFAULT_PORT,
				  .max_pinned_bytes = AGENT_PINNED_DEFAULT };
	ret = opts_parse(agent_opts_table, o, argc, argv, &arg, 1, &n, err, errlen);
	if (ret)
		return ret;
	if (n)
		return errbuf_set(err, errlen, -EINVAL, "unexpected argument '%s'", arg);
	if (o->new_token)
		return 0;
	if (!o->token_file && !ctl_addr_is_loopback(o->bind))
		return errbuf_set(err, errlen, -EINVAL,
				  "listening beyond the loopback needs --token-file");
	return 0;
}

/*
 * With the token on standard input (--token-file -, as rperf converge
 * --launch gives it), the end of that input means the launcher (ssh) is
 * gone: nobody will come, and the agent ends rather than linger.
 */
static bool agent_token_on_stdin(const struct agent_opts *o)
{
	return o->token_file && !strcmp(o->token_file, "-");
}

static bool agent_launcher_gone(const struct agent_opts *o)
{
	char buf[64];

	if (!agent_token_on_stdin(o) || !conn_fd_readable(0))
		return false;
	return read(0, buf, sizeof(buf)) <= 0;
}

static int agent_run(void *p)
{
	struct agent_opts *o = p;
	char token[CTL_MAX_TOKEN_BYTES], err[256];
	static struct agent ag;
	struct ctl_chan ch;
	int lfd;

	if (o->new_token) {
		if (ctl_token_new(o->new_token, err, sizeof(err))) {
			log_error("%s", err);
			return RPERF_EXIT_FAILURE;
		}
		log_info("a new token is in '%s': give it to every agent and to converge "
			 "(--token-file)", o->new_token);
		return RPERF_EXIT_OK;
	}
	if (o->token_file && token_read(o->token_file, token, sizeof(token), err, sizeof(err))) {
		log_error("%s", err);
		return RPERF_EXIT_USAGE;
	}
	lfd = conn_listen(o->bind, o->port, err, sizeof(err));
	if (lfd < 0) {
		log_error("%s", err);
		return RPERF_EXIT_FAILURE;
	}
	stop_install();
	srand48(getpid() ^ (long)ctl_now_ns());
	log_info("agent listening on %s port %u", o->bind ? o->bind : "*", o->port);
	agent_gate_init(&ag, lfd, o->token_file ? token : NULL);
	ag.max_pinned_bytes = o->max_pinned_bytes;
	ag.bind = o->bind;		/* the sink's data port too */
	while (!stop_requested() && !agent_launcher_gone(o)) {
		/* Half a second at most between looks at the launcher's hang-up. */
		if (!agent_gate_wait(&ag, agent_token_on_stdin(o) ? 0 : -1, 500, &ch))
			continue;
		agent_session_serve(&ag, &ch);
		close(ch.fd);
		if (o->once)
			break;
	}
	agent_gate_drop(&ag);
	close(lfd);
	return RPERF_EXIT_OK;
}

const struct cmd_def cmd_agent = {
	.usage = &agent_opts_usage,
	.opts_size = sizeof(struct agent_opts),
	.parse = agent_opts_parse,
	.run = agent_run,
};
