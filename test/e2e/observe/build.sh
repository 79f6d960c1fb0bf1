#!/usr/bin/env bash
# Builds the Go controller the observe e2e test runs through the observing proxy:
#   test/e2e/observe/build.sh        → test/e2e/observe/bin/v1.36/controller
# client-go v0.36.x (controller/go.mod). Skipped when bin/v1.36/stamp holds the hash of the
# sources, the module files, this script and the Go version. Needs Go and the Go module proxy.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src="$here/controller"
out="$here/bin/v1.36"
if ! command -v go >/dev/null 2>&1; then
  echo "observe/build.sh: go is not installed (need Go >= 1.26)" >&2
  exit 2
fi
h=$( { go version; cd "$src" && sha256sum go.mod go.sum $(ls *.go | LC_ALL=C sort) "$here/build.sh"; } | sha256sum | cut -d' ' -f1)
if [ -x "$out/controller" ] && [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$h" ]; then
  exit 0
fi
mkdir -p "$out"
rm -f "$out/stamp"
start=$(date +%s)
echo "observe/build.sh: building the v1.36 controller" >&2
(cd "$src" && go build -trimpath -o "$out/controller" .)
echo "$h" > "$out/stamp"
echo "observe/build.sh: built in $(( $(date +%s) - start ))s" >&2
