package policy

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The Go rules judge names, ports, label keys and values with
// apimachinery's validators; the CEL judges them with what those
// validators test, stated here once, and writes the messages the
// validators give, asked of them when the policy is built. A validator
// that no longer gives the messages the CEL is written for makes the
// build fail (drift), and TestUpstream fails when what is stated here
// stops being what the validators test.

// The regular expressions apimachinery's validators match, as their
// messages cite them ("regex used for validation is '...'").
const (
	// dns1123LabelRegex is IsDNS1123Label's.
	dns1123LabelRegex = `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
	// dns1123SubdomainRegex is IsDNS1123Subdomain's.
	dns1123SubdomainRegex = dns1123LabelRegex + `(\.` + dns1123LabelRegex + `)*`
	// labelKeyNameRegex is IsQualifiedName's, for the name part of a key.
	labelKeyNameRegex = `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
	// labelValueRegex is IsValidLabelValue's.
	labelValueRegex = `(` + labelKeyNameRegex + `)?`
)

// anchored is re as a CEL literal that matches the whole string, as the
// validators match it.
func anchored(re string) string { return lit("^" + re + "$") }

// Limits of apimachinery's validators that apimachinery does not export.
const (
	// minPort and maxPort bound IsValidPortNum.
	minPort, maxPort = 1, 65535
	// labelKeyNameMaxLength bounds the name part of IsQualifiedName.
	labelKeyNameMaxLength = 63
)

// drift is what build found changed upstream: each validator whose
// messages the CEL can no longer be written from.
type drift struct{ errs []error }

func (d *drift) add(err error) {
	if !slices.ContainsFunc(d.errs, func(e error) bool { return e.Error() == err.Error() }) {
		d.errs = append(d.errs, err)
	}
}

func (d *drift) err() error {
	if len(d.errs) == 0 {
		return nil
	}
	return fmt.Errorf("apimachinery's validators changed, the policy cannot be written: %w", errors.Join(d.errs...))
}

// only is the one message the validator check (named name) gives for
// input, noting a drift when it gives another number.
func only[T any](w writer, name string, check func(T) []string, input T) string {
	return first(w, name, check, input, 1)
}

// first is the first of the n messages the validator check (named name)
// gives for input, noting a drift when it gives another number.
func first[T any](w writer, name string, check func(T) []string, input T, n int) string {
	got := check(input)
	if len(got) != n {
		shown := fmt.Sprintf("%#v", input)
		if len(shown) > 24 {
			shown = shown[:12] + "... (" + strconv.Itoa(len(shown)) + " characters)"
		}
		w.drift.add(fmt.Errorf("%s(%s) gives %d messages, the policy is written for %d: %q", name, shown, len(got), n, got))
		return ""
	}
	return got[0]
}

// selectorDetail is the detail of the one error
// ValidateLabelSelectorRequirement gives for sr, which must be of type
// typ at the requirement's field at.
func (w writer) selectorDetail(sr metav1.LabelSelectorRequirement, at string, typ field.ErrorType) string {
	what := fmt.Sprintf("ValidateLabelSelectorRequirement of operator %q with %d values", sr.Operator, len(sr.Values))
	errs := metav1validation.ValidateLabelSelectorRequirement(sr, metav1validation.LabelSelectorValidationOptions{}, placeholderPath)
	if len(errs) != 1 || errs[0].Type != typ || errs[0].Field != placeholderPath.Child(at).String() {
		w.drift.add(fmt.Errorf("%s: want one %s at %s, got %v", what, typ, at, errs))
		return ""
	}
	return errs[0].Detail
}
