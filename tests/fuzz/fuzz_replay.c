/*
 * libFuzzer target: the replay front end (lib/sources/replay.c on lib/formats/trace.c):
 * any bytes as a trace file, read into messages as `ttsim replay` reads
 * them (PE ids checked against the network, plain frames through an
 * address map), turned into packets and run through the cycle-accurate
 * model of a 2x2x2 twin torus until every message has arrived.  Inputs
 * with an even length replay at the trace's speed, odd ones as fast as
 * possible, with a lookahead of 8 messages so that the reading window is
 * exercised too.
 *
 * Flits are large (64 KiB; packets of 4 of them) so that the biggest
 * message a record may describe (64 MiB) is 256 packets: the fuzzer
 * explores what the bytes say, not how long a big message takes.  Besides memory
 * safety: every message read is delivered once, in as many packets as its
 * size gives, and no deadlock (the routing is deadlock-free).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "twintorus/config.h"
#include "twintorus/replay.h"
#include "twintorus/sim.h"
#include "twintorus/trace.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tt_net net;
static tt_config cfg;
static tt_addrmap map;

struct tally {
	uint64_t messages, packets;
	uint64_t pkt_bytes;
};

static void
on_message(void *ctx, const tt_msgdone *d)
{
	struct tally *t = ctx;
	uint64_t want = d->m.bytes == 0 ? 1 :
	    (d->m.bytes + t->pkt_bytes - 1) / t->pkt_bytes;

	if (d->packets != want || d->done < d->gen)
		abort();	/* a message in the wrong number of packets */
	t->messages++;
	t->packets += d->packets;
}

static void
replay(const char *path, int as_fast)
{
	tt_replay_params rp;
	tt_simparams sp;
	tt_simresult res;
	tt_trace_in *in;
	tt_replay *r = NULL;
	tt_sim *sim = NULL;
	tt_source src;
	struct tally t;
	char err[512];

	tt_replay_params_default(&rp);
	rp.net.packet_flits = 4;
	rp.net.flit_bytes = 65536;
	rp.speed = as_fast ? 0 : 1;
	rp.lookahead = 8;
	tt_simparams_default(&sp);
	sp.net.packet_flits = rp.net.packet_flits;
	memset(&t, 0, sizeof(t));
	t.pkt_bytes = (uint64_t)rp.net.packet_flits * (uint64_t)rp.net.flit_bytes;
	if (tt_trace_in_open(&in, &path, 1, &map, net.ncards, err,
	    sizeof(err)) != 0)
		return;
	if (tt_sim_create(&sim, &net, &sp, err, sizeof(err)) != 0 ||
	    tt_replay_create(&r, in, &rp, sim, err, sizeof(err)) != 0)
		abort();
	tt_replay_on_message(r, on_message, &t);
	src = tt_replay_source(r);
	memset(&res, 0, sizeof(res));
	tt_sim_run(sim, &src, 1, &res, NULL, NULL);
	if (res.deadlock)
		abort();
	/* a reading error stops the replay early; else all arrived */
	if (tt_replay_error(r, err, sizeof(err)) == 0 &&
	    (t.messages != tt_replay_read(r) ||
	    t.messages != tt_replay_result_get(r)->messages))
		abort();
	tt_simresult_free(&res);
	tt_replay_free(r);
	tt_sim_free(sim);
	tt_trace_in_close(in);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	char path[64];
	int fd;

	if (!ready) {
		fuzz_torus_mapped(&net, &cfg, &map);
		ready = 1;
	}
	fd = fuzz_as_file("fuzz-replay", data, size, path, sizeof(path));
	replay(path, size % 2);
	close(fd);
	return 0;
}
