# shellcheck shell=bash
# Open MPI jobs across a twin torus built by lib.sh (sourced after it):
# the management network that carries the launcher's traffic, and the
# launcher.  Used by ttbed(8) (ttbed mpirun), tests/testbed/mpi.sh and
# bench/predict/record.sh; tests/testbed/README.md ("MPI applications")
# says why it is built this way.

MPI_AGENT=$TTBED_LIB/mpi-agent.sh
MPI_HEAD=10.90.255.254  # the launcher's address on the management network
MPI_TIMEOUT=${MPI_TIMEOUT:-90}  # seconds mpi_launch lets one mpirun take

# ---- the management network ----

# PE p's management address: 10.90.0.0/16 + p + 1, as the torus address.
mpi_mgmt_addr() { local a=$(($1 + 1)); echo "10.90.$((a >> 8)).$((a & 255))"; }
mpi_head_ns() { echo "$TB_ID-mgmt"; }

# A namespace for the launcher, with a bridge that every PE namespace
# joins on a veth (mgmt0 there): the cluster's management Ethernet, which
# never touches a torus port or a TAP.
mpi_mgmt_build() {
	local ns t pns
	ns=$(mpi_head_ns)
	ip netns add "$ns" || return 1
	ip -n "$ns" link set lo up
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n "$ns" link add br0 type bridge || return 1
	ip -n "$ns" addr add "$MPI_HEAD/16" dev br0
	ip -n "$ns" link set br0 up
	for ((t = 0; t < TB_NPES; t++)); do
		pns=$(tb_pe_ns $t)
		ip -n "$ns" link add "m$t" type veth peer name mgmt0 netns "$pns" || return 1
		ip -n "$ns" link set "m$t" master br0 up || return 1
		ip -n "$pns" addr add "$(mpi_mgmt_addr $t)/16" dev mgmt0 || return 1
		ip -n "$pns" link set mgmt0 up || return 1
	done
}

# Bytes the PEs sent on the management network so far (the bridge ports'
# receive counters).
mpi_mgmt_bytes() {
	ip -n "$(mpi_head_ns)" -s -j link show master br0 | jq '[.[].stats64.rx.bytes] | add'
}

# ---- running a job ----

# mpi_argv HOSTFILE: MPI_ARGV, mpirun's options for a job on the bed
# (all but -np and the program).  mpirun runs in the launcher's namespace
# and starts an orted in each host's PE namespace through mpi-agent.sh;
# MPI's data may use the torus subnet only (btl_tcp_if_include: the TAPs,
# so ttd forwards and records it), Open MPI's own traffic (orted <->
# mpirun) the management subnet only.  --bind-to none: every "node" shows
# the machine's cores, and binding would put all ranks on the first;
# mpi_yield_when_idle: ranks polling for messages would starve the
# daemons.
mpi_argv() {
	MPI_ARGV=(--allow-run-as-root --hostfile "$1" --bind-to none
	    --mca plm_rsh_agent "$MPI_AGENT" --mca plm_rsh_no_tree_spawn 1
	    --mca pml ob1 --mca btl tcp,self
	    --mca btl_tcp_if_include 10.88.0.0/16
	    --mca oob_tcp_if_include 10.90.0.0/16
	    --mca orte_tmpdir_base "$TB_TMP/ompi"
	    --mca mpi_yield_when_idle 1)
}

# Nothing of a job may outlive it (into the next one's trace): kill what
# is left in the PE namespaces (orteds, ranks; ttd is in the node
# namespaces).
mpi_kill_leftovers() {
	local t p
	for ((t = 0; t < TB_NPES; t++)); do
		for p in $(ip netns pids "$(tb_pe_ns $t)" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	done
}

# mpi_launch NAME HOSTFILE NP WORKDIR CMD...: mpirun in the launcher's
# namespace starts an orted in each host's PE namespace through
# mpi-agent.sh; MPI's data may use the torus subnet only, Open MPI's own
# traffic (orted <-> mpirun) the management subnet only.  Output goes to
# $TB_TMP/NAME.out and .err; MPI_WALL is mpirun's wall time in seconds.
mpi_launch() {
	local name=$1 hosts=$2 np=$3 wd=$4 t0 t1 rc
	shift 4
	mkdir -p "$wd" "$TB_TMP/ompi"
	mpi_argv "$hosts"
	t0=$(date +%s%N)
	(
		cd "$wd" || exit 1
		TTBED_ID=$TB_ID ip netns exec "$(mpi_head_ns)" \
		    unshare --uts /bin/sh -c 'hostname head && exec "$@"' sh \
		    timeout -k 5 $MPI_TIMEOUT mpirun "${MPI_ARGV[@]}" -np "$np" "$@"
	) > "$TB_TMP/$name.out" 2> "$TB_TMP/$name.err"
	rc=$?
	t1=$(date +%s%N)
	MPI_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", (b - a) / 1e9}')
	mpi_kill_leftovers
	return $rc
}

# The hostfile of the PEs given, one slot each: their management
# addresses, which mpi-agent.sh maps back to the PE namespaces.
mpi_hostfile() {
	local f=$1 t
	shift
	for t in "$@"; do echo "$(mpi_mgmt_addr $t) slots=1"; done > "$f"
}
