/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The arbitration loader shared by analyze and converge (see
 * arb_source.h): files through the qosconf readers, a live port through
 * the rdma layer's SMP reads, and the one conversion from what a port
 * holds to an arb_config. What a port holds is read as smpquery prints
 * it: the tables up to the port's caps, its VLHighLimit, its SL2VL row
 * and its operational VLs; the analysis of a live port and of its text
 * captures are the same.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/units.h"
#include "qos/arb_source.h"
#include "qos/arb.h"
#include "qos/qosconf.h"
#include "rdma/mad.h"

#define SOURCE_MAX_LID		0xbfff	/* the top unicast LID */
#define SOURCE_MAX_PORT		254
#define SOURCE_MAX_HOPS		63	/* a directed route's longest path */

/* PortInfo's VLCap / OperVLs codes -> data VLs, as qosconf_port counts them. */
static int source_vls(int code)
{
	static const int vls[] = { 0, 1, 2, 4, 8, 15 };

	return code > 0 && code < (int)(sizeof(vls) / sizeof(vls[0])) ? vls[code] : 0;
}

/* "0,1,3": hops 0-255, the first 0 (the local node), at most 63 more. */
static bool source_dr_path_ok(const char *s)
{
	char buf[ARB_SOURCE_PORT_MAX], *tok, *save;
	int hops = 0;
	uint64_t v;

	if (strlen(s) >= sizeof(buf) || s[0] != '0' || (s[1] && s[1] != ','))
		return false;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), hops++)
		if (units_parse_u64(tok, 0, 255, &v) || hops > SOURCE_MAX_HOPS)
			return false;
	return s[strlen(s) - 1] != ',' && !strstr(s, ",,");
}

/*
 * "LID:PORT" or "PATH:PORT" -> @a; a path has commas or is "0" (LID 0
 * is no port's address). @path holds the route @a points into.
 */
static int source_port_addr(const char *what, const char *value, char *path, size_t pathlen,
			    struct mad_port_addr *a, char *err, size_t errlen)
{
	const char *colon = value ? strrchr(value, ':') : NULL;
	uint64_t lid, port;

	memset(a, 0, sizeof(*a));
	if (!colon || colon == value || (size_t)(colon - value) >= pathlen ||
	    units_parse_u64(colon + 1, 0, SOURCE_MAX_PORT, &port))
		return errbuf_set(err, errlen, -EINVAL, "%s '%s': expected LID:PORT, or a "
				  "directed route and a port such as 0,1,3:2 (port 0-%d)",
				  what, value ? value : "", SOURCE_MAX_PORT);
	snprintf(path, pathlen, "%.*s", (int)(colon - value), value);
	a->port_num = (int)port;
	if (strchr(path, ',') || !strcmp(path, "0")) {
		if (!source_dr_path_ok(path))
			return errbuf_set(err, errlen, -EINVAL, "%s '%s': bad directed route "
					  "'%s' (hops 0-255 separated by commas, from 0, the "
					  "local node)", what, value, path);
		a->dr_path = path;
		return 0;
	}
	if (units_parse_u64(path, 1, SOURCE_MAX_LID, &lid))
		return errbuf_set(err, errlen, -EINVAL, "%s '%s': LID '%s' is not a unicast "
				  "LID (1-%d)", what, value, path, SOURCE_MAX_LID);
	a->lid = (int)lid;
	return 0;
}

int arb_source_port_check(const char *what, const char *value, char *err, size_t errlen)
{
	struct mad_port_addr a;
	char path[ARB_SOURCE_PORT_MAX];

	return source_port_addr(what, value, path, sizeof(path), &a, err, errlen);
}

/* "NAME[:PORT]" -> @name and *port (0: the device's first active port). */
static int source_ca(const char *what, const char *value, char *name, size_t namelen, int *port, char *err,
		     size_t errlen)
{
	const char *colon = strchr(value, ':');
	uint64_t p = 0;

	if (!*value || colon == value || (size_t)(colon ? colon - value : (long)strlen(value)) >= namelen ||
	    (colon && units_parse_u64(colon + 1, 1, SOURCE_MAX_PORT, &p)))
		return errbuf_set(err, errlen, -EINVAL, "%s '%s': expected a device name and "
				  "optionally its port, such as mlx5_0:1", what, value);
	snprintf(name, namelen, "%.*s", colon ? (int)(colon - value) : (int)strlen(value), value);
	*port = (int)p;
	return 0;
}

/* Read the port named by @src over MADs. */
static int source_read_port(const struct arb_source *src, const struct qosconf_opts *opts,
			    struct mad_port_tables *t, struct arb_source_info *info, char *err,
			    size_t errlen)
{
	char path[ARB_SOURCE_PORT_MAX], ca[64], why[256];
	struct mad_port_addr a;
	int ca_port = 0, rc;

	rc = source_port_addr("port", src->port, path, sizeof(path), &a, err, errlen);
	if (!rc && src->ca)
		rc = source_ca("device", src->ca, ca, sizeof(ca), &ca_port, err, errlen);
	if (rc)
		return rc;
	a.in_port = opts->in_port > 0 ? opts->in_port : 0;
	if (a.lid)
		snprintf(info->port_name, sizeof(info->port_name), "lid %d port %d", a.lid,
			 a.port_num);
	else
		snprintf(info->port_name, sizeof(info->port_name), "directed route %s port %d",
			 a.dr_path, a.port_num);
	rc = mad_read_port_tables(src->ca ? ca : NULL, ca_port, &a, t, why, sizeof(why));
	info->fabric_error = rc != 0;
	if (rc)
		return errbuf_set(err, errlen, rc, "%s: %s", info->port_name, why);
	if (t->base_port0 || (!t->high_cap && !t->low_cap))
		return errbuf_set(err, errlen, -EINVAL, "%s has no VL arbitration tables "
				  "(%s): OpenSM programs none there; read an external port or an "
				  "enhanced port 0", info->port_name, t->base_port0 ?
				  "a switch's base port 0, without enhanced port 0" :
				  "VLArbHighCap and VLArbLowCap are 0");
	return 0;
}

void arb_source_live_config(const struct mad_port_tables *t, struct arb_config *cfg)
{
	int i;

	arb_config_init(cfg, ARB_KIND_VLARB);
	cfg->high.cap = t->high_cap;
	cfg->low.cap = t->low_cap;
	for (i = 0; i < t->high_cap && i < MAD_VLARB_ENTRIES; i++)
		cfg->high.entries[cfg->high.n_entries++] =
			(struct arb_entry){ .vl = t->high[i].vl, .weight = t->high[i].weight };
	for (i = 0; i < t->low_cap && i < MAD_VLARB_ENTRIES; i++)
		cfg->low.entries[cfg->low.n_entries++] =
			(struct arb_entry){ .vl = t->low[i].vl, .weight = t->low[i].weight };
	cfg->limit = t->vl_high_limit;
	cfg->limit_known = true;
	memcpy(cfg->sl2vl, t->sl2vl, sizeof(cfg->sl2vl));
	cfg->sl2vl_explicit = true;
	cfg->oper_vls = source_vls(t->oper_vls);
}

/* The limits OpenSM programs the port within, and its key set. */
static void source_live_port(const struct mad_port_tables *t, const struct arb_source *src,
			     struct qosconf_opts *opts, struct qosconf_port *port)
{
	*port = (struct qosconf_port){
		.known = true,
		.lid = t->lid,
		.port_num = t->port_num,
		.vl_cap = source_vls(t->vl_cap),
		.oper_vls = source_vls(t->oper_vls),
		.high_cap = t->high_cap,
		.low_cap = t->low_cap,
		.vl_high_limit = t->vl_high_limit,
	};
	opts->port = port;
	if (!src->node_type_given)
		opts->node_type = !t->is_switch ? QOSCONF_NODE_CA :
				  t->port_num ? QOSCONF_NODE_SWE : QOSCONF_NODE_SW0;
}

/* Read the files into @texts (NULL-initialised; the caller frees them);
 * with a live port, opensm.conf only. */
static int source_read_files(const struct arb_source *src, const struct qosconf_opts *opts,
			     char **texts, char *err, size_t errlen)
{
	enum qosconf_format f;
	int i, rc = 0;

	if (src->n_files > ARB_SOURCE_MAX_FILES)
		return errbuf_set(err, errlen, -EINVAL, "at most %d input files",
				  ARB_SOURCE_MAX_FILES);
	for (i = 0; i < src->n_files && !rc; i++) {
		rc = qosconf_read_file(src->files[i], &texts[i], err, errlen);
		if (rc)
			break;
		f = opts->format != QOSCONF_FORMAT_AUTO ? opts->format : qosconf_detect(texts[i]);
		if (src->port && f != QOSCONF_FORMAT_OPENSM)
			rc = errbuf_set(err, errlen, -EINVAL, "'%s': with a live port, give an "
					"opensm.conf (the port's own tables are read from it), "
					"not %s input", src->files[i], f == QOSCONF_FORMAT_AUTO ?
					"unrecognised" : qosconf_format_name(f));
	}
	return rc;
}

int arb_source_load(const struct arb_source *src, const struct qosconf_opts *opts,
		    struct arb_config *cfg, struct arb_source_info *info, char *err,
		    size_t errlen)
{
	struct qosconf_source in[ARB_SOURCE_MAX_FILES];
	char *texts[ARB_SOURCE_MAX_FILES] = { NULL };
	struct qosconf_opts with_port = *opts;
	struct mad_port_tables *t = NULL;
	struct qosconf_port port;
	int i, rc;

	memset(info, 0, sizeof(*info));
	info->node_type = opts->node_type;
	if (!src->port && !src->n_files)
		return errbuf_set(err, errlen, -EINVAL, "no input: give files or a live port");
	rc = source_read_files(src, opts, texts, err, errlen);
	if (!rc && src->port && !(t = malloc(sizeof(*t))))
		rc = errbuf_set(err, errlen, -ENOMEM, "out of memory");
	if (!rc && src->port)
		rc = source_read_port(src, opts, t, info, err, errlen);
	if (!rc && src->port && !src->n_files) {
		arb_source_live_config(t, cfg);
		info->format = QOSCONF_FORMAT_SMPQUERY;
		info->live = true;
	} else if (!rc) {
		if (src->port) {
			source_live_port(t, src, &with_port, &port);
			info->node_type = with_port.node_type;
		}
		for (i = 0; i < src->n_files; i++)
			in[i] = (struct qosconf_source){ .name = src->files[i], .text = texts[i] };
		rc = qosconf_parse(in, src->n_files, &with_port, cfg, &info->format, err, errlen);
	}
	for (i = 0; i < src->n_files && i < ARB_SOURCE_MAX_FILES; i++)
		free(texts[i]);
	free(t);
	return rc;
}
