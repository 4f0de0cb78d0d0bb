package validation_test

import (
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// benchCases are the benchmarked sets: the typical two-listener set, the
// reference page's example and the largest set, 64 listeners with every TLS
// option.
var benchCases = []struct {
	name string
	ls   func() *gwv1.ListenerSet
}{
	{"two-listeners", fixtures.TwoListeners},
	{"reference-example", fixtures.ReferenceExample},
	{"sixty-four-tls", fixtures.SixtyFour},
}

// BenchmarkDefaultValidate is the target's "validate + default": the object
// as kube-apiserver sends it (the CRD has defaulted it), defaulted again (the
// mutating webhook's work) and given its verdict.
func BenchmarkDefaultValidate(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			ls := fixtures.Defaulted(c.ls())
			b.ReportAllocs()
			for b.Loop() {
				defaults.ListenerSet(ls)
				if errs, _ := validation.Validate(ls, nil, validation.Options{}); len(errs) != 0 {
					b.Fatal(errs)
				}
			}
		})
	}
}

// BenchmarkCopyDefaultValidate is the verdict on an object that nothing
// defaulted before (an older CRD, or the offline command): Validate copies
// and defaults it first.
func BenchmarkCopyDefaultValidate(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			ls := c.ls()
			b.ReportAllocs()
			for b.Loop() {
				if errs, _ := validation.Validate(ls, nil, validation.Options{}); len(errs) != 0 {
					b.Fatal(errs)
				}
			}
		})
	}
}

// BenchmarkValidateInvalid: an invalid object costs more (every error is
// built, with its path and message), but is rare.
func BenchmarkValidateInvalid(b *testing.B) {
	for _, c := range []struct {
		name string
		ls   func() *gwv1.ListenerSet
	}{{"bad-cipher", fixtures.BadCipher}, {"many-errors", fixtures.ManyErrors}} {
		b.Run(c.name, func(b *testing.B) {
			ls := fixtures.Defaulted(c.ls())
			b.ReportAllocs()
			for b.Loop() {
				if errs, _ := validation.Validate(ls, nil, validation.Options{}); len(errs) == 0 {
					b.Fatal("valid")
				}
			}
		})
	}
}

// BenchmarkWorst is the verdict on each worst object the CRD admits
// (validationtest.WorstShapes) at 64 listeners: time and allocations per
// verdict, and what the report shows of it (errors and warnings shown, of
// how many, and the bytes of the errors' text).
func BenchmarkWorst(b *testing.B) {
	for _, s := range validationtest.WorstShapes {
		b.Run(s.Name, func(b *testing.B) {
			ls := fixtures.Defaulted(s.Build(object.MaxListeners))
			var old *gwv1.ListenerSet
			if s.Update != nil {
				old = fixtures.Defaulted(s.Update(object.MaxListeners))
			}
			b.ReportAllocs()
			var r *validation.Report
			for b.Loop() {
				r = validation.Judge(ls, old, validation.Options{})
			}
			reportShown(b, r)
		})
	}
}

// reportShown reports what r shows of a verdict: errors and warnings
// shown, of how many, and the bytes of the errors' text.
func reportShown(b *testing.B, r *validation.Report) {
	errs, warnings := r.Errors.List(), r.Warnings.List()
	bytes := 0
	for _, e := range errs {
		bytes += len(e.Error())
	}
	b.ReportMetric(float64(r.Errors.Total()), "errors")
	b.ReportMetric(float64(len(errs)), "errors-shown")
	b.ReportMetric(float64(bytes), "error-bytes-shown")
	b.ReportMetric(float64(r.Warnings.Total()), "warnings")
	b.ReportMetric(float64(len(warnings)), "warnings-shown")
}

// BenchmarkWorstDeclarations is the verdict on the 64-listener set of the
// deepest hostnames against each worst hostname declaration
// (validationtest.DeclaredShapes), with the cluster checks on: CPU time and
// allocations per verdict, and what the report shows of it. "undeclared"
// is the same set in a Namespace without a declaration and the first claim
// off: what the tenancy rules add is the difference.
func BenchmarkWorstDeclarations(b *testing.B) {
	for _, s := range append([]validationtest.DeclaredShape{{Name: "undeclared"}}, validationtest.DeclaredShapes...) {
		b.Run(s.Name, func(b *testing.B) {
			ls := validationtest.DeepestHostnames()
			opts := validation.Options{Cluster: validationtest.DeclaredCluster(s)}
			if s.Declaration == "" {
				opts.Cluster.(*incluster.Objects).Namespaces = nil
				opts.Tenancy.FirstClaim = incluster.ClaimOff
			}
			b.ReportAllocs()
			defer validationtest.ReportCPU(b)()
			var r *validation.Report
			for b.Loop() {
				r = validation.Judge(ls, nil, opts)
			}
			reportShown(b, r)
		})
	}
}

// BenchmarkParseDeclarations is the reading of each worst hostname
// declaration alone (validation.ParseAllowedHostnames), with the problems
// it finds: a declaration over the limit is refused on its count, before
// any entry is read.
func BenchmarkParseDeclarations(b *testing.B) {
	for _, s := range validationtest.DeclaredShapes {
		b.Run(s.Name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(s.Declaration)))
			var problems []incluster.DeclarationProblem
			for b.Loop() {
				_, problems = incluster.ParseAllowedHostnames(s.Declaration)
			}
			b.ReportMetric(float64(len(problems)), "problems")
		})
	}
}
