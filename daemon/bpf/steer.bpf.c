/*
 * ttd's XDP program: torus frames to ttd's AF_XDP socket, the rest to the
 * kernel.
 *
 * A frame whose EtherType is the torus one (0x88B5), directly or behind
 * one 802.1Q tag (ttd --pcp), is redirected to the socket ttd bound to
 * the receive queue it came in on (the XSKMAP `xsks`, filled by ttd);
 * with no socket there it goes to the kernel like everything else
 * (XDP_PASS): ARP, IP, LLDP are none of ttd's business.  ttd loads one
 * copy per port, so that each port has its own map.
 *
 * Built with clang -target bpf (the Makefile) and carried inside ttd
 * (xdp_obj.S), so that no file has to be installed next to it.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define ETH_HLEN	14
#define VLAN_HLEN	4
#define ETH_P_TORUS	0x88B5
#define ETH_P_8021Q	0x8100

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

SEC("xdp")
int ttd_steer(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__be16 *type = data + ETH_HLEN - 2;

	if ((void *)(type + 1) > end)
		return XDP_PASS;
	if (*type == bpf_htons(ETH_P_8021Q)) {
		type = data + ETH_HLEN + VLAN_HLEN - 2;
		if ((void *)(type + 1) > end)
			return XDP_PASS;
	}
	if (*type != bpf_htons(ETH_P_TORUS))
		return XDP_PASS;
	return bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS);
}

char _license[] SEC("license") = "GPL";
