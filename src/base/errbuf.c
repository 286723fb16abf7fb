/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* See errbuf.h: the message goes with the error code. */
#include <stdarg.h>
#include <stdio.h>

#include "base/errbuf.h"

int errbuf_set(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return ret;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}
