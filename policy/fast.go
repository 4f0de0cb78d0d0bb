package policy

import (
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	rules "github.com/airlock/listenerset-webhook/validation"
)

// FastPathCondition names the policy's match condition.
const FastPathCondition = "not-plainly-valid"

// fastPathExpression is the policy's match condition: false (the policy is
// skipped, the object admitted) for a set of the usual shape that passes
// every rule, told in one cheap pass; true for everything else, which the
// policy judges in full. kube-apiserver evaluates a policy's validation and
// its messageExpression each in full even when the object passes, so the
// usual valid object would pay for the rules twice; this way it pays once,
// and less.
//
// It may only say false of an object validation.Validate admits (the
// differential tests hold it to that), and says true of anything unusual:
// options of other domains, selectors, route kinds other than HTTPRoute,
// hostnames of digits and dots, lists past the usual sizes. It reads only
// the object (a match condition cannot read variables) and stops at the
// first listener that is not plainly valid, so that it costs little on any
// object.
func fastPathExpression() string {
	sub := lit(reSubdomain)
	label := lit(reLabel)
	maxName := strconv.Itoa(validation.DNS1123SubdomainMaxLength)
	name := func(x string) string {
		return t(`(has({x}) && size({x}) <= {max} && {x}.matches({sub}))`, "x", x, "max", maxName, "sub", sub)
	}
	namespace := func(x string) string {
		return t(`(!has({x}) || (size({x}) <= 63 && {x}.matches({label})))`, "x", x, "label", label)
	}
	minK, maxK := lit(string(rules.OptionMinimumVersion)), lit(string(rules.OptionMaximumVersion))
	// Each option is read by its key, not by a walk over the map with a
	// chain of key comparisons per entry: the map holds no other key when
	// its size is the number of known keys it holds.
	var known, values []string
	for _, k := range rules.SupportedOptions {
		known = append(known, t(`({k} in o ? 1 : 0)`, "k", lit(string(k))))
	}
	values = append(values, `size(o) == `+strings.Join(known, " + "))
	for _, o := range []struct {
		key     gwv1.AnnotationKey
		allowed []string
	}{
		{rules.OptionALPNProtocols, rules.ALPNProtocols},
		{rules.OptionCiphers, rules.Ciphers},
		{rules.OptionECDHCurves, rules.ECDHCurves},
		{rules.OptionSignatureAlgorithms, rules.SignatureAlgorithms},
	} {
		values = append(values, t(`(!({key} in o) || size(o[{key}]) <= 512 && ((o[{key}] + ",").matches({ordered}) || `+
			`o[{key}] != "" && [o[{key}].split(",")].all(items, size(items) <= {max} && items.all(x, x in {allowed} && items.indexOf(x) == items.lastIndexOf(x)))))`,
			"key", lit(string(o.key)), "ordered", lit(orderedNames(o.allowed)), "max", strconv.Itoa(len(o.allowed)), "allowed", list(o.allowed)))
	}
	// the two versions as one string "=minimum/=maximum" ("" for an absent
	// one, so that a present empty value is not taken for an absent one),
	// found in the constant list of the valid pairs; for http3, only those
	// whose maximum is TLS 1.3 or absent. A value with a "/" matches none.
	var pairs, http3Pairs []string
	for lo, minV := range append([]string{""}, rules.TLSVersions...) {
		for hi, maxV := range append([]string{""}, rules.TLSVersions...) {
			if lo > 0 && hi > 0 && lo > hi {
				continue
			}
			pair := present(minV) + "/" + present(maxV)
			pairs = append(pairs, pair)
			if maxV == "" || maxV == rules.TLSVersionHTTP3 {
				http3Pairs = append(http3Pairs, pair)
			}
		}
	}
	values = append(values, t(`((({min} in o ? "=" + o[{min}] : "") + "/" + ({max} in o ? "=" + o[{max}] : "")) in (l.protocol == {http3} ? {http3pairs} : {pairs}))`,
		"min", minK, "max", maxK, "http3", lit(string(rules.ProtocolHTTP3)), "pairs", list(pairs), "http3pairs", list(http3Pairs)))
	options := t(`(!has(l.tls.options) || [l.tls.options].all(o, {values}))`, "values", strings.Join(values, " && "))
	ref := t(`((!has(r.group) || r.group == "") && (!has(r.kind) || r.kind == "Secret") && {name} && {ns})`,
		"name", name("r.name"), "ns", namespace("r.namespace"))
	tls := t(`(l.protocol == {http} ? !has(l.tls) : (l.protocol == {https} || l.protocol == {http3}) && has(l.tls) && `+
		`(!has(l.tls.mode) || l.tls.mode == "Terminate") && has(l.tls.certificateRefs) && size(l.tls.certificateRefs) == 1 && `+
		`[l.tls.certificateRefs[0]].all(r, {ref}) && {options})`,
		"http", lit(string(rules.ProtocolHTTP)), "https", lit(string(rules.ProtocolHTTPS)), "http3", lit(string(rules.ProtocolHTTP3)),
		"ref", ref, "options", options)
	routes := t(`(!has(l.allowedRoutes) || [l.allowedRoutes].all(ar, `+
		`(!has(ar.kinds) || (size(ar.kinds) <= 8 && ar.kinds.all(k, (!has(k.group) || k.group == {gw}) && has(k.kind) && k.kind == "HTTPRoute"))) && `+
		`(!has(ar.namespaces) || ((!has(ar.namespaces.from) || ar.namespaces.from in ["Same", "All"]) && !has(ar.namespaces.selector)))))`,
		"gw", lit(gwv1.GroupName))
	// a hostname of the DNS pattern, and not of digits and dots only (an
	// address, or close enough to one that the policy should judge it)
	host := t(`(!has(l.hostname) || (size(l.hostname) <= {max} && l.hostname.matches({hostre}) && !l.hostname.matches("^[0-9.]*$")))`,
		"max", maxName, "hostre", lit(`^(\*\.)?`+strings.TrimPrefix(reSubdomain, "^")))
	listener := t(`(has(l.port) && l.port >= 1 && l.port <= 65535 && has(l.protocol) && {name} && {host} && {tls} && {routes})`,
		"name", name("l.name"), "host", host, "tls", tls, "routes", routes)
	parent := t(`has(object.spec.parentRef) && [object.spec.parentRef].all(r, (!has(r.group) || r.group == {gw}) && (!has(r.kind) || r.kind == "Gateway") && {name} && {ns})`,
		"gw", lit(gwv1.GroupName), "name", name("r.name"), "ns", namespace("r.namespace"))
	// names unique, every listener of a port on the first one's protocol,
	// endpoints (hostname, port, protocol) unique
	between := t(`[object.spec.listeners.map(l, l.name)].all(names, {unames}) && `+
		`[object.spec.listeners.map(l, l.port)].all(ports, [object.spec.listeners.map(l, l.protocol)].all(protocols, `+
		`object.spec.listeners.all(l, protocols[ports.indexOf(l.port)] == l.protocol))) && `+
		`[object.spec.listeners.map(l, (has(l.hostname) ? l.hostname : "") + "\u0000" + string(l.port) + "\u0000" + l.protocol)].all(endpoints, {uendpoints})`,
		"unames", unique("names"), "uendpoints", unique("endpoints"))
	valid := t(`has(object.spec) && {parent} && has(object.spec.listeners) && size(object.spec.listeners) >= 1 && size(object.spec.listeners) <= {maxl} && `+
		`object.spec.listeners.all(l, {listener}) && {between}`,
		"parent", parent, "maxl", strconv.Itoa(rules.MaxListeners), "listener", listener, "between", between)
	return "!(" + valid + ")"
}

// orderedNames is a regular expression that matches a list of names
// followed by a comma ("a,b,") only when its items are distinct names of
// allowed, in the order allowed lists them: the usual list, which one match
// tells valid (membership, no empty or padded item, each once) where the
// rule's own test splits the list and compares every item with every other.
// Lists in another order are told valid that way.
// unique is true when the items of the CEL list x (of at most
// rules.MaxListeners) are distinct. A short list compares each item's first
// and last index; a long one, in one pass when it is sorted (then equal
// items are neighbours), else each item's first index is its own (one scan
// to it, not two over the whole list). The long list's walk goes over the
// index list whole, which would cost a short list more than it saves.
func unique(x string) string {
	return t(`(size({x}) <= 16 ? {x}.all(n, {x}.indexOf(n) == {x}.lastIndexOf(n)) : `+
		`({x}.isSorted() && {idx}.all(i, i + 1 >= size({x}) || {x}[i] != {x}[i + 1]) || {idx}.all(i, i >= size({x}) || {x}.indexOf({x}[i]) == i)))`,
		"x", x, "idx", indexList(rules.MaxListeners))
}

// present is how the version pair writes a version: "=" and the version,
// or "" when absent.
func present(v string) string {
	if v == "" {
		return ""
	}
	return "=" + v
}

func orderedNames(allowed []string) string {
	var b strings.Builder
	b.WriteString("^")
	for _, n := range allowed {
		b.WriteString("(?:" + regexp.QuoteMeta(n) + ",)?")
	}
	b.WriteString("$")
	return b.String()
}
