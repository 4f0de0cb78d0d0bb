package validation

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// ErrorsAsWarnings: the errors come first, as WouldDeny warnings with the
// error's body after the marker, then the warnings the verdict had; the
// report admits.
func TestErrorsAsWarnings(t *testing.T) {
	var r Report
	r.Errors.Add(field.Invalid(listeners.Index(0).Child("port"), 0, "must be between 1 and 65535"))
	r.Warnings.Add(findings.Warning{Path: "spec.listeners[1].tls.options[example.com/x]", Kind: object.KindForeignOption, Message: object.WarnForeignOption})
	r.ErrorsAsWarnings()
	assert.Zero(t, r.Errors.Total())
	assert.Empty(t, r.Errors.List())
	assert.Equal(t, findings.Warnings{
		{Path: "spec.listeners[0].port", Kind: KindWouldDeny,
			Message: "would be denied (enforcement warn): Invalid value: 0: must be between 1 and 65535"},
		{Path: "spec.listeners[1].tls.options[example.com/x]", Kind: object.KindForeignOption, Message: object.WarnForeignOption},
	}, r.Warnings.List())
}

// Past the warnings' budget the errors are counted, not shown, and the
// summary counts errors and warnings together: the totals stay exact and
// the whole fits kube-apiserver's budget.
func TestErrorsAsWarningsKeepTheBudget(t *testing.T) {
	var r Report
	const errors, warnings = 1000, 10
	for i := range errors {
		r.Errors.Add(field.Invalid(listeners.Index(i%64).Child("port"), i, "must be between 1 and 65535"))
	}
	for range warnings {
		r.Warnings.Add(findings.Warning{Path: "spec.listeners[1].tls.options[example.com/x]", Kind: object.KindForeignOption, Message: object.WarnForeignOption})
	}
	r.ErrorsAsWarnings()
	assert.Equal(t, errors+warnings, r.Warnings.Total())
	list := r.Warnings.List()
	require.Greater(t, len(list), 1)
	runes := 0
	for _, w := range list[:len(list)-1] {
		assert.Equal(t, KindWouldDeny, w.Kind, "the errors come first")
		runes += utf8.RuneCountInString(w.String())
	}
	more := list[len(list)-1]
	assert.Equal(t, findings.KindMoreWarnings, more.Kind)
	runes += utf8.RuneCountInString(more.String())
	assert.LessOrEqual(t, runes, findings.MaxWarningsRunes)
	assert.Contains(t, more.Message, "(1010 in all)")
}
