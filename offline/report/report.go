package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/read"
)

// Format selects the output.
type Format string

// Output formats.
const (
	// Text is kubectl's style: results on stdout, notes on stderr.
	Text Format = "text"
	// JSON is one Report on stdout.
	JSON Format = "json"
	// JUnit is JUnit XML as kubeconform writes it: a testsuite per file, a
	// testcase per ListenerSet, a failure per error.
	JUnit Format = "junit"
	// SARIF is a SARIF 2.1.0 log for code scanning: a rule per check, a
	// result per error and warning.
	SARIF Format = "sarif"
	// GitHub is GitHub Actions workflow commands, one per finding.
	GitHub Format = "github"
	// JSONLines is one JSON object a line: one per finding, then the
	// summary, for log pipelines (the audit's CronJob writes it to its log).
	JSONLines Format = "jsonl"
)

// Formats are the output formats, in the order help texts list them.
var Formats = []Format{Text, JSON, JUnit, SARIF, GitHub, JSONLines}

// FormatList is the formats as help texts show them: "text|json|...".
func FormatList() string {
	s := make([]string, len(Formats))
	for i, f := range Formats {
		s[i] = string(f)
	}
	return strings.Join(s, "|")
}

// Exit codes of the validate command.
const (
	// ExitValid: every ListenerSet found is valid (or there was none).
	ExitValid = 0
	// ExitInvalid: at least one ListenerSet is invalid.
	ExitInvalid = 1
	// ExitInputError: some input could not be read or parsed.
	ExitInputError = 2
)

// Report is the JSON output: every ListenerSet's result, every skipped
// object and every input error, in input order, and a summary.
type Report struct {
	// Results has one entry per ListenerSet validated.
	Results []judge.Result `json:"results"`
	// Skipped has one entry per object that is not a v1 ListenerSet.
	Skipped []judge.Skipped `json:"skipped"`
	// InputErrors has one entry per file or document that could not be read.
	InputErrors []read.InputError `json:"inputErrors"`
	// Summary counts the above.
	Summary Summary `json:"summary"`

	// files are the inputs read, in order (the suites of JUnit output).
	files []string
	// notes are the skipped objects and input errors as met (the text
	// output's order).
	notes []judge.Note
	// compared: the findings are marked against a live cluster's.
	compared bool
}

// Summary counts the report's entries and gives the exit code.
type Summary struct {
	// Valid and Invalid count Results by verdict.
	Valid   int `json:"valid"`
	Invalid int `json:"invalid"` // see Valid
	// Skipped and InputErrors count those lists.
	Skipped     int `json:"skipped"`
	InputErrors int `json:"inputErrors"` // see Skipped
	// ExitCode is what Validate returns.
	ExitCode int `json:"exitCode"`
	// Baseline counts the findings by how they stand against a live
	// cluster's (validate --kubeconfig); omitted otherwise.
	Baseline *BaselineSummary `json:"baseline,omitempty"`
}

// BaselineSummary counts the findings (errors and warnings) compared with
// a live cluster's.
type BaselineSummary struct {
	Introduced int `json:"introduced"`
	Unchanged  int `json:"unchanged"`
	Fixed      int `json:"fixed"`
	// IntroducedErrors are the introduced findings that are errors: only
	// they make the exit code 1 (unless FailOnAnyError).
	IntroducedErrors int `json:"introducedErrors"`
}

// New is the report of v.
func New(v *judge.Verdict) *Report {
	r := &Report{Results: append([]judge.Result{}, v.Results...), Skipped: []judge.Skipped{},
		InputErrors: []read.InputError{}, files: v.Files, notes: v.Notes, compared: v.Compared}
	for _, n := range v.Notes {
		if n.Skipped != nil {
			r.Skipped = append(r.Skipped, *n.Skipped)
		} else {
			r.InputErrors = append(r.InputErrors, *n.InputError)
		}
	}
	for _, res := range r.Results {
		if res.Kind != "" {
			continue // a route's findings: no ListenerSet
		}
		if res.Valid {
			r.Summary.Valid++
		} else {
			r.Summary.Invalid++
		}
	}
	r.Summary.Skipped, r.Summary.InputErrors = len(r.Skipped), len(r.InputErrors)
	invalid := r.Summary.Invalid > 0
	if r.compared {
		b := &BaselineSummary{}
		for _, f := range r.findings() {
			switch f.Baseline {
			case judge.Introduced:
				b.Introduced++
				if f.Error {
					b.IntroducedErrors++
				}
			case judge.Unchanged:
				b.Unchanged++
			case judge.Fixed:
				b.Fixed++
			}
		}
		r.Summary.Baseline = b
		invalid = b.IntroducedErrors > 0
	}
	switch {
	case r.Summary.InputErrors > 0:
		r.Summary.ExitCode = ExitInputError
	case invalid:
		r.Summary.ExitCode = ExitInvalid
	}
	return r
}

// FailOnAnyError makes any invalid ListenerSet exit ExitInvalid, also
// where only introduced errors would (a report compared with a live
// cluster's).
func (r *Report) FailOnAnyError() {
	if r.Summary.ExitCode == ExitValid && r.Summary.Invalid > 0 {
		r.Summary.ExitCode = ExitInvalid
	}
}

// FindingsExitZero makes invalid ListenerSets exit ExitValid: the findings
// are reported (the output, PolicyReports) but are no failure of the run;
// an input error (a cluster not listable) still exits ExitInputError.
func (r *Report) FindingsExitZero() {
	if r.Summary.ExitCode == ExitInvalid {
		r.Summary.ExitCode = ExitValid
	}
}

// Write writes r in format f: the report to stdout, and in the text format
// notes to stderr. workDir is what SARIF names files relative to (the
// working directory when empty).
func (r *Report) Write(f Format, stdout, stderr io.Writer, workDir string) error {
	switch f {
	case Text:
		if r.compared {
			return writeGrouped(stdout, stderr, r)
		}
		return writeText(stdout, stderr, r)
	case JSON:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case JUnit:
		return writeJUnit(stdout, r)
	case SARIF:
		return writeSARIF(stdout, r, workDir)
	case GitHub:
		return writeGitHub(stdout, r)
	case JSONLines:
		return writeJSONLines(stdout, r)
	}
	return fmt.Errorf("output format %q: must be one of %s", f, FormatList())
}
