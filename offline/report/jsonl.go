package report

import (
	"encoding/json"
	"io"
)

// Line types of the JSON Lines format.
const (
	lineFinding = "finding"
	lineSummary = "summary"
)

// jsonLine is one finding of the JSON Lines format: flat, so that a log
// pipeline can match on code or severity without parsing a nested report.
// Field, file, line, column and baseline are omitted where they have no
// value (a stored object has no file; baseline only against a cluster).
type jsonLine struct {
	Type      string `json:"type"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	// Kind is the object's kind when it is not a ListenerSet (HTTPRoute).
	Kind string `json:"kind,omitempty"`
	// Code is the diagnostic code (docs/codes.md), Title its title.
	Code  string `json:"code"`
	Title string `json:"title"`
	// Severity is "error" or "warning".
	Severity string `json:"severity"`
	Field    string `json:"field,omitempty"`
	Message  string `json:"message"`
	Baseline string `json:"baseline,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
}

// summaryLine is the last line: the JSON report's summary.
type summaryLine struct {
	Type string `json:"type"`
	Summary
}

// writeJSONLines writes one line per finding, in the order of the other CI
// formats (input errors, then each result's errors and warnings), then the
// summary line, so that a run with no finding still says it ran. The
// findings are the report's, bounded as every format's (each result's
// warnings by validation's report, its errors by the rules' own limits).
func writeJSONLines(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	for _, f := range r.findings() {
		l := jsonLine{Type: lineFinding, Namespace: f.Namespace, Name: f.Name, Code: f.Rule.ID, Title: f.Rule.Short,
			Severity: "warning", Field: f.Field, Message: f.Message, Baseline: string(f.Baseline),
			File: f.File, Line: f.Line, Column: f.Column}
		if f.Error {
			l.Severity = "error"
		}
		if f.Kind != "ListenerSet" {
			l.Kind = f.Kind
		}
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	return enc.Encode(summaryLine{Type: lineSummary, Summary: r.Summary})
}
