/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The shared token's file (ctl.h): read only when it is its owner's alone
 * and owned by the user who reads it, as ssh does with keys, and only
 * when it is hard enough to guess: an unauthenticated peer gets an HMAC
 * under it (the challenge), which it can test guesses against offline.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wire/ctl.h"
#include "base/errbuf.h"

double ctl_token_bits(const char *t)
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

int ctl_token_read(const char *path, char *token, size_t len, char *err, size_t errlen)
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
				  "%u): give it to the user the agent or converge runs as ('chown "
				  "%u %s')", path, (unsigned)sb.st_uid, (unsigned)geteuid(),
				  (unsigned)geteuid(), path);
	}
	if (!fgets(token, (int)len, f))
		token[0] = '\0';
	if (!in)
		fclose(f);
	n = strcspn(token, "\r\n");
	token[n] = '\0';
	if (n < 16 || n >= CTL_MAX_TOKEN_BYTES - 1)
		return errbuf_set(err, errlen, -EINVAL,
				  "'%s': the token must be one line of 16 to %d characters", path,
				  CTL_MAX_TOKEN_BYTES - 2);
	bits = ctl_token_bits(token);
	if (bits < CTL_TOKEN_MIN_BITS)
		return errbuf_set(err, errlen, -EINVAL, "'%s': the token is too easy to guess "
				  "(about %.0f bits, at least %d wanted): make one with 'rperf agent "
				  "--new-token FILE'", path, bits, CTL_TOKEN_MIN_BITS);
	return 0;
}

