// Package offline is the validate command: it judges ListenerSet manifests
// read from files, directories or standard input with no cluster, and gives
// the verdict kube-apiserver with the webhook would give, object by object
// (TestValidateMatchesAPIServer holds the two equal). It imports no
// controller-runtime and serves nothing.
//
// The command is three layers, each a package that uses only those before
// it: offline/read (files to objects with positions), offline/judge (the
// CRD, the defaults and validation's verdict, with a cluster view built from
// the input) and offline/report (one model, a writer per format). Validate
// only wires them; the listeners command (package listing) uses the first
// two, the audit command (offline/live) the last two.
//
// Input, formats, positions and exit codes: docs/validate.md.
package offline
