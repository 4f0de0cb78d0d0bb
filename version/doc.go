// Package version owns what the two binaries say of their build, the line
// `--version` prints: the release version, the commit and the Go version.
//
// make release sets Version and Commit with the linker
// (-X github.com/airlock/listenerset-webhook/version.Version=v1.2.3); a
// binary built without them takes what the Go build recorded instead: the
// module version of `go install ...@v1.2.3`, and the commit where the build
// stamped VCS information.
//
// How a release is stamped: docs/release.md.
package version
