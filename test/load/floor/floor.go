// Package floor is the load tool's yardstick: controller-runtime's admission
// webhook with a handler that allows everything. It decodes the
// AdmissionReview (the object stays raw JSON, as in any controller-runtime
// webhook before its handler runs), answers Allowed and encodes the
// response: what any webhook on this server stack costs before it does any
// work of its own. Its server (./server) runs webhook.Run with this handler
// in place of the ListenerSet webhook's, so TLS, certificates, metrics,
// health probes and logging are the very same.
package floor

import (
	"context"

	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/airlock/listenerset-webhook/webhook"
)

// Webhook returns the decode-and-allow webhook.
func Webhook() *admission.Webhook {
	return &admission.Webhook{Handler: admission.HandlerFunc(func(context.Context, admission.Request) admission.Response {
		return admission.Allowed("")
	})}
}

// Register serves Webhook at both of the ListenerSet webhook's paths
// (webhook.MutatePath and webhook.ValidatePath); it fits webhook.Options.Register.
func Register(srv ctrlwebhook.Server) {
	srv.Register(webhook.MutatePath, Webhook())
	srv.Register(webhook.ValidatePath, Webhook())
}
