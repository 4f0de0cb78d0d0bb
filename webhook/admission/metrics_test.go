package admission_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/airlock/listenerset-webhook/webhook/admission"
)

func TestFieldLabel(t *testing.T) {
	tests := []struct{ path, want string }{
		{"spec.listeners[1].name", "spec.listeners[*].name"},
		{"spec.listeners[12].tls.certificateRefs[0].kind", "spec.listeners[*].tls.certificateRefs[*].kind"},
		{"spec.listeners[0].tls.options[microgateway.airlock.com/ciphers]", "spec.listeners[*].tls.options[*]"},
		{"spec.listeners[0].tls.options[example.com/x]", "spec.listeners[*].tls.options[*]"},
		{"spec.listeners[0].allowedRoutes.kinds[0].kind", "spec.listeners[*].allowedRoutes.kinds[*].kind"},
		{"spec.listeners[0].allowedRoutes.namespaces.selector.matchLabels", "spec.listeners[*].allowedRoutes.namespaces.selector.matchLabels"},
		{"spec.parentRef.name", "spec.parentRef.name"},
		{"spec.listeners", "spec.listeners"},
		{"metadata.name", "metadata.name"},
		{"apiVersion", "apiVersion"},
		{"metadata.labels[app.kubernetes.io/name]", "metadata.labels[*]"},

		// Map keys are user input: nothing after one may reach the label.
		{"spec.listeners[0].tls.options[x].spec.listeners[1].evil]", "spec.listeners[*].tls.options[*]"},
		{"spec.listeners[0].tls.options[1].evil[2]", "spec.listeners[*].tls.options[*]"},
		{"spec.listeners[0].tls.options[a\"b\nc]", "spec.listeners[*].tls.options[*]"},
		// A list subscript must be a number.
		{"spec.listeners[web].name", "spec.listeners[*]"},
		{"spec.listeners[0", "spec.listeners[*]"},
		// Names the type does not have.
		{"spec.listeners[0].madeUp", "spec.listeners[*].<other>"},
		{"spec.listeners[0].tls.mode.deeper", "spec.listeners[*].tls.mode.<other>"},
		{"spec.listeners[0]name", "spec.listeners[*]<other>"},
		{"", "<other>"},
		{"<nil>", "<other>"},
		{"spec..name", "spec.<other>"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, admission.FieldLabel(tt.path), "FieldLabel(%q)", tt.path)
	}
}
