package validation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// validateListenerTLS: Airlock terminates TLS itself for HTTPS and HTTP/3 and
// never passes it through, so those protocols need a Terminate configuration
// with exactly one certificate, and HTTP must not carry one.
func validateListenerTLS(l *gwv1.ListenerEntry, namespace string, fldPath *fieldPath, w *Warnings) field.ErrorList {
	tls := l.TLS
	switch {
	case l.Protocol == ProtocolHTTP:
		if tls != nil {
			return field.ErrorList{field.Forbidden(fldPath.Path(), "must not be set for protocol HTTP")}
		}
		return nil
	case tls == nil:
		if l.Protocol == ProtocolHTTPS || l.Protocol == ProtocolHTTP3 {
			return field.ErrorList{field.Required(fldPath.Path(), "required for protocol "+string(l.Protocol))}
		}
		return nil
	}
	var errs field.ErrorList
	if tls.Mode != nil && *tls.Mode != gwv1.TLSModeTerminate {
		errs = append(errs, field.NotSupported(fldPath.Child("mode").Path(), string(*tls.Mode), []gwv1.TLSModeType{gwv1.TLSModeTerminate}))
	} else {
		errs = append(errs, validateCertificateRefs(tls.CertificateRefs, namespace, fldPath.Child("certificateRefs"), w)...)
	}
	errs = append(errs, validateOptions(tls.Options, l.Protocol, fldPath.Child("options"), w)...)
	return errs
}

// validateCertificateRefs: Airlock Microgateway serves exactly one Secret per
// listener.
func validateCertificateRefs(refs []gwv1.SecretObjectReference, namespace string, fldPath *fieldPath, w *Warnings) field.ErrorList {
	var errs field.ErrorList
	switch {
	case len(refs) == 0:
		errs = append(errs, field.Required(fldPath.Path(), "exactly one certificateRef is required when mode is Terminate"))
	case len(refs) > 1:
		errs = append(errs, field.TooMany(fldPath.Path(), len(refs), 1))
	}
	for i := range refs {
		errs = append(errs, validateCertificateRef(&refs[i], namespace, fldPath.Index(i), w)...)
	}
	return errs
}

func validateCertificateRef(ref *gwv1.SecretObjectReference, namespace string, fldPath *fieldPath, w *Warnings) field.ErrorList {
	var errs field.ErrorList
	if ref.Group != nil && *ref.Group != "" {
		errs = append(errs, field.NotSupported(fldPath.Child("group").Path(), string(*ref.Group), []string{""}))
	}
	if ref.Kind != nil && *ref.Kind != "Secret" {
		errs = append(errs, field.NotSupported(fldPath.Child("kind").Path(), string(*ref.Kind), []string{"Secret"}))
	}
	errs = append(errs, validateDNSSubdomain(ref.Name, fldPath.Child("name"))...)
	if ref.Namespace != nil {
		nsErrs := validateNamespace(*ref.Namespace, fldPath.Child("namespace"))
		errs = append(errs, nsErrs...)
		if len(nsErrs) == 0 && string(*ref.Namespace) != namespace {
			w.add(fldPath.Child("namespace"), WarnCrossNamespaceCertificateRef, *ref.Namespace)
		}
	}
	return errs
}
