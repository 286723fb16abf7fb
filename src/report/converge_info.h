/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What converge's document (report_converge.c) and its rows
 * (report_converge_rows.c) both need: how the run was set up, and which
 * rows and kinds of run there are. Header only, so that the document
 * depends on the rows and the rows on neither; report_converge.h includes it.
 */
#ifndef RPERF_REPORT_CONVERGE_INFO_H
#define RPERF_REPORT_CONVERGE_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

struct run_env;

/* The rows of converge's results: per class (a step's "classes", the
 * table's rows, the CSV's) and per flow (a step's "flows"). */
enum report_converge_list { RC_CLASSES, RC_FLOWS, RC_PORTS };
/* What a run's classes are: service levels, or ETS bands (info->ets);
 * RC_SL and RC_BAND: a field's kinds (report/field.h). */
enum report_converge_kind { RC_KIND_SL, RC_KIND_BAND };
#define RC_SL		(1u << RC_KIND_SL)
#define RC_BAND		(1u << RC_KIND_BAND)

/* How a converge run was set up: the report's header and JSON "config". */
struct converge_report_info {
	const char *scenario;
	const char *destination;
	const char *arbitration;	/* files compared with, or NULL */
	const char *model;
	bool ets;			/* classes are ETS bands, by DSCP */
	double link_gbps;		/* 0: not given */
	double duration_s, warmup_s;
	double tolerance_pp;
	bool sweep;
	const char *baseline;		/* "no", "lat" or "all" */
	const char *fit;		/* "configured" or "best": what exit 3 follows */
	const char *semantics;		/* ib-packet's configured reading, or NULL */
	const struct run_env *env;	/* the coordinator's host */
	json_t *agent_envs;		/* {agent: run_env_json()} the agents sent; borrowed */
	size_t n_agents;		/* reached and synced */
	double connect_ms;		/* that took */
	bool authenticated;		/* each proved the token (else: loopback only, none) */
};

#endif
