package object

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/verdict"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// Details of the listener rules' errors, shared with the policy package's CEL.
const (
	// DetailNoListeners: a set without listeners.
	DetailNoListeners = "at least one listener is required"
	// DetailEmptyHostname: a hostname set to "" (absent matches every one).
	DetailEmptyHostname = "must not be empty; omit the field to match every hostname"
	// DetailHostnameIP: a hostname that is an IP address.
	DetailHostnameIP = "must be a DNS name, not an IP address"
	// DetailHostnamePort: a hostname with a port.
	DetailHostnamePort = "must not include a port"
	// DetailAfterWildcard begins the subdomain message of a wildcard
	// hostname's name after WildcardPrefix.
	DetailAfterWildcard = "after the leading '" + WildcardPrefix + "': "
)

// listenerRules define the rules of this file (Rule).
var listenerRules = []Rule{
	{Number: 1, Field: "`spec.listeners`", Summary: fmt.Sprintf("1 to %d entries", MaxListeners), Errors: "Required / Too many",
		Codes:   []findings.Code{CodeNoListeners, CodeTooManyListeners},
		Valid:   Example{At: "spec.listeners", Value: "[{name: web, port: 80, protocol: HTTP}]"},
		Invalid: Example{At: "spec.listeners", Value: "[]"}},
	{Number: 1, Field: "`spec.listeners[i].name`", Summary: "required, lowercase DNS subdomain (≤ 253), unique in the set (reported on the later entry)",
		Errors: "Required / Invalid / Duplicate", Codes: []findings.Code{CodeListenerName, CodeDuplicateListenerName},
		Valid:   Example{At: "spec.listeners[1].name", Value: "websecure.v2"},
		Invalid: Example{At: "spec.listeners[1].name", Value: "web"}},
	{Number: 2, Field: "`spec.listeners[i].port`", Summary: "1..65535", Errors: "Invalid", Codes: []findings.Code{CodePort},
		Valid:   Example{At: "spec.listeners[0].port", Value: "8080"},
		Invalid: Example{At: "spec.listeners[0].port", Value: "0"}},
	{Number: 3, Field: "`spec.listeners[i].protocol`", Summary: "exactly " + orList(SupportedProtocols), Errors: "Unsupported value",
		Codes:   []findings.Code{CodeProtocol},
		Valid:   Example{At: "spec.listeners[1].protocol", Value: string(ProtocolHTTP3)},
		Invalid: Example{At: "spec.listeners[0].protocol", Value: "TCP"}},
	{Number: 7, Field: "`spec.listeners[i].hostname`", Summary: "lowercase RFC 1123 name, optional single leading `*.`, ≤ 253, not an IP address, no port",
		Errors: "Invalid", Codes: []findings.Code{CodeHostname},
		Valid:   Example{At: "spec.listeners[1].hostname", Value: "'*.shop.example.com'"},
		Invalid: Example{At: "spec.listeners[1].hostname", Value: "192.0.2.1"}},
	{Number: 8, Field: "`spec.listeners[i].hostname` / `.protocol`",
		Summary: "within the set: no two listeners with the same port, protocol and hostname; no two protocols on one port (reported on the later listener)",
		Errors:  "Invalid", Codes: []findings.Code{CodeProtocolConflict, CodeHostnameConflict},
		Valid:   Example{At: "spec.listeners[1].port", Value: "8443"},
		Invalid: Example{At: "spec.listeners[1].port", Value: "80"}},
}

// ListenerValueRules are the rules on one string field of a listener that
// its value alone decides (ListenerValueRule): a new rule of that shape is
// an entry here, its CEL in the policy (policy/valuerules.go), a test row
// and a line of CHANGELOG.md.
var ListenerValueRules = []ListenerValueRule{}

// WildcardPrefix is the one leading label a hostname may have in place of a
// name: it matches every name of one more label.
const WildcardPrefix = "*."

// validateListeners applies the listener rules, each listener's own and the
// rules between listeners of the set. Each error is judged unchanged (see
// Validate) by the values it involves, each listener paired with its stored
// one by name.
func validateListeners(ls *gwv1.ListenerSet, c views.Cluster, fldPath *field.Path, v *judging) {
	listeners := ls.Spec.Listeners
	switch {
	case len(listeners) == 0:
		v.Judge(v.Ratchet.ListenerList(), CodeNoListeners.Err(field.Required(fldPath, DetailNoListeners)))
	case len(listeners) > MaxListeners:
		v.Judge(v.Ratchet.ListenerList(), CodeTooManyListeners.Err(field.TooMany(fldPath, len(listeners), MaxListeners)))
		// The object is rejected anyway; judging only the first
		// MaxListeners keeps an 8 MiB request of 200 000 listeners from
		// costing what a real set never does.
		listeners = listeners[:MaxListeners]
	}
	// An object created with generateName may not have its name yet.
	owner := ListenerSource{Kind: SourceListenerSet, Namespace: ls.Namespace, Name: cmp.Or(ls.Name, ls.GenerateName)}
	names := make(map[gwv1.SectionName]int, len(listeners))
	var merged Merge
	// held: the listeners that hold their place in the set, whose
	// hostnames may overlap (validateOverlaps)
	held := make([]bool, len(listeners))
	breaks := setRuleBreaks(listeners)
	for i := range listeners {
		l, lPath := &listeners[i], fldPath.Index(i)
		validateListener(i, l, ls.Namespace, c, lPath, v)
		// Routes address a listener by name (sectionName): the later of
		// two listeners sharing one is the duplicate. Both names are as
		// stored when both listeners are paired (names are the key).
		if first, dup := names[l.Name]; dup && l.Name != "" {
			v.Judge(v.Ratchet.Same(i) && v.Ratchet.Same(first), CodeDuplicateListenerName.Err(field.Duplicate(lPath.Child("name"), string(l.Name))))
		} else {
			names[l.Name] = i
		}
		checkSetRules(breaks, i, l, lPath, v)
		// A listener of a protocol Airlock does not serve (its own
		// error) holds no port: the others are judged without it.
		if !ServedProtocol(l.Protocol) {
			continue
		}
		if err, reason, winner := merged.Conflict(l.Port, l.Protocol, l.Hostname, lPath, inSetConflicts); err != nil {
			involved := ConflictValues(reason)
			v.Judge(v.Ratchet.Same(i, involved...) && v.Ratchet.Same(winner.Index, involved...), err)
		} else {
			held[i] = true
		}
		merged.Take(l.Port, l.Protocol, l.Hostname, Place{Ref: ListenerRef{Source: owner, Listener: l.Name}, Index: i})
	}
	validateOverlaps(owner, listeners, held, v)
}

// ConflictValues are the values of each listener a conflict of reason
// involves: a ProtocolConflict the port and protocol, a HostnameConflict
// the hostname too. Other fields of the two listeners may change.
func ConflictValues(reason string) []verdict.Value {
	if reason == ReasonProtocolConflict {
		return []verdict.Value{portValue, protocolValue}
	}
	return []verdict.Value{portValue, protocolValue, HostnameValue}
}

// validateListener applies listener i's own rules, each error judged by the
// values it involves: by default the value at its own path. The name is
// the key listeners are paired by, so its errors ratchet whenever the
// listener is paired.
func validateListener(i int, l *gwv1.ListenerEntry, namespace string, c views.Cluster, fldPath *field.Path, v *judging) {
	// Routes pick a listener by name (sectionName); the CRD gives it the DNS
	// subdomain pattern.
	v.Check(i, CodeListenerName.Errs(validateDNSSubdomain(l.Name, fldPath.Child("name"))))
	v.Check(i, validatePort(l.Port, fldPath.Child("port")), portValue)
	v.Check(i, ValidateProtocol(l.Protocol, fldPath.Child("protocol")), protocolValue)
	if l.Hostname != nil {
		hostErrs := CodeHostname.Errs(ValidateHostname(*l.Hostname, fldPath.Child("hostname")))
		if len(hostErrs) == 0 {
			warnLongHostnameLabel(*l.Hostname, fldPath.Child("hostname"), &v.Warnings)
		}
		v.Check(i, hostErrs, HostnameValue)
	}
	validateValueRules(i, l, fldPath, v)
	warnRouteCapture(l, namespace, fldPath, &v.Warnings)
	validateListenerTLS(i, l, namespace, c, fldPath.Child("tls"), v)
	if l.AllowedRoutes != nil {
		validateAllowedRoutes(i, l.AllowedRoutes, fldPath.Child("allowedRoutes"), v)
	}
}

// warnLongHostnameLabel warns about the first label of a valid hostname
// longer than 63 characters: the CRD's pattern and apimachinery's subdomain
// check limit only the whole name (253), but DNS limits each label to 63, so
// such a name can never be a client's SNI or Host and the listener never
// matches a request.
func warnLongHostnameLabel(h gwv1.Hostname, fldPath *field.Path, w *findings.WarningReport) {
	for label := range strings.SplitSeq(strings.TrimPrefix(string(h), WildcardPrefix), ".") {
		if len(label) > validation.DNS1123LabelMaxLength {
			warn(w, fldPath, KindHostnameLabelTooLong, warnHostnameLabelTooLong, shorten(label), len(label))
			return
		}
	}
}

// shorten keeps a long label's message short: its first 20 characters.
func shorten(label string) string {
	const keep = 20
	if len(label) <= keep {
		return label
	}
	return label[:keep] + "..."
}

func validatePort(port gwv1.PortNumber, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsValidPortNum(int(port)) {
		errs = append(errs, CodePort.Err(field.Invalid(fldPath, port, msg)))
	}
	return errs
}

func ValidateProtocol(p gwv1.ProtocolType, fldPath *field.Path) field.ErrorList {
	if p == "" {
		return field.ErrorList{CodeProtocol.Err(field.Required(fldPath, ""))}
	}
	if !slices.Contains(SupportedProtocols, p) {
		return field.ErrorList{CodeProtocol.Err(field.NotSupported(fldPath, string(p), SupportedProtocols))}
	}
	return nil
}

// ValidateHostname follows Gateway API's Hostname: a lowercase RFC 1123 name
// with at most one leading "*." label, never an IP address or a port. The
// regular expressions of apimachinery accept dotted quads, hence the IP check.
func ValidateHostname(h gwv1.Hostname, fldPath *field.Path) field.ErrorList {
	host := string(h)
	if host == "" {
		return field.ErrorList{field.Invalid(fldPath, host, DetailEmptyHostname)}
	}
	if _, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return field.ErrorList{field.Invalid(fldPath, host, DetailHostnameIP)}
	}
	if strings.Contains(host, ":") {
		return field.ErrorList{field.Invalid(fldPath, host, DetailHostnamePort)}
	}
	var errs field.ErrorList
	tooLong := validation.MaxLenError(validation.DNS1123SubdomainMaxLength)
	if len(host) > validation.DNS1123SubdomainMaxLength {
		errs = append(errs, field.Invalid(fldPath, host, tooLong))
	}
	// The length counts the whole hostname, "*." included (above); the
	// label rules apply to what follows the wildcard.
	name, wildcard := strings.CutPrefix(host, WildcardPrefix)
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		if msg == tooLong {
			continue
		}
		if wildcard {
			msg = DetailAfterWildcard + msg
		}
		errs = append(errs, field.Invalid(fldPath, host, msg))
	}
	return errs
}

// WarnRouteCapture: a listener without a hostname open to other
// namespaces' routes.
const WarnRouteCapture = "no hostname, and from %s admits HTTPRoutes of other namespaces: each can claim any hostname on this listener; set a hostname, or from: Same"

// warnRouteCapture warns about a ListenerSet listener without a hostname
// whose allowedRoutes admits other namespaces (All, or a Selector another
// namespace can match): their HTTPRoutes can claim any hostname on it. A
// Selector that pins kubernetes.io/metadata.name to the set's own
// namespace admits only it (SelectsOnlyNamespace). An object rule; a
// warning only.
func warnRouteCapture(l *gwv1.ListenerEntry, namespace string, fldPath *field.Path, w *findings.WarningReport) {
	if l.Hostname != nil || l.AllowedRoutes == nil || l.AllowedRoutes.Namespaces == nil || l.AllowedRoutes.Namespaces.From == nil {
		return
	}
	switch from := *l.AllowedRoutes.Namespaces.From; from {
	case gwv1.NamespacesFromSelector:
		if selectsOnlyNamespace(l.AllowedRoutes.Namespaces.Selector, namespace) {
			return
		}
		fallthrough
	case gwv1.NamespacesFromAll:
		warn(w, fldPath.Child("allowedRoutes", "namespaces", "from"), KindRouteCapture, WarnRouteCapture, from)
	}
}

// selectsOnlyNamespace: no Namespace but namespace can match sel, because
// one of its requirements pins the label kubernetes.io/metadata.name to
// namespace (matchLabels, or matchExpressions In with that value alone).
// kube-apiserver sets that label to every Namespace's own name and refuses
// another value, and the requirements of a selector all hold at once, so
// no other key alongside can widen it. Any other selector (another value,
// NotIn, Exists, no pin at all, an empty one) may match other namespaces;
// so may any selector when namespace is unknown ("").
func selectsOnlyNamespace(sel *metav1.LabelSelector, namespace string) bool {
	if sel == nil || namespace == "" {
		return false
	}
	if v, ok := sel.MatchLabels[corev1.LabelMetadataName]; ok && v == namespace {
		return true
	}
	return slices.ContainsFunc(sel.MatchExpressions, func(r metav1.LabelSelectorRequirement) bool {
		return r.Key == corev1.LabelMetadataName && r.Operator == metav1.LabelSelectorOpIn && len(r.Values) > 0 &&
			!slices.ContainsFunc(r.Values, func(v string) bool { return v != namespace })
	})
}
