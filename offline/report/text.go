package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/airlock/listenerset-webhook/validation"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/read"
)

// The text formats are read in a terminal: every text they take from the
// input (messages, names, reasons, file names) is written through term,
// which shows what a terminal would interpret (a newline, an ESC sequence)
// as Go's %q does. The machine formats write the same text losslessly.
var term = findings.Escape

// writeText writes r as kubectl would: the notes (skipped objects, input
// errors) on stderr as met, then each result on stdout with its warnings on
// stderr just before it, and "no ListenerSet found" when there was nothing
// to validate. Like kubectl, it does not fail on a stream that cannot be
// written.
func writeText(stdout, stderr io.Writer, r *Report) error {
	writeNotes(stderr, r)
	for i := range r.Results {
		textResult(stdout, stderr, &r.Results[i])
	}
	if len(r.Results) == 0 && r.Summary.InputErrors == 0 {
		fmt.Fprintln(stderr, "no ListenerSet found")
	}
	return nil
}

// writeGrouped is the text output of findings compared with a live
// cluster's: on stdout each group, introduced, unchanged and fixed, as
// "error:"/"warning:" lines naming the ListenerSet, then a count; notes on
// stderr as writeText writes them.
func writeGrouped(stdout, stderr io.Writer, r *Report) error {
	writeNotes(stderr, r)
	fs := r.findings()
	for _, group := range []judge.Baseline{judge.Introduced, judge.Unchanged, judge.Fixed} {
		var lines []string
		for _, f := range fs {
			if f.Baseline != group || f.Object == "" {
				continue
			}
			level := "warning"
			if f.Error {
				level = "error"
			}
			lines = append(lines, fmt.Sprintf("  %s: %s %s: %s%s", level, f.Kind, term(f.Object), term(f.Message), textAt(f.File, f.Line, f.Column)))
		}
		if len(lines) > 0 {
			fmt.Fprintf(stdout, "%s (%d):\n%s\n", group, len(lines), strings.Join(lines, "\n"))
		}
	}
	b := r.Summary.Baseline
	fmt.Fprintf(stdout, "%d ListenerSets judged against the cluster (%d invalid): %d introduced (%d errors), %d unchanged, %d fixed\n",
		r.Summary.Valid+r.Summary.Invalid, r.Summary.Invalid, b.Introduced, b.IntroducedErrors, b.Unchanged, b.Fixed)
	return nil
}

// writeNotes writes the skipped objects and input errors, as met.
func writeNotes(stderr io.Writer, r *Report) {
	for _, n := range r.notes {
		if n.Skipped != nil {
			textSkipped(stderr, n.Skipped)
		} else {
			textInputError(stderr, n.InputError)
		}
	}
}

// unattachedRefs counts a route's warnings that say a parentRef attaches
// to nothing (validation.JudgeParents).
func unattachedRefs(ws []read.Warning) int {
	n := 0
	for _, w := range ws {
		switch findings.WarningKind(w.Kind) {
		case validation.KindRouteNoMatchingParent, validation.KindRouteNotAllowedByListeners, validation.KindRouteNoMatchingListenerHostname:
			n++
		}
	}
	return n
}

func textResult(stdout, stderr io.Writer, r *judge.Result) {
	for _, w := range r.Warnings {
		fmt.Fprintf(stderr, "Warning: %s%s\n", term(w.Message), textAt(r.File, w.Line, w.Column))
	}
	name := read.Name(r.Namespace, r.Name)
	kind, resource := "ListenerSet", "listenerset"
	if r.Kind == judge.KindHTTPRoute {
		kind, resource = "HTTPRoute", "httproute"
		// A route's parentRefs that attach to nothing are its own status,
		// warnings; its claims (routes are claims) may be errors.
		if n := unattachedRefs(r.Warnings); len(r.Errors) == 0 && n > 0 {
			fmt.Fprintf(stdout, "httproute.%s/%s attaches to nothing through %s\n", gwv1.GroupName, term(name), plural(n, "parentRef"))
			return
		}
	}
	switch len(r.Errors) {
	case 0:
		fmt.Fprintf(stdout, "%s.%s/%s valid\n", resource, gwv1.GroupName, term(name))
	case 1:
		e := r.Errors[0]
		fmt.Fprintf(stdout, "The %s %q is invalid: %s%s\n", kind, name, term(e.Message), textAt(r.File, e.Line, e.Column))
	default:
		fmt.Fprintf(stdout, "The %s %q is invalid:\n", kind, name)
		for _, e := range r.Errors {
			fmt.Fprintf(stdout, "* %s%s\n", term(e.Message), textAt(r.File, e.Line, e.Column))
		}
	}
}

// textSkipped: "Gateway "ns/gw" (gateway.networking.k8s.io/v1) in FILE"; an
// object without a name is told by its document number instead.
func textSkipped(w io.Writer, s *judge.Skipped) {
	what, in := term(s.Kind), term(s.File)
	if what == "" {
		what = where("document", s.Location)
	} else if s.Name == "" {
		in = where(in+" document", s.Location)
	}
	if s.Name != "" {
		what += fmt.Sprintf(" %q", read.Name(s.Namespace, s.Name))
	}
	if s.APIVersion != "" {
		what += " (" + term(s.APIVersion) + ")"
	}
	fmt.Fprintf(w, "skipped %s in %s: %s\n", what, in, term(s.Reason))
}

func textInputError(w io.Writer, e *read.InputError) {
	at := textAt(e.File, e.Line, e.Column)
	if e.File == "" {
		// Not a file: the cluster the audit could not list.
		fmt.Fprintf(w, "error: %s\n", term(e.Message))
		return
	}
	if e.Document > 0 {
		fmt.Fprintf(w, "error: %s: document %d: %s%s\n", term(e.File), e.Document, term(e.Message), at)
	} else {
		fmt.Fprintf(w, "error: %s: %s%s\n", term(e.File), term(e.Message), at)
	}
}

// textAt is the suffix the text output puts after a finding, so that a
// person can jump to it while the rest of the line stays kubectl's:
// " (at FILE:LINE:COLUMN)", or as much of it as is known (" (at FILE:LINE)",
// " (at FILE)"), from the same positions the other formats show. A stored
// object (the audit's) has no file, and no suffix.
func textAt(file string, line, column int) string {
	if file == "" {
		return ""
	}
	return " (at " + term(filePosition(file, line, column)) + ")"
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
func where(prefix string, l read.Location) string {
	s := fmt.Sprintf("%s %d", prefix, l.Document)
	if l.Item > 0 {
		s += fmt.Sprintf(" item %d", l.Item)
	}
	return s
}

// plural is "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
