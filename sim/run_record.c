/*
 * --record DIR and --clock-skew NS (ttsim run and ttsim app): what ttd
 * would have captured (twintorus/record.h); for run, its synthetic
 * traffic, every packet a message.
 */
#include <string.h>

#include "ttsim.h"

const optdef recordopts_flags[] = {
	OPT_TITLE("recording:"),
	OPT_VAL("record", OPT_RECORD, "DIR",
	    "write what ttd would have captured, one pcap per node "
	    "(<host>-pe.pcap from the YAML nodes: map, else n<node>-pe.pcap): "
	    "each message at its send and a delivery copy at its arrival, in "
	    "node-local time; after a signal or a failed write each trace ends "
	    "on its last whole record"),
	OPT_VALDEF("clock-skew", OPT_CLOCK_SKEW, "NS",
	    "the nodes' clocks differ by fixed offsets below NS",
	    TT_RECORD_SKEW_NS),
	OPT_END
};

void
recordopts_init(recordopts *o)
{
	memset(o, 0, sizeof(*o));
	o->skew_ns = TT_RECORD_SKEW_NS;
}

int
recordopts_take(void *state, const struct optval *v)
{
	recordopts *o = state;

	if (v->id == OPT_RECORD) {
		o->dir = v->value;
		return 0;
	}
	o->skew_set = 1;
	return opt_u64(v->cmd, v->flag, v->value, 0, TT_RECORD_SKEW_MAX_NS,
	    &o->skew_ns);
}

int
recordopts_check(const recordopts *o, const char *cmd)
{
	if (o->skew_set && o->dir == NULL) {
		fprintf(stderr, "ttsim %s: --clock-skew goes with --record DIR: "
		    "it offsets the recorded nodes' clocks\n", cmd);
		return -1;
	}
	return 0;
}

int
record_dir_ready(const char *dir, const char *cmd)
{
	uint64_t bad;
	char err[1024];

	bad = tt_record_dir_ready(dir, err, sizeof(err)) < 0;
	if (bad)
		fprintf(stderr, "ttsim %s: --record %s\n", cmd, err);
	ttsim_allreduce(&bad, 1, TT_SIM_MAX);
	return bad ? -1 : 0;
}

/* The recording's files and source on every rank, or on none. */
static int
record_open(struct run_record *rr, const simopts *o, const tt_net *net,
    tt_sim *sim, tt_source src)
{
	const tt_netparams *np = &o->record_cfg->params;
	uint32_t pe0, pe1;
	uint64_t bad = 0;
	char err[1024];

	tt_sim_local(sim, &pe0, &pe1);
	if (tt_record_open(&rr->rec, o->record->dir, net, o->record_cfg, pe0,
	    pe1, tt_cycle_ns(np->flit_bytes, np->link_gbps),
	    o->record->skew_ns, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: --record %s\n", o->cmd, err);
		bad = 1;
	} else if (tt_record_src_init(&rr->rs, rr->rec, src, pe0, pe1,
	    (uint64_t)o->p.net.packet_flits * (uint64_t)np->flit_bytes) < 0) {
		fprintf(stderr, "ttsim %s: --record: out of memory\n", o->cmd);
		bad = 1;
	}
	ttsim_allreduce(&bad, 1, TT_SIM_MAX);
	if (bad == 0)
		return 0;
	tt_record_src_free(&rr->rs);
	if (rr->rec != NULL)
		tt_record_close(rr->rec, NULL, NULL, 0);
	rr->rec = NULL;
	return -1;
}

int
run_record_start(struct run_record *rr, const simopts *o, const tt_net *net,
    tt_sim *sim, tt_source *src)
{
	char err[1024];

	memset(rr, 0, sizeof(*rr));
	if (o->record == NULL || o->record->dir == NULL)
		return 0;
	if (record_dir_ready(o->record->dir, o->cmd) < 0 ||
	    record_open(rr, o, net, sim, *src) < 0)
		return -1;
	/* collective: every rank fails if one does */
	if (tt_sim_on_deliver(sim, tt_record_src_deliver, &rr->rs, err,
	    sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: %s\n", o->cmd, err);
		tt_record_src_free(&rr->rs);
		tt_record_close(rr->rec, NULL, NULL, 0);
		rr->rec = NULL;
		return -1;
	}
	*src = tt_record_src_source(&rr->rs);
	tt_sim_on_arrive(sim, tt_record_src_deliver, &rr->rs);
	return 0;
}

int
run_record_finish(struct run_record *rr, tt_sim *sim, const char *cmd)
{
	char err[1024];
	int rc = 0;

	if (rr->rec == NULL)
		return 0;
	tt_sim_on_deliver(sim, NULL, NULL, NULL, 0);
	tt_sim_on_arrive(sim, NULL, NULL);
	if (tt_record_close(rr->rec, &rr->records, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: --record: %s\n", cmd, err);
		rc = -1;
	} else if (rr->rs.failed) {
		fprintf(stderr, "ttsim %s: --record: a write failed\n", cmd);
		rc = -1;
	}
	tt_record_src_free(&rr->rs);
	rr->rec = NULL;
	return rc;
}
