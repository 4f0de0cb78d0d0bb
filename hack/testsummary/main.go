// Command testsummary reads `go test -json` on stdin and prints what
// `go test` prints without -json (each package's line, and the output of
// the tests that failed), then the tests that were skipped, each with its
// reason, so that whoever runs `make test` sees in one list what did not
// run on their machine and how to run it:
//
//	set -o pipefail; go test -json ./... | go run ./hack/testsummary
//
// -v prints every line, as `go test -v` does. It exits 1 when a test or a
// package failed, or, with FAIL_ON_SKIP=1 (CI: .ci/run), when any test was
// skipped: on a machine that has everything, a skip is a test that did not
// run.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

func main() {
	verbose := flag.Bool("v", false, "print every test's output, as go test -v does")
	flag.Parse()
	failOnSkip := os.Getenv("FAIL_ON_SKIP") == "1"
	os.Exit(run(os.Stdin, os.Stdout, *verbose, failOnSkip))
}

// event is one line of test2json's output (go doc test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string // of build-output and build-fail
}

// skip is a skipped test and what it said when it skipped.
type skip struct {
	pkg, test, reason string
}

type summary struct {
	out     io.Writer
	verbose bool
	// output holds each running test's lines until it ends: printed if it
	// fails, its reason if it skips. Keyed by package and test name.
	output         map[[2]string][]string
	order          [][2]string // of output's keys, to flush in order
	skips          []skip
	passed, failed int
	packageFailed  bool
}

func run(in io.Reader, out io.Writer, verbose, failOnSkip bool) int {
	s := &summary{out: out, verbose: verbose, output: map[[2]string][]string{}}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for sc.Scan() {
		var e event
		if line := sc.Bytes(); len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(out, "%s\n", line) // not go test -json's: as it came
			continue
		}
		s.add(e)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(out, "testsummary: reading: %v\n", err)
		s.packageFailed = true
	}
	s.flush("")
	return s.report(failOnSkip)
}

func (s *summary) add(e event) {
	key := [2]string{e.Package, e.Test}
	switch {
	case e.Action == "build-output":
		fmt.Fprint(s.out, e.Output)
	case e.Action == "build-fail":
		s.packageFailed = true
	case e.Test == "":
		s.addPackage(e)
	case e.Action == "output":
		if s.verbose {
			fmt.Fprint(s.out, e.Output)
		}
		if _, ok := s.output[key]; !ok {
			s.order = append(s.order, key)
		}
		s.output[key] = append(s.output[key], e.Output)
	case e.Action == "pass":
		s.passed++
		delete(s.output, key)
	case e.Action == "fail":
		s.failed++
		if !s.verbose {
			s.print(s.output[key])
		}
		delete(s.output, key)
	case e.Action == "skip":
		s.skips = append(s.skips, skip{pkg: e.Package, test: e.Test, reason: skipReason(s.output[key])})
		delete(s.output, key)
	}
}

// addPackage takes a package's own event: its output lines (go test's
// "ok" line, TestMain's output, a panic) and its end.
func (s *summary) addPackage(e event) {
	switch e.Action {
	case "output":
		// Without -v, go test drops the test binary's last "PASS" before
		// its own "ok" line.
		if s.verbose || e.Output != "PASS\n" {
			fmt.Fprint(s.out, e.Output)
		}
	case "fail":
		s.packageFailed = true
		s.flush(e.Package)
	case "pass":
		s.flush(e.Package)
	}
	// "skip" is a package without test files, which go test's line says.
}

// flush prints what the tests of pkg ("": every package) that never ended
// said: they were running when the test binary panicked or timed out.
func (s *summary) flush(pkg string) {
	var keep [][2]string
	for _, key := range s.order {
		lines, ok := s.output[key]
		switch {
		case !ok:
		case pkg != "" && key[0] != pkg:
			keep = append(keep, key)
		default:
			if !s.verbose {
				s.print(lines)
			}
			delete(s.output, key)
		}
	}
	s.order = keep
}

// print writes a failed test's lines without test2json's framing lines
// (=== RUN, PAUSE, CONT, NAME), as go test without -v shows it.
func (s *summary) print(lines []string) {
	for _, l := range lines {
		if !strings.HasPrefix(l, "=== ") {
			fmt.Fprint(s.out, l)
		}
	}
}

var logLocation = regexp.MustCompile(`^(\S+\.go:\d+): `)

// skipReason is the message of a skipped test's Skip call on one line,
// with the call's place at the end: its last log line (and the lines that
// continue it), not what the test logged before it skipped.
func skipReason(lines []string) string {
	var parts []string
	var at string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP: ") {
			continue
		}
		if m := logLocation.FindStringSubmatch(l); m != nil {
			parts, at = append(parts[:0], strings.TrimPrefix(l, m[0])), " ("+m[1]+")"
			continue
		}
		parts = append(parts, l)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ") + at
}

func (s *summary) report(failOnSkip bool) int {
	if len(s.skips) > 0 {
		fmt.Fprintf(s.out, "\nskipped %d:\n", len(s.skips))
		for _, k := range s.skips {
			fmt.Fprintf(s.out, "  %s %s: %s\n", k.pkg, k.test, k.reason)
		}
	}
	fmt.Fprintf(s.out, "testsummary: %d passed, %d failed, %d skipped\n", s.passed, s.failed, len(s.skips))
	switch {
	case s.failed > 0 || s.packageFailed:
		fmt.Fprintln(s.out, "FAIL")
		return 1
	case failOnSkip && len(s.skips) > 0:
		fmt.Fprintf(s.out, "FAIL: FAIL_ON_SKIP=1 and %d skipped: on this machine every test must run\n", len(s.skips))
		return 1
	}
	return 0
}
