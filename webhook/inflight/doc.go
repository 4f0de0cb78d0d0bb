// Package inflight bounds the work the webhook server takes on at once and
// how long each request may take. Limiter, in front of the webhook
// handlers, gives every request a deadline from kube-apiserver's timeout
// query parameter (or a default that agrees with the chart's
// timeoutSeconds), and admits it only when the bodies already in flight
// leave room for its own: a request over the limit waits, within its
// deadline, and one that finds no room in time is answered 429, an HTTP
// error that kube-apiserver treats as a failed call, so that the webhook's
// failurePolicy decides instead of a denial. It knows nothing about
// ListenerSets or AdmissionReviews.
//
// Its flags: docs/serving.md; what it bounds and why: docs/reliability.md.
package inflight
