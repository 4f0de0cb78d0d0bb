package validationtest

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
)

// A shared Gateway of many owners, as a platform delegates one: Owners
// namespaces, each declaring its own domain (OwnerDeclaration), each
// ListenerSet's hostname under its owner's domain, and one wildcard set per
// owner. The benchmarks and the load tool's owners shape build it from
// these functions, so that the in-process figure and the one through
// kube-apiserver judge the same cluster.

// Owners is how many owners (namespaces) the sets are spread over.
const Owners = 1000

// Ports of an owner's wildcard set: not the others' 80 and 443, so that
// it overlaps no set's TLS listener on the same port (an
// OverlappingTLSConfig warning), while the first-claim rule, which looks at
// every port, still reads it for every hostname under it.
const (
	OwnerWildcardHTTPPort  gwv1.PortNumber = 8080
	OwnerWildcardHTTPSPort gwv1.PortNumber = 8443
)

// OwnerNamespace is owner o's namespace.
func OwnerNamespace(o int) string { return fmt.Sprintf("owner-%03d", o) }

// OwnerDomain is owner o's domain: every hostname its sets claim is it or
// under it.
func OwnerDomain(o int) string { return fmt.Sprintf("owner-%03d.example.com", o) }

// OwnerDeclaration is the hostname declaration on owner o's Namespace
// (validation.DefaultAllowedHostnamesAnnotation): its domain and everything
// under it.
func OwnerDeclaration(o int) string { return OwnerDomain(o) + ",*." + OwnerDomain(o) }

// OwnedSetOf is where owned set i is: its owner and hostname, and whether
// it is its owner's wildcard set. Set i belongs to owner i mod Owners, so
// that n sets are spread over min(n, Owners) owners; the second set of
// each owner (i / Owners == 1) holds the owner's wildcard, the others an
// exact name under the owner's domain.
func OwnedSetOf(i int) (owner int, hostname string, wildcard bool) {
	owner = i % Owners
	if i/Owners == 1 {
		return owner, "*." + OwnerDomain(owner), true
	}
	return owner, fmt.Sprintf("ls-%05d.%s", i, OwnerDomain(owner)), false
}

// OwnedSets are n ListenerSets of the shared Gateway (OwnedSetOf), created
// one a second: HTTP on 80 and HTTPS on 443, or on OwnerWildcardHTTPPort
// and OwnerWildcardHTTPSPort for a wildcard set. None conflicts with
// another, none claims a hostname of another owner, and each is covered
// by its owner's declaration.
func OwnedSets(n int) []*gwv1.ListenerSet {
	sets := make([]*gwv1.ListenerSet, n)
	for i := range sets {
		o, h, wildcard := OwnedSetOf(i)
		httpPort, httpsPort := gwv1.PortNumber(80), gwv1.PortNumber(443)
		if wildcard {
			httpPort, httpsPort = OwnerWildcardHTTPPort, OwnerWildcardHTTPSPort
		}
		sets[i] = TenantSet(OwnerNamespace(o), fmt.Sprintf("ls-%05d", i), created(i),
			Listener("http", httpPort, gwv1.HTTPProtocolType, h), Listener("https", httpsPort, gwv1.HTTPSProtocolType, h))
	}
	return sets
}

// OwnerNamespaces are the Owners namespaces with their declarations.
func OwnerNamespaces() []*metav1.PartialObjectMetadata {
	out := make([]*metav1.PartialObjectMetadata, Owners)
	for o := range out {
		out[o] = &metav1.PartialObjectMetadata{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: OwnerNamespace(o),
				Annotations: map[string]string{incluster.DefaultAllowedHostnamesAnnotation: OwnerDeclaration(o)}},
		}
	}
	return out
}

// OwnedCluster is the shared Gateway with n owned sets and the owners'
// declaring namespaces.
func OwnedCluster(n int) *incluster.Objects {
	c := SharedCluster(OwnedSets(n))
	c.Namespaces = OwnerNamespaces()
	return c
}

// NewOwnedSet is a ListenerSet being created on the shared Gateway by
// owner 1: HTTP on 80 and HTTPS on 443 on name under the owner's domain,
// which its declaration covers and which is under the owner's own wildcard
// (with more than Owners sets): its claim is read and is the owner's own.
// No rule finds anything wrong with it.
func NewOwnedSet(name string) *gwv1.ListenerSet {
	h := name + "." + OwnerDomain(1)
	return TenantSet(OwnerNamespace(1), name, time.Time{},
		Listener("http", 80, gwv1.HTTPProtocolType, h), Listener("https", 443, gwv1.HTTPSProtocolType, h))
}
