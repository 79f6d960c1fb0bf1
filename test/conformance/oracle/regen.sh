#!/usr/bin/env bash
# Regenerate test/conformance/expected/<profile>/<name>.ndjson from real client-go for
# every test/conformance/scenarios/*.json and every profile that has an oracle and that the
# scenario is meant for (its optional top-level "profiles" list; default: all).
#
#   test/conformance/oracle/regen.sh [PROFILE...]
#
# REGEN_ONLY="name1 name2" limits the run to those scenarios (file names without .json).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
conf=$(dirname "$here")
ALL_PROFILES=(v1.36 v1.34 v1.32 v1.15)
profiles=("$@")
if [ ${#profiles[@]} -eq 0 ]; then profiles=("${ALL_PROFILES[@]}"); fi

"$here/build.sh" "${profiles[@]}" || exit $?

status=0
shopt -s nullglob
for p in "${profiles[@]}"; do
  mkdir -p "$conf/expected/$p"
  for old in "$conf/expected/$p"/*.ndjson; do # scenario removed
    [ -f "$conf/scenarios/$(basename "$old" .ndjson).json" ] || rm -f "$old"
  done
  for sc in "$conf"/scenarios/*.json; do
    name=$(basename "$sc" .json)
    if [ -n "${REGEN_ONLY:-}" ] && [[ " $REGEN_ONLY " != *" $name "* ]]; then continue; fi
    out="$conf/expected/$p/$name.ndjson"
    tmp=$(mktemp)
    ORACLE_RUNS=${ORACLE_RUNS:-auto} ORACLE_ONLY_MEANT_FOR_PROFILE=1 "$here/bin/$p/oracle" "$sc" >"$tmp"
    rc=$?
    case $rc in
      0|1)
        # The set of logs only grows: a rare log client-go produced in an earlier regen stays
        # (ORACLE_REGEN_FRESH=1 starts from what this run saw).
        if [ -f "$out" ] && [ "${ORACLE_REGEN_FRESH:-0}" != 1 ]; then
          node "$here/mergeVariants.js" "$out" "$tmp" >"$tmp.merged"
          mrc=$?
          if [ $mrc -eq 3 ]; then
            # None of the checked-in logs came out this time: they are stale (see mergeVariants.js).
            echo "regen.sh: $p $name: client-go produced none of the checked-in logs" >&2
            [ -n "${REGEN_STALE_LIST:-}" ] && echo "test/conformance/expected/$p/$name.ndjson" >>"$REGEN_STALE_LIST"
            mrc=0
          fi
          if [ $mrc -eq 0 ]; then mv "$tmp.merged" "$out"; else echo "regen.sh: $p $name: merging the logs failed" >&2; status=1; fi
          rm -f "$tmp" "$tmp.merged"
        else
          mv "$tmp" "$out"
        fi ;;
      4) rm -f "$tmp" "$out" ;; # not meant for this profile
      *) rm -f "$tmp"; echo "regen.sh: $p $name: oracle failed (exit $rc)" >&2; status=1 ;;
    esac
  done
done
exit $status
