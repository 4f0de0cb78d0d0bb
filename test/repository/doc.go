// Package repository checks the repository itself rather than the product:
// git tracks no built binary, and the ignore rules cover what the builds
// write (the Makefile's bin/, `go build` in a command's directory), so that
// `git add .` cannot track one and the Dockerfile's `COPY . .` sends none;
// and the binaries the builds need are built once per machine, into the
// user cache every clone shares (hack/k8s-binaries.sh): a second clone
// builds nothing.
// Its tests run in `make test` and `make test-all`, after make has built their tools.
//
// The test tiers: CONTRIBUTING.md.
package repository
