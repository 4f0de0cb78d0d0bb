package object

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
)

// Gateway API's OverlappingTLSConfig, reason OverlappingHostnames (the
// ListenerSet reference's listener status): "Controllers MUST detect the
// presence of overlapping hostnames ... This condition MUST be set on all
// Listeners with overlapping TLS config", on the same port: with HTTP/2
// connection coalescing, a request can reuse a connection whose TLS
// configuration is another listener's, and reach its routes. It never
// stops a listener from being served, so it is a warning only, never an
// error (not even under strict).
//
// Two hostnames overlap when some name matches both: an exact name and a
// wildcard above it (foo.example.com and *.example.com), two nested
// wildcards (*.foo.example.com and *.example.com), and an absent hostname,
// which matches every name, with any other. A wildcard matches names of one
// or more labels more ("*.example.com" matches bar.example.com and
// foo.bar.example.com, not example.com), as Gateway API's Listener hostname
// says. Equal hostnames on one port are a HostnameConflict instead.

// Condition and reason names, as Gateway API's listener conditions have them.
const (
	ConditionOverlappingTLSConfig = string(gwv1.ListenerConditionOverlappingTLSConfig)
	ReasonOverlappingHostnames    = string(gwv1.ListenerReasonOverlappingHostnames)
)

// Kinds of the overlap warnings: between listeners of one set (the object's
// own rule), and between a set's listener and another object's in the
// Gateway's merged list (cluster-aware).
const (
	KindOverlappingHostnames       findings.WarningKind = "OverlappingHostnames"
	KindMergedOverlappingHostnames findings.WarningKind = "MergedOverlappingHostnames"
)

// WarnOverlappingHostnames is both warnings' text: the listener's hostname,
// the other listener, its hostname, and the port.
const WarnOverlappingHostnames = "hostname %s overlaps hostname %s of %s on port %d: both get " +
	ConditionOverlappingTLSConfig + " (" + ReasonOverlappingHostnames + "); HTTP/2 connection coalescing may reach the other's routes"

// TerminatesTLS tells whether a listener of protocol p has TLS
// configuration that may overlap another's: HTTPS and HTTP/3. (TLS
// passthrough is not served: such a listener holds no port.)
func TerminatesTLS(p gwv1.ProtocolType) bool { return p == ProtocolHTTPS || p == ProtocolHTTP3 }

// CoveringHostnames are the hostnames, as endpoint.hostname writes them
// ("" for none), that match every name h matches, other than h: the
// wildcards of h's parent domains, then no hostname. There are as many as
// h has labels; a wildcard and the names under it are found from the
// names' side, so overlaps are found in linear time.
func CoveringHostnames(h string) []string {
	if h == "" {
		return nil
	}
	var covering []string
	rest := strings.TrimPrefix(h, WildcardPrefix)
	for {
		i := strings.IndexByte(rest, '.')
		if i < 0 {
			break
		}
		rest = rest[i+1:]
		covering = append(covering, WildcardPrefix+rest)
	}
	return append(covering, "")
}

// Covers tells whether hostname w ("" for none) matches every name h
// matches and w is not h: w is absent, or a wildcard above h.
func Covers(w, h string) bool {
	if w == h {
		return false
	}
	return w == "" || (strings.HasPrefix(w, WildcardPrefix) && strings.HasSuffix(h, w[1:]))
}

// hostnamesOverlap tells whether some name matches both hostnames (nil: no
// hostname, every name).
func hostnamesOverlap(a, b *gwv1.Hostname) bool {
	ha, hb := EndpointOf(0, "", a).Hostname, EndpointOf(0, "", b).Hostname
	return ha != hb && (Covers(string(ha), string(hb)) || Covers(string(hb), string(ha)))
}

// FirstOverlaps returns, for each of n listeners in precedence order, the
// index of the first other one whose hostname overlaps its own on the same
// port and protocol, among those keep allows (-1 for none). at says what a
// listener is, and ok=false for one that does not count: one that does not
// hold its place, or does not terminate TLS. Each listener's covering
// hostnames are looked up among the others by endpoint, so the cost is the
// listeners times their labels, not their pairs.
func FirstOverlaps(n int, at func(i int) (e Endpoint, ok bool), keep func(i, j int) bool) []int {
	first := make([]int, n)
	byEndpoint := make(map[Endpoint]int, n)
	for i := range n {
		first[i] = -1
		if e, ok := at(i); ok {
			if _, dup := byEndpoint[e]; !dup {
				byEndpoint[e] = i
			}
		}
	}
	better := func(i, j int) {
		if keep(i, j) && (first[i] < 0 || j < first[i]) {
			first[i] = j
		}
	}
	for i := range n {
		e, ok := at(i)
		if !ok {
			continue
		}
		for _, h := range CoveringHostnames(string(e.Hostname)) {
			if j, found := byEndpoint[Endpoint{port: e.port, Protocol: e.Protocol, Hostname: gwv1.Hostname(h)}]; found {
				better(i, j)
				better(j, i)
			}
		}
	}
	return first
}

// WarnOverlap gives listener i of a set the overlap warning of kind k.
func WarnOverlap(w *findings.WarningReport, k findings.WarningKind, i int, l *gwv1.ListenerEntry, other ListenerRef, otherHostname *gwv1.Hostname) {
	warn(w, field.NewPath("spec", "listeners").Index(i).Child("hostname"), k, WarnOverlappingHostnames,
		hostnameText(l.Hostname), hostnameText(otherHostname), Place{Ref: other}, l.Port)
}

// OverlapMessage is the warnings' text for a listener with hostname on
// port whose hostname overlaps otherHostname of the listener other names
// ("namespace/name listener name"): the condition's message in the
// listeners command.
func OverlapMessage(hostname *gwv1.Hostname, other string, otherHostname *gwv1.Hostname, port gwv1.PortNumber) string {
	return fmt.Sprintf(WarnOverlappingHostnames, hostnameText(hostname), hostnameText(otherHostname), other, port)
}

// hostnameText names a hostname in a message: quoted, or "(none)" when the
// listener matches every hostname.
func hostnameText(h *gwv1.Hostname) string {
	if h == nil {
		return "(none)"
	}
	return fmt.Sprintf("%q", string(*h))
}

// validateOverlaps gives the listeners of one set that hold their place in
// it (held) and terminate TLS the set's own overlap warning, naming the
// first other listener of the set whose hostname overlaps.
func validateOverlaps(owner ListenerSource, listeners []gwv1.ListenerEntry, held []bool, v *judging) {
	at := func(i int) (Endpoint, bool) {
		l := &listeners[i]
		return EndpointOf(l.Port, l.Protocol, l.Hostname), held[i] && TerminatesTLS(l.Protocol)
	}
	for i, j := range FirstOverlaps(len(listeners), at, func(i, j int) bool { return true }) {
		if j >= 0 {
			WarnOverlap(&v.Warnings, KindOverlappingHostnames, i, &listeners[i], ListenerRef{Source: owner, Listener: listeners[j].Name}, listeners[j].Hostname)
		}
	}
}
