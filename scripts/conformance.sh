#!/usr/bin/env bash
# Conformance: our engine against real client-go (docs/scenario-format.md, test/conformance/).
#
#   npm run conformance [-- --regen] [-- --generate N] [-- --seed S] [-- RUNNER-ARGS...]
#
#   --regen       accept what the Go oracles produce now as the new expected logs
#   --generate N  generated scenarios to run after the corpus (test/conformance/generate.ts);
#                 default 1000 with seed 1 (the CI batch), 0 to skip
#   --seed S      the generator's seed
#   other arguments go to test/conformance/run.ts (--profile P, --only SUBSTRING, --quiet)
#
# Builds the oracles first when test/conformance/oracle/build.sh exists (it skips up-to-date
# builds). Ends with the runner's line "N passed, M failed"; exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."

regen=0
gen_count=${CONFORMANCE_GENERATE:-1000}
gen_seed=1
runner_args=()
args=("$@")
i=0
while [ $i -lt ${#args[@]} ]; do
  a=${args[$i]}
  case "$a" in
    --regen) regen=1 ;;
    --generate) i=$((i + 1)); gen_count=${args[$i]:-} ;;
    --seed) i=$((i + 1)); gen_seed=${args[$i]:-} ;;
    *) runner_args+=("$a") ;;
  esac
  i=$((i + 1))
done
if ! [[ "$gen_count" =~ ^[0-9]+$ ]] || ! [[ "$gen_seed" =~ ^-?[0-9]+$ ]]; then
  echo "conformance: --generate needs a count and --seed a number" >&2
  echo "0 passed, 1 failed"
  exit 2
fi

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
  stale_list=$(mktemp)
  REGEN_STALE_LIST=$stale_list bash "$oracle/regen.sh" || { echo "conformance: the client-go oracles failed on some scenario" >&2; stale=1; }
  if [ $regen -eq 0 ] && git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # The logs of a scenario are the set client-go can produce (each run of the oracle tries it
    # until no new log shows up for a while). A file that only GREW kept every checked-in log and
    # gained a rarer one client-go produced this time: nondeterminism found, said, not a failure
    # (the engine is judged against the grown set). It fails when client-go produced none of the
    # checked-in logs (stale), or when an expected log is new or gone (a scenario unjudged).
    changed=$(git status --porcelain -- test/conformance/expected)
    grown=$(echo "$changed" | grep -E '^ M ' | sed -E 's/^ M //' | grep -vxF -f "$stale_list" || true)
    failing=$(echo "$changed" | grep -vE '^ M ' | grep -v '^$' || true)
    if [ -s "$stale_list" ]; then failing=$(printf '%s\n%s' "$failing" "$(sed 's/^/ M /' "$stale_list")" | grep -v '^$'); fi
    if [ -n "$grown" ]; then
      echo "conformance: client-go produced logs beyond the checked-in set of these scenarios (nondeterminism found, not a failure; commit them with --regen):" >&2
      echo "$grown" | sed 's/^/  /' >&2
    fi
    if [ -n "$failing" ]; then
      echo "conformance: the checked-in expected logs differ from what real client-go produces now:" >&2
      echo "$failing" | sed 's/^/  /' >&2
      echo "conformance: review and commit them (npm run conformance -- --regen)" >&2
      stale=1
    fi
  fi
  rm -f "$stale_list"
elif [ $regen -eq 1 ]; then
  echo "conformance: --regen needs the built oracles ($oracle/build.sh)" >&2
  echo "0 passed, 1 failed"
  exit 2
else
  echo "conformance: no oracle binaries; comparing with the checked-in expected logs only" >&2
fi
corpus_log=$(mktemp)
gen_log=$(mktemp)
trap 'rm -f "$corpus_log" "$gen_log"' EXIT
npx tsx test/conformance/run.ts "${runner_args[@]}" | tee "$corpus_log"
status=${PIPESTATUS[0]}
counts() { grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -1 | sed -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/'; }
read -r cp cf <<<"$(counts "$corpus_log")"
gp=0 gf=0
if [ "$gen_count" -gt 0 ]; then
  if [ -x test/conformance/oracle/bin/v1.36/oracle ]; then
    npx tsx test/conformance/generate.ts --count "$gen_count" --seed "$gen_seed" | tee "$gen_log"
    gstatus=${PIPESTATUS[0]}
    read -r gp gf <<<"$(counts "$gen_log")"
    [ "$gstatus" -ne 0 ] && status=1
  else
    echo "conformance: no oracle binaries; the generated scenarios are skipped" >&2
  fi
fi
if [ $stale -eq 1 ]; then
  echo "conformance: FAILED (expected logs stale or an oracle failed; see above)" >&2
  status=1
fi
echo "conformance: corpus ${cp:-0} passed, ${cf:-0} failed; generated ${gp:-0} passed, ${gf:-0} failed"
echo "$(( ${cp:-0} + ${gp:-0} )) passed, $(( ${cf:-0} + ${gf:-0} )) failed"
exit $status
