package incluster

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// What package routes needs of the tenancy rules to judge an HTTPRoute's
// claims (routes/routeclaims.go) with the listeners' own decisions: the
// declaration of a namespace, and whether a listener claims its hostname.

// Declaration is a namespace's hostname declaration as the rules read it.
type Declaration struct {
	// Declared is false when the Namespace has none (or its annotations
	// are unknown): every name is allowed.
	Declared bool
	Allowed  AllowedHostnames
	// Key and Value are the annotation; Problems what makes it malformed.
	Key, Value string
	Problems   []DeclarationProblem
}

// DeclarationOf reads namespace's declaration (Tenancy.Annotation) from c.
func DeclarationOf(namespace string, c views.Cluster, t Tenancy) Declaration {
	annotations, known := c.NamespaceAnnotations(namespace)
	if !known {
		return Declaration{}
	}
	d := Declaration{Key: t.Annotation()}
	d.Value, d.Declared = annotations[d.Key]
	if d.Declared {
		d.Allowed, d.Problems = ParseAllowedHostnames(d.Value)
	}
	return d
}

// Malformed are the errors of a malformed declaration, at
// metadata.namespace, as validateDeclaredHostnames gives them.
func (d Declaration) Malformed(namespace string) []*field.Error {
	var errs []*field.Error
	nsPath := field.NewPath("metadata", "namespace")
	for _, p := range d.Problems {
		errs = append(errs, CodeDeclarationMalformed.Err(field.Invalid(nsPath, namespace, fmt.Sprintf(DetailDeclarationProblem, d.Key, namespace, p))))
	}
	return errs
}

// NotDeclared is the detail of a hostname h (nil: every name) the
// declaration of namespace does not cover; what says what claims every
// name when h is nil.
func (d Declaration) NotDeclared(namespace string, h *gwv1.Hostname) string {
	if h == nil {
		return fmt.Sprintf(DetailNoHostnameDeclared, namespace, AllHostnames, d.Key, quoteDeclaration(d.Value))
	}
	return fmt.Sprintf(DetailHostnameNotDeclared, *h, namespace, d.Key, quoteDeclaration(d.Value))
}

// NotDeclaredValue is the declaration as a denial quotes it.
func (d Declaration) NotDeclaredValue() string { return quoteDeclaration(d.Value) }

// ListenerClaims tells whether a listener claims its hostname on its
// Gateway (the first-claim rule's claims): it has one, and a protocol
// Airlock serves.
func ListenerClaims(l *gwv1.ListenerEntry) bool { return claims(l) }

// ClaimsOverlap tells whether two claimed hostnames overlap.
func ClaimsOverlap(a, b string) bool { return claimsOverlap(a, b) }

// ListenerClaimKeys hands read the keys of Cluster.ListenerSetsAt under
// which the sets with a listener claiming a hostname overlapping h on
// Gateway namespace/name are filed (overlapKeys).
func ListenerClaimKeys(namespace, name, h string, read func(string)) {
	overlapKeys(namespace, name, h, read)
}

// AdmitsSet tells whether gw (nil: missing, then every set counts, as
// validateFirstClaims judges by the Gateway's key) admits ListenerSets of
// namespace, reading c; an unknown answer admits.
type AdmitsSet func(namespace string) bool

// SetAdmission is gw's AdmitsSet.
func SetAdmission(gw *gwv1.Gateway, c views.Cluster) AdmitsSet {
	if gw == nil {
		return func(string) bool { return true }
	}
	a := NewGatewayAdmission(gw, c)
	return func(namespace string) bool {
		allowed, known, _ := a.Admits(namespace)
		return allowed || !known
	}
}

// HolderName names a claimant in a message: a ListenerSet's listener
// (object.ListenerName).
func HolderName(ls *gwv1.ListenerSet, listener gwv1.SectionName) string {
	return object.ListenerName(object.ListenerRef{Source: object.ListenerSource{Kind: object.SourceListenerSet, Namespace: ls.Namespace, Name: ls.Name}, Listener: listener})
}

// RouteStoredBefore is StoredBefore of a stored HTTPRoute: last written
// before gw existed, so none of its claims there was judged.
func RouteStoredBefore(old *gwv1.HTTPRoute, gw *gwv1.Gateway) bool {
	return gw != nil && lastWritten(&old.ObjectMeta).Before(gw.CreationTimestamp.Time)
}
