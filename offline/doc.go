// Package offline is the validate command: it judges ListenerSet manifests
// read from files, directories or standard input with no cluster, with the
// webhook's own verdict (validation.Validate), so that a pipeline gets the
// answer kube-apiserver would give. It is not a webhook: it reads files and
// writes reports, and imports no controller-runtime.
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
// skipped silently. Unknown or duplicate fields are warnings, like kubectl's
// "Warning: unknown field" (kube-apiserver prunes unknown fields of a CRD). A
// ListenerSet whose fields have the wrong types cannot be decoded at all and
// is reported invalid, naming the file and document. A file that cannot be
// read, or YAML/JSON that does not parse, is an input error; the rest of that
// file is not read, other PATHs still are.
//
// # Text output (the default)
//
// Results go to stdout, one per ListenerSet, in input order, as kubectl
// prints them (objects named "namespace/name", or "name" without namespace):
//
//	listenerset.gateway.networking.k8s.io/team-a/web valid
//	The ListenerSet "team-a/dup" is invalid: spec.listeners[1].name: Duplicate value: "web"
//	The ListenerSet "team-a/many" is invalid:
//	* spec.listeners[0].port: Invalid value: 0: must be between 1 and 65535, inclusive
//	* spec.listeners[1].protocol: Unsupported value: "TCP": supported values: ...
//
// Notes go to stderr: "Warning: <path>: <message>" lines just before the
// result they belong to, "skipped <Kind> "<name>" (<apiVersion>) in <file>:
// <reason>" for other objects, "error: <file>: <problem>" for input errors,
// and "no ListenerSet found" when there was nothing to validate.
//
// # JSON output (-o json)
//
// One JSON document (Report) on stdout and nothing on stderr:
//
//	{
//	  "results": [{"file": "a.yaml", "document": 1, "namespace": "team-a", "name": "dup", "valid": false,
//	               "errors": [{"field": "spec.listeners[1].name", "type": "FieldValueDuplicate",
//	                           "value": "web", "message": "spec.listeners[1].name: Duplicate value: \"web\""}],
//	               "warnings": []}],
//	  "skipped": [{"file": "a.yaml", "document": 2, "apiVersion": "v1", "kind": "Namespace",
//	               "name": "team-a", "reason": "not a ListenerSet"}],
//	  "inputErrors": [],
//	  "summary": {"valid": 0, "invalid": 1, "skipped": 1, "inputErrors": 0, "exitCode": 1}
//	}
//
// Documents and list items are numbered from 1, as in the text output.
//
// # Exit codes
//
// ExitValid (0) when every ListenerSet is valid, including when there was
// none; ExitInvalid (1) when any is invalid; ExitInputError (2) when any input
// could not be read or parsed (this wins over 1: the run is incomplete).
package offline
