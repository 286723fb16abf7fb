/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rperf converge --launch: start the scenario's agents, watch the
 * launchers while the coordinator reaches the agents, and end them on
 * every way out. ssh starts one agent a host and hands it the token on
 * its standard input (inside the encrypted channel, never on a command
 * line); the agent ends when that input closes, so a launcher that goes
 * takes its agent along. srun starts them all as one job step, one task
 * a node; the token file's path (a shared file system, as Slurm's nodes
 * have) is what it passes. Apart from coord_session.c because it deals
 * with processes, not with the agents' protocol.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coord/coord.h"
#include "base/errbuf.h"
#include "base/log.h"

#define COORD_LAUNCH_END_MS	10000	/* after the hang-up, for launchers to end */
#define COORD_LAUNCH_TERM_MS	3000	/* after SIGTERM, before SIGKILL */
#define COORD_LAUNCH_ARGS	32

/* @s in single quotes for the remote shell ssh runs the command with. */
static int coord_shell_quote(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	buf[n++] = '\'';
	for (; *s && n + 6 < len; s++) {
		if (*s == '\'') {
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else {
			buf[n++] = *s;
		}
	}
	if (*s)
		return -ENAMETOOLONG;
	buf[n++] = '\'';
	buf[n] = '\0';
	return 0;
}

/*
 * In the child: its own process group (a ^C at the terminal is the
 * coordinator's to handle: it stops the agents and collects what they
 * measured), gone with the coordinator, @in as standard input, standard
 * output and error into @log. Then exec.
 */
static void coord_launch_exec(char *const argv[], int in, int log)
{
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		_exit(127);
	if (dup2(in, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0)
		_exit(127);
	execvp(argv[0], argv);
	dprintf(2, "%s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/*
 * Start @argv as launcher @l, named @what ("ssh h2", "srun") in errors.
 * With @token, its standard input is a pipe that carries the token's line
 * and stays open until coord_launch_end(); otherwise /dev/null.
 */
static int coord_spawn(struct coord *c, struct coord_launcher *l, const char *what,
		       char *const argv[], const char *token)
{
	int in[2] = { -1, -1 }, ret = 0;
	pid_t pid;

	*l = (struct coord_launcher){ .pid = 0, .token_fd = -1 };
	snprintf(l->what, sizeof(l->what), "%s", what);
	l->log_fd = memfd_create("rperf-launch", MFD_CLOEXEC);
	if (l->log_fd < 0)
		return -errno;
	c->n_launchers++;	/* from here on, coord_launch_end() cleans up */
	if (token ? pipe2(in, O_CLOEXEC) : (in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	l->token_fd = in[1];
	/* Before the fork, while we hold the reading end too: the line fits
	 * the pipe's buffer, and a child gone at once cannot raise SIGPIPE. */
	if (token && dprintf(in[1], "%s\n", token) < 0) {
		close(in[0]);
		return -errno;
	}
	pid = fork();
	if (pid == 0)
		coord_launch_exec(argv, in[0], l->log_fd);
	if (pid < 0)
		ret = -errno;
	else
		setpgid(pid, pid);	/* as the child does: no race with a kill */
	close(in[0]);
	l->pid = pid > 0 ? pid : 0;
	return ret;
}

/* ssh HOST 'AGENT' agent --once --port P --token-file -, for agent @a. */
static int coord_launch_ssh(struct coord *c, struct coord_agent *a)
{
	char cmd[PATH_MAX + 128], port[16], tmo[48], what[SCENARIO_HOST_MAX + 8];
	char *argv[COORD_LAUNCH_ARGS];
	int n = 0, ret;

	ret = coord_shell_quote(c->o->agent_cmd, cmd, PATH_MAX);
	if (ret)
		return ret;
	snprintf(port, sizeof(port), "%u", a->ctl_port);
	snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd),
		 " agent --once --port %s --token-file -", port);
	snprintf(tmo, sizeof(tmo), "ConnectTimeout=%d", (int)(c->o->timeout_s + 0.999));
	argv[n++] = "ssh";
	argv[n++] = "-T";
	argv[n++] = "-x";
	argv[n++] = "-o";
	argv[n++] = "BatchMode=yes";
	argv[n++] = "-o";
	argv[n++] = tmo;
	argv[n++] = "-o";
	argv[n++] = "ServerAliveInterval=10";
	argv[n++] = "--";
	argv[n++] = (char *)a->host;
	argv[n++] = cmd;
	argv[n] = NULL;
	snprintf(what, sizeof(what), "ssh %s", a->host);
	a->launcher = (int)c->n_launchers;
	return coord_spawn(c, &c->launchers[c->n_launchers], what, argv, c->token);
}

/*
 * srun over the agents' hosts, one task a host, as one job step (within
 * the current allocation, if there is one): AGENT agent --once --port P
 * --token-file PATH, the token file at the same path on every node.
 */
static int coord_launch_srun(struct coord *c)
{
	char count[32], ntasks[32], port[16], token[PATH_MAX], *nodelist;
	char *argv[COORD_LAUNCH_ARGS];
	size_t i, cap = 16 + c->n_agents * SCENARIO_HOST_MAX, len;
	int n = 0, ret;

	if (!realpath(c->o->token_file, token))
		return -errno;
	/* One task a host, at the agent port: HOST:PORT agents are ssh's or the user's. */
	for (i = 0; i < c->n_agents; i++)
		if (c->agents[i].ctl_port != c->sc.agent_port)
			return -EADDRNOTAVAIL;
	nodelist = malloc(cap);
	if (!nodelist)
		return -ENOMEM;
	len = (size_t)snprintf(nodelist, cap, "--nodelist=");
	for (i = 0; i < c->n_agents; i++) {
		len += (size_t)snprintf(nodelist + len, cap - len, "%s%s", i ? "," : "",
					c->agents[i].host);
		c->agents[i].launcher = 0;
	}
	snprintf(count, sizeof(count), "--nodes=%zu", c->n_agents);
	snprintf(ntasks, sizeof(ntasks), "--ntasks=%zu", c->n_agents);
	snprintf(port, sizeof(port), "%u", c->sc.agent_port);
	argv[n++] = "srun";
	argv[n++] = nodelist;
	argv[n++] = count;
	argv[n++] = ntasks;
	argv[n++] = "--ntasks-per-node=1";
	argv[n++] = "--kill-on-bad-exit=1";
	argv[n++] = "--job-name=rperf-agents";
	argv[n++] = (char *)c->o->agent_cmd;
	argv[n++] = "agent";
	argv[n++] = "--once";
	argv[n++] = "--port";
	argv[n++] = port;
	argv[n++] = "--token-file";
	argv[n++] = token;
	argv[n] = NULL;
	ret = coord_spawn(c, &c->launchers[0], "srun", argv, NULL);
	free(nodelist);
	return ret;
}

int coord_launch(struct coord *c)
{
	size_t i;
	int ret = 0;

	if (!strcmp(c->o->launch, "srun")) {
		ret = coord_launch_srun(c);
		if (ret == -EADDRNOTAVAIL)
			snprintf(c->error, sizeof(c->error), "--launch srun starts one agent a host, "
				 "at agent_port %u: start agents named HOST:PORT another way",
				 c->sc.agent_port);
		else if (ret)
			snprintf(c->error, sizeof(c->error), "--launch srun: %s", strerror(-ret));
		return ret;
	}
	for (i = 0; !ret && i < c->n_agents; i++) {
		ret = coord_launch_ssh(c, &c->agents[i]);
		if (ret)
			snprintf(c->error, sizeof(c->error), "--launch ssh: agent '%s': %s",
				 c->agents[i].host, strerror(-ret));
	}
	return ret;
}

/* The last line launcher @l (or its agent) wrote, into @buf. */
static void coord_launcher_said(const struct coord_launcher *l, char *buf, size_t len)
{
	char text[2048], *p;
	off_t end = lseek(l->log_fd, 0, SEEK_END), at;
	ssize_t n;

	at = end > (off_t)sizeof(text) - 1 ? end - (off_t)sizeof(text) + 1 : 0;
	n = pread(l->log_fd, text, sizeof(text) - 1, at);
	text[n > 0 ? n : 0] = '\0';
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		text[--n] = '\0';
	p = strrchr(text, '\n');
	p = p ? p + 1 : text;
	n = (ssize_t)strnlen(p, len - 1);
	memcpy(buf, p, (size_t)n);
	buf[n] = '\0';
}

/* "ssh h2 exited with status 255: ssh: connect to host h2 port 22: ..." */
static void coord_launcher_status(const struct coord_launcher *l, char *err, size_t errlen)
{
	char said[256];
	int n;

	coord_launcher_said(l, said, sizeof(said));
	if (WIFSIGNALED(l->status))
		n = snprintf(err, errlen, "%s killed by signal %d", l->what, WTERMSIG(l->status));
	else
		n = snprintf(err, errlen, "%s exited with status %d", l->what,
			     WEXITSTATUS(l->status));
	if (said[0] && n > 0 && (size_t)n < errlen)
		snprintf(err + n, errlen - (size_t)n, ": %s", said);
}

/* Has launcher @l ended? Reaps it. */
static bool coord_launcher_ended(struct coord_launcher *l)
{
	if (!l->pid)
		return true;
	if (waitpid(l->pid, &l->status, WNOHANG) != l->pid)
		return false;
	l->pid = 0;
	l->ended = true;
	return true;
}

bool coord_launcher_failed(struct coord *c, const struct coord_agent *a, char *err, size_t errlen)
{
	struct coord_launcher *l;

	if (a->launcher < 0)
		return false;
	l = &c->launchers[a->launcher];
	if (!coord_launcher_ended(l))
		return false;
	coord_launcher_status(l, err, errlen);
	l->reported = true;
	return true;
}

/* Wait up to @ms for every launcher to end. True when they all have. */
static bool coord_launchers_wait(struct coord *c, int ms)
{
	size_t i, left;

	for (;;) {
		for (left = 0, i = 0; i < c->n_launchers; i++)
			left += !coord_launcher_ended(&c->launchers[i]);
		if (!left || ms <= 0)
			return !left;
		poll(NULL, 0, 50);
		ms -= 50;
	}
}

static void coord_launchers_signal(struct coord *c, int sig)
{
	size_t i;

	for (i = 0; i < c->n_launchers; i++)
		if (c->launchers[i].pid)
			kill(-c->launchers[i].pid, sig);
}

/*
 * After the hang-up: the agents (--once) end, and their launchers with
 * them; a launcher still there after a while is told to end (ssh's going
 * closes its agent's input, srun forwards the signal to the step), then
 * killed. A launcher that failed is reported, once, by name.
 */
void coord_launch_end(struct coord *c)
{
	char err[512];
	size_t i;

	for (i = 0; i < c->n_launchers; i++)
		if (c->launchers[i].token_fd >= 0) {
			close(c->launchers[i].token_fd);
			c->launchers[i].token_fd = -1;
		}
	if (!coord_launchers_wait(c, COORD_LAUNCH_END_MS)) {
		log_warn("--launch: agents still running %.0f s after the hang-up: ending them",
			 COORD_LAUNCH_END_MS / 1000.0);
		coord_launchers_signal(c, SIGTERM);
		if (!coord_launchers_wait(c, COORD_LAUNCH_TERM_MS))
			coord_launchers_signal(c, SIGKILL);
		coord_launchers_wait(c, COORD_LAUNCH_TERM_MS);
	}
	for (i = 0; i < c->n_launchers; i++) {
		struct coord_launcher *l = &c->launchers[i];

		if (l->ended && !l->reported && (!WIFEXITED(l->status) || WEXITSTATUS(l->status))) {
			coord_launcher_status(l, err, sizeof(err));
			log_warn("%s", err);
		}
		close(l->log_fd);
	}
	c->n_launchers = 0;
}
