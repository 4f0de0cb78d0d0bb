package validation

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestAirlockOptions judges every row of AirlockOptions as the table says
// it is to be judged, alone on the base's HTTPS listener: each value it accepts
// (a list-valued option's whole list, in order and reversed) is admitted,
// a value outside it is denied with the row's code, and a name it refuses
// with its own. A new row is proved here without a row of its own in
// TestValidateListenerSet.
func TestAirlockOptions(t *testing.T) {
	judge := func(key gwv1.AnnotationKey, value string) field.ErrorList {
		ls := validListenerSet()
		setOption(ls, 1, key, value)
		errs, _ := Validate(ls, nil, Options{})
		return errs
	}
	for _, o := range AirlockOptions {
		t.Run(strings.TrimPrefix(string(o.Key), OptionPrefix), func(t *testing.T) {
			assert.True(t, strings.HasPrefix(string(o.Key), OptionPrefix), "an Airlock option has Airlock's prefix")
			assert.NotEmpty(t, o.Values)
			assert.NotEmpty(t, o.Code, "the code of a value outside Values")
			_, described := docOf(o.Code)
			assert.True(t, described, "%s is in the catalog (or the row's Doc describes it)", o.Code)
			path := optionPath(1, o.Key)
			accepted := o.Values
			if o.List {
				reversed := slices.Clone(o.Values)
				slices.Reverse(reversed)
				accepted = []string{strings.Join(o.Values, ","), strings.Join(reversed, ",")}
			}
			for _, v := range append(accepted, o.ExampleValue()) {
				assert.Empty(t, coded(t, judge(o.Key, v)), "%s=%q", o.Key, v)
			}
			errs := judge(o.Key, "not-a-value")
			if assert.Len(t, errs, 1) {
				assert.Equal(t, o.Code, CodeOf(errs[0]))
			}
			assert.Equal(t, field.ErrorList{field.NotSupported(path, "not-a-value", o.Values)}, coded(t, errs))
			for _, r := range o.Refused {
				errs := judge(o.Key, o.Values[0]+","+r)
				if assert.Len(t, errs, 1) {
					assert.Equal(t, o.RefusedCode, CodeOf(errs[0]))
				}
				assert.Equal(t, field.ErrorList{field.Invalid(path, r, o.RefusedDetail)}, coded(t, errs))
			}
		})
	}
	assert.True(t, slices.IsSorted(SupportedOptions))
	assert.Len(t, SupportedOptions, len(AirlockOptions), "one row per key")
}
