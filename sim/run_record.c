/*
 * ttsim run --record DIR: the synthetic traffic of a run, recorded as ttd
 * would have captured it (twintorus/record.h), every packet a message.
 */
#include <string.h>

#include "twintorus/record.h"
#include "ttsim.h"

/* --record DIR and --clock-skew NS at argv[*i]: 1 taken, 0 not one,
 * -1 after a message. */
int
run_record_flag(simopts *o, int argc, char **argv, int *i)
{
	const char *v;

	if (flag_is(argv[*i], "--record")) {
		if ((o->record_dir = flag_value(argc, argv, i, o->cmd)) == NULL)
			return -1;
		if (o->record_skew == 0)
			o->record_skew = 500000;
		return 1;
	}
	if (flag_is(argv[*i], "--clock-skew")) {
		if ((v = flag_value(argc, argv, i, o->cmd)) == NULL ||
		    parse_u64(o->cmd, "--clock-skew", v, 0, 1000000000,
		    &o->record_skew) < 0)
			return -1;
		o->record_skew += o->record_skew == 0;  /* 0: at most 1 ns */
		return 1;
	}
	return 0;
}

/*
 * tt_record_dir_ready() on every rank before any rank creates its files
 * (they share the directory), failing together: -1 after a message.
 */
int
record_dir_ready(const char *dir, const char *cmd)
{
	uint64_t bad;
	char err[1024];

	bad = tt_record_dir_ready(dir, err, sizeof(err)) < 0;
	if (bad)
		fprintf(stderr, "ttsim %s: --record %s\n", cmd, err);
	tt_sim_combine(ttsim_comm(), &bad, 1, NULL);
	return bad ? -1 : 0;
}

/* The recording wrapped around src for one run on sim; NULL state when
 * o asks for none.  -1 after a message. */
int
run_record_start(struct run_record *rr, const simopts *o, const tt_net *net,
    tt_sim *sim, tt_source *src)
{
	uint32_t pe0, pe1;
	char err[1024];

	memset(rr, 0, sizeof(*rr));
	if (o->record_dir == NULL)
		return 0;
	tt_sim_local(sim, &pe0, &pe1);
	if (record_dir_ready(o->record_dir, o->cmd) < 0)
		return -1;
	if (tt_record_open(&rr->rec, o->record_dir, net, o->record_cfg, pe0,
	    pe1, o->record_cycle_ns, o->record_skew, err, sizeof(err)) < 0) {
		fprintf(stderr, "ttsim %s: --record %s\n", o->cmd, err);
		return -1;
	}
	if (tt_record_src_init(&rr->rs, rr->rec, *src, pe0, pe1,
	    (uint64_t)o->p.packet_flits * o->record_flit_bytes) < 0) {
		fprintf(stderr, "ttsim %s: out of memory\n", o->cmd);
		tt_record_close(rr->rec, NULL, NULL, 0);
		rr->rec = NULL;
		return -1;
	}
	*src = tt_record_src_source(&rr->rs);
	tt_sim_on_deliver(sim, tt_record_src_deliver, &rr->rs);
	tt_sim_on_arrive(sim, tt_record_src_deliver, &rr->rs);
	return 0;
}

/* Close the traces: -1 after a message if anything failed. */
int
run_record_finish(struct run_record *rr, tt_sim *sim, const char *cmd)
{
	char err[1024];
	int rc = 0;

	if (rr->rec == NULL)
		return 0;
	tt_sim_on_deliver(sim, NULL, NULL);
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
