// Package webhook assembles the ListenerSet admission webhook from its parts
// and runs it (Run, for the serve command): admission (the handlers, their
// guard and registration), serving (the HTTPS server, probes, metrics and
// the phased shutdown), inflight (the limit on the work in flight and each
// request's deadline), certs (where the serving certificate comes from) and
// clusterview (the read-only caches behind the scope and the cluster-aware
// checks).
//
// One request: serving's TLS listener, inflight's deadline and room (or a
// 429, so that failurePolicy decides), admission's guard, then
// controller-runtime's admission.Webhook and the handlers, which call
// defaults and validation and translate the result into a patch, a 422 with
// each error's field path, or warnings. Nothing here decides what is valid.
// Flags, certificates and metrics: docs/serving.md.
package webhook
