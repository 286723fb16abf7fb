/*
 * rperf agent: runs on every host of a converge scenario and does what
 * the coordinator's messages ask, with the same engines the commands use:
 * the destination's agent is a server (sink), the others run lat (probe)
 * and bw (load) flows to it. It listens on a control port (ctl.h), serves
 * one coordinator at a time, and never runs a command or opens a file
 * that a message names. Off the loopback it wants a shared token. Here:
 * the options and the listening loop; a coordinator's session is in
 * converge/agent_session.c, the sources' flows in agent_source.c, the
 * destination's sink in agent_sink.c.
 */
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "converge/agent.h"
#include "converge/ctl.h"
#include "cli/cmd.h"
#include "rdma/conn.h"
#include "base/log.h"
#include "base/stop.h"

struct agent_opts {
	const char *bind;		/* NULL: every address */
	uint16_t port;
	const char *token_file;
	bool once;
	bool help;
};

void cmd_agent_usage(FILE *out)
{
	fprintf(out,
		"usage: rperf agent [options]\n"
		"\n"
		"Run the flows an 'rperf converge' coordinator gives this host.\n"
		"\n"
		"  -b, --bind ADDR       listen on this address only (default: every address)\n"
		"  -p, --port N          control port (default %u)\n"
		"      --token-file FILE shared token; required unless bound to the loopback\n"
		"      --once            serve one coordinator, then exit\n"
		"  -h, --help            show this help\n", CTL_DEFAULT_PORT);
}

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

static int agent_opts_parse(int argc, char **argv, struct agent_opts *o)
{
	static const struct option lo[] = {
		{ "bind", required_argument, NULL, 'b' },
		{ "port", required_argument, NULL, 'p' },
		{ "token-file", required_argument, NULL, 'T' },
		{ "once", no_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long v;
	int c;

	*o = (struct agent_opts){ .port = CTL_DEFAULT_PORT };
	optind = 0;
	while ((c = getopt_long(argc, argv, "b:p:h", lo, NULL)) != -1) {
		switch (c) {
		case 'b':
			o->bind = optarg;
			break;
		case 'p':
			v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 65535)
				return log_error("--port '%s': expected 1 to 65535", optarg);
			o->port = (uint16_t)v;
			break;
		case 'T':
			o->token_file = optarg;
			break;
		case 'O':
			o->once = true;
			break;
		case 'h':
			o->help = true;
			return 0;
		default:
			return -1;
		}
	}
	if (optind < argc)
		return log_error("unexpected argument '%s'", argv[optind]);
	if (!o->token_file && !ctl_addr_is_loopback(o->bind))
		return log_error("listening beyond the loopback needs --token-file");
	return 0;
}

int cmd_agent(int argc, char **argv)
{
	char token[CTL_MAX_TOKEN_BYTES], err[256];
	struct agent ag = { .lfd = -1 };
	struct agent_opts o;
	int lfd, cfd;

	if (agent_opts_parse(argc, argv, &o)) {
		fprintf(stderr, "see 'rperf agent --help'\n");
		return RPERF_EXIT_USAGE;
	}
	if (o.help) {
		cmd_agent_usage(stdout);
		return RPERF_EXIT_OK;
	}
	if (o.token_file && ctl_token_read(o.token_file, token, sizeof(token), err, sizeof(err))) {
		log_error("%s", err);
		return RPERF_EXIT_USAGE;
	}
	lfd = ctl_listen(o.bind, o.port, err, sizeof(err));
	if (lfd < 0) {
		log_error("%s", err);
		return RPERF_EXIT_FAILURE;
	}
	stop_install();
	srand48(getpid() ^ (long)ctl_now_ns());
	log_info("agent listening on %s port %u", o.bind ? o.bind : "*", o.port);
	while (!stop_requested()) {
		if (!conn_fd_readable(lfd)) {
			poll(&(struct pollfd){ .fd = lfd, .events = POLLIN }, 1, 500);
			continue;
		}
		cfd = accept(lfd, NULL, NULL);
		if (cfd < 0)
			continue;
		ag = (struct agent){ .lfd = lfd, .token = o.token_file ? token : NULL };
		agent_session_serve(&ag, cfd);
		close(cfd);
		if (o.once)
			break;
	}
	close(lfd);
	return RPERF_EXIT_OK;
}
