package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/validation"
)

// ruleInputError is the JUnit class of input that cannot be read or parsed.
const ruleInputError = "InputError"

// rule is one check, as SARIF lists it and as a user suppresses it: a
// diagnostic code (docs/codes.md) and its description.
type rule struct {
	// ID is the code, e.g. LS104: stable across runs and versions.
	ID string
	// Short is the code's title, Help its cause and fix, HelpURI its
	// entry of docs/codes.md.
	Short, Help, HelpURI string
}

// finding is one error or warning of a result, or an input error: what the
// CI formats show, each with its file, line and field.
type finding struct {
	File         string
	Line, Column int
	Field        string
	Error        bool // an error, else a warning
	Message      string
	// Object is the ListenerSet or HTTPRoute ("ns/name"); empty for
	// input errors. Namespace and Name are its parts, Kind its kind.
	Object, Namespace, Name, Kind string
	Rule                          rule
	// Baseline is how it stands against a live cluster's findings (empty
	// when not compared); a Fixed one is the live object's.
	Baseline judge.Baseline
}

// findings lists every finding of r: input errors first (they were met
// while reading), then each result's errors and warnings, in input order.
func (r *Report) findings() []finding {
	var out []finding
	for _, e := range r.InputErrors {
		msg := e.Message
		if e.Document > 0 {
			msg = fmt.Sprintf("document %d: %s", e.Document, msg)
		}
		out = append(out, finding{File: e.File, Line: e.Line, Column: e.Column, Error: true, Message: msg, Rule: ruleOf(e.Code)})
	}
	for _, res := range r.Results {
		obj := read.Name(res.Namespace, res.Name)
		errs, warns := res.Errors, res.Warnings
		if res.Fixed != nil {
			errs = append(slices.Clip(errs), res.Fixed.Errors...)
			warns = append(slices.Clip(warns), res.Fixed.Warnings...)
		}
		for _, e := range errs {
			out = append(out, finding{File: res.File, Line: e.Line, Column: e.Column, Field: e.Field,
				Error: true, Message: e.Message, Object: obj, Namespace: res.Namespace, Name: res.Name, Kind: res.KindName(), Rule: ruleOf(e.Code), Baseline: e.Baseline})
		}
		for _, w := range warns {
			out = append(out, finding{File: res.File, Line: w.Line, Column: w.Column, Field: w.Field,
				Message: w.Message, Object: obj, Namespace: res.Namespace, Name: res.Name, Kind: res.KindName(), Rule: ruleOf(w.Code), Baseline: judge.Baseline(w.Baseline)})
		}
	}
	return out
}

// Catalog is every code a report can carry, by code: the rules'
// (validation.Catalog) and the offline commands' own (judge.Codes).
// docs/codes.md is generated from it.
func Catalog() []findings.CodeDoc {
	all := append(validation.Catalog(), judge.Codes...)
	slices.SortFunc(all, func(a, b findings.CodeDoc) int { return strings.Compare(string(a.Code), string(b.Code)) })
	return all
}

// rules are the catalog's codes as rules.
var rules = func() map[string]rule {
	m := map[string]rule{}
	for _, d := range Catalog() {
		m[string(d.Code)] = rule{ID: string(d.Code), Short: d.Title, Help: d.Cause + " Fix: " + d.Fix, HelpURI: d.Code.HelpURI()}
	}
	return m
}()

// ruleOf is the rule of code; a code the catalog lacks (none, as
// TestCatalogCodes holds) still gets one, named by the code.
func ruleOf(code string) rule {
	if r, ok := rules[code]; ok {
		return r
	}
	return rule{ID: code, Short: code, Help: "See the message.", HelpURI: findings.CodesPage}
}

// CodeTitle is code's title in the catalog (the code itself when the
// catalog lacks it), for formats written outside this package.
func CodeTitle(code string) string { return ruleOf(code).Short }
