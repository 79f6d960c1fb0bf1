#!/usr/bin/env bash
# Builds the Go controllers the observe e2e test runs through the observing proxy:
#   test/e2e/observe/build.sh [LINE...]    (default: both)
#   v1.36 → controller/     (client-go v0.36.x)          → bin/v1.36/controller
#   v1.15 → controller115/  (client-go kubernetes-1.15.0) → bin/v1.15/controller
# A build is skipped when bin/<line>/stamp holds the hash of the sources, the module files,
# this script and the Go version. Needs Go and the Go module proxy.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v go >/dev/null 2>&1; then
  echo "observe/build.sh: go is not installed (need Go >= 1.26)" >&2
  exit 2
fi
lines=("$@")
if [ ${#lines[@]} -eq 0 ]; then lines=(v1.36 v1.15); fi
for line in "${lines[@]}"; do
  case "$line" in
    v1.36) src="$here/controller" ;;
    v1.15) src="$here/controller115" ;;
    *) echo "observe/build.sh: unknown line '$line' (v1.36, v1.15)" >&2; exit 2 ;;
  esac
  out="$here/bin/$line"
  h=$( { go version; cd "$src" && sha256sum go.mod go.sum $(ls *.go | LC_ALL=C sort) "$here/build.sh"; } | sha256sum | cut -d' ' -f1)
  if [ -x "$out/controller" ] && [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$h" ]; then
    continue
  fi
  mkdir -p "$out"
  rm -f "$out/stamp"
  start=$(date +%s)
  echo "observe/build.sh: building the $line controller" >&2
  (cd "$src" && go build -trimpath -o "$out/controller" .)
  echo "$h" > "$out/stamp"
  echo "observe/build.sh: $line built in $(( $(date +%s) - start ))s" >&2
done
