/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The control protocol: see ctl.h. Framing and socket I/O go through
 * conn's full-I/O helpers; what is here is the message schema and its
 * checks, which both sides run on everything they send and receive, and
 * the sealing of frames once a session has a key, in the one send and
 * the one receive every message passes, so that no caller can skip it.
 * The tokens, secrets, nonces, keys and the hello's proofs are ctl_auth.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "rdma/conn.h"
#include "wire/ctl.h"
#include "base/errbuf.h"
#include "base/hist.h"

/* ================================================================== */
/* Schema                                                              */
/* ================================================================== */

/* K_COUNTS: an array of at most max integers, each from 0 to I64. */
enum ctl_kind { K_INT, K_NUM, K_STR, K_BOOL, K_ARRAY, K_OBJ, K_HIST, K_COUNTS };

struct ctl_field {
	const char *name;
	enum ctl_kind kind;
	bool required;
	double min, max;		/* K_INT, K_NUM: range; K_STR: length */
	const char *choices;		/* K_STR: "a|b|c", or NULL */
	const struct ctl_field *item;	/* K_ARRAY of objects with these fields */
};

#define I64 9.2e18
#define FIELD_END { NULL, 0, false, 0, 0, NULL, NULL }

/* A setup's flow: these, then its settings, flow_spec_fields[] by wire name. */
static const struct ctl_field flow_fields[] = {
	{ "name", K_STR, true, 1, CTL_NAME_MAX - 1, NULL, NULL },
	{ "type", K_STR, true, 0, 0, "lat|bw", NULL },
	{ "dest", K_STR, true, 1, 255, NULL, NULL },	/* the host whose sink it goes to */
	{ "dest_port", K_INT, true, 1, 65535, NULL, NULL },	/* and that sink's port */
	/* SECRET: the flow's data-connection secret, fresh for each setup */
	{ "secret", K_STR, false, CTL_SECRET_HEX, CTL_SECRET_HEX, NULL, NULL },
	FIELD_END,
};

/* SECRET: a flow a sink admits (setup "expect"): its secret, from where, how many, how large. */
static const struct ctl_field expect_fields[] = {
	{ "secret", K_STR, true, CTL_SECRET_HEX, CTL_SECRET_HEX, NULL, NULL },
	{ "src", K_STR, true, 1, 63, NULL, NULL },	/* its source's address */
	{ "conns", K_INT, true, 1, FLOW_MAX_THREADS * FLOW_MAX_QPS, NULL, NULL },	/* threads x QPs */
	{ "size", K_INT, true, 1, (double)FLOW_MAX_MSG_BYTES, NULL, NULL },	/* its largest message */
	FIELD_END,
};

static const struct ctl_field conn_fields[] = {
	{ "flow", K_STR, true, 1, CTL_NAME_MAX - 1, NULL, NULL },
	{ "local", K_STR, true, 1, 127, NULL, NULL },
	FIELD_END,
};

static const struct ctl_field sink_fields[] = {
	{ "peer", K_STR, true, 1, 127, NULL, NULL },
	{ "sl", K_INT, true, 0, 15, NULL, NULL },
	{ "tclass", K_INT, true, 0, 255, NULL, NULL },
	{ "msgs", K_INT, true, 0, I64, NULL, NULL },
	{ "bytes", K_INT, true, 0, I64, NULL, NULL },
	{ "errors", K_INT, true, 0, I64, NULL, NULL },
	/* bytes in each interval of the window that ended (CTL_INTERVALS) */
	{ "intervals", K_COUNTS, true, 0, CTL_INTERVALS, NULL, NULL },
	FIELD_END,
};

static const struct ctl_field result_flow_fields[] = {
	{ "name", K_STR, true, 1, CTL_NAME_MAX - 1, NULL, NULL },
	{ "type", K_STR, true, 0, 0, "lat|bw", NULL },
	{ "samples", K_INT, true, 0, I64, NULL, NULL },
	{ "msgs", K_INT, true, 0, I64, NULL, NULL },
	{ "bytes", K_INT, true, 0, I64, NULL, NULL },
	{ "elapsed_ns", K_INT, false, 0, I64, NULL, NULL },	/* bw: its run */
	/* How long after the commanded instant its last worker began, on its agent's clock. */
	{ "start_late_ns", K_INT, false, 0, I64, NULL, NULL },
	/*
	 * A lat flow's RTTs: its histogram as measured, in its agent's ticks
	 * (hist_wire_pack), and their rate. Ticks, not ns: the histogram then
	 * crosses the wire exactly as recorded, and the coordinator, which
	 * knows each agent's clock against its own, converts once.
	 */
	{ "rtt", K_HIST, false, 0, 0, NULL, NULL },
	{ "ticks_per_ns", K_NUM, false, 1e-6, 1e6, NULL, NULL },
	{ "error", K_STR, false, 0, 1023, NULL, NULL },
	FIELD_END,
};

static const struct ctl_field hello_fields[] = {
	{ "version", K_INT, true, 1, 1000, NULL, NULL },
	{ "nonce", K_STR, false, CTL_NONCE_HEX, CTL_NONCE_HEX, NULL, NULL },	/* coordinator's */
	{ "host", K_STR, false, 1, 255, NULL, NULL },
	{ "now_ns", K_INT, false, 0, I64, NULL, NULL },
	FIELD_END,
};

static const struct ctl_field challenge_fields[] = {
	{ "nonce", K_STR, true, CTL_NONCE_HEX, CTL_NONCE_HEX, NULL, NULL },
	{ "mac", K_STR, true, CTL_MAC_HEX, CTL_MAC_HEX, NULL, NULL },
	FIELD_END,
};

static const struct ctl_field auth_fields[] = {
	{ "mac", K_STR, true, CTL_MAC_HEX, CTL_MAC_HEX, NULL, NULL },
	FIELD_END,
};

static const struct ctl_field time_fields[] = {
	{ "now_ns", K_INT, false, 0, I64, NULL, NULL },
	FIELD_END,
};

static const struct ctl_field setup_fields[] = {
	{ "sink", K_BOOL, true, 0, 0, NULL, NULL },	/* a destination of the step */
	{ "device", K_STR, false, 1, 63, NULL, NULL },
	{ "ib_port", K_INT, true, 1, 255, NULL, NULL },
	{ "gid_index", K_INT, true, -1, 255, NULL, NULL },
	{ "data_port", K_INT, true, 1, 65535, NULL, NULL },
	{ "clock", K_STR, true, 0, 0, "tsc|monotonic", NULL },
	{ "yield", K_BOOL, true, 0, 0, NULL, NULL },
	{ "qp_timeout", K_INT, true, 0, 31, NULL, NULL },
	{ "retry", K_INT, true, 0, 7, NULL, NULL },
	{ "flows", K_ARRAY, true, 0, CTL_MAX_FLOWS, NULL, flow_fields },
	/* SECRET: a sink admits these flows' data connections, nothing else */
	{ "expect", K_ARRAY, false, 0, CTL_MAX_FLOWS, NULL, expect_fields },
	FIELD_END,
};

static const struct ctl_field ready_fields[] = {
	{ "conns", K_ARRAY, true, 0, 4096, NULL, conn_fields },
	{ "environment", K_OBJ, false, 0, 0, NULL, NULL },	/* run_env_json() */
	FIELD_END,
};

static const struct ctl_field start_fields[] = {
	{ "at_ns", K_INT, true, 0, I64, NULL, NULL },
	{ "warmup_ms", K_INT, true, 0, 3600000, NULL, NULL },
	{ "duration_ms", K_INT, true, 1, 86400000, NULL, NULL },
	FIELD_END,
};

static const struct ctl_field result_fields[] = {
	{ "flows", K_ARRAY, true, 0, CTL_MAX_FLOWS, NULL, result_flow_fields },
	{ "sink", K_ARRAY, true, 0, 4096, NULL, sink_fields },
	{ "window_ns", K_INT, true, 0, I64, NULL, NULL },
	{ "retrans", K_INT, false, 0, I64, NULL, NULL },	/* a source's port, over the run */
	{ "refused", K_INT, false, 0, I64, NULL, NULL },	/* SECRET: a sink's refused data connections */
	FIELD_END,
};

static const struct ctl_field stop_fields[] = {
	{ "reason", K_STR, false, 0, 255, NULL, NULL },
	FIELD_END,
};

static const struct ctl_field error_fields[] = {
	{ "error", K_STR, true, 1, 1023, NULL, NULL },
	{ "flow", K_STR, false, 1, CTL_NAME_MAX - 1, NULL, NULL },
	FIELD_END,
};

static const struct {
	const char *type;
	const struct ctl_field *fields;
} ctl_types[] = {
	{ "hello", hello_fields }, { "challenge", challenge_fields }, { "auth", auth_fields },
	{ "time", time_fields }, { "setup", setup_fields },
	{ "ready", ready_fields }, { "start", start_fields }, { "result", result_fields },
	{ "stop", stop_fields }, { "error", error_fields },
};

static const char *kind_name(enum ctl_kind k)
{
	static const char *const names[] = { "an integer", "a number", "a string",
					     "true or false", "an array", "an object",
					     "a histogram", "an array of counts" };
	return names[k];
}

static bool choice_ok(const char *choices, const char *v)
{
	size_t n = strlen(v);
	const char *p = choices;

	while (p) {
		if (!strncmp(p, v, n) && (p[n] == '|' || !p[n]))
			return n > 0;
		p = strchr(p, '|');
		p = p ? p + 1 : NULL;
	}
	return false;
}

static bool kind_ok(enum ctl_kind k, const json_t *v)
{
	switch (k) {
	case K_INT: return json_is_integer(v);
	case K_NUM: return json_is_number(v);
	case K_STR: return json_is_string(v);
	case K_BOOL: return json_is_boolean(v);
	case K_ARRAY: return json_is_array(v);
	case K_OBJ: return json_is_object(v);
	case K_HIST: return json_is_object(v);
	case K_COUNTS: return json_is_array(v);
	}
	return false;
}

static int check_object(const json_t *o, const struct ctl_field *fields, bool spec,
			const char *where, char *err, size_t errlen);

/* Flow setting @f as a schema field: an integer within its limits. */
static struct ctl_field spec_field(const struct flow_spec_field *f)
{
	return (struct ctl_field){ .name = f->wire, .kind = K_INT, .required = f->wire_required,
				   .min = (double)f->min, .max = (double)f->max };
}

/* The flow setting sent as @key; NULL: none. */
static const struct flow_spec_field *spec_find(const char *key)
{
	size_t i;

	for (i = 0; i < flow_spec_n_fields; i++)
		if (!strcmp(flow_spec_fields[i].wire, key))
			return &flow_spec_fields[i];
	return NULL;
}

/* One field's value: its JSON type, then its range, choices or items. */
static int check_value(const struct ctl_field *f, const json_t *v, const char *where,
		       char *err, size_t errlen)
{
	char sub[256];
	double d;
	size_t i;

	if (!kind_ok(f->kind, v))
		return errbuf_set(err, errlen, -EPROTO, "%s: '%s' must be %s", where, f->name,
				  kind_name(f->kind));
	if (f->kind == K_INT || f->kind == K_NUM) {
		d = json_number_value(v);
		if (d < f->min || d > f->max)
			return errbuf_set(err, errlen, -EPROTO, "%s: '%s' out of range %g-%g",
					  where, f->name, f->min, f->max);
	} else if (f->kind == K_STR) {
		d = (double)json_string_length(v);
		if (f->choices && !choice_ok(f->choices, json_string_value(v)))
			return errbuf_set(err, errlen, -EPROTO, "%s: '%s' must be one of %s",
					  where, f->name, f->choices);
		if (!f->choices && (d < f->min || d > f->max ||
				    strlen(json_string_value(v)) != json_string_length(v)))
			return errbuf_set(err, errlen, -EPROTO, "%s: '%s' has a bad length",
					  where, f->name);
	} else if (f->kind == K_HIST) {
		if (hist_wire_unpack(v, NULL, sub, sizeof(sub)))
			return errbuf_set(err, errlen, -EPROTO, "%s: '%s': %s", where, f->name,
					  sub);
	} else if (f->kind == K_COUNTS) {
		if (json_array_size(v) > f->max)
			return errbuf_set(err, errlen, -EPROTO, "%s: '%s' has more than %g items",
					  where, f->name, f->max);
		for (i = 0; i < json_array_size(v); i++)
			if (!json_is_integer(json_array_get(v, i)) ||
			    json_integer_value(json_array_get(v, i)) < 0)
				return errbuf_set(err, errlen, -EPROTO, "%s: '%s'[%zu] must be "
						  "an integer from 0", where, f->name, i);
	} else if (f->kind == K_ARRAY && f->item) {
		if (json_array_size(v) > f->max)
			return errbuf_set(err, errlen, -EPROTO, "%s: '%s' has more than %g items",
					  where, f->name, f->max);
		for (i = 0; i < json_array_size(v); i++) {
			snprintf(sub, sizeof(sub), "%s.%s[%zu]", where, f->name, i);
			if (check_object(json_array_get(v, i), f->item, f->item == flow_fields,
					 sub, err, errlen))
				return -EPROTO;
		}
	}
	return 0;
}

/* Field @f of @o: there if required, and valid. */
static int check_field(const json_t *o, const struct ctl_field *f, const char *where, char *err,
		       size_t errlen)
{
	const json_t *v = json_object_get(o, f->name);

	if (!v && f->required)
		return errbuf_set(err, errlen, -EPROTO, "%s: '%s' is missing", where, f->name);
	if (v && check_value(f, v, where, err, errlen))
		return -EPROTO;
	return 0;
}

/* Every field known, every required field there, every value valid;
 * with @spec, a flow's settings (flow_spec_fields[]) are fields too. */
static int check_object(const json_t *o, const struct ctl_field *fields, bool spec,
			const char *where, char *err, size_t errlen)
{
	const struct ctl_field *f;
	struct ctl_field sf;
	const char *key;
	json_t *v;
	size_t i;

	if (!json_is_object(o))
		return errbuf_set(err, errlen, -EPROTO, "%s: not an object", where);
	json_object_foreach((json_t *)o, key, v) {
		for (f = fields; f->name && strcmp(f->name, key); f++)
			;
		if (!f->name && strcmp(key, "type") && !(spec && spec_find(key)))
			return errbuf_set(err, errlen, -EPROTO, "%s: unknown field '%s'", where, key);
	}
	for (f = fields; f->name; f++)
		if (check_field(o, f, where, err, errlen))
			return -EPROTO;
	for (i = 0; spec && i < flow_spec_n_fields; i++) {
		sf = spec_field(&flow_spec_fields[i]);
		if (check_field(o, &sf, where, err, errlen))
			return -EPROTO;
	}
	return 0;
}

void ctl_flow_spec_pack(json_t *o, const struct flow_spec *s)
{
	size_t i;

	for (i = 0; i < flow_spec_n_fields; i++)
		json_object_set_new(o, flow_spec_fields[i].wire,
				    json_integer((json_int_t)flow_spec_get(s, &flow_spec_fields[i])));
}

void ctl_flow_spec_unpack(const json_t *o, struct flow_spec *s)
{
	const struct flow_spec_field *f;
	const json_t *v;
	size_t i;

	flow_spec_defaults(s);
	for (i = 0; i < flow_spec_n_fields; i++) {
		f = &flow_spec_fields[i];
		v = json_object_get(o, f->wire);
		if (json_is_integer(v))
			flow_spec_put(s, f, (uint64_t)json_integer_value(v));
	}
}

const char *ctl_type(const json_t *msg)
{
	const char *t = json_string_value(json_object_get(msg, "type"));

	return t ? t : "";
}

json_t *ctl_msg(const char *type)
{
	json_t *m = json_object();

	json_object_set_new(m, "type", json_string(type));
	return m;
}

int ctl_validate(const json_t *msg, char *err, size_t errlen)
{
	const char *type = ctl_type(msg);
	size_t i;

	if (!json_is_object(msg))
		return errbuf_set(err, errlen, -EPROTO, "message is not a JSON object");
	for (i = 0; i < sizeof(ctl_types) / sizeof(ctl_types[0]); i++)
		if (!strcmp(ctl_types[i].type, type))
			return check_object(msg, ctl_types[i].fields, false, type, err, errlen);
	return errbuf_set(err, errlen, -EPROTO, "unknown message type '%s'", type);
}

int ctl_parse(const char *buf, size_t len, json_t **msg, char *err, size_t errlen)
{
	json_error_t je;
	json_t *m;

	*msg = NULL;
	if (len > CTL_MAX_MSG_BYTES)
		return errbuf_set(err, errlen, -EPROTO, "message of %zu bytes exceeds %u", len,
				  CTL_MAX_MSG_BYTES);
	m = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!m)
		return errbuf_set(err, errlen, -EPROTO, "bad JSON: %s", je.text);
	if (ctl_validate(m, err, errlen)) {
		json_decref(m);
		return -EPROTO;
	}
	*msg = m;
	return 0;
}

/* ================================================================== */
/* Frames                                                              */
/* ================================================================== */

static void put32be(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t get32be(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int io_error(int ret, const char *what, char *err, size_t errlen)
{
	return errbuf_set(err, errlen, ret, "%s: %s", what,
			  ret == -ECONNRESET ? "connection closed" :
			  ret == -ETIMEDOUT ? "timed out" : strerror(-ret));
}

void ctl_chan_init(struct ctl_chan *c, int fd, bool coordinator)
{
	char name[48];

	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->coordinator = coordinator;
	conn_peer_name(fd, name, sizeof(name));
	snprintf(c->peer, sizeof(c->peer), "%s %s", coordinator ? "agent" : "coordinator", name);
	ctl_keepalive(fd);
}

void ctl_keepalive(int fd)
{
	int one = 1, idle_s = CTL_KEEPIDLE_S, intvl_s = CTL_KEEPINTVL_S, cnt = CTL_KEEPCNT;
	unsigned int user_ms = CTL_USER_TIMEOUT_MS;

	/* Best effort: not a TCP socket (a test's socketpair) is left as it is. */
	if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)))
		return;
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle_s, sizeof(idle_s));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl_s, sizeof(intvl_s));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_ms, sizeof(user_ms));
}

void ctl_chan_forget(struct ctl_chan *c)
{
	OPENSSL_cleanse(c->key_out, sizeof(c->key_out));
	OPENSSL_cleanse(c->key_in, sizeof(c->key_in));
	c->keyed = false;
}

/*
 * A sealed frame is built and checked in one buffer laid out as
 *   label | magic | length | sequence | body | MAC
 * so that one HMAC covers label through body; the label never travels.
 */
#define CTL_LABEL_BYTES	18
#define CTL_HEAD_BYTES	(4 + 4)
#define CTL_SEAL_HEAD	(CTL_LABEL_BYTES + CTL_HEAD_BYTES + CTL_SEQ_BYTES)

static void ctl_label(const struct ctl_chan *c, bool out, uint8_t *buf)
{
	/* Both labels are CTL_LABEL_BYTES long. */
	memcpy(buf, c->coordinator == out ? "coordinator->agent" : "agent->coordinator",
	       CTL_LABEL_BYTES);
}

/* The MAC of @buf (label through body: @len body bytes), under @key, into @mac. */
static bool ctl_seal(const unsigned char *key, const uint8_t *buf, size_t len, uint8_t *mac)
{
	unsigned int n = CTL_SEAL_BYTES;

	if (HMAC(EVP_sha256(), key, CTL_KEY_BYTES, buf, CTL_SEAL_HEAD + len, mac, &n))
		return true;
	memset(mac, 0, CTL_SEAL_BYTES);	/* the peer refuses it */
	return false;
}

static void put64be(uint8_t *p, uint64_t v)
{
	put32be(p, (uint32_t)(v >> 32));
	put32be(p + 4, (uint32_t)v);
}

static uint64_t get64be(const uint8_t *p)
{
	return (uint64_t)get32be(p) << 32 | get32be(p + 4);
}

/* @body (@len bytes) as a frame: plain, or sealed with @c's next number. */
static uint8_t *ctl_frame(struct ctl_chan *c, const char *body, size_t len, size_t *off,
			  size_t *n)
{
	size_t pre = c->keyed ? CTL_SEAL_HEAD : CTL_HEAD_BYTES;
	uint8_t *buf = malloc(pre + len + CTL_SEAL_BYTES);

	if (!buf)
		return NULL;
	*off = c->keyed ? CTL_LABEL_BYTES : 0;
	put32be(buf + *off, c->keyed ? CTL_MAGIC_SEALED : CTL_MAGIC);
	put32be(buf + *off + 4, (uint32_t)len);
	memcpy(buf + pre, body, len);
	*n = pre - *off + len;
	if (c->keyed) {
		ctl_label(c, true, buf);
		put64be(buf + CTL_LABEL_BYTES + CTL_HEAD_BYTES, c->seq_out++);
		ctl_seal(c->key_out, buf, len, buf + pre + len);
		*n += CTL_SEAL_BYTES;
	}
	return buf;
}

int ctl_send(struct ctl_chan *c, const json_t *msg, int timeout_ms, char *err, size_t errlen)
{
	size_t len, off, n;
	uint8_t *frame;
	char *body;
	int ret;

	if (c->dropped)
		return errbuf_set(err, errlen, -EPIPE, "%s: the connection was dropped", c->peer);
	if (ctl_validate(msg, err, errlen))
		return -EPROTO;
	body = json_dumps(msg, JSON_COMPACT);
	if (!body)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	len = strlen(body);
	if (len > CTL_MAX_MSG_BYTES) {
		free(body);
		return errbuf_set(err, errlen, -EMSGSIZE, "'%s' message too large", ctl_type(msg));
	}
	frame = ctl_frame(c, body, len, &off, &n);
	free(body);
	if (!frame)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	ret = conn_write_full(c->fd, frame + off, n, timeout_ms);
	free(frame);
	return ret ? io_error(ret, "send", err, errlen) : 0;
}

/* A sealed frame failed: no more I/O on @c, the connection shut down. */
static int ctl_drop(struct ctl_chan *c, char *err, size_t errlen, const char *why,
		    uint64_t seq)
{
	c->dropped = true;
	shutdown(c->fd, SHUT_RDWR);
	return errbuf_set(err, errlen, -EBADMSG, "connection to %s dropped: frame %llu %s", c->peer,
			  (unsigned long long)seq, why);
}

/* Check a sealed frame in @buf (@len body bytes, read after the label). */
static int ctl_unseal(struct ctl_chan *c, uint8_t *buf, uint32_t len, char *err, size_t errlen)
{
	uint8_t mac[CTL_SEAL_BYTES];
	uint64_t seq = get64be(buf + CTL_LABEL_BYTES + CTL_HEAD_BYTES);
	char why[64];

	ctl_label(c, false, buf);
	if (!ctl_seal(c->key_in, buf, len, mac) ||
	    CRYPTO_memcmp(mac, buf + CTL_SEAL_HEAD + len, sizeof(mac)))
		return ctl_drop(c, err, errlen, "fails its MAC (tampered with, or not of this "
				"session and direction)", seq);
	if (seq != c->seq_in) {
		snprintf(why, sizeof(why), "out of sequence (expected %llu: replayed or reordered)",
			 (unsigned long long)c->seq_in);
		return ctl_drop(c, err, errlen, why, seq);
	}
	c->seq_in++;
	return 0;
}

/* The header's magic and length against what @c expects. 0 or -EPROTO. */
static int ctl_check_head(struct ctl_chan *c, const uint8_t *head, char *err, size_t errlen)
{
	uint32_t magic = get32be(head), len = get32be(head + 4);

	if (magic == CTL_MAGIC && c->keyed)
		return ctl_drop(c, err, errlen, "is not sealed in a sealed session", c->seq_in);
	if (magic == CTL_MAGIC_SEALED && !c->keyed)
		return errbuf_set(err, errlen, -EPROTO, "a sealed frame before any session key");
	if (magic != CTL_MAGIC && magic != CTL_MAGIC_SEALED)
		return errbuf_set(err, errlen, -EPROTO, "not an rperf control frame");
	if (len > CTL_MAX_MSG_BYTES)
		return errbuf_set(err, errlen, -EPROTO, "frame of %u bytes exceeds %u", len,
				  CTL_MAX_MSG_BYTES);
	return 0;
}

int ctl_recv(struct ctl_chan *c, json_t **msg, int timeout_ms, char *err, size_t errlen)
{
	uint64_t start_ns = ctl_now_ns();
	/* Sealed: room for the label before the header, number and MAC after. */
	size_t off = c->keyed ? CTL_LABEL_BYTES : 0;
	size_t extra = c->keyed ? CTL_SEQ_BYTES + CTL_SEAL_BYTES : 0;
	uint8_t head[CTL_HEAD_BYTES], *buf;
	uint32_t len;
	int ret, left_ms;

	*msg = NULL;
	if (c->dropped)
		return errbuf_set(err, errlen, -EPIPE, "%s: the connection was dropped", c->peer);
	ret = conn_read_full(c->fd, head, sizeof(head), timeout_ms);
	if (ret)
		return io_error(ret, "receive", err, errlen);
	ret = ctl_check_head(c, head, err, errlen);
	if (ret)
		return ret;
	len = get32be(head + 4);
	buf = malloc(off + sizeof(head) + extra + len);
	if (!buf)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	memcpy(buf + off, head, sizeof(head));
	/*
	 * One deadline for the whole frame: a peer trickling bytes gets no
	 * more. Past it, what the kernel already holds is still read (0: look
	 * once), so that our own stall is not charged to the peer.
	 */
	left_ms = timeout_ms - (int)((ctl_now_ns() - start_ns) / 1000000u);
	ret = conn_read_full(c->fd, buf + off + sizeof(head), extra + len,
			     left_ms > 0 ? left_ms : 0);
	if (ret)
		io_error(ret, "receive", err, errlen);
	else if (c->keyed)
		ret = ctl_unseal(c, buf, len, err, errlen);
	if (!ret)
		ret = ctl_parse((const char *)buf + off + sizeof(head) +
				(c->keyed ? CTL_SEQ_BYTES : 0), len, msg, err, errlen);
	free(buf);
	return ret;
}

void ctl_send_error(struct ctl_chan *c, const char *flow, const char *text, int timeout_ms)
{
	json_t *m = ctl_msg("error");
	char err[64], buf[1024];

	snprintf(buf, sizeof(buf), "%s", text && *text ? text : "unknown error");
	json_object_set_new(m, "error", json_string(buf));
	if (flow)
		json_object_set_new(m, "flow", json_string(flow));
	ctl_send(c, m, timeout_ms, err, sizeof(err));
	json_decref(m);
}

/* ================================================================== */
/* Sockets, time                                                       */
/* ================================================================== */

bool ctl_addr_is_loopback(const char *addr)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (!addr)
		return false;
	if (!strcmp(addr, "localhost"))
		return true;
	if (inet_pton(AF_INET, addr, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	return inet_pton(AF_INET6, addr, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}
uint64_t ctl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
