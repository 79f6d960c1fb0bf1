#!/usr/bin/env bash
# Replay one scenario through real client-go and print the notification log.
#
#   test/conformance/oracle/run.sh PROFILE SCENARIO.json
#
# Exit: 0 ran without divergence, 1 divergence, 2 bad input, 3 internal error.
# ORACLE_VERBOSITY=N shows client-go's klog output (-v=N) on stderr.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ne 2 ]; then
  echo "usage: run.sh PROFILE SCENARIO.json" >&2
  exit 2
fi
profile=$1 scenario=$2
if [ ! -f "$scenario" ]; then
  echo "run.sh: scenario file not found: $scenario" >&2
  exit 2
fi
build_err=$(mktemp)
trap 'rm -f "$build_err"' EXIT
"$here/build.sh" "$profile" 2>"$build_err"
rc=$?
if [ $rc -ne 0 ]; then
  if [ $rc -eq 2 ]; then
    grep -m1 . "$build_err" >&2
    exit 2
  fi
  cat "$build_err" >&2
  exit 3
fi
err=$(mktemp)
trap 'rm -f "$build_err" "$err"' EXIT
"$here/bin/$profile/oracle" "$scenario" 2>"$err"
rc=$?
cat "$err" >&2
# A Go panic also exits with 2; that is an internal error, not bad input.
if [ $rc -eq 2 ] && grep -q -E '^(panic: |fatal error: )' "$err"; then rc=3; fi
exit $rc
