/*
 * twintorus: where the ranks of a recorded application run.
 *
 * A trace names its senders by the PE ids of the cluster it was recorded
 * on: the application's ranks.  Replayed on another network, rank r runs
 * on PE place(r):
 *   linear        rank r on PE r (what replay does without a placement);
 *   random:SEED   a permutation of the network's PEs drawn from SEED
 *                 (the same seed, the same permutation, on any machine);
 *   FILE          one line per rank, "RANK PE", PE an id or a card's
 *                 coordinates ("1,0,2/1", as --flow takes them); '#'
 *                 begins a comment.  Ranks not listed are placed linearly
 *                 where that PE is free; two ranks on one PE are refused.
 * Dependency lines (twintorus/deps.h) pass through tt_placement_stream(),
 * which renames their sender, destination and predecessors.
 */
#ifndef TWINTORUS_PLACEMENT_H
#define TWINTORUS_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "twintorus/deps.h"
#include "twintorus/topo.h"
#include "twintorus/api.h"

TT_BEGIN_DECLS

typedef struct tt_placement tt_placement;

/* For net (its PEs); 0, or -1 with err naming the file and line or what
 * is wrong with spec. */
int tt_placement_create(tt_placement **pp, const char *spec,
    const tt_net *net, char *err, size_t errsz);
/* The PE of rank r (UINT32_MAX: outside the network). */
uint32_t tt_placement_pe(const tt_placement *p, uint32_t rank);
/* Lines of `in` with every rank renamed to its PE; a rank outside the
 * network is an error naming the line's message. */
tt_dep_stream tt_placement_stream(tt_placement *p, tt_dep_stream in);
/* "linear", "random:7" or the file's name, as given. */
const char *tt_placement_name(const tt_placement *p);
void tt_placement_free(tt_placement *p);

TT_END_DECLS

#endif
