# shellcheck shell=bash
# The testbed's own part (sourced by testbed.sh, ifaces.sh, hostile.sh,
# mpi.sh, bench/forward-speed.sh and bench/soak.sh): the building blocks
# of the torus live in tools/ttbed/lib.sh, which ttbed(8) uses too; here
# are the run's life cycle and the ok/FAIL lines of the checks.
#
# Names carry the shell's PID (TB_ID=ttbed<PID>), so parallel runs never
# clash, and everything a run creates is removed by tb_teardown (called
# from an EXIT trap); namespaces of a run that no longer exists are
# removed at start (tb_remove_stale).

. "$(dirname "${BASH_SOURCE[0]}")/../../tools/ttbed/lib.sh"

TB_PASS=0
TB_FAIL=0

# One named check: ok or FAIL, counted for the closing line.
tb_ok()   { TB_PASS=$((TB_PASS + 1)); printf 'ok   %s\n' "$1"; }
tb_fail() { TB_FAIL=$((TB_FAIL + 1)); printf 'FAIL %s\n' "$1"; shift; local l; for l in "$@"; do printf '     %s\n' "$l"; done; }
tb_summary() { printf '%d passed, %d failed\n' "$TB_PASS" "$TB_FAIL"; [ "$TB_FAIL" -eq 0 ]; }

tb_init() {
	TB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ttbed.XXXXXX")
	trap tb_teardown EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	tb_remove_stale
}

tb_teardown() {
	local rc=$?
	trap - EXIT INT TERM
	tb_stop_all
	if [ -n "$TB_TMP" ] && [ -z "${TB_KEEP:-}" ]; then rm -rf "$TB_TMP"; fi
	[ -n "${TB_KEEP:-}" ] && tb_log "testbed: kept $TB_TMP"
	exit $rc
}
