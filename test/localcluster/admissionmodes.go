package localcluster

import (
	"context"
	"fmt"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The admission modes of the chart's admission.mode besides the webhooks
// alone: the ValidatingAdmissionPolicy alone ("policy"), or the policy with
// the webhooks failing open ("both").

// PolicyDenialPrefix begins kube-apiserver's message when a
// ValidatingAdmissionPolicy denies a request:
// `ValidatingAdmissionPolicy 'name' with binding 'name' denied request: ...`.
const PolicyDenialPrefix = "ValidatingAdmissionPolicy "

// RegisterPolicy creates (or replaces) the ValidatingAdmissionPolicy vap,
// others (more policies and bindings, e.g. the rest of policy.Generate's)
// and vap's binding, last, and waits until kube-apiserver enforces vap: a
// server-side dry-run create of a ListenerSet that only our rules reject
// (protocol TCP) is denied by it. kube-apiserver runs validating policies
// before validating webhooks, so this also holds while the webhooks are
// registered. namespace must exist and be matched by the binding.
func (c *Cluster) RegisterPolicy(ctx context.Context, vap *admissionv1.ValidatingAdmissionPolicy, binding *admissionv1.ValidatingAdmissionPolicyBinding, namespace string, others ...client.Object) error {
	for _, obj := range append(append([]client.Object{vap}, others...), binding) {
		if err := createOrReplace(ctx, c.Client, obj); err != nil {
			return fmt.Errorf("registering %T %s: %w", obj, obj.GetName(), err)
		}
	}
	return c.WaitForPolicy(ctx, namespace, vap.Name, true, 60*time.Second)
}

// UnregisterPolicy deletes the binding and the policy and waits until
// kube-apiserver no longer evaluates the policy named vapName.
func (c *Cluster) UnregisterPolicy(ctx context.Context, vapName, bindingName, namespace string) error {
	for _, obj := range []client.Object{
		&admissionv1.ValidatingAdmissionPolicyBinding{},
		&admissionv1.ValidatingAdmissionPolicy{},
	} {
		name := vapName
		if _, ok := obj.(*admissionv1.ValidatingAdmissionPolicyBinding); ok {
			name = bindingName
		}
		obj.SetName(name)
		if err := c.Client.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return c.WaitForPolicy(ctx, namespace, vapName, false, 60*time.Second)
}

// WaitForPolicy waits until the dry-run probe (a ListenerSet with protocol
// TCP) is denied by the ValidatingAdmissionPolicy named vapName (enforced
// true) or is not (enforced false). kube-apiserver compiles a new policy and
// picks up a binding from its informers, within a second or so.
func (c *Cluster) WaitForPolicy(ctx context.Context, namespace, vapName string, enforced bool, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := probeWebhook(ctx, c.Client, namespace)
		if PolicyDenied(err, vapName) == enforced {
			return nil
		}
		if time.Now().After(deadline) {
			want := "denied by"
			if !enforced {
				want = "no longer denied by"
			}
			return fmt.Errorf("the probe ListenerSet was not %s the ValidatingAdmissionPolicy %q within %s; last probe result: %v", want, vapName, timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// PolicyDenied says whether err is kube-apiserver's denial by the
// ValidatingAdmissionPolicy named vapName.
func PolicyDenied(err error, vapName string) bool {
	return err != nil && strings.Contains(err.Error(), fmt.Sprintf("%s'%s' with binding", PolicyDenialPrefix, vapName))
}

// RegisterWebhooksIgnore is RegisterWebhooks with failurePolicy Ignore on
// both webhooks, as the chart registers them in admission.mode both: the
// policy enforces the object's own rules, so a webhook that cannot be
// reached must not block writes.
func (c *Cluster) RegisterWebhooksIgnore(ctx context.Context, ep WebhookEndpoint, namespace string) error {
	mutating, validating := WebhookConfigurations(ep)
	mutating.Webhooks[0].FailurePolicy = ptr.To(admissionv1.Ignore)
	validating.Webhooks[0].FailurePolicy = ptr.To(admissionv1.Ignore)
	for _, obj := range []client.Object{mutating, validating} {
		if err := createOrReplace(ctx, c.Client, obj); err != nil {
			return fmt.Errorf("registering %T %s: %w", obj, obj.GetName(), err)
		}
	}
	return c.WaitForWebhook(ctx, namespace, 30*time.Second)
}
