package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/airlock/listenerset-webhook/offline/live"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

// TestCheck: `kubectl listenerset check` (live.Check, the chart's helm
// test) against kube-apiserver with the webhook registered: answered by the
// webhook when it denies and when it warns, not answered while it is down
// (failurePolicy Fail here: the call fails), and the policy expected where
// the webhook answers is a failure.
func TestCheck(t *testing.T) {
	requireCluster(t)
	ctx := t.Context()
	check := func(expect string) (string, bool) {
		t.Helper()
		line, ok, err := live.Check(ctx, cluster.Config, live.CheckOptions{Namespace: namespace, Expect: expect})
		if err != nil {
			t.Fatalf("check: %v", err)
		}
		return line, ok
	}
	// The name the check matches in kube-apiserver's message.
	if line, ok := check(live.ExpectWebhook); !ok || !strings.Contains(line, `admission webhook "`+admission.ValidatingWebhookName+`" denied the request`) {
		t.Errorf("deny: %v %s", ok, line)
	}
	if line, ok := check(live.ExpectPolicy); ok {
		t.Errorf("the policy expected, the webhook answered, and the check passed: %s", line)
	}

	if err := hook.Stop(); err != nil {
		t.Fatalf("stopping the webhook: %v", err)
	}
	line, ok := check(live.ExpectAny)
	if err := hook.Start(context.Background()); err != nil {
		t.Fatalf("restarting the webhook: %v", err)
	}
	if err := cluster.WaitForWebhook(context.Background(), namespace, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if ok || !strings.Contains(line, "failed calling webhook") {
		t.Errorf("webhook down: %v %s", ok, line)
	}

	restartWebhook(t, webhookSettings{warn: true})
	if line, ok := check(live.ExpectWebhook); !ok || !strings.Contains(line, "spec.listeners[0].protocol: would be denied (enforcement warn): ") {
		t.Errorf("warn: %v %s", ok, line)
	}
}
