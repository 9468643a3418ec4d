/*
 * The motif programs, private to lib/ (twintorus/motif.h describes them):
 * what rank r does at step i of iteration it, computed on demand so that a
 * program takes no memory.  A receive names the message it waits for by
 * its sender and the sender's sequence number, which the sender's program
 * determines: every motif sends the same messages in every iteration, or
 * (sweep3d) in a cycle of four.
 */
#ifndef TWINTORUS_MOTIF_INT_H
#define TWINTORUS_MOTIF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "twintorus/motif.h"

enum { MSTEP_COMPUTE, MSTEP_SEND, MSTEP_RECV };

struct mstep {
	int kind;
	uint32_t peer;          /* send: to; receive: from (ranks) */
	uint64_t seq;           /* receive: the sender's sequence number */
	uint64_t bytes;         /* send */
	double ns;              /* compute */
};

struct motif_ops;

struct motif {
	const struct motif_ops *ops;
	tt_motif_params p;
	uint32_t n;             /* ranks */
	uint32_t g[3];          /* halo3d: a x b x c; sweep3d: x, y */
	uint32_t ndir;          /* halo3d: neighbours (tt_grid3_neighbour()) */
	uint32_t clients;       /* incast */
	uint64_t chunk;         /* allreduce */
};

int motif_init(struct motif *mo, const tt_motif_params *p, uint32_t n,
    char *err, size_t errsz);
/* Step i of iteration it of rank r: 1 with s filled, 0 past the last. */
int motif_step(const struct motif *mo, uint32_t r, uint64_t it, uint32_t i,
    struct mstep *s);
/* The bytes of every message rank r sends. */
uint64_t motif_bytes_from(const struct motif *mo, uint32_t r);
const char *motif_layout(const struct motif *mo, char *buf, size_t bufsz);

#endif
