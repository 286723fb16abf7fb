/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The RoCE GID a connection leaves from, chosen from a local address
 * (gid.c). Below verbs.h, which opens devices and QPs with it.
 */
#ifndef RPERF_RDMA_GID_H
#define RPERF_RDMA_GID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <infiniband/verbs.h>

/*
 * What the RoCE GID should match: the family (AF_INET, AF_INET6; 0: any,
 * IPv4 preferred) and, when known, the local address that reaches the
 * peer (as a GID: IPv4-mapped for IPv4) and its netdev's ifindex (which
 * says the VLAN too).
 */
struct verbs_gid_want {
	int family;
	bool has_gid;
	union ibv_gid gid;
	uint32_t ifindex;
};
/*
 * How well GID table entry @e fits @w, as perftest chooses: -1 when it
 * cannot serve (not RoCE v2, the wrong family); otherwise higher for
 * global scope (not fe80::/10), the address's netdev (VLAN), the address
 * itself. Pure.
 */
int verbs_gid_score(const struct ibv_gid_entry *e, const struct verbs_gid_want *w);
/*
 * The entry of @ent[0 .. @n) that serves @w best on port @port: the
 * highest verbs_gid_score, the lowest GID index on a tie; -1 when none
 * can serve. Pure.
 */
ssize_t verbs_gid_choose(const struct ibv_gid_entry *ent, size_t n, uint32_t port,
			 const struct verbs_gid_want *w);
/*
 * Read @ctx's GID table (@max entries at most) and choose for @w on
 * @port (verbs_gid_choose) into *@best: 0, -ENOENT when none serves,
 * -ENOMEM, or ibv_query_gid_table's -errno.
 */
int verbs_gid_table_pick(struct ibv_context *ctx, uint8_t port, size_t max,
			 const struct verbs_gid_want *w, struct ibv_gid_entry *best);
/* Whether GID @gid_index of @ctx's @port belongs to a VLAN netdev: 1 or
 * 0; -ENOENT when its netdev is unknown. */
int verbs_gid_netdev_is_vlan(struct ibv_context *ctx, uint8_t port, int gid_index);
/* What a socket bound to local address @a, of netdev @ifindex (0:
 * unknown), wants. Pure. */
void verbs_gid_want_from_addr(const struct sockaddr *a, uint32_t ifindex,
			      struct verbs_gid_want *w);
/* What socket @s wants: its local address and that address's netdev. 0
 * or -errno (then @w wants nothing in particular). */
int verbs_gid_want_from_sock(int s, struct verbs_gid_want *w);

#endif
