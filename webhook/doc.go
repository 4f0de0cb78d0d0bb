// Package webhook is the only place where listenerset-webhook meets
// controller-runtime: it adapts the pure packages defaults and validation to
// admission webhooks for gateway.networking.k8s.io/v1 ListenerSet, and serves
// them over TLS with health probes and Prometheus metrics.
//
// One request, end to end: kube-apiserver posts an AdmissionReview to
// MutatePath or ValidatePath; controller-runtime's admission.Webhook decodes
// it (capping the body at 7 MiB) and calls Defaulter or Validator; these call
// defaults.ListenerSet and validation.ValidateListenerSet[Update] and turn the
// result into a JSON patch, or into a 422 Invalid status whose causes carry
// each error's field path, plus admission warnings. Nothing in this package
// decides what is valid; it only translates.
//
// Run wires the server for the serve command: TLS (minimum version, ECDHE
// AEAD suites, HTTP/2 off by default, certificates reloaded from disk),
// timeouts, /healthz and /readyz, /metrics, and a graceful shutdown.
package webhook
