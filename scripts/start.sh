#!/usr/bin/env bash
# `npm start` on a fresh machine: installs the npm dependencies when missing or stale
# (scripts/setup.sh → npm ci), builds (npm run build) and shows the informer timeline:
#   - in VS Code (`code` on PATH) or in code-server opened in Chromium (scripts/code-server.sh
#     installs it), once the extension bundle (dist/extension.js) and its commands exist;
#   - otherwise (or with START_UI=none) on the command line: it records the informer for a
#     short time and prints what it did and the findings.
# The target is your kubeconfig ($KUBECONFIG or ~/.kube/config); without one, the built-in
# SANDBOX cluster (a simulated API server on 127.0.0.1, storyline $SANDBOX_SCENARIO).
#
# Knobs: SANDBOX_SCENARIO (restart-storm | etcd-lost-delete | watch-expiry | calm; default
# restart-storm), START_UI (auto | vscode | code-server | none; default auto),
# START_DURATION (command-line recording length, default 45s), START_RESOURCE (default
# configmaps), START_PORT (code-server port, default 8765), START_OUT (where the traces of
# a command-line run are kept, default $TMPDIR/informer-inspector-traces), START_SKIP_SETUP=1
# (use the installed node_modules as they are).
# The extension is told what to open through INFORMER_INSPECTOR_AUTOSTART
# ("sandbox:<scenario>" or "cluster") in its environment.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
SCENARIO=${SANDBOX_SCENARIO:-restart-storm}
UI=${START_UI:-auto}
DURATION=${START_DURATION:-45s}
RESOURCE=${START_RESOURCE:-configmaps}
UI_PORT=${START_PORT:-8765}
CLI=(node "$REPO/dist/cli.js")

log() { echo "[start] $*" >&2; }

WORK=$(mktemp -d -t informer-inspector-start.XXXXXX)
children=()
cleanup() {
  # Only the processes this script started, by pid.
  for pid in "${children[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${children[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- 1. dependencies and build ------------------------------------------------------------
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "start: Node.js 20+ and npm are required" >&2
  exit 1
fi
if [ "${START_SKIP_SETUP:-0}" = 1 ] && [ -d node_modules ]; then
  log "START_SKIP_SETUP=1: using the installed node_modules"
else
  bash scripts/setup.sh
fi
log "building"
npm run --silent build

# ---- 2. target: your cluster, or the sandbox ----------------------------------------------
if [ -n "${KUBECONFIG:-}" ] || [ -f "$HOME/.kube/config" ]; then
  TARGET=cluster
  KUBECONFIG_FILE=${KUBECONFIG:-$HOME/.kube/config}
  log "kubeconfig found ($KUBECONFIG_FILE): inspecting your current context (GET requests only)"
else
  TARGET=sandbox
  log "no kubeconfig: starting the SIMULATED sandbox cluster (storyline $SCENARIO)"
fi

start_sandbox() {
  KUBECONFIG_FILE="$WORK/sandbox.kubeconfig"
  "${CLI[@]}" sandbox --scenario "$SCENARIO" >"$KUBECONFIG_FILE" 2> >(sed -u 's/^/[sandbox] /' >&2) &
  SANDBOX_PID=$!
  children+=("$SANDBOX_PID")
  for _ in $(seq 1 100); do
    grep -q '^current-context:' "$KUBECONFIG_FILE" 2>/dev/null && break
    kill -0 "${children[-1]}" 2>/dev/null || { echo "start: the sandbox did not start" >&2; exit 1; }
    sleep 0.2
  done
  grep -q '^current-context:' "$KUBECONFIG_FILE" || { echo "start: the sandbox did not print its kubeconfig" >&2; exit 1; }
  SANDBOX_URL=$(sed -n 's/^ *server: //p' "$KUBECONFIG_FILE")
  log "sandbox at $SANDBOX_URL (kubeconfig $KUBECONFIG_FILE)"
}

# ---- 3a. the extension in VS Code or code-server --------------------------------------------
extension_ready() {
  [ -f dist/extension.js ] && node -e 'process.exit(require("./package.json").contributes?.commands?.length ? 0 : 1)'
}

if [ "$TARGET" = sandbox ]; then AUTOSTART="sandbox:$SCENARIO"; else AUTOSTART=cluster; fi

# Each launcher starts the UI in the background, records its pid in UI_PID and returns non-zero
# if it could not start (they run inside `if`, where `set -e` does not apply: check each step).
UI_PID=

run_vscode() {
  log "opening VS Code with the extension (development mode)"
  mkdir -p "$WORK/workspace"
  # The extension activates on this marker (workspaceContains), then reads INFORMER_INSPECTOR_AUTOSTART.
  : >"$WORK/workspace/.informer-inspector-autostart"
  INFORMER_INSPECTOR_AUTOSTART=$AUTOSTART code --wait --new-window --extensionDevelopmentPath="$REPO" \
    --user-data-dir "$WORK/vscode-user" "$WORK/workspace" &
  UI_PID=$!
  children+=("$UI_PID")
}

run_code_server() {
  local launcher vsix url
  launcher=$(bash scripts/code-server.sh | tail -1) || return 1
  [ -x "$launcher" ] || return 1
  vsix="$WORK/informer-inspector.vsix"
  log "packaging the extension"
  npx --no-install vsce package --no-dependencies --allow-missing-repository --skip-license --no-rewrite-relative-links \
    -o "$vsix" >&2 || return 1
  "$launcher" --install-extension "$vsix" --extensions-dir "$WORK/extensions" >&2 || return 1
  mkdir -p "$WORK/workspace"
  # The extension activates on this marker (workspaceContains), then reads INFORMER_INSPECTOR_AUTOSTART.
  : >"$WORK/workspace/.informer-inspector-autostart"
  INFORMER_INSPECTOR_AUTOSTART=$AUTOSTART "$launcher" --auth none --bind-addr "127.0.0.1:$UI_PORT" \
    --user-data-dir "$WORK/code-server-user" --extensions-dir "$WORK/extensions" \
    --disable-telemetry --disable-workspace-trust "$WORK/workspace" >"$WORK/code-server.log" 2>&1 &
  UI_PID=$!
  children+=("$UI_PID")
  url="http://127.0.0.1:$UI_PORT/?folder=$WORK/workspace"
  for _ in $(seq 1 150); do
    curl -fsS -o /dev/null "http://127.0.0.1:$UI_PORT/healthz" 2>/dev/null && break
    kill -0 "$UI_PID" 2>/dev/null || { cat "$WORK/code-server.log" >&2; UI_PID=; return 1; }
    sleep 0.2
  done
  if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && command -v chromium >/dev/null; then
    log "opening $url in Chromium"
    chromium --no-sandbox --no-first-run --disable-sync --user-data-dir="$WORK/chromium" --app="$url" >/dev/null 2>&1 &
    children+=($!)
  else
    HEADLESS=1
    log "no display: open $url in a browser on this machine"
  fi
  log "then run \"Informer Inspector: Inspect\" (F1) if the timeline is not open yet"
}

HEADLESS=0
if [ "$UI" != none ] && extension_ready; then
  if { [ "$UI" = auto ] || [ "$UI" = vscode ]; } && command -v code >/dev/null; then
    run_vscode
  elif [ "$UI" = auto ] || [ "$UI" = code-server ]; then
    run_code_server || log "code-server could not start; showing the timeline on the command line"
  fi
elif [ "$UI" != none ]; then
  log "the extension bundle is not built yet (dist/extension.js with commands): showing the timeline on the command line"
fi

if [ -n "$UI_PID" ] && [ "$HEADLESS" = 0 ]; then
  log "the UI runs until you close it or press Ctrl-C"
  wait "$UI_PID" || true
  exit 0
fi

# ---- 3b. the command line: record, then print requests and findings -----------------------
[ "$TARGET" = sandbox ] && start_sandbox

# Prints the requests a recording made and the findings of its trace.
report() { # report LABEL TRACE LOG
  local label=$1 trace=$2 ndjson=$3
  echo
  echo "=== $label ==="
  node -e '
    const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map(JSON.parse);
    const reqs = lines.filter((l) => l.kind === "request");
    const notes = lines.filter((l) => l.kind === "notify");
    const identical = notes.filter((n) => n.op === "update" && n.oldRv === n.rv).length;
    const tombstones = notes.filter((n) => n.op === "delete" && n.tombstone).length;
    console.log(`requests (${reqs.length}):`);
    for (const r of reqs) console.log(`  ${r.verb}${r.sendInitialEvents ? " (watch-list)" : ""} rv=${JSON.stringify(r.rv)}`);
    console.log(`handler calls: ${notes.length} (identical updates: ${identical}, tombstone deletes: ${tombstones})`);
  ' "$ndjson"
  cat >"$WORK/findings.ts" <<EOF
import { readFileSync } from 'node:fs';
import { importTrace } from '$REPO/src/trace/traceFile';
import { computeFindings } from '$REPO/src/trace/findings';
const trace = importTrace(readFileSync(process.argv[2], 'utf8'));
const findings = computeFindings(trace.header, trace.events);
console.log(findings.length ? 'findings:' : 'findings: none');
for (const f of findings) console.log('  [' + f.severity + '] ' + f.title + '\n      ' + f.advice);
EOF
  npx --no-install tsx "$WORK/findings.ts" "$trace"
}

record() { # record PROFILE
  "${CLI[@]}" record --resource "$RESOURCE" --kubeconfig "$KUBECONFIG_FILE" --profile "$1" --duration "$DURATION" \
    --log "$WORK/$1.ndjson" --trace "$WORK/$1.informer-trace.json" 2> >(sed -u "s/^/[record $1] /" >&2)
}

if [ "$TARGET" = sandbox ]; then
  log "recording $RESOURCE for $DURATION with profiles v1.15 and v1.36 side by side"
  record v1.15 &
  p115=$!
  record v1.36
  wait "$p115"
  report "client-go v1.15 (Kubernetes 1.15)" "$WORK/v1.15.informer-trace.json" "$WORK/v1.15.ndjson"
  report "client-go v0.36 (Kubernetes 1.36)" "$WORK/v1.36.informer-trace.json" "$WORK/v1.36.ndjson"
else
  log "recording $RESOURCE for $DURATION with profile v1.36"
  record v1.36
  report "client-go v0.36 against your current context" "$WORK/v1.36.informer-trace.json" "$WORK/v1.36.ndjson"
fi
# The command-line sandbox has served its purpose (the extension runs its own, in-process).
if [ -n "${SANDBOX_PID:-}" ]; then kill "$SANDBOX_PID" 2>/dev/null || true; fi
OUT=${START_OUT:-${TMPDIR:-/tmp}/informer-inspector-traces}
mkdir -p "$OUT"
cp "$WORK"/*.informer-trace.json "$OUT/"
echo
log "traces kept in $OUT (node dist/cli.js summarize <file>)"
if [ -n "$UI_PID" ]; then
  log "code-server keeps running at http://127.0.0.1:$UI_PORT until Ctrl-C"
  wait "$UI_PID" || true
fi
