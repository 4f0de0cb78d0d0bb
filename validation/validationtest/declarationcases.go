package validationtest

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// Declaration is a Namespace of the declared-hostnames cases: its name and
// its declaration (validation.DefaultAllowedHostnamesAnnotation), none
// when Declared is false.
type Declaration struct {
	Namespace string
	Declared  bool
	Value     string
}

// Object is the Namespace as the cluster view and kube-apiserver hold it.
func (d Declaration) Object() *metav1.PartialObjectMetadata {
	ns := &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: d.Namespace},
	}
	if d.Declared {
		ns.Annotations = map[string]string{incluster.DefaultAllowedHostnamesAnnotation: d.Value}
	}
	return ns
}

// Cluster is the view of the Namespace alone: validation.Judge applies the
// declared-hostnames rule and no other cluster rule (their kinds are
// unknown).
func (d Declaration) Cluster() *incluster.Objects {
	return &incluster.Objects{Namespaces: []*metav1.PartialObjectMetadata{d.Object()}}
}

// hostnames is a declaration of n entries: exact names, the last a
// wildcard.
func hostnames(n int) string {
	return DeclarationOf(n, func(i int) string {
		if i == n-1 {
			return "*.b.example.com"
		}
		return fmt.Sprintf("host-%05d.example.com", i)
	})
}

// The Namespaces of DeclarationCases: none, valid declarations, and the bad
// inputs, each refused with its entry named.
var (
	NotDeclared     = Declaration{Namespace: "decl-none"}
	DeclaredNames   = Declaration{Namespace: "decl-names", Declared: true, Value: "shop.example.com,*.b.example.com"}
	DeclaredAll     = Declaration{Namespace: "decl-all", Declared: true, Value: "*"}
	DeclaredLong    = Declaration{Namespace: "decl-long", Declared: true, Value: hostnames(30)}
	DeclaredMost    = Declaration{Namespace: "decl-most", Declared: true, Value: hostnames(incluster.MaxAllowedHostnames)}
	BadDeclarations = []Declaration{
		{Namespace: "bad-empty", Declared: true, Value: ""},
		{Namespace: "bad-blank", Declared: true, Value: " "},
		{Namespace: "bad-blanks", Declared: true, Value: "shop.example.com, *.b.example.com"},
		{Namespace: "bad-empty-entry", Declared: true, Value: "shop.example.com,,*.b.example.com"},
		{Namespace: "bad-uppercase", Declared: true, Value: "Shop.example.com"},
		{Namespace: "bad-ip", Declared: true, Value: "10.0.0.1"},
		{Namespace: "bad-ipv6", Declared: true, Value: "[::1]"},
		{Namespace: "bad-port", Declared: true, Value: "shop.example.com:443"},
		{Namespace: "bad-star-inside", Declared: true, Value: "a.*.example.com"},
		{Namespace: "bad-star-label", Declared: true, Value: "*a.example.com"},
		{Namespace: "bad-star-last", Declared: true, Value: "example.*"},
		{Namespace: "bad-trailing-dot", Declared: true, Value: "shop.example.com."},
		{Namespace: "bad-long-entry", Declared: true, Value: "fe80::1%" + strings.Repeat("z", 300)},
		{Namespace: "bad-several", Declared: true, Value: "ok.example.com,Bad,\t,10.0.0.1,,x.example.com."},
		{Namespace: "bad-many-entries", Declared: true, Value: "ok.example.com" + strings.Repeat(",Bad", 12)},
		{Namespace: "bad-over-limit", Declared: true, Value: hostnames(incluster.MaxAllowedHostnames + 1)},
		{Namespace: "bad-ten-thousand", Declared: true, Value: hostnames(10000)},
	}
)

// Declarations are the Namespaces of DeclarationCases.
func Declarations() []Declaration {
	return append([]Declaration{NotDeclared, DeclaredNames, DeclaredAll, DeclaredLong, DeclaredMost}, BadDeclarations...)
}

// DeclarationCase is a create (Old nil) or an update of a ListenerSet in a
// Namespace of Declarations, and the code of the denial it gets ("" when
// admitted).
type DeclarationCase struct {
	Name        string
	Declaration Declaration
	New, Old    *gwv1.ListenerSet
	Code        findings.Code
}

// declaredSet is a ListenerSet in ns with HTTP listeners on their own ports,
// one per hostname ("" for none), named l00, l01, ...
func declaredSet(ns string, hosts ...string) *gwv1.ListenerSet {
	ls := worstBase("declared")
	ls.Namespace = ns
	for i, h := range hosts {
		l := gwv1.ListenerEntry{Name: gwv1.SectionName(fmt.Sprintf("l%02d", i)), Port: gwv1.PortNumber(8000 + i), Protocol: gwv1.HTTPProtocolType}
		if h != "" {
			l.Hostname = ptr.To(gwv1.Hostname(h))
		}
		ls.Spec.Listeners = append(ls.Spec.Listeners, l)
	}
	return ls
}

// plainSet is the usual 64-listener set (HTTPS on 443, one certificate
// each, the policy's match condition admits it in an undeclared namespace)
// in ns, its hostnames under *.b.example.com; the last one's is other
// when not "".
func plainSet(ns, other string) *gwv1.ListenerSet {
	ls := worstBase("plain")
	ls.Namespace = ns
	for i := range object.MaxListeners {
		l := httpsListener(i)
		l.Hostname = ptr.To(gwv1.Hostname(fmt.Sprintf("l%02d.b.example.com", i)))
		ls.Spec.Listeners = append(ls.Spec.Listeners, l)
	}
	if other != "" {
		ls.Spec.Listeners[len(ls.Spec.Listeners)-1].Hostname = ptr.To(gwv1.Hostname(other))
	}
	return ls
}

// DeclarationCases are the declared-hostnames rule's cases for every
// engine: hostnames a declaration covers and leaves out, listeners without
// one, no declaration, "*", a declaration the denial quotes cut, one of
// validation.MaxAllowedHostnames entries, each bad input, the usual set
// the policy's match condition admits without a declaration, and updates
// (a hostname left as stored is ratcheted, a changed or renamed one is
// not, nor one of a set moved from another Gateway, a malformed
// declaration denies an unchanged set).
func DeclarationCases() []DeclarationCase {
	const (
		covered   = "x.b.example.com"
		exact     = "shop.example.com"
		uncovered = "login.a.example.com"
	)
	notDeclared, malformed := incluster.CodeHostnameNotDeclared, incluster.CodeDeclarationMalformed
	create := func(name string, d Declaration, code findings.Code, hosts ...string) DeclarationCase {
		return DeclarationCase{Name: d.Namespace + ": " + name, Declaration: d, New: declaredSet(d.Namespace, hosts...), Code: code}
	}
	cases := []DeclarationCase{
		create("any hostname", NotDeclared, "", uncovered, ""),
		{Name: "decl-none: the usual set", Declaration: NotDeclared, New: plainSet(NotDeclared.Namespace, uncovered)},
		create("under a declared wildcard, and a declared name", DeclaredNames, "", covered, exact, "*.x.b.example.com"),
		create("a hostname left out", DeclaredNames, notDeclared, covered, uncovered),
		create("a wildcard above the declared one", DeclaredNames, notDeclared, "*.example.com"),
		create("the wildcard's own domain", DeclaredNames, notDeclared, "b.example.com"),
		create("no hostname", DeclaredNames, notDeclared, ""),
		{Name: "decl-names: the usual set", Declaration: DeclaredNames, New: plainSet(DeclaredNames.Namespace, "")},
		{Name: "decl-names: the usual set, one hostname left out", Declaration: DeclaredNames, New: plainSet(DeclaredNames.Namespace, uncovered), Code: notDeclared},
		create("any hostname and none", DeclaredAll, "", uncovered, ""),
		create("a declared name", DeclaredLong, "", "host-00007.example.com", covered),
		create("a hostname left out, the declaration quoted cut", DeclaredLong, notDeclared, uncovered),
		create("the last entry", DeclaredMost, "", covered),
		create("a hostname left out", DeclaredMost, notDeclared, uncovered, "host-00001.example.com"),
	}
	for _, d := range BadDeclarations {
		cases = append(cases, create("a covered hostname", d, malformed, exact))
	}
	update := func(name string, d Declaration, code findings.Code, old, new *gwv1.ListenerSet) DeclarationCase {
		return DeclarationCase{Name: d.Namespace + ": update, " + name, Declaration: d, New: new, Old: old, Code: code}
	}
	renamed := declaredSet(DeclaredNames.Namespace, uncovered)
	renamed.Spec.Listeners[0].Name = "renamed"
	// parentRef moves: an update that names another Gateway is judged as
	// a create (attaching is claiming), one that names the same Gateway
	// otherwise spelled ratchets as before
	on := func(ls *gwv1.ListenerSet, namespace, name string) *gwv1.ListenerSet {
		ls.Spec.ParentRef.Name = gwv1.ObjectName(name)
		if namespace != "" {
			ls.Spec.ParentRef.Namespace = ptr.To(gwv1.Namespace(namespace))
		}
		return ls
	}
	cases = append(cases,
		update("moved to another Gateway, a hostname left out as stored: a create there", DeclaredNames, notDeclared,
			on(declaredSet(DeclaredNames.Namespace, uncovered), "", "decoy"), declaredSet(DeclaredNames.Namespace, uncovered, covered)),
		update("moved from another namespace's Gateway, a hostname left out as stored", DeclaredNames, notDeclared,
			on(declaredSet(DeclaredNames.Namespace, uncovered), "infra", "gw"), declaredSet(DeclaredNames.Namespace, uncovered)),
		update("moved to another namespace's Gateway, a hostname left out as stored", DeclaredNames, notDeclared,
			declaredSet(DeclaredNames.Namespace, uncovered), on(declaredSet(DeclaredNames.Namespace, uncovered), "infra", "gw")),
		update("the same Gateway, its namespace spelled out: ratcheted as stored", DeclaredNames, "",
			declaredSet(DeclaredNames.Namespace, uncovered), on(declaredSet(DeclaredNames.Namespace, uncovered), DeclaredNames.Namespace, "gw")),
		update("moved from a parentRef of another kind, a hostname left out as stored", DeclaredNames, notDeclared,
			func() *gwv1.ListenerSet {
				ls := declaredSet(DeclaredNames.Namespace, uncovered)
				ls.Spec.ParentRef.Kind = ptr.To(gwv1.Kind("Other"))
				return ls
			}(), declaredSet(DeclaredNames.Namespace, uncovered)),
	)
	return append(cases,
		update("a hostname left out as stored, a covered one added", DeclaredNames, "",
			declaredSet(DeclaredNames.Namespace, uncovered), declaredSet(DeclaredNames.Namespace, uncovered, covered)),
		update("no hostname as stored, a covered one added", DeclaredNames, "",
			declaredSet(DeclaredNames.Namespace, ""), declaredSet(DeclaredNames.Namespace, "", covered)),
		update("a hostname left out changed to another", DeclaredNames, notDeclared,
			declaredSet(DeclaredNames.Namespace, uncovered), declaredSet(DeclaredNames.Namespace, "other.a.example.com")),
		update("a listener left out renamed", DeclaredNames, notDeclared,
			declaredSet(DeclaredNames.Namespace, uncovered), renamed),
		update("a covered hostname changed to one left out", DeclaredNames, notDeclared,
			declaredSet(DeclaredNames.Namespace, covered), declaredSet(DeclaredNames.Namespace, uncovered)),
		update("the usual set, its last hostname as stored", DeclaredNames, "",
			plainSet(DeclaredNames.Namespace, uncovered), plainSet(DeclaredNames.Namespace, uncovered)),
		update("unchanged under a malformed declaration", BadDeclarations[0], malformed,
			declaredSet(BadDeclarations[0].Namespace, exact), declaredSet(BadDeclarations[0].Namespace, exact)),
	)
}
