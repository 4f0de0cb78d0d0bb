package judge

import (
	"github.com/airlock/listenerset-webhook/offline/read"
)

// Baseline is how a finding stands against a live cluster's state
// (validate --kubeconfig): the files' verdict compared with the cluster's
// own (Compare).
type Baseline string

// The values of FieldError.Baseline and read.Warning.Baseline.
const (
	// Introduced: the live object does not have the finding (or there is
	// no live object of that name).
	Introduced Baseline = "introduced"
	// Unchanged: the live object has it too.
	Unchanged Baseline = "unchanged"
	// Fixed: the live object has it and the input's does not; such
	// findings are in Result.Fixed.
	Fixed Baseline = "fixed"
)

// Findings are a result's errors and warnings.
type Findings struct {
	Errors   []FieldError   `json:"errors"`
	Warnings []read.Warning `json:"warnings"`
}

// Compare marks every finding of v, the input judged against a live
// cluster, Introduced or Unchanged by whether live, the cluster's stored
// sets judged against the cluster (Stored), has it on the set of the same
// namespace and name, and gives each result the live set's findings it no
// longer has (Fixed). others are the cluster's sets the input does not hold,
// judged against the cluster with the input applied: each whose findings
// changed is added to v's results, marked the same way, so that what the
// input does to the rest of the cluster (a rival that now conflicts, a
// Gateway that no longer admits a set) is shown. A finding is the same when
// its field, type or kind, and message are.
func Compare(v, live, others *Verdict) {
	v.Compared = true
	before := make(map[string]*Result, len(live.Results))
	for i := range live.Results {
		r := &live.Results[i]
		before[resultKey(r)] = r
	}
	for i := range v.Results {
		compare(&v.Results[i], before[resultKey(&v.Results[i])])
	}
	for _, r := range others.Results {
		if compare(&r, before[resultKey(&r)]) {
			v.Results = append(v.Results, r)
		}
	}
}

// compare marks r's findings against old's (nil: no live object) and
// reports whether any is not Unchanged.
func compare(r *Result, old *Result) bool {
	var was Findings
	if old != nil {
		was = Findings{Errors: old.Errors, Warnings: old.Warnings}
	}
	changed := false
	fixed := Findings{
		Errors:   markAll(r.Errors, was.Errors, errorKey, func(e *FieldError, b Baseline) { e.Baseline = b }, &changed),
		Warnings: markAll(r.Warnings, was.Warnings, warningKey, func(w *read.Warning, b Baseline) { w.Baseline = string(b) }, &changed),
	}
	if len(fixed.Errors)+len(fixed.Warnings) > 0 {
		changed = true
		r.Fixed = &fixed
	}
	return changed
}

// markAll marks each of now Unchanged when was has its key, else
// Introduced (setting changed), and returns was's findings now lacks,
// marked Fixed (never nil).
func markAll[T any](now, was []T, key func(T) string, set func(*T, Baseline), changed *bool) []T {
	before := make(map[string]bool, len(was))
	for _, f := range was {
		before[key(f)] = true
	}
	after := make(map[string]bool, len(now))
	for i := range now {
		k := key(now[i])
		after[k] = true
		b := Unchanged
		if !before[k] {
			b, *changed = Introduced, true
		}
		set(&now[i], b)
	}
	fixed := []T{}
	for _, f := range was {
		if !after[key(f)] {
			set(&f, Fixed)
			fixed = append(fixed, f)
		}
	}
	return fixed
}

func errorKey(e FieldError) string     { return e.Field + "\x00" + e.Type + "\x00" + e.Message }
func warningKey(w read.Warning) string { return w.Field + "\x00" + w.Kind + "\x00" + w.Message }
