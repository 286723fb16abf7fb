/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The arbitration models, for the dispatcher in arb.c and nothing else:
 * the row each one has in the dispatcher's table, and the analyses the
 * rows name. A model uses arb_common.h below it and never calls the
 * dispatcher.
 */
#ifndef RPERF_ARB_MODELS_H
#define RPERF_ARB_MODELS_H

#include "qos/arb_types.h"
#include "qos/arb_ib.h"
#include "qos/arb_ets.h"

/*
 * One model. analyze() fills @res, set up by arb_analyze() for a
 * configuration of the row's kind, and returns 0 or -EINVAL when the
 * configuration is unusable for it.
 */
struct arb_model_row {
	enum arb_model model;
	const char *name;		/* for --model and reports */
	enum arb_kind kind;		/* the configurations it fits */
	const char *options;		/* what it takes, for help */
	int (*analyze)(const struct arb_config *cfg,
		       const struct arb_params *params, struct arb_result *res);
};

#endif
