/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Arbitration models: what share of a port's bandwidth each service level
 * gets, and how long it waits between turns, predicted from the port's
 * arbitration configuration alone.
 *
 * Two kinds of port are described by one struct arb_config:
 *  - InfiniBand: VLArb high and low tables, LimitOfHighPriority and SL2VL;
 *    modelled packet by packet (ib-packet, the default, under explicit
 *    semantics and compared across all of them), byte by byte (ib-fluid),
 *    or as a DTable whose high-table entries name SLs (dtable); shares
 *    are those of one exact period of the arbiter;
 *  - Ethernet ETS (802.1Qaz, Linux tc-ets): strict bands, then deficit
 *    round robin over quanta.
 * Offered loads: the InfiniBand models feed the packet arbiter with each
 * SL's packets (constant gaps, Poisson as a check) wherever a queue can
 * run empty; ETS, a deficit round robin, by water-filling, which is its
 * long run (max-min fairness weighted by quanta).
 *
 * Everything here is a pure function of its arguments: no I/O, no globals,
 * no printing. Warnings are collected in the result for the caller.
 */
#ifndef RPERF_ARB_H
#define RPERF_ARB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qos/arb_types.h"
#include "qos/arb_ib.h"
#include "qos/arb_ets.h"

void arb_config_init(struct arb_config *cfg, enum arb_kind kind);
void arb_params_init(struct arb_params *params);

const char *arb_model_name(enum arb_model model);
/* Return 0 and set *model, or -EINVAL for an unknown name. */
int arb_model_parse(const char *name, enum arb_model *model);
/* The options @model takes, as a line for help; NULL for an unknown model. */
const char *arb_model_options(enum arb_model model);
/* The model for configurations of @kind when none is named. */
enum arb_model arb_model_default(enum arb_kind kind);
/*
 * --semantics: "carry=yes|no,low=entry|packet|continue,limit0=alternate|bytes,
 * deficit=vl|table", any subset in any order, applied over *sem.
 * Returns 0 or -EINVAL.
 */
int arb_semantics_parse(const char *text, struct arb_semantics *sem);
/* The same form, every key given but deficit, said only when per table. */
void arb_semantics_format(const struct arb_semantics *sem, char *buf,
			  size_t len);
/* Whether @model analyzes configurations of @kind (ets for ETS, ib-* for VLArb). */
bool arb_model_fits(enum arb_model model, enum arb_kind kind);

/*
 * Whether a warning of kind @code (arb_result.warning_codes) is a routine
 * note, shown with -v, rather than one that changes the figures or asks
 * for action, always shown.
 */
bool arb_warning_is_note(const char *code);

/*
 * Run the model in params->model on @cfg: per SL and per VL share, Gb/s
 * and entry distances under the offered loads, and the
 * warnings the configuration deserves. Returns 0, or -EINVAL when the
 * model does not fit the configuration (ets on VLArb input, or an IB
 * model on ETS input) or a parameter is out of range.
 */
int arb_analyze(const struct arb_config *cfg, const struct arb_params *params,
		struct arb_result *res);

#endif
