/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the coordinator does not take on trust from a peer on its agents'
 * port: a peer off the loopback when it holds no token to tell an agent
 * from an impostor, and a measured rate no link of the flow's path could
 * carry (a faulty or forged agent's, never a measurement). Its bound is
 * the slowest port the flow's agents gave, or the scenario's link_rate:
 * the user's, which an agent that leaves its port rate out cannot lift.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>

#include "rdma/conn.h"
#include "coord/coord.h"
#include "base/errbuf.h"

/* Rates up to this much over the port's are the clocks' noise, not a lie. */
#define COORD_RATE_SLACK	1.02

int coord_tokenless_check(const struct coord *c, int fd, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char ip[64] = "?";

	if (c->token[0])
		return 0;
	if (!getpeername(fd, (struct sockaddr *)&ss, &sl))
		conn_addr_ip((struct sockaddr *)&ss, ip, sizeof(ip));
	if (ctl_addr_is_loopback(ip))
		return 0;
	return errbuf_set(err, errlen, -EACCES, "at %s, off the loopback, where an agent always "
			  "asks for a token: without one converge cannot tell it from an "
			  "impostor; give converge the agents' --token-file", ip);
}

/* @a's port rate as its environment gave it (Gb/s); 0: not known. */
static double coord_port_gbps(const struct coord_agent *a)
{
	return a && a->env ? json_number_value(json_object_get(a->env, "port_gbps")) : 0;
}

int coord_rate_check(const struct coord_agent *dest, const struct coord_agent *from,
		     double link_gbps, double gbps, char *why, size_t len)
{
	const struct coord_agent *ends[2] = { dest, from }, *at = NULL;
	double link = link_gbps, g;
	size_t i;

	for (i = 0; i < 2; i++) {
		g = coord_port_gbps(ends[i]);
		if (g > 0 && (link <= 0 || g < link)) {
			link = g;
			at = ends[i];
		}
	}
	if (link <= 0 || gbps <= link * COORD_RATE_SLACK)
		return 0;
	if (!at)
		return errbuf_set(why, len, -EPROTO, "%.3f Mb/s measured, above the scenario's "
				  "link_rate of %.3f Mb/s: impossible, not counted", gbps * 1e3,
				  link * 1e3);
	return errbuf_set(why, len, -EPROTO, "%.3f Mb/s measured, above the %.3f Mb/s of its "
			  "path's slowest port (agent '%s'): impossible, not counted", gbps * 1e3,
			  link * 1e3, at->addr);
}
