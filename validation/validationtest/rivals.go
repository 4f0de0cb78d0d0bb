package validationtest

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
)

// The shared Gateway of the cluster-scale shapes: gateway-infra/shared,
// one listener of its own (HTTP on 80), admitting ListenerSets from every namespace.
const (
	SharedGatewayNamespace = "gateway-infra"
	SharedGatewayName      = "shared"
	// MaxListeners is the CRD's maximum of listeners in a ListenerSet.
	MaxListeners = 64
)

// SharedGateway is the Gateway the tenants' ListenerSets share.
func SharedGateway() *gwv1.Gateway {
	return &gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: SharedGatewayNamespace, Name: SharedGatewayName},
		Spec: gwv1.GatewaySpec{
			GatewayClassName: "airlock",
			Listeners: []gwv1.Listener{{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType,
				Hostname: ptr.To[gwv1.Hostname]("gateway.example.com")}},
			AllowedListeners: &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr.To(gwv1.NamespacesFromAll)}},
		},
	}
}

// TenantSet is a ListenerSet of the shared Gateway in namespace ns, created
// at created (zero: not created yet), with the given listeners, each HTTPS
// with a certificateRef to the Secret cert of its namespace, unless HTTP.
func TenantSet(ns, name string, created time.Time, listeners ...gwv1.ListenerEntry) *gwv1.ListenerSet {
	for i := range listeners {
		if listeners[i].Protocol == gwv1.HTTPSProtocolType && listeners[i].TLS == nil {
			listeners[i].TLS = &gwv1.ListenerTLSConfig{CertificateRefs: []gwv1.SecretObjectReference{{Name: "cert"}}}
		}
	}
	ls := &gwv1.ListenerSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: gwv1.GroupVersion.String(), Kind: "ListenerSet"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: gwv1.ListenerSetSpec{
			ParentRef: gwv1.ParentGatewayReference{Name: SharedGatewayName, Namespace: ptr.To[gwv1.Namespace](SharedGatewayNamespace)},
			Listeners: listeners,
		},
	}
	if !created.IsZero() {
		ls.CreationTimestamp = metav1.NewTime(created)
	}
	return ls
}

// Listener is a listener entry named name.
func Listener(name string, port gwv1.PortNumber, protocol gwv1.ProtocolType, hostname string) gwv1.ListenerEntry {
	return gwv1.ListenerEntry{Name: gwv1.SectionName(name), Port: port, Protocol: protocol, Hostname: ptr.To(gwv1.Hostname(hostname))}
}

// created is the creation time of tenant i: one a second from a fixed start.
func created(i int) time.Time {
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
}

// TenantHostname is tenant i's hostname.
func TenantHostname(i int) string { return fmt.Sprintf("tenant-%05d.example.com", i) }

// Tenants is how tenants share a Gateway: n ListenerSets of the shared
// Gateway in 100 namespaces, each with HTTPS on 443 on its own hostname,
// created one a second; none conflicts with another.
func Tenants(n int) []*gwv1.ListenerSet {
	sets := make([]*gwv1.ListenerSet, n)
	for i := range sets {
		sets[i] = TenantSet(fmt.Sprintf("tenant-%02d", i%100), fmt.Sprintf("ls-%05d", i), created(i),
			Listener("https", 443, gwv1.HTTPSProtocolType, TenantHostname(i)))
	}
	return sets
}

// NewTenant is a ListenerSet being created on the shared Gateway (no
// creation time), HTTP on 80 and HTTPS on 443 on a hostname no tenant has:
// the create whose cost must not grow with Tenants.
func NewTenant() *gwv1.ListenerSet {
	return TenantSet("tenant-new", "new", time.Time{},
		Listener("http", 80, gwv1.HTTPProtocolType, "new.example.com"),
		Listener("https", 443, gwv1.HTTPSProtocolType, "new.example.com"))
}

// MostRivalsShape is a way for every listener of a ListenerSet to conflict
// with many rivals.
type MostRivalsShape string

const (
	// RivalsHostname: 64 HTTPS listeners on 443, each on a hostname that
	// n/64 rivals (of Tenants' shape) hold: 64 HostnameConflicts, each
	// naming the oldest of its n/64 rivals.
	RivalsHostname MostRivalsShape = "hostname"
	// RivalsProtocol: 64 HTTP listeners on 443, where n HTTPS rivals are:
	// 64 ProtocolConflicts naming the oldest rival on the port, which is
	// found among all n.
	RivalsProtocol MostRivalsShape = "protocol"
	// RivalsEveryPort: rivals with 64 HTTPS listeners each, on 64 ports,
	// and 64 HTTP listeners on those ports: on every port, the oldest of n
	// rivals wins a ProtocolConflict.
	RivalsEveryPort MostRivalsShape = "every-port"
)

// MostRivalsShapes are every MostRivalsShape.
var MostRivalsShapes = []MostRivalsShape{RivalsHostname, RivalsProtocol, RivalsEveryPort}

// MostRivals is the "most cluster rivals" worst object: a
// ListenerSet with the CRD's maximum of 64 listeners, each conflicting with
// many of the n stored rivals returned with it, in the given shape. A
// conflict is reported once per listener, naming the rival that wins by
// precedence, so its verdict has 64 conflicts, whatever n.
func MostRivals(shape MostRivalsShape, n int) (ls *gwv1.ListenerSet, rivals []*gwv1.ListenerSet) {
	listeners := make([]gwv1.ListenerEntry, MaxListeners)
	for i := range listeners {
		name := fmt.Sprintf("l-%02d", i)
		switch shape {
		case RivalsHostname:
			listeners[i] = Listener(name, 443, gwv1.HTTPSProtocolType, TenantHostname(i))
		case RivalsProtocol:
			listeners[i] = Listener(name, 443, gwv1.HTTPProtocolType, fmt.Sprintf("worst-%02d.example.com", i))
		case RivalsEveryPort:
			listeners[i] = Listener(name, gwv1.PortNumber(10000+i), gwv1.HTTPProtocolType, fmt.Sprintf("worst-%02d.example.com", i))
		default:
			panic("unknown shape " + shape)
		}
	}
	rivals = make([]*gwv1.ListenerSet, n)
	for i := range rivals {
		ns, name := fmt.Sprintf("tenant-%02d", i%100), fmt.Sprintf("ls-%05d", i)
		switch shape {
		case RivalsHostname:
			rivals[i] = TenantSet(ns, name, created(i), Listener("https", 443, gwv1.HTTPSProtocolType, TenantHostname(i%MaxListeners)))
		case RivalsProtocol:
			rivals[i] = TenantSet(ns, name, created(i), Listener("https", 443, gwv1.HTTPSProtocolType, TenantHostname(i)))
		case RivalsEveryPort:
			own := make([]gwv1.ListenerEntry, MaxListeners)
			for p := range own {
				own[p] = Listener(fmt.Sprintf("l-%02d", p), gwv1.PortNumber(10000+p), gwv1.HTTPSProtocolType, TenantHostname(i))
			}
			rivals[i] = TenantSet(ns, name, created(i), own...)
		}
	}
	return TenantSet("tenant-worst", "most-rivals", time.Time{}, listeners...), rivals
}

// SharedCluster is the shared Gateway with sets as the only ListenerSets:
// the cluster view the benchmarks judge against.
func SharedCluster(sets []*gwv1.ListenerSet) *incluster.Objects {
	return &incluster.Objects{Gateways: []*gwv1.Gateway{SharedGateway()}, Sets: sets}
}
