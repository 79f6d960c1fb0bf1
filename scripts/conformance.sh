#!/usr/bin/env bash
# Conformance: our engine against real client-go (docs/scenario-format.md, test/conformance/).
#
#   npm run conformance [-- --regen] [-- RUNNER-ARGS...]
#
#   --regen   accept what the Go oracles produce now as the new expected logs
#   other arguments go to test/conformance/run.ts (--profile P, --only SUBSTRING, --quiet)
#
# Builds the oracles first when test/conformance/oracle/build.sh exists (it skips up-to-date
# builds). Ends with the runner's line "N passed, M failed"; exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."

regen=0
runner_args=()
for a in "$@"; do
  if [ "$a" = "--regen" ]; then regen=1; else runner_args+=("$a"); fi
done

oracle=test/conformance/oracle
if [ -x "$oracle/build.sh" ] || [ -f "$oracle/build.sh" ]; then
  if ! bash "$oracle/build.sh"; then
    echo "conformance: building the client-go oracles failed; comparing with the expected logs already there" >&2
  fi
fi
# Every run asks real client-go again (the oracles replay the whole corpus in seconds under
# synctest's virtual time): the oracle's output is written over test/conformance/expected/, and
# unless --regen was asked for, any difference from the checked-in logs fails the run, so a stale
# expected log can never hide a divergence.
stale=0
if [ -f "$oracle/regen.sh" ] && [ -x "$oracle/bin/v1.36/oracle" ]; then
  bash "$oracle/regen.sh" || { echo "conformance: the client-go oracles failed on some scenario" >&2; stale=1; }
  if [ $regen -eq 0 ] && git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    changed=$(git status --porcelain -- test/conformance/expected)
    if [ -n "$changed" ]; then
      echo "conformance: the checked-in expected logs differ from what real client-go produces now:" >&2
      echo "$changed" | sed 's/^/  /' >&2
      echo "conformance: review and commit them (npm run conformance -- --regen)" >&2
      stale=1
    fi
  fi
elif [ $regen -eq 1 ]; then
  echo "conformance: --regen needs the built oracles ($oracle/build.sh)" >&2
  echo "0 passed, 1 failed"
  exit 2
else
  echo "conformance: no oracle binaries; comparing with the checked-in expected logs only" >&2
fi
if [ $stale -eq 1 ]; then
  npx tsx test/conformance/run.ts "${runner_args[@]}"
  echo "conformance: FAILED (expected logs stale or an oracle failed; see above)" >&2
  exit 1
fi
exec npx tsx test/conformance/run.ts "${runner_args[@]}"
