#!/usr/bin/env bash
# Installs what the VS Code e2e tests need: code-server (real VS Code in the browser) and
# Debian's chromium (driven by playwright-core). Every step is skipped when its result is
# already there, so a reused machine pays nothing. Installs OUTSIDE the repo, under
# $INFORMER_INSPECTOR_CACHE (default $HOME/.cache/informer-inspector/code-server).
# Prints the path of the code-server launcher on its last line.
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
CACHE_DIR="${INFORMER_INSPECTOR_CACHE:-$HOME/.cache/informer-inspector}/code-server"
LAUNCHER="$CACHE_DIR/node_modules/.bin/code-server"

log() { echo "[code-server.sh] $*" >&2; }

apt_updated=0
ensure_debs() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "apt-get install ${missing[*]}"
  if [ $apt_updated -eq 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# Chromium for playwright-core (no browser download is possible here).
ensure_debs chromium fonts-dejavu-core

MARKER="$CACHE_DIR/.installed-$CODE_SERVER_VERSION"
if [ -f "$MARKER" ] && [ -x "$LAUNCHER" ]; then
  log "code-server $CODE_SERVER_VERSION already installed"
  echo "$LAUNCHER"
  exit 0
fi

# Native modules of code-server (kerberos, keytar, native-keymap) and Debian's rg for the
# @vscode/ripgrep postinstall, which would otherwise try to download a binary.
ensure_debs libkrb5-dev libsecret-1-dev libxkbfile-dev libx11-dev ripgrep python3 make g++ pkg-config

# @vscode/ripgrep looks in <tmpdir>/vscode-ripgrep-cache-<its version>/ before downloading.
# Seed that cache for every version code-server might pull with a tarball of Debian's rg.
seed_ripgrep_cache() {
  local tmp rgtar version
  tmp=$(node -p "require('os').tmpdir()")
  rgtar=$(mktemp -d)
  cp "$(command -v rg)" "$rgtar/rg"
  for version in 1.15.9 1.15.10 1.15.11 1.15.12 1.15.13 1.15.14 1.16.0; do
    mkdir -p "$tmp/vscode-ripgrep-cache-$version"
    for asset in ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz ripgrep-v13.0.0-13-x86_64-unknown-linux-musl.tar.gz; do
      [ -f "$tmp/vscode-ripgrep-cache-$version/$asset" ] || tar -czf "$tmp/vscode-ripgrep-cache-$version/$asset" -C "$rgtar" rg
    done
  done
  rm -rf "$rgtar"
}
seed_ripgrep_cache

mkdir -p "$CACHE_DIR"
cd "$CACHE_DIR"
# One install at a time: a second caller waits here, then finds the marker and returns.
exec 9>"$CACHE_DIR/.install.lock"
flock 9
if [ -f "$MARKER" ] && [ -x "$LAUNCHER" ]; then
  log "code-server $CODE_SERVER_VERSION already installed"
  echo "$LAUNCHER"
  exit 0
fi
[ -f package.json ] || echo '{ "name": "code-server-install", "private": true }' > package.json
log "npm install code-server@$CODE_SERVER_VERSION into $CACHE_DIR (takes several minutes)"
export npm_config_yes=true
# npm 11 skips dependency install scripts unless allowed; code-server's postinstall runs nested
# `npm install`s (lib/vscode, its extensions) that compile native modules, so allow scripts for
# this throwaway install only (env, inherited by the nested installs; never in the repo).
export npm_config_dangerously_allow_all_scripts=true
# code-server's postinstall refuses to run as root unless this is literally "true" in the env.
export npm_config_unsafe_perm=true
# node-gyp cannot download headers here; Debian's nodejs ships them under /usr/include/node.
export npm_config_nodedir="${npm_config_nodedir:-/usr}"
rm -rf node_modules/code-server
npm install --no-audit --no-fund "code-server@$CODE_SERVER_VERSION" >&2
# The postinstall builds lib/vscode's native modules; without them code-server starts but
# its server process dies, so check one of them before recording success.
ls node_modules/code-server/lib/vscode/node_modules/@vscode/spdlog/build/Release/*.node >/dev/null
touch "$MARKER"

"$LAUNCHER" --version >&2
echo "$LAUNCHER"
