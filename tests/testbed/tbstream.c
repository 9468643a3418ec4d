/*
 * tbstream: the testbed's bulk transfer, checked byte for byte.
 *
 *   tbstream recv ADDR PORT          accept one TCP connection on ADDR:PORT,
 *                                    read it to the end, check every byte
 *                                    against the pattern; print "BYTES ok"
 *   tbstream send ADDR PORT BYTES    connect and send BYTES of the pattern
 *
 * The pattern is a xorshift32 stream, so a byte lost, duplicated or
 * reordered on the way is caught at its offset, not only in a sum.  Exit 0
 * only if the receiver saw exactly the stream up to the sender's close.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHUNK 65536

struct pattern {
	uint32_t x;
	uint32_t word;
	int left;           /* bytes of word not yet used */
};

static uint8_t
pattern_next(struct pattern *p)
{
	uint8_t b;

	if (p->left == 0) {
		p->x ^= p->x << 13;
		p->x ^= p->x >> 17;
		p->x ^= p->x << 5;
		p->word = p->x;
		p->left = 4;
	}
	b = (uint8_t)p->word;
	p->word >>= 8;
	p->left--;
	return b;
}

static int
parse_addr(const char *addr, const char *port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)atoi(port));
	if (inet_pton(AF_INET, addr, &sa->sin_addr) != 1) {
		fprintf(stderr, "tbstream: %s: not an IPv4 address\n", addr);
		return -1;
	}
	return 0;
}

static int
cmd_recv(const char *addr, const char *port)
{
	struct sockaddr_in sa;
	struct pattern p = {2463534242u, 0, 0};
	static uint8_t buf[CHUNK];
	uint64_t total = 0;
	int ls, fd, one = 1;
	ssize_t n, i;

	if (parse_addr(addr, port, &sa) != 0)
		return 64;
	ls = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    listen(ls, 1) != 0) {
		fprintf(stderr, "tbstream: listen on %s:%s: %s\n", addr, port,
		    strerror(errno));
		return 1;
	}
	fd = accept(ls, NULL, NULL);
	if (fd < 0) {
		fprintf(stderr, "tbstream: accept: %s\n", strerror(errno));
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++)
			if (buf[i] != pattern_next(&p)) {
				fprintf(stderr, "tbstream: byte %" PRIu64 " differs "
				    "from what was sent\n", total + (uint64_t)i);
				return 1;
			}
		total += (uint64_t)n;
	}
	if (n < 0) {
		fprintf(stderr, "tbstream: read: %s\n", strerror(errno));
		return 1;
	}
	printf("%" PRIu64 " ok\n", total);
	return 0;
}

static int
cmd_send(const char *addr, const char *port, const char *bytes)
{
	struct sockaddr_in sa;
	struct pattern p = {2463534242u, 0, 0};
	static uint8_t buf[CHUNK];
	uint64_t left = strtoull(bytes, NULL, 10);
	int fd;

	if (parse_addr(addr, port, &sa) != 0)
		return 64;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fprintf(stderr, "tbstream: connect to %s:%s: %s\n", addr, port,
		    strerror(errno));
		return 1;
	}
	while (left > 0) {
		size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf), i, off;

		for (i = 0; i < n; i++)
			buf[i] = pattern_next(&p);
		for (off = 0; off < n; ) {
			ssize_t w = write(fd, buf + off, n - off);

			if (w < 0) {
				fprintf(stderr, "tbstream: write: %s\n",
				    strerror(errno));
				return 1;
			}
			off += (size_t)w;
		}
		left -= n;
	}
	if (close(fd) != 0) {
		fprintf(stderr, "tbstream: close: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "recv") == 0)
		return cmd_recv(argv[2], argv[3]);
	if (argc == 5 && strcmp(argv[1], "send") == 0)
		return cmd_send(argv[2], argv[3], argv[4]);
	fprintf(stderr, "usage: tbstream recv ADDR PORT | send ADDR PORT BYTES\n");
	return 64;
}
