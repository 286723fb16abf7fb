/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * analyze as a library: a request (where the arbitration configuration
 * comes from, the model and its parameters, what overrides the input)
 * becomes the configuration read and the model's result, with the
 * warnings of both in one list. The command only reads its options into
 * a request and hands the result to the report; converge's comparison
 * could take the same path.
 *
 * The value readers below have the shape of option callbacks (base/opts.h)
 * over a struct analyze_req, so the command's table points at them and
 * the values' forms and messages live with what they set. Nothing here
 * prints: errors come back in the caller's buffer.
 */
#ifndef RPERF_QOS_ANALYZE_H
#define RPERF_QOS_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>

#include "qos/arb_source.h"
#include "qos/arb_types.h"
#include "qos/qosconf_types.h"

struct analyze_req {
	struct qosconf_opts conf;	/* format, node type, in-port */
	struct arb_source src;		/* files or a live port */
	struct arb_params params;	/* the model and its parameters */
	bool model_given;
	bool semantics_given;
	int limit;			/* LimitOfHighPriority; -1: from the input */
	const char *sl2vl;		/* the VL of SL0, SL1, ...; NULL: from the input */
	const char *load;		/* "saturate" or SL:GBPS,...; NULL: every SL saturating */
	const char *packet_size;	/* as given (applied to params); NULL: the default */
};

struct analyze_out {
	struct arb_config cfg;		/* what was read, overrides applied */
	struct arb_source_info src;	/* where it was read from */
	struct arb_params params;	/* the request's, the model and loads settled */
	struct arb_result *res;		/* the model's result; NULL before it */
	bool usage;			/* the failure was the input's or the options' */
};

/* Defaults: every format detected, the model chosen by the input. */
void analyze_req_init(struct analyze_req *r);

/*
 * Read @r's inputs, apply its overrides, check what applies to them, and
 * run the model: 0, or -errno with the reason in @err and out->usage
 * telling bad usage (the input, the options) from a failure of the
 * machine (a port that cannot be read, memory). The result is freed by
 * analyze_out_release(), whatever was returned.
 */
int analyze_run(const struct analyze_req *r, struct analyze_out *out, char *err,
		size_t errlen);
void analyze_out_release(struct analyze_out *out);

/* "auto, opensm, smpquery, table, ets, tc or dcb": the input formats of
 * the readers' table (qosconf.c), as help and errors say them. */
const char *analyze_format_choices(void);

/*
 * Option values into a struct analyze_req (@dst); @name is the option's
 * name for messages. 0, or -EINVAL with "NAME 'VALUE': expected ..." in
 * @err. format: one of analyze_format_choices(); node_type: an opensm key
 * set; port: LID:PORT or PATH:PORT, checked without the fabric; model;
 * semantics: ib-packet's reading; packet_size: bytes for every SL or
 * SL:BYTES,...; link: the link's rate (bare: Gb/s).
 */
int analyze_opt_format(void *dst, const char *name, const char *value, char *err,
		       size_t errlen);
int analyze_opt_node_type(void *dst, const char *name, const char *value, char *err,
			  size_t errlen);
int analyze_opt_port(void *dst, const char *name, const char *value, char *err,
		     size_t errlen);
int analyze_opt_model(void *dst, const char *name, const char *value, char *err,
		      size_t errlen);
int analyze_opt_semantics(void *dst, const char *name, const char *value, char *err,
			  size_t errlen);
int analyze_opt_packet_size(void *dst, const char *name, const char *value, char *err,
			    size_t errlen);
int analyze_opt_link(void *dst, const char *name, const char *value, char *err,
		     size_t errlen);

#endif
