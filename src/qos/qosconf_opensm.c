/*
 * The opensm.conf reader: the qos_* keys, OpenSM's defaults for those not
 * given, and the per-node-type key sets (qos_ca_, qos_swe_, ...) that
 * override the generic ones. Apart because OpenSM's rules are its own.
 */
#include <ctype.h>
#include <string.h>

#include "qos/qosconf_lex.h"
#include "qos/qosconf_readers.h"

/* OpenSM's built-in defaults (include/opensm/osm_base.h). */
#define OPENSM_DEFAULT_MAX_VLS		15
#define OPENSM_DEFAULT_HIGH_LIMIT	0
#define OPENSM_DEFAULT_VLARB_HIGH \
	"0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0"
#define OPENSM_DEFAULT_VLARB_LOW \
	"0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4"
#define OPENSM_DEFAULT_SL2VL		"0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7"

/* The key prefixes of the node types: qos_ca_, qos_swe_, ... */
static const char *const opensm_node_prefixes[] = {
	[QOSCONF_NODE_CA] = "ca",
	[QOSCONF_NODE_SWE] = "swe",
	[QOSCONF_NODE_SW0] = "sw0",
	[QOSCONF_NODE_SW2SW] = "sw2sw",
	[QOSCONF_NODE_RTR] = "rtr",
};

const char *qosconf_opensm_node_prefix(enum qosconf_node_type type)
{
	return opensm_node_prefixes[type];
}

/* ------------------------------------------------------------------ */
/* opensm.conf                                                         */
/* ------------------------------------------------------------------ */

/* "vl:weight,vl:weight,..." as OpenSM's qos_vlarb_* keys take it. */
static int opensm_vlarb(struct qosconf_parser *p, const char *key,
			const char *value, struct arb_table *t)
{
	char buf[1024], *tok, *save, *colon;
	long vl, weight;
	int err;

	if (strlen(value) >= sizeof(buf))
		return qosconf_lex_error(p, "%s: value too long", key);
	strcpy(buf, value);
	t->n_entries = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		colon = strchr(tok, ':');
		if (!colon)
			return qosconf_lex_error(p, "%s: entry '%s' is not VL:WEIGHT", key,
					qosconf_lex_skip_space(tok));
		*colon = '\0';
		err = qosconf_lex_number(p, "VL", tok, 0, ARB_VL15, &vl);
		if (!err)
			err = qosconf_lex_number(p, "weight", colon + 1, 0, ARB_MAX_WEIGHT,
					&weight);
		if (!err)
			err = qosconf_lex_table_add(p, t, key, vl, weight);
		if (err)
			return err;
	}
	return 0;
}

static int opensm_sl2vl(struct qosconf_parser *p, const char *key,
			const char *value, uint8_t *sl2vl)
{
	char lerr[256];
	int n;

	if (qosconf_lex_list(value, 0, ARB_VL15, ARB_NUM_SLS, sl2vl, &n, lerr,
			     sizeof(lerr)))
		return qosconf_lex_error(p, "%s: %s", key, lerr);
	if (n != ARB_NUM_SLS)
		return qosconf_lex_error(p, "%s: %d VLs given, expected %d", key, n,
				ARB_NUM_SLS);
	return 0;
}

/* Split "qos_<prefix>_<field>" into its set and field; NULL if unknown. */
static const char *opensm_key_field(const char *key, struct qosconf_opensm_set *sets,
				    struct qosconf_opensm_set **set)
{
	size_t len;
	int i;

	key += strlen("qos_");
	for (i = 0; i < QOSCONF_NODE_COUNT; i++) {
		len = strlen(opensm_node_prefixes[i]);
		if (!strncmp(key, opensm_node_prefixes[i], len) && key[len] == '_') {
			*set = &sets[i];
			return key + len + 1;
		}
	}
	*set = &sets[QOSCONF_NODE_COUNT];
	return key;
}

static int opensm_set_value(struct qosconf_parser *p, const char *key,
			    const char *field, const char *value,
			    struct qosconf_opensm_set *set)
{
	long v;
	int err;

	if (!strcmp(field, "max_vls")) {
		err = qosconf_lex_number(p, key, value, 0, ARB_VL15, &v);
		set->max_vls = v;
	} else if (!strcmp(field, "high_limit")) {
		err = qosconf_lex_number(p, key, value, -1, ARB_MAX_LIMIT, &v);
		set->high_limit = v;
	} else if (!strcmp(field, "vlarb_high")) {
		err = opensm_vlarb(p, key, value, &set->high);
		set->has_high = true;
	} else if (!strcmp(field, "vlarb_low")) {
		err = opensm_vlarb(p, key, value, &set->low);
		set->has_low = true;
	} else if (!strcmp(field, "sl2vl")) {
		err = opensm_sl2vl(p, key, value, set->sl2vl);
		set->has_sl2vl = true;
	} else {
		return qosconf_lex_error(p, "unknown key '%s'", key);
	}
	return err;
}

/* "word value": a key, then blanks. */
bool qosconf_opensm_detect(const char *s)
{
	size_t word = strcspn(s, " \t,");

	return isalpha((unsigned char)*s) && (s[word] == ' ' || s[word] == '\t');
}

/* Every set starts with its high limit unset. */
void qosconf_opensm_start(struct qosconf_parser *p)
{
	int i;

	for (i = 0; i <= QOSCONF_NODE_COUNT; i++)
		p->sets[i].high_limit = -1;
}

int qosconf_opensm_line(struct qosconf_parser *p, char *s)
{
	struct qosconf_opensm_set *set;
	const char *field;
	char *value;
	size_t klen = strcspn(s, " \t");

	value = qosconf_lex_skip_space(s + klen);
	s[klen] = '\0';
	if (strncmp(s, "qos_", 4))
		return 0;	/* "qos" itself and every other key */
	if (!strcmp(s, "qos_policy_file"))
		return 0;
	if (!*value)
		return qosconf_lex_error(p, "key '%s' has no value", s);
	field = opensm_key_field(s, p->sets, &set);
	if (!strcmp(value, "(null)")) {
		if (strcmp(field, "max_vls") && strcmp(field, "high_limit") &&
		    strcmp(field, "vlarb_high") && strcmp(field, "vlarb_low") &&
		    strcmp(field, "sl2vl"))
			return qosconf_lex_error(p, "unknown key '%s'", s);
		return 0;	/* written out by OpenSM for unset keys */
	}
	return opensm_set_value(p, s, field, value, set);
}

static void opensm_defaults(struct qosconf_parser *p, struct qosconf_opensm_set *def)
{
	int n;

	memset(def, 0, sizeof(*def));
	opensm_vlarb(p, "qos_vlarb_high", OPENSM_DEFAULT_VLARB_HIGH, &def->high);
	opensm_vlarb(p, "qos_vlarb_low", OPENSM_DEFAULT_VLARB_LOW, &def->low);
	qosconf_lex_list(OPENSM_DEFAULT_SL2VL, 0, ARB_VL15, ARB_NUM_SLS,
			   def->sl2vl, &n, NULL, 0);
}

int qosconf_opensm_finish(struct qosconf_parser *p)
{
	const struct qosconf_opensm_set *own = &p->sets[p->opts->node_type];
	const struct qosconf_opensm_set *generic = &p->sets[QOSCONF_NODE_COUNT];
	const struct qosconf_opensm_set *s;
	struct arb_config *cfg = p->cfg;
	struct qosconf_opensm_set def;

	opensm_defaults(p, &def);
	cfg->oper_vls = own->max_vls ? own->max_vls :
			generic->max_vls ? generic->max_vls : OPENSM_DEFAULT_MAX_VLS;
	cfg->limit = own->high_limit >= 0 ? own->high_limit :
		     generic->high_limit >= 0 ? generic->high_limit :
		     OPENSM_DEFAULT_HIGH_LIMIT;
	cfg->limit_known = true;
	/* A node type's key overrides the generic one, as in OpenSM. */
	s = own->has_high ? own : generic->has_high ? generic : &def;
	cfg->high = s->high;
	s = own->has_low ? own : generic->has_low ? generic : &def;
	cfg->low = s->low;
	s = own->has_sl2vl ? own : generic->has_sl2vl ? generic : &def;
	memcpy(cfg->sl2vl, s->sl2vl, sizeof(cfg->sl2vl));
	cfg->sl2vl_explicit = true;
	return 0;
}
