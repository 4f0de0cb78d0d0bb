// Package offline is the validate command: it judges ListenerSet manifests
// read from files, directories or standard input with no cluster, so that a
// pipeline gets the answer kube-apiserver with the webhook would give. It is
// not a webhook: it reads files and writes reports, and imports no
// controller-runtime.
//
// The command is three layers, each a package that uses only those before
// it: offline/read (files to objects with positions), offline/judge (the
// CRD, the defaults, validation's verdict, with a cluster view built from
// the input) and offline/report (one model, a writer per format). Validate
// only wires them; the listeners command (package listing) reads and judges
// through the same two first layers, and the audit command (offline/live)
// judges the ListenerSets a live cluster stores through the last two.
//
// # Verdict
//
// Each ListenerSet goes the way a create of it goes through kube-apiserver
// (offline/judge): the ListenerSet CRD is applied with the library kube-apiserver
// serves custom resources with (offline/crdcheck: unknown fields pruned,
// defaults, OpenAPI schema, CEL rules, then object metadata: name or
// generateName, DNS names, labels, annotations, finalizers, owner
// references); the mutating webhook's defaults are added where the CRD set
// none; then the webhook's verdict, validation.Validate. The CRD is the
// embedded Gateway API v1.6.3 standard one unless judge.Options.CRDs names the
// cluster's own. A field the CRD does not know is an error, as under
// kubectl apply's strict field validation, unless judge.Options.UnknownFields is
// UnknownFieldsWarn or UnknownFieldsIgnore. Where the CRD and the webhook
// catch the same problem the webhook's error is shown (it names the
// listener; the CRD's CEL messages often say only spec.listeners); where
// only the CRD or kube-apiserver's metadata checks catch it, theirs, with its
// path. TestValidateMatchesAPIServer (test/e2e) holds the verdicts equal to
// a real kube-apiserver's, object by object.
//
// The ListenerSets of the input are judged in Gateway API's precedence
// order (creation time, then namespace/name), as a server would have
// admitted them, and each one found valid is a rival for the merged
// listener list of those after it: one the server would refuse, for its own
// rules, the CRD's or --strict's, is never stored and is no rival.
//
// # Input
//
// Each PATH is a file (any name), a directory (searched recursively for
// *.yaml, *.yml and *.json, skipping hidden directories such as .git), or "-"
// for standard input (shown as STDIN). Files may hold several YAML documents
// (separated by ---) or a stream of JSON objects. Lists (kind List, or
// ListenerSetList) are expanded into their items, so the output of
// `kubectl get listenersets -o yaml` can be checked against new rules.
//
// Only gateway.networking.k8s.io/v1 ListenerSets are validated. Other objects
// are skipped with a note; empty documents (only comments or whitespace) are
// skipped silently. Unknown fields are errors (see Verdict). A key given
// twice is a warning: kubectl sends the object it decoded, in which the last
// value has won, so kube-apiserver never sees the first. A field with a
// value of the wrong type is the CRD's error at its path. A file that cannot be
// read, or YAML/JSON that does not parse, is an input error; the rest of that
// file is not read, other PATHs still are.
//
// # Text output (the default)
//
// Results go to stdout, one per ListenerSet, in input order, as kubectl
// prints them (objects named "namespace/name", or "name" without namespace),
// each finding followed by " (at FILE:LINE:COLUMN)", its position (see
// Positions):
//
//	listenerset.gateway.networking.k8s.io/team-a/web valid
//	The ListenerSet "team-a/dup" is invalid: spec.listeners[1].name: Duplicate value: "web" (at a.yaml:12:5)
//	The ListenerSet "team-a/many" is invalid:
//	* spec.listeners[0].port: Invalid value: 0: must be between 1 and 65535, inclusive (at a.yaml:31:5)
//	* spec.listeners[1].protocol: Unsupported value: "TCP": supported values: ... (at a.yaml:35:5)
//
// Notes go to stderr: "Warning: <path>: <message> (at FILE:LINE:COLUMN)"
// lines just before the result they belong to, "skipped <Kind> "<name>"
// (<apiVersion>) in <file>: <reason>" for other objects, "error: <file>:
// <problem> (at FILE...)" for input errors, and "no ListenerSet found" when
// there was nothing to validate. Everything before " (at " is what kubectl
// prints; FILE is the path as given (STDIN for "-"), and LINE and COLUMN are
// the other formats' own, left out when the report has none (" (at FILE)"
// for a file that cannot be read, " (at FILE:LINE)").
//
// # JSON output (-o json)
//
// One JSON document (Report) on stdout and nothing on stderr:
//
//	{
//	  "results": [{"file": "a.yaml", "document": 1, "line": 1, "namespace": "team-a", "name": "dup", "valid": false,
//	               "errors": [{"field": "spec.listeners[1].name", "code": "LS104", "type": "FieldValueDuplicate",
//	                           "value": "web", "message": "spec.listeners[1].name: Duplicate value: \"web\"",
//	                           "line": 12, "column": 5}],
//	               "warnings": [{"field": "spec.listeners[0].tls.options[example.com/x]", "kind": "ForeignOption",
//	                             "message": "spec.listeners[0].tls.options[example.com/x]: not an Airlock ...",
//	                             "code": "LS202", "line": 9, "column": 9}]}],
//	  "skipped": [{"file": "a.yaml", "document": 2, "line": 14, "apiVersion": "v1", "kind": "Namespace",
//	               "name": "team-a", "reason": "not a ListenerSet"}],
//	  "inputErrors": [],
//	  "summary": {"valid": 0, "invalid": 1, "skipped": 1, "inputErrors": 0, "exitCode": 1}
//	}
//
// Documents and list items are numbered from 1, as in the text output.
// With --kubeconfig (offline/live.Validate) each error and warning also has
// "baseline" (introduced or unchanged against the live cluster), a result
// "fixed" (the stored set's findings it no longer has) and the summary
// "baseline" (the counts); the text output is then grouped by them
// (docs/validate.md).
//
// # Positions
//
// Every error and warning carries the line and column (from 1, columns in
// characters) of its field in the file, not of its document: the document
// of an object with findings is parsed into a node tree (a YAML document by
// go.yaml.in/yaml/v3, a JSON value by a token scan), and the field's path is
// looked up in it (package position). Only then: the value itself is read
// once, by sigs.k8s.io/yaml as kubectl reads it, and an object without
// findings needs no tree (its line is that of its first line that is
// neither blank nor a comment). A field that is missing, as for a Required
// error, points at its nearest existing parent; a warning known only by its
// line (a duplicate YAML key) at that key. Lines count from the top of the
// file, across "---". A YAML document that converts to JSON but does not
// parse as a node tree (the parsers differ in corner cases) has its findings
// at its first line. Every format shows them; the text output as a suffix
// after kubectl's line.
//
// # Codes
//
// Every finding carries its stable diagnostic code (docs/codes.md, generated
// from report.Catalog: the rules' codes, validation.Catalog, and those of
// what only the offline commands find, judge.Codes), which the CI formats
// name the check by and a user can suppress by: LS104 for a duplicate
// listener name, LS202 for another implementation's TLS option, LS015 for
// kube-apiserver's own refusal (the CRD's schema or CEL, object metadata),
// LS010 for input that cannot be read. A report's summary of the findings
// it does not show has one too (LS001, LS002). The text output shows none:
// it is kubectl's.
//
// # JUnit output (-o junit)
//
// JUnit XML as kubeconform writes it, for GitLab's and Jenkins' test reports:
// a testsuite per file, a testcase per object (classname ListenerSet@v1), a
// failure per error (type: the code; text: "file:line:column: message"), a
// skipped element for other objects and an error element for a document that
// cannot be read. Warnings are the testcase's system-out, each line
// "Warning LS202: file:line:column: message".
//
// # SARIF output (-o sarif)
//
// A SARIF 2.1.0 log (github.com/owenrumney/go-sarif) for code scanning: a
// rule per code (its id) with the code's title, its cause and fix as help and
// helpUri its entry of docs/codes.md (validation.CodesPage), a result per error
// (level error) and warning (level warning) at its file, line and column.
// Files are named relative to the working directory under the uriBaseId
// %SRCROOT%, which originalUriBaseIds maps to the working directory, so that
// GitHub code scanning places them when validate runs at the repository
// root; a file outside it is an absolute file: URI. Microsoft's SARIF
// multitool validates the output in the tests.
//
// # GitHub output (-o github)
//
// GitHub Actions workflow commands, one per finding, escaped as the runner
// expects (%, CR and LF; in properties also ":" and ","):
//
//	::error file=a.yaml,line=12,col=5,title=LS104 Duplicate listener name::ListenerSet team-a/dup: spec.listeners[1].name: Duplicate value: "web"
//	::warning file=a.yaml,line=9,col=9,title=LS202 TLS option of another implementation::ListenerSet team-a/dup: spec.listeners[0].tls.options[example.com/x]: ...
//
// # JSON Lines output (-o jsonl)
//
// One JSON object a line, for log pipelines: a "finding" line per finding,
// in the CI formats' order, flat (namespace, name, code, title, severity,
// field, message; baseline, file, line and column where they have a
// value), then one "summary" line, the JSON report's summary, so that a run
// without findings still logs that it ran.
//
// The CI formats write nothing to stderr.
//
// # Exit codes
//
// In every format: report.ExitValid (0) when every ListenerSet is valid, including
// when there was none; ExitInvalid (1) when any is invalid; ExitInputError
// (2) when any input could not be read or parsed (this wins over 1: the run
// is incomplete).
package offline
