/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The shared token (token.h): its file read only when it is its owner's
 * alone and owned by the user who reads it, as ssh does with keys, and
 * only when it is hard enough to guess: an unauthenticated peer gets an
 * HMAC under it (the challenge), which it can test guesses against
 * offline. Then the keys and proofs made of it, all OpenSSL's.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>

#include "base/errbuf.h"
#include "base/token.h"

double token_bits(const char *t)
{
	size_t n = strlen(t), count[256] = { 0 }, i;
	bool digit = false, lower = false, upper = false, other = false;
	double alphabet, h = 0, p;

	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t[i];

		count[c]++;
		digit |= isdigit(c) != 0;
		lower |= islower(c) != 0;
		upper |= isupper(c) != 0;
		other |= !isalnum(c);
	}
	if (strspn(t, "0123456789abcdef") == n || strspn(t, "0123456789ABCDEF") == n)
		alphabet = 16;
	else
		alphabet = 10 * digit + 26 * lower + 26 * upper + 33 * other;
	for (i = 0; i < 256; i++) {
		if (!count[i])
			continue;
		p = (double)count[i] / (double)n;
		h -= p * log2(p);
	}
	/* Per character: what its classes allow, at most its spread plus up to 1.5
	 * (32 random hex characters pass; one character repeated has none). */
	return (double)n * fmin(log2(alphabet), h + fmin(1.5, h / 2));
}

int token_read(const char *path, char *token, size_t len, char *err, size_t errlen)
{
	bool in = !strcmp(path, "-");
	FILE *f = in ? stdin : fopen(path, "r");
	struct stat sb;
	double bits;
	size_t n;

	if (!f)
		return errbuf_set(err, errlen, -errno, "'%s': %s", path, strerror(errno));
	/* As ssh with keys: a token others can read (or change) is no secret. */
	if (!in && !fstat(fileno(f), &sb) && S_ISREG(sb.st_mode) &&
	    (sb.st_mode & (S_IRWXG | S_IRWXO))) {
		fclose(f);
		return errbuf_set(err, errlen, -EPERM, "'%s': group or others have access to it (mode "
				  "%04o): make it the owner's alone with 'chmod 600 %s'", path,
				  (unsigned)(sb.st_mode & 07777), path);
	}
	/* Nor one another user owns: they could change it, or read it where we cannot see. */
	if (!in && !fstat(fileno(f), &sb) && S_ISREG(sb.st_mode) && sb.st_uid != geteuid()) {
		fclose(f);
		return errbuf_set(err, errlen, -EPERM, "'%s': owned by uid %u, not by this user (uid "
				  "%u): give it to the user rperf runs as ('chown "
				  "%u %s')", path, (unsigned)sb.st_uid, (unsigned)geteuid(),
				  (unsigned)geteuid(), path);
	}
	if (!fgets(token, (int)len, f))
		token[0] = '\0';
	if (!in)
		fclose(f);
	n = strcspn(token, "\r\n");
	token[n] = '\0';
	if (n < 16 || n >= TOKEN_MAX_BYTES - 1)
		return errbuf_set(err, errlen, -EINVAL,
				  "'%s': the token must be one line of 16 to %d characters", path,
				  TOKEN_MAX_BYTES - 2);
	bits = token_bits(token);
	if (bits < TOKEN_MIN_BITS)
		return errbuf_set(err, errlen, -EINVAL, "'%s': the token is too easy to guess "
				  "(about %.0f bits, at least %d wanted): make one with 'rperf agent "
				  "--new-token FILE'", path, bits, TOKEN_MIN_BITS);
	return 0;
}


/* ------------------------------------------------------------------ */
/* Keys and proofs                                                     */
/* ------------------------------------------------------------------ */

bool token_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char d = la != lb;

	for (i = 0; i < la; i++)
		d |= (unsigned char)a[i] ^ (unsigned char)b[i < lb ? i : 0];
	return !d;
}

void token_hex(const unsigned char *b, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	out[2 * n] = '\0';
}

int token_hkdf(const void *key, size_t key_len, const void *salt, size_t salt_len,
	       const char *info, unsigned char *out, size_t out_len)
{
	EVP_PKEY_CTX *k = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
	size_t len = out_len;
	int ok;

	ok = k && EVP_PKEY_derive_init(k) > 0 && EVP_PKEY_CTX_set_hkdf_md(k, EVP_sha256()) > 0 &&
	     (!salt_len || EVP_PKEY_CTX_set1_hkdf_salt(k, salt, (int)salt_len) > 0) &&
	     EVP_PKEY_CTX_set1_hkdf_key(k, key, (int)key_len) > 0 &&
	     (!*info || EVP_PKEY_CTX_add1_hkdf_info(k, (const unsigned char *)info,
						    (int)strlen(info)) > 0) &&
	     EVP_PKEY_derive(k, out, &len) > 0 && len == out_len;
	EVP_PKEY_CTX_free(k);
	if (!ok)
		OPENSSL_cleanse(out, out_len);
	return ok ? 0 : -EIO;
}

int token_mac(const char *token, const char *label, const char *who, const char *mine,
	      const char *theirs, char out[TOKEN_MAC_HEX + 1])
{
	unsigned char key[TOKEN_KEY_BYTES], md[EVP_MAX_MD_SIZE];
	char msg[320], info[96];
	unsigned int len = 0;

	out[0] = '\0';
	snprintf(info, sizeof(info), "%s proof by %s", label, who);
	if (token_hkdf(token, strlen(token), "", 0, info, key, sizeof(key)))
		return -EIO;
	snprintf(msg, sizeof(msg), "%s %s %s", who, mine, theirs);
	if (HMAC(EVP_sha256(), key, sizeof(key), (const unsigned char *)msg, strlen(msg), md,
		 &len))
		token_hex(md, len < TOKEN_MAC_HEX / 2 ? len : TOKEN_MAC_HEX / 2, out);
	OPENSSL_cleanse(key, sizeof(key));
	return out[0] ? 0 : -EIO;
}

bool token_check(const char *token, const char *label, const char *who, const char *mine,
		 const char *theirs, const char *got)
{
	char mac[TOKEN_MAC_HEX + 1];

	return got && !token_mac(token, label, who, mine, theirs, mac) && token_equal(got, mac);
}
