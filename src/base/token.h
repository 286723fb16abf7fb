/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A shared token and the proofs made with it, the one implementation
 * every protocol that authenticates its peer uses: converge's control
 * protocol (wire/ctl.h) and rperf server's data port (rdma/conn.h). The
 * token file read only when it is its owner's alone and hard enough to
 * guess; HKDF and HMAC-SHA256 from OpenSSL; tokens and proofs compared in
 * constant time. Each protocol names its own label, so that a proof made
 * for one never passes in the other.
 */
#ifndef RPERF_BASE_TOKEN_H
#define RPERF_BASE_TOKEN_H

#include <stdbool.h>
#include <stddef.h>

#define TOKEN_MAX_BYTES		256
#define TOKEN_MIN_BITS		128
#define TOKEN_KEY_BYTES		32
#define TOKEN_MAC_HEX		64	/* HMAC-SHA256 as hex */

/*
 * Read a shared token file: its first line, at least 16 and at most
 * TOKEN_MAX_BYTES - 1 characters ("-": standard input's first line,
 * left open). A regular file that group or others may access, or that
 * another user owns, is refused (-EPERM, the reason saying how to mend
 * it); a token easier to guess than TOKEN_MIN_BITS (token_bits()) too
 * (-EINVAL, naming --new-token). 0 or -errno with the reason.
 */
int token_read(const char *path, char *token, size_t len, char *err, size_t errlen);
/*
 * An estimate of how many bits of guessing token @t takes: per character
 * the smaller of what its character classes allow (16 for hex; else 10
 * digits, 26 lower, 26 upper, 33 others, those it uses) and its own
 * characters' spread (Shannon H, plus min(1.5, H / 2)). `rperf agent
 * --new-token` makes 256; token_read() refuses one under TOKEN_MIN_BITS.
 * Pure.
 */
double token_bits(const char *t);
/* Compare two strings (tokens, proofs) in time independent of where they differ. */
bool token_equal(const char *a, const char *b);
/* @n bytes of @b as lowercase hex in @out (2 * @n + 1 bytes). */
void token_hex(const unsigned char *b, size_t n, char *out);
/*
 * HKDF-SHA256 (RFC 5869) of @key, with @salt (none when @salt_len is 0)
 * and @info, into @out_len bytes of @out. 0 or -EIO.
 */
int token_hkdf(const void *key, size_t key_len, const void *salt, size_t salt_len,
	       const char *info, unsigned char *out, size_t out_len);
/*
 * The proof that @who holds @token: HMAC-SHA256, under the key HKDF
 * makes of @token with the info "@label proof by @who" (no salt), over
 * "@who @mine @theirs" (its own nonce first, then the peer's). 0, or
 * -EIO (and @out empty).
 */
int token_mac(const char *token, const char *label, const char *who, const char *mine,
	      const char *theirs, char out[TOKEN_MAC_HEX + 1]);
/*
 * Whether @got (may be NULL) is token_mac()'s proof for the same
 * arguments, compared in constant time.
 */
bool token_check(const char *token, const char *label, const char *who, const char *mine,
		 const char *theirs, const char *got);

#endif
