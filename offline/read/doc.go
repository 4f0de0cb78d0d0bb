// Package read is the first layer of the offline commands: it turns PATHs
// (files, directories, "-" for standard input) into objects, each with where
// it came from (file, document, list item, line) and what places its fields
// (a position.Document), in input order, and records what cannot be read.
// It neither judges nor reports: validate (offline/judge, offline/report)
// and listeners (listing) both read through Paths, so they see the same
// objects.
//
// Each input is read whole, then cut into documents: a stream of JSON values,
// or YAML documents at "---" lines, as kubectl reads them. YAML is converted
// to JSON by sigs.k8s.io/yaml (kubectl's converter), on every core; keys
// given twice become warnings (kubectl sends the object in which the last one
// has won). Lists (v1 List, ListenerSetList) are expanded into their items.
// Empty documents are dropped.
//
// What users see of it: docs/validate.md ("Input").
package read
