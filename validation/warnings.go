package validation

// Warning texts. Each is the message part of "path: message"; kubectl prints
// the whole as a "Warning:" line. They stay under 120 characters with the
// path where the path is of usual length.
const (
	// WarnCrossNamespaceCertificateRef: a Secret in another namespace is only
	// usable once its owner grants the reference (Gateway API ReferenceGrant).
	WarnCrossNamespaceCertificateRef = "cross-namespace reference: needs a ReferenceGrant in namespace %q"
	// WarnForeignOption: another implementation's option is legal Gateway API
	// but has no effect on Airlock Microgateway.
	WarnForeignOption = "not an Airlock Microgateway option; Airlock ignores it"
	// WarnSelectorIgnored: Gateway API ignores the selector unless from is Selector.
	WarnSelectorIgnored = "ignored because from is %q, not \"Selector\""
	// WarnRatcheted wraps an error that the stored object already had: the
	// update keeps the value, so it is let through, but it still needs fixing.
	WarnRatcheted = "%s (already stored; allowed because unchanged)"
)
