package validation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// validateListenerTLS: Airlock terminates TLS itself for HTTPS and HTTP/3 and
// never passes it through, so those protocols need a Terminate configuration
// with exactly one certificate, and HTTP must not carry one.
func validateListenerTLS(l *gwv1.ListenerEntry, namespace string, c Cluster, fldPath *field.Path, w *WarningReport) field.ErrorList {
	tls := l.TLS
	switch {
	case l.Protocol == ProtocolHTTP:
		if tls != nil {
			return field.ErrorList{field.Forbidden(fldPath, "must not be set for protocol HTTP")}
		}
		return nil
	case tls == nil:
		if l.Protocol == ProtocolHTTPS || l.Protocol == ProtocolHTTP3 {
			return field.ErrorList{field.Required(fldPath, "required for protocol "+string(l.Protocol))}
		}
		return nil
	}
	var errs field.ErrorList
	if tls.Mode != nil && *tls.Mode != gwv1.TLSModeTerminate {
		errs = append(errs, field.NotSupported(fldPath.Child("mode"), string(*tls.Mode), []gwv1.TLSModeType{gwv1.TLSModeTerminate}))
	} else {
		errs = append(errs, validateCertificateRefs(tls.CertificateRefs, namespace, c, fldPath.Child("certificateRefs"), w)...)
	}
	errs = append(errs, validateOptions(tls.Options, l.Protocol, fldPath.Child("options"), w)...)
	return errs
}

// validateCertificateRefs: Airlock Microgateway serves exactly one Secret per
// listener.
func validateCertificateRefs(refs []gwv1.SecretObjectReference, namespace string, c Cluster, fldPath *field.Path, w *WarningReport) field.ErrorList {
	var errs field.ErrorList
	switch {
	case len(refs) == 0:
		errs = append(errs, field.Required(fldPath, "exactly one certificateRef is required when mode is Terminate"))
	case len(refs) > 1:
		errs = append(errs, field.TooMany(fldPath, len(refs), 1))
	}
	for i := range refs {
		errs = append(errs, validateCertificateRef(&refs[i], namespace, c, fldPath.Index(i), w)...)
	}
	return errs
}

// validateCertificateRef checks one reference. A reference into another
// namespace earns a reminder that it needs a ReferenceGrant there, unless c
// knows that namespace's grants: then the cluster-aware rule says exactly
// whether one permits it (RefNotPermitted, or nothing).
func validateCertificateRef(ref *gwv1.SecretObjectReference, namespace string, c Cluster, fldPath *field.Path, w *WarningReport) field.ErrorList {
	var errs field.ErrorList
	if ref.Group != nil && *ref.Group != "" {
		errs = append(errs, field.NotSupported(fldPath.Child("group"), string(*ref.Group), []string{""}))
	}
	if ref.Kind != nil && *ref.Kind != secretKind {
		errs = append(errs, field.NotSupported(fldPath.Child("kind"), string(*ref.Kind), []string{secretKind}))
	}
	errs = append(errs, validateDNSSubdomain(ref.Name, fldPath.Child("name"))...)
	if ref.Namespace != nil {
		nsErrs := validateNamespace(*ref.Namespace, fldPath.Child("namespace"))
		errs = append(errs, nsErrs...)
		if len(nsErrs) == 0 && string(*ref.Namespace) != namespace && !grantsKnown(c, string(*ref.Namespace)) {
			w.add(fldPath.Child("namespace"), KindCrossNamespaceRef, WarnCrossNamespaceCertificateRef, *ref.Namespace)
		}
	}
	return errs
}

// grantsKnown tells whether c knows the ReferenceGrants of namespace.
func grantsKnown(c Cluster, namespace string) bool {
	if c == nil {
		return false
	}
	_, known := c.ReferenceGrants(namespace)
	return known
}
