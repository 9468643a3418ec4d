/*
 * What the running daemon shows: `ttd status` (text or JSON, over the
 * control socket) and the counters' log line (SIGUSR1, exit).  Every
 * figure is read here, in the forwarding loop, so the balance of the
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

/* Capture-ring and interface drops of every port, summed. */
static void
status_capture_drops(const struct ttd_daemon *d, uint64_t *drop,
    uint64_t *ifdrop)
{
	uint64_t a, b;
	int s, i;

	*drop = *ifdrop = 0;
	for (s = 0; s < d->nd.ncards; s++)
		for (i = 0; i < d->f.nports[s]; i++) {
			ttd_port_drops(d->pc[s][i], &a, &b);
			*drop += a;
			*ifdrop += b;
		}
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
status_json_port(const struct ttd_daemon *d, int s, int i, FILE *fp)
{
	const struct ttd_fport *p = &d->f.fp[s][i];
	uint64_t drop, ifdrop;
	char pn[16];

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
	ttd_port_drops(d->pc[s][i], &drop, &ifdrop);
	fprintf(fp, ", \"tx_frames\": %llu, \"rx_frames\": %llu, "
	    "\"capture_dropped\": %llu, \"capture_ifdropped\": %llu}",
	    ull(p->tx), ull(p->rx), ull(drop), ull(ifdrop));
}

static void
status_json_counters(const struct ttd_daemon *d, FILE *fp)
{
	const struct ttd_counters *c = &d->f.cnt;
	uint64_t drop, ifdrop;
	int i;

	fprintf(fp, ",\n \"counters\": {\"received\": %llu, \"forwarded\": "
	    "%llu, \"delivered\": %llu, \"consumed\": {\"hello\": %llu, "
	    "\"arp\": %llu}, \"dropped\": {", ull(c->received),
	    ull(c->forwarded), ull(c->delivered), ull(c->hellos), ull(c->arp));
	for (i = 0; i < TTD_DROP_N; i++)
		fprintf(fp, "%s\"%s\": %llu", i ? ", " : "", ttd_drop_names[i],
		    ull(c->dropped[i]));
	status_capture_drops(d, &drop, &ifdrop);
	fprintf(fp, "}, \"queued\": %llu, \"injected\": %llu, "
	    "\"hellos_sent\": %llu},\n \"capture\": {\"dropped\": %llu, "
	    "\"ifdropped\": %llu}", ull(ttd_fwd_queued(&d->f)),
	    ull(c->injected), ull(c->hellos_tx), ull(drop), ull(ifdrop));
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

	fprintf(fp, "{\"node\": %u, \"host\": ", d->nd.node);
	tt_json_string(fp, d->nd.host);
	fprintf(fp, ", \"coord\": [");
	for (dim = 0; dim < d->net.n; dim++)
		fprintf(fp, "%s%d", dim ? ", " : "",
		    tt_node_digit(&d->net, d->nd.node, dim));
	fprintf(fp, "], \"pes\": [");
	for (s = 0; s < d->nd.ncards; s++) {
		fprintf(fp, "%s{\"pe\": %u, \"tap\": ", s ? ", " : "",
		    d->nd.card[s].card);
		tt_json_string(fp, d->tapname[s]);
		fprintf(fp, "}");
	}
	fprintf(fp, "],\n \"ports\": [");
	for (s = 0; s < d->nd.ncards; s++)
		for (i = 0; i < d->f.nports[s]; i++) {
			fprintf(fp, "%s", first ? "" : ",");
			status_json_port(d, s, i, fp);
			first = 0;
		}
	fprintf(fp, "]");
	status_json_counters(d, fp);
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
	const struct ttd_counters *c = &d->f.cnt;
	int i, any = 0;

	fprintf(fp, "received %llu = forwarded %llu + delivered %llu + "
	    "hellos %llu + arp %llu + dropped %llu + queued %llu; "
	    "injected %llu; dropped:", ull(c->received), ull(c->forwarded),
	    ull(c->delivered), ull(c->hellos), ull(c->arp),
	    ull(status_dropped(c)), ull(ttd_fwd_queued(&d->f)),
	    ull(c->injected));
	for (i = 0; i < TTD_DROP_N; i++)
		if (c->dropped[i] > 0) {
			fprintf(fp, " %s %llu", ttd_drop_names[i],
			    ull(c->dropped[i]));
			any = 1;
		}
	if (!any)
		fprintf(fp, " none");
}

void
ttd_status_text(const struct ttd_daemon *d, FILE *fp)
{
	uint64_t drop, ifdrop;
	char pn[160], cn[64];
	int s, i;

	fprintf(fp, "node %s, %s, PEs", d->nd.host, tt_card_name(&d->net,
	    d->nd.card[0].card, cn, sizeof(cn)));
	for (s = 0; s < d->nd.ncards; s++)
		fprintf(fp, " %u (%s)", d->nd.card[s].card, d->tapname[s]);
	fprintf(fp, "\n%-36s %-7s %-8s %12s %12s %12s\n", "port", "link",
	    "cabling", "sent", "received", "cap. drops");
	for (s = 0; s < d->nd.ncards; s++)
		for (i = 0; i < d->f.nports[s]; i++) {
			const struct ttd_fport *p = &d->f.fp[s][i];

			ttd_port_drops(d->pc[s][i], &drop, &ifdrop);
			fprintf(fp, "%-36s %-7s %-8s %12llu %12llu %12llu\n",
			    ttd_fwd_port_name(&d->f, s, i, pn, sizeof(pn)),
			    status_link(p->link), p->port == TT_PORT_INT ?
			    "-" : cabling_names[p->cabling], ull(p->tx),
			    ull(p->rx), ull(drop + ifdrop));
		}
	status_balance(d, fp);
	status_capture_drops(d, &drop, &ifdrop);
	fprintf(fp, "\ncapture: %llu dropped by the capture ring, %llu by "
	    "the interfaces (before ttd saw them)\n", ull(drop), ull(ifdrop));
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
