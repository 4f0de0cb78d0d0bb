package live

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckAnswer: who answered the check's ListenerSet, from
// kube-apiserver's words (TestCheck in test/e2e holds them against a real
// one), and whether that is who was expected.
func TestCheckAnswer(t *testing.T) {
	webhook := errors.New(`admission webhook "validate.listenersets.microgateway.airlock.com" denied the request: ` +
		`ListenerSet.gateway.networking.k8s.io "listenerset-webhook-check" is invalid: spec.listeners[0].protocol: Unsupported value: "TCP"`)
	policy := errors.New(`listenersets.gateway.networking.k8s.io "listenerset-webhook-check" is forbidden: ValidatingAdmissionPolicy ` +
		`'listenerset-webhook' with binding 'listenerset-webhook' denied request: spec.listeners[0].protocol: Unsupported value: "TCP"`)
	warned := `spec.listeners[0].protocol: would be denied (enforcement warn): Unsupported value: "TCP"`
	policyWarned := `Validation failed for ValidatingAdmissionPolicy 'listenerset-webhook' with binding 'listenerset-webhook': ...`
	for _, tc := range []struct {
		name     string
		err      error
		warnings []string
		expect   string
		ok       bool
		says     string
	}{
		{"webhook denies", webhook, nil, ExpectWebhook, true, "denied by the webhook"},
		{"webhook denies, any", webhook, nil, "", true, "denied by the webhook"},
		{"webhook denies, policy expected", webhook, nil, ExpectPolicy, false, "answered by the webhook, want the policy"},
		{"webhook warns", nil, []string{"other", warned}, ExpectWebhook, true, "with the webhook's warning"},
		{"policy denies", policy, nil, ExpectPolicy, true, "denied by the ValidatingAdmissionPolicy"},
		{"policy warns", nil, []string{policyWarned}, ExpectAny, true, "ValidatingAdmissionPolicy's warning"},
		{"admitted unchecked", nil, []string{"unrelated"}, ExpectAny, false, "admitted unchecked"},
		{"another field warned", nil, []string{`spec.listeners[0].port: would be denied (enforcement warn): ...`}, ExpectAny, false, "admitted unchecked"},
		{"call failed", errors.New(`Internal error occurred: failed calling webhook "validate...": connection refused`), nil, ExpectAny, false, "not answered"},
		{"another field denied", errors.New(`admission webhook "validate.listenersets.microgateway.airlock.com" denied the request: spec.listeners[0].port`), nil, ExpectAny, false, "not answered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line, ok := CheckAnswer(tc.err, tc.warnings, tc.expect)
			if ok != tc.ok || !strings.Contains(line, tc.says) {
				t.Errorf("got %v %q, want %v and %q", ok, line, tc.ok, tc.says)
			}
		})
	}
}
