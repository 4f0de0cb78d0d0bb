// Package report is the last layer of the offline validate command: one
// model of what offline/judge found (Report: results, skipped objects, input
// errors, a summary and the exit code) and a writer per format: text
// (kubectl's lines, notes on stderr), JSON (the model itself), JUnit, SARIF,
// GitHub workflow commands and JSON Lines. The CI formats share one list of findings,
// each named by its diagnostic code (findings.go; Catalog is every code, of
// which docs/codes.md is generated). It uses only offline/read and
// offline/judge, and decides nothing.
//
// The formats: docs/validate.md.
package report
