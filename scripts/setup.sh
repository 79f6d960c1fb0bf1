#!/usr/bin/env bash
# Installs the npm dependencies when package-lock.json changed since the last install; quick no-op otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
stamp=node_modules/.informer-inspector-setup
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: installing npm dependencies"
  npm ci --no-audit --no-fund
  echo "$want" > "$stamp"
fi
