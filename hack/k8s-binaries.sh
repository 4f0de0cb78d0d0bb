#!/usr/bin/env bash
# Builds the Kubernetes binaries that the local cluster (`make run`) and the
# tests need, and the pinned Go tools, from Go source served by the Go module
# proxy (no prebuilt downloads), once per machine: each set is built into a
# user cache directory shared by every clone, keyed by what determines its
# binaries, and the clone's bin/ gets symlinks to it:
#
#   bin/k8s/<KUBE_VERSION>/kube-apiserver   from k8s.io/kubernetes/cmd/kube-apiserver
#   bin/k8s/<KUBE_VERSION>/kubectl          from k8s.io/kubernetes/cmd/kubectl
#   bin/k8s/<KUBE_VERSION>/etcd             from go.etcd.io/etcd/server/v3 (its main package)
#   bin/helm/<HELM_VERSION>/helm            from helm.sh/helm/v3/cmd/helm   (only with `helm`)
#   bin/k8s/<KUBE_VERSION>/{kubelet,kube-controller-manager,kube-scheduler,kube-proxy}
#                                           from k8s.io/kubernetes/cmd/...  (only with `node`)
#   bin/<tool>                              the Go tools of `tools` (`hack/k8s-binaries.sh gotestsum`, ...)
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
#   hack/tools/<tool>  each tool of `tools`
#
# The cache: $LISTENERSET_CACHE, by default $XDG_CACHE_HOME/listenerset-webhook
# (~/.cache/listenerset-webhook), holds <set>/<version>-<key>/ (k8s/1.37.2-<key>/,
# k8s-node/..., helm/..., gotestsum/v1.13.0-<key>/, ...), where <key> is a hash
# of the set's stamp (its .stamp file there): its versions, the files of its
# tools modules (go.mod, go.sum, and the source of a tool of ours), the Go
# version, GOOS/GOARCH and the build flags. A set whose directory exists is
# complete (built into a temporary directory beside it, then renamed); a
# second clone, or a CI run on a machine that built it before, only links it
# (milliseconds). Builds of one key take a lock (flock), so that two clones or
# test binaries asking at once build it once. Nothing removes a key another
# clone may still use: `make clean-cache` removes the whole cache.
#
# Usage:
#   hack/k8s-binaries.sh [k8s]     build (or link) kube-apiserver, kubectl, etcd
#   hack/k8s-binaries.sh helm      build (or link) helm
#   hack/k8s-binaries.sh node      build (or link) kubelet, kube-controller-manager,
#                                  kube-scheduler, kube-proxy (the single-node cluster
#                                  of hack/node; ~5 min with kube-apiserver's cache warm)
#   hack/k8s-binaries.sh all       k8s and helm
#   hack/k8s-binaries.sh TOOL      build (or link) a Go tool into bin/: one of
#                                  `tools`, e.g. hack/k8s-binaries.sh gotestsum
#   hack/k8s-binaries.sh SET...    each of these, in order (k8s helm gotestsum)
#   hack/k8s-binaries.sh tools     print the Go tools' names
#   hack/k8s-binaries.sh dir       print the k8s binaries dir (no build)
#   hack/k8s-binaries.sh helm-dir  print the helm binary dir (no build)
#   hack/k8s-binaries.sh cache-dir print the cache directory (no build)
#   hack/k8s-binaries.sh cache-path SET  print the cache directory of SET (k8s, node,
#                                  helm or a tool) for this checkout (no build)
#   hack/k8s-binaries.sh clean-cache  remove the cache directory (make clean-cache)
#   hack/k8s-binaries.sh gen-mod   regenerate hack/tools/*/go.mod from the pinned
#                                  versions (derives kubernetes' staging replaces
#                                  from its go.mod in the module cache); with
#                                  KUBE_VERSION, that version's module only
#   hack/k8s-binaries.sh versions  print the version matrix (MATRIX_VERSIONS)
#   hack/k8s-binaries.sh default-version  print DEFAULT_KUBE_VERSION, the version every
#                                  test runs against unless KUBE_VERSION names another
#
# Idempotent: when the set's cache directory exists, the script links it and
# returns in ~0.1s ("up to date"). Measured on the shared 2-core machine (docs/kubernetes-versions.md):
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
#   LISTENERSET_CACHE  the cache directory (default ${XDG_CACHE_HOME:-$HOME/.cache}/listenerset-webhook)
#   K8S_BIN_DIR   override where the k8s set is linked (default bin/k8s/<KUBE_VERSION>)
#   HELM_BIN_DIR  override where helm is linked       (default bin/helm/<HELM_VERSION>)
#   TOOLS_BIN_DIR override where the Go tools are linked (default bin)
#   FORCE=1       rebuild even when the cache holds the set
#   NO_BUILD=1    link what the cache holds; exit 3 (and build nothing) when a set is not there
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
TOOLS_OUT="${TOOLS_BIN_DIR:-$ROOT/bin}"
CACHE="${LISTENERSET_CACHE:-${XDG_CACHE_HOME:-${HOME:?neither LISTENERSET_CACHE nor HOME is set}/.cache}/listenerset-webhook}"
[[ "$CACHE" == /* ]] || CACHE="$PWD/$CACHE"

# The tools modules stand alone: never let a go.work pull them together with
# the product module, and never write into their go.mod during a build. The
# flags are the same for every caller (the environment's GOFLAGS do not
# apply), so that one key names one binary; BUILD_FLAGS is part of the key.
export GOWORK=off
export GOFLAGS=-mod=readonly
export CGO_ENABLED=0
BUILD_FLAGS="CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath"

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

# stamp_of prints a set's stamp, what determines its binaries: its header
# (the set and its versions), the build flags, the Go toolchain and target,
# and every file of its tools modules that goes into the build.
stamp_of() { # header tools-dirs...
  local header="$1" d; shift
  echo "$header"
  echo "build: $BUILD_FLAGS"
  # In the (first) tools module: the toolchain its go line selects is the one that builds it.
  go env -C "$TOOLS/$1" GOVERSION GOOS GOARCH GOAMD64 GOARM64 GOEXPERIMENT
  for d in "$@"; do
    (cd "$TOOLS" && find "$d" -type f \( -name go.mod -o -name go.sum -o \( -name '*.go' ! -name '*_test.go' \) \) |
      LC_ALL=C sort | xargs sha256sum)
  done
}

# The Go tools: each one's tools module (hack/tools/<name>), the module whose
# version it is (empty: our own source), build tags, and its main packages,
# each as package=binary.
TOOL_NAMES="gotestsum staticcheck kube-score promtool cosign cyclonedx-gomod krew ociimage"
tool_def() { # name
  T_TAGS=""
  case "$1" in
    gotestsum) T_MOD=gotest.tools/gotestsum T_BUILDS="gotest.tools/gotestsum=gotestsum" ;;
    staticcheck) T_MOD=honnef.co/go/tools T_BUILDS="honnef.co/go/tools/cmd/staticcheck=staticcheck" ;;
    kube-score) T_MOD=github.com/zegl/kube-score T_BUILDS="github.com/zegl/kube-score/cmd/kube-score=kube-score" ;;
    # Without Prometheus' service discovery plugins (remove_all_sd: `promtool
    # test rules` needs none): 266 s cold at load 3 to 4, where every plugin
    # took over 20 minutes.
    promtool) T_MOD=github.com/prometheus/prometheus T_TAGS=remove_all_sd
      T_BUILDS="github.com/prometheus/prometheus/cmd/promtool=promtool" ;;
    cosign) T_MOD=github.com/sigstore/cosign/v2 T_BUILDS="github.com/sigstore/cosign/v2/cmd/cosign=cosign" ;;
    cyclonedx-gomod) T_MOD=github.com/CycloneDX/cyclonedx-gomod
      T_BUILDS="github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod=cyclonedx-gomod" ;;
    krew) T_MOD=sigs.k8s.io/krew
      T_BUILDS="sigs.k8s.io/krew/cmd/krew=krew sigs.k8s.io/krew/cmd/validate-krew-manifest=validate-krew-manifest" ;;
    ociimage) T_MOD="" T_BUILDS=".=ociimage ./ociregistry=ociregistry" ;;
    *) return 1 ;;
  esac
}

# mod_version prints the version of module $2 that hack/tools/$1/go.mod requires.
mod_version() { # tools-dir module
  awk -v m="$2" '$1 == "require" && $2 == m {print $3; exit} $1 == m {print $2; exit}' "$TOOLS/$1/go.mod"
}

NODE_BINS="kubelet kube-controller-manager kube-scheduler kube-proxy"

# def_set sets what ensure and cache-path need of a set: S_SET (its directory
# in the cache), S_VERSION, S_BINS, S_LINK (where the clone links them),
# S_BUILD (the function that builds them into a directory), S_STAMP and
# S_DIR (its cache directory).
def_set() { # k8s|node|helm|tool
  local header b
  local -a dirs
  case "$1" in
    k8s)
      [[ -f "$TOOLS/$K8S_MOD/go.mod" ]] ||
        die "no tools module for v$KUBE_VERSION: run KUBE_VERSION=$KUBE_VERSION $0 gen-mod (and commit hack/tools/$K8S_MOD)"
      S_SET=k8s S_VERSION=$KUBE_VERSION S_BINS="kube-apiserver kubectl etcd" S_LINK=$K8S_OUT S_BUILD=build_k8s
      header="set=k8s kube=$KUBE_VERSION staging=$STAGING_VERSION etcd=$ETCD_VERSION" dirs=("$K8S_MOD" etcd) ;;
    node)
      [[ "$K8S_MOD" == k8s ]] || die "the node is built for v$DEFAULT_KUBE_VERSION only (KUBE_VERSION=$KUBE_VERSION)"
      S_SET=k8s-node S_VERSION=$KUBE_VERSION S_BINS=$NODE_BINS S_LINK=$K8S_OUT S_BUILD=build_node
      header="set=node kube=$KUBE_VERSION staging=$STAGING_VERSION" dirs=(k8s) ;;
    helm)
      S_SET=helm S_VERSION=$HELM_VERSION S_BINS=helm S_LINK=$HELM_OUT S_BUILD=build_helm
      header="set=helm helm=$HELM_VERSION" dirs=(helm) ;;
    *)
      tool_def "$1" || die "unknown argument '$1' (try --help)"
      S_SET=$1 S_VERSION=src S_BINS="" S_LINK=$TOOLS_OUT S_BUILD=build_tool
      [[ -z "$T_MOD" ]] || S_VERSION="$(mod_version "$1" "$T_MOD")"
      [[ -n "$S_VERSION" ]] || die "hack/tools/$1/go.mod requires no $T_MOD"
      for b in $T_BUILDS; do S_BINS+="${S_BINS:+ }${b#*=}"; done
      header="set=$1 version=$S_VERSION tags=$T_TAGS builds=$T_BUILDS" dirs=("$1") ;;
  esac
  S_STAMP="$(stamp_of "$header" "${dirs[@]}")"
  S_DIR="$CACHE/$S_SET/$S_VERSION-$(sha256sum <<<"$S_STAMP" | cut -c1-16)"
}

# cached: the set's cache directory is complete (its stamp is the one wanted
# and its binaries are there).
cached() {
  [[ -f "$S_DIR/.stamp" && "$(cat "$S_DIR/.stamp")" == "$S_STAMP" ]] || return 1
  local b
  for b in $S_BINS; do [[ -x "$S_DIR/$b" ]] || return 1; done
}

# init_cache creates the cache directory, tagged as a cache (CACHEDIR.TAG:
# backup tools skip it).
init_cache() {
  mkdir -p "$CACHE/$S_SET"
  [[ -f "$CACHE/CACHEDIR.TAG" ]] ||
    printf 'Signature: 8a477f597d28d172789f06886806bc55\n# listenerset-webhook: built binaries (hack/k8s-binaries.sh); make clean-cache removes them\n' \
      >"$CACHE/CACHEDIR.TAG"
}

TMP_DIRS=()
cleanup() { [[ ${#TMP_DIRS[@]} == 0 ]] || rm -rf "${TMP_DIRS[@]}"; }
trap cleanup EXIT

# ensure makes the set's cache directory complete, building it when it is
# not (under a lock on its key: whoever waited finds it built), and links
# its binaries into the clone.
ensure() { # k8s|node|helm|tool
  def_set "$1"
  if [[ "${FORCE:-}" == 1 ]] || ! cached; then
    if [[ "${NO_BUILD:-}" == 1 ]]; then
      log "$S_SET $S_VERSION is not in the cache ($S_DIR); NO_BUILD=1: not building it"
      exit 3
    fi
    init_cache
    exec 9>"$S_DIR.lock"
    if command -v flock >/dev/null && ! flock -n 9; then
      log "another build holds $S_DIR.lock; waiting"
      flock 9
    fi
    if [[ "${FORCE:-}" == 1 ]] || ! cached; then
      build_into
    else
      log "$S_SET $S_VERSION built meanwhile in $S_DIR"
    fi
    exec 9>&-
  else
    log "$S_SET $S_VERSION up to date in $S_DIR"
  fi
  link_into
}

# build_into builds the set into a temporary directory beside its cache
# directory, writes the stamp there, and renames it into place: a set's
# directory is complete or absent, never half-written.
build_into() {
  local tmp start old=""
  start=$(date +%s)
  tmp="$(mktemp -d "$CACHE/$S_SET/.tmp-$S_VERSION.XXXXXX")"
  TMP_DIRS+=("$tmp")
  chmod 755 "$tmp"
  log "building $S_SET $S_VERSION into $S_DIR"
  "$S_BUILD" "$tmp"
  printf '%s\n' "$S_STAMP" >"$tmp/.stamp"
  if [[ -e "$S_DIR" ]]; then # FORCE=1, or a directory of another stamp under this key
    old="$(mktemp -d "$CACHE/$S_SET/.old-$S_VERSION.XXXXXX")"
    TMP_DIRS+=("$old")
    mv -T "$S_DIR" "$old/dir"
  fi
  mv -T "$tmp" "$S_DIR" || die "could not rename $tmp to $S_DIR"
  log "built $S_SET $S_VERSION in $(( $(date +%s) - start ))s"
}

# link_into points the clone's names of the set's binaries at the cache,
# each replaced atomically (rename), and leaves them alone when they already
# point there.
link_into() {
  local b link
  mkdir -p "$S_LINK"
  for b in $S_BINS; do
    link="$S_LINK/$b"
    [[ -L "$link" && "$(readlink "$link")" == "$S_DIR/$b" ]] && continue
    ln -sfn "$S_DIR/$b" "$link.tmp.$$"
    mv -Tf "$link.tmp.$$" "$link"
  done
}

# build_one builds a main package from a tools module into out.
build_one() { # tools-dir package out-file [ldflags]
  local dir="$TOOLS/$1" pkg="$2" out="$3" ldflags="${4:-}" start
  start=$(date +%s)
  log "building $(basename "$out") from $pkg ..."
  (cd "$dir" && go build -trimpath -ldflags "-s -w $ldflags" -o "$out" "$pkg") || die "building $pkg failed"
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

build_k8s() { # out-dir
  local out="$1"
  log "(cold: 12 to 23 min on 2 cores; 5 to 9 min when the Go build cache holds another version's packages; ~40s rebuilt)"
  (cd "$TOOLS/$K8S_MOD" && go mod download) || die "downloading the k8s tools module's dependencies failed"
  local ld; ld="$(kube_ldflags)"
  build_one "$K8S_MOD" k8s.io/kubernetes/cmd/kube-apiserver "$out/kube-apiserver" "$ld"
  build_one "$K8S_MOD" k8s.io/kubernetes/cmd/kubectl "$out/kubectl" "$ld"
  build_one etcd go.etcd.io/etcd/server/v3 "$out/etcd"
  log "$("$out/kubectl" version --client 2>/dev/null | head -1); $("$out/etcd" --version 2>/dev/null | head -1)"
}

build_helm() { # out-dir
  build_one helm helm.sh/helm/v3/cmd/helm "$1/helm" \
    "-X helm.sh/helm/v3/internal/version.version=v$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
  log "helm: $("$1/helm" version --short 2>/dev/null)"
}

# build_node builds the node's binaries (the k8s set of the default version
# is the rest of the node; each set has its own key).
build_node() { # out-dir
  log "(~5 min when kube-apiserver's build cache is warm; cold, add the k8s set's time)"
  (cd "$TOOLS/k8s" && go mod download) || die "downloading the k8s tools module's dependencies failed"
  local ld b; ld="$(kube_ldflags)"
  for b in $NODE_BINS; do build_one k8s "k8s.io/kubernetes/cmd/$b" "$1/$b" "$ld"; done
  log "$("$1/kubelet" --version 2>/dev/null | head -1)"
}

# build_tool builds a Go tool's main packages as they always were (no
# -ldflags), with the flags every set has.
build_tool() { # out-dir
  local b start
  for b in $T_BUILDS; do
    start=$(date +%s)
    log "building ${b#*=} from ${b%%=*} ..."
    go build -C "$TOOLS/$S_SET" -trimpath ${T_TAGS:+-tags "$T_TAGS"} -o "$1/${b#*=}" "${b%%=*}" ||
      die "building ${b%%=*} failed"
    log "built ${b#*=} in $(( $(date +%s) - start ))s"
  done
}

# clean_cache removes what this script keeps in the cache (each set's
# directory, the tag) and then the cache directory when nothing else is in
# it: LISTENERSET_CACHE may name a directory that holds more.
clean_cache() {
  [[ -d "$CACHE" ]] || { log "no cache at $CACHE"; return; }
  local s
  for s in k8s k8s-node helm sarif-multitool $TOOL_NAMES; do rm -rf "${CACHE:?}/$s"; done
  rm -f "$CACHE/CACHEDIR.TAG"
  rmdir "$CACHE" 2>/dev/null || log "$CACHE holds files of others: left there"
  log "removed the binaries cached in $CACHE"
}

case "${1:-k8s}" in
  dir) echo "$K8S_OUT" ;;
  versions) echo "$MATRIX_VERSIONS" ;;
  default-version) echo "$DEFAULT_KUBE_VERSION" ;;
  helm-dir) echo "$HELM_OUT" ;;
  tools) echo "$TOOL_NAMES" ;;
  cache-dir) echo "$CACHE" ;;
  cache-path) [[ $# == 2 ]] || die "usage: $0 cache-path k8s|node|helm|TOOL"; def_set "$2"; echo "$S_DIR" ;;
  clean-cache) clean_cache ;;
  gen-mod) gen_mod ;;
  -h | --help | help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
  *) # the sets named (k8s, helm, node, all, tools), in order; k8s when none
    sets=()
    for t in "${@:-k8s}"; do
      case "$t" in
        k8s | helm | node) sets+=("$t") ;;
        all) sets+=(k8s helm) ;;
        *) tool_def "$t" || die "unknown argument '$t' (try --help)"; sets+=("$t") ;;
      esac
    done
    for t in "${sets[@]}"; do ensure "$t"; done ;;
esac
