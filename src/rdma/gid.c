/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The RoCE GID a connection leaves from. A host with several addresses
 * or VLANs has a GID for each; the one a QP uses decides the source
 * address, the VLAN tag and so the priority its packets travel in. Both
 * sides choose the same way, from the local address of the socket that
 * reaches the peer (the client's route to the server, the server's
 * accepted connection). See gid.h for the contracts.
 */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rdma/gid.h"

static bool gid_is_ipv4_mapped(const union ibv_gid *gid)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(gid->raw, prefix, sizeof(prefix));
}

int verbs_gid_score(const struct ibv_gid_entry *e, const struct verbs_gid_want *w)
{
	bool v4 = gid_is_ipv4_mapped(&e->gid);
	bool link_local = e->gid.raw[0] == 0xfe && (e->gid.raw[1] & 0xc0) == 0x80;
	int score = 0;

	if (e->gid_type != IBV_GID_TYPE_ROCE_V2)
		return -1;
	if (w->family && (w->family == AF_INET) != v4)
		return -1;
	if (!w->family && v4)
		score += 2;			/* no address to go by: IPv4, as most fabrics */
	if (!link_local)
		score += 4;			/* global scope routes; link-local does not */
	if (w->ifindex && e->ndev_ifindex == w->ifindex)
		score += 8;			/* the netdev (and so the VLAN) of the address */
	if (w->has_gid && !memcmp(e->gid.raw, w->gid.raw, sizeof(e->gid.raw)))
		score += 16;			/* the very address used */
	return score;
}

ssize_t verbs_gid_choose(const struct ibv_gid_entry *ent, size_t n, uint32_t port,
			 const struct verbs_gid_want *w)
{
	ssize_t best = -1;
	int score, best_score = -1;
	size_t i;

	for (i = 0; i < n; i++) {
		score = ent[i].port_num == port ? verbs_gid_score(&ent[i], w) : -1;
		if (score > best_score || (score == best_score && score >= 0 &&
					   ent[i].gid_index < ent[best].gid_index)) {
			best = (ssize_t)i;
			best_score = score;
		}
	}
	return best;
}

int verbs_gid_table_pick(struct ibv_context *ctx, uint8_t port, size_t max,
			 const struct verbs_gid_want *w, struct ibv_gid_entry *best)
{
	struct ibv_gid_entry *ent;
	ssize_t n, i;

	ent = calloc(max ? max : 1, sizeof(*ent));
	if (!ent)
		return -ENOMEM;
	n = ibv_query_gid_table(ctx, ent, max, 0);
	i = n < 0 ? -1 : verbs_gid_choose(ent, (size_t)n, port, w);
	if (i >= 0)
		*best = ent[i];
	free(ent);
	return n < 0 ? (int)n : i < 0 ? -ENOENT : 0;
}

/* An IPv4 client of a dual-stack listener is seen as ::ffff:a.b.c.d. */
static bool addr_is_v4_mapped(const struct sockaddr *a)
{
	return a->sa_family == AF_INET6 &&
	       IN6_IS_ADDR_V4MAPPED(&((const struct sockaddr_in6 *)a)->sin6_addr);
}

void verbs_gid_want_from_addr(const struct sockaddr *a, uint32_t ifindex,
			      struct verbs_gid_want *w)
{
	memset(w, 0, sizeof(*w));
	if (a->sa_family != AF_INET && a->sa_family != AF_INET6)
		return;
	/* The mapped form is the IPv4 GID's, byte for byte. */
	w->family = addr_is_v4_mapped(a) ? AF_INET : a->sa_family;
	w->has_gid = true;
	w->ifindex = ifindex;
	if (a->sa_family == AF_INET) {
		w->gid.raw[10] = w->gid.raw[11] = 0xff;
		memcpy(&w->gid.raw[12], &((const struct sockaddr_in *)a)->sin_addr, 4);
	} else {
		memcpy(w->gid.raw, &((const struct sockaddr_in6 *)a)->sin6_addr, 16);
	}
}

/* Whether @a (a local address) is @ifa's. */
static bool addr_is_ifa(const struct sockaddr_storage *a, const struct ifaddrs *ifa)
{
	const struct sockaddr *b = ifa->ifa_addr;

	if (!b || b->sa_family != a->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr,
			       sizeof(struct in6_addr));
	return false;
}

int verbs_gid_want_from_sock(int s, struct verbs_gid_want *w)
{
	struct sockaddr_storage a;
	socklen_t len = sizeof(a);
	struct ifaddrs *ifs, *i;
	uint32_t ifindex = 0;

	memset(w, 0, sizeof(*w));
	if (getsockname(s, (struct sockaddr *)&a, &len))
		return -errno;
	if (addr_is_v4_mapped((struct sockaddr *)&a)) {
		struct sockaddr_in v4 = { .sin_family = AF_INET };

		memcpy(&v4.sin_addr, &((struct sockaddr_in6 *)&a)->sin6_addr.s6_addr[12], 4);
		memset(&a, 0, sizeof(a));
		memcpy(&a, &v4, sizeof(v4));
	}
	if (!getifaddrs(&ifs)) {
		for (i = ifs; i && !addr_is_ifa(&a, i); i = i->ifa_next)
			;
		if (i)
			ifindex = if_nametoindex(i->ifa_name);
		freeifaddrs(ifs);
	}
	verbs_gid_want_from_addr((struct sockaddr *)&a, ifindex, w);
	return 0;
}

int verbs_gid_netdev_is_vlan(struct ibv_context *ctx, uint8_t port, int gid_index)
{
	struct ibv_gid_entry ent;
	char name[IF_NAMESIZE], path[64 + IF_NAMESIZE];

	if (gid_index < 0 || ibv_query_gid_ex(ctx, port, (uint32_t)gid_index, &ent, 0) ||
	    !ent.ndev_ifindex || !if_indextoname(ent.ndev_ifindex, name))
		return -ENOENT;
	/* 8021q lists each VLAN netdev there (and is loaded whenever one exists). */
	snprintf(path, sizeof(path), "/proc/net/vlan/%s", name);
	return !access(path, F_OK);
}
