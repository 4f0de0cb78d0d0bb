package validation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestValidateListenerSetUpdate(t *testing.T) {
	badPort := field.Invalid(listenerPath(0).Child("port"), int32(0), "must be between 1 and 65535, inclusive")
	badCipher := field.NotSupported(optionPath(2, OptionCiphers), "RC4-MD5", Ciphers)

	tests := []struct {
		rule     string
		old, new func(*gwv1.ListenerSet)
		want     field.ErrorList
		warnings []string
	}{
		{
			rule: "valid to valid",
			old:  func(*gwv1.ListenerSet) {},
			new:  func(ls *gwv1.ListenerSet) { ls.Labels = map[string]string{"a": "b"} },
		},
		{
			rule: "a stored invalid value, unchanged, is let through with a warning",
			old:  func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Port = 0 },
			new: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[0].Port = 0
				ls.Spec.Listeners[1].Hostname = ptr.To[gwv1.Hostname]("new.example.com")
			},
			warnings: []string{badPort.Error() + " (already stored; allowed because unchanged)"},
		},
		{
			rule: "a new invalid value is still rejected next to a ratcheted one",
			old:  func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Port = 0 },
			new: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[0].Port = 0
				setOption(ls, 2, OptionCiphers, "RC4-MD5")
			},
			want:     field.ErrorList{badCipher},
			warnings: []string{badPort.Error() + " (already stored; allowed because unchanged)"},
		},
		{
			rule: "changing an invalid value to another invalid value is rejected",
			old:  func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Port = 0 },
			new:  func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Port = 70000 },
			want: field.ErrorList{field.Invalid(listenerPath(0).Child("port"), int32(70000), "must be between 1 and 65535, inclusive")},
		},
		{
			rule: "making a valid value invalid is rejected",
			old:  func(*gwv1.ListenerSet) {},
			new:  func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Port = 0 },
			want: field.ErrorList{badPort},
		},
		{
			rule: "fixing the stored value clears the warning",
			old:  func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[0].Port = 0 },
			new:  func(*gwv1.ListenerSet) {},
		},
		{
			rule: "warnings of the new object are kept",
			old:  func(*gwv1.ListenerSet) {},
			new:  func(ls *gwv1.ListenerSet) { setOption(ls, 1, "example.com/x", "y") },
			warnings: []string{
				"spec.listeners[1].tls.options[example.com/x]: " + WarnForeignOption,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			oldLS, newLS := validListenerSet(), validListenerSet()
			tc.old(oldLS)
			tc.new(newLS)
			errs, warnings := ValidateListenerSetUpdate(newLS, oldLS)
			assert.Equal(t, tc.want, errs)
			assert.Equal(t, tc.warnings, []string(warnings))
		})
	}
}
