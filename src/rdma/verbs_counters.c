/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A port's counters (verbs.h): read from sysfs before and after a run,
 * and what they say of it (bytes received, packets sent again). Apart
 * from verbs.c: files read, no verbs call.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/errbuf.h"
#include "rdma/verbs.h"


/* ------------------------------------------------------------------ */
/* Port counters                                                       */
/* ------------------------------------------------------------------ */

static int counter_read_file(const char *path, uint64_t *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%" SCNu64, v) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

int verbs_counters_read(const struct verbs_dev *dev, struct verbs_counters *c)
{
	char dir[256], path[512];
	struct dirent *de;
	DIR *d;

	c->n = 0;
	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports/%u/hw_counters",
		 dev->name, dev->port);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && c->n < VERBS_COUNTERS_MAX) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(c->name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (counter_read_file(path, &c->value[c->n]))
			continue;
		strcpy(c->name[c->n], de->d_name);
		c->n++;
	}
	closedir(d);
	return 0;
}

/* @name's (@after - @before), or -1 when either lacks it. */
static int64_t counter_delta(const struct verbs_counters *before,
			     const struct verbs_counters *after, const char *name)
{
	int i, j;

	for (i = 0; i < after->n; i++) {
		if (strcmp(after->name[i], name))
			continue;
		for (j = 0; j < before->n; j++)
			if (!strcmp(before->name[j], name))
				return (int64_t)(after->value[i] - before->value[j]);
	}
	return -1;
}

void verbs_counters_rx(const struct verbs_counters *before, const struct verbs_counters *after,
		       struct verbs_rx_trouble *t)
{
	t->rnr_naks_sent = counter_delta(before, after, "send_rnr_err");
	t->out_of_buffer = counter_delta(before, after, "out_of_buffer");
}

/* Counters that go up when a requester sends a packet again: rxe counts
 * each retry in completer_retry_err and each RNR NAK in rcvd_rnr_err;
 * mlx5 names its ACK timeouts and sequence-error NAKs. */
static bool counter_is_retrans(const char *name)
{
	static const char *const names[] = {
		"completer_retry_err", "rcvd_rnr_err", "local_ack_timeout_err",
		"packet_seq_err", "implied_nak_seq_err", "rnr_nak_retry_err",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

uint64_t verbs_counters_retrans(const struct verbs_counters *before,
				const struct verbs_counters *after)
{
	uint64_t sum = 0;
	int i, j;

	for (i = 0; i < after->n; i++) {
		if (!counter_is_retrans(after->name[i]))
			continue;
		for (j = 0; j < before->n; j++)
			if (!strcmp(before->name[j], after->name[i]))
				sum += after->value[i] - before->value[j];
	}
	return sum;
}

