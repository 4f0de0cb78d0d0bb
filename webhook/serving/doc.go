// Package serving is the webhook's HTTPS server: TLS (minimum version,
// ECDHE AEAD suites for TLS 1.2, HTTP/2 off unless asked for, the
// certificate from a getter on every handshake), timeouts against slow
// clients, /healthz and /readyz, /metrics, and the phased shutdown (readiness
// fails, serving goes on for the shutdown delay, requests in flight drain,
// then the components stop). It knows nothing about ListenerSets: Run serves
// whatever handler and components it is given.
//
// Its flags, probes, metrics and shutdown: docs/serving.md, docs/reliability.md.
package serving
