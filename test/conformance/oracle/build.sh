#!/usr/bin/env bash
# Build the conformance oracle binaries (real client-go inside testing/synctest).
#
#   test/conformance/oracle/build.sh [PROFILE...]     (default: every profile with an oracle)
#
# Each profile is one client-go line, pinned by its own module file:
#   v1.36 → go.mod       (k8s.io/client-go v0.36.x)
#   v1.34 → go.v034.mod  (v0.34.x)
#   v1.32 → go.v032.mod  (v0.32.x)
#   v1.15 → go.v115.mod  (kubernetes-1.15.0 pseudo-version, build tag k115)
# The binary goes to bin/<profile>/oracle. The build is skipped when bin/<profile>/stamp
# holds the hash of the sources, the module files, this script and the Go version.
# Needs only Go (>= 1.26) and access to the Go module proxy; GOMODCACHE/GOCACHE stay default.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

ALL_PROFILES=(v1.36 v1.34 v1.32 v1.15)

tags_for() {
  case "$1" in
    v1.36) echo v036 ;;
    v1.34) echo v034 ;;
    v1.32) echo v032 ;;
    v1.15) echo k115 ;;
  esac
}

modfile_for() {
  case "$1" in
    v1.36) echo go.mod ;;
    v1.34) echo go.v034.mod ;;
    v1.32) echo go.v032.mod ;;
    v1.15) echo go.v115.mod ;;
    *) return 1 ;;
  esac
}

if ! command -v go >/dev/null 2>&1; then
  echo "build.sh: go is not installed (need Go >= 1.26)" >&2
  exit 2
fi

profiles=("$@")
if [ ${#profiles[@]} -eq 0 ]; then profiles=("${ALL_PROFILES[@]}"); fi

hash_inputs() { # $1 = modfile
  local mf=$1 sum=${1%.mod}.sum
  {
    go version
    sha256sum build.sh "$mf" "$sum" go.mod
    sha256sum $(ls *.go | LC_ALL=C sort)
  } | sha256sum | cut -d' ' -f1
}

status=0
for p in "${profiles[@]}"; do
  if ! mf=$(modfile_for "$p"); then
    echo "build.sh: unknown profile '$p' (known: ${ALL_PROFILES[*]})" >&2
    status=2
    continue
  fi
  out="bin/$p"
  h=$(hash_inputs "$mf")
  if [ -x "$out/oracle" ] && [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$h" ]; then
    continue
  fi
  mkdir -p "$out"
  rm -f "$out/stamp"
  echo "build.sh: building $p oracle ($mf)" >&2
  start=$(date +%s)
  if go test -c -modfile="$mf" -tags "$(tags_for "$p")" -trimpath -o "$out/oracle" \
      -ldflags "-X informer-inspector/oracle.Profile=$p" . ; then
    echo "$h" > "$out/stamp"
    echo "build.sh: $p built in $(( $(date +%s) - start ))s" >&2
  else
    echo "build.sh: building the $p oracle failed" >&2
    status=1
  fi
done
exit $status
