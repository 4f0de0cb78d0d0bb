package offline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/offline"
	"github.com/airlock/listenerset-webhook/offline/crdcheck"
	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/offline/report"
)

// one is a ListenerSet with the given metadata and listeners (YAML flow).
func one(metadata, listeners string) string {
	return `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: ` + metadata + `
spec:
  parentRef: {name: gw}
  listeners: ` + listeners + "\n"
}

const httpListener = `[{name: web, protocol: HTTP, port: 8080}]`

type wantErr struct {
	field string
	typ   field.ErrorType
}

func errorsOf(r judge.Result) []wantErr {
	var out []wantErr
	for _, e := range r.Errors {
		out = append(out, wantErr{e.Field, field.ErrorType(e.Type)})
	}
	return out
}

// TestCRDAndMetadataVerdict: what kube-apiserver refuses before any webhook
// is asked, and that where the CRD and the webhook both
// catch a problem the webhook's error, naming the listener, is shown.
func TestCRDAndMetadataVerdict(t *testing.T) {
	nineKinds := `[{name: web, protocol: HTTP, port: 8080, allowedRoutes: {kinds: [` +
		strings.TrimSuffix(strings.Repeat("{kind: HTTPRoute}, ", 9), ", ") + `]}}]`
	blocked := wantErr{"", field.ErrorTypeInvalid} // the note that CEL rules were skipped
	tests := []struct {
		name    string
		input   string
		errs    []wantErr
		message string // in the first error's message
	}{
		{name: "name not a lowercase RFC 1123 subdomain", input: one(`{name: Foo, namespace: ns}`, httpListener),
			errs: []wantErr{{"metadata.name", field.ErrorTypeInvalid}}, message: "a lowercase RFC 1123 subdomain"},
		{name: "no name", input: one(`{namespace: ns}`, httpListener),
			errs: []wantErr{{"metadata.name", field.ErrorTypeRequired}, blocked}, message: "name or generateName is required"},
		{name: "generateName is a name", input: one(`{generateName: web-, namespace: ns}`, httpListener)},
		{name: "9 route kinds, the CRD allows 8", input: one(`{name: k, namespace: ns}`, nineKinds),
			errs: []wantErr{{"spec.listeners[0].allowedRoutes.kinds", field.ErrorTypeTooMany}, blocked}, message: "must have at most 8 items"},
		{name: "unknown field", input: one(`{name: u, namespace: ns}`, `[{name: web, protocol: HTTP, port: 8080, foo: bar}]`),
			errs: []wantErr{{"spec.listeners[0].foo", field.ErrorTypeForbidden}}, message: `unknown field "spec.listeners[0].foo"`},
		{name: "unknown field in metadata", input: one(`{name: u, namespace: ns, labelz: {a: b}}`, httpListener),
			errs: []wantErr{{"metadata.labelz", field.ErrorTypeForbidden}}},
		{name: "a value of the wrong type: the CRD's error, with its path", input: one(`{name: t, namespace: ns}`, `[{name: web, protocol: HTTP, port: "80"}]`),
			errs: []wantErr{{"spec.listeners[0].port", field.ErrorTypeTypeInvalid}, blocked}, message: "must be of type integer"},
		// Both catch these; the CRD's CEL rule says spec.listeners, the webhook the listener.
		{name: "duplicate names: the webhook's error", input: one(`{name: d, namespace: ns}`,
			`[{name: web, protocol: HTTP, port: 8080}, {name: web, protocol: HTTP, port: 8081}]`),
			errs: []wantErr{{"spec.listeners[1].name", field.ErrorTypeDuplicate}}},
		{name: "tls on HTTP: the webhook's error", input: one(`{name: h, namespace: ns}`,
			`[{name: web, protocol: HTTP, port: 8080, tls: {certificateRefs: [{name: c}]}}]`),
			errs: []wantErr{{"spec.listeners[0].tls", field.ErrorTypeForbidden}}},
		{name: "port out of range: the webhook's error", input: one(`{name: p, namespace: ns}`, `[{name: web, protocol: HTTP, port: 70000}]`),
			errs: []wantErr{{"spec.listeners[0].port", field.ErrorTypeInvalid}}, message: "must be between 1 and 65535"},
		// Each catches its own: both are shown.
		{name: "the CRD's and the webhook's own problems", input: one(`{name: Both, namespace: ns}`, `[{name: web, protocol: TCP, port: 8080}]`),
			errs: []wantErr{{"metadata.name", field.ErrorTypeInvalid}, {"spec.listeners[0].protocol", field.ErrorTypeNotSupported}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := checkWith(t, tt.input, offline.Options{})
			require.Len(t, r.Results, 1)
			res := r.Results[0]
			assert.Equal(t, tt.errs, errorsOf(res), "%+v", res.Errors)
			assert.Equal(t, len(tt.errs) == 0, res.Valid)
			if tt.message != "" && len(res.Errors) > 0 {
				assert.Contains(t, res.Errors[0].Message, tt.message)
			}
			if len(tt.errs) > 0 {
				assert.Equal(t, report.ExitInvalid, r.Summary.ExitCode)
			}
		})
	}
}

func TestUnknownFieldsModes(t *testing.T) {
	input := one(`{name: u, namespace: ns}`, `[{name: web, protocol: HTTP, port: 8080, foo: bar}]`)
	for _, tt := range []struct {
		mode     judge.UnknownFields
		valid    bool
		warnings []string
	}{
		{mode: "", valid: false},
		{mode: judge.UnknownFieldsError, valid: false},
		{mode: judge.UnknownFieldsWarn, valid: true, warnings: []string{`unknown field "spec.listeners[0].foo"`}},
		{mode: judge.UnknownFieldsIgnore, valid: true},
	} {
		t.Run(string(tt.mode), func(t *testing.T) {
			r := checkWith(t, input, offline.Options{Judge: judge.Options{UnknownFields: tt.mode}})
			require.Len(t, r.Results, 1)
			assert.Equal(t, tt.valid, r.Results[0].Valid, "%+v", r.Results[0].Errors)
			var msgs []string
			for _, w := range r.Results[0].Warnings {
				msgs = append(msgs, w.Message)
				if w.Kind == judge.KindUnknownField {
					assert.Equal(t, "spec.listeners[0].foo", w.Field)
				}
			}
			assert.Equal(t, tt.warnings, msgs)
		})
	}
}

// TestDuplicateJSONFieldsStayWarnings: kubectl sends the object it decoded,
// in which the last of two equal keys has won, so kube-apiserver never sees
// a duplicate: a warning, not an error.
func TestDuplicateJSONFieldsStayWarnings(t *testing.T) {
	r := checkWith(t, `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"ListenerSet",`+
		`"metadata":{"name":"a","namespace":"ns"},"spec":{"parentRef":{"name":"gw"},"listeners":[{"name":"web","protocol":"HTTP","port":80,"port":8080}]}}`, offline.Options{})
	require.Len(t, r.Results, 1)
	assert.True(t, r.Results[0].Valid)
	require.Len(t, r.Results[0].Warnings, 1)
	assert.Equal(t, `duplicate field "spec.listeners[0].port"`, r.Results[0].Warnings[0].Message)
}

// TestCRDFlag: --crd's CRD is the one applied. A copy of the embedded CRD
// that allows 9 route kinds admits what the embedded one refuses; a path
// without the CRD is an input error.
func TestCRDFlag(t *testing.T) {
	nineKinds := one(`{name: k, namespace: ns}`, `[{name: web, protocol: HTTP, port: 8080, allowedRoutes: {kinds: [`+
		strings.TrimSuffix(strings.Repeat("{kind: HTTPRoute}, ", 9), ", ")+`]}}]`)
	embedded := string(crdcheck.Embedded())
	const limit = "\n                          maxItems: 8\n" // spec.listeners[].allowedRoutes.kinds
	require.Equal(t, 1, strings.Count(embedded, limit), "the kinds limit of the v1.6.3 CRD")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "listenersets.yaml"),
		[]byte(strings.Replace(embedded, limit, "\n                          maxItems: 9\n", 1)), 0o644))

	assert.False(t, checkWith(t, nineKinds, offline.Options{}).Results[0].Valid)
	r := checkWith(t, nineKinds, offline.Options{Judge: judge.Options{CRDs: []string{dir}}})
	require.Len(t, r.Results, 1)
	assert.True(t, r.Results[0].Valid, "%+v", r.Results[0].Errors)

	r = checkWith(t, nineKinds, offline.Options{Judge: judge.Options{CRDs: []string{filepath.Join(dir, "missing")}}})
	assert.Equal(t, report.ExitInputError, r.Summary.ExitCode)
	assert.Empty(t, r.Results)
	require.Len(t, r.InputErrors, 1)
	assert.Contains(t, r.InputErrors[0].Message, "--crd")
}

// TestStrictPrecedence: under --strict a ListenerSet the server would deny
// is never stored, so it is no rival for the sets after it in precedence
// order (creation time first, then namespace/name: every set of the input
// is a create, created now, so namespace/name); results stay in input
// order.
func TestStrictPrecedence(t *testing.T) {
	const input = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: ns}
spec:
  gatewayClassName: airlock
  allowedListeners: {namespaces: {from: Same}}
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
# first in the input, second by name
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: z-new, namespace: ns}
spec:
  parentRef: {name: gw}
  listeners: [{name: web, port: 8080, protocol: HTTP, hostname: shop.example.com}]
---
# first by name: takes 8080 first, but its second listener conflicts with
# the Gateway's port 80, which --strict denies
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: a-old, namespace: ns}
spec:
  parentRef: {name: gw}
  listeners:
  - {name: web, port: 8080, protocol: HTTP, hostname: shop.example.com}
  - {name: tls, port: 80, protocol: HTTPS, tls: {certificateRefs: [{name: c}]}}
`
	names := func(r report.Report) []string {
		var out []string
		for _, res := range r.Results {
			out = append(out, res.Name)
		}
		return out
	}
	lenient := checkWith(t, input, offline.Options{})
	require.Equal(t, []string{"z-new", "a-old"}, names(lenient), "input order")
	assert.True(t, lenient.Results[0].Valid)
	assert.True(t, lenient.Results[1].Valid)
	assert.True(t, hasWarning(lenient.Results[0], "ns/a-old listener web"),
		"without --strict a-old is stored, and z-new's listener loses to it: %+v", lenient.Results[0].Warnings)

	strict := checkWith(t, input, offline.Options{Judge: judge.Options{Strict: true}})
	require.Equal(t, []string{"z-new", "a-old"}, names(strict), "input order")
	assert.False(t, strict.Results[1].Valid, "a-old conflicts with the Gateway's listener")
	assert.True(t, strict.Results[0].Valid, "a-old is denied, so z-new has no rival: %+v", strict.Results[0].Errors)
	assert.False(t, hasWarning(strict.Results[0], "a-old"), "%+v", strict.Results[0].Warnings)
}

func hasWarning(r judge.Result, s string) bool {
	for _, w := range r.Warnings {
		if strings.Contains(w.Message, s) {
			return true
		}
	}
	return false
}
