#!/usr/bin/env bash
# Conformance: our engine against real client-go (docs/scenario-format.md, test/conformance/).
#
#   npm run conformance [-- --regen] [-- RUNNER-ARGS...]
#
#   --regen   first regenerate test/conformance/expected/ with the Go oracle (oracle/regen.sh)
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
if [ $regen -eq 1 ]; then
  if [ ! -f "$oracle/regen.sh" ]; then
    echo "conformance: --regen needs $oracle/regen.sh" >&2
    echo "0 passed, 1 failed"
    exit 2
  fi
  bash "$oracle/regen.sh" || { echo "conformance: regenerating the expected logs failed" >&2; echo "0 passed, 1 failed"; exit 1; }
fi
exec npx tsx test/conformance/run.ts "${runner_args[@]}"
