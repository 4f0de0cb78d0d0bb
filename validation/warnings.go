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

// Cluster-aware findings (ValidateListenerSetInCluster). The Detail texts are
// errors in strict mode and warnings otherwise; they name the Gateway API
// condition reason the listener would get.
const (
	// WarnGatewayNotFound: the parent may simply not be created yet.
	WarnGatewayNotFound = "Gateway %s/%s not found; the ListenerSet stays unattached until it exists"
	// WarnNotAllowed: the Gateway's allowedListeners refuses this namespace (NotAllowed).
	WarnNotAllowed = "Gateway %s/%s does not admit this ListenerSet (NotAllowed): %s"
	// WarnSecretNotFound: the listener has no certificate until the Secret exists.
	WarnSecretNotFound = "Secret %s/%s not found (InvalidCertificateRef until it exists)"
	// DetailProtocolConflict: an earlier listener of the merged list holds the port.
	DetailProtocolConflict = "port %d already uses protocol %s in %s; this listener would be Conflicted (ProtocolConflict)"
	// DetailHostnameConflict: an earlier listener has the same port, protocol and hostname.
	DetailHostnameConflict = "same port, protocol and hostname as %s; this listener would be Conflicted (HostnameConflict)"
	// DetailRefNotPermitted: no ReferenceGrant in the Secret's namespace allows the reference.
	DetailRefNotPermitted = "no ReferenceGrant in namespace %q allows ListenerSets from %q to use this Secret (RefNotPermitted)"
)
