/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A main() for the fuzz targets without libFuzzer: run each file named on
 * the command line (or every file in a named directory) through
 * LLVMFuzzerTestOneInput once. `make check` links it with every target
 * and replays the seed corpus and the inputs that once crashed, so those
 * stay fixed under any compiler, and under the sanitizers in distcheck.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc((size_t)len + 1)) || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "replay: cannot read '%s'\n", path);
		if (f)
			fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	return 0;
}

static int replay_dir(const char *dir, int *n)
{
	struct dirent **names;
	char path[4096];
	int i, count, ret = 0;

	count = scandir(dir, &names, NULL, alphasort);
	if (count < 0) {
		fprintf(stderr, "replay: cannot list '%s'\n", dir);
		return -1;
	}
	for (i = 0; i < count; i++) {
		if (names[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
			ret |= replay_file(path);
			(*n)++;
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	struct stat st;
	int i, n = 0, ret = 0;

	for (i = 1; i < argc; i++) {
		if (!stat(argv[i], &st) && S_ISDIR(st.st_mode)) {
			ret |= replay_dir(argv[i], &n);
		} else {
			ret |= replay_file(argv[i]);
			n++;
		}
	}
	printf("%s: %d inputs replayed\n", argv[0], n);
	return ret ? 1 : 0;
}
