/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The control protocol's secrets and proofs (ctl.h): a new token file,
 * tokens compared in constant time, a flow's secret made and read, the
 * nonces, the keys derived from the shared token (each role's proofs,
 * each direction's seals: a channel keyed), the HMAC each side proves it
 * with, and the coordinator's side of the hello, challenge and auth
 * exchange that ends in a keyed channel. Reading a token's file, HKDF and
 * HMAC are base/token.c's; the frames and their sealing are ctl.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>

#include "wire/ctl.h"
#include "base/errbuf.h"
#include "base/token.h"

int ctl_token_new(const char *path, char *err, size_t errlen)
{
	unsigned char b[CTL_NEW_TOKEN_BYTES];
	char line[2 * CTL_NEW_TOKEN_BYTES + 2];
	int fd, ret = 0;

	if (RAND_bytes(b, sizeof(b)) != 1)
		return errbuf_set(err, errlen, -EIO, "no random bytes for a token");
	token_hex(b, sizeof(b), line);
	OPENSSL_cleanse(b, sizeof(b));
	strcat(line, "\n");
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		ret = errbuf_set(err, errlen, -errno, "'%s': %s%s", path, strerror(errno),
				 errno == EEXIST ? " (a token file is never overwritten)" : "");
	else if (write(fd, line, strlen(line)) != (ssize_t)strlen(line) || fsync(fd))
		ret = errbuf_set(err, errlen, -EIO, "'%s': cannot write the token", path);
	OPENSSL_cleanse(line, sizeof(line));
	if (fd >= 0 && close(fd) && !ret)
		ret = errbuf_set(err, errlen, -errno, "'%s': %s", path, strerror(errno));
	if (ret && fd >= 0)
		unlink(path);
	return ret;
}

int ctl_secret_new(char out[CTL_SECRET_HEX + 1], char *err, size_t errlen)
{
	unsigned char b[CTL_SECRET_HEX / 2];

	if (RAND_bytes(b, sizeof(b)) != 1)
		return errbuf_set(err, errlen, -EIO, "no random bytes for a flow's secret");
	token_hex(b, sizeof(b), out);
	OPENSSL_cleanse(b, sizeof(b));
	return 0;
}

int ctl_secret_parse(const char *hex, unsigned char out[CTL_SECRET_HEX / 2])
{
	unsigned char *b;
	long n = 0;

	memset(out, 0, CTL_SECRET_HEX / 2);
	if (!hex || strlen(hex) != CTL_SECRET_HEX || !(b = OPENSSL_hexstr2buf(hex, &n)))
		return -EINVAL;
	if (n == CTL_SECRET_HEX / 2)
		memcpy(out, b, (size_t)n);
	OPENSSL_clear_free(b, (size_t)n);
	return n == CTL_SECRET_HEX / 2 ? 0 : -EINVAL;
}

int ctl_nonce(char out[CTL_NONCE_HEX + 1], char *err, size_t errlen)
{
	unsigned char b[CTL_NONCE_HEX / 2];

	if (RAND_bytes(b, sizeof(b)) != 1)
		return errbuf_set(err, errlen, -EIO, "no random bytes for a nonce");
	token_hex(b, sizeof(b), out);
	return 0;
}

int ctl_derive(const char *token, const char *salt, const char *what,
	       unsigned char out[CTL_KEY_BYTES])
{
	char info[64];

	snprintf(info, sizeof(info), "%s %s", CTL_KDF_LABEL, what);
	return token_hkdf(token, strlen(token), salt, strlen(salt), info, out, CTL_KEY_BYTES);
}

int ctl_auth_mac(const char *token, const char *who, const char *mine, const char *theirs,
		 char out[CTL_MAC_HEX + 1])
{
	return token_mac(token, CTL_KDF_LABEL, who, mine, theirs, out);
}

bool ctl_auth_check(const char *token, const char *who, const char *mine, const char *theirs,
		    const char *got)
{
	return token_check(token, CTL_KDF_LABEL, who, mine, theirs, got);
}

int ctl_chan_key(struct ctl_chan *c, const char *token, const char *coord_nonce,
		 const char *agent_nonce, char *err, size_t errlen)
{
	const char *to_agent = "seal coordinator->agent", *to_coord = "seal agent->coordinator";
	char salt[2 * CTL_NONCE_HEX + 1];

	snprintf(salt, sizeof(salt), "%s%s", coord_nonce, agent_nonce);
	if (ctl_derive(token, salt, c->coordinator ? to_agent : to_coord, c->key_out) ||
	    ctl_derive(token, salt, c->coordinator ? to_coord : to_agent, c->key_in)) {
		ctl_chan_forget(c);
		return errbuf_set(err, errlen, -EIO, "cannot derive the session's keys (HKDF)");
	}
	c->keyed = true;
	c->seq_out = c->seq_in = 0;
	return 0;
}

int ctl_hello_client(struct ctl_chan *c, const char *token, json_t **reply, int timeout_ms,
		     char *err, size_t errlen)
{
	char mine[CTL_NONCE_HEX + 1], theirs[CTL_NONCE_HEX + 1], mac[CTL_MAC_HEX + 1];
	json_t *m, *r;
	int ret;

	*reply = NULL;
	ret = ctl_nonce(mine, err, errlen);
	if (ret)
		return ret;
	m = ctl_msg("hello");
	json_object_set_new(m, "version", json_integer(CTL_VERSION));
	json_object_set_new(m, "nonce", json_string(mine));
	ret = ctl_send(c, m, timeout_ms, err, errlen);
	json_decref(m);
	if (!ret)
		ret = ctl_recv(c, &r, timeout_ms, err, errlen);
	if (ret)
		return ret;
	if (strcmp(ctl_type(r), "challenge")) {
		/*
		 * With a token, only a refusal may come unproven: anything else
		 * would let a peer that never held the token into the session.
		 */
		if (token && strcmp(ctl_type(r), "error")) {
			json_decref(r);
			return errbuf_set(err, errlen, -EACCES, "did not prove the token: it "
					  "answered without a challenge (not an rperf agent "
					  "started with this --token-file)");
		}
		*reply = r;
		return 0;
	}
	snprintf(theirs, sizeof(theirs), "%s", json_string_value(json_object_get(r, "nonce")));
	if (!token)
		ret = errbuf_set(err, errlen, -EACCES, "the agent asks for a token: give "
				 "converge the agent's --token-file");
	else if (!ctl_auth_check(token, "agent", theirs, mine,
				 json_string_value(json_object_get(r, "mac"))))
		ret = errbuf_set(err, errlen, -EACCES, "the agent does not hold our token (or "
				 "its proof is not an agent's)");
	json_decref(r);
	if (!ret && ctl_auth_mac(token, "coordinator", mine, theirs, mac))
		ret = errbuf_set(err, errlen, -EIO, "cannot make our proof (HMAC)");
	if (!ret) {
		m = ctl_msg("auth");
		json_object_set_new(m, "mac", json_string(mac));
		ret = ctl_send(c, m, timeout_ms, err, errlen);
		json_decref(m);
	}
	/* The agent's answer to our proof is the session's first sealed frame. */
	if (!ret)
		ret = ctl_chan_key(c, token, mine, theirs, err, errlen);
	return ret ? ret : ctl_recv(c, reply, timeout_ms, err, errlen);
}
