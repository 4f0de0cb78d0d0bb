package validation

import (
	"fmt"
	"slices"
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
		// wantFields, when set, replaces want: the fields of the errors.
		wantFields []string
		warnings   []string
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

		// Ratcheting by key and value: listeners are paired by name.
		{
			rule: "by name: a listener inserted before an unchanged invalid one does not block",
			old:  twoCertificateRefs,
			new: func(ls *gwv1.ListenerSet) {
				twoCertificateRefs(ls)
				insertListener(ls, 0, gwv1.ListenerEntry{Name: "extra", Port: 8080, Protocol: ProtocolHTTP})
			},
			warnings: []string{ratcheted(field.TooMany(tlsPath(2).Child("certificateRefs"), 2, 1))},
		},
		{
			rule: "by name: reordering the listeners does not block",
			old:  twoCertificateRefs,
			new: func(ls *gwv1.ListenerSet) {
				twoCertificateRefs(ls)
				slices.Reverse(ls.Spec.Listeners)
			},
			warnings: []string{ratcheted(field.TooMany(tlsPath(1).Child("certificateRefs"), 2, 1))},
		},
		{
			rule: "by name: renaming another listener does not block",
			old:  twoCertificateRefs,
			new: func(ls *gwv1.ListenerSet) {
				twoCertificateRefs(ls)
				ls.Spec.Listeners[0].Name = "plain"
			},
			warnings: []string{ratcheted(field.TooMany(tlsPath(1).Child("certificateRefs"), 2, 1))},
		},
		{
			rule: "by name: deleting another listener does not block",
			old:  twoCertificateRefs,
			new: func(ls *gwv1.ListenerSet) {
				twoCertificateRefs(ls)
				ls.Spec.Listeners = slices.Delete(ls.Spec.Listeners, 0, 1)
			},
			warnings: []string{ratcheted(field.TooMany(tlsPath(0).Child("certificateRefs"), 2, 1))},
		},
		{
			rule: "by name: changing the invalid listener itself is judged in full",
			old:  twoCertificateRefs,
			new: func(ls *gwv1.ListenerSet) {
				twoCertificateRefs(ls)
				ls.Spec.Listeners[1].Hostname = ptr.To[gwv1.Hostname]("other.example.com")
			},
			want: field.ErrorList{field.TooMany(tlsPath(1).Child("certificateRefs"), 2, 1)},
		},
		{
			rule: "by name: renaming the invalid listener makes it a new one",
			old:  twoCertificateRefs,
			new: func(ls *gwv1.ListenerSet) {
				twoCertificateRefs(ls)
				ls.Spec.Listeners[1].Name = "renamed"
			},
			want: field.ErrorList{field.TooMany(tlsPath(1).Child("certificateRefs"), 2, 1)},
		},
		{
			rule: "by name: a second copy of a stored invalid listener is new (and a duplicate)",
			old:  twoCertificateRefs,
			new: func(ls *gwv1.ListenerSet) {
				twoCertificateRefs(ls)
				ls.Spec.Listeners = append(ls.Spec.Listeners, *ls.Spec.Listeners[1].DeepCopy())
			},
			wantFields: []string{"spec.listeners[3].tls.certificateRefs", "spec.listeners[3].name", "spec.listeners[3].hostname"},
			warnings:   []string{ratcheted(field.TooMany(tlsPath(1).Child("certificateRefs"), 2, 1))},
		},
		{
			rule: "set-level: a stored conflict between unchanged listeners does not block an insertion",
			old:  protocolConflict,
			new: func(ls *gwv1.ListenerSet) {
				protocolConflict(ls)
				insertListener(ls, 0, gwv1.ListenerEntry{Name: "extra", Port: 8080, Protocol: ProtocolHTTP})
			},
			warnings: []string{ratcheted(field.Invalid(listenerPath(3).Child("protocol"), string(ProtocolHTTP3),
				fmt.Sprintf(DetailProtocolConflict, 443, "HTTPS", "team-a/ls listener secure")))},
		},
		{
			rule: "set-level: a stored conflict reported on the other listener after a reorder does not block",
			old:  protocolConflict,
			new: func(ls *gwv1.ListenerSet) {
				protocolConflict(ls)
				slices.Reverse(ls.Spec.Listeners)
			},
			warnings: []string{ratcheted(field.Invalid(listenerPath(1).Child("protocol"), "HTTPS",
				fmt.Sprintf(DetailProtocolConflict, 443, ProtocolHTTP3, "team-a/ls listener quic.v3")))},
		},
		{
			rule: "set-level: changing the listener that wins the conflict is judged again",
			old:  protocolConflict,
			new: func(ls *gwv1.ListenerSet) {
				protocolConflict(ls)
				ls.Spec.Listeners[1].Hostname = ptr.To[gwv1.Hostname]("other.example.com")
			},
			want: field.ErrorList{field.Invalid(listenerPath(2).Child("protocol"), string(ProtocolHTTP3),
				fmt.Sprintf(DetailProtocolConflict, 443, "HTTPS", "team-a/ls listener secure"))},
		},
		{
			rule: "spec-level: an unchanged invalid parentRef does not block a listener edit",
			old:  func(ls *gwv1.ListenerSet) { ls.Spec.ParentRef.Kind = ptr.To[gwv1.Kind]("Service") },
			new: func(ls *gwv1.ListenerSet) {
				ls.Spec.ParentRef.Kind = ptr.To[gwv1.Kind]("Service")
				ls.Spec.Listeners[0].Port = 8080
			},
			warnings: []string{ratcheted(field.NotSupported(parentRef.Child("kind"), "Service", []string{"Gateway"}))},
		},
		{
			rule: "spec-level: a changed invalid parentRef is judged again",
			old:  func(ls *gwv1.ListenerSet) { ls.Spec.ParentRef.Kind = ptr.To[gwv1.Kind]("Service") },
			new:  func(ls *gwv1.ListenerSet) { ls.Spec.ParentRef.Kind = ptr.To[gwv1.Kind]("Pod") },
			want: field.ErrorList{field.NotSupported(parentRef.Child("kind"), "Pod", []string{"Gateway"})},
		},
		{
			rule: "spec-level: an unchanged count over the limit does not block a listener edit",
			old:  func(ls *gwv1.ListenerSet) { ls.Spec.Listeners = manyListeners(65) },
			new: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners = manyListeners(65)
				ls.Spec.Listeners[3].Port = 8080
			},
			warnings: []string{ratcheted(field.TooMany(listeners, 65, 64))},
		},
		{
			rule: "spec-level: growing a set over the limit is judged again",
			old:  func(ls *gwv1.ListenerSet) { ls.Spec.Listeners = manyListeners(65) },
			new:  func(ls *gwv1.ListenerSet) { ls.Spec.Listeners = manyListeners(66) },
			want: field.ErrorList{field.TooMany(listeners, 66, 64)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			oldLS, newLS := validListenerSet(), validListenerSet()
			tc.old(oldLS)
			tc.new(newLS)
			errs, warnings := Validate(newLS, oldLS, Options{})
			if tc.wantFields != nil {
				var fields []string
				for _, e := range errs {
					fields = append(fields, e.Field)
				}
				assert.Equal(t, tc.wantFields, fields)
			} else {
				assert.Equal(t, tc.want, errs)
			}
			assert.Equal(t, tc.warnings, warnings.Strings())
		})
	}
}

func ratcheted(e *field.Error) string {
	return e.Error() + " (already stored; allowed because unchanged)"
}

// twoCertificateRefs gives listener "secure" a second certificateRef, as
// stored before the webhook was installed.
func twoCertificateRefs(ls *gwv1.ListenerSet) {
	refs := &ls.Spec.Listeners[1].TLS.CertificateRefs
	second := (*refs)[0]
	second.Name = "cert-2"
	*refs = append(*refs, second)
}

// protocolConflict puts listener "quic.v3" on the port of "secure".
func protocolConflict(ls *gwv1.ListenerSet) { ls.Spec.Listeners[2].Port = 443 }

func insertListener(ls *gwv1.ListenerSet, i int, l gwv1.ListenerEntry) {
	ls.Spec.Listeners = slices.Insert(ls.Spec.Listeners, i, l)
}
