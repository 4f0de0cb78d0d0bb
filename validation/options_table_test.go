package validation_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// TestAirlockOptions judges every row of validation.AirlockOptions as the
// table says (validationtest.OptionCases): each value it accepts is
// admitted, a value outside its values is Unsupported with the row's code,
// a name it refuses Invalid with its own detail and code. A new row is
// proved here, and its code counted as given (validation.Coded), without a
// row of its own in TestValidateListenerSet.
func TestAirlockOptions(t *testing.T) {
	for _, c := range validationtest.OptionCases() {
		errs, _ := validation.Validate(c.ListenerSet, nil, validation.Options{})
		if c.Valid {
			assert.Empty(t, errs, c.Name)
			continue
		}
		o, ok := object.LookupOption(c.Key)
		if !assert.True(t, ok, c.Name) || !assert.Len(t, errs, 1, c.Name) {
			continue
		}
		assert.Equal(t, c.Code, findings.CodeOf(errs[0]), c.Name)
		path := field.NewPath("spec", "listeners").Index(0).Child("tls", "options").Key(string(c.Key))
		want := field.NotSupported(path, c.Value, o.Values)
		if c.Code != o.Code {
			want = field.Invalid(path, errs[0].BadValue, o.RefusedDetail)
			assert.Contains(t, o.Refused, errs[0].BadValue, c.Name)
		}
		assert.Equal(t, field.ErrorList{want}, validation.Coded(t, errs), c.Name)
	}
	catalog := validation.Catalog()
	for _, o := range object.AirlockOptions {
		for _, code := range []findings.Code{o.Code, o.RefusedCode} {
			if code != "" {
				assert.True(t, slices.ContainsFunc(catalog, func(d findings.CodeDoc) bool { return d.Code == code }), "%s: %s is in the catalog", o.Key, code)
			}
		}
	}
	assert.True(t, slices.IsSorted(object.SupportedOptions))
	assert.Len(t, object.SupportedOptions, len(object.AirlockOptions), "one row per key")
}
