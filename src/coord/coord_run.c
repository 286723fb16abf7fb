/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A converge run from its inputs to its last step (coord.h): the
 * scenario, its destinations, the arbitration and the token read; the
 * baseline steps, then the bw steps (each count from 0 with --sweep);
 * the state released. What the caller shows of it (--json-stream) it
 * hears through struct coord_events: nothing here formats a result.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord/coord.h"
#include "base/log.h"
#include "qos/arb_source.h"
#include "qos/qosconf.h"

/* The arbitration (files, a live port, or both) into c->cfg. */
static int coord_load_arb(struct coord *c)
{
	struct arb_source src = { .n_files = c->sc.n_arb_files };
	struct arb_source_info info;
	struct qosconf_opts qo;
	char qe[512];
	int i, ret;

	qosconf_opts_init(&qo);
	for (i = 0; i < c->sc.n_arb_files; i++)
		src.files[i] = c->sc.arb_files[i];
	src.port = c->sc.arb_port[0] ? c->sc.arb_port : NULL;
	src.ca = c->sc.arb_ca[0] ? c->sc.arb_ca : NULL;
	if (src.port && arb_source_port_check("arbitration port", src.port, qe, sizeof(qe)))
		return log_errno(-EINVAL, "%s: %s", c->sc.name, qe);
	ret = arb_source_load(&src, &qo, &c->cfg, &info, qe, sizeof(qe));
	if (ret) {
		log_errno(ret, "%s", qe);
		return info.fabric_error ? -EIO : -EINVAL;
	}
	snprintf(c->arb_name, sizeof(c->arb_name), "%s", info.port_name);
	for (i = 0; i < c->sc.n_arb_files; i++)
		snprintf(c->arb_name + strlen(c->arb_name), sizeof(c->arb_name) - strlen(c->arb_name),
			 "%s%s", c->arb_name[0] ? "," : "", c->sc.arb_files[i]);
	c->have_cfg = true;
	if (c->cfg.kind != ARB_KIND_ETS)
		arb_semantics_format(&c->sc.semantics, c->semantics_name, sizeof(c->semantics_name));
	return 0;
}

int coord_inputs(struct coord *c)
{
	const char *dests[CONVERGE_MAX_PORTS + 1];
	char err[512];
	size_t i, n, len = 0;
	int ret;

	ret = scenario_load(c->o->scenario, &c->sc, err, sizeof(err));
	if (ret)
		return log_errno(ret, "%s", err);
	n = scenario_dests(&c->sc, dests, CONVERGE_MAX_PORTS + 1);
	if (n > CONVERGE_MAX_PORTS)
		return log_errno(-EINVAL, "%s: more than %d destinations", c->sc.name,
				 CONVERGE_MAX_PORTS);
	for (i = 0; i < n && len < sizeof(c->dests_name); i++)
		len += (size_t)snprintf(c->dests_name + len, sizeof(c->dests_name) - len, "%s%s",
					i ? ", " : "", dests[i]);
	c->baseline = c->o->baseline_set ? c->o->baseline : c->sc.baseline;
	run_env_host(&c->env);
	if (c->o->arbitration &&
	    scenario_set_arbitration(&c->sc, c->o->arbitration, NULL, err, sizeof(err)))
		return log_errno(-EINVAL, "--arbitration '%s': %s", c->o->arbitration, err);
	if ((c->sc.n_arb_files || c->sc.arb_port[0]) && (ret = coord_load_arb(c)))
		return ret;
	if (c->have_cfg && c->sc.model_set &&
	    (c->sc.model == ARB_MODEL_ETS) != (c->cfg.kind == ARB_KIND_ETS))
		return log_errno(-EINVAL, "%s: model %s does not fit %s", c->sc.name,
				 arb_model_name(c->sc.model), c->arb_name);
	if (c->o->token_file &&
	    token_read(c->o->token_file, c->token, sizeof(c->token), err, sizeof(err)))
		return log_errno(-EINVAL, "%s", err);
	return 0;
}

void coord_release(struct coord *c)
{
	size_t i, k;

	coord_agents_free(c);
	for (i = 0; i < c->n_steps; i++) {
		for (k = 0; k < c->steps[i].n_classes; k++)
			hist_free(c->steps[i].classes[k].lat_ns);
		for (k = 0; k < c->steps[i].n_flows; k++)
			hist_free(c->steps[i].flows[k].rtt);
	}
	free(c->steps);
}

/* How many of @sc's flows are bw flows. */
static unsigned coord_n_bw(const struct scenario *sc)
{
	unsigned n = 0;
	size_t i;

	for (i = 0; i < sc->n_flows; i++)
		n += sc->flows[i].type == SCENARIO_FLOW_BW;
	return n;
}

int coord_run(struct coord *c, const struct coord_events *ev)
{
	unsigned n_bw = coord_n_bw(&c->sc), k;
	const struct scenario_flow *f;
	size_t i;
	int ret;

	c->steps = calloc(c->sc.n_flows + n_bw + 1, sizeof(*c->steps));
	if (!c->steps)
		return log_errno(-ENOMEM, "out of memory");
	ev->start(ev->arg, c);
	ret = coord_connect_agents(c);
	for (i = 0; !ret && i < c->sc.n_flows; i++) {
		f = &c->sc.flows[i];
		if (c->baseline == SCENARIO_BASELINE_NONE ||
		    (f->type == SCENARIO_FLOW_BW && c->baseline != SCENARIO_BASELINE_ALL))
			continue;
		log_info("baseline: flow %s alone", f->name);
		ret = coord_run_step(c, 0, true, i);
		ev->step(ev->arg, c, c->n_steps - 1);
	}
	for (k = c->o->sweep ? 0 : n_bw; !ret && k <= n_bw; k++) {
		log_info("step: %u bandwidth flow%s", k, k == 1 ? "" : "s");
		ret = coord_run_step(c, k, false, 0);
		ev->step(ev->arg, c, c->n_steps - 1);
	}
	coord_hangup(c, ret != 0);
	if (ret && !c->error[0])
		snprintf(c->error, sizeof(c->error), "%s", strerror(-ret));
	ev->end(ev->arg, c);
	return ret;
}
