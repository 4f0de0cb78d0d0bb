package offline

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/position"
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
)

// Formats are the output formats, in the order help texts list them.
var Formats = []Format{Text, JSON, JUnit, SARIF, GitHub}

// Exit codes of Validate.
const (
	// ExitValid: every ListenerSet found is valid (or there was none).
	ExitValid = 0
	// ExitInvalid: at least one ListenerSet is invalid.
	ExitInvalid = 1
	// ExitInputError: some input could not be read or parsed.
	ExitInputError = 2
)

// StdinPath is the PATH that means standard input; StdinName is how it is
// shown (kubectl's spelling).
const (
	StdinPath = "-"
	StdinName = "STDIN"
)

// Options say where input comes from and output goes.
type Options struct {
	// Format is Text when empty.
	Format Format
	// Stdin is read for the PATH "-".
	Stdin io.Reader
	// Stdout receives results (Text) or the report in the other formats.
	Stdout io.Writer
	// Stderr receives warnings and notes (Text only).
	Stderr io.Writer
	// WorkDir is the directory file names are made relative to in SARIF
	// (its %SRCROOT%); the working directory when empty.
	WorkDir string
	// Strict makes listener conflicts and certificate references that no
	// ReferenceGrant permits errors instead of warnings, as the webhook's
	// --strict does.
	Strict bool
	// CRDs are the files or directories holding the ListenerSet CRD to
	// apply (a cluster's own, e.g. Gateway API v1.7.0); the embedded v1.6.3
	// standard CRD when empty.
	CRDs []string
	// UnknownFields says what fields the CRD does not know make of an
	// object; UnknownFieldsError when empty.
	UnknownFields UnknownFields
}

// Report is the JSON output: every ListenerSet's result, every skipped
// object and every input error, in input order, and a summary.
type Report struct {
	// Results has one entry per ListenerSet validated.
	Results []Result `json:"results"`
	// Skipped has one entry per object that is not a v1 ListenerSet.
	Skipped []Skipped `json:"skipped"`
	// InputErrors has one entry per file or document that could not be read.
	InputErrors []InputError `json:"inputErrors"`
	// Summary counts the above.
	Summary Summary `json:"summary"`

	// files are the inputs read, in order (the suites of JUnit output).
	files []string
}

// Location says where an object came from.
type Location struct {
	// File is the path as found (or "STDIN").
	File string `json:"file"`
	// Document is the YAML document or JSON object in File, from 1.
	Document int `json:"document"`
	// Item is the position in a List's items, from 1; 0 (omitted) outside lists.
	Item int `json:"item,omitempty"`
	// Line is the line of File the object starts on (0, omitted, if unknown).
	Line int `json:"line,omitempty"`
}

// Result is the verdict on one ListenerSet.
type Result struct {
	Location
	// Namespace is metadata.namespace (omitted when unset).
	Namespace string `json:"namespace,omitempty"`
	// Name is metadata.name.
	Name string `json:"name"`
	// Valid is true when Errors is empty: kube-apiserver, the CRD and the
	// webhook would admit the object.
	Valid bool `json:"valid"`
	// Errors are kube-apiserver's own (unknown fields, the CRD's, object
	// metadata's) that the webhook's do not cover, then the webhook's.
	Errors []FieldError `json:"errors"`
	// Warnings are the admission warnings, plus duplicate fields (and
	// unknown ones under UnknownFieldsWarn).
	Warnings []Warning `json:"warnings"`

	// pos locates the fields of the object's document (its tree nil:
	// unknown).
	pos *position.Document
}

// FieldError is one field.Error.
type FieldError struct {
	// Field is the path, e.g. spec.listeners[1].name; empty when the
	// document could not be decoded.
	Field string `json:"field"`
	// Type is the field.ErrorType, e.g. FieldValueDuplicate
	// (FieldValueTypeInvalid for a document that could not be decoded).
	Type string `json:"type"`
	// Value is the offending value, where the message shows one.
	Value any `json:"value,omitempty"`
	// Detail is the rule's explanation, if any.
	Detail string `json:"detail,omitempty"`
	// Message is the whole error as kubectl prints it.
	Message string `json:"message"`
	// Line and Column are where Field stands in the file, or its nearest
	// existing parent when the field is missing (from 1).
	Line   int `json:"line"`
	Column int `json:"column"` // see Line
}

// Warning is one warning: the object is admitted.
type Warning struct {
	// Field is the path the warning is about; empty when it has none (a
	// duplicate YAML key is known by its line).
	Field string `json:"field,omitempty"`
	// Kind names the rule: a validation.WarningKind, or UnknownField or
	// DuplicateField for what the strict decode notices.
	Kind string `json:"kind"`
	// Message is the whole warning as kubectl prints it after "Warning: ".
	Message string `json:"message"`
	// Line and Column are where Field stands in the file (from 1), as for
	// FieldError.
	Line   int `json:"line"`
	Column int `json:"column"` // see Line
}

// Skipped is an object that is not a gateway.networking.k8s.io/v1 ListenerSet.
type Skipped struct {
	Location
	// APIVersion, Kind, Namespace and Name identify the object, as far as
	// it has them.
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`      // see APIVersion
	Namespace  string `json:"namespace,omitempty"` // see APIVersion
	Name       string `json:"name,omitempty"`      // see APIVersion
	// Reason says why it was not validated, e.g. "not a ListenerSet".
	Reason string `json:"reason"`
}

// InputError is a file or document that could not be read or parsed.
type InputError struct {
	// File is the path as given or found (or "STDIN").
	File string `json:"file"`
	// Document is the document that failed, from 1; 0 (omitted) when the
	// file itself could not be read.
	Document int `json:"document,omitempty"`
	// Message is the reader's or parser's error.
	Message string `json:"message"`
	// Line and Column are where parsing failed, when the parser says
	// (0, omitted, otherwise).
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"` // see Line
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
}

// Reasons for skipping.
const (
	reasonNotObject      = "not a Kubernetes object (no apiVersion and kind)"
	reasonNotListenerSet = "not a ListenerSet"
	reasonOtherVersion   = "only " + gwv1.GroupName + "/v1 ListenerSets are validated"
	reasonContext        = "; used for the cluster-aware checks"
)

var listenerSetAPIVersion = gwv1.GroupVersion.String()

// Validate validates every ListenerSet in paths, writes the results as
// opts.Format says and returns the exit code (ExitValid, ExitInvalid or
// ExitInputError).
func Validate(paths []string, opts Options) int {
	if opts.Format == "" {
		opts.Format = Text
	}
	v := &run{opts: opts, report: Report{
		Results: []Result{}, Skipped: []Skipped{}, InputErrors: []InputError{},
	}}
	if !slices.Contains(Formats, opts.Format) {
		fmt.Fprintf(opts.Stderr, "error: output format %q: must be one of %s\n", opts.Format, FormatList())
		return ExitInputError
	}
	for _, p := range paths {
		v.path(p)
	}
	v.read()
	v.validatePending()
	r := &v.report
	r.Summary.ExitCode = ExitValid
	switch {
	case r.Summary.InputErrors > 0:
		r.Summary.ExitCode = ExitInputError
	case r.Summary.Invalid > 0:
		r.Summary.ExitCode = ExitInvalid
	}
	var err error
	switch opts.Format {
	case Text:
		if len(r.Results) == 0 && r.Summary.InputErrors == 0 {
			fmt.Fprintln(opts.Stderr, "no ListenerSet found")
		}
	case JSON:
		enc := json.NewEncoder(opts.Stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(r)
	case JUnit:
		err = writeJUnit(opts.Stdout, r)
	case SARIF:
		err = writeSARIF(opts.Stdout, r, opts.WorkDir)
	case GitHub:
		err = writeGitHub(opts.Stdout, r)
	}
	if err != nil {
		fmt.Fprintf(opts.Stderr, "error: writing the report: %v\n", err)
		return ExitInputError
	}
	return r.Summary.ExitCode
}

// FormatList is the formats as help texts show them: "text|json|...".
func FormatList() string {
	s := make([]string, len(Formats))
	for i, f := range Formats {
		s[i] = string(f)
	}
	return strings.Join(s, "|")
}

func (v *run) result(r Result) {
	r.locate()
	v.report.Results = append(v.report.Results, r)
	if r.Valid {
		v.report.Summary.Valid++
	} else {
		v.report.Summary.Invalid++
	}
	if v.opts.Format != Text {
		return
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(v.opts.Stderr, "Warning: %s%s\n", w.Message, textAt(r.File, w.Line, w.Column))
	}
	name := displayName(r.Namespace, r.Name)
	switch len(r.Errors) {
	case 0:
		fmt.Fprintf(v.opts.Stdout, "listenerset.%s/%s valid\n", gwv1.GroupName, name)
	case 1:
		e := r.Errors[0]
		fmt.Fprintf(v.opts.Stdout, "The ListenerSet %q is invalid: %s%s\n", name, e.Message, textAt(r.File, e.Line, e.Column))
	default:
		fmt.Fprintf(v.opts.Stdout, "The ListenerSet %q is invalid:\n", name)
		for _, e := range r.Errors {
			fmt.Fprintf(v.opts.Stdout, "* %s%s\n", e.Message, textAt(r.File, e.Line, e.Column))
		}
	}
}

func (v *run) skip(s Skipped) {
	v.report.Skipped = append(v.report.Skipped, s)
	v.report.Summary.Skipped++
	if v.opts.Format != Text {
		return
	}
	// "Gateway "ns/gw" (gateway.networking.k8s.io/v1) in FILE"; an object
	// without a name is told by its document number instead.
	what, in := s.Kind, s.File
	if what == "" {
		what = where("document", s.Location)
	} else if s.Name == "" {
		in = where(in+" document", s.Location)
	}
	if s.Name != "" {
		what += fmt.Sprintf(" %q", displayName(s.Namespace, s.Name))
	}
	if s.APIVersion != "" {
		what += " (" + s.APIVersion + ")"
	}
	fmt.Fprintf(v.opts.Stderr, "skipped %s in %s: %s\n", what, in, s.Reason)
}

func (v *run) inputError(e InputError) {
	v.report.InputErrors = append(v.report.InputErrors, e)
	v.report.Summary.InputErrors++
	if v.opts.Format != Text {
		return
	}
	at := textAt(e.File, e.Line, e.Column)
	if e.Document > 0 {
		fmt.Fprintf(v.opts.Stderr, "error: %s: document %d: %s%s\n", e.File, e.Document, e.Message, at)
	} else {
		fmt.Fprintf(v.opts.Stderr, "error: %s: %s%s\n", e.File, e.Message, at)
	}
}

// textAt is the suffix the text output puts after a finding, so that a
// person can jump to it while the rest of the line stays kubectl's:
// " (at FILE:LINE:COLUMN)", or as much of it as is known (" (at FILE:LINE)",
// " (at FILE)"), from the same positions the other formats show.
func textAt(file string, line, column int) string {
	return " (at " + filePosition(file, line, column) + ")"
}

// filePosition is "file:line:column", or as much of it as is known (a YAML
// syntax error has a line only, an unreadable file neither).
func filePosition(file string, line, column int) string {
	switch {
	case line <= 0:
		return file
	case column <= 0:
		return fmt.Sprintf("%s:%d", file, line)
	default:
		return fmt.Sprintf("%s:%d:%d", file, line, column)
	}
}

// where appends the document number, and the item number in a list, to prefix.
func where(prefix string, l Location) string {
	s := fmt.Sprintf("%s %d", prefix, l.Document)
	if l.Item > 0 {
		s += fmt.Sprintf(" item %d", l.Item)
	}
	return s
}

// displayName is "namespace/name", or "name" without a namespace.
func displayName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
