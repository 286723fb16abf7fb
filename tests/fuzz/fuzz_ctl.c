/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libFuzzer target: control-protocol messages as an agent receives them.
 * The input is parsed twice: once as one message body (ctl_parse), and
 * once as a byte stream of frames read from a socket (ctl_recv), which
 * also covers the magic, the length field and its cap, plain and sealed
 * (MAC and sequence numbers). Whatever is
 * accepted must pass ctl_validate() again and have a type.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wire/ctl.h"
#include "fuzz.h"

#define FUZZ_CTL_TOKEN	"fuzz-token-0123456789"
#define FUZZ_CTL_NONCE	"0000000000000000000000000000000000000000000000000000000000000000"

static void check(json_t *msg)
{
	char err[256];

	if (ctl_validate(msg, err, sizeof(err)) || !*ctl_type(msg))
		abort();	/* accepted once, refused the second time */
	json_decref(msg);
}

static void parse_body(const uint8_t *data, size_t size)
{
	char err[256] = "";
	json_t *msg;
	int rc;

	rc = ctl_parse((const char *)data, size, &msg, err, sizeof(err));
	if (!rc)
		check(msg);
	else if (rc != -EPROTO || !err[0] || msg)
		abort();
}

/*
 * The input as a stream: every frame in it, until the stream ends. With
 * @sealed, as a session keyed by FUZZ_CTL_TOKEN and two all-zero nonces
 * expects it after the hello (the seeds' sealed.stream is such a session).
 */
static void parse_stream(const uint8_t *data, size_t size, bool sealed)
{
	char err[256];
	struct ctl_chan ch;
	json_t *msg;
	int sv[2], rc;

	if (size > 65536 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return;
	if (write(sv[0], data, size) != (ssize_t)size)
		abort();
	close(sv[0]);
	ctl_chan_init(&ch, sv[1], false);
	if (sealed && ctl_chan_key(&ch, FUZZ_CTL_TOKEN, FUZZ_CTL_NONCE, FUZZ_CTL_NONCE, err,
				   sizeof(err)))
		abort();
	do {
		err[0] = '\0';
		rc = ctl_recv(&ch, &msg, 1000, err, sizeof(err));
		if (!rc)
			check(msg);
		else if (!err[0] || msg)
			abort();
	} while (!rc);
	if (rc != -EPROTO && rc != -ECONNRESET && rc != -EBADMSG)
		abort();	/* a closed stream ends in EOF or a bad frame */
	close(sv[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	parse_body(data, size);
	parse_stream(data, size, false);
	parse_stream(data, size, true);
	return 0;
}
