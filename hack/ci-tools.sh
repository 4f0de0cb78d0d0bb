#!/usr/bin/env bash
# The non-Go tools the offline command's tests run, pinned:
#   sarif-multitool  Microsoft's SARIF multitool (npm package @microsoft/sarif-multitool,
#                    SARIF_MULTITOOL_VERSION) in bin/npm/
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
# The multitool is a self-contained .NET binary inside its npm package (about 100 MB in bin/npm/).
set -euo pipefail
cd "$(dirname "$0")/.."

SARIF_MULTITOOL_VERSION=5.7.0
NPM_PREFIX=bin/npm
case "$(uname -s)" in
Darwin) platform=darwin ;;
*) platform=linux ;;
esac
sarif_pkg="$NPM_PREFIX/node_modules/@microsoft/sarif-multitool-$platform"

# path TOOL: the installed tool's path, or why it is missing (exit 1).
path() {
  case "$1" in
  sarif-multitool)
    if [ -x "$sarif_pkg/Sarif.Multitool" ] &&
      grep -q "\"version\": *\"$SARIF_MULTITOOL_VERSION\"" "$sarif_pkg/package.json" 2>/dev/null; then
      echo "$PWD/$sarif_pkg/Sarif.Multitool"
      return
    fi
    echo "needs Microsoft's SARIF multitool $SARIF_MULTITOOL_VERSION in $NPM_PREFIX/: run make ci-tools (it installs it with npm; as root it installs Debian's npm first when missing)"
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
    echo "ci-tools: npm install @microsoft/sarif-multitool@$SARIF_MULTITOOL_VERSION into $NPM_PREFIX" >&2
    # The platform package is named too, so that its version is pinned as
    # well (the main package asks for ^$SARIF_MULTITOOL_VERSION).
    if ! npm install --prefix "$NPM_PREFIX" --no-audit --no-fund --loglevel=error \
      "@microsoft/sarif-multitool@$SARIF_MULTITOOL_VERSION" \
      "@microsoft/sarif-multitool-$platform@$SARIF_MULTITOOL_VERSION" >&2; then
      cannot sarif-multitool "npm install failed"
      return 0
    fi
    # Its postinstall script only does this; newer npm skips install scripts.
    chmod u+x "$sarif_pkg/Sarif.Multitool"
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
