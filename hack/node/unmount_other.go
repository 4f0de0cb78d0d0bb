//go:build !linux

package node

// unmountFlags: the node runs on Linux only (hack/node/setup.sh check says
// so elsewhere); this file lets the tests that import the package build
// on macOS, where they skip.
const unmountFlags = 0
