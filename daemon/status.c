/*
 * What the running daemon shows: `ttd status` (text or JSON, over the
 * control socket) and the counters' log line (SIGUSR1, exit).  Every
 * figure is read while the data plane stands still (in its own loop, or
 * with its threads held between two rounds), so the balance of the
 * counters (ttd.h, struct ttd_counters) holds exactly in each answer.
 */
#include <stdio.h>
#include <string.h>

#include "twintorus/json.h"
#include "ttd.h"

static const char *const cabling_names[] = {"unknown", "ok", "wrong"};

static const char *
status_link(int link)
{
	return link > 0 ? "up" : link == 0 ? "down" : "unknown";
}

static unsigned long long
ull(uint64_t v)
{
	return (unsigned long long)v;
}

/* The kernel's drops of every port, summed. */
static void
status_dev_drops(const struct ttd_daemon *d, struct ttd_dev_stats *sum)
{
	struct ttd_dev_stats st;
	int s, i;

	memset(sum, 0, sizeof(*sum));
	for (s = 0; s < d->nd.ncards; s++)
		for (i = 0; i < d->f.sw[s].nports; i++) {
			ttd_dev_stats(&d->dev[s][i], &st);
			sum->drop += st.drop;
			sum->ifdrop += st.ifdrop;
			sum->link += st.link;
		}
}

/* What PE s's TAP dropped since ttd opened it: -1 unknown. */
static int64_t
status_tap_dropped(const struct ttd_daemon *d, int s)
{
	int64_t n = ttd_tap_dropped(d->tap[s], d->tapname[s]);

	if (n < 0 || d->tap_dropped0[s] < 0)
		return -1;
	return n > d->tap_dropped0[s] ? n - d->tap_dropped0[s] : 0;
}

static uint64_t
status_dropped(const struct ttd_counters *c)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < TTD_DROP_N; i++)
		n += c->dropped[i];
	return n;
}

static void
status_json_credits(const struct ttd_fport *p, FILE *fp)
{
	int v;

	fprintf(fp, ", \"credits\": [");
	for (v = 0; v < p->nvcs; v++) {
		const struct ttd_ibuf *b = &p->in[v];
		int64_t a = ttd_credit_available(p, v);

		fprintf(fp, "%s{\"vc\": %d, \"available\": ", v ? ", " : "", v);
		if (a < 0)
			fprintf(fp, "null");
		else
			fprintf(fp, "%lld", (long long)a);
		fprintf(fp, ", \"peer_buffer\": %u, \"peer_least\": %u, "
		    "\"buffer\": %u, \"least\": %u, \"held\": %u, "
		    "\"frames\": %u}", p->oc[v].peer_buffer,
		    p->peer_least, b->size, b->least, b->used, b->qn);
	}
	fprintf(fp, "], \"credit_frames\": {\"sent\": %u, \"heard\": %llu, "
	    "\"lost\": %llu, \"refused\": %llu}", p->cred_seq,
	    ull(p->cred_heard), ull(p->cred_lost), ull(p->cred_refused));
}

static void
status_json_port(const struct ttd_daemon *d, int s, int i, FILE *fp)
{
	const struct ttd_fport *p = &d->f.sw[s].fp[i];
	struct ttd_dev_stats st;
	uint8_t mac[6];
	char pn[16];
	int verified;

	if (p->port == TT_PORT_INT)
		snprintf(pn, sizeof(pn), "internal");
	else
		tt_port_name(p->port, d->net.n, pn, sizeof(pn));
	fprintf(fp, "\n  {\"card\": %d, \"port\": \"%s\", \"ifname\": ", s,
	    pn);
	tt_json_string(fp, d->nd.card[s].port[i].ifname);
	fprintf(fp, ", \"link\": \"%s\", \"cabling\": \"%s\", \"heard\": ",
	    status_link(p->link), p->port == TT_PORT_INT ? "unknown" :
	    cabling_names[p->cabling]);
	if (p->cabling == TTD_CABLING_UNKNOWN)
		fprintf(fp, "null");
	else
		fprintf(fp, "{\"node\": %u, \"card\": %u, \"port\": \"%s\"}",
		    p->heard.node, p->heard.card, tt_port_name(p->heard.port,
		    d->net.n, pn, sizeof(pn)));
	/* the neighbour credit frames are taken from (null: none yet) */
	fprintf(fp, ", \"neighbour_mac\": ");
	ttd_credit_peer(&d->f, s, i, &verified, mac);
	if (verified)
		fprintf(fp, "\"%02x:%02x:%02x:%02x:%02x:%02x\"", mac[0], mac[1],
		    mac[2], mac[3], mac[4], mac[5]);
	else
		fprintf(fp, "null");
	ttd_dev_stats(&d->dev[s][i], &st);
	fprintf(fp, ", \"tx_frames\": %llu, \"rx_frames\": %llu, "
	    "\"rx_data_frames\": %llu, \"capture_dropped\": %llu, "
	    "\"capture_ifdropped\": %llu, \"link_dropped\": %llu, "
	    "\"backend\": \"%s\", \"interface\": \"%s\", "
	    "\"interface_lost\": %llu", ull(p->tx), ull(p->rx),
	    ull(p->rx_data), ull(st.drop), ull(st.ifdrop), ull(st.link),
	    ttd_dev_mode(&d->dev[s][i]), ttd_dev_is_open(&d->dev[s][i]) ?
	    "open" : "gone", ull(d->dev[s][i].lost));
	status_json_credits(p, fp);
	fprintf(fp, "}");
}

static void
status_json_counters(const struct ttd_daemon *d, FILE *fp)
{
	struct ttd_counters c;
	struct ttd_dev_stats st;
	int i;

	ttd_fwd_counters(&d->f, &c);
	fprintf(fp, ",\n \"counters\": {\"received\": %llu, \"forwarded\": "
	    "%llu, \"delivered\": %llu, \"consumed\": {\"hello\": %llu, "
	    "\"arp\": %llu, \"credit\": %llu}, \"dropped\": {",
	    ull(c.received), ull(c.forwarded), ull(c.delivered),
	    ull(c.hellos), ull(c.arp), ull(c.credits));
	for (i = 0; i < TTD_DROP_N; i++)
		fprintf(fp, "%s\"%s\": %llu", i ? ", " : "", ttd_drop_names[i],
		    ull(c.dropped[i]));
	status_dev_drops(d, &st);
	fprintf(fp, "}, \"queued\": %llu, \"injected\": %llu, "
	    "\"hellos_sent\": %llu, \"credits_sent\": %llu},\n \"capture\": "
	    "{\"dropped\": %llu, \"ifdropped\": %llu, \"link_dropped\": %llu}",
	    ull(ttd_fwd_queued(&d->f)), ull(c.injected), ull(c.hellos_tx),
	    ull(c.credits_tx), ull(st.drop), ull(st.ifdrop), ull(st.link));
}

/* Edge drops: what the TAPs dropped (ttd did not read them: the torus
 * did not take more), and what ttd dropped from them for want of room. */
static void
status_json_edge(const struct ttd_daemon *d, FILE *fp)
{
	struct ttd_counters c;
	int64_t n, sum = 0;
	int s;

	ttd_fwd_counters(&d->f, &c);
	fprintf(fp, ",\n \"edge\": {\"ttd_dropped\": %llu, \"taps\": [",
	    ull(c.dropped[TTD_DROP_EDGE_FULL]));
	for (s = 0; s < d->nd.ncards; s++) {
		n = status_tap_dropped(d, s);
		fprintf(fp, "%s{\"pe\": %u, \"tap_dropped\": ", s ? ", " : "",
		    d->nd.card[s].card);
		if (n < 0) {
			fprintf(fp, "null}");
			sum = -1;
		} else {
			fprintf(fp, "%lld}", (long long)n);
			if (sum >= 0)
				sum += n;
		}
	}
	fprintf(fp, "], \"tap_dropped\": ");
	if (sum < 0)
		fprintf(fp, "null}");
	else
		fprintf(fp, "%lld}", (long long)sum);
}

static void
status_json_trace(const struct ttd_capture *c, int first, FILE *fp)
{
	char path[4300];

	ttd_capture_name(c, c->cur, path, sizeof(path));
	fprintf(fp, "%s{\"path\": ", first ? "" : ", ");
	tt_json_string(fp, path);
	fprintf(fp, ", \"records\": %llu, \"lost\": %llu, \"failing\": %s}",
	    ull(c->records), ull(c->lost), c->failing ? "true" : "false");
}

void
ttd_status_json(const struct ttd_daemon *d, FILE *fp)
{
	int s, i, dim, first = 1;

	tt_json_begin(fp, TT_JSON_SCHEMA_TTD_STATUS);
	fprintf(fp, ", \"node\": %u, \"host\": ", d->nd.node);
	tt_json_string(fp, d->nd.host);
	fprintf(fp, ", \"coord\": [");
	for (dim = 0; dim < d->net.n; dim++)
		fprintf(fp, "%s%d", dim ? ", " : "",
		    tt_node_digit(&d->net, d->nd.node, dim));
	fprintf(fp, "], \"backend\": \"%s\", \"flow\": \"%s\", \"threads\": "
	    "%d, \"pes\": [", ttd_backend_names[d->backend], d->f.o.lossy ?
	    "lossy" : "lossless", d->nplanes);
	for (s = 0; s < d->nd.ncards; s++) {
		fprintf(fp, "%s{\"pe\": %u, \"tap\": ", s ? ", " : "",
		    d->nd.card[s].card);
		tt_json_string(fp, d->tapname[s]);
		fprintf(fp, ", \"buffer\": %u, \"held\": %u}",
		    d->f.sw[s].pe_in.size, d->f.sw[s].pe_in.used);
	}
	fprintf(fp, "],\n \"ports\": [");
	for (s = 0; s < d->nd.ncards; s++)
		for (i = 0; i < d->f.sw[s].nports; i++) {
			fprintf(fp, "%s", first ? "" : ",");
			status_json_port(d, s, i, fp);
			first = 0;
		}
	fprintf(fp, "]");
	status_json_counters(d, fp);
	status_json_edge(d, fp);
	fprintf(fp, ",\n \"traces\": [");
	status_json_trace(&d->pe_cap, 1, fp);
	for (s = 0; d->port_tracing && s < d->nd.ncards; s++)
		for (i = 0; i < d->nd.card[s].nports; i++)
			status_json_trace(&d->port_cap[s][i], 0, fp);
	fprintf(fp, "]}\n");
}

/* "received R = forwarded F + ... + queued Q" and the drop reasons. */
static void
status_balance(const struct ttd_daemon *d, FILE *fp)
{
	struct ttd_counters c;
	int i, any = 0;

	ttd_fwd_counters(&d->f, &c);
	fprintf(fp, "received %llu = forwarded %llu + delivered %llu + "
	    "hellos %llu + arp %llu + credits %llu + dropped %llu + queued "
	    "%llu; injected %llu; dropped:", ull(c.received),
	    ull(c.forwarded), ull(c.delivered), ull(c.hellos), ull(c.arp),
	    ull(c.credits), ull(status_dropped(&c)),
	    ull(ttd_fwd_queued(&d->f)), ull(c.injected));
	for (i = 0; i < TTD_DROP_N; i++)
		if (c.dropped[i] > 0) {
			fprintf(fp, " %s %llu", ttd_drop_names[i],
			    ull(c.dropped[i]));
			any = 1;
		}
	if (!any)
		fprintf(fp, " none");
}

/* Per port: "credits 65536/65536 0/65536" (available/peer's buffer per
 * VC), or "credits -" before the neighbour has granted any. */
static void
status_text_credits(const struct ttd_fport *p, FILE *fp)
{
	int v;

	if (!p->granted) {
		fprintf(fp, " credits -");
		return;
	}
	fprintf(fp, " credits");
	for (v = 0; v < p->nvcs; v++)
		fprintf(fp, " %lld/%u", (long long)ttd_credit_available(p, v),
		    p->oc[v].peer_buffer);
}

void
ttd_status_text(const struct ttd_daemon *d, FILE *fp)
{
	struct ttd_dev_stats st;
	char pn[160], cn[64];
	int64_t td;
	int s, i;

	fprintf(fp, "node %s, %s, PEs", d->nd.host, tt_card_name(&d->net,
	    d->nd.card[0].card, cn, sizeof(cn)));
	for (s = 0; s < d->nd.ncards; s++)
		fprintf(fp, " %u (%s)", d->nd.card[s].card, d->tapname[s]);
	fprintf(fp, "\nbackend %s (%s), %s, %s\n",
	    ttd_backend_names[d->backend], ttd_dev_mode(&d->dev[0][0]),
	    d->f.o.lossy ? "lossy" : "lossless", d->nplanes > 1 ?
	    "a thread per card" : "one loop");
	fprintf(fp, "%-36s %-7s %-8s %12s %12s %12s\n", "port", "link",
	    "cabling", "sent", "received", "cap. drops");
	for (s = 0; s < d->nd.ncards; s++)
		for (i = 0; i < d->f.sw[s].nports; i++) {
			const struct ttd_fport *p = &d->f.sw[s].fp[i];

			ttd_dev_stats(&d->dev[s][i], &st);
			fprintf(fp, "%-36s %-7s %-8s %12llu %12llu %12llu",
			    ttd_fwd_port_name(&d->f, s, i, pn, sizeof(pn)),
			    ttd_dev_is_open(&d->dev[s][i]) ?
			    status_link(p->link) : "gone",
			    p->port == TT_PORT_INT ?
			    "-" : cabling_names[p->cabling], ull(p->tx),
			    ull(p->rx), ull(st.drop + st.ifdrop));
			if (!d->f.o.lossy)
				status_text_credits(p, fp);
			fputc('\n', fp);
		}
	status_balance(d, fp);
	status_dev_drops(d, &st);
	fprintf(fp, "\ncapture: %llu dropped by the capture ring, %llu by "
	    "the interfaces (before ttd saw them); %llu dropped by the "
	    "interfaces after ttd sent them\n", ull(st.drop), ull(st.ifdrop),
	    ull(st.link));
	fprintf(fp, "edge:");
	for (s = 0; s < d->nd.ncards; s++) {
		td = status_tap_dropped(d, s);
		if (td < 0)
			fprintf(fp, " %s dropped ? (unknown)", d->tapname[s]);
		else
			fprintf(fp, " %s dropped %lld", d->tapname[s],
			    (long long)td);
	}
	{
		struct ttd_counters c;

		ttd_fwd_counters(&d->f, &c);
		fprintf(fp, "; ttd dropped %llu from the TAPs\n",
		    ull(c.dropped[TTD_DROP_EDGE_FULL]));
	}
	fprintf(fp, "trace %s: %llu records, %llu lost%s\n", d->pe_cap.base,
	    ull(d->pe_cap.records), ull(d->pe_cap.lost), d->pe_cap.failing ?
	    " (writing fails now)" : "");
}

void
ttd_status_log(const struct ttd_daemon *d, int level)
{
	char line[768];
	FILE *fp = fmemopen(line, sizeof(line), "w");

	if (fp == NULL)
		return;
	status_balance(d, fp);
	fprintf(fp, "; trace records %llu, lost %llu", ull(d->pe_cap.records),
	    ull(d->pe_cap.lost));
	fputc('\0', fp);
	fclose(fp);
	line[sizeof(line) - 1] = '\0';
	ttd_log(level, "counters", "%s", line);
}
