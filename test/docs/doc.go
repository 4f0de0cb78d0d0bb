// Package docs checks the documentation against the repository it
// describes: every relative link in README.md and docs/*.md names a file
// that exists (and, with a #fragment, a heading of that page), and every
// shell session a page shows for an offline command (`$ kubectl
// listenerset ...` and the lines after it) is what the built plugin prints
// for the same arguments, run from the repository root. Sessions that need
// a cluster or a shell are skipped by the rule in output_test.go. The page
// of the diagnostic codes, docs/codes.md, is generated here from the
// catalog (codes_test.go, `make docs-generate`) and fails while stale; so
// do the TLS option rows of docs/rules.md, generated from validation's
// option table (rules_test.go).
package docs
