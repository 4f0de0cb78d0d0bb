package validation

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

func TestValidateListenerSetUpdate(t *testing.T) {
	badPort := field.Invalid(listenerPath(0).Child("port"), int32(0), "must be between 1 and 65535, inclusive")
	badCipher := field.NotSupported(optionPath(2, object.OptionCiphers), "RC4-MD5", object.Ciphers)

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
				setOption(ls, 2, object.OptionCiphers, "RC4-MD5")
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
				"spec.listeners[1].tls.options[example.com/x]: " + object.WarnForeignOption,
			},
		},

		// Ratcheting by value: an error ratchets when the values it
		// involves are as stored, each listener paired by name and each
		// option by key (Kubernetes' CRD validation ratcheting).
		{
			rule: "by value: a stored invalid option does not block changing another option of its listener",
			old:  func(ls *gwv1.ListenerSet) { setOption(ls, 2, object.OptionCiphers, "TLS_AES_128_GCM_SHA256") },
			new: func(ls *gwv1.ListenerSet) {
				setOption(ls, 2, object.OptionCiphers, "TLS_AES_128_GCM_SHA256")
				setOption(ls, 2, object.OptionMinimumVersion, "TLSv1_3")
			},
			warnings: []string{ratcheted(field.Invalid(optionPath(2, object.OptionCiphers), "TLS_AES_128_GCM_SHA256", object.DetailTLS13Cipher))},
		},
		{
			rule: "by value: changing the invalid option itself is judged",
			old:  func(ls *gwv1.ListenerSet) { setOption(ls, 2, object.OptionCiphers, "RC4-MD5") },
			new:  func(ls *gwv1.ListenerSet) { setOption(ls, 2, object.OptionCiphers, "RC4-MD5,AES128-SHA") },
			want: field.ErrorList{badCipher},
		},
		{
			rule: "by value: renaming the listener of a stored invalid option makes it a new one",
			old:  func(ls *gwv1.ListenerSet) { setOption(ls, 2, object.OptionCiphers, "RC4-MD5") },
			new: func(ls *gwv1.ListenerSet) {
				setOption(ls, 2, object.OptionCiphers, "RC4-MD5")
				ls.Spec.Listeners[2].Name = "quic.v4"
			},
			want: field.ErrorList{badCipher},
		},
		{
			// Both versions are involved: min is changed, the error is at
			// max; the http3 error (protocol and max) stays as stored.
			rule: "by value: min <= max with only minimumVersion changed is judged",
			old: func(ls *gwv1.ListenerSet) {
				setOption(ls, 2, object.OptionMinimumVersion, "TLSv1_3")
				setOption(ls, 2, object.OptionMaximumVersion, "TLSv1_1")
			},
			new: func(ls *gwv1.ListenerSet) {
				setOption(ls, 2, object.OptionMinimumVersion, "TLSv1_2")
				setOption(ls, 2, object.OptionMaximumVersion, "TLSv1_1")
			},
			want:     field.ErrorList{field.Invalid(optionPath(2, object.OptionMaximumVersion), "TLSv1_1", fmt.Sprintf(object.DetailVersionBelowMinimum, "TLSv1_2"))},
			warnings: []string{ratcheted(field.Invalid(optionPath(2, object.OptionMaximumVersion), "TLSv1_1", object.DetailHTTP3NeedsTLS13))},
		},
		{
			rule: "by value: min <= max with both versions as stored does not block another option",
			old: func(ls *gwv1.ListenerSet) {
				setOption(ls, 1, object.OptionMinimumVersion, "TLSv1_3")
				setOption(ls, 1, object.OptionMaximumVersion, "TLSv1_2")
			},
			new: func(ls *gwv1.ListenerSet) {
				setOption(ls, 1, object.OptionMinimumVersion, "TLSv1_3")
				setOption(ls, 1, object.OptionMaximumVersion, "TLSv1_2")
				setOption(ls, 1, object.OptionALPNProtocols, "h2")
			},
			warnings: []string{ratcheted(field.Invalid(optionPath(1, object.OptionMaximumVersion), "TLSv1_2", fmt.Sprintf(object.DetailVersionBelowMinimum, "TLSv1_3")))},
		},
		{
			rule: "by value: http3's TLS 1.3 involves the protocol: turning a listener into HTTP/3 is judged",
			old:  func(ls *gwv1.ListenerSet) { setOption(ls, 1, object.OptionMaximumVersion, "TLSv1_2") },
			new: func(ls *gwv1.ListenerSet) {
				setOption(ls, 1, object.OptionMaximumVersion, "TLSv1_2")
				ls.Spec.Listeners[1].Protocol = object.ProtocolHTTP3
			},
			want: field.ErrorList{field.Invalid(optionPath(1, object.OptionMaximumVersion), "TLSv1_2", object.DetailHTTP3NeedsTLS13)},
		},
		{
			rule: "by value: tls required involves protocol and tls: another field's change does not block",
			old:  func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[1].TLS = nil },
			new: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[1].TLS = nil
				ls.Spec.Listeners[1].Port = 8080
			},
			warnings: []string{ratcheted(field.Required(tlsPath(1), "required for protocol HTTPS"))},
		},
		{
			rule: "by value: tls required involves protocol and tls: a protocol change is judged",
			old:  func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[1].TLS = nil },
			new: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[1].TLS = nil
				ls.Spec.Listeners[1].Protocol = object.ProtocolHTTP3
			},
			want: field.ErrorList{field.Required(tlsPath(1), "required for protocol "+string(object.ProtocolHTTP3))},
		},
		{
			rule: "by value: a required value's error ratchets by its parent: another listener field's change does not block",
			old:  noCertificateRefs,
			new: func(ls *gwv1.ListenerSet) {
				noCertificateRefs(ls)
				ls.Spec.Listeners[2].Port = 8444
			},
			warnings: []string{ratcheted(field.Required(tlsPath(2).Child("certificateRefs"), "exactly one certificateRef is required when mode is Terminate"))},
		},
		{
			rule: "by value: a required value's error ratchets by its parent: a change in tls is judged",
			old:  noCertificateRefs,
			new: func(ls *gwv1.ListenerSet) {
				noCertificateRefs(ls)
				setOption(ls, 2, object.OptionMinimumVersion, "TLSv1_3")
			},
			want: field.ErrorList{field.Required(tlsPath(2).Child("certificateRefs"), "exactly one certificateRef is required when mode is Terminate")},
		},
		{
			rule: "by value: an error in an atomic list's item ratchets only with the whole list as stored",
			old: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[1].TLS.CertificateRefs[0].Kind = ptr.To[gwv1.Kind]("ConfigMap")
			},
			new: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[1].TLS.CertificateRefs[0].Kind = ptr.To[gwv1.Kind]("ConfigMap")
				ls.Spec.Listeners[1].TLS.CertificateRefs[0].Name = "cert-2"
			},
			want: field.ErrorList{field.NotSupported(tlsPath(1).Child("certificateRefs").Index(0).Child("kind"), "ConfigMap", []string{"Secret"})},
		},
		{
			rule: "by value: a route selector's labels are a map: adding a label keeps a stored invalid one ratcheted",
			old: func(ls *gwv1.ListenerSet) {
				selectNamespaces(ls, map[string]string{"team": longLabel})
			},
			new: func(ls *gwv1.ListenerSet) {
				selectNamespaces(ls, map[string]string{"team": longLabel, "env": "prod"})
			},
			warnings: ratchetedAll(metav1validation.ValidateLabels(map[string]string{"team": longLabel},
				listenerPath(0).Child("allowedRoutes", "namespaces", "selector", "matchLabels"))),
		},

		// Ratcheting by key and value: listeners are paired by name.
		{
			rule: "by name: a listener inserted before an unchanged invalid one does not block",
			old:  twoCertificateRefs,
			new: func(ls *gwv1.ListenerSet) {
				twoCertificateRefs(ls)
				insertListener(ls, 0, gwv1.ListenerEntry{Name: "extra", Port: 8080, Protocol: object.ProtocolHTTP})
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
			rule: "by value: changing another field of the invalid listener does not block",
			old:  twoCertificateRefs,
			new: func(ls *gwv1.ListenerSet) {
				twoCertificateRefs(ls)
				ls.Spec.Listeners[1].Hostname = ptr.To[gwv1.Hostname]("other.example.com")
			},
			warnings: []string{ratcheted(field.TooMany(tlsPath(1).Child("certificateRefs"), 2, 1))},
		},
		{
			rule: "by value: certificateRefs is an atomic list: changing any item is judged in full",
			old:  twoCertificateRefs,
			new: func(ls *gwv1.ListenerSet) {
				twoCertificateRefs(ls)
				ls.Spec.Listeners[1].TLS.CertificateRefs[0].Name = "cert-1"
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
				insertListener(ls, 0, gwv1.ListenerEntry{Name: "extra", Port: 8080, Protocol: object.ProtocolHTTP})
			},
			warnings: []string{ratcheted(field.Invalid(listenerPath(3).Child("protocol"), string(object.ProtocolHTTP3),
				fmt.Sprintf(object.DetailProtocolConflict, 443, "HTTPS", "team-a/ls listener secure")))},
		},
		{
			rule: "set-level: a stored conflict reported on the other listener after a reorder does not block",
			old:  protocolConflict,
			new: func(ls *gwv1.ListenerSet) {
				protocolConflict(ls)
				slices.Reverse(ls.Spec.Listeners)
			},
			warnings: []string{ratcheted(field.Invalid(listenerPath(1).Child("protocol"), "HTTPS",
				fmt.Sprintf(object.DetailProtocolConflict, 443, object.ProtocolHTTP3, "team-a/ls listener quic.v3")))},
		},
		{
			// A ProtocolConflict involves the port and protocol of both
			// listeners: the winner's hostname is not part of it, so a
			// change there leaves the conflict as stored. (Kubernetes
			// ratchets a value by the value itself; the rule's inputs are
			// what this error is about. A rule written as CEL on the
			// whole list would re-judge on any change in the list.)
			rule: "set-level: changing a field of the winner the conflict does not involve does not block",
			old:  protocolConflict,
			new: func(ls *gwv1.ListenerSet) {
				protocolConflict(ls)
				ls.Spec.Listeners[1].Hostname = ptr.To[gwv1.Hostname]("other.example.com")
			},
			warnings: []string{ratcheted(field.Invalid(listenerPath(2).Child("protocol"), string(object.ProtocolHTTP3),
				fmt.Sprintf(object.DetailProtocolConflict, 443, "HTTPS", "team-a/ls listener secure")))},
		},
		{
			rule: "set-level: changing the loser's protocol is judged again",
			old:  protocolConflict,
			new: func(ls *gwv1.ListenerSet) {
				protocolConflict(ls)
				ls.Spec.Listeners[2].Protocol = object.ProtocolHTTP
			},
			wantFields: []string{"spec.listeners[2].tls", "spec.listeners[2].protocol"},
		},
		{
			rule: "set-level: a new listener that takes the port first is judged",
			old:  protocolConflict,
			new: func(ls *gwv1.ListenerSet) {
				protocolConflict(ls)
				insertListener(ls, 0, gwv1.ListenerEntry{Name: "extra", Port: 443, Protocol: object.ProtocolHTTP})
			},
			want: field.ErrorList{
				field.Invalid(listenerPath(2).Child("protocol"), "HTTPS", fmt.Sprintf(object.DetailProtocolConflict, 443, object.ProtocolHTTP, "team-a/ls listener extra")),
				field.Invalid(listenerPath(3).Child("protocol"), string(object.ProtocolHTTP3), fmt.Sprintf(object.DetailProtocolConflict, 443, object.ProtocolHTTP, "team-a/ls listener extra")),
			},
		},
		{
			rule: "set-level: a stored duplicate name ratchets while both listeners are paired",
			old:  func(ls *gwv1.ListenerSet) { ls.Spec.Listeners[2].Name = "secure" },
			new: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners[2].Name = "secure"
				ls.Spec.Listeners[2].Port = 8444
			},
			warnings: []string{ratcheted(field.Duplicate(listenerPath(2).Child("name"), "secure"))},
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
			// The count is a property of the list: it ratchets as the list
			// does, unchanged only when every listener is (a map list:
			// in any order).
			rule: "spec-level: an unchanged list over the limit does not block a label edit, in any order",
			old:  func(ls *gwv1.ListenerSet) { ls.Spec.Listeners = manyListeners(65) },
			new: func(ls *gwv1.ListenerSet) {
				ls.Labels = map[string]string{"a": "b"}
				ls.Spec.Listeners = manyListeners(65)
				slices.Reverse(ls.Spec.Listeners)
			},
			warnings: []string{ratcheted(field.TooMany(listeners, 65, 64))},
		},
		{
			rule: "spec-level: a listener edit in a list over the limit is judged",
			old:  func(ls *gwv1.ListenerSet) { ls.Spec.Listeners = manyListeners(65) },
			new: func(ls *gwv1.ListenerSet) {
				ls.Spec.Listeners = manyListeners(65)
				ls.Spec.Listeners[3].Port = 8080
			},
			want: field.ErrorList{field.TooMany(listeners, 65, 64)},
		},
		{
			rule: "spec-level: changing parentRef's name leaves its stored invalid kind ratcheted",
			old:  func(ls *gwv1.ListenerSet) { ls.Spec.ParentRef.Kind = ptr.To[gwv1.Kind]("Service") },
			new: func(ls *gwv1.ListenerSet) {
				ls.Spec.ParentRef.Kind = ptr.To[gwv1.Kind]("Service")
				ls.Spec.ParentRef.Name = "other-gw"
			},
			warnings: []string{ratcheted(field.NotSupported(parentRef.Child("kind"), "Service", []string{"Gateway"}))},
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
			errs, warnings = coded(t, errs), codedWarnings(t, warnings)
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

// longLabel is a label value one character too long.
var longLabel = strings.Repeat("a", 64)

func ratchetedAll(errs field.ErrorList) []string {
	var r []string
	for _, e := range errs {
		r = append(r, ratcheted(e))
	}
	return r
}

// selectNamespaces makes listener "web" take routes from the namespaces
// with labels.
func selectNamespaces(ls *gwv1.ListenerSet, labels map[string]string) {
	ls.Spec.Listeners[0].AllowedRoutes.Namespaces = &gwv1.RouteNamespaces{
		From: ptr.To(gwv1.NamespacesFromSelector), Selector: &metav1.LabelSelector{MatchLabels: labels},
	}
}

// twoCertificateRefs gives listener "secure" a second certificateRef, as
// stored before the webhook was installed.
func twoCertificateRefs(ls *gwv1.ListenerSet) {
	refs := &ls.Spec.Listeners[1].TLS.CertificateRefs
	second := (*refs)[0]
	second.Name = "cert-2"
	*refs = append(*refs, second)
}

// noCertificateRefs leaves listener "quic.v3" its options only (the CRD
// asks for certificateRefs or options).
func noCertificateRefs(ls *gwv1.ListenerSet) { ls.Spec.Listeners[2].TLS.CertificateRefs = nil }

// protocolConflict puts listener "quic.v3" on the port of "secure".
func protocolConflict(ls *gwv1.ListenerSet) { ls.Spec.Listeners[2].Port = 443 }

func insertListener(ls *gwv1.ListenerSet, i int, l gwv1.ListenerEntry) {
	ls.Spec.Listeners = slices.Insert(ls.Spec.Listeners, i, l)
}
