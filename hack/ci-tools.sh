#!/usr/bin/env bash
# The non-Go tools the offline command's tests run, pinned:
#   sarif-multitool  Microsoft's SARIF multitool (npm package @microsoft/sarif-multitool,
#                    SARIF_MULTITOOL_VERSION), installed once per machine into the user
#                    cache the Kubernetes binaries are kept in (hack/k8s-binaries.sh
#                    cache-dir), sarif-multitool/<version>-<os>-<arch>/
#   pre-commit       pre-commit, from Debian's packages when not on PATH
#
#   hack/ci-tools.sh install TOOL...   (make ci-tools) installs each tool that is missing, when
#                                      it can: npm and pre-commit come from apt-get, which needs
#                                      root. What it cannot install (no root, npm's registry
#                                      unreachable) it names, and exits 0: the tests that need it
#                                      skip, and CI (FAIL_ON_SKIP=1) fails on those skips
#   hack/ci-tools.sh path TOOL         (the tests) prints the installed tool's path; when it is
#                                      missing, prints why and how to get it on one line and
#                                      exits 1. Never installs anything.
#
# The multitool is a self-contained .NET binary inside its npm package (about 100 MB). npm installs it
# into a temporary directory beside its place in the cache, renamed into place when complete, under a
# lock (flock), so that clones installing it at once install it once.
set -euo pipefail
cd "$(dirname "$0")/.."

SARIF_MULTITOOL_VERSION=5.7.0
case "$(uname -s)" in
Darwin) platform=darwin ;;
*) platform=linux ;;
esac
cache="$(hack/k8s-binaries.sh cache-dir)"
NPM_PREFIX="$cache/sarif-multitool/$SARIF_MULTITOOL_VERSION-$platform-$(uname -m)"
sarif_pkg="$NPM_PREFIX/node_modules/@microsoft/sarif-multitool-$platform"

# path TOOL: the installed tool's path, or why it is missing (exit 1).
path() {
  case "$1" in
  sarif-multitool)
    if [ -x "$sarif_pkg/Sarif.Multitool" ] &&
      grep -q "\"version\": *\"$SARIF_MULTITOOL_VERSION\"" "$sarif_pkg/package.json" 2>/dev/null; then
      echo "$sarif_pkg/Sarif.Multitool"
      return
    fi
    echo "needs Microsoft's SARIF multitool $SARIF_MULTITOOL_VERSION in $NPM_PREFIX/: run make ci-tools (it installs it there with npm, once per machine; as root it installs Debian's npm first when missing)"
    return 1
    ;;
  pre-commit)
    command -v pre-commit && return
    echo "needs pre-commit on PATH: run make ci-tools as root (apt-get install pre-commit), or install pre-commit yourself"
    return 1
    ;;
  *) usage ;;
  esac
}

# cannot TOOL WHY: the line saying TOOL stays missing; install goes on.
cannot() {
  echo "ci-tools: $1 not installed: $2; the tests that need it are skipped" >&2
}

# apt_install PACKAGE: apt-get install, when this is root on Debian.
apt_install() {
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    cannot "$1" "apt-get install $1 needs root on Debian"
    return 1
  fi
  echo "ci-tools: apt-get install $1" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1"; } >&2 ||
    { cannot "$1" "apt-get install $1 failed"; return 1; }
}

install() {
  path "$1" >/dev/null && return
  case "$1" in
  sarif-multitool)
    command -v npm >/dev/null || apt_install npm || return 0
    mkdir -p "${NPM_PREFIX%/*}"
    exec 9>"$NPM_PREFIX.lock"
    command -v flock >/dev/null && flock 9
    if ! path "$1" >/dev/null; then
      local tmp
      tmp="$(mktemp -d "$NPM_PREFIX.tmp.XXXXXX")"
      chmod 755 "$tmp"
      echo "ci-tools: npm install @microsoft/sarif-multitool@$SARIF_MULTITOOL_VERSION into $NPM_PREFIX" >&2
      # The platform package is named too, so that its version is pinned as
      # well (the main package asks for ^$SARIF_MULTITOOL_VERSION).
      if ! npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error \
        "@microsoft/sarif-multitool@$SARIF_MULTITOOL_VERSION" \
        "@microsoft/sarif-multitool-$platform@$SARIF_MULTITOOL_VERSION" >&2; then
        rm -rf "$tmp"
        cannot sarif-multitool "npm install failed"
        return 0
      fi
      # Its postinstall script only does this; newer npm skips install scripts.
      chmod u+x "$tmp/node_modules/@microsoft/sarif-multitool-$platform/Sarif.Multitool"
      rm -rf "$NPM_PREFIX"
      mv -T "$tmp" "$NPM_PREFIX"
    fi
    exec 9>&-
    ;;
  pre-commit)
    apt_install pre-commit || return 0
    ;;
  esac
  path "$1" >/dev/null || cannot "$1" "installed, but $(path "$1")"
}

usage() {
  echo "usage: hack/ci-tools.sh install sarif-multitool|pre-commit...; hack/ci-tools.sh path sarif-multitool|pre-commit" >&2
  exit 2
}

case "${1:-}" in
path)
  [ $# = 2 ] || usage
  path "$2"
  ;;
install)
  [ $# -ge 2 ] || usage
  shift
  for tool in "$@"; do
    case "$tool" in sarif-multitool | pre-commit) ;; *) usage ;; esac
    install "$tool"
  done
  ;;
*) usage ;;
esac
