#!/usr/bin/env bash
# A real etcd + kube-apiserver on loopback for end-to-end tests.
#
#   scripts/cluster.sh build                      build the pinned binaries if they are missing
#   scripts/cluster.sh start [APISERVER_FLAG...]  build if needed, start etcd and kube-apiserver
#   scripts/cluster.sh stop                       stop both (only the processes this script started)
#   scripts/cluster.sh stop-apiserver [MODE]      stop kube-apiserver only (connections are refused)
#   scripts/cluster.sh start-apiserver [FLAG...]  start it again on the same port
#   scripts/cluster.sh restart-apiserver [MODE] [FLAG...] stop + start on the same port
#
# MODE of stopping kube-apiserver:
#   (none)      SIGTERM, and SIGKILL if it has not exited after 10 s
#   --kill      SIGKILL at once: a crash (connections die with it, no response is finished)
#   --graceful  SIGTERM and wait up to CLUSTER_GRACEFUL_TIMEOUT (default 60 s) for it to exit by
#               itself, as in a rolling upgrade; exits 3 if it had to be killed. For it to finish
#               with watches open, start kube-apiserver with GRACEFUL_SHUTDOWN_FLAGS (below):
#               without --shutdown-watch-termination-grace-period it waits on open watches until
#               its 60 s server shutdown timeout.
#   scripts/cluster.sh env                        print `export` lines (KUBECONFIG, URLs, tokens)
#   scripts/cluster.sh status
#
# GRACEFUL_SHUTDOWN_FLAGS (print them with `scripts/cluster.sh graceful-flags`):
#   --shutdown-delay-duration=0s                 stop listening at once (no load balancer to drain)
#   --shutdown-watch-termination-grace-period=5s close open watches (at >= 200/s) within 5 s
#   --shutdown-send-retry-after=true             requests arriving while draining get 429 + Retry-After
#
# Extra kube-apiserver flags given to `start` are remembered and reused by restarts; flags
# given to `start-apiserver`/`restart-apiserver` replace them (e.g. --min-request-timeout=5,
# --etcd-compaction-interval=5s, --feature-gates=WatchList=false).
#
# Environment:
#   CLUSTER_DIR      state of one cluster (certs, etcd data, logs, kubeconfig, pids);
#                    default <repo>/.cache/cluster/run. Tests use a temporary directory each.
#   CLUSTER_BIN_DIR  where the pinned binaries live; default ~/.cache/informer-inspector/cluster-bin
#                    (outside the checkout, so that a fresh clone on this machine reuses them).
#
# Everything binds 127.0.0.1 only. Nothing here prints tokens or keys to stdout except `env`,
# which prints the token *file* paths and the kubeconfig path, never their contents.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLUSTER_DIR="${CLUSTER_DIR:-$REPO/.cache/cluster/run}"
CLUSTER_BIN_DIR="${CLUSTER_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/informer-inspector/cluster-bin}"
KAS_MOD="$REPO/tools/kube-apiserver"
ETCD_MOD="$REPO/tools/etcd"
READY_TIMEOUT="${CLUSTER_READY_TIMEOUT:-180}"
GRACEFUL_TIMEOUT="${CLUSTER_GRACEFUL_TIMEOUT:-60}"
GRACEFUL_SHUTDOWN_FLAGS=(--shutdown-delay-duration=0s --shutdown-watch-termination-grace-period=5s --shutdown-send-retry-after=true)

log() { echo "cluster: $*" >&2; }
die() { echo "cluster: error: $*" >&2; exit 1; }

# --- versions and binaries -------------------------------------------------------------

kas_version() { awk '$1=="require" && $2=="k8s.io/kubernetes" {print $3}' "$KAS_MOD/go.mod"; }
etcd_version() { awk '$1=="require" && $2=="go.etcd.io/etcd/server/v3" {print $3}' "$ETCD_MOD/go.mod"; }
# How the binaries are built; bump BUILD_REV when build_one's flags change.
BUILD_REV=2
# The stamp covers go.mod, go.sum and BUILD_REV, so that any change of pins or flags rebuilds.
mod_hash() { { cat "$1/go.mod" "$1/go.sum"; echo "$BUILD_REV"; } | sha256sum | cut -c1-12; }
kas_bin() { echo "$CLUSTER_BIN_DIR/kube-apiserver-$(kas_version)-$(mod_hash "$KAS_MOD")"; }
etcd_bin() { echo "$CLUSTER_BIN_DIR/etcd-$(etcd_version)-$(mod_hash "$ETCD_MOD")"; }

build_one() { # name module-dir output package tags ldflags
  local name=$1 dir=$2 out=$3 pkg=$4 tags=${5:-} ldflags=${6:-}
  if [[ -x "$out" ]]; then log "$name up to date: $out"; return; fi
  mkdir -p "$CLUSTER_BIN_DIR"
  log "building $name ($pkg) into $out ..."
  local t0=$SECONDS
  # GOMODCACHE/GOCACHE stay at Go's defaults so that a reused machine builds warm.
  # A temporary name of this process's own: two builds at once (a test beside a benchmark) must
  # not move or delete each other's half-written file.
  local tmp="$out.tmp.$$"
  if ! (cd "$dir" && CGO_ENABLED=0 go build -mod=readonly -trimpath ${tags:+-tags "$tags"} ${ldflags:+-ldflags "$ldflags"} -o "$tmp" "$pkg"); then
    rm -f "$tmp"
    die "go build of $name failed"
  fi
  mv -f "$tmp" "$out"
  log "built $name in $((SECONDS - t0))s"
  # Older pins or build flags of the same binary are dead weight (each kube-apiserver is ~150 MB).
  # (Not another build's temporary file, which is still being written.)
  find "$CLUSTER_BIN_DIR" -maxdepth 1 -name "$name-*" ! -name "$(basename "$out")" ! -name '*.tmp.*' -delete
}

cmd_build() {
  command -v go >/dev/null || die "go is not installed"
  build_one etcd "$ETCD_MOD" "$(etcd_bin)" go.etcd.io/etcd/server/v3 "" ""
  # Without -X the server reports gitVersion v0.0.0-master; stamp the real release into /version.
  local v; v=$(kas_version)
  build_one kube-apiserver "$KAS_MOD" "$(kas_bin)" k8s.io/kubernetes/cmd/kube-apiserver selinux,notest \
    "-X k8s.io/component-base/version.gitVersion=$v -X k8s.io/component-base/version.gitTreeState=clean"
}

# --- helpers -----------------------------------------------------------------------------

free_port() { # a free TCP port on 127.0.0.1 (there is a small race; start retries are not needed in practice)
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();});'
}

pid_alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop_apiserver_mode() { # MODE: "" | --kill | --graceful
  local pf="$CLUSTER_DIR/apiserver.pid" mode=${1:-}
  case "$mode" in
    "") stop_pidfile "$pf" kube-apiserver ;;
    --kill)
      if pid_alive "$pf"; then
        local pid; pid=$(cat "$pf")
        kill -KILL "$pid" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
        log "kube-apiserver (pid $pid) killed (SIGKILL)"
      fi
      rm -f "$pf" ;;
    --graceful)
      if pid_alive "$pf"; then
        local pid t0; pid=$(cat "$pf"); t0=$(date +%s%N)
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 $((GRACEFUL_TIMEOUT * 20))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
        if kill -0 "$pid" 2>/dev/null; then
          kill -KILL "$pid" 2>/dev/null || true; rm -f "$pf"
          log "kube-apiserver (pid $pid) did not finish a graceful shutdown in ${GRACEFUL_TIMEOUT}s; killed"
          exit 3
        fi
        log "kube-apiserver (pid $pid) shut down gracefully in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
      fi
      rm -f "$pf" ;;
    *) die "unknown stop mode $mode (use --kill or --graceful)" ;;
  esac
}

stop_mode_arg() { [[ "${1:-}" == --kill || "${1:-}" == --graceful ]]; }

stop_pidfile() { # pidfile name  (no `return` here: it is also called from an EXIT trap)
  local pf=$1 name=$2
  if pid_alive "$pf"; then
    local pid; pid=$(cat "$pf")
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then log "$name (pid $pid) did not stop; killing"; kill -KILL "$pid" 2>/dev/null || true; sleep 0.2; fi
    log "$name stopped"
  fi
  rm -f "$pf"
}

load_state() {
  [[ -f "$CLUSTER_DIR/cluster.env" ]] || die "no cluster in $CLUSTER_DIR (run start)"
  # shellcheck disable=SC1091
  set -a; . "$CLUSTER_DIR/cluster.env"; set +a
}

# --- certificates, tokens, kubeconfig ------------------------------------------------------

gen_pki() {
  local d="$CLUSTER_DIR/pki"
  [[ -f "$d/apiserver.crt" ]] && return
  mkdir -p "$d"; chmod 700 "$d"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/ca.key" -out "$d/ca.crt" -days 30 \
    -subj "/CN=informer-inspector-e2e-ca" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout "$d/apiserver.key" -out "$d/apiserver.csr" \
    -subj "/CN=kube-apiserver" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n' > "$d/apiserver.ext"
  openssl x509 -req -in "$d/apiserver.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial \
    -out "$d/apiserver.crt" -days 30 -extfile "$d/apiserver.ext" 2>/dev/null
  openssl genrsa -out "$d/sa.key" 2048 2>/dev/null
  openssl rsa -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
  # Two users, both system:masters: "e2e-admin" is what tests write with; "e2e-inspector" is
  # what the engine reads with, so the audit log separates the engine's requests.
  local admin inspector
  admin=$(openssl rand -hex 24); inspector=$(openssl rand -hex 24)
  umask 077
  printf '%s,e2e-admin,uid-admin,"system:masters"\n%s,e2e-inspector,uid-inspector,"system:masters"\n' \
    "$admin" "$inspector" > "$d/tokens.csv"
  printf '%s' "$admin" > "$d/admin.token"
  printf '%s' "$inspector" > "$d/inspector.token"
  umask 022
  cat > "$CLUSTER_DIR/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
EOF
}

write_kubeconfig() { # file server user-token-file context
  local f=$1 server=$2 tokfile=$3 ctx=$4
  local ca; ca=$(base64 -w0 < "$CLUSTER_DIR/pki/ca.crt")
  umask 077
  cat > "$f" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: $server
    certificate-authority-data: $ca
users:
- name: $ctx
  user:
    token: $(cat "$tokfile")
contexts:
- name: $ctx
  context:
    cluster: e2e
    user: $ctx
    namespace: default
current-context: $ctx
EOF
  umask 022
}

# --- processes ---------------------------------------------------------------------------

start_etcd() {
  if pid_alive "$CLUSTER_DIR/etcd.pid"; then log "etcd already running"; return; fi
  mkdir -p "$CLUSTER_DIR/etcd-data"
  local c="http://127.0.0.1:$ETCD_CLIENT_PORT" p="http://127.0.0.1:$ETCD_PEER_PORT"
  nohup "$ETCD_BIN" --name=e2e --data-dir="$CLUSTER_DIR/etcd-data" \
    --listen-client-urls="$c" --advertise-client-urls="$c" \
    --listen-peer-urls="$p" --initial-advertise-peer-urls="$p" --initial-cluster="e2e=$p" \
    --unsafe-no-fsync --log-level=warn \
    >>"$CLUSTER_DIR/etcd.log" 2>&1 </dev/null &
  echo $! > "$CLUSTER_DIR/etcd.pid"
  for _ in $(seq 1 200); do
    if curl -sf "$c/health" >/dev/null 2>&1; then log "etcd ready on 127.0.0.1:$ETCD_CLIENT_PORT"; return; fi
    pid_alive "$CLUSTER_DIR/etcd.pid" || { tail -20 "$CLUSTER_DIR/etcd.log" >&2; die "etcd exited"; }
    sleep 0.1
  done
  die "etcd not healthy after 20s (see $CLUSTER_DIR/etcd.log)"
}

start_apiserver() { # [extra flags...]; with no flags, reuse the remembered ones
  if pid_alive "$CLUSTER_DIR/apiserver.pid"; then log "kube-apiserver already running"; return; fi
  local extra=()
  if [[ $# -gt 0 ]]; then
    printf '%s\n' "$@" > "$CLUSTER_DIR/apiserver.extra-args"
    extra=("$@")
  elif [[ -s "$CLUSTER_DIR/apiserver.extra-args" ]]; then
    mapfile -t extra < "$CLUSTER_DIR/apiserver.extra-args"
  fi
  local d="$CLUSTER_DIR/pki"
  echo "--- start $(date -Is) extra: ${extra[*]:-}" >> "$CLUSTER_DIR/apiserver.log"
  nohup "$KAS_BIN" \
    --etcd-servers="http://127.0.0.1:$ETCD_CLIENT_PORT" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$APISERVER_PORT" \
    --cert-dir="$d" --tls-cert-file="$d/apiserver.crt" --tls-private-key-file="$d/apiserver.key" \
    --client-ca-file="$d/ca.crt" \
    --service-account-key-file="$d/sa.pub" --service-account-signing-key-file="$d/sa.key" \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-cluster-ip-range=10.0.0.0/24 \
    --authorization-mode=RBAC --token-auth-file="$d/tokens.csv" \
    --disable-admission-plugins=ServiceAccount --allow-privileged=true \
    --audit-policy-file="$CLUSTER_DIR/audit-policy.yaml" --audit-log-path="$CLUSTER_DIR/audit.log" \
    --audit-log-format=json --audit-log-mode=blocking --audit-log-maxbackup=0 \
    --profiling=false --v=1 \
    "${extra[@]}" \
    >>"$CLUSTER_DIR/apiserver.log" 2>&1 </dev/null &
  echo $! > "$CLUSTER_DIR/apiserver.pid"
  local t0=$SECONDS token; token=$(cat "$d/admin.token")
  while (( SECONDS - t0 < READY_TIMEOUT )); do
    if curl -sf --cacert "$d/ca.crt" -H "Authorization: Bearer $token" \
         "https://127.0.0.1:$APISERVER_PORT/readyz" >/dev/null 2>&1; then
      log "kube-apiserver ready on https://127.0.0.1:$APISERVER_PORT after $((SECONDS - t0))s"
      return
    fi
    pid_alive "$CLUSTER_DIR/apiserver.pid" || { tail -30 "$CLUSTER_DIR/apiserver.log" >&2; die "kube-apiserver exited"; }
    sleep 0.25
  done
  die "kube-apiserver not ready after ${READY_TIMEOUT}s (see $CLUSTER_DIR/apiserver.log)"
}

cmd_start() {
  cmd_build
  mkdir -p "$CLUSTER_DIR"
  # A failed start leaves nothing running behind it.
  trap 'rc=$?; if [[ $rc -ne 0 ]]; then log "start failed; stopping what was started"; cmd_stop; fi' EXIT
  if [[ -f "$CLUSTER_DIR/cluster.env" ]] && { pid_alive "$CLUSTER_DIR/etcd.pid" || pid_alive "$CLUSTER_DIR/apiserver.pid"; }; then
    log "a cluster is already running in $CLUSTER_DIR; stopping it first"
    cmd_stop
  fi
  gen_pki
  local apiport; apiport=$(free_port)
  cat > "$CLUSTER_DIR/cluster.env" <<EOF
CLUSTER_DIR=$CLUSTER_DIR
KAS_BIN=$(kas_bin)
ETCD_BIN=$(etcd_bin)
KUBE_VERSION=$(kas_version)
ETCD_VERSION=$(etcd_version)
ETCD_CLIENT_PORT=$(free_port)
ETCD_PEER_PORT=$(free_port)
APISERVER_PORT=$apiport
APISERVER_URL=https://127.0.0.1:$apiport
CA_FILE=$CLUSTER_DIR/pki/ca.crt
ADMIN_TOKEN_FILE=$CLUSTER_DIR/pki/admin.token
INSPECTOR_TOKEN_FILE=$CLUSTER_DIR/pki/inspector.token
KUBECONFIG=$CLUSTER_DIR/kubeconfig
ADMIN_KUBECONFIG=$CLUSTER_DIR/kubeconfig-admin
AUDIT_LOG=$CLUSTER_DIR/audit.log
EOF
  load_state
  write_kubeconfig "$KUBECONFIG" "$APISERVER_URL" "$INSPECTOR_TOKEN_FILE" e2e-inspector
  write_kubeconfig "$ADMIN_KUBECONFIG" "$APISERVER_URL" "$ADMIN_TOKEN_FILE" e2e-admin
  : > "$CLUSTER_DIR/apiserver.extra-args"
  start_etcd
  start_apiserver "$@"
  trap - EXIT
}

cmd_stop() {
  if [[ -d "$CLUSTER_DIR" ]]; then
    stop_pidfile "$CLUSTER_DIR/apiserver.pid" kube-apiserver
    stop_pidfile "$CLUSTER_DIR/etcd.pid" etcd
  fi
}

cmd_env() {
  load_state
  for k in CLUSTER_DIR KUBECONFIG ADMIN_KUBECONFIG APISERVER_URL APISERVER_PORT CA_FILE \
           ADMIN_TOKEN_FILE INSPECTOR_TOKEN_FILE AUDIT_LOG ETCD_CLIENT_PORT KUBE_VERSION ETCD_VERSION; do
    printf 'export %s=%q\n' "$k" "${!k}"
  done
}

cmd_status() {
  load_state
  pid_alive "$CLUSTER_DIR/etcd.pid" && echo "etcd: running (127.0.0.1:$ETCD_CLIENT_PORT)" || echo "etcd: stopped"
  pid_alive "$CLUSTER_DIR/apiserver.pid" && echo "kube-apiserver: running ($APISERVER_URL)" || echo "kube-apiserver: stopped"
}

main() {
  local cmd=${1:-}; shift || true
  case "$cmd" in
    build) cmd_build ;;
    start) cmd_start "$@" ;;
    stop) cmd_stop ;;
    stop-apiserver) load_state; stop_apiserver_mode "${1:-}" ;;
    start-apiserver) load_state; start_apiserver "$@" ;;
    restart-apiserver)
      load_state
      local mode=""
      if stop_mode_arg "${1:-}"; then mode=$1; shift; fi
      stop_apiserver_mode "$mode"; start_apiserver "$@" ;;
    graceful-flags) printf '%s\n' "${GRACEFUL_SHUTDOWN_FLAGS[@]}" ;;
    env) cmd_env ;;
    status) cmd_status ;;
    *) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
}
main "$@"
