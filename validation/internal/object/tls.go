package object

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// Details of the TLS rules' errors, shared with the policy package's CEL.
const (
	// DetailTLSForbidden: tls on an HTTP listener.
	DetailTLSForbidden = "must not be set for protocol " + string(ProtocolHTTP)
	// DetailTLSRequired: no tls on a listener of protocol %s.
	DetailTLSRequired = "required for protocol %s"
	// DetailNoCertificateRef: a Terminate configuration without a certificate.
	DetailNoCertificateRef = "exactly one certificateRef is required when mode is " + string(gwv1.TLSModeTerminate)
)

// tlsRules define the rules of this file (Rule).
var tlsRules = []Rule{
	{Number: 4, Field: "`spec.listeners[i].tls`", Summary: "required for HTTPS and http3, forbidden for HTTP", Errors: "Required / Forbidden",
		Codes:   []findings.Code{CodeTLSForbidden, CodeTLSRequired},
		Valid:   Example{At: "spec.listeners[0].tls", Value: "null"},
		Invalid: Example{At: "spec.listeners[1].tls", Value: "null"}},
	{Number: 4, Field: "`spec.listeners[i].tls.mode`", Summary: "`Terminate` (unset means Terminate); Passthrough is not supported", Errors: "Unsupported value",
		Codes:   []findings.Code{CodeTLSMode},
		Valid:   Example{At: "spec.listeners[1].tls.mode", Value: "Terminate"},
		Invalid: Example{At: "spec.listeners[1].tls.mode", Value: "Passthrough"}},
	{Number: 5, Field: "`spec.listeners[i].tls.certificateRefs`", Summary: "exactly one (none is Required even when options are set)", Errors: "Required / Too many",
		Codes:   []findings.Code{CodeCertificateRefRequired, CodeTooManyCertificateRefs},
		Valid:   Example{At: "spec.listeners[1].tls.certificateRefs", Value: "[{name: shop-tls-2026}]"},
		Invalid: Example{At: "spec.listeners[1].tls.certificateRefs", Value: "[{name: shop-tls}, {name: shop-tls-2026}]"}},
	{Number: 5, Field: "`...certificateRefs[j].group`, `.kind`, `.name`, `.namespace`",
		Summary: fmt.Sprintf("group `%q`, kind `%s`, name required (DNS subdomain), namespace a DNS label", defaults.SecretGroup, defaults.SecretKind),
		Errors:  "Unsupported value / Required / Invalid", Codes: []findings.Code{CodeCertificateRefKind, CodeCertificateRefName, CodeCertificateRefNamespace},
		Valid:   Example{At: "spec.listeners[1].tls.certificateRefs[0].kind", Value: "Secret"},
		Invalid: Example{At: "spec.listeners[1].tls.certificateRefs[0].kind", Value: "ConfigMap"}},
}

// validateListenerTLS: Airlock terminates TLS itself for HTTPS and HTTP/3 and
// never passes it through, so those protocols need a Terminate configuration
// with exactly one certificate, and HTTP must not carry one. Whether tls may
// or must be set involves the protocol and tls.
func validateListenerTLS(i int, l *gwv1.ListenerEntry, namespace string, c views.Cluster, fldPath *field.Path, v *judging) {
	tls := l.TLS
	switch {
	case l.Protocol == ProtocolHTTP:
		if tls != nil {
			v.Check(i, field.ErrorList{CodeTLSForbidden.Err(field.Forbidden(fldPath, DetailTLSForbidden))}, protocolValue, tlsValue)
		}
		return
	case tls == nil:
		if l.Protocol == ProtocolHTTPS || l.Protocol == ProtocolHTTP3 {
			v.Check(i, field.ErrorList{CodeTLSRequired.Err(field.Required(fldPath, fmt.Sprintf(DetailTLSRequired, l.Protocol)))}, protocolValue, tlsValue)
		}
		return
	}
	if tls.Mode != nil && *tls.Mode != gwv1.TLSModeTerminate {
		v.Check(i, field.ErrorList{CodeTLSMode.Err(field.NotSupported(fldPath.Child("mode"), string(*tls.Mode), []gwv1.TLSModeType{gwv1.TLSModeTerminate}))}, modeValue)
	} else {
		validateCertificateRefs(i, tls.CertificateRefs, namespace, c, fldPath.Child("certificateRefs"), v)
	}
	validateOptions(i, tls.Options, l.Protocol, fldPath.Child("options"), v)
}

// validateCertificateRefs: Airlock Microgateway serves exactly one Secret per
// listener. certificateRefs is an atomic list (the CRD's
// x-kubernetes-list-type), whose items Kubernetes does not correlate: every
// error in it ratchets by the whole list. "Required" is about an absent
// value, which Kubernetes correlates through its parent: it ratchets by the
// whole tls (so also as the CRD's own rule there, "certificateRefs or
// options must be specified when mode is Terminate", does).
func validateCertificateRefs(i int, refs []gwv1.SecretObjectReference, namespace string, c views.Cluster, fldPath *field.Path, v *judging) {
	if len(refs) == 0 {
		v.Check(i, field.ErrorList{CodeCertificateRefRequired.Err(field.Required(fldPath, DetailNoCertificateRef))}, tlsValue)
		return
	}
	var errs field.ErrorList
	if len(refs) > 1 {
		errs = append(errs, CodeTooManyCertificateRefs.Err(field.TooMany(fldPath, len(refs), 1)))
	}
	for j := range refs {
		errs = append(errs, validateCertificateRef(&refs[j], namespace, c, fldPath.Index(j), &v.Warnings)...)
	}
	v.Check(i, errs, CertificateRefsValue)
}

// validateCertificateRef checks one reference. A reference into another
// namespace earns a reminder that it needs a ReferenceGrant there, unless c
// knows that namespace's grants: then the cluster-aware rule says exactly
// whether one permits it (RefNotPermitted, or nothing).
func validateCertificateRef(ref *gwv1.SecretObjectReference, namespace string, c views.Cluster, fldPath *field.Path, w *findings.WarningReport) field.ErrorList {
	var errs field.ErrorList
	if ref.Group != nil && *ref.Group != defaults.SecretGroup {
		errs = append(errs, CodeCertificateRefKind.Err(field.NotSupported(fldPath.Child("group"), string(*ref.Group), []gwv1.Group{defaults.SecretGroup})))
	}
	if ref.Kind != nil && *ref.Kind != defaults.SecretKind {
		errs = append(errs, CodeCertificateRefKind.Err(field.NotSupported(fldPath.Child("kind"), string(*ref.Kind), []gwv1.Kind{defaults.SecretKind})))
	}
	errs = append(errs, CodeCertificateRefName.Errs(validateDNSSubdomain(ref.Name, fldPath.Child("name")))...)
	if ref.Namespace != nil {
		nsErrs := CodeCertificateRefNamespace.Errs(validateNamespace(*ref.Namespace, fldPath.Child("namespace")))
		errs = append(errs, nsErrs...)
		if len(nsErrs) == 0 && string(*ref.Namespace) != namespace && !grantsKnown(c, string(*ref.Namespace)) {
			warn(w, fldPath.Child("namespace"), KindCrossNamespaceRef, warnCrossNamespaceCertificateRef, *ref.Namespace)
		}
	}
	return errs
}

// grantsKnown tells whether c knows the ReferenceGrants of namespace.
func grantsKnown(c views.Cluster, namespace string) bool {
	if c == nil {
		return false
	}
	_, known := c.ReferenceGrants(namespace)
	return known
}
