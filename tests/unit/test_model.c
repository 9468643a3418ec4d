/*
 * The hardware model (lib/engine/model.c): a model: section and a model file load
 * what they say and refuse what they must, each error naming its key and
 * position; what tt_model_write() writes loads back identically; layers
 * stack in the order of precedence; nanoseconds become the cycles
 * twintorus/model.h says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "twintorus/config.h"
#include "twintorus/model.h"

static char *
write_tmp(const char *text)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/tt-model-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* Load text as a model file; the errors printed into errs (freed by the
 * caller), the count returned. */
static int
load_model(const char *text, tt_model *m, char **errs)
{
	char *path = write_tmp(text), *buf = NULL, *out;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n;

	assert_non_null(f);
	n = tt_model_load(m, path, f);
	fclose(f);
	/* the path is random: "PATH:" becomes "F:" */
	out = calloc(1, len + 1);
	assert_non_null(out);
	{
		const char *p = buf;
		size_t o = 0, pl = strlen(path);

		while (*p != '\0') {
			if (strncmp(p, path, pl) == 0) {
				out[o++] = 'F';
				p += pl;
			} else {
				out[o++] = *p++;
			}
		}
	}
	free(buf);
	unlink(path);
	*errs = out;
	return n;
}

static void
test_load_every_key(void **state)
{
	tt_model m;
	char *errs;

	(void)state;
	assert_int_equal(load_model("model:\n"
	    "  link_gbps: 2.5\n  router_ns: 300\n  link_ns: 1e7\n"
	    "  send_ns: 1500.5\n  recv_ns: 0\n  vc_bytes: 65536\n"
	    "  internal_vc_bytes: 32768\n  flit_bytes: 64\n"
	    "  packet_flits: 24\n  host_ns: 80000\n  store_forward: true\n"
	    "  shape_gbps: 0.02\n  burst_bytes: 2048\n"
	    "  segment_bytes: 1448\n  frame_header_bytes: 66\n"
	    "  message_header_bytes: 0\n",
	    &m, &errs), 0);
	assert_string_equal(errs, "");
	free(errs);
	assert_int_equal(m.set, (1u << TT_MODEL_NKEYS) - 1);
	assert_true(m.link_gbps == 2.5);
	assert_true(m.router_ns == 300);
	assert_true(m.link_ns == 1e7);
	assert_true(m.send_ns == 1500.5);
	assert_true(m.recv_ns == 0);
	assert_int_equal(m.vc_bytes, 65536);
	assert_int_equal(m.internal_vc_bytes, 32768);
	assert_int_equal(m.flit_bytes, 64);
	assert_int_equal(m.packet_flits, 24);
	assert_true(m.host_ns == 80000);
	assert_int_equal(m.store_forward, 1);
	assert_true(m.shape_gbps == 0.02);
	assert_int_equal(m.burst_bytes, 2048);
	assert_int_equal(m.segment_bytes, 1448);
	assert_int_equal(m.frame_header_bytes, 66);
	assert_int_equal(m.message_header_bytes, 0);

	/* every key optional */
	assert_int_equal(load_model("model:\n  link_ns: 5\n", &m, &errs), 0);
	free(errs);
	assert_int_equal(m.set, TT_MODEL_LINK_NS);
	assert_int_equal(load_model("model: {}\n", &m, &errs), 0);
	free(errs);
	assert_int_equal(m.set, 0);
}

/* Every error, its position and words. */
static void
test_bad_values(void **state)
{
	tt_model m;
	char *errs;

	(void)state;
	assert_int_equal(load_model("model:\n"
	    "  link_gbps: 0\n"
	    "  router_ns: -1\n"
	    "  link_ns: 2e10\n"
	    "  send_ns: fast\n"
	    "  recv_ns: .nan\n"
	    "  vc_bytes: 4096\n"
	    "  internal_vc_bytes: 1.5\n"
	    "  flit_bytes: 0\n"
	    "  packet_flits: 2000\n"
	    "  hops: 3\n"
	    "  host_ns: -5\n"
	    "  shape_gbps: 0\n"
	    "  burst_bytes: 0\n"
	    "  segment_bytes: 0\n"
	    "  frame_header_bytes: 70000\n", &m, &errs), 15);
	assert_string_equal(errs,
	    "F:2:14: model.link_gbps: 0 is out of range (0.001..10000 Gb/s)\n"
	    "F:3:14: model.router_ns: -1 is out of range (0..1e+10 ns)\n"
	    "F:4:12: model.link_ns: 2e10 is out of range (0..1e+10 ns)\n"
	    "F:5:12: model.send_ns: expected a number, got \"fast\"\n"
	    "F:6:12: model.recv_ns: expected a number, got \".nan\"\n"
	    "F:7:13: model.vc_bytes: 4096 is out of range (18432..16777216)\n"
	    "F:8:22: model.internal_vc_bytes: expected an integer, got \"1.5\"\n"
	    "F:9:15: model.flit_bytes: 0 is out of range (1..65536)\n"
	    "F:10:17: model.packet_flits: 2000 is out of range (1..1024)\n"
	    "F:11:3: unknown key model.hops (expected link_gbps, router_ns, "
	    "link_ns, send_ns, recv_ns, vc_bytes, internal_vc_bytes, "
	    "flit_bytes, packet_flits, host_ns, store_forward, shape_gbps, "
	    "burst_bytes, segment_bytes, frame_header_bytes or "
	    "message_header_bytes)\n"
	    "F:12:12: model.host_ns: -5 is out of range (0..1e+10 ns)\n"
	    "F:13:15: model.shape_gbps: 0 is out of range (0.001..10000 Gb/s)\n"
	    "F:14:16: model.burst_bytes: 0 is out of range (1..1073741824)\n"
	    "F:15:18: model.segment_bytes: 0 is out of range (1..65535)\n"
	    "F:16:23: model.frame_header_bytes: 70000 is out of range "
	    "(0..65535)\n");
	free(errs);
	/* a bad key is not set */
	assert_int_equal(m.set, 0);
}

/* A model file holds model: only; a cluster file is refused, by name. */
static void
test_model_file_top(void **state)
{
	tt_model m;
	char *errs;

	(void)state;
	assert_int_equal(load_model("torus:\n  dims: [4, 4]\nmodel:\n"
	    "  link_gbps: 1\n", &m, &errs), 1);
	assert_string_equal(errs, "F:1:1: unknown section torus (expected "
	    "model)\n");
	free(errs);
	assert_int_equal(load_model("network: {}\n", &m, &errs), 2);
	assert_string_equal(errs, "F:1:1: unknown section network (expected "
	    "model)\nF:1:1: missing section model (a model file holds model: "
	    "{link_gbps: ..., router_ns: ..., ...})\n");
	free(errs);
	assert_int_equal(load_model("model: 5\n", &m, &errs), 1);
	assert_string_equal(errs, "F:1:8: model: expected a mapping with keys "
	    "link_gbps, router_ns, link_ns, send_ns, recv_ns, vc_bytes, "
	    "internal_vc_bytes, flit_bytes, packet_flits, host_ns, "
	    "store_forward, shape_gbps, burst_bytes, segment_bytes, "
	    "frame_header_bytes, message_header_bytes; got \"5\"\n");
	free(errs);
	assert_int_equal(load_model("", &m, &errs), 1);
	assert_string_equal(errs, "F:1:1: the file is empty; a model file "
	    "holds a model: section\n");
	free(errs);
}

/* In the cluster file, beside torus:. */
static void
test_cluster_file_section(void **state)
{
	tt_config cfg;
	char *path;

	(void)state;
	path = write_tmp("torus:\n  dims: [4, 4]\nnetwork:\n  flit_bytes: 32\n"
	    "credits:\n  vc_bytes: 20000\nmodel:\n  link_gbps: 25\n"
	    "  router_ns: 100\n");
	assert_int_equal(tt_config_load(&cfg, path, NULL), 0);
	unlink(path);
	assert_int_equal(cfg.model.set, TT_MODEL_LINK_GBPS | TT_MODEL_ROUTER_NS);
	assert_true(cfg.model.link_gbps == 25);
	assert_int_equal(cfg.network_set, TT_MODEL_FLIT_BYTES);
	tt_config_free(&cfg);

	path = write_tmp("torus:\n  dims: [4, 4]\nmodel:\n  vc_bytes: 1\n");
	assert_int_equal(tt_config_load(&cfg, path, NULL), 1);
	unlink(path);
	tt_config_free(&cfg);
}

/* Write, load: the same model, whatever the values' digits. */
static void
test_write_round_trip(void **state)
{
	const double reals[] = {0.1, 1.0 / 3, 2.5, 1e10, 123456.789012345,
	    0.001, 10000};
	tt_model m, back;
	char *buf = NULL, *errs, *path;
	size_t len = 0, i;
	FILE *f;

	(void)state;
	for (i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
		tt_model_init(&m);
		m.link_gbps = reals[i] > 10000 || reals[i] < 0.001 ? 1 : reals[i];
		m.router_ns = reals[i];
		m.link_ns = reals[i] * 7;
		m.send_ns = 0;
		m.recv_ns = reals[i] / 3;
		m.vc_bytes = 65536;
		m.internal_vc_bytes = 18432;
		m.flit_bytes = 64;
		m.packet_flits = 24;
		m.shape_gbps = reals[i] > 0 && reals[i] < 1e4 ? reals[i] : 0.5;
		m.burst_bytes = 1536 + i;
		m.segment_bytes = 1448 - (int)i;
		m.frame_header_bytes = 66 + (int)i;
		m.message_header_bytes = (int)i;
		m.set = (1u << TT_MODEL_NKEYS) - 1;
		if (m.link_ns > TT_MODEL_NS_MAX)
			m.link_ns = TT_MODEL_NS_MAX;
		f = open_memstream(&buf, &len);
		assert_non_null(f);
		assert_int_equal(tt_model_write(f, &m, "calibrated on cluster X"
		    "\n\nfrom 12 runs"), 0);
		fclose(f);
		assert_non_null(strstr(buf, "# calibrated on cluster X\n#\n"
		    "# from 12 runs\nmodel:\n"));
		path = strdup(write_tmp(buf));
		free(buf);
		buf = NULL;
		{
			char *b2 = NULL;
			size_t l2 = 0;
			FILE *e = open_memstream(&b2, &l2);

			assert_int_equal(tt_model_load(&back, path, e), 0);
			fclose(e);
			free(b2);
		}
		unlink(path);
		free(path);
		assert_int_equal(back.set, m.set);
		assert_memory_equal(&back, &m, sizeof(m));
	}
	/* only the keys set are written */
	tt_model_init(&m);
	m.send_ns = 250;
	m.set = TT_MODEL_SEND_NS;
	f = open_memstream(&buf, &len);
	assert_int_equal(tt_model_write(f, &m, NULL), 0);
	fclose(f);
	assert_string_equal(buf, "model:\n  send_ns: 250\n");
	assert_int_equal(load_model(buf, &back, &errs), 0);
	free(errs);
	free(buf);
	assert_memory_equal(&back, &m, sizeof(m));
}

/* flags > model file > the cluster file's model: > network:/credits: >
 * defaults, key by key. */
static void
test_precedence(void **state)
{
	tt_config cfg;
	tt_model m, file, flags;
	char *path;

	(void)state;
	path = write_tmp("torus:\n  dims: [4, 4]\nnetwork:\n  link_gbps: 40\n"
	    "  flit_bytes: 32\ncredits:\n  vc_bytes: 20000\n"
	    "  internal_vc_bytes: 30000\nmodel:\n  link_gbps: 25\n"
	    "  router_ns: 100\n  link_ns: 10\n");
	assert_int_equal(tt_config_load(&cfg, path, NULL), 0);
	unlink(path);

	tt_model_from_config(&cfg, &m);
	assert_int_equal(m.set, TT_MODEL_LINK_GBPS | TT_MODEL_FLIT_BYTES |
	    TT_MODEL_VC_BYTES | TT_MODEL_INTERNAL_VC_BYTES);
	assert_true(m.link_gbps == 40);
	tt_model_over(&m, &cfg.model);
	tt_model_init(&file);
	file.link_ns = 20;
	file.vc_bytes = 40000;
	file.set = TT_MODEL_LINK_NS | TT_MODEL_VC_BYTES;
	tt_model_over(&m, &file);
	tt_model_init(&flags);
	flags.vc_bytes = 50000;
	flags.set = TT_MODEL_VC_BYTES;
	tt_model_over(&m, &flags);
	tt_model_fill(&m, 1);
	assert_true(m.link_gbps == 25);         /* model: over network: */
	assert_int_equal(m.flit_bytes, 32);     /* network:, no model says */
	assert_int_equal(m.packet_flits, 48);   /* a frame: 1536 / 32 */
	assert_true(m.router_ns == 100);        /* model: */
	assert_true(m.link_ns == 20);           /* the model file over it */
	assert_int_equal(m.vc_bytes, 50000);    /* the flag over all */
	assert_int_equal(m.internal_vc_bytes, 30000);   /* credits: */
	tt_config_free(&cfg);

	/* no model: the engine's defaults, nothing else */
	tt_model_init(&m);
	tt_model_fill(&m, 0);
	assert_true(m.link_gbps == TT_LINK_GBPS_DEFAULT);
	assert_int_equal(m.flit_bytes, TT_FLIT_BYTES_DEFAULT);
	assert_int_equal(m.packet_flits, TT_PACKET_FLITS_DEFAULT);
	assert_int_equal(m.vc_bytes, 0);
	/* a model's link rate alone: the frame granularity */
	tt_model_init(&m);
	m.link_gbps = 100;
	m.set = TT_MODEL_LINK_GBPS;
	tt_model_fill(&m, 1);
	assert_int_equal(m.flit_bytes, 64);
	assert_int_equal(m.packet_flits, 24);
	assert_int_equal(m.vc_bytes, TT_MODEL_VC_BYTES_DEFAULT);
	assert_int_equal(m.internal_vc_bytes, TT_MODEL_VC_BYTES_DEFAULT);
	assert_int_equal(m.set, TT_MODEL_LINK_GBPS);
}

/* ns -> cycles, as model.h says. */
static void
test_apply(void **state)
{
	tt_simparams p;
	tt_model m;
	tt_model_cycles c;
	char err[256];

	(void)state;
	tt_simparams_default(&p);
	tt_model_init(&m);
	m.link_gbps = 10;               /* 64-byte flits: 51.2 ns a cycle */
	m.flit_bytes = 64;
	m.packet_flits = 24;
	m.router_ns = 250;              /* 4.88 -> 5 */
	m.link_ns = 5;                  /* 0.1 -> at least 1 */
	m.send_ns = 1000;               /* 19.53 -> 20 */
	m.recv_ns = 20;                 /* 0.39 -> 0 */
	m.vc_bytes = 65536 + 63;        /* 1024 whole flits */
	m.internal_vc_bytes = 18432;    /* 288 */
	m.shape_gbps = 2.5;             /* a quarter flit a cycle */
	m.burst_bytes = 4096 + 63;      /* 64 whole flits */
	m.set = (1u << TT_MODEL_NKEYS) - 1;
	assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), 0);
	assert_int_equal(p.shape_rate, 16384);
	assert_int_equal(p.shape_burst, 64);
	assert_true(c.cycle_ns == 51.2);
	assert_int_equal(p.net.packet_flits, 24);
	assert_int_equal(p.router_latency, 5);
	assert_int_equal(p.link_latency, 1);
	assert_int_equal(p.send_overhead, 20);
	assert_int_equal(p.recv_overhead, 0);
	assert_int_equal(p.vc_flits, 1024);
	assert_int_equal(p.int_vc_flits, 288);
	assert_int_equal(c.router, 5);
	assert_int_equal(c.link, 1);

	/* unset keys leave the engine's values */
	tt_simparams_default(&p);
	tt_model_init(&m);
	m.send_ns = 128;
	m.set = TT_MODEL_SEND_NS;       /* 16 bytes at 10 Gb/s: 12.8 ns */
	assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), 0);
	assert_int_equal(p.send_overhead, 10);
	assert_int_equal(p.router_latency, TT_LATENCY_DEFAULT);
	assert_int_equal(p.link_latency, TT_LATENCY_DEFAULT);
	assert_int_equal(p.net.packet_flits, TT_PACKET_FLITS_DEFAULT);
	assert_int_equal(p.vc_flits, 0);

	/* host_ns: half of it on each overhead */
	tt_simparams_default(&p);
	m.host_ns = 256;
	m.set = TT_MODEL_SEND_NS | TT_MODEL_HOST_NS;
	assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), 0);
	assert_int_equal(p.send_overhead, 20);  /* (128 + 128) / 12.8 */
	assert_int_equal(p.recv_overhead, 10);  /* 128 / 12.8 */

	/* 10 ms on a link: the engine takes it once TT_LATENCY_MAX is 2^24;
	 * meanwhile the cycle of 64 KiB flits at 1 Gb/s (524 us) takes it */
	tt_simparams_default(&p);
	tt_model_init(&m);
	m.link_gbps = 1;
	m.flit_bytes = 65536;
	m.link_ns = 1e7;
	m.set = TT_MODEL_LINK_GBPS | TT_MODEL_FLIT_BYTES | TT_MODEL_LINK_NS;
	assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), 0);
	assert_int_equal(p.link_latency, 19);   /* 1e7 / 524288 = 19.07 */
	m.flit_bytes = 64;
	m.link_gbps = 10;
	if (TT_LATENCY_MAX >= 195313) {
		assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), 0);
		assert_int_equal(p.link_latency, 195313);
	} else {
		p.link_latency = 7;
		assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "model: link_ns 1e+07 is 195313 "
		    "cycles of 51.2 ns, more than the"));
		assert_non_null(strstr(err, "give larger flit_bytes"));
		assert_int_equal(p.link_latency, 7);    /* unchanged */
	}

	/* a buffer must hold a packet */
	tt_simparams_default(&p);
	tt_model_init(&m);
	m.flit_bytes = 1024;
	m.packet_flits = 24;
	m.vc_bytes = 20480;
	m.set = TT_MODEL_FLIT_BYTES | TT_MODEL_PACKET_FLITS | TT_MODEL_VC_BYTES;
	assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), -1);
	assert_string_equal(err, "model: vc_bytes 20480 holds 20 flits of 1024 "
	    "bytes, less than a packet (24 flits); a buffer must hold a whole "
	    "packet");
}

/*
 * Shaped links in the engine's units: a refill of round(65536 * shape_gbps
 * / link_gbps) 65536ths of a flit a cycle (at least one), a bucket of
 * burst_bytes in whole flits, a packet by default.  No bucket when
 * shape_gbps is unset, at or above the line rate, or so near it that the
 * refill rounds to a flit a cycle (the engine's resolution: the bucket
 * would hold nothing back).  A bucket smaller than a packet is refused.
 */
static void
test_apply_shape(void **state)
{
	tt_simparams p;
	tt_model m;
	tt_model_cycles c;
	char err[256];

	(void)state;
	tt_simparams_default(&p);
	tt_model_init(&m);
	m.link_gbps = 10;               /* 16-byte flits, 4 a packet */
	m.shape_gbps = 1;
	m.set = TT_MODEL_LINK_GBPS | TT_MODEL_SHAPE_GBPS;
	assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), 0);
	assert_int_equal(p.shape_rate, 6554);   /* 6553.6 */
	assert_int_equal(p.shape_burst, 4);     /* a packet */
	assert_int_equal(c.shape_rate, 6554);
	assert_int_equal(c.shape_burst, 4);
	/* the smallest rate still refills */
	m.link_gbps = 10000;
	m.shape_gbps = 0.001;
	assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), 0);
	assert_int_equal(p.shape_rate, 1);      /* 0.0066 */
	/* just under the line rate: 65535.3 and 65535.5 are shaped */
	m.link_gbps = 10;
	m.shape_gbps = 10 * 65535.3 / 65536;
	assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), 0);
	assert_int_equal(p.shape_rate, 65535);
	/* 65535.7 rounds to the line rate: not shaped, as at or above it */
	m.shape_gbps = 10 * 65535.7 / 65536;
	assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), 0);
	assert_int_equal(p.shape_rate, 0);
	assert_int_equal(c.shape_rate, 0);
	m.shape_gbps = 9.99999;
	p.shape_rate = 77;              /* an earlier model's */
	assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), 0);
	assert_int_equal(p.shape_rate, 0);
	m.shape_gbps = 10;
	assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), 0);
	assert_int_equal(p.shape_rate, 0);
	m.shape_gbps = 40;
	assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), 0);
	assert_int_equal(p.shape_rate, 0);
	/* a depth that is no whole packet: refused unless links are not
	 * shaped */
	m.burst_bytes = 63;
	m.set |= TT_MODEL_BURST_BYTES;
	assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), 0);
	m.shape_gbps = 5;
	assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), -1);
	assert_string_equal(err, "model: burst_bytes 63 holds 3 flits of 16 "
	    "bytes, less than a packet (4 flits); a bucket must hold a whole "
	    "frame");
	m.burst_bytes = 64;
	assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), 0);
	assert_int_equal(p.shape_rate, 32768);
	assert_int_equal(p.shape_burst, 4);
	m.burst_bytes = 1 << 30;
	assert_int_equal(tt_model_apply(&m, &p, &c, err, sizeof(err)), 0);
	assert_int_equal(p.shape_burst, 1u << 26);
}

/* A message's last packet carries the rest, in whole flits. */
static void
test_last_packet(void **state)
{
	(void)state;
	/* 4 flits of 16 bytes: 64-byte packets */
	assert_int_equal(tt_last_packet_flits(64, 4, 16), 0);     /* full */
	assert_int_equal(tt_last_packet_flits(128, 4, 16), 0);
	assert_int_equal(tt_last_packet_flits(65, 4, 16), 1);
	assert_int_equal(tt_last_packet_flits(100, 4, 16), 3);    /* 36 B */
	assert_int_equal(tt_last_packet_flits(1, 4, 16), 1);
	assert_int_equal(tt_last_packet_flits(0, 4, 16), 1);      /* empty */
	assert_int_equal(tt_last_packet_flits(0, 1, 16), 0);      /* 1 = full */
	/* the frame granularity: a 1514-byte frame is 24 flits, a 64-byte
	 * one 1 */
	assert_int_equal(tt_last_packet_flits(1514, 24, 64), 0);
	assert_int_equal(tt_last_packet_flits(1500, 24, 64), 0);
	assert_int_equal(tt_last_packet_flits(1470, 24, 64), 23);
	assert_int_equal(tt_last_packet_flits(64, 24, 64), 1);
	assert_int_equal(tt_last_packet_flits(1536 + 100, 24, 64), 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_every_key),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_model_file_top),
		cmocka_unit_test(test_cluster_file_section),
		cmocka_unit_test(test_write_round_trip),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_apply_shape),
		cmocka_unit_test(test_last_packet),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
