// Package release tests a release the way its users take it. TestKrewInstall
// builds one (make release for this machine's platform, with a throwaway
// cosign key), puts its krew plugin manifest into a local git index, and
// installs the kubectl plugin from there with krew, built from its Go module
// (hack/tools/krew), downloading the archive from a loopback HTTP server;
// then kubectl runs the installed plugin. docs/release.md says how a release
// is published to such an index.
//
// make test-release runs it, and make test-all once the release tools are
// built; without them it skips, saying how to build them.
package release
