// Package webhook assembles the ListenerSet admission webhook from its parts
// and runs it (Run, for the serve command). Each part is a package of its own:
//
//   - admission: the admission adapters and their registration: the
//     Validator around validation.Validate in controller-runtime's
//     WithValidator, the defaulting handler around defaults.Patch with
//     controller-runtime's decoder, the guard in front of them, the mutating
//     webhook's matchConditions and the denial metric;
//   - serving: the HTTPS server: TLS, timeouts, health probes, the metrics
//     endpoint and the phased shutdown;
//   - inflight: the limit on the work in flight and each request's
//     deadline, in front of the handlers;
//   - certs: where the serving certificate comes from: a directory (with a
//     self-signed certificate for local use), or a self-bootstrapped CA with
//     caBundle injection;
//   - clusterview: the read-only informer caches behind the cluster-aware
//     checks.
//
// One request, end to end: kube-apiserver posts an AdmissionReview to
// admission.MutatePath or admission.ValidatePath on serving's TLS listener;
// inflight gives it a deadline from its ?timeout= and waits for room in the
// limit (or answers 429, so that failurePolicy decides); admission's guard
// allows every DELETE and refuses what kube-apiserver never sends; controller-
// runtime's admission.Webhook decodes the rest and calls the Defaulter or
// Validator; these call defaults.ListenerSet and validation.Validate and turn
// the result into a JSON patch, or into a 422 Invalid status whose causes
// carry each error's field path, plus admission warnings. Nothing here
// decides what is valid; it only translates.
package webhook
