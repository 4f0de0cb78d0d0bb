// Package registration owns what every admission engine registers for: the
// resource rule (CREATE and UPDATE of gateway.networking.k8s.io/v1
// listenersets, the main resource only) that the webhook configurations
// (webhook/admission.Registrations, the chart's files/webhooks.yaml) and the
// ValidatingAdmissionPolicy (policy) match by. It is its own package so
// that the policy generator need not link the webhook to share it.
//
// The webhooks it registers: docs/serving.md.
package registration
