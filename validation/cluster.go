package validation

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
)

// validateInCluster applies the cluster-aware rules: what would make a
// controller mark ls NotAllowed, Conflicted or RefNotPermitted later, told at
// apply time instead. Listener conflicts with the merged listener list
// (ProtocolConflict, HostnameConflict) and references no ReferenceGrant
// permits (RefNotPermitted) deny in strict mode, ratcheted by the values of
// the listener they involve (a conflict its port, protocol and, for
// HostnameConflict, hostname; RefNotPermitted its certificateRefs, an
// atomic list), and are warnings otherwise. Problems that may well resolve
// themselves (the Gateway or Secret does not exist yet, the Gateway does not
// admit the namespace yet) are warnings only.
func validateInCluster(ls *gwv1.ListenerSet, c Cluster, strict bool, t Tenancy, v *verdict) {
	type finding struct {
		err      *field.Error
		listener int
		involved []value
	}
	var findings []finding
	listenersPath := field.NewPath("spec", "listeners")
	if gw, admission, ok := parentGateway(ls, c, field.NewPath("spec", "parentRef"), &v.warnings); ok {
		self := ListenerSource{Kind: SourceListenerSet, Namespace: ls.Namespace, Name: ls.Name}
		for _, row := range listenersInMerge(ls, gw, admission, c) {
			// A conflict within the set is the object's own rule's error,
			// an overlap within it the object's own warning.
			if row.State == ListenerConflicted && row.Winner.Source != self {
				findings = append(findings, finding{row.Errors[0], row.Index, conflictValues(row.Reason)})
			}
			if row.Overlaps != nil && row.Overlaps.Source != self {
				warnOverlap(&v.warnings, KindMergedOverlappingHostnames, row.Index, &ls.Spec.Listeners[row.Index], *row.Overlaps, row.OverlapsHostname)
			}
		}
		validateFirstClaims(ls, gw, admission, c, t, v)
	}
	validateDeclaredHostnames(ls, c, t, v)
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		if l.TLS == nil {
			continue
		}
		refsPath := listenersPath.Index(i).Child("tls", "certificateRefs")
		for j := range l.TLS.CertificateRefs {
			if err := validateCertificateRefInCluster(ls, &l.TLS.CertificateRefs[j], c, refsPath.Index(j), &v.warnings); err != nil {
				findings = append(findings, finding{err, i, []value{certificateRefsValue}})
			}
		}
	}
	for _, f := range findings {
		if strict {
			v.judge(v.ratchet.same(f.listener, f.involved...), f.err)
		} else {
			v.warnings.Add(Warning{Path: f.err.Field, Kind: KindClusterFinding, Code: CodeOf(f.err), Message: f.err.Detail})
		}
	}
}

// parentOf names the Gateway ls's parentRef points to, ok=false when it
// names none (another group or kind, or no name: an error of the object's
// own rules). It is the one decision of which Gateway a ListenerSet belongs
// to: the Gateway a ListenerSet under admission is judged against, and the
// Gateway a ListenerSet in the cluster is a rival under (ParentKey, which
// the cluster view's index calls), so the two cannot drift apart.
func parentOf(ls *gwv1.ListenerSet) (namespace, name string, ok bool) {
	ref := &ls.Spec.ParentRef
	if !isGatewayRef(ref) || ref.Name == "" {
		return "", "", false
	}
	return parentNamespace(ls), string(ref.Name), true
}

// ParentKey is the key of the Gateway ls's parentRef names, as
// Cluster.ListenerSetsOf answers by (GatewayKey of that Gateway); ok=false
// when it names no Gateway. An index of ListenerSets by parent must compute
// its keys with this function, not a copy of the decision.
func ParentKey(ls *gwv1.ListenerSet) (key string, ok bool) {
	ns, name, ok := parentOf(ls)
	if !ok {
		return "", false
	}
	return GatewayKey(ns, name), true
}

// GatewayKey is the ParentKey of the ListenerSets of Gateway
// namespace/name: what an index by ParentKey is asked for.
func GatewayKey(namespace, name string) string { return namespace + "/" + name }

// RivalKeys are the keys an index of ListenerSets files ls under, for
// Cluster.ListenerSetsAt: for each of its listeners the PortKey of its port
// and protocol, the EndpointKey of its port, protocol and hostname and, for a
// listener that claims a hostname, its claimKeys (ClaimKey, UnderKey), under
// the Gateway its parentRef names (ParentKey); none when it names no Gateway.
// An index must compute its keys with this function, and the rules ask with
// PortKey and EndpointKey, so the two cannot drift apart.
func RivalKeys(ls *gwv1.ListenerSet) []string {
	ns, name, ok := parentOf(ls)
	if !ok {
		return nil
	}
	keys := make([]string, 0, 3*len(ls.Spec.Listeners))
	seen := make(map[string]bool, 3*len(ls.Spec.Listeners))
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		add(PortKey(ns, name, l.Port, l.Protocol))
		add(EndpointKey(ns, name, l.Port, l.Protocol, l.Hostname))
		if claims(l) {
			claimKeys(ns, name, string(*l.Hostname), add)
		}
	}
	return keys
}

// keyedProtocols are the protocols PortKey files under their own name:
// Gateway API's core and extended ones and Airlock's. Any other protocol is
// filed under otherProtocols, so that the rules can ask for "every protocol
// but these" with a fixed number of keys.
var keyedProtocols = []gwv1.ProtocolType{
	gwv1.HTTPProtocolType, gwv1.HTTPSProtocolType, gwv1.TLSProtocolType, gwv1.TCPProtocolType, gwv1.UDPProtocolType, ProtocolHTTP3,
}

// otherProtocols is PortKey's name for the protocols keyedProtocols does not list.
const otherProtocols = "*"

// PortKey is the key of Gateway namespace/name's ListenerSets with a
// listener on port with protocol (RivalKeys).
func PortKey(namespace, name string, port gwv1.PortNumber, protocol gwv1.ProtocolType) string {
	p := otherProtocols
	if slices.Contains(keyedProtocols, protocol) {
		p = string(protocol)
	}
	return "port " + GatewayKey(namespace, name) + " " + strconv.Itoa(int(port)) + " " + p
}

// EndpointKey is the key of Gateway namespace/name's ListenerSets with a
// listener on port with protocol and hostname (nil: none) (RivalKeys).
func EndpointKey(namespace, name string, port gwv1.PortNumber, protocol gwv1.ProtocolType, hostname *gwv1.Hostname) string {
	e := endpointOf(port, protocol, hostname)
	return "endpoint " + GatewayKey(namespace, name) + " " + strconv.Itoa(int(port)) + " " + string(e.protocol) + " " + string(e.hostname)
}

// portKeys are the PortKeys on port of the protocols Airlock serves other
// than protocols, or, with same, of protocols themselves: a listener of
// another protocol holds no port, so its key is never read.
func portKeys(namespace, name string, port gwv1.PortNumber, protocols []gwv1.ProtocolType, same bool) []string {
	var keys []string
	for _, p := range SupportedProtocols {
		if slices.Contains(protocols, p) == same {
			keys = append(keys, PortKey(namespace, name, port, p))
		}
	}
	return keys
}

// parentGateway returns the parent Gateway when it exists and admits ls, with
// a warning naming the reason when it does not, and the Gateway's
// allowedListeners for judging ls's rivals.
func parentGateway(ls *gwv1.ListenerSet, c Cluster, fldPath *field.Path, w *WarningReport) (*gwv1.Gateway, *gatewayAdmission, bool) {
	ns, name, ok := parentOf(ls)
	if !ok {
		return nil, nil, false // not a Gateway: an error of the object's own rules
	}
	gw, known := c.Gateway(ns, name)
	switch {
	case !known:
		return nil, nil, false
	case gw == nil:
		w.add(fldPath.Child("name"), KindGatewayNotFound, WarnGatewayNotFound, ns, name)
		return nil, nil, false
	}
	admission := newGatewayAdmission(gw, c)
	allowed, known, why := admission.admits(ls.Namespace)
	if known && !allowed {
		w.add(fldPath, KindNotAllowed, WarnNotAllowed, ns, name, why)
	}
	return gw, admission, known && allowed
}

// gatewayAdmission applies a Gateway's spec.allowedListeners to ListenerSet
// namespaces. The selector is parsed once and each namespace judged once per
// request: every rival of the ListenerSet under admission is judged too, and
// parsing the selector per rival was more than half of a request with 100
// rivals (make bench-scale, docs/performance.md).
type gatewayAdmission struct {
	gw   *gwv1.Gateway
	c    Cluster
	from gwv1.FromNamespaces
	// selector is the parsed allowedListeners.namespaces.selector; nil when
	// it is unset or does not parse (Selector then admits nothing known).
	selector labels.Selector
	judged   map[string]admitted
}

type admitted struct {
	allowed, known bool
	// why is the refusal as the NotAllowed warning words it; setting is
	// the setting that refuses (or leaves unknown) as a merged listener's
	// Reason names it.
	why, setting string
}

func newGatewayAdmission(gw *gwv1.Gateway, c Cluster) *gatewayAdmission {
	a := &gatewayAdmission{gw: gw, c: c, from: gwv1.NamespacesFromNone, judged: map[string]admitted{}}
	if al := gw.Spec.AllowedListeners; al != nil && al.Namespaces != nil {
		if al.Namespaces.From != nil {
			a.from = *al.Namespaces.From
		}
		if al.Namespaces.Selector != nil {
			if sel, err := metav1.LabelSelectorAsSelector(al.Namespaces.Selector); err == nil {
				a.selector = sel
			}
		}
	}
	return a
}

// admits tells whether the Gateway admits ListenerSets of namespace; why
// names the setting that refuses it. known is false when the namespace's
// labels are needed and unknown, or the selector is unset or invalid.
func (a *gatewayAdmission) admits(namespace string) (allowed, known bool, why string) {
	r := a.judge(namespace)
	return r.allowed, r.known, r.why
}

// admitsSetting is admits with the setting that refuses the namespace, or
// leaves it unknown, e.g. "allowedListeners.namespaces.from: Same".
func (a *gatewayAdmission) admitsSetting(namespace string) (allowed, known bool, setting string) {
	r := a.judge(namespace)
	return r.allowed, r.known, r.setting
}

func (a *gatewayAdmission) judge(namespace string) admitted {
	if r, ok := a.judged[namespace]; ok {
		return r
	}
	var r admitted
	switch a.from {
	case gwv1.NamespacesFromAll:
		r = admitted{allowed: true, known: true}
	case gwv1.NamespacesFromSame:
		r = admitted{allowed: namespace == a.gw.Namespace, known: true, why: "allowedListeners.namespaces.from is Same",
			setting: "allowedListeners.namespaces.from: Same"}
	case gwv1.NamespacesFromSelector:
		nsLabels, known := a.c.NamespaceLabels(namespace)
		switch {
		case a.selector == nil:
			r.setting = "allowedListeners.namespaces.selector: unset or invalid"
		case !known:
			r.setting = fmt.Sprintf("labels of namespace %q unknown (allowedListeners.namespaces.selector: %s)", namespace, a.selector)
		default:
			r = admitted{allowed: a.selector.Matches(labels.Set(nsLabels)), known: true,
				why:     "namespace labels do not match allowedListeners.namespaces.selector",
				setting: "allowedListeners.namespaces.selector: " + a.selector.String()}
		}
	default:
		r = admitted{known: true, why: "allowedListeners.namespaces.from is None (the default)",
			setting: "allowedListeners.namespaces.from: None"}
	}
	if r.allowed {
		r.setting = ""
	}
	a.judged[namespace] = r
	return r
}

// listenersInMerge returns ls's rows of gw's merged list (MergedListeners):
// the list built from gw's own listeners, gw's ListenerSets in the cluster
// and ls in the place its creation time gives it (a new object, without
// one, comes last). The stored ListenerSets are taken as valid (the webhook
// admitted them); ls's own errors are judged by its own rules, not here.
//
// The list is merged from the few rivals that decide ls's rows (decisive)
// and the first rival each of ls's listeners overlaps with
// (overlapRivals), not from every ListenerSet of gw: the rows are the full
// list's in all but Precedence, which counts only the listeners merged.
func listenersInMerge(ls *gwv1.ListenerSet, gw *gwv1.Gateway, admission *gatewayAdmission, c Cluster) []MergedListener {
	sets := decisive(ls, gw, admission, c)
	for _, o := range overlapRivals(ls, gw, admission, c) {
		if !slices.Contains(sets, o) {
			sets = append(sets, o)
		}
	}
	sets = append(sets, ls)
	var rows []MergedListener
	first := -1
	mergeListeners(gw, sets, admission, false, func(row MergedListener, from *gwv1.ListenerSet) bool {
		if from == ls && first < 0 {
			first = len(rows)
		}
		rows = append(rows, row)
		return true
	})
	if first < 0 {
		return nil // ls has no listeners
	}
	markOverlaps(rows)
	return rows[first : first+len(ls.Spec.Listeners)]
}

// overlapRivals returns, for each listener of ls that may have
// OverlappingTLSConfig (HTTPS or HTTP/3), the first stored ListenerSet of
// gw, before or after ls, with a listener on its port and protocol whose
// hostname overlaps (overlap.go), among those gw admits; merged with ls,
// it is the first listener of another ListenerSet the listener overlaps
// with, and it is Accepted whenever ls's listener is: it shares its port
// and protocol, and is the first at its own endpoint (endpoints where gw or
// ls has a listener are skipped: the first there is gw's, ls's, or the
// rival decisive merges for ls's listener there).
//
// A listener's covering hostnames (the wildcards above its hostname, and
// none) are read by EndpointKey, as many keys as its hostname has labels.
// The hostnames under a wildcard, or under none, are not keys of the index:
// for such a listener every rival on its port and protocol (PortKey) is
// read, so the cost is bounded by the rivals on that port, as a
// ProtocolConflict on a port is (decisive); a listener with an exact
// hostname, the usual tenant's, reads only its covering keys.
func overlapRivals(ls *gwv1.ListenerSet, gw *gwv1.Gateway, admission *gatewayAdmission, c Cluster) []*gwv1.ListenerSet {
	var picked []*gwv1.ListenerSet
	// The endpoints gw or ls has a listener at: a rival's listener there
	// is not the first there; the one that is, gw's, ls's or the rival
	// decisive finds there, is merged anyway.
	held := make(map[endpoint]bool, len(gw.Spec.Listeners)+len(ls.Spec.Listeners))
	for i := range gw.Spec.Listeners {
		l := &gw.Spec.Listeners[i]
		held[endpointOf(l.Port, l.Protocol, l.Hostname)] = true
	}
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		held[endpointOf(l.Port, l.Protocol, l.Hostname)] = true
	}
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		if !terminatesTLS(l.Protocol) {
			continue
		}
		own := string(endpointOf(l.Port, l.Protocol, l.Hostname).hostname)
		overlaps := func(e *gwv1.ListenerEntry) bool {
			at := endpointOf(e.Port, e.Protocol, e.Hostname)
			return e.Port == l.Port && e.Protocol == l.Protocol && !held[at] &&
				(covers(string(at.hostname), own) || covers(own, string(at.hostname)))
		}
		var lists [][]*gwv1.ListenerSet
		for _, h := range coveringHostnames(own) {
			var hostname *gwv1.Hostname
			if h != "" {
				hostname = ptr.To(gwv1.Hostname(h))
			}
			if sets, _ := c.ListenerSetsAt(EndpointKey(gw.Namespace, gw.Name, l.Port, l.Protocol, hostname)); len(sets) > 0 {
				lists = append(lists, sets)
			}
		}
		if own == "" || strings.HasPrefix(own, WildcardPrefix) {
			sets, _ := c.ListenerSetsAt(PortKey(gw.Namespace, gw.Name, l.Port, l.Protocol))
			lists = append(lists, sets)
		}
		var first *gwv1.ListenerSet
		for _, sets := range lists {
			for _, o := range sets {
				if (first == nil || ComparePrecedence(o, first) < 0) && !(o.Namespace == ls.Namespace && o.Name == ls.Name) &&
					hasListener(o, overlaps) && admitsSet(admission, o) {
					first = o
				}
			}
		}
		if first != nil && !slices.Contains(picked, first) {
			picked = append(picked, first)
		}
	}
	return picked
}

// admitsSet tells whether gw (admission) admits ListenerSet o's namespace.
func admitsSet(admission *gatewayAdmission, o *gwv1.ListenerSet) bool {
	allowed, known, _ := admission.admitsSetting(o.Namespace)
	return allowed && known
}

// decisive returns the stored ListenerSets of gw that decide ls's rows of
// gw's merged list, found through Cluster.ListenerSetsAt, so that a request
// costs what shares ls's ports, not what its Gateway has.
//
// In mergeListeners a listener's state depends only on the listeners before
// it on the same port: the first of them fixes the port's protocol (a
// listener with another one is ProtocolConflict), and the first at the same
// port, protocol and hostname wins a HostnameConflict. Listeners of a
// protocol Airlock does not serve hold no port and are never judged
// against: they count nowhere. A rival counts only
// when it comes before ls (ComparePrecedence; not ls's own stored copy) and
// gw admits its namespace (the others take no place). So for each port of
// ls, the rows need:
//   - at each of ls's endpoints (port, protocol, hostname), the first rival
//     there (EndpointKey): the winner of a HostnameConflict;
//   - the first rival on the port (PortKey), whose protocol is the port's,
//     unless gw has a listener there (gw's own come first) or every listener
//     on the port before ls's has the one protocol ls's listeners there
//     have: then no listener on the port is ProtocolConflict. Telling that
//     needs only the rivals on the port with another protocol, found by
//     protocol; only when some come before ls (a port where some listener
//     is Conflicted already) are all of the port's rivals read, to find the
//     first.
//
// Merging gw, those rivals and ls gives ls's listeners the states, reasons
// and winners the full merge gives them (TestDecisiveRivalsAreTheFullMerge).
func decisive(ls *gwv1.ListenerSet, gw *gwv1.Gateway, admission *gatewayAdmission, c Cluster) []*gwv1.ListenerSet {
	gwNS, gwName := gw.Namespace, gw.Name
	before := func(o *gwv1.ListenerSet) bool {
		if o.Namespace == ls.Namespace && o.Name == ls.Name {
			return false // the stored copy of ls itself (an update)
		}
		if ComparePrecedence(o, ls) >= 0 {
			return false
		}
		return admitsSet(admission, o)
	}
	var picked []*gwv1.ListenerSet
	// pick adds the first set of the lists (in precedence order) that
	// comes before ls and has a listener has accepts.
	pick := func(lists [][]*gwv1.ListenerSet, has func(*gwv1.ListenerEntry) bool) {
		var first *gwv1.ListenerSet
		for _, sets := range lists {
			for _, o := range sets {
				if (first == nil || ComparePrecedence(o, first) < 0) && hasListener(o, has) && before(o) {
					first = o
				}
			}
		}
		if first != nil && !slices.Contains(picked, first) {
			picked = append(picked, first)
		}
	}
	listeners := ls.Spec.Listeners
	for i := range listeners {
		l := &listeners[i]
		if !servedProtocol(l.Protocol) {
			continue // holds no port and conflicts with nothing
		}
		at := endpointOf(l.Port, l.Protocol, l.Hostname)
		if slices.ContainsFunc(listeners[:i], func(e gwv1.ListenerEntry) bool { return endpointOf(e.Port, e.Protocol, e.Hostname) == at }) {
			continue // judged with the earlier listener there
		}
		sets, _ := c.ListenerSetsAt(EndpointKey(gwNS, gwName, l.Port, l.Protocol, l.Hostname))
		pick([][]*gwv1.ListenerSet{sets}, func(e *gwv1.ListenerEntry) bool { return endpointOf(e.Port, e.Protocol, e.Hostname) == at })
	}
	// Only listeners of protocols Airlock serves hold a port.
	served := func(e gwv1.ListenerEntry) bool { return servedProtocol(e.Protocol) }
	for i := range listeners {
		port := listeners[i].Port
		if !served(listeners[i]) {
			continue
		}
		if slices.ContainsFunc(listeners[:i], func(e gwv1.ListenerEntry) bool { return e.Port == port && served(e) }) {
			continue // judged with the earlier listener on the port
		}
		if slices.ContainsFunc(gw.Spec.Listeners, func(l gwv1.Listener) bool { return l.Port == port && servedProtocol(l.Protocol) }) {
			continue // gw's own listeners fix the port's protocol
		}
		var protocols []gwv1.ProtocolType // ls's on the port
		for _, e := range listeners[i:] {
			if e.Port == port && served(e) && !slices.Contains(protocols, e.Protocol) {
				protocols = append(protocols, e.Protocol)
			}
		}
		onPort := func(e *gwv1.ListenerEntry) bool { return e.Port == port && served(*e) }
		otherProtocol := func(e *gwv1.ListenerEntry) bool { return onPort(e) && !slices.Contains(protocols, e.Protocol) }
		var onPortSets [][]*gwv1.ListenerSet // by protocol
		mixed := len(protocols) > 1
		for _, key := range portKeys(gwNS, gwName, port, protocols, false) {
			sets, _ := c.ListenerSetsAt(key)
			if len(sets) > 0 {
				onPortSets = append(onPortSets, sets)
				mixed = mixed || slices.ContainsFunc(sets, func(o *gwv1.ListenerSet) bool { return hasListener(o, otherProtocol) && before(o) })
			}
		}
		if !mixed {
			continue
		}
		for _, key := range portKeys(gwNS, gwName, port, protocols, true) {
			sets, _ := c.ListenerSetsAt(key)
			onPortSets = append(onPortSets, sets)
		}
		pick(onPortSets, onPort)
	}
	return picked
}

// hasListener tells whether one of ls's listeners has has.
func hasListener(ls *gwv1.ListenerSet, has func(*gwv1.ListenerEntry) bool) bool {
	for i := range ls.Spec.Listeners {
		if has(&ls.Spec.Listeners[i]) {
			return true
		}
	}
	return false
}

// ComparePrecedence orders ListenerSets as Gateway API merges them: by
// creation time, oldest first, then "namespace/name". A zero creation time
// (an object being created, or a manifest that does not say) is the newest.
// The offline command admits its input in this order.
func ComparePrecedence(a, b *gwv1.ListenerSet) int {
	ta, tb := a.CreationTimestamp, b.CreationTimestamp
	switch {
	case ta.IsZero() != tb.IsZero():
		if ta.IsZero() {
			return 1
		}
		return -1
	case !ta.Equal(&tb):
		return ta.Time.Compare(tb.Time)
	}
	return compareNamespacedName(a.Namespace, a.Name, b.Namespace, b.Name)
}

// compareNamespacedName compares "ans/aname" with "bns/bname" as strings,
// without building them: the sort runs on every request.
func compareNamespacedName(ans, aname, bns, bname string) int {
	if ans == bns {
		return cmp.Compare(aname, bname)
	}
	// The namespaces differ: at the first byte where they do, or where
	// the shorter one ends and its "/" meets the other's next byte.
	n := min(len(ans), len(bns))
	if c := cmp.Compare(ans[:n], bns[:n]); c != 0 {
		return c
	}
	if len(ans) < len(bns) {
		return cmp.Compare(byte('/'), bns[n])
	}
	return cmp.Compare(ans[n], byte('/'))
}

// validateCertificateRefInCluster: a Secret in another namespace needs a
// ReferenceGrant there (the returned RefNotPermitted error otherwise), and a
// Secret that does not exist leaves the listener without a certificate.
func validateCertificateRefInCluster(ls *gwv1.ListenerSet, ref *gwv1.SecretObjectReference, c Cluster, fldPath *field.Path, w *WarningReport) *field.Error {
	if !isSecretRef(ref) || ref.Name == "" {
		return nil // not a Secret: an error of the object's own rules
	}
	ns := secretNamespace(ls, ref)
	var err *field.Error
	if ns != ls.Namespace {
		if grants, known := c.ReferenceGrants(ns); known && !permitted(grants, ls.Namespace, ref.Name) {
			err = CodeRefNotPermitted.Err(field.Forbidden(fldPath.Child("namespace"), fmt.Sprintf(DetailRefNotPermitted, ns, ls.Namespace)))
		}
	}
	if exists, known := c.SecretExists(ns, string(ref.Name)); known && !exists {
		w.add(fldPath.Child("name"), KindSecretNotFound, WarnSecretNotFound, ns, ref.Name)
	}
	return err
}

// permitted tells whether a ReferenceGrant lets ListenerSets of fromNamespace
// reference the Secret name.
func permitted(grants []*gwv1.ReferenceGrant, fromNamespace string, name gwv1.ObjectName) bool {
	return PermittingGrant(grants, fromNamespace, name) != nil
}

// PermittingGrant is the first of grants (a Secret's namespace's) that lets
// ListenerSets of fromNamespace reference the Secret name, nil when none
// does: the RefNotPermitted rule's decision, for a caller that names the
// grant (the why command).
func PermittingGrant(grants []*gwv1.ReferenceGrant, fromNamespace string, name gwv1.ObjectName) *gwv1.ReferenceGrant {
	for _, g := range grants {
		from := slices.ContainsFunc(g.Spec.From, func(f gwv1.ReferenceGrantFrom) bool {
			return f.Group == gwv1.GroupName && f.Kind == listenerSetKind && string(f.Namespace) == fromNamespace
		})
		to := slices.ContainsFunc(g.Spec.To, func(t gwv1.ReferenceGrantTo) bool {
			return t.Group == defaults.SecretGroup && t.Kind == defaults.SecretKind && (t.Name == nil || *t.Name == "" || *t.Name == name)
		})
		if from && to {
			return g
		}
	}
	return nil
}
