/*
 * tbblast: UDP as fast as a PE can send it, for the testbed's many-to-one
 * scenarios.
 *
 *   tbblast send ADDR PORT SECONDS [BYTES]   send datagrams of BYTES (1400)
 *                                             to ADDR:PORT for SECONDS, in
 *                                             batches (sendmmsg); print
 *                                             "sent N"
 *   tbblast sink ADDR PORT IDLE               count datagrams on ADDR:PORT
 *                                             until none came for IDLE
 *                                             seconds; print "received N"
 *
 * A sender blocks in sendmmsg() while its socket's buffer is full, which
 * is how a PE's TAP, not read by ttd, slows it down.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH	32

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int
addr(const char *a, const char *p, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)atoi(p));
	return inet_pton(AF_INET, a, &sa->sin_addr) == 1 ? 0 : -1;
}

static int
cmd_send(const struct sockaddr_in *sa, double secs, size_t bytes)
{
	static uint8_t buf[65507];
	struct mmsghdr m[BATCH];
	struct iovec iov;
	uint64_t end, sent = 0;
	int s, i, n;

	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || connect(s, (const struct sockaddr *)sa,
	    sizeof(*sa)) < 0) {
		fprintf(stderr, "tbblast: %s\n", strerror(errno));
		return 1;
	}
	memset(buf, 0x5a, bytes);
	iov.iov_base = buf;
	iov.iov_len = bytes;
	memset(m, 0, sizeof(m));
	for (i = 0; i < BATCH; i++) {
		m[i].msg_hdr.msg_iov = &iov;
		m[i].msg_hdr.msg_iovlen = 1;
	}
	end = now_ms() + (uint64_t)(secs * 1000);
	while (now_ms() < end) {
		n = sendmmsg(s, m, BATCH, 0);
		if (n > 0)
			sent += (uint64_t)n;
		else if (errno != ENOBUFS && errno != EAGAIN &&
		    errno != EINTR && errno != ECONNREFUSED) {
			fprintf(stderr, "tbblast: send: %s\n", strerror(errno));
			return 1;
		}
	}
	printf("sent %" PRIu64 "\n", sent);
	return 0;
}

static int
cmd_sink(const struct sockaddr_in *sa, int idle)
{
	static uint8_t buf[65536];
	struct pollfd pfd;
	uint64_t got = 0, last;
	int s, rcv = 4 << 20;

	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || bind(s, (const struct sockaddr *)sa, sizeof(*sa)) < 0) {
		fprintf(stderr, "tbblast: %s\n", strerror(errno));
		return 1;
	}
	(void)setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	pfd.fd = s;
	pfd.events = POLLIN;
	last = now_ms();
	while (now_ms() - last < (uint64_t)idle * 1000) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		while (recv(s, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
			got++;
		last = now_ms();
	}
	printf("received %" PRIu64 "\n", got);
	return 0;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sa;

	if (argc >= 5 && argc <= 6 && strcmp(argv[1], "send") == 0 &&
	    addr(argv[2], argv[3], &sa) == 0)
		return cmd_send(&sa, atof(argv[4]), argc == 6 ?
		    (size_t)atoi(argv[5]) : 1400);
	if (argc == 5 && strcmp(argv[1], "sink") == 0 &&
	    addr(argv[2], argv[3], &sa) == 0)
		return cmd_sink(&sa, atoi(argv[4]));
	fprintf(stderr, "usage: tbblast send ADDR PORT SECONDS [BYTES]\n"
	    "       tbblast sink ADDR PORT IDLE\n");
	return 64;
}
