package validationtest

import (
	"fmt"
	"strings"
	"time"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
)

// The worst hostname declarations: a Namespace's
// validation.DefaultAllowedHostnamesAnnotation as long, as many-entried or
// as hostile as Kubernetes stores one (all annotations of an object
// together hold at most MaxAnnotationBytes), against the costliest
// ListenerSet to judge with it: 64 listeners whose hostnames have the most
// labels a hostname can have (the declaration and the first claim read
// each of its covering wildcards), none of them declared. Each is judged
// with the cluster checks against the shared Gateway.

// MaxAnnotationBytes is how much Kubernetes lets an object's annotations
// hold, keys and values together.
const MaxAnnotationBytes = apivalidation.TotalAnnotationSizeLimitB

// DeclaredShape is a worst declaration and the set judged against it.
type DeclaredShape struct {
	Name string
	// Declaration is the annotation's value on the set's Namespace.
	Declaration string
	// Set is the ListenerSet being created.
	Set func() *gwv1.ListenerSet
}

// DeclaredNamespace is the namespace of the DeclaredShapes' sets.
const DeclaredNamespace = "worst-declared"

// DeclaredShapes are the worst declarations, one per shape:
//   - sixty-four-undeclared: 64 entries, none covering any of the set's 64
//     hostnames: 64 errors, each quoting the declaration;
//   - over-the-limit: validation.MaxAllowedHostnames entries and more
//     (10 000): refused whole, naming the limit;
//   - longest-entries: validation.MaxAllowedHostnames entries of 253
//     characters, the longest hostname, each valid and covering nothing: the
//     most a declaration judged entry by entry holds, and 64 errors;
//   - hostile-entries: validation.MaxAllowedHostnames entries as long as the
//     annotation allows, of HostileRunes: every entry malformed, each
//     error naming it escaped.
var DeclaredShapes = []DeclaredShape{
	{Name: "sixty-four-undeclared", Declaration: DeclarationOf(MaxListeners, func(i int) string { return fmt.Sprintf("*.d%02d.example.org", i) }),
		Set: DeepestHostnames},
	{Name: "over-the-limit", Declaration: DeclarationOf(10000, func(i int) string { return fmt.Sprintf("e%05d.example.org", i) }),
		Set: DeepestHostnames},
	{Name: "longest-entries", Declaration: DeclarationOf(incluster.MaxAllowedHostnames, longestEntry), Set: DeepestHostnames},
	{Name: "hostile-entries", Declaration: hostileDeclaration(), Set: DeepestHostnames},
}

// DeclarationOf is a declaration of n entries, entry(i) each.
func DeclarationOf(n int, entry func(i int) string) string {
	entries := make([]string, n)
	for i := range entries {
		entries[i] = entry(i)
	}
	return strings.Join(entries, ",")
}

// deepHostname is a hostname of exactly 253 characters with the most
// labels: first (with one letter more, to make the length), then
// one-letter labels, then example.com (or example.org).
func deepHostname(first, tld string) string {
	tail := "example." + tld
	fill := 253 - len(first) - 1 - len(tail)
	if fill%2 == 1 {
		first += "b"
		fill--
	}
	return first + "." + strings.Repeat("a.", fill/2) + tail
}

// longestEntry is entry i of longest-entries: a 253-character hostname
// under example.org, which none of DeepestHostnames' is.
func longestEntry(i int) string { return deepHostname(fmt.Sprintf("e%03d", i), "org") }

// hostileDeclaration is validation.MaxAllowedHostnames entries of
// HostileRunes (none of them a comma), each as long as the annotation's
// budget allows.
func hostileDeclaration() string {
	per := (MaxAnnotationBytes - len(incluster.DefaultAllowedHostnamesAnnotation) - incluster.MaxAllowedHostnames) / incluster.MaxAllowedHostnames
	runes := strings.Join(HostileRunes, "")
	entries := make([]string, incluster.MaxAllowedHostnames)
	for i := range entries {
		e := strings.Repeat(runes, per/len(runes)+1)
		entries[i] = strings.ToValidUTF8(e[:per], "")
	}
	return strings.Join(entries, ",")
}

// DeepestHostnames is the set of the DeclaredShapes: 64 HTTPS listeners on
// 443 of the shared Gateway, each on a 253-character hostname of 125
// labels under example.com, created now in DeclaredNamespace.
func DeepestHostnames() *gwv1.ListenerSet {
	listeners := make([]gwv1.ListenerEntry, MaxListeners)
	for i := range listeners {
		listeners[i] = Listener(fmt.Sprintf("l-%02d", i), 443, gwv1.HTTPSProtocolType, deepHostname(fmt.Sprintf("l%02d", i), "com"))
	}
	return TenantSet(DeclaredNamespace, "deepest-hostnames", time.Time{}, listeners...)
}

// DeclaredCluster is the shared Gateway with DeclaredNamespace declaring
// s's declaration, and no other ListenerSet.
func DeclaredCluster(s DeclaredShape) *incluster.Objects {
	c := SharedCluster([]*gwv1.ListenerSet{})
	c.Namespaces = []*metav1.PartialObjectMetadata{{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: DeclaredNamespace,
			Annotations: map[string]string{incluster.DefaultAllowedHostnamesAnnotation: s.Declaration}},
	}}
	return c
}
