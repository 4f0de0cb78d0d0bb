package live

import (
	"context"
	"fmt"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// The answers Check tells apart. kube-apiserver words them (its admission
// plugins' messages); CheckAnswer's tests hold them against a real one.
const (
	// webhookDenied starts the error of a denial by the validating webhook:
	// kube-apiserver quotes the webhook's name (admission.ValidatingWebhookName,
	// which this package does not link: a test holds the two equal).
	webhookDenied = `admission webhook "validate.listenersets.microgateway.airlock.com" denied the request`
	// wouldDeny is in each warning of the webhook's warn mode
	// (validation.WarnWouldDeny).
	wouldDeny = "would be denied (enforcement warn): "
	// policyNamed is in the error of a ValidatingAdmissionPolicy's denial
	// and in its warning ("Validation failed for ValidatingAdmissionPolicy
	// 'name' with binding ...").
	policyNamed = "ValidatingAdmissionPolicy '"
)

// Who answered the check's ListenerSet.
const (
	ExpectAny     = "any"     // the webhook or the policy
	ExpectWebhook = "webhook" // the validating webhook: denied, or warned in warn mode
	ExpectPolicy  = "policy"  // the chart's ValidatingAdmissionPolicy: denied, or warned with [Warn]
)

// Expectations are the values of CheckOptions.Expect.
var Expectations = []string{ExpectAny, ExpectWebhook, ExpectPolicy}

// CheckOptions are the check command's.
type CheckOptions struct {
	// Namespace is where the ListenerSet is sent: one the webhook's
	// namespaceSelector covers (the release's own namespace is excluded).
	Namespace string
	// Gateway is its parentRef, "namespace/name" or "name" (in Namespace).
	// A Gateway that does not exist is judged by Airlock's rules (the
	// webhook's --unknown-parent default); the policy with
	// admission.policy.gateways judges only the Gateways listed.
	Gateway string
	// Expect is who must answer: ExpectAny when empty.
	Expect string
}

// CheckName is the name of the ListenerSet Check sends.
const CheckName = "listenerset-webhook-check"

// CheckListenerSet is what Check sends: one listener of protocol TCP, which
// Airlock Microgateway does not serve, so the webhook (and the policy)
// answer with spec.listeners[0].protocol.
func CheckListenerSet(ns, gateway string) *unstructured.Unstructured {
	parent := map[string]any{"name": gateway}
	if gwNS, name, ok := strings.Cut(gateway, "/"); ok {
		parent = map[string]any{"namespace": gwNS, "name": name}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1",
		"kind":       "ListenerSet",
		"metadata":   map[string]any{"name": CheckName, "namespace": ns},
		"spec": map[string]any{
			"parentRef": parent,
			"listeners": []any{map[string]any{"name": "check", "protocol": "TCP", "port": int64(8080)}},
		},
	}}
}

// checkField is the field both answers name.
const checkField = "spec.listeners[0].protocol"

// Check sends CheckListenerSet through kube-apiserver as a server-side dry
// run (nothing is stored) and says who answered: the proof, after an
// install or an upgrade, that kube-apiserver reaches the webhook (or
// evaluates the policy) for that namespace, as cert-manager's
// startupapicheck proves its webhook. It returns the line to print and
// whether the answer is the one expected; an error when the request could
// not be made (RBAC, the API missing, the cluster unreachable).
func Check(ctx context.Context, cfg *rest.Config, o CheckOptions) (string, bool, error) {
	cfg = rest.CopyConfig(cfg)
	w := &collected{}
	cfg.WarningHandler = w
	c, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return "", false, err
	}
	gvr := schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "listenersets"}
	gw := o.Gateway
	if gw == "" {
		gw = CheckName
	}
	_, err = c.Resource(gvr).Namespace(o.Namespace).Create(ctx, CheckListenerSet(o.Namespace, gw),
		metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil && !apierrors.IsInvalid(err) && !apierrors.IsForbidden(err) && !strings.Contains(err.Error(), "failed calling webhook") {
		return "", false, fmt.Errorf("dry-run create of ListenerSet %s/%s: %w", o.Namespace, CheckName, err)
	}
	line, ok := CheckAnswer(err, w.take(), o.Expect)
	return fmt.Sprintf("ListenerSet %s/%s (dry run): %s", o.Namespace, CheckName, line), ok, nil
}

// CheckAnswer reads kube-apiserver's answer to CheckListenerSet, its error
// (nil: admitted) and warnings: who answered, and whether that is expect.
func CheckAnswer(err error, warnings []string, expect string) (string, bool) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	var who, line string
	switch {
	case strings.Contains(msg, webhookDenied) && strings.Contains(msg, checkField):
		who, line = ExpectWebhook, "denied by the webhook (enforcement deny): "+msg
	case strings.Contains(msg, policyNamed) && strings.Contains(msg, "denied request"):
		who, line = ExpectPolicy, "denied by the ValidatingAdmissionPolicy: "+msg
	case err != nil:
		return "not answered by the webhook or the policy: " + msg, false
	default:
		for _, w := range warnings {
			switch {
			case strings.Contains(w, wouldDeny) && strings.HasPrefix(w, checkField):
				who, line = ExpectWebhook, "admitted with the webhook's warning (enforcement warn): "+w
			case strings.Contains(w, policyNamed):
				who, line = ExpectPolicy, "admitted with the ValidatingAdmissionPolicy's warning: "+w
			default:
				continue
			}
			break
		}
		if who == "" {
			return fmt.Sprintf("admitted unchecked (warnings: %q): neither the webhook nor the policy judged it: none "+
				"registered for this namespace, or failurePolicy Ignore while no pod answers", warnings), false
		}
	}
	if expect != "" && expect != ExpectAny && expect != who {
		return fmt.Sprintf("answered by the %s, want the %s: %s", who, expect, line), false
	}
	return line, true
}

// collected keeps kube-apiserver's warnings (rest.WarningHandler).
type collected struct {
	mu   sync.Mutex
	msgs []string
}

func (c *collected) HandleWarningHeader(_ int, _ string, text string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, text)
}

func (c *collected) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.msgs
}
