// Package position tells where a field of a manifest stands in its file: the
// line and column that a field.Path string (spec.listeners[2].tls.options[
// example.com/x], metadata.name) names in one document, so that every finding
// of the validate command can point at the offending field rather than at the
// document.
//
// A document is read into a Node tree once, either from a YAML node tree
// (go.yaml.in/yaml/v3, the parser sigs.k8s.io/yaml builds on) or by a token
// scan of JSON; lines are those of the file, not of the document. Find
// resolves a path to the deepest node that exists: a field that is missing (a
// Required error) points at its nearest existing parent, and a document
// without any of the path at the document itself.
//
// The package only locates; it neither decodes nor judges.
//
// What users see of it: docs/validate.md ("Positions").
package position
