/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The reader of lldpd's `lldpcli -f json show neighbors`: one chassis's
 * neighbors, interface by interface,
 *
 *   {"lldp": {"interface": {"eth0": {"chassis": {"sw1": {...}},
 *                                    "port": {"id": {...}, "descr": "eth1"}}}}}
 *
 * ("interface" is an array of such objects when there are several, and
 * a chassis without a system name is {"id": ...} itself). The file names
 * its own chassis when it also holds `lldpcli -f json show chassis`
 * ({"local-chassis": {"chassis": {"h1": {...}}}}), or the caller gives
 * the name (HOST=FILE). A chassis is a switch when it says Bridge, or
 * Router without Station. Several files, one per chassis, make the
 * fabric; a link seen from both ends is kept once.
 */
#include <errno.h>
#include <string.h>
#include <jansson.h>

#include "base/jsonfile.h"
#include "fabric/topo_int.h"

/* The chassis of a "chassis" object: its one named member, or the
 * object itself when it is unnamed ({"id": ...}); *name its name. */
static const json_t *lldp_chassis(const json_t *c, const char **name)
{
	const json_t *id = json_object_get(c, "id");
	const char *key;
	json_t *v;

	*name = NULL;
	if (json_is_object(id)) {
		*name = json_string_value(json_object_get(id, "value"));
		return c;
	}
	if (!json_is_object(c) || json_object_size(c) != 1)
		return NULL;
	json_object_foreach((json_t *)c, key, v) {
		*name = key;
		return json_is_object(v) ? v : NULL;
	}
	return NULL;
}

/* Whether capability @type is enabled (one object or an array of them). */
static bool lldp_cap(const json_t *chassis, const char *type)
{
	const json_t *caps = json_object_get(chassis, "capability"), *c;
	size_t i, n = json_is_array(caps) ? json_array_size(caps) : 1;

	for (i = 0; i < n; i++) {
		c = json_is_array(caps) ? json_array_get(caps, i) : caps;
		if (json_is_object(c) && json_is_true(json_object_get(c, "enabled")) &&
		    json_is_string(json_object_get(c, "type")) &&
		    !strcmp(json_string_value(json_object_get(c, "type")), type))
			return true;
	}
	return false;
}

static bool lldp_is_switch(const json_t *chassis)
{
	return lldp_cap(chassis, "Bridge") ||
	       (lldp_cap(chassis, "Router") && !lldp_cap(chassis, "Station"));
}

/* The remote port's name: its id when that is an ifname, else its
 * description, else its id whatever its type. */
static const char *lldp_port(const json_t *port)
{
	const json_t *id = json_object_get(port, "id");
	const char *type = json_string_value(json_object_get(id, "type"));
	const char *value = json_string_value(json_object_get(id, "value"));
	const char *descr = json_string_value(json_object_get(port, "descr"));

	if (type && value && !strcmp(type, "ifname"))
		return value;
	return descr ? descr : value;
}

/* One interface {"IF": {"chassis": ..., "port": ...}} of chassis @local. */
static int lldp_iface(struct topo_src *s, int line, int local, const json_t *obj)
{
	const char *ifname, *rname, *rport;
	const json_t *chassis;
	json_t *v;
	int r, rc;

	if (!json_is_object(obj) || json_object_size(obj) == 0)
		return topo_src_error(s, line, "an interface is not an object");
	json_object_foreach((json_t *)obj, ifname, v) {
		if (!json_is_object(v))
			return topo_src_error(s, line, "interface '%.32s' is not an object", ifname);
		chassis = lldp_chassis(json_object_get(v, "chassis"), &rname);
		rport = lldp_port(json_object_get(v, "port"));
		if (!chassis || !rname || !rport)
			return topo_src_error(s, line, "interface '%.32s': no neighbor chassis name "
					      "or port", ifname);
		r = topo_src_node(s, line, rname, lldp_is_switch(chassis));
		if (r < 0)
			return r;
		rc = topo_src_link(s, line, local, ifname, r, rport, true);
		if (rc)
			return rc;
	}
	return 0;
}

/* The neighbors {"lldp": {"interface": ...}} of chassis @local. */
static int lldp_neighbors(struct topo_src *s, int line, int local, const json_t *lldp)
{
	const json_t *ifs;
	size_t i;
	int rc;

	if (!json_is_object(lldp))
		return topo_src_error(s, line, "\"lldp\" is not an object (want lldpcli -f json)");
	ifs = json_object_get(lldp, "interface");
	if (!ifs)
		return 0;	/* no neighbor */
	if (!json_is_array(ifs))
		return lldp_iface(s, line, local, ifs);
	for (i = 0; i < json_array_size(ifs); i++) {
		rc = lldp_iface(s, line, local, json_array_get(ifs, i));
		if (rc)
			return rc;
	}
	return 0;
}

/* The JSON values of @text, in turn: what each one is. */
struct lldp_doc {
	json_t *neighbors, *chassis;
	int neighbors_line;
};

static int lldp_take(struct topo_src *s, int line, json_t *v, struct lldp_doc *d)
{
	json_t *n = json_object_get(v, "lldp"), *c = json_object_get(v, "local-chassis");

	if (n && !d->neighbors) {
		d->neighbors = json_incref(n);
		d->neighbors_line = line;
		return 0;
	}
	if (c && !d->chassis) {
		d->chassis = json_incref(json_object_get(c, "chassis"));
		return d->chassis ? 0 : topo_src_error(s, line, "\"local-chassis\" has no chassis");
	}
	return topo_src_error(s, line, n || c ? "a second %s output" :
			      "not lldpcli -f json output (%s)",
			      n ? "neighbors" : c ? "chassis" : "want lldp or local-chassis");
}

/* jsonfile_each()'s callback. */
struct lldp_each {
	struct topo_src *s;
	struct lldp_doc *d;
};

static int lldp_one(void *ctx, int line, json_t *v)
{
	struct lldp_each *c = ctx;

	if (!json_is_object(v))
		return topo_src_error(c->s, line, "not lldpcli -f json output (not an object)");
	return lldp_take(c->s, line, v, c->d);
}

/* Split @text into its JSON values. */
static int lldp_split(struct topo_src *s, const char *text, struct lldp_doc *d)
{
	struct lldp_each c = { s, d };
	json_error_t e;
	int bad_line = 0, rc;

	rc = jsonfile_each(text, lldp_one, &c, &bad_line, &e);
	if (rc == -EINVAL && bad_line)
		return topo_src_error(s, bad_line, "bad JSON: %s", e.text);
	return rc;
}

/* The local chassis: @host, or the one "show chassis" names. */
static int lldp_local(struct topo_src *s, const struct lldp_doc *d, const char *host)
{
	const json_t *c = NULL;
	const char *name = NULL;

	if (d->chassis) {
		c = lldp_chassis(d->chassis, &name);
		if (!c || !name)
			return topo_src_error(s, 0, "the local chassis has no name");
		if (host && strcmp(host, name))
			return topo_src_error(s, 0, "given as '%s', but the file's chassis is '%s'",
					      host, name);
	}
	if (!name && !host)
		return topo_src_error(s, 0, "names no local chassis: give it as HOST=FILE, or add "
				      "`lldpcli -f json show chassis` to the file");
	return topo_src_node(s, 0, host ? host : name, c && lldp_is_switch(c));
}

int topo_lldp_parse(struct topo_src *s, const char *text, const char *host)
{
	struct lldp_doc d = { 0 };
	int rc, local;

	rc = lldp_split(s, text, &d);
	if (!rc && !d.neighbors)
		rc = topo_src_error(s, 0, "no `lldpcli -f json show neighbors` output");
	if (!rc) {
		local = lldp_local(s, &d, host);
		rc = local < 0 ? local : lldp_neighbors(s, d.neighbors_line, local, d.neighbors);
	}
	json_decref(d.neighbors);
	json_decref(d.chassis);
	return rc;
}
