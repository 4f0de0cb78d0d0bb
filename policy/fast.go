package policy

import (
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
	var values []string
	for _, o := range []struct {
		key     gwv1.AnnotationKey
		allowed []string
	}{
		{rules.OptionALPNProtocols, rules.ALPNProtocols},
		{rules.OptionCiphers, rules.Ciphers},
		{rules.OptionECDHCurves, rules.ECDHCurves},
		{rules.OptionSignatureAlgorithms, rules.SignatureAlgorithms},
	} {
		values = append(values, t(`k == {key} ? (o[k] != "" && [o[k].split(",")].all(items, size(items) <= {max} && items.all(x, x in {allowed} && items.indexOf(x) == items.lastIndexOf(x))))`,
			"key", lit(string(o.key)), "max", strconv.Itoa(len(o.allowed)), "allowed", list(o.allowed)))
	}
	versions := list(rules.TLSVersions)
	minK, maxK := lit(string(rules.OptionMinimumVersion)), lit(string(rules.OptionMaximumVersion))
	values = append(values, t(`(k == {min} || k == {max}) ? o[k] in {versions} : false`, "min", minK, "max", maxK, "versions", versions))
	options := t(`(!has(l.tls.options) || [l.tls.options].all(o, size(o) <= {maxopts} && o.all(k, size(o[k]) <= 512 && ({values})) && `+
		`(!({min} in o && {max} in o) || {versions}.indexOf(o[{min}]) <= {versions}.indexOf(o[{max}])) && `+
		`(l.protocol != {http3} || !({max} in o) || o[{max}] == {v13})))`,
		"maxopts", strconv.Itoa(rules.MaxOptions), "values", strings.Join(values, " : "),
		"min", minK, "max", maxK, "versions", versions, "http3", lit(string(rules.ProtocolHTTP3)), "v13", lit(rules.TLSVersionHTTP3))
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
	// endpoints (port, protocol, hostname) unique
	between := `[object.spec.listeners.map(l, l.name)].all(names, names.all(n, names.indexOf(n) == names.lastIndexOf(n))) && ` +
		`[object.spec.listeners.map(l, l.port)].all(ports, [object.spec.listeners.map(l, l.protocol)].all(protocols, ` +
		`object.spec.listeners.all(l, protocols[ports.indexOf(l.port)] == l.protocol))) && ` +
		`[object.spec.listeners.map(l, string(l.port) + "\u0000" + l.protocol + "\u0000" + (has(l.hostname) ? l.hostname : ""))].all(endpoints, ` +
		`endpoints.all(e, endpoints.indexOf(e) == endpoints.lastIndexOf(e)))`
	valid := t(`has(object.spec) && {parent} && has(object.spec.listeners) && size(object.spec.listeners) >= 1 && size(object.spec.listeners) <= {maxl} && `+
		`object.spec.listeners.all(l, {listener}) && {between}`,
		"parent", parent, "maxl", strconv.Itoa(rules.MaxListeners), "listener", listener, "between", between)
	return "!(" + valid + ")"
}
