#!/usr/bin/env bash
# Builds the Kubernetes control-plane binaries that the local cluster
# (`make run`) and the end-to-end tests need, from Go source served by the
# Go module proxy (no prebuilt downloads):
#
#   bin/k8s/<KUBE_VERSION>/kube-apiserver   from k8s.io/kubernetes/cmd/kube-apiserver
#   bin/k8s/<KUBE_VERSION>/kubectl          from k8s.io/kubernetes/cmd/kubectl
#   bin/k8s/<KUBE_VERSION>/etcd             from go.etcd.io/etcd/server/v3 (its main package)
#   bin/helm/<HELM_VERSION>/helm            from helm.sh/helm/v3/cmd/helm   (only with `helm`)
#   bin/k8s/<KUBE_VERSION>/{kubelet,kube-controller-manager,kube-scheduler,kube-proxy}
#                                           from k8s.io/kubernetes/cmd/...  (only with `node`)
#
# Each comes from its own tools module under hack/tools/ so that none of their
# dependencies leak into the product's go.mod:
#   hack/tools/k8s   k8s.io/kubernetes plus a replace for every staging module
#                    (the node's binaries too: one module, so that they share
#                    kube-apiserver's dependency versions and build cache)
#   hack/tools/k8s-1.<minor>  the same for another KUBE_VERSION of the version
#                    matrix (kube-apiserver and kubectl only)
#   hack/tools/etcd  etcd 3.6 (kubernetes itself links etcd 3.7 client libraries)
#   hack/tools/helm  helm v3
#
# Usage:
#   hack/k8s-binaries.sh [k8s]     build (or confirm) kube-apiserver, kubectl, etcd
#   hack/k8s-binaries.sh helm      build (or confirm) helm
#   hack/k8s-binaries.sh node      build (or confirm) kubelet, kube-controller-manager,
#                                  kube-scheduler, kube-proxy (the single-node cluster
#                                  of hack/node; ~5 min with kube-apiserver's cache warm)
#   hack/k8s-binaries.sh all       both
#   hack/k8s-binaries.sh dir       print the k8s binaries dir (no build)
#   hack/k8s-binaries.sh helm-dir  print the helm binary dir (no build)
#   hack/k8s-binaries.sh gen-mod   regenerate hack/tools/*/go.mod from the pinned
#                                  versions (derives kubernetes' staging replaces
#                                  from its go.mod in the module cache); with
#                                  KUBE_VERSION, that version's module only
#   hack/k8s-binaries.sh versions  print the version matrix (MATRIX_VERSIONS)
#
# Idempotent: a stamp file records the versions, the tools modules' go.mod/go.sum
# and the Go version; when it matches and the binaries exist, the script
# returns in ~0.1s. Measured on the shared 2-core machine (docs/kubernetes-versions.md):
# a cold build of the k8s set (empty Go build cache) takes 12 to 23
# minutes at load 5 to 17 (1.36.3 730s, 1.30.14 849s, 1.35.4 1155s, 1.33.13
# 1363s; 27.5 min once while fuzzers shared the machine, 6 min for 1.37.2 on a
# quiet one); a version built after others, whose packages the build cache
# (~/.cache/go-build) partly holds, 5 to 9 minutes (1.31.14 305s, 1.32.13
# 384s, 1.34.4 544s); a rebuild with its own packages cached, ~40s (1.35.4 38s).
#
# Environment:
#   KUBE_VERSION  the Kubernetes version of the k8s set (default DEFAULT_KUBE_VERSION;
#                 one of `versions`, each with its tools module), e.g.
#                 KUBE_VERSION=1.30.14 hack/k8s-binaries.sh
#   K8S_BIN_DIR   override the output dir of the k8s set (default bin/k8s/<KUBE_VERSION>)
#   HELM_BIN_DIR  override the output dir of helm      (default bin/helm/<HELM_VERSION>)
#   FORCE=1       rebuild even when the stamp matches
set -euo pipefail

# The default version: what `make run` and every test use unless told otherwise.
DEFAULT_KUBE_VERSION=1.37.2
# The version matrix (test/matrix, `make test-matrix`): the newest patch of each
# minor the Go module proxy lists (`go list -m -versions k8s.io/kubernetes`; each
# needs every staging module at v0.<minor>.<patch>: v1.31.12 lacks
# k8s.io/dynamic-resource-allocation v0.31.12). The first is the oldest minor we support.
MATRIX_VERSIONS="1.30.14 1.31.14 1.32.13 1.33.13 1.34.4 1.35.4 1.36.3 1.37.2"
KUBE_VERSION="${KUBE_VERSION:-$DEFAULT_KUBE_VERSION}"
[[ "$KUBE_VERSION" =~ ^1\.([0-9]+)\.([0-9]+)$ ]] || { echo "KUBE_VERSION=$KUBE_VERSION is not 1.<minor>.<patch>" >&2; exit 1; }
KUBE_MINOR="${BASH_REMATCH[1]}"
# Kubernetes publishes each staging module (k8s.io/api, apiserver, ...) as v0.<minor>.<patch>.
STAGING_VERSION="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
# etcd 3.6 serves the v3 API, the only one kube-apiserver has spoken since 1.13
# (3.6 dropped v2), and the 3.5 clients of 1.30 to 1.33 talk to it, so every
# version runs the current one.
ETCD_VERSION=3.6.16
HELM_VERSION=3.22.0

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/hack/tools"
# The default version's tools module is hack/tools/k8s (it also builds the
# node); each other version has its own, hack/tools/k8s-1.<minor>.
K8S_MOD=k8s
[[ "$KUBE_VERSION" == "$DEFAULT_KUBE_VERSION" ]] || K8S_MOD="k8s-1.$KUBE_MINOR"
K8S_OUT="${K8S_BIN_DIR:-$ROOT/bin/k8s/$KUBE_VERSION}"
HELM_OUT="${HELM_BIN_DIR:-$ROOT/bin/helm/$HELM_VERSION}"

# The tools modules stand alone: never let a go.work pull them together with
# the product module, and never write into their go.mod during a build.
export GOWORK=off
export GOFLAGS="${GOFLAGS:-} -mod=readonly"
export CGO_ENABLED=0

log() { printf '[k8s-binaries %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

command -v go >/dev/null || die "go is not on PATH"

# gen_k8s_mod writes hack/tools/k8s/go.mod: require k8s.io/kubernetes and a
# replace for every module kubernetes' own go.mod replaces with ./staging/...,
# pointing at the published $STAGING_VERSION of that module.
gen_k8s_mod() {
  local dir="$TOOLS/$K8S_MOD" kmod staging godebug
  log "downloading k8s.io/kubernetes@v$KUBE_VERSION to read its go.mod"
  kmod="$(cd "$(mktemp -d)" && go mod download -json "k8s.io/kubernetes@v$KUBE_VERSION" |
    sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
  [[ -f "$kmod" ]] || die "could not locate kubernetes' go.mod in the module cache"
  staging="$(awk '$2 == "=>" && $3 ~ /^\.\/staging\// {print $1}' "$kmod" | sort -u)"
  [[ -n "$staging" ]] || die "no ./staging replaces found in $kmod"
  log "$(wc -l <<<"$staging" | tr -d ' ') staging modules in kubernetes' go.mod"
  # The GODEBUG defaults kubernetes was released with: its own godebug line,
  # else those of its go line (what its main module gave it).
  godebug="$(awk '$1 == "godebug" && $2 ~ /^default=/ {print $2; exit}' "$kmod")"
  [[ -n "$godebug" ]] || godebug="default=go$(awk '$1 == "go" {split($2, v, "."); print v[1] "." v[2]; exit}' "$kmod")"
  mkdir -p "$dir"
  {
    echo "// Generated by hack/k8s-binaries.sh gen-mod; do not edit by hand."
    if [[ "$K8S_MOD" == k8s ]]; then
      echo "// Builds kube-apiserver and kubectl v$KUBE_VERSION, and the node's kubelet,"
      echo "// kube-controller-manager, kube-scheduler and kube-proxy. Kept apart from the"
      echo "// product's go.mod on purpose."
    else
      echo "// Builds kube-apiserver and kubectl v$KUBE_VERSION for the version matrix"
      echo "// (KUBE_VERSION=$KUBE_VERSION hack/k8s-binaries.sh). Kept apart from the product's"
      echo "// go.mod and from the other versions' modules on purpose."
    fi
    echo "module github.com/airlock/listenerset-webhook/hack/tools/$K8S_MOD"
    echo
    echo "go 1.26.0"
    echo
    echo "godebug $godebug"
    echo
    echo "tool ("
    echo "	k8s.io/kubernetes/cmd/kube-apiserver"
    echo "	k8s.io/kubernetes/cmd/kubectl"
    if [[ "$K8S_MOD" == k8s ]]; then
      echo "	k8s.io/kubernetes/cmd/kubelet"
      echo "	k8s.io/kubernetes/cmd/kube-controller-manager"
      echo "	k8s.io/kubernetes/cmd/kube-scheduler"
      echo "	k8s.io/kubernetes/cmd/kube-proxy"
    fi
    echo ")"
    echo
    echo "require k8s.io/kubernetes v$KUBE_VERSION"
    echo
    echo "// One line per module that kubernetes' go.mod replaces with ./staging/..."
    echo "replace ("
    while read -r m; do printf '\t%s => %s %s\n' "$m" "$m" "$STAGING_VERSION"; done <<<"$staging"
    echo ")"
  } >"$dir/go.mod"
  rm -f "$dir/go.sum"
  (cd "$dir" && GOFLAGS=-mod=mod go mod tidy)
  log "wrote $dir/go.mod"
}

gen_simple_mod() { # dir module-comment tool-package require-module version
  local dir="$TOOLS/$1"
  mkdir -p "$dir"
  {
    echo "// Generated by hack/k8s-binaries.sh gen-mod; do not edit by hand."
    echo "// $2"
    echo "module github.com/airlock/listenerset-webhook/hack/tools/$1"
    echo
    echo "go 1.26.0"
    echo
    echo "tool $3"
    echo
    echo "require $4 $5"
  } >"$dir/go.mod"
  rm -f "$dir/go.sum"
  (cd "$dir" && GOFLAGS=-mod=mod go mod tidy)
  log "wrote $dir/go.mod"
}

# gen-mod regenerates the default version's modules (k8s, etcd, helm); with
# KUBE_VERSION set to another version, only that version's k8s module.
gen_mod() {
  gen_k8s_mod
  [[ "$K8S_MOD" == k8s ]] || return 0
  gen_simple_mod etcd "Builds the etcd $ETCD_VERSION server (its main package is the module root)." \
    go.etcd.io/etcd/server/v3 go.etcd.io/etcd/server/v3 "v$ETCD_VERSION"
  gen_simple_mod helm "Builds helm $HELM_VERSION." \
    helm.sh/helm/v3/cmd/helm helm.sh/helm/v3 "v$HELM_VERSION"
}

# stamp_of prints what the stamp of a build set must contain.
stamp_of() { # set-name tools-dirs...
  local name="$1"; shift
  case "$name" in
    k8s) echo "set=k8s kube=$KUBE_VERSION staging=$STAGING_VERSION etcd=$ETCD_VERSION" ;;
    helm) echo "set=helm helm=$HELM_VERSION" ;;
    node) echo "set=node kube=$KUBE_VERSION staging=$STAGING_VERSION" ;;
  esac
  go env GOVERSION GOOS GOARCH
  local d
  for d in "$@"; do (cd "$TOOLS/$d" && sha256sum go.mod go.sum | sed "s|  |  $d/|"); done
}

# up_to_date: the set's binaries are in out-dir and its stamp file there
# holds stamp_of's stamp (never under FORCE=1).
up_to_date() { # out-dir stamp-file set-name "bins" tools-dirs...
  local out="$1" stamp="$1/$2" name="$3" bins="$4"; shift 4
  [[ "${FORCE:-}" == 1 ]] && return 1
  [[ -f "$stamp" ]] || return 1
  local b
  for b in $bins; do [[ -x "$out/$b" ]] || return 1; done
  [[ "$(cat "$stamp")" == "$(stamp_of "$name" "$@")" ]]
}

# build_one builds a main package from a tools module into out/name,
# atomically (a partial binary never appears under the final name).
build_one() { # tools-dir package out-file [ldflags]
  local dir="$TOOLS/$1" pkg="$2" out="$3" ldflags="${4:-}" start
  start=$(date +%s)
  log "building $(basename "$out") from $pkg ..."
  (cd "$dir" && go build -trimpath -ldflags "-s -w $ldflags" -o "$out.tmp.$$" "$pkg") ||
    { rm -f "$out.tmp.$$"; die "building $pkg failed"; }
  mv -f "$out.tmp.$$" "$out"
  log "built $(basename "$out") in $(( $(date +%s) - start ))s"
}

kube_ldflags() {
  local major="${KUBE_VERSION%%.*}" rest="${KUBE_VERSION#*.}" minor f=""
  minor="${rest%%.*}"
  local -a kv=(
    "gitVersion=v$KUBE_VERSION" "gitMajor=$major" "gitMinor=$minor"
    "gitTreeState=clean" "buildDate=1970-01-01T00:00:00Z"
  )
  local p x
  for p in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
    for x in "${kv[@]}"; do f+=" -X $p.$x"; done
  done
  echo "$f"
}

with_lock() { # out-dir fn...
  local out="$1" lock="${LOCK_NAME:-.lock}"; shift
  mkdir -p "$out"
  if command -v flock >/dev/null; then
    # Several test binaries may ask for the binaries at once: one builds,
    # the others wait and then find the stamp.
    exec 9>"$out/$lock"
    if ! flock -n 9; then
      log "another build holds $out/$lock; waiting"
      flock 9
    fi
  fi
  "$@"
}

build_k8s() {
  local bins="kube-apiserver kubectl etcd"
  if up_to_date "$K8S_OUT" .stamp k8s "$bins" "$K8S_MOD" etcd; then
    log "kube-apiserver, kubectl, etcd v$KUBE_VERSION/$ETCD_VERSION up to date in $K8S_OUT"
    return
  fi
  local start; start=$(date +%s)
  log "building kube-apiserver + kubectl v$KUBE_VERSION and etcd v$ETCD_VERSION into $K8S_OUT"
  log "(cold: 12 to 23 min on 2 cores; 5 to 9 min when the Go build cache holds another version's packages; ~40s rebuilt)"
  rm -f "$K8S_OUT/.stamp"
  [[ -f "$TOOLS/$K8S_MOD/go.mod" ]] ||
    die "no tools module for v$KUBE_VERSION: run KUBE_VERSION=$KUBE_VERSION $0 gen-mod (and commit hack/tools/$K8S_MOD)"
  (cd "$TOOLS/$K8S_MOD" && go mod download) || die "downloading the k8s tools module's dependencies failed"
  local ld; ld="$(kube_ldflags)"
  build_one "$K8S_MOD" k8s.io/kubernetes/cmd/kube-apiserver "$K8S_OUT/kube-apiserver" "$ld"
  build_one "$K8S_MOD" k8s.io/kubernetes/cmd/kubectl "$K8S_OUT/kubectl" "$ld"
  build_one etcd go.etcd.io/etcd/server/v3 "$K8S_OUT/etcd"
  stamp_of k8s "$K8S_MOD" etcd >"$K8S_OUT/.stamp"
  log "done in $(( $(date +%s) - start ))s: $("$K8S_OUT/kubectl" version --client 2>/dev/null | head -1); $("$K8S_OUT/etcd" --version 2>/dev/null | head -1)"
}

build_helm() {
  if up_to_date "$HELM_OUT" .stamp helm helm helm; then
    log "helm v$HELM_VERSION up to date in $HELM_OUT"
    return
  fi
  rm -f "$HELM_OUT/.stamp"
  build_one helm helm.sh/helm/v3/cmd/helm "$HELM_OUT/helm" \
    "-X helm.sh/helm/v3/internal/version.version=v$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
  stamp_of helm helm >"$HELM_OUT/.stamp"
  log "helm: $("$HELM_OUT/helm" version --short 2>/dev/null)"
}

NODE_BINS="kubelet kube-controller-manager kube-scheduler kube-proxy"

# build_node builds the node's binaries into the k8s dir beside kube-apiserver,
# with a stamp of their own (.stamp-node), so that the k8s set stays as it was.
build_node() {
  local stamp="$K8S_OUT/.stamp-node"
  [[ "$K8S_MOD" == k8s ]] || die "the node is built for v$DEFAULT_KUBE_VERSION only (KUBE_VERSION=$KUBE_VERSION)"
  if up_to_date "$K8S_OUT" .stamp-node node "$NODE_BINS" k8s; then
    log "$(echo $NODE_BINS | sed 's/ /, /g') v$KUBE_VERSION up to date in $K8S_OUT"
    return
  fi
  local start; start=$(date +%s)
  log "building $NODE_BINS v$KUBE_VERSION into $K8S_OUT"
  log "(~5 min when kube-apiserver's build cache is warm; cold, add the k8s set's time)"
  rm -f "$stamp"
  (cd "$TOOLS/k8s" && go mod download) || die "downloading the k8s tools module's dependencies failed"
  local ld b; ld="$(kube_ldflags)"
  for b in $NODE_BINS; do build_one k8s "k8s.io/kubernetes/cmd/$b" "$K8S_OUT/$b" "$ld"; done
  stamp_of node k8s >"$stamp"
  log "done in $(( $(date +%s) - start ))s: $("$K8S_OUT/kubelet" --version 2>/dev/null | head -1)"
}

case "${1:-k8s}" in
  k8s) with_lock "$K8S_OUT" build_k8s ;;
  helm) with_lock "$HELM_OUT" build_helm ;;
  node) LOCK_NAME=.lock-node with_lock "$K8S_OUT" build_node ;;
  all) with_lock "$K8S_OUT" build_k8s; with_lock "$HELM_OUT" build_helm ;;
  dir) echo "$K8S_OUT" ;;
  versions) echo "$MATRIX_VERSIONS" ;;
  helm-dir) echo "$HELM_OUT" ;;
  gen-mod) gen_mod ;;
  -h | --help | help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
  *) die "unknown argument '$1' (try --help)" ;;
esac
