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
)

// Registration is what a webhook configuration must say of the webhooks
// this server serves, whoever writes the configuration: the local cluster
// (test/localcluster) from these values, the Helm chart from its copy in
// files/webhooks.yaml, which test/chart holds equal to Registrations()
// (TestWebhookFileIsGenerated; `make chart-generate` rewrites it).
type Registration struct {
	Mutating   Webhook `json:"mutating"`
	Validating Webhook `json:"validating"`
	// Rules are both webhooks' rules, registration.Rule (the policy's
	// too). DELETE is not registered (reviewGuard allows one should it
	// come).
	Rules []admissionregistrationv1.RuleWithOperations `json:"rules"`
}

// Webhook is one webhook of Registration.
type Webhook struct {
	Name string `json:"name"`
	// Path is the handler's path on the server (clientConfig.service.path).
	Path string `json:"path"`
	// MatchConditions are evaluated by kube-apiserver before it calls.
	MatchConditions []admissionregistrationv1.MatchCondition `json:"matchConditions,omitempty"`
}

// Registrations gives the server's registration: the mutating webhook at
// MutatePath, called only when its MutatingMatchConditions hold, and the
// validating webhook at ValidatePath, called for every create and update.
func Registrations() Registration {
	return Registration{
		Mutating:   Webhook{Name: MutatingWebhookName, Path: MutatePath, MatchConditions: MutatingMatchConditions()},
		Validating: Webhook{Name: ValidatingWebhookName, Path: ValidatePath},
		Rules:      []admissionregistrationv1.RuleWithOperations{registration.Rule()},
	}
}
