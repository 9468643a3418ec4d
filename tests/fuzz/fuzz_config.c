/*
 * libFuzzer target: the YAML config loader (lib/formats/config.c,
 * lib/formats/config_nodes.c) on any file, as `ttd check` and `ttsim` meet it.
 * tt_config_load reads a path, so each input goes to a memfd first, read
 * through /proc/self/fd: no file is left behind, whatever ends the run.
 * Errors are expected; memory errors, leaks and crashes are not.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "twintorus/config.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tt_config cfg;
	char path[64];
	int fd;

	fd = fuzz_as_file("fuzz-config.yaml", data, size, path, sizeof(path));
	(void)tt_config_load(&cfg, path, NULL);
	tt_config_free(&cfg);
	close(fd);
	return 0;
}
