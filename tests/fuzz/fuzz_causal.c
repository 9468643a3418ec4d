/*
 * libFuzzer target: causal replay (lib/sources/causal.c) on a hostile dependency
 * file: any bytes, opened by path (through a memfd) with the file's
 * reader, replayed causally on the cycle-accurate model of a 2x2x2 twin
 * torus (16 PEs) until nothing more can move, as `ttsim replay --causal
 * --deps` does.
 *
 * The work is bounded so that an input runs in milliseconds: the lines
 * are fed to the engine until they add up to 4096 packets (the next line
 * ends the stream, as the end of the file would), and inputs with an even
 * length have packets of 64 MiB (a 4 GiB message is 64 of them) so that
 * the largest messages are explored too; odd ones have the default
 * packets of 64 bytes and the default cycle (so that gaps of a day are
 * billions of cycles, which the engine skips).
 *
 * Besides memory safety: no deadlock; an error is one line; and when
 * there is none, every message fed arrives once, in the packets its size
 * gives, no earlier than it was released.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "twintorus/causal.h"
#include "twintorus/deps.h"
#include "twintorus/sim.h"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BUDGET 4096     /* packets an input may feed */

static tt_net net;

struct feed {
	tt_deps_reader *r;
	uint64_t pkt_bytes, packets, lines, arrived, arrived_packets;
};

static uint64_t
packets_of(const struct feed *f, uint64_t bytes)
{
	return bytes == 0 ? 1 : bytes / f->pkt_bytes + (bytes % f->pkt_bytes != 0);
}

/* The file's lines while they stay within the budget. */
static int
feed_next(void *ctx, tt_dep *d, char *err, size_t errsz)
{
	struct feed *f = ctx;
	int x = tt_deps_read(f->r, d, err, errsz);
	uint64_t n;

	if (x <= 0)
		return x;
	n = packets_of(f, d->bytes);
	if (n > BUDGET - f->packets)
		return 0;
	f->packets += n;
	f->lines++;
	return 1;
}

static void
on_msg(void *ctx, const tt_causal_msg *m)
{
	struct feed *f = ctx;

	if (m->packets != packets_of(f, m->bytes) || m->done < m->gen)
		abort();        /* a message in the wrong number of packets */
	f->arrived++;
	f->arrived_packets += m->packets;
}

static void
replay(const char *path, int big)
{
	tt_replay_params rp;
	tt_simparams sp;
	tt_simresult res;
	tt_dep_stream in;
	tt_causal *c;
	tt_sim *sim;
	tt_source src;
	struct feed f;
	const tt_causal_result *cr;
	char err[1024];

	memset(&f, 0, sizeof(f));
	if (tt_deps_open(&f.r, path, err, sizeof(err)) < 0)
		return;
	tt_replay_params_default(&rp);
	if (big) {
		rp.net.packet_flits = 4;
		rp.net.flit_bytes = 16 << 20;
	}
	tt_simparams_default(&sp);
	sp.net.packet_flits = rp.net.packet_flits;
	f.pkt_bytes = (uint64_t)rp.net.packet_flits * (uint64_t)rp.net.flit_bytes;
	in.next = feed_next;
	in.ctx = &f;
	if (tt_sim_create(&sim, &net, &sp, err, sizeof(err)) != 0 ||
	    tt_causal_create(&c, in, &rp, sim, err, sizeof(err)) != 0)
		abort();
	tt_causal_on_message(c, on_msg, &f);
	src = tt_causal_source(c);
	memset(&res, 0, sizeof(res));
	tt_sim_run(sim, &src, 1, &res, NULL, NULL);
	if (res.deadlock)
		abort();
	cr = tt_causal_result_get(c);
	if (tt_causal_error(c, err, sizeof(err)) < 0) {
		if (err[0] == '\0' || strchr(err, '\n') != NULL)
			abort();
	} else if (f.arrived != f.lines || cr->rr.messages != f.lines ||
	    f.arrived_packets != f.packets || cr->rr.packets != f.packets ||
	    res.delivered != f.packets) {
		abort();        /* a message lost, or delivered twice */
	}
	tt_simresult_free(&res);
	tt_causal_free(c);
	tt_sim_free(sim);
	tt_deps_close_reader(f.r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	char path[64];
	int fd;

	if (!ready) {
		fuzz_torus(&net);
		ready = 1;
	}
	fd = fuzz_as_file("fuzz-causal", data, size, path, sizeof(path));
	replay(path, size % 2 == 0);
	close(fd);
	return 0;
}
