/*
 * The words of the model every network shares: port names, deadlock
 * schemes, the torus spec's dims and port configurations (seed 000
 * Table 1), the VCs of seed 000 §7.1's switch, node ids and channel
 * numbers.  It calls nothing of netgen.c, route.c or the generators:
 * they call it (netgen.h says how the files depend on each other).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twintorus/params.h"
#include "twintorus/topo.h"
#include "support/errf.h"

/*
 * Seed 000 Table 1: the ten configurations up to swapping the cards, given by
 * card 0's ports (card 1 has the other three).  X+ = 0, X- = 1, Y+ = 2, ...
 */
static const int8_t letter_card0[10][3] = {
	{0, 2, 4},	/* A {X+,Y+,Z+} */
	{0, 2, 5},	/* B {X+,Y+,Z-} */
	{0, 2, 3},	/* C {X+,Y+,Y-} */
	{0, 2, 1},	/* D {X+,Y+,X-} */
	{0, 3, 4},	/* E {X+,Y-,Z+} */
	{0, 3, 5},	/* F {X+,Y-,Z-} */
	{0, 3, 1},	/* G {X+,Y-,X-} */
	{0, 4, 5},	/* H {X+,Z+,Z-} */
	{0, 4, 1},	/* I {X+,Z+,X-} */
	{0, 5, 1},	/* J {X+,Z-,X-} */
};

const int8_t *
tt_letter_card0(char letter)
{
	int c = toupper((unsigned char)letter);

	if (c < 'A' || c > 'J')
		return NULL;
	return letter_card0[c - 'A'];
}

int
tt_port_parse(const char *name, int n)
{
	int dim, neg;
	size_t len;

	if (name == NULL)
		return -1;
	len = strlen(name);
	if (len < 2)
		return -1;
	if (name[len - 1] == '+')
		neg = 0;
	else if (name[len - 1] == '-')
		neg = 1;
	else
		return -1;
	if (len == 2 && n <= 3 && strchr("XYZxyz", name[0]) != NULL) {
		dim = toupper((unsigned char)name[0]) - 'X';
	} else if (len == 3 && (name[0] == 'd' || name[0] == 'D') &&
	    isdigit((unsigned char)name[1])) {
		dim = name[1] - '0';
	} else {
		return -1;
	}
	if (dim >= n)
		return -1;
	return tt_port_of(dim, neg);
}

const char *
tt_port_name(int port, int n, char *buf, size_t bufsz)
{
	if (port == TT_PORT_INT)
		snprintf(buf, bufsz, "int");
	else if (port == TT_PORT_NIC)
		snprintf(buf, bufsz, "nic");
	else if (n <= 3)
		snprintf(buf, bufsz, "%c%c", 'X' + tt_port_dim(port),
		    tt_port_neg(port) ? '-' : '+');
	else
		snprintf(buf, bufsz, "d%d%c", tt_port_dim(port),
		    tt_port_neg(port) ? '-' : '+');
	return buf;
}

const char *
tt_deadlock_name(enum tt_deadlock dl)
{
	switch (dl) {
	case TT_DL_VC:
		return "vc";
	case TT_DL_BUBBLE:
		return "bubble";
	case TT_DL_NONE:
		return "none";
	}
	return "?";
}

int
tt_deadlock_parse(const char *s, enum tt_deadlock *out)
{
	if (strcmp(s, "vc") == 0)
		*out = TT_DL_VC;
	else if (strcmp(s, "bubble") == 0)
		*out = TT_DL_BUBBLE;
	else if (strcmp(s, "none") == 0)
		*out = TT_DL_NONE;
	else
		return -1;
	return 0;
}

void
tt_netspec_default(tt_netspec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->n = 3;
	spec->k[0] = spec->k[1] = spec->k[2] = 4;
	spec->twin = 1;
	spec->deadlock = TT_DL_VC;
	spec->ports_kind = TT_PORTS_BEST;
}

int
tt_netspec_set_ports(tt_netspec *spec, const char *s, char *err, size_t errsz)
{
	if (strcasecmp(s, "best") == 0) {
		spec->ports_kind = TT_PORTS_BEST;
		return 0;
	}
	if (strlen(s) == 1 && tt_letter_card0(s[0]) != NULL) {
		spec->ports_kind = TT_PORTS_LETTER;
		spec->letter = (char)toupper((unsigned char)s[0]);
		return 0;
	}
	return tt_errf(err, errsz, "unknown port configuration '%s': use A..J "
	    "(seed 000 Table 1, 3 dimensions), best, or a {card0: [...], "
	    "card1: [...]} map in a YAML file", s);
}

int
tt_netspec_set_dims(tt_netspec *spec, const char *s, char *err, size_t errsz)
{
	const char *p = s;
	char *end;
	long v;
	int n = 0;

	for (;;) {
		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno != 0)
			return tt_errf(err, errsz, "expected comma-separated "
			    "node counts such as 4,4,4");
		if (n == TT_MAX_DIMS)
			return tt_errf(err, errsz, "at most %d dimensions are "
			    "supported", TT_MAX_DIMS);
		if (v < 2 || v > TT_MAX_K)
			return tt_errf(err, errsz, "dimension %d has %ld "
			    "node%s; each dimension needs 2..%d nodes", n, v,
			    v == 1 ? "" : "s", TT_MAX_K);
		spec->k[n++] = (int)v;
		if (*end == '\0')
			break;
		if (*end != ',' && *end != 'x')
			return tt_errf(err, errsz, "expected comma-separated "
			    "node counts such as 4,4,4");
		p = end + 1;
	}
	if (n < 2)
		return tt_errf(err, errsz, "a torus needs at least 2 dimensions "
		    "(give one node count per dimension, e.g. 16,8)");
	spec->n = n;
	return 0;
}

/*
 * The VCs seed 000 §7.1's switch gives a port that needs `classes`: that
 * number rounded up to a power of two, and at least min_vcs.
 */
static int
pow2ceil(int v)
{
	int r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

int
tt_phys_vcs(enum tt_deadlock dl, int classes, int min_vcs)
{
	int min = min_vcs > 0 ? min_vcs : (dl == TT_DL_VC ?
	    TT_VCS_VC_DEFAULT : TT_VCS_OTHER_DEFAULT);
	int v = pow2ceil(classes);

	return v > min ? v : min;
}

uint32_t
tt_node_index(const tt_net *net, const int *coord)
{
	uint32_t node = 0;
	int d;

	for (d = 0; d < net->n; d++)
		node += (uint32_t)coord[d] * net->stride[d];
	return node;
}

void
tt_chan_decode(const tt_net *net, uint64_t chan, uint32_t *card, int *port,
    int *vc)
{
	int local = (int)(chan % (uint64_t)net->chans_per_card), side, i;

	*card = (uint32_t)(chan / (uint64_t)net->chans_per_card);
	side = tt_card_side(net, *card);
	for (i = net->card_nports - 1; i > 0; i--)
		if (net->chan_base[side][i] <= local)
			break;
	*port = net->card_port[side][i];
	*vc = local - net->chan_base[side][i];
}
