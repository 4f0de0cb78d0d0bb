package report

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/read"
)

// JUnit XML as kubeconform writes it (pkg/output/junit.go), which GitLab's
// and Jenkins' test reports read: a testsuites root, a testsuite per file, a
// testcase per object (classname Kind@version), a failure per error, a
// skipped element for an object that is not a v1 ListenerSet and an error
// element for a document that cannot be read. Each failure's text and the
// testcase's system-out (its warnings) give file:line:column and the field.
// No time attributes: nothing is timed, and the output stays reproducible.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Disabled int          `xml:"disabled,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	ID       int         `xml:"id,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Disabled int         `xml:"disabled,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string         `xml:"name,attr"`
	ClassName string         `xml:"classname,attr"`
	File      string         `xml:"file,attr,omitempty"`
	Line      int            `xml:"line,attr,omitempty"`
	Skipped   *junitSkipped  `xml:"skipped,omitempty"`
	Error     *junitFailure  `xml:"error,omitempty"`
	Failures  []junitFailure `xml:"failure,omitempty"`
	SystemOut string         `xml:"system-out,omitempty"`

	order read.Location // input order within the file
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	// Baseline is introduced or unchanged against a live cluster's
	// findings (validate --kubeconfig).
	Baseline string `xml:"baseline,attr,omitempty"`
	Content  string `xml:",chardata"`
}

func writeJUnit(w io.Writer, r *Report) error {
	root := junitRoot(r)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitRoot is r's suites: one per file, in input order, each with its
// cases in document order.
func junitRoot(r *Report) junitSuites {
	suites := map[string]*junitSuite{}
	root := junitSuites{Name: "listenerset-webhook"}
	suite := func(file string) *junitSuite {
		if s, ok := suites[file]; ok {
			return s
		}
		s := &junitSuite{Name: file, ID: len(suites) + 1}
		suites[file] = s
		return s
	}
	for _, file := range r.files {
		suite(file)
	}
	for _, res := range r.Results {
		s, c := suite(suiteName(res)), resultCase(res)
		if len(c.Failures) > 0 {
			s.Failures++
			root.Failures++
		}
		s.Cases = append(s.Cases, c)
	}
	for _, sk := range r.Skipped {
		s := suite(sk.File)
		s.Skipped++
		root.Disabled++
		s.Cases = append(s.Cases, skippedCase(sk))
	}
	for _, ie := range r.InputErrors {
		s := suite(cmp.Or(ie.File, clusterSuite))
		s.Errors++
		root.Errors++
		s.Cases = append(s.Cases, inputErrorCase(ie))
	}
	for _, s := range suites {
		slices.SortStableFunc(s.Cases, func(a, b junitCase) int {
			return cmp.Or(cmp.Compare(a.order.Document, b.order.Document), cmp.Compare(a.order.Item, b.order.Item))
		})
		s.Tests = len(s.Cases)
		root.Tests += s.Tests
		root.Suites = append(root.Suites, *s)
	}
	slices.SortFunc(root.Suites, func(a, b junitSuite) int { return cmp.Compare(a.ID, b.ID) })
	return root
}

// clusterSuite is the suite, and case, of an input error without a file:
// the cluster the audit could not list.
const clusterSuite = "cluster"

// suiteName is a result's suite: its file, or for a stored object (the
// audit's, which has none) its namespace.
func suiteName(res judge.Result) string {
	if res.File != "" {
		return res.File
	}
	return "namespace " + res.Namespace
}

// junitAt is "file:line:column: message", with the field path in front
// where the message does not start with it; without a file (a stored
// object) the message alone.
func junitAt(file string, line, col int, field, msg string) string {
	s := ""
	if file != "" {
		s = filePosition(file, line, col) + ": "
	}
	if field != "" && !strings.HasPrefix(msg, field) {
		s += field + ": "
	}
	return s + msg
}

// resultCase is a ListenerSet's case: a failure per error, its warnings
// as system-out.
func resultCase(res judge.Result) junitCase {
	c := junitCase{Name: read.Name(res.Namespace, res.Name), ClassName: res.KindName() + "@v1",
		File: res.File, Line: res.Line, order: res.Location}
	if c.Name == "" {
		c.Name = where("document", res.Location)
	}
	for _, e := range res.Errors {
		c.Failures = append(c.Failures, junitFailure{Message: e.Message, Type: e.Code, Baseline: string(e.Baseline),
			Content: junitAt(res.File, e.Line, e.Column, e.Field, e.Message)})
	}
	var out []string
	for _, wn := range res.Warnings {
		out = append(out, "Warning "+wn.Code+junitBaseline(wn.Baseline)+": "+junitAt(res.File, wn.Line, wn.Column, wn.Field, wn.Message))
	}
	if res.Fixed != nil {
		// The live object's findings this one no longer has.
		for _, e := range res.Fixed.Errors {
			out = append(out, "Fixed error "+e.Code+": "+junitAt(res.File, e.Line, e.Column, e.Field, e.Message))
		}
		for _, wn := range res.Fixed.Warnings {
			out = append(out, "Fixed warning "+wn.Code+": "+junitAt(res.File, wn.Line, wn.Column, wn.Field, wn.Message))
		}
	}
	c.SystemOut = strings.Join(out, "\n")
	return c
}

// junitBaseline is " (introduced)" or " (unchanged)" for a warning
// compared with a live cluster's; nothing when not compared.
func junitBaseline(b string) string {
	if b == "" {
		return ""
	}
	return " (" + b + ")"
}

// skippedCase is another object's case, classed by its kind and version.
func skippedCase(sk judge.Skipped) junitCase {
	class := "Document" // not an object: no kind to name it by
	if sk.Kind != "" {
		class = sk.Kind + "@" + version(sk.APIVersion)
	}
	c := junitCase{Name: read.Name(sk.Namespace, sk.Name), ClassName: class,
		File: sk.File, Line: sk.Line, Skipped: &junitSkipped{Message: sk.Reason}, order: sk.Location}
	if sk.Name == "" {
		c.Name = where("document", sk.Location)
	}
	return c
}

// inputErrorCase is an unreadable file's or document's case, after the
// file's other cases.
func inputErrorCase(ie read.InputError) junitCase {
	name := cmp.Or(ie.File, clusterSuite)
	if ie.Document > 0 {
		name = fmt.Sprintf("document %d", ie.Document)
	}
	return junitCase{Name: name, ClassName: ruleInputError, File: ie.File, Line: ie.Line,
		Error: &junitFailure{Message: ie.Message, Type: ie.Code, Content: junitAt(ie.File, ie.Line, ie.Column, "", ie.Message)},
		order: read.Location{Document: max(ie.Document, 1<<30)}}
}

// version is the version of an apiVersion (v1 of gateway.networking.k8s.io/v1).
func version(apiVersion string) string {
	return apiVersion[strings.LastIndex(apiVersion, "/")+1:]
}
