#!/bin/sh
# Open MPI's remote-start agent on the testbed (plm_rsh_agent), called by
# mpirun as an rsh would be:  mpi-agent.sh HOST COMMAND...
#
# HOST is a PE's management address, 10.90.0.0/16 + pe + 1, as the
# hostfile mpi.sh writes names them.  COMMAND (Open MPI's orted, with its
# environment set up in shell syntax, as rsh passes it) runs in that PE's
# network namespace, TTBED_ID-p<pe>, and in a UTS namespace of its own
# whose host name is pe<pe>, so that every "node" of the job has its own
# name as on a cluster.  Exit status: COMMAND's; 2 when HOST is not a
# management address or TTBED_ID is not set.
set -u
host=${1:-}
[ $# -ge 2 ] || { echo "mpi-agent.sh: usage: mpi-agent.sh HOST COMMAND..." >&2; exit 2; }
shift
[ -n "${TTBED_ID:-}" ] || { echo "mpi-agent.sh: TTBED_ID is not set (mpi.sh sets it)" >&2; exit 2; }
case $host in
10.90.*.*) ;;
*) echo "mpi-agent.sh: $host: not a testbed management address (10.90.0.0/16)" >&2; exit 2 ;;
esac
rest=${host#10.90.}
hi=${rest%%.*}
lo=${rest#*.}
pe=$((hi * 256 + lo - 1))
ns=$TTBED_ID-p$pe
ip netns list | grep -q "^$ns\( \|$\)" || { echo "mpi-agent.sh: $host: no namespace $ns" >&2; exit 2; }
# rsh semantics: the words after HOST are one command line for a shell
exec ip netns exec "$ns" unshare --uts /bin/sh -c "hostname pe$pe && $*"
