package policy

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/airlock/listenerset-webhook/validation"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
)

// FastPathCondition names the rules' match condition: false (the rules
// skipped) for the usual valid set (fastPathExpression).
const FastPathCondition = "not-plainly-valid"

// FastPathVariable names the declarations' variable that tells the usual
// valid set (fastPathExpression), the set the rules' match condition
// skips: the declarations judge only it.
const FastPathVariable = "plainlyValid"

// fastPathExpression is true (the rules' policy skipped) for a set of the
// usual shape that passes every rule but the declared hostnames, told in
// one cheap pass; false for everything else, which the rules judge in full.
// kube-apiserver evaluates a policy's validation and its messageExpression
// each in full even when the object passes, so the usual valid object would
// pay for the rules twice; as a match condition, evaluated once, it pays
// for this pass once and skips the rest.
//
// A match condition cannot read namespaceObject (kube-apiserver evaluates
// match conditions without it: null there), so it cannot tell whether the
// set's Namespace declares the hostnames its ListenerSets may claim. The
// declarations' policy (Generate) judges what it skips: in a Namespace with
// a declaration it evaluates this same expression as its variable
// FastPathVariable and, where it is true, judges the listeners' hostnames
// against the declaration; elsewhere the rules judge the declaration with
// everything else. A Namespace without one pays for a lookup of its
// annotation.
//
// It may only say true of an object validation.Validate admits in a
// Namespace without a declaration (the differential tests hold it to
// that), and says false of anything unusual:
// options of other domains, selectors, route kinds other than HTTPRoute,
// hostnames of digits and dots, several protocols on ports the first two
// listeners do not use.
//
// kube-apiserver runs validating admission after it has decoded the object
// with the CRD's schema (defaults applied) and validated it with the CRD's
// schema and rules, so it reads the fields the CRD
// defaults (allowedRoutes, tls.mode, a reference's group and kind) as
// present, and leaves to the CRD what the CRD enforces exactly as
// validation does: listener names (pattern, length, unique), ports
// (1-65535), hostname patterns and length, unique port, protocol and
// hostname combinations, at most 64 listeners and at least one, namespace
// patterns, no tls on HTTP, and mode Terminate for HTTPS with tls. That
// leaves the policy a handful of reads per listener instead of dozens and
// the comparisons of every listener with every other. An object stored
// before its CRD enforced one of those, and changed since, is no gap: the
// CRD's ratcheting lets a value through only when it is as stored (its
// rules on a listener or the list, when that whole listener or list is),
// and then validation ratchets the error too, by the same values or fewer.
// The v1.6.3 and v1.7.0 CRDs, standard and experimental, enforce them all;
// test/policy runs against each.
//
// Listeners written from one template repeat the first listener's TLS
// options and allowedRoutes: those are judged once and compared (one
// native comparison), and the protocols' ports are those of the first two
// listeners, so that the usual 64-listener set costs about 11 µs per
// listener in process (BenchmarkPolicyCreate); anything else falls back to
// the same rules per listener.
//
// What it saves, through kube-apiserver (go run ./test/load -fast-path,
// docs/performance.md): a create of the usual 2-listener set costs 1.10 x
// what it costs with no admission (both policies bound), 1.5-1.6 x without
// the fast path; the 64-listener set 0.98-1.03 x, 1.2-1.3 x without it.
func fastPathExpression() string {
	sub := anchored(dns1123SubdomainRegex)
	http, https, http3 := lit(string(validation.ProtocolHTTP)), lit(string(validation.ProtocolHTTPS)), lit(string(validation.ProtocolHTTP3))
	gw := lit(gwv1.GroupName)
	ls := `object.spec.listeners`
	// group "" and kind Secret: with the CRD's patterns (a group is
	// lowercase, a kind starts with a letter) nothing else concatenates to
	// "Secret". The list's one item is read by walking the list, which
	// converts it once, where three reads of certificateRefs[0] convert
	// the path to it three times.
	refs := fill(`has(l.tls.certificateRefs) && size(l.tls.certificateRefs) == 1 && `+
		`l.tls.certificateRefs.all(r, r.group + r.kind == {secret} && r.name.matches({sub}))`,
		"secret", lit(string(defaults.SecretGroup)+string(defaults.SecretKind)), "sub", sub)
	var usual []string
	for _, from := range plainFrom {
		ns := fill(`"namespaces": dyn({"from": {from}})`, "from", lit(string(from)))
		usual = append(usual, "{"+ns+"}", fill(`{{ns}, "kinds": dyn([{"group": {gw}, "kind": {httproute}}])}`,
			"ns", ns, "gw", gw, "httproute", lit(string(validation.HTTPRouteKind))))
	}
	routes := fill(`(l.allowedRoutes in [{usual}] || l.allowedRoutes == ar0 || {plain})`, "usual", strings.Join(usual, ", "), "plain", plainRoutes("l.allowedRoutes", gw))
	// the TLS of an HTTPS or http3 listener: exactly one certificate, and
	// the first listener's options (okH30: fit for http3 too) or options
	// that pass on their own
	tlsOf := func(isH3 bool) string {
		same := ""
		if isH3 {
			same = " && okH30"
		}
		return fill(`{refs} && (l.tls.?options.orValue(o0) == o0{same} || has(l.tls.options) && {opts})`,
			"refs", refs, "same", same, "opts", plainOptions("l.tls.options", isH3))
	}
	// the hostname not an address, and every ListenerValueRule passes
	host := `!l.?hostname.orValue("").matches("^[0-9.]+$")` + valueRulesPlain("l")
	// 1: plain, on its protocol's port (pp); 2: plain, on another port; 0:
	// not plain. HTTPS with tls has mode Terminate (the CRD's default and
	// rule), HTTP no tls (the CRD's rule); an http3 listener's mode is read.
	code := func(i int) string { return fill(`(l.port == pp[{i}] ? 1 : 2)`, "i", strconv.Itoa(i)) }
	listener := fill(`{host} && {routes} ? (l.protocol == {https} ? (has(l.tls) && {tlsS} ? {cS} : 0) : `+
		`l.protocol == {http3} ? (has(l.tls) && l.tls.mode == {terminate} && {tls3} ? {c3} : 0) : l.protocol == {http} ? {cH} : 0) : 0`,
		"host", host, "routes", routes, "https", https, "http3", http3, "http", http, "terminate", lit(string(gwv1.TLSModeTerminate)),
		"tlsS", tlsOf(false), "tls3", tlsOf(true), "cH", code(0), "cS", code(1), "c3", code(2))
	// the general rule, when a listener is on another port than its
	// protocol's: every listener of a port on the first one's protocol
	ports := fill(`[{ls}.map(l, l.port)].all(ports, {ls}.all(l, {ls}[ports.indexOf(l.port)].protocol == l.protocol))`, "ls", ls)
	// pp: the port each protocol's listeners are on when they all share the
	// first or second listener's (0 when neither has the protocol). f and
	// g on one port must share the protocol; then every listener on its
	// protocol's port means one protocol per port.
	portOf := func(protocol string) string {
		return fill(`(f.protocol == {p} ? f.port : g.protocol == {p} ? g.port : 0)`, "p", protocol)
	}
	// Judged once: the first listener's options (o0; ok0 as an HTTPS
	// listener's, okH30 as an http3 one's) and allowedRoutes (ar0).
	listeners := fill(`[{ls}[0]].all(f, [{ls}[size({ls}) > 1 ? 1 : 0]].all(g, (f.port != g.port || f.protocol == g.protocol) && `+
		`[has(f.tls) && has(f.tls.options) ? f.tls.options : dyn({})].all(o0, {ok0} && [{okH30}].all(okH30, `+
		`[f.allowedRoutes].all(ar0, {arOK0} && [[{pH}, {pS}, {p3}]].all(pp, `+
		`[{ls}.map(l, {listener})].all(codes, !(0 in codes) && (!(2 in codes) || {ports}))))))))`,
		"ls", ls, "ok0", plainOptions("o0", false), "okH30", versionPair("o0", true),
		"arOK0", plainRoutes("ar0", gw), "pH", portOf(http), "pS", portOf(https), "p3", portOf(http3),
		"listener", listener, "ports", ports)
	parent := fill(`[object.spec.parentRef].all(r, r.group == {gw} && r.kind == {gateway} && r.name.matches({sub}))`,
		"gw", gw, "gateway", lit(string(defaults.GatewayKind)), "sub", sub)
	// every set rule's guard (object.SetRules)
	return parent + " && " + listeners + setRuleGuards()
}

// plainListBytes is the longest list-valued option the fast path
// judges (a match is charged by the string's length): every list of
// distinct names fits (the 22 ciphers are 498 bytes), a longer value goes
// to the rules.
const plainListBytes = 512

// plainOptions is true when the TLS options map o passes every option
// rule, as an http3 listener's when isH3. Each option
// is read by its key, not by a walk over the map with a chain of key
// comparisons per entry: the map holds no other key when its size is the
// number of known keys it holds. An empty map, the usual first listener's
// (an HTTP one has none), passes at once: every option is absent, which
// every rule allows, and so does the version pair (versionPair).
func plainOptions(o string, isH3 bool) string {
	var known, values []string
	for _, k := range validation.SupportedOptions {
		known = append(known, fill(`({k} in {o} ? 1 : 0)`, "k", lit(string(k)), "o", o))
	}
	values = append(values, fill(`size({o}) == `, "o", o)+strings.Join(known, " + "))
	for _, opt := range validation.AirlockOptions {
		switch {
		case opt.List:
			values = append(values, fill(`(!({key} in {o}) || size({o}[{key}]) <= {maxbytes} && (({o}[{key}] + ",").matches({ordered}) || `+
				`{o}[{key}] != "" && [{o}[{key}].split(",")].all(items, size(items) <= {max} && items.all(x, x in {allowed} && items.indexOf(x) == items.lastIndexOf(x)))))`,
				"o", o, "key", lit(string(opt.Key)), "maxbytes", strconv.Itoa(plainListBytes), "ordered", lit(orderedNames(opt.Values)), "max", strconv.Itoa(len(opt.Values)), "allowed", list(opt.Values)))
		case opt.Key == validation.OptionMinimumVersion || opt.Key == validation.OptionMaximumVersion:
			// versionPair judges them, and their order
		default:
			values = append(values, fill(`(!({key} in {o}) || {o}[{key}] in {values})`, "o", o, "key", lit(string(opt.Key)), "values", list(opt.Values)))
		}
	}
	values = append(values, versionPair(o, isH3))
	return fill(`(size({o}) == 0 || `, "o", o) + strings.Join(values, " && ") + ")"
}

// versionPair is true when the minimum and maximum versions of the TLS
// options map o are known and in order, and, when isH3, allow TLS 1.3: at
// once for an empty map, both absent.
func versionPair(o string, isH3 bool) string {
	minK, maxK := lit(string(validation.OptionMinimumVersion)), lit(string(validation.OptionMaximumVersion))
	// the two versions as one string "=minimum/=maximum" ("" for an absent
	// one, so that a present empty value is not taken for an absent one),
	// found in the constant list of the valid pairs; for http3, only those
	// whose maximum is TLS 1.3 or absent. A value with a "/" matches none.
	var pairs []string
	for lo, minV := range append([]string{""}, validation.TLSVersions...) {
		for hi, maxV := range append([]string{""}, validation.TLSVersions...) {
			if lo > 0 && hi > 0 && lo > hi || isH3 && maxV != "" && maxV != validation.TLSVersionHTTP3 {
				continue
			}
			pairs = append(pairs, present(minV)+"/"+present(maxV))
		}
	}
	return fill(`(size({o}) == 0 || (({min} in {o} ? "=" + {o}[{min}] : "") + "/" + ({max} in {o} ? "=" + {o}[{max}] : "")) in {pairs})`,
		"o", o, "min", minK, "max", maxK, "pairs", list(pairs))
}

// plainFrom are the values of namespaces.from the fast path admits
// without a look at the selector.
var plainFrom = []gwv1.FromNamespaces{gwv1.NamespacesFromSame, gwv1.NamespacesFromAll}

// plainRoutes is true when allowedRoutes ar admits HTTPRoutes only, from
// the same namespace or all of them.
func plainRoutes(ar, gw string) string {
	return fill(`((!has({ar}.kinds) || (size({ar}.kinds) <= {maxkinds} && {ar}.kinds.all(k, (!has(k.group) || k.group == {gw}) && has(k.kind) && k.kind == {httproute}))) && `+
		`(!has({ar}.namespaces) || ((!has({ar}.namespaces.from) || {ar}.namespaces.from in {from}) && !has({ar}.namespaces.selector))))`,
		"ar", ar, "gw", gw, "maxkinds", strconv.Itoa(MaxRouteKinds), "httproute", lit(string(validation.HTTPRouteKind)), "from", list(plainFrom))
}

// present is how the version pair writes a version: "=" and the version,
// or "" when absent.
func present(v string) string {
	if v == "" {
		return ""
	}
	return "=" + v
}

// orderedNames is a regular expression that matches a list of names
// followed by a comma ("a,b,") only when its items are distinct names of
// allowed, in the order allowed lists them: the usual list, which one match
// tells valid (membership, no empty or padded item, each once) where the
// rule's own test splits the list and compares every item with every other.
// Lists in another order are told valid that way.
func orderedNames(allowed []string) string {
	var b strings.Builder
	b.WriteString("^")
	for _, n := range allowed {
		b.WriteString("(?:" + regexp.QuoteMeta(n) + ",)?")
	}
	b.WriteString("$")
	return b.String()
}
