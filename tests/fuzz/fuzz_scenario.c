/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libFuzzer target: the scenario file reader (INI through inih, then the
 * validation of every key and of the flow plan). Relative arbitration
 * paths are only stored, never opened, so no file is read here.
 */
#include <errno.h>

#include "fuzz.h"
#include "coord/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct scenario sc;
	char err[512] = "";
	char *text;
	int rc;

	text = fuzz_text(data, size);
	if (!text)
		return 0;
	rc = scenario_parse("fuzz.ini", text, "/nonexistent", &sc, err, sizeof(err));
	if (rc && (rc != -EINVAL || !err[0]))
		abort();	/* every refusal says why, as -EINVAL */
	if (!rc && (sc.n_flows == 0 || sc.n_flows > SCENARIO_MAX_FLOWS))
		abort();
	free(text);
	return 0;
}
