package admission

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/airlock/listenerset-webhook/registration"
)

// Names of the webhooks in their configurations. kube-apiserver quotes
// them in its messages: `admission webhook
// "validate.listenersets.microgateway.airlock.com" denied the request: ...`.
const (
	MutatingWebhookName   = "mutate.listenersets.microgateway.airlock.com"
	ValidatingWebhookName = "validate.listenersets.microgateway.airlock.com"
	DeletionWebhookName   = "delete.listenersets.microgateway.airlock.com"
	RouteWebhookName      = "validate.httproutes.microgateway.airlock.com"
	// The warn twins of the two webhooks that deny (Webhook's Warn).
	ValidatingWarnWebhookName = "validate-warn.listenersets.microgateway.airlock.com"
	RouteWarnWebhookName      = "validate-warn.httproutes.microgateway.airlock.com"
)

// DeletionTimeoutSeconds is the deletion webhook's timeoutSeconds: short,
// as it only warns, and with failurePolicy Ignore a late answer lets the
// deletion through without its warnings rather than holding it up.
const DeletionTimeoutSeconds = 3

// Registration is what a webhook configuration must say of the webhooks
// this server serves, whoever writes the configuration: the local cluster
// (test/localcluster) from these values, the Helm chart from its copy in
// files/webhooks.yaml, which test/chart holds equal to Registrations()
// (TestWebhookFileIsGenerated; `make chart-generate` rewrites it).
type Registration struct {
	Mutating   Webhook `json:"mutating"`
	Validating Webhook `json:"validating"`
	// Rules are both webhooks' rules, registration.Rule (the policy's
	// too). DELETE is not registered there (reviewGuard allows one
	// should it come).
	Rules []admissionregistrationv1.RuleWithOperations `json:"rules"`
	// Deleting is the deletion webhook, a webhook of the validating
	// configuration with its own rules (DELETE only), failurePolicy
	// Ignore and a short timeout: it warns of the HTTPRoutes a deletion
	// detaches and allows every deletion. It reads the cluster view, so a
	// configuration registers it where the cluster-aware checks are on.
	Deleting DeletionWebhook `json:"deleting"`
	// Routes is the HTTPRoute webhook, a webhook of the validating
	// configuration with its own rules (creates and updates of
	// httproutes), called only for routes that name a ListenerSet (its
	// matchConditions): routes are claims. It reads the cluster view, so
	// a configuration registers it where the cluster-aware checks are on,
	// with the validating webhook's failurePolicy (open in warn).
	Routes RouteWebhook `json:"routes"`
}

// RouteWebhook is the HTTPRoute webhook of Registration.
type RouteWebhook struct {
	Webhook `json:",inline"`
	Rules   []admissionregistrationv1.RuleWithOperations `json:"rules"`
}

// RouteMatchExpression calls the HTTPRoute webhook only for a route with
// a parentRef of kind ListenerSet: every other route (a Gateway's, another
// implementation's) costs no round trip.
const RouteMatchExpression = `has(object.spec) && has(object.spec.parentRefs) && object.spec.parentRefs.exists(p, has(p.kind) && p.kind == 'ListenerSet')`

// DeletionWebhook is the deletion webhook of Registration.
type DeletionWebhook struct {
	Name           string                                       `json:"name"`
	Path           string                                       `json:"path"`
	Rules          []admissionregistrationv1.RuleWithOperations `json:"rules"`
	FailurePolicy  admissionregistrationv1.FailurePolicyType    `json:"failurePolicy"`
	TimeoutSeconds int32                                        `json:"timeoutSeconds"`
}

// Webhook is one webhook of Registration.
type Webhook struct {
	Name string `json:"name"`
	// Path is the handler's path on the server (clientConfig.service.path).
	Path string `json:"path"`
	// MatchConditions are evaluated by kube-apiserver before it calls.
	MatchConditions []admissionregistrationv1.MatchCondition `json:"matchConditions,omitempty"`
	// Warn is the warn twin of a webhook that denies (nil for one that
	// does not): the same rules and match conditions at its own path.
	Warn *WarnTwin `json:"warn,omitempty"`
}

// WarnTwin is a webhook's warn twin: served at Path with the same checks,
// every error turned into a warning and the object admitted, whatever the
// server's --enforcement. A configuration that splits its namespaces by
// a label (the chart's webhook.enforcementLabel: enforcement=warn) sends
// the labelled ones here and the others to the webhook, so that an
// operator switches one namespace, or all, from deny to warn without a
// redeploy (docs/runbook.md). FailurePolicy is Ignore: a webhook that only
// warns never blocks a write, not even when it cannot be reached.
type WarnTwin struct {
	Name          string                                    `json:"name"`
	Path          string                                    `json:"path"`
	FailurePolicy admissionregistrationv1.FailurePolicyType `json:"failurePolicy"`
}

// Registrations gives the server's registration: the mutating webhook at
// MutatePath, called only when its MutatingMatchConditions hold, and the
// validating webhook at ValidatePath, called for every create and update,
// with its warn twin at ValidateWarnPath.
func Registrations() Registration {
	return Registration{
		Mutating: Webhook{Name: MutatingWebhookName, Path: MutatePath, MatchConditions: MutatingMatchConditions()},
		Validating: Webhook{Name: ValidatingWebhookName, Path: ValidatePath,
			Warn: &WarnTwin{Name: ValidatingWarnWebhookName, Path: ValidateWarnPath, FailurePolicy: admissionregistrationv1.Ignore}},
		Rules: []admissionregistrationv1.RuleWithOperations{registration.Rule()},
		Deleting: DeletionWebhook{Name: DeletionWebhookName, Path: DeletePath,
			Rules:         []admissionregistrationv1.RuleWithOperations{registration.DeleteRule()},
			FailurePolicy: admissionregistrationv1.Ignore, TimeoutSeconds: DeletionTimeoutSeconds},
		Routes: RouteWebhook{Webhook: Webhook{Name: RouteWebhookName, Path: ValidateRoutePath,
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "names-listenerset", Expression: RouteMatchExpression}},
			Warn:            &WarnTwin{Name: RouteWarnWebhookName, Path: ValidateRouteWarnPath, FailurePolicy: admissionregistrationv1.Ignore}},
			Rules: []admissionregistrationv1.RuleWithOperations{registration.RouteRule()}},
	}
}
