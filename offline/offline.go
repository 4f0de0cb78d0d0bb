package offline

import (
	"fmt"
	"io"
	"slices"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/offline/report"
)

// Options say where input comes from and output goes, and how to judge.
type Options struct {
	// Format is report.Text when empty.
	Format report.Format
	// Stdin is read for the PATH "-".
	Stdin io.Reader
	// Stdout receives results (Text) or the report in the other formats.
	Stdout io.Writer
	// Stderr receives warnings and notes (Text only).
	Stderr io.Writer
	// WorkDir is the directory file names are made relative to in SARIF
	// (its %SRCROOT%); the working directory when empty.
	WorkDir string
	// Judge says how strictly, and with which CRD, to judge.
	Judge judge.Options
	// AnyError makes any invalid ListenerSet exit 1, also when the
	// findings are compared with a live cluster's (where only introduced
	// errors do otherwise).
	AnyError bool
	// NoFindingsExit makes invalid ListenerSets exit 0 (report.Report.FindingsExitZero).
	NoFindingsExit bool
}

// Validate validates every ListenerSet in paths: read, judge, report. It
// writes the results as opts.Format says and returns the exit code
// (report.ExitValid, ExitInvalid or ExitInputError).
func Validate(paths []string, opts Options) int {
	if opts.Format == "" {
		opts.Format = report.Text
	}
	if !slices.Contains(report.Formats, opts.Format) {
		fmt.Fprintf(opts.Stderr, "error: output format %q: must be one of %s\n", opts.Format, report.FormatList())
		return report.ExitInputError
	}
	return Report(judge.Run(read.Paths(paths, opts.Stdin), opts.Judge), opts)
}

// Report writes the report of v as opts say (a valid opts.Format) and
// returns its exit code; with opts.AnyError any error counts, also where v
// is compared with a live cluster (report.Report.FailOnAnyError).
func Report(v *judge.Verdict, opts Options) int {
	r := report.New(v)
	if opts.AnyError {
		r.FailOnAnyError()
	}
	if opts.NoFindingsExit {
		r.FindingsExitZero()
	}
	if err := r.Write(opts.Format, opts.Stdout, opts.Stderr, opts.WorkDir); err != nil {
		fmt.Fprintf(opts.Stderr, "error: writing the report: %v\n", err)
		return report.ExitInputError
	}
	if opts.Format == report.Text {
		notAirlocks(opts.Stderr, v.Results)
	}
	return r.Summary.ExitCode
}

// notAirlocks notes on stderr how many results the scope left unjudged as
// another implementation's: each shows as valid, and the line says why
// (JSON has each result's "scope"). A set of an unknown
// parent has its own warning.
func notAirlocks(w io.Writer, results []judge.Result) {
	n := 0
	for _, r := range results {
		if r.Scope == validation.OutcomeOther {
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(w, "note: %d ListenerSet(s) not Airlock Microgateway's (their Gateway's GatewayClass names another "+
			"controller): kube-apiserver's own checks only; --scope=all judges them\n", n)
	}
}
