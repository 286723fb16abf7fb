/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Readers for the places a port's arbitration configuration comes from,
 * all producing one struct arb_config:
 *  - opensm.conf (the qos_* keys, with OpenSM's defaults and its
 *    per-node-type prefixes qos_ca_, qos_swe_, qos_sw0_, qos_sw2sw_, qos_rtr_);
 *  - text captured from infiniband-diags: smpquery vlarb, sl2vl, portinfo;
 *  - a plain table: "high,VL,WEIGHT" / "low,VL,WEIGHT" lines;
 *  - an ETS description: band/dscp/prio/default lines, the same file the
 *    lab's switch feeds to tc-ets.
 * Readers never print: an error comes back as "file:line: what" in the
 * caller's buffer (err, errlen; see base/errbuf.h), and the functions
 * return 0 or -errno.
 */
#ifndef RPERF_QOSCONF_H
#define RPERF_QOSCONF_H

#include <stddef.h>
#include <stdint.h>

#include "qos/arb.h"
#include "qos/qosconf_types.h"

void qosconf_opts_init(struct qosconf_opts *opts);

const char *qosconf_format_name(enum qosconf_format format);
int qosconf_format_parse(const char *name, enum qosconf_format *format);
/* The formats of the readers' table in their enum's order, "opensm,
 * smpquery, ... or dcb", after @first (NULL: none), into @buf. */
void qosconf_format_list(char *buf, size_t len, const char *first);
const char *qosconf_node_type_name(enum qosconf_node_type type);
int qosconf_node_type_parse(const char *name, enum qosconf_node_type *type);

/* Guess the format of @text; QOSCONF_FORMAT_AUTO when it cannot tell. */
enum qosconf_format qosconf_detect(const char *text);

/*
 * Parse @n_src sources of one format (given in @opts or detected, and then
 * the same for all) into @cfg. *format_out gets the format used.
 * Returns 0, or -EINVAL with "name:line: reason" in @err.
 */
int qosconf_parse(const struct qosconf_source *src, int n_src,
		  const struct qosconf_opts *opts, struct arb_config *cfg,
		  enum qosconf_format *format_out, char *err, size_t errlen);

/* Read a file whole ("-": standard input); *text is malloc'ed. A document
 * rperf wrote (--json) is refused: it is an output, not an input. Returns
 * 0 or -errno (@err set). */
int qosconf_read_file(const char *path, char **text, char *err, size_t errlen);

#endif
