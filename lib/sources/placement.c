/*
 * Rank placement (twintorus/placement.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/errf.h"
#include "twintorus/outfile.h"
#include "twintorus/placement.h"

#define LINE_MAX_BYTES 256

struct tt_placement {
	uint32_t npes;
	uint32_t *pe;           /* rank -> PE, npes entries */
	char name[256];
	tt_dep_stream in;
	tt_depref *pred;        /* renamed predecessors */
	uint32_t predcap;
};

/* splitmix64: the permutation must not depend on the C library. */
static uint64_t
mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int
place_random(tt_placement *p, const char *seedtext, char *err, size_t errsz)
{
	char *end;
	uint64_t s;
	uint32_t i;

	errno = 0;
	s = strtoull(seedtext, &end, 10);
	if (*seedtext == '\0' || *end != '\0' || errno != 0 || *seedtext == '-')
		return tt_errf(err, errsz, "--placement random:%s: the seed "
		    "must be a whole number, e.g. random:7", seedtext);
	for (i = 0; i < p->npes; i++)
		p->pe[i] = i;
	for (i = p->npes; i > 1; i--) {         /* Fisher-Yates */
		uint32_t j = (uint32_t)(mix(&s) % i), t = p->pe[i - 1];

		p->pe[i - 1] = p->pe[j];
		p->pe[j] = t;
	}
	return 0;
}

static int
place_file(tt_placement *p, const char *path, const tt_net *net, char *err,
    size_t errsz)
{
	char line[LINE_MAX_BYTES + 2], rk[64], pe[128], extra[8];
	uint8_t *taken = calloc(p->npes ? p->npes : 1, 1);
	uint32_t i, r, q, next = 0;
	unsigned long ln = 0;
	FILE *f;
	int rc = -1;

	if (taken == NULL)
		return tt_errf(err, errsz, "out of memory");
	if ((f = fopen(path, "r")) == NULL) {
		tt_errf(err, errsz, "--placement %s: %s (give linear, "
		    "random:SEED or a file of RANK PE lines)", path,
		    strerror(errno));
		free(taken);
		return -1;
	}
	(void)tt_outfile_input_fd(fileno(f), path);
	for (i = 0; i < p->npes; i++)
		p->pe[i] = UINT32_MAX;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *hash, *endp;
		int n;

		ln++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			tt_errf(err, errsz, "%s:%lu: longer than %d bytes", path,
			    ln, LINE_MAX_BYTES);
			goto out;
		}
		if ((hash = strchr(line, '#')) != NULL)
			*hash = '\0';
		n = sscanf(line, "%63s %127s %7s", rk, pe, extra);
		if (n <= 0)
			continue;
		if (n != 2) {
			tt_errf(err, errsz, "%s:%lu: expected RANK PE, e.g. "
			    "\"3 1,0,0/1\"", path, ln);
			goto out;
		}
		errno = 0;
		r = (uint32_t)strtoul(rk, &endp, 10);
		if (*endp != '\0' || errno != 0 || rk[0] == '-' ||
		    r >= p->npes) {
			tt_errf(err, errsz, "%s:%lu: rank %s: expected 0..%u "
			    "(the network has %u PEs)", path, ln, rk,
			    p->npes - 1, p->npes);
			goto out;
		}
		if (tt_pe_parse(net, pe, &q, err, errsz) < 0) {
			char why[256];

			snprintf(why, sizeof(why), "%s", err);
			tt_errf(err, errsz, "%s:%lu: PE %s: %s", path, ln, pe,
			    why);
			goto out;
		}
		if (p->pe[r] != UINT32_MAX) {
			tt_errf(err, errsz, "%s:%lu: rank %u is placed twice",
			    path, ln, r);
			goto out;
		}
		if (taken[q]) {
			tt_errf(err, errsz, "%s:%lu: PE %s already holds a rank",
			    path, ln, pe);
			goto out;
		}
		p->pe[r] = q;
		taken[q] = 1;
	}
	if (ferror(f)) {
		tt_errf(err, errsz, "%s: %s", path, strerror(errno));
		goto out;
	}
	/* the rest, linearly where the PE is free */
	for (i = 0; i < p->npes; i++) {
		if (p->pe[i] != UINT32_MAX)
			continue;
		if (!taken[i]) {
			p->pe[i] = i;
			taken[i] = 1;
			continue;
		}
		while (next < p->npes && taken[next])
			next++;
		p->pe[i] = next;
		taken[next] = 1;
	}
	rc = 0;
out:
	fclose(f);
	free(taken);
	return rc;
}

int
tt_placement_create(tt_placement **pp, const char *spec, const tt_net *net,
    char *err, size_t errsz)
{
	tt_placement *p;
	uint32_t i;
	int rc = 0;

	*pp = NULL;
	if ((p = calloc(1, sizeof(*p))) == NULL ||
	    (p->pe = malloc(sizeof(uint32_t) * (net->ncards + 1))) == NULL) {
		free(p);
		return tt_errf(err, errsz, "out of memory");
	}
	p->npes = net->ncards;
	snprintf(p->name, sizeof(p->name), "%s", spec);
	if (strcmp(spec, "linear") == 0) {
		for (i = 0; i < p->npes; i++)
			p->pe[i] = i;
	} else if (strncmp(spec, "random:", 7) == 0) {
		rc = place_random(p, spec + 7, err, errsz);
	} else if (strcmp(spec, "random") == 0) {
		rc = tt_errf(err, errsz, "--placement random needs a seed: "
		    "random:SEED, e.g. random:7");
	} else {
		rc = place_file(p, spec, net, err, errsz);
	}
	if (rc < 0) {
		tt_placement_free(p);
		return -1;
	}
	*pp = p;
	return 0;
}

uint32_t
tt_placement_pe(const tt_placement *p, uint32_t rank)
{
	return rank < p->npes ? p->pe[rank] : UINT32_MAX;
}

static int
placed_next(void *ctx, tt_dep *d, char *err, size_t errsz)
{
	tt_placement *p = ctx;
	uint32_t k, src = 0, dst = 0;
	int x;

	if ((x = p->in.next(p->in.ctx, d, err, errsz)) <= 0)
		return x;
	if ((src = tt_placement_pe(p, d->pe)) == UINT32_MAX ||
	    (dst = tt_placement_pe(p, d->dst)) == UINT32_MAX)
		return tt_errf(err, errsz, "message %u:%u: rank %u has no PE "
		    "(the network has %u); replay on a network of at least "
		    "the trace's ranks", d->pe, d->seq,
		    src == UINT32_MAX ? d->pe : d->dst, p->npes);
	if (d->npred > p->predcap) {
		tt_depref *g = realloc(p->pred, d->npred * sizeof(*g));

		if (g == NULL)
			return tt_errf(err, errsz, "out of memory");
		p->pred = g;
		p->predcap = d->npred;
	}
	for (k = 0; k < d->npred; k++) {
		p->pred[k] = d->pred[k];
		if ((p->pred[k].src = tt_placement_pe(p, d->pred[k].src)) ==
		    UINT32_MAX)
			return tt_errf(err, errsz, "message %u:%u: its "
			    "predecessor's rank %u has no PE", d->pe, d->seq,
			    d->pred[k].src);
	}
	d->pe = src;
	d->dst = dst;
	d->pred = p->pred;
	return 1;
}

tt_dep_stream
tt_placement_stream(tt_placement *p, tt_dep_stream in)
{
	tt_dep_stream s = {placed_next, p};

	p->in = in;
	return s;
}

const char *
tt_placement_name(const tt_placement *p)
{
	return p->name;
}

void
tt_placement_free(tt_placement *p)
{
	if (p == NULL)
		return;
	free(p->pe);
	free(p->pred);
	free(p);
}
