/*
 * libFuzzer target: the YAML config loader (lib/config.c) on any file, as
 * `ttd check` and `ttsim` meet it.  tt_config_load reads a path, so each
 * input goes to one temporary file first.  Errors are expected; memory
 * errors, leaks and crashes are not.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "twintorus/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void
remove_input(void)
{
	unlink(path);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tt_config cfg;
	FILE *fp;

	if (path[0] == '\0') {
		snprintf(path, sizeof(path), "/tmp/fuzz-config-%ld.yaml",
		    (long)getpid());
		atexit(remove_input);
	}
	if ((fp = fopen(path, "wb")) == NULL)
		abort();
	if (size > 0 && fwrite(data, 1, size, fp) != size)
		abort();
	fclose(fp);
	(void)tt_config_load(&cfg, path, NULL);
	tt_config_free(&cfg);
	return 0;
}
