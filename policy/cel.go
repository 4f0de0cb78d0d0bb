package policy

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/airlock/listenerset-webhook/validation"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8svalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
)

// The CEL uses only what kube-apiserver 1.30 accepts in a new policy
// (compatibility version 1.29: the strings, sets, lists and regex
// libraries, no two-variable comprehensions, no format library), so that
// the policy installs wherever ValidatingAdmissionPolicy is GA. Lists are
// walked by index through a literal index list, since 1.29's CEL has no
// range; the lists the CRD bounds (listeners, certificateRefs, kinds) fit
// in it, and the selector's unbounded lists are judged up to its size.

// MaxIndex is the size of the index lists: the CRD's largest maxItems (64
// listeners, 64 certificateRefs).
const MaxIndex = validation.MaxListeners

// MaxMessageBytes is where the message is cut (kube-apiserver drops a
// messageExpression result over 5 KiB); the entries cut are counted.
const MaxMessageBytes = 5000

// Separator joins the entries of the message: kube-apiserver refuses a
// message with a line break.
const Separator = "; "

type variable struct{ name, expression string }

type celPolicy struct {
	variables           []variable
	validation, message string
	// fastPath is the rules' match condition (FastPathCondition): false
	// for the usual valid set, which skips them
	fastPath string
}

// celPolicies are the CEL of the two policies (Generate): the rules and
// the declarations.
type celPolicies struct{ rules, declarations celPolicy }

// fill replaces each {key} of the template s with its value (pairs of key,
// value).
func fill(s string, kv ...string) string {
	r := make([]string, 0, len(kv))
	for i := 0; i < len(kv); i += 2 {
		r = append(r, "{"+kv[i]+"}", kv[i+1])
	}
	return strings.NewReplacer(r...).Replace(s)
}

// chunked joins part(lo, hi) for each chunk of MaxIndex by ListenerChunk,
// each only when the set has listeners there.
func chunked(part func(lo, hi int) string) string {
	var parts []string
	for lo := 0; lo < MaxIndex; lo += ListenerChunk {
		if lo == 0 {
			parts = append(parts, part(lo, lo+ListenerChunk))
			continue
		}
		parts = append(parts, fmt.Sprintf(`(size(variables.listeners) > %d ? %s : [])`, lo, part(lo, lo+ListenerChunk)))
	}
	return strings.Join(parts, " + ")
}

// indexRange is the CEL list lo, ..., hi-1.
func indexRange(lo, hi int) string {
	s := make([]string, 0, hi-lo)
	for i := lo; i < hi; i++ {
		s = append(s, strconv.Itoa(i))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func indexList(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// The IP addresses netip.ParseAddr takes (the hostname rule's test), as
// regular expressions: 1.29's CEL has no ip library.
const (
	reIPv4Octet = `(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])`
	reIPv4      = `(` + reIPv4Octet + `\.){3}` + reIPv4Octet
	h16         = `[0-9a-fA-F]{1,4}`
	reIPv6      = `((` + h16 + `:){7}` + h16 + `|(` + h16 + `:){1,7}:|(` + h16 + `:){1,6}:` + h16 +
		`|(` + h16 + `:){1,5}(:` + h16 + `){1,2}|(` + h16 + `:){1,4}(:` + h16 + `){1,3}|(` + h16 + `:){1,3}(:` + h16 + `){1,4}` +
		`|(` + h16 + `:){1,2}(:` + h16 + `){1,5}|` + h16 + `:(:` + h16 + `){1,6}|:((:` + h16 + `){1,7}|:)` +
		`|(` + h16 + `:){6}` + reIPv4 + `|(` + h16 + `:){0,5}:` + reIPv4 + `|::(` + h16 + `:){0,5}` + reIPv4 + `)(%[^\[\]]+)?`
	// reIPChars are the characters reIP can match.
	reIPChars = `^[0-9a-fA-F:.\[\]%]*$|%`
	// reIP is what strings.Trim(host, "[]") leaves as an address.
	reIP = `^[\[\]]*(` + reIPv4 + `|` + reIPv6 + `)[\[\]]*$`
)

// dnsSubdomain is validateDNSSubdomain: a required name.
func (w writer) dnsSubdomain(x, path string) string {
	inv := func(input string) string {
		msg := only(w, "IsDNS1123Subdomain", k8svalidation.IsDNS1123Subdomain, input)
		return w.line(path, field.Invalid(placeholderPath, valueHole, msg), map[string]string{valueHole: x})
	}
	return fill(`({x} == "" ? [{req}] : (size(bytes({x})) > {max} ? [{long}] : []) + (!{x}.matches({re}) ? [{regex}] : []))`,
		"x", x,
		"req", w.line(path, field.Required(placeholderPath, ""), nil),
		"max", strconv.Itoa(k8svalidation.DNS1123SubdomainMaxLength),
		"long", inv(strings.Repeat("a", k8svalidation.DNS1123SubdomainMaxLength+1)),
		"re", anchored(dns1123SubdomainRegex),
		"regex", inv("-"))
}

// dnsLabel is validateNamespace.
func (w writer) dnsLabel(x, path string) string {
	inv := func(input string) string {
		msg := only(w, "IsDNS1123Label", k8svalidation.IsDNS1123Label, input)
		return w.line(path, field.Invalid(placeholderPath, valueHole, msg), map[string]string{valueHole: x})
	}
	return fill(`((size(bytes({x})) > {max} ? [{long}] : []) + (!{x}.matches({re}) ? ({x}.matches({sub}) ? [{dots}] : [{regex}]) : []))`,
		"x", x,
		"max", strconv.Itoa(k8svalidation.DNS1123LabelMaxLength),
		"long", inv(strings.Repeat("a", k8svalidation.DNS1123LabelMaxLength+1)),
		"re", anchored(dns1123LabelRegex), "sub", anchored(dns1123SubdomainRegex),
		"dots", inv("a.b"),
		"regex", inv("-"))
}

// notSupported is field.NotSupported of the string x.
func notSupported[T ~string](w writer, x, path string, allowed []T) string {
	return w.line(path, field.NotSupported(placeholderPath, valueHole, allowed), map[string]string{valueHole: x})
}

// labelKey is IsQualifiedName(k), each message an Invalid(path, k, msg):
// a label key, or (with a "/") a domain-prefixed option key.
func (w writer) labelKey(k, path string) string {
	inv := func(msg string) string {
		return w.line(path, field.Invalid(placeholderPath, valueHole, msg), map[string]string{valueHole: k})
	}
	of := func(input string) string {
		return inv(only(w, "IsQualifiedName", k8svalidation.IsQualifiedName, input))
	}
	// an empty name fails the pattern too: its message is the first of two
	nameEmpty := inv(first(w, "IsQualifiedName", k8svalidation.IsQualifiedName, "a/", 2))
	return fill(`[{k}.split("/")].map(parts, size(parts) > 2 ? [{parts}] : `+
		`(size(parts) == 2 ? (parts[0] == "" ? [{pempty}] : (size(bytes(parts[0])) > {smax} ? [{plong}] : []) + (!parts[0].matches({sub}) ? [{pregex}] : [])) : []) + `+
		`[parts[size(parts) - 1]].map(name, (name == "" ? [{nempty}] : (size(bytes(name)) > {nmax} ? [{nlong}] : [])) + (!name.matches({kre}) ? [{nregex}] : []))[0])[0]`,
		"k", k, "parts", of("a/b/c"),
		"pempty", of("/a"), "smax", strconv.Itoa(k8svalidation.DNS1123SubdomainMaxLength),
		"plong", of(strings.Repeat("a", k8svalidation.DNS1123SubdomainMaxLength+1)+"/a"),
		"sub", anchored(dns1123SubdomainRegex), "pregex", of("-/a"),
		"nempty", nameEmpty, "nmax", strconv.Itoa(labelKeyNameMaxLength), "nlong", of("a/"+strings.Repeat("b", labelKeyNameMaxLength+1)),
		"kre", anchored(labelKeyNameRegex), "nregex", of("a/-"))
}

// labelValue is IsValidLabelValue(v), each message an Invalid(path, v, msg).
func (w writer) labelValue(v, path string) string {
	inv := func(input string) string {
		msg := only(w, "IsValidLabelValue", k8svalidation.IsValidLabelValue, input)
		return w.line(path, field.Invalid(placeholderPath, valueHole, msg), map[string]string{valueHole: v})
	}
	return fill(`((size(bytes({v})) > {max} ? [{long}] : []) + (!{v}.matches({re}) ? [{regex}] : []))`,
		"v", v, "max", strconv.Itoa(k8svalidation.LabelValueMaxLength), "long", inv(strings.Repeat("a", k8svalidation.LabelValueMaxLength+1)),
		"re", anchored(labelValueRegex), "regex", inv("-"))
}

// joined turns a list of entry lists into entries, one per non-empty list.
func joined(lists string) string {
	return "(" + lists + `).map(e, e.join(` + lit(Separator) + `)).filter(s, s != "")`
}

// expressions is the policies' CEL, built once.
var expressions = sync.OnceValues(func() (celPolicies, error) {
	if err := valueRulesChecked(); err != nil {
		return celPolicies{}, err
	}
	if err := setRulesChecked(validation.SetRules()); err != nil {
		return celPolicies{}, err
	}
	rules, err := build(false)
	if err != nil {
		return celPolicies{}, err
	}
	declarations, err := build(true)
	if err != nil {
		return celPolicies{}, err
	}
	// the fast path reads the CRD's required fields as present (fast.go)
	fast := fastPathExpression()
	rules.fastPath = "!(" + fast + ")"
	declarations, err = declarationsPolicy(declarations, fast)
	if err != nil {
		return celPolicies{}, err
	}
	return celPolicies{rules: rules, declarations: declarations}, nil
})

// ListenerChunk is how many listeners one check variable judges: each
// variable is one CEL evaluation, which kube-apiserver limits to a
// million cost units (16 of the costliest listeners cost 750 000). Each
// chunk repeats the rules' CEL, which kube-apiserver compiles when the
// policy is created and loaded, so the chunks are as large as the limit
// allows.
const ListenerChunk = 16

// MaxCertificateRefs is how many certificateRefs of a listener the policy
// judges one by one. A listener may have only one, so a second one is
// already an error (Too many) at the list's path; judging all 64 the CRD
// allows on each of 64 listeners would cost a third of kube-apiserver's CEL
// budget.
const MaxCertificateRefs = 4

// ListSlack is how many items past its number of names a list-valued TLS
// option is judged item by item.
const ListSlack = 4

// MaxDetailedListeners is how many failing listeners the message details;
// the entries of the others are counted ("; and N more"). A message holds
// 5 KiB, a few listeners' worth of entries; building every entry of 64
// failing listeners would cost more than kube-apiserver's CEL budget.
const MaxDetailedListeners = 4

// build writes the policy in two tiers. The checks run every rule on every
// listener but write each violation as its path only: they give the
// verdict, and the number and paths of the entries, at a fraction of the
// cost. The details run the same rules, written with their messages, on
// the parentRef, the count and the first MaxDetailedListeners failing
// listeners only: the message. Both tiers are the same Go code (the rule
// builders below), written by two writers: the checks' (pathsOnly) and the
// details'. It fails when apimachinery's validators no longer give the
// messages the CEL is written for (drift). With declarationsOnly it writes
// the declarations' policy: the declared-hostnames rule alone, and only the
// variables it reads.
func build(declarationsOnly bool) (celPolicy, error) {
	var upstream drift
	checks, details := writer{pathsOnly: true, drift: &upstream}, writer{drift: &upstream}
	var vars []variable
	add := func(name, expr string) { vars = append(vars, variable{name, expr}) }
	// rulesAdd adds a variable only the rules' policy reads
	rulesAdd := func(name, expr string) {
		if !declarationsOnly {
			add(name, expr)
		}
	}
	// local and rulesLocal add a helper that is no variable of the policy
	// but bound in each variable that reads it (bindLocals), and so
	// evaluated whenever that variable is: only a helper that its readers
	// read in full anyway, or that costs a few steps (kube-apiserver builds
	// every variable a policy declares for each evaluation, the rules'
	// match condition's too, read or not; a helper read only on a conflict
	// or an update stays a variable, evaluated only when read)
	locals := map[string]bool{}
	local := func(name, expr string) { add(name, expr); locals[name] = true }
	rulesLocal := func(name, expr string) {
		if !declarationsOnly {
			local(name, expr)
		}
	}
	// listener i as l with its path p and its stored pair sl ({} when it
	// has none: every ratchet condition first asks variables.pair[i]), for
	// each i of the CEL list over
	over := func(over, body string) string {
		return over + `.map(i, [variables.listeners[i]].map(l, ["spec.listeners[" + string(i) + "]"].map(p, ` +
			`[variables.pair[i] >= 0 ? variables.stored[variables.pair[i]] : {}].map(sl, ` + body + `)[0])[0])[0])`
	}

	// the names each list-valued option accepts: the built-in ones here;
	// Generate (and the chart) replace a list when a setting adds names
	if !declarationsOnly {
		for _, key := range validation.ListOptions {
			add(AcceptedNamesVariable(key), list(validation.BuiltinNames(key)))
		}
	}
	// absent parts read as empty: the CRD requires them, the policy need not
	local("spec", `has(object.spec) ? object.spec : {}`)
	add("parentRef", `has(variables.spec.parentRef) ? variables.spec.parentRef : {}`)
	add("listeners", `has(variables.spec.listeners) ? variables.spec.listeners : []`)
	// the listeners' indexes, built a chunk at a time: a filter costs one
	// step per item of its list, and most sets have few listeners
	add("idx", chunked(func(lo, hi int) string {
		return indexRange(lo, hi) + `.filter(i, i < size(variables.listeners))`
	}))
	// an update ratchets only on the Gateway the stored object was on
	// (validation's arrives): one whose parentRef names another Gateway
	// is judged as a create; the Gateway's key as validation.ParentOf makes it
	add("update", `request.operation == "UPDATE" && oldObject != null && `+
		gatewayKey(`variables.parentRef`, `object`)+` == `+
		gatewayKey(`(has(oldObject.spec) && has(oldObject.spec.parentRef) ? oldObject.spec.parentRef : {})`, `oldObject`))
	add("stored", `variables.update && has(oldObject.spec) && has(oldObject.spec.listeners) ? oldObject.spec.listeners : []`)
	rulesLocal("storedParentRef", `variables.update && has(oldObject.spec) && has(oldObject.spec.parentRef) ? oldObject.spec.parentRef : {}`)
	rulesLocal("owner", `(has(object.metadata.namespace) && object.metadata.namespace != "" ? object.metadata.namespace + "/" : "") + `+
		`(has(object.metadata.name) && object.metadata.name != "" ? object.metadata.name : (has(object.metadata.generateName) ? object.metadata.generateName : ""))`)
	// Per listener, the keys the rules between listeners compare, so that
	// they are found with indexOf (a loop in Go) instead of a filter over
	// every earlier listener (a loop in CEL, a hundred times slower).
	add("names", `variables.idx.map(i, variables.listeners[i].name)`)
	// a listener of a protocol Airlock does not serve holds no port
	// (validation.ServedProtocol): its port reads as "none " and its index,
	// which no port written as a number is, so the conflict rule never finds
	// it (a number would: an invalid port -1 is still judged by this rule)
	rulesLocal("served", `variables.idx.map(i, variables.listeners[i].protocol in `+list(validation.SupportedProtocols)+`)`)
	rulesLocal("ports", `variables.idx.map(i, variables.served[i] ? string(variables.listeners[i].port) : "none " + string(i))`)
	rulesAdd("endpoints", `variables.idx.map(i, string(variables.listeners[i].port) + "\u0000" + variables.listeners[i].protocol + "\u0000" + `+
		`(has(variables.listeners[i].hostname) ? variables.listeners[i].hostname : ""))`)
	local("storedNames", `variables.stored.map(o, o.name)`)
	// pair[i]: the index of the stored listener listener i is paired with,
	// -1 for none: the k-th listener of a name with the k-th stored one of
	// that name (validation.NewRatchet); k is 0 unless names repeat.
	add("pair", `variables.idx.map(i, !variables.update ? -1 : `+
		`variables.names.indexOf(variables.names[i]) == i ? variables.storedNames.indexOf(variables.names[i]) : `+
		`[size(variables.idx.filter(j, j < i && variables.names[j] == variables.names[i]))].map(k, `+
		`[`+indexList(MaxIndex)+`.filter(s, s < size(variables.stored) && variables.storedNames[s] == variables.names[i])].map(ss, `+
		`size(ss) > k ? ss[k] : -1)[0])[0])`)
	// the values a conflict involves, per listener: port and protocol
	// (samePorts), and hostname (sameHosts), as its stored pair has them
	rulesAdd("samePorts", `variables.idx.map(i, variables.pair[i] >= 0 && [variables.listeners[i]].all(l, [variables.stored[variables.pair[i]]].all(sl, `+
		sameAs("port")+` && `+sameAs("protocol")+`)))`)
	rulesAdd("sameHosts", `variables.idx.map(i, variables.pair[i] >= 0 && [variables.listeners[i]].all(l, [variables.stored[variables.pair[i]]].all(sl, `+
		sameAs("hostname")+`)))`)

	// parentRef (validateParentRef) and the number of listeners
	// (validateListeners), ratcheted when unchanged; small, so written with
	// their messages for both tiers
	ref := "variables.parentRef"
	sameRef := func(f string) string {
		return fill(`(variables.update && (has({s}.{f}) ? has({r}.{f}) && {s}.{f} == {r}.{f} : !has({r}.{f})))`, "s", "variables.storedParentRef", "r", ref, "f", f)
	}
	rulesAdd("parentRefErrors", fill(`(has({r}.group) && {r}.group != {gw} && !{samegroup} ? [{group}] : []) + (has({r}.kind) && {r}.kind != {gateway} && !{samekind} ? [{kind}] : []) + `+
		`({samename} ? [] : {name}) + (has({r}.namespace) && !{samens} ? {ns} : [])`,
		"r", ref, "gw", lit(gwv1.GroupName), "gateway", lit(string(defaults.GatewayKind)),
		"samegroup", sameRef("group"), "samekind", sameRef("kind"), "samename", sameRef("name"), "samens", sameRef("namespace"),
		"group", notSupported(details, ref+".group", `"spec.parentRef.group"`, []string{gwv1.GroupName}),
		"kind", notSupported(details, ref+".kind", `"spec.parentRef.kind"`, []gwv1.Kind{defaults.GatewayKind}),
		"name", details.dnsSubdomain(ref+".name", `"spec.parentRef.name"`),
		"ns", details.dnsLabel(ref+".namespace", `"spec.parentRef.namespace"`)))
	// the count is the list's: as stored when every listener equals its
	// stored pair, in any order (a map list); compared only when wrong
	unchangedList := fill(`(variables.update && size(variables.stored) == size(variables.listeners) && `+
		`(size(variables.listeners) > {max} ? variables.stored == variables.listeners : `+
		`variables.idx.all(i, variables.pair[i] >= 0 && variables.stored[variables.pair[i]] == variables.listeners[i])))`,
		"max", strconv.Itoa(MaxIndex))
	rulesAdd("countErrors", `(size(variables.listeners) == 0 || size(variables.listeners) > `+strconv.Itoa(validation.MaxListeners)+`) && `+unchangedList+` ? [] : `+
		fill(`size(variables.listeners) == 0 ? [{req}] : size(variables.listeners) > {max} ? [{many}] : []`,
			"req", details.line(`"spec.listeners"`, field.Required(placeholderPath, validation.DetailNoListeners), nil),
			"max", strconv.Itoa(validation.MaxListeners),
			"many", details.tooMany(`"spec.listeners"`, "size(variables.listeners)", validation.MaxListeners)))

	// the rules between listeners: names, then conflicts (validateListeners,
	// validation.Merge.Conflict), each ratcheted by the listeners involved;
	// cheap, written with their messages for both tiers
	rulesAdd("duplicateErrors", `variables.idx.map(i, [variables.names.indexOf(variables.names[i])].map(d, `+
		`d < i && variables.names[i] != "" && !(variables.pair[i] >= 0 && variables.pair[d] >= 0) ? [`+
		details.line(`"spec.listeners[" + string(i) + "].name"`, field.Duplicate(placeholderPath, valueHole), map[string]string{valueHole: "variables.names[i]"})+`] : [])[0])`)
	claim := func(j string) string { return `variables.owner + " listener " + variables.names[` + j + `]` }
	// the listener holding the port (f) or the endpoint (same), its
	// protocol and port
	holderHole, holderProtocolHole, portHole := hole("holder"), hole("holderProtocol"), hole("port")
	protoConflict := details.line(`"spec.listeners[" + string(i) + "].protocol"`,
		field.Invalid(placeholderPath, valueHole, fmt.Sprintf(strings.Replace(validation.DetailProtocolConflict, "%d", "%s", 1), portHole, holderProtocolHole, holderHole)),
		map[string]string{valueHole: "l.protocol", portHole: "string(l.port)", holderProtocolHole: "variables.listeners[f].protocol", holderHole: claim("f")})
	hostConflict := details.line(`"spec.listeners[" + string(i) + "].hostname"`,
		field.Invalid(placeholderPath, valueHole, fmt.Sprintf(validation.DetailHostnameConflict, holderHole)),
		map[string]string{valueHole: `(has(l.hostname) ? l.hostname : "")`, holderHole: claim("same")})
	// the first listener on the port holds it: another protocol conflicts;
	// the same protocol conflicts with the first of the same endpoint; a
	// listener of a protocol Airlock does not serve is never judged
	rulesAdd("conflictErrors", fill(`variables.idx.map(i, !variables.served[i] ? [] : [variables.listeners[i]].map(l, `+
		`[variables.ports.indexOf(variables.ports[i])].map(f, f == i ? [] : `+
		`variables.listeners[f].protocol != l.protocol ? (variables.samePorts[i] && variables.samePorts[f] ? [] : [{proto}]) : `+
		`[variables.endpoints.indexOf(variables.endpoints[i])].map(same, `+
		`same == i || (variables.samePorts[i] && variables.samePorts[same] && variables.sameHosts[i] && variables.sameHosts[same]) ? [] : [{host}])[0])[0])[0])`,
		"proto", protoConflict, "host", hostConflict))
	// the rules over the set's listeners (object.SetRules), between the
	// duplicate names and the conflicts as validateListeners judges them
	var setRules string
	if !declarationsOnly {
		setRules = setRuleErrors(add, over, details)
	}

	// the hostnames the Namespace declares (declared.go)
	declaredVariables(add, local, checks, details, "declarationChecks", "declarationErrors")

	// each listener's own rules (validateListener), by the builders below,
	// and the declared hostnames (validateDeclaredHostnames)
	listenerRules := []struct {
		name string
		body func(writer) string
	}{
		{"basic", writer.basicRules},
		{"tls", writer.tlsRules},
		{"option", writer.optionRules},
		{"route", func(w writer) string {
			return `!has(l.allowedRoutes) ? [] : [l.allowedRoutes].map(ar, ` + w.allowedRoutes("ar", `p + ".allowedRoutes"`) + `)[0]`
		}},
		{"declared", writer.declaredRule},
	}
	if declarationsOnly {
		listenerRules = listenerRules[len(listenerRules)-1:]
	}
	// a listener's own entries, as w writes them: the rules' lists, one
	// after another
	own := func(w writer) string {
		var parts []string
		for _, r := range listenerRules {
			parts = append(parts, "("+r.body(w)+")")
		}
		return strings.Join(parts, " + ")
	}
	listenerEntries := func(ownEntries string) string {
		if declarationsOnly {
			return ownEntries
		}
		return ownEntries + ` + variables.duplicateErrors[i]` + setRules + ` + variables.conflictErrors[i]`
	}
	// the set's own entries, before the listeners'
	setEntries := "variables.parentRefErrors + variables.countErrors + "
	if declarationsOnly {
		setEntries = ""
	}

	// tier 1, the checks: every listener, paths only, a chunk of listeners
	// per variable (a chunk past the set's listeners is never evaluated:
	// variables are evaluated when first read)
	body := own(checks)
	var chunks []string
	for lo := 0; lo < MaxIndex && !declarationsOnly; lo += ListenerChunk {
		name := fmt.Sprintf("ownCheck%d", lo/ListenerChunk)
		add(name, over(indexRange(lo, lo+ListenerChunk)+`.filter(i, i < size(variables.listeners))`, body))
		if lo == 0 {
			chunks = append(chunks, "variables."+name)
		} else {
			chunks = append(chunks, fmt.Sprintf(`(size(variables.listeners) > %d ? variables.%s : [])`, lo, name))
		}
	}
	if declarationsOnly {
		// the declared-hostnames rule alone costs little per listener, and
		// its policy binds what it reads (declarationsPolicy): one pass,
		// no chunk of listeners the set does not have
		chunks = []string{over("variables.idx", body)}
	}
	local("ownCheck", strings.Join(chunks, " + "))
	add("listenerChecks", `variables.idx.map(i, `+listenerEntries("variables.ownCheck[i]")+`)`)
	local("failing", `variables.idx.filter(i, size(variables.listenerChecks[i]) > 0)`)
	add("checks", `(`+setEntries+joined(`variables.listenerChecks`)+` + variables.declarationChecks).join(`+lit(Separator)+`)`)

	// tier 2, the details: the first failing listeners, with messages
	add("shown", indexList(MaxDetailedListeners)+`.filter(k, k < size(variables.failing)).map(k, variables.failing[k])`)
	add("ownDetail", over(`variables.shown`, own(details)))
	shownEntries := listenerEntries("variables.ownDetail[k]")
	// A line break in a value the message shows unquoted (an option key in
	// a path, a listener's name in a conflict) is escaped: kube-apiserver
	// refuses a message with one.
	add("details", `(`+setEntries+
		joined(indexList(MaxDetailedListeners)+`.filter(k, k < size(variables.shown)).map(k, [variables.shown[k]].map(i, `+shownEntries+`)[0])`)+
		` + variables.declarationErrors).join(`+lit(Separator)+`).replace("\n", "\\n")`)

	// the details cut to what a message may hold, at the last entry that
	// fits, then how many entries (of the checks) the message leaves out
	message := fill(`[size(bytes(variables.details)) <= {max} ? variables.details : `+
		`[variables.details.substring(0, size(bytes(variables.details)) == size(variables.details) ? {ascii} : {other})].map(cut, `+
		`[{last}].map(at, at > 0 ? cut.substring(0, at) : cut)[0])[0]].map(kept, `+
		`[{checks} - {kept}].map(more, more > 0 ? kept + "; and " + string(more) + " more" : kept)[0])[0]`,
		"max", strconv.Itoa(MaxMessageBytes), "ascii", strconv.Itoa(MaxMessageBytes-200), "other", strconv.Itoa((MaxMessageBytes-1000)/4),
		"last", lastEntryAt("cut"), "checks", entryCount("variables.checks"), "kept", entryCount("kept"))
	if err := upstream.err(); err != nil {
		return celPolicy{}, err
	}
	for i := range vars {
		vars[i].expression = withRequired(vars[i].expression)
	}
	vars = bindLocals(vars, locals)
	return celPolicy{variables: vars, validation: `variables.checks == ""`, message: whenChecksFind + message}, nil
}

// bindLocals is vars without the locals, each bound in the variables that
// read it, itself or through other locals (letBound).
func bindLocals(vars []variable, locals map[string]bool) []variable {
	kept := map[string]bool{}
	for _, v := range vars {
		kept[v.name] = !locals[v.name]
	}
	var out []variable
	for _, v := range vars {
		if !locals[v.name] {
			bind, _ := letBound(vars, kept, v.expression)
			out = append(out, variable{v.name, bind(v.expression)})
		}
	}
	return out
}

// variableRead finds the reads of a policy variable.
var variableRead = regexp.MustCompile(`\bvariables\.([A-Za-z_][A-Za-z0-9_]*)`)

// letBound binds, in an expression, the variables of vars that root reads,
// itself or through others, but those of bound: wrap(body) is body with
// each of them bound to a local of its own ("v_" and its name), in the
// order of vars (a variable reads only those before it), and evaluated once
// before body, and their reads in body read the locals. A bound variable
// is evaluated where body is, even when body would not read it: only those
// that are cheap and cannot fail where body is evaluated may be bound. It
// returns bound with them added.
func letBound(vars []variable, bound map[string]bool, root string) (wrap func(body string) string, all map[string]bool) {
	all = maps.Clone(bound)
	need := map[string]bool{}
	reads := func(expr string) {
		for _, m := range variableRead.FindAllStringSubmatch(expr, -1) {
			need[m[1]] = !all[m[1]]
		}
	}
	reads(root)
	for i := len(vars) - 1; i >= 0; i-- {
		if need[vars[i].name] {
			reads(vars[i].expression)
		}
	}
	var order []variable
	var names []string
	for _, v := range vars {
		if need[v.name] {
			order, names = append(order, v), append(names, v.name)
			all[v.name] = true
		}
	}
	if len(order) == 0 {
		return func(body string) string { return body }, all
	}
	reading := regexp.MustCompile(`\bvariables\.(` + strings.Join(names, "|") + `)\b`)
	return func(body string) string {
		for i := len(order) - 1; i >= 0; i-- {
			body = "[" + order[i].expression + "].map(v_" + order[i].name + ", " + body + ")[0]"
		}
		return reading.ReplaceAllString(body, "v_$1")
	}, all
}

// whenChecksFind begins the message: kube-apiserver evaluates it even when
// the validation passes, so the details are built only when the checks
// found something.
const whenChecksFind = `variables.checks == "" ? "" : `

// EntryStarts are how the paths of the message's entries begin; an entry
// starts where Separator is followed by one of them. Entries of the second
// (the declaration's, at metadata.namespace) are there only when the
// variable declarationChecks has any.
var EntryStarts = []string{"spec.", "metadata."}

// entryCount is the CEL for the number of entries in the entries s joined
// by Separator (1 for ""; s is never "" where it is asked). The checks of
// the costliest object are hundreds of KiB, and a split is charged by the
// length: the declaration's entries are counted only where there are any.
func entryCount(s string) string {
	return fill(`(size({s}.split({spec})) + (size(variables.declarationChecks) > 0 ? size({s}.split({meta})) - 1 : 0))`,
		"s", s, "spec", lit(Separator+EntryStarts[0]), "meta", lit(Separator+EntryStarts[1]))
}

// lastEntryAt is the CEL for the index of the Separator before the last
// entry of the entries s (-1 for one entry).
func lastEntryAt(s string) string {
	expr := s + ".lastIndexOf(" + lit(Separator+EntryStarts[0]) + ")"
	for _, start := range EntryStarts[1:] {
		expr = fill(`[{a}].map(a, [{s}.lastIndexOf({sep})].map(b, a > b ? a : b)[0])[0]`, "a", expr, "s", s, "sep", lit(Separator+start))
	}
	return expr
}

// requiredField finds the reads of fields the CRD requires.
var requiredField = regexp.MustCompile(`\b(l|sl|r|k|e|o|variables\.parentRef|variables\.listeners\[[a-z0-9\[\]]+\])\.(name|port|protocol|kind|key|operator)\b`)

// withRequired reads every field the CRD's schema requires (a listener's
// name, port and protocol, a reference's name, a route kind's kind, a
// selector requirement's key and operator) as its zero value when absent,
// as the Go types decode it: kube-apiserver never admits an object without
// them, but the policy must not fail where another CRD (or none) let one
// through.
func withRequired(expr string) string {
	var out strings.Builder
	last := 0
	for _, at := range requiredField.FindAllStringIndex(expr, -1) {
		m := expr[at[0]:at[1]]
		out.WriteString(expr[last:at[0]])
		last = at[1]
		if strings.HasSuffix(expr[:at[0]], "has(") {
			out.WriteString(m) // a presence test already
			continue
		}
		zero := `""`
		if strings.HasSuffix(m, ".port") {
			zero = "0"
		}
		out.WriteString("(has(" + m + ") ? " + m + " : " + zero + ")")
	}
	out.WriteString(expr[last:])
	return out.String()
}

// same is the CEL condition under which listener i's errors that involve
// the values at paths ratchet (object's ratchet.Same): i has a stored
// pair sl, and sl holds what l holds at each path. A path is a chain of
// fields from the listener, optionally ending in a map key ("[k]", k a CEL
// expression); absent equals absent only. With no paths: i is paired (its
// name, the key, is as stored).
func same(paths ...string) string {
	conds := []string{"variables.pair[i] >= 0"}
	for _, path := range paths {
		conds = append(conds, sameAs(path))
	}
	return "(" + strings.Join(conds, " && ") + ")"
}

// sameAs is the CEL for: sl holds what l holds at path (see same).
func sameAs(path string) string {
	switch path {
	case "name", "port", "protocol": // required: read as their zero value when absent (withRequired)
		return "sl." + path + " == l." + path
	}
	fields, key, keyed := strings.Cut(path, "[")
	key = strings.TrimSuffix(key, "]")
	present := func(root string) string {
		var conds []string
		x := root
		for f := range strings.SplitSeq(fields, ".") {
			conds = append(conds, "has("+x+"."+f+")")
			x += "." + f
		}
		if keyed {
			conds = append(conds, key+" in "+x)
		}
		return strings.Join(conds, " && ")
	}
	at := func(root string) string {
		if keyed {
			return root + "." + fields + "[" + key + "]"
		}
		return root + "." + fields
	}
	// Compared as one-item lists: CEL charges a comparison of strings by
	// their length (a tenth of a unit per byte), of lists by their items,
	// for the same comparison of bytes underneath; the 4 KiB option
	// values of 64 listeners, compared as strings, cost 8 % of
	// kube-apiserver's budget (TestWorstObjectCost, update of every value).
	return "((" + present("l") + ") ? (" + present("sl") + ") && [" + at("sl") + "] == [" + at("l") + "] : !(" + present("sl") + "))"
}

// basicRules: name, port, protocol, hostname (validateListener).
func (w writer) basicRules() string {
	return fill(`({paired} ? [] : {name}) + ((l.port < {minport} || l.port > {maxport}) && !{sameport} ? [{port}] : []) + `+
		`({sameprotocol} ? [] : l.protocol == "" ? [{preq}] : !(l.protocol in {protocols}) ? [{pns}] : []) + `+
		`(has(l.hostname) && !{samehost} ? {host} : [])`,
		"paired", same(), "sameport", same("port"), "sameprotocol", same("protocol"), "samehost", same("hostname"),
		"name", w.dnsSubdomain("l.name", `p + ".name"`),
		"minport", strconv.Itoa(minPort), "maxport", strconv.Itoa(maxPort),
		"port", w.line(`p + ".port"`, field.Invalid(placeholderPath, intValueHole, only(w, "IsValidPortNum", k8svalidation.IsValidPortNum, 0)),
			map[string]string{strconv.FormatInt(intValueHole, 10): "l.port"}),
		"preq", w.line(`p + ".protocol"`, field.Required(placeholderPath, ""), nil),
		"protocols", list(validation.SupportedProtocols),
		"pns", notSupported(w, "l.protocol", `p + ".protocol"`, validation.SupportedProtocols),
		"host", w.hostname("l.hostname", `p + ".hostname"`)) + valueRulesAfter(w)
}

// valueRulesAfter is the ListenerValueRules' entries after the basic
// rules' (validateListener judges them after the hostname).
func valueRulesAfter(w writer) string {
	if len(validation.ListenerValueRules()) == 0 {
		return ""
	}
	return " + " + w.valueRules()
}

// tlsRules: tls presence, mode, certificateRefs (validateListenerTLS).
func (w writer) tlsRules() string {
	refs := `(has(l.tls.certificateRefs) ? l.tls.certificateRefs : [])`
	protocolHole := hole("protocol")
	refBody := fill(`[{refs}[j]].map(r, [{rp}].map(rp, (has(r.group) && r.group != {secretgroup} ? [{group}] : []) + (has(r.kind) && r.kind != {secret} ? [{kind}] : []) + {name} + (has(r.namespace) ? {ns} : []))[0])[0]`,
		"refs", refs, "rp", `p + ".tls.certificateRefs[" + string(j) + "]"`,
		"secretgroup", lit(string(defaults.SecretGroup)), "secret", lit(string(defaults.SecretKind)),
		"group", notSupported(w, "r.group", `rp + ".group"`, []gwv1.Group{defaults.SecretGroup}),
		"kind", notSupported(w, "r.kind", `rp + ".kind"`, []gwv1.Kind{defaults.SecretKind}),
		"name", w.dnsSubdomain("r.name", `rp + ".name"`),
		"ns", w.dnsLabel("r.namespace", `rp + ".namespace"`))
	// certificateRefs is an atomic list: its errors ratchet by the whole
	// list; "required when mode is Terminate" by the whole tls, the
	// absent value's parent (validateCertificateRefs)
	return fill(`l.protocol == {http} ? (has(l.tls) && !{sameprototls} ? [{forbidden}] : []) : `+
		`!has(l.tls) ? ((l.protocol == {https} || l.protocol == {http3}) && !{sameprototls} ? [{required}] : []) : `+
		`(has(l.tls.mode) && l.tls.mode != {terminate}) ? ({samemode} ? [] : [{mode}]) : `+
		`size({refs}) == 0 ? ({sametls} ? [] : [{norefs}]) : {samerefs} ? [] : (size({refs}) > 1 ? [{manyrefs}] : []) + `+
		joined(indexList(MaxCertificateRefs)+`.filter(j, j < size({refs})).map(j, {ref})`),
		"sameprototls", same("protocol", "tls"), "sametls", same("tls"), "samemode", same("tls.mode"), "samerefs", same("tls.certificateRefs"),
		"http", lit(string(validation.ProtocolHTTP)), "https", lit(string(validation.ProtocolHTTPS)), "http3", lit(string(validation.ProtocolHTTP3)),
		"forbidden", w.line(`p + ".tls"`, field.Forbidden(placeholderPath, validation.DetailTLSForbidden), nil),
		"required", w.line(`p + ".tls"`, field.Required(placeholderPath, fmt.Sprintf(validation.DetailTLSRequired, protocolHole)), map[string]string{protocolHole: "l.protocol"}),
		"terminate", lit(string(gwv1.TLSModeTerminate)),
		"mode", notSupported(w, "l.tls.mode", `p + ".tls.mode"`, []gwv1.TLSModeType{gwv1.TLSModeTerminate}),
		"refs", refs,
		"norefs", w.line(`p + ".tls.certificateRefs"`, field.Required(placeholderPath, validation.DetailNoCertificateRef), nil),
		"manyrefs", w.tooMany(`p + ".tls.certificateRefs"`, "size("+refs+")", 1),
		"ref", refBody)
}

// optionRules: tls.options (validateOptions).
func (w writer) optionRules() string {
	return fill(`(l.protocol == {http} || !has(l.tls) || !has(l.tls.options)) ? [] : `+
		`[l.tls.options].map(o, (size(o) > {maxopts} && !{sameopts} ? [{manyopts}] : []) + `+
		joined(`o.map(k, {samekey} ? [] : [p + ".tls.options[" + k + "]"].map(kp, {key})[0])`)+` + {range})[0]`,
		"sameopts", same("tls.options"), "samekey", same("tls.options[k]"),
		"http", lit(string(validation.ProtocolHTTP)),
		"maxopts", strconv.Itoa(validation.MaxOptions),
		"manyopts", w.tooMany(`p + ".tls.options"`, "size(o)", validation.MaxOptions),
		"key", w.optionKey("k", "o[k]", "kp"),
		"range", w.versionRange("o"))
}

// hostname is validateHostname of h at path.
func (w writer) hostname(h, path string) string {
	detailHole := hole("detail")
	return w.hostnameDetails(h) + ".map(hd, " + w.line(path, field.Invalid(placeholderPath, valueHole, detailHole), map[string]string{valueHole: h, detailHole: "hd"}) + ")"
}

// hostnameDetails is validateHostname of h: the CEL list of its errors'
// details.
func (w writer) hostnameDetails(h string) string {
	badName := only(w, "IsDNS1123Subdomain", k8svalidation.IsDNS1123Subdomain, "-")
	// The address expression is long, and kube-apiserver charges a match by
	// the string's length times the expression's: only a hostname of
	// address characters alone is matched against it.
	return fill(`({h} == "" ? [{empty}] : ({h}.matches({ipchars}) && {h}.matches({ip})) ? [{isip}] : {h}.contains(":") ? [{port}] : `+
		`(size(bytes({h})) > {max} ? [{long}] : []) + `+
		`({h}.startsWith({wildcard}) ? (!{h}.substring({after}).matches({sub}) ? [{wregex}] : []) : (!{h}.matches({sub}) ? [{regex}] : [])))`,
		"h", h, "wildcard", lit(validation.WildcardPrefix), "after", strconv.Itoa(len(validation.WildcardPrefix)),
		"empty", lit(validation.DetailEmptyHostname),
		"ip", lit(reIP), "ipchars", lit(reIPChars), "isip", lit(validation.DetailHostnameIP),
		"port", lit(validation.DetailHostnamePort),
		"max", strconv.Itoa(k8svalidation.DNS1123SubdomainMaxLength), "long", lit(k8svalidation.MaxLenError(k8svalidation.DNS1123SubdomainMaxLength)),
		"sub", anchored(dns1123SubdomainRegex), "wregex", lit(validation.DetailAfterWildcard+badName), "regex", lit(badName))
}

// optionKey is the entries of one option k with value v at kpath.
func (w writer) optionKey(k, v, kpath string) string {
	inv := func(x, msg string) string {
		return w.line(kpath, field.Invalid(placeholderPath, valueHole, msg), map[string]string{valueHole: x})
	}
	expr := fill(`size({v}) > {maxlen} ? [{long}] : !{k}.contains("/") ? [{unprefixed}] : !{k}.startsWith({prefix}) ? {labelkey} : `,
		"v", v, "k", k, "maxlen", strconv.Itoa(validation.MaxOptionValueLen),
		"long", w.line(kpath, field.TooLong(placeholderPath, "", validation.MaxOptionValueLen), nil),
		"unprefixed", inv(k, validation.DetailUnprefixedOption),
		"prefix", lit(validation.OptionPrefix),
		"labelkey", w.labelKey(k, kpath))
	// each of Airlock's options as its row of rules.AirlockOptions says:
	// a list-valued one's items, or one value of a set; options of the
	// same set (the versions) share one test
	for _, o := range validation.AirlockOptions {
		if o.List {
			expr += k + " == " + lit(string(o.Key)) + " ? " + w.nameList(v, kpath, o) + " : "
		}
	}
	for _, set := range valueSets() {
		keys := make([]string, len(set))
		for i, o := range set {
			keys[i] = k + " == " + lit(string(o.Key))
		}
		cond := keys[0]
		if len(keys) > 1 {
			cond = "(" + strings.Join(keys, " || ") + ")"
		}
		expr += cond + " ? " + fill(`(!({v} in {values}) ? [{ns}] : [])`, "v", v, "values", list(set[0].Values),
			"ns", notSupported(w, v, kpath, set[0].Values)) + " : "
	}
	expr += "[" + notSupported(w, k, kpath, validation.SupportedOptions) + "]"
	return "(" + expr + ")"
}

// nameList is validateNameList of v, the value of the list-valued option
// key: every item of the first len(built-in names)+ListSlack judged as the
// Go rule judges it, and one entry for a longer list. The names it accepts
// are the variable AcceptedNamesVariable(key), which holds the names a
// setting adds too.
func (w writer) nameList(v, kpath string, opt validation.AirlockOption) string {
	allowed := opt.Values
	accepted := "variables." + AcceptedNamesVariable(opt.Key)
	// A list with more items than there are names must repeat or misspell
	// one: its first len(allowed)+ListSlack items are judged one by one
	// (the slack keeps short lists' every mistake), the rest summed up in
	// one entry.
	n := len(allowed) + ListSlack
	inv := func(x, msg string) string {
		return w.line(kpath, field.Invalid(placeholderPath, valueHole, msg), map[string]string{valueHole: x})
	}
	// the rest's entry: field.TooMany's, with the count of items
	tooMany, most, _ := strings.Cut(field.TooMany(placeholderPath, int(intValueHole), n).ErrorBody(), strconv.FormatInt(intValueHole, 10))
	explain := ""
	if len(opt.Refused) > 0 {
		explain = fill(`it in {refused} ? {why} : `, "refused", list(opt.Refused), "why", inv("it", opt.RefusedDetail))
	}
	// The usual list, names only, each once, is told in a few steps; only
	// another is judged item by item. (Not by a regular expression of the
	// names: kube-apiserver charges a match by the length of the string
	// times that of the expression.)
	valid := fill(`[{v}.split(",")].all(items, size(items) <= size({allowed}) && items.all(x, x in {allowed} && items.indexOf(x) == items.lastIndexOf(x)))`,
		"v", v, "allowed", accepted)
	return fill(`({v} == "" ? [{empty}] : {valid} ? [] : [{v}.split(",")].map(items, `+
		`{idx}.filter(j, j < size(items)).map(j, [items[j]].map(it, it == "" ? {emptyitem} : it.trim() != it ? {padded} : `+
		`{idx}.exists(m, m < j && items[m] == it) ? {dup} : it in {allowed} ? "" : {explain}{ns})[0]).filter(s, s != "") + `+
		`(size(items) > {n} ? [{summary}] : []))[0])`,
		"v", v, "empty", inv(v, validation.DetailEmptyNameList), "valid", valid,
		"idx", indexList(n), "n", strconv.Itoa(n),
		"emptyitem", inv(v, validation.DetailEmptyItem), "padded", inv("it", validation.DetailPaddedItem),
		"dup", w.line(kpath, field.Duplicate(placeholderPath, valueHole), map[string]string{valueHole: "it"}),
		"allowed", accepted, "explain", explain,
		"ns", w.notSupportedName("it", kpath, accepted),
		"summary", w.rawLine(kpath, lit(tooMany)+" + string(size(items)) + "+lit(most+" (each supported value once); the ListenerSet policy lists the problems of the first "+strconv.Itoa(n))))
}

// valueSets are the options that take one value of a set, those of the
// same set (the same Values) together, in rules.AirlockOptions' order.
func valueSets() [][]validation.AirlockOption {
	var sets [][]validation.AirlockOption
	for _, o := range validation.AirlockOptions {
		if o.List {
			continue
		}
		i := slices.IndexFunc(sets, func(s []validation.AirlockOption) bool { return slices.Equal(s[0].Values, o.Values) })
		if i < 0 {
			sets = append(sets, nil)
			i = len(sets) - 1
		}
		sets[i] = append(sets[i], o)
	}
	return sets
}

// AcceptedNamesVariable names the policy's variable that holds the names the
// list-valued option key accepts ("accepted_ecdhCurves"): the built-in ones,
// and those a setting adds (Options.AddedNames; the chart's airlock.addNames
// appends to it).
func AcceptedNamesVariable(key gwv1.AnnotationKey) string {
	return "accepted_" + strings.ReplaceAll(strings.TrimPrefix(string(key), validation.OptionPrefix), "-", "_")
}

// notSupportedName is notSupported of the item x of a list-valued option,
// whose supported values are the CEL list accepted: the message names the
// names a setting added, as the Go rule's does.
func (w writer) notSupportedName(x, path, accepted string) string {
	supported := hole("supported")
	before, after, _ := strings.Cut(field.NotSupported(placeholderPath, valueHole, []string{supported}).ErrorBody(), strconv.Quote(supported))
	holes := map[string]string{valueHole: x}
	return w.rawLine(path, "["+render(before, holes)+", "+accepted+`.map(n, strings.quote(n)).join(", "), `+render(after, holes)+`].join("")`)
}

// versionRange is validateVersionRange of the options o of listener l.
func (w writer) versionRange(o string) string {
	minK, maxK := lit(string(validation.OptionMinimumVersion)), lit(string(validation.OptionMaximumVersion))
	maxPath := `p + ".tls.options[" + ` + maxK + ` + "]"`
	minimumHole := hole("minimum")
	below := fmt.Sprintf(validation.DetailVersionBelowMinimum, minimumHole)
	return fill(`(({min} in {o}) && ({max} in {o}) && {o}[{min}] in {versions} && {o}[{max}] in {versions} && {versions}.indexOf({o}[{min}]) > {versions}.indexOf({o}[{max}]) && !{samerange} ? [{below}] : []) + `+
		`(l.protocol == {http3} && ({max} in {o}) && {o}[{max}] in {versions} && {o}[{max}] != {v13} && !{samehttp3} ? [{http3msg}] : [])`,
		"o", o, "min", minK, "max", maxK, "versions", list(validation.TLSVersions),
		"samerange", same("tls.options["+minK+"]", "tls.options["+maxK+"]"), "samehttp3", same("protocol", "tls.options["+maxK+"]"),
		"below", w.line(maxPath, field.Invalid(placeholderPath, valueHole, below), map[string]string{valueHole: o + "[" + maxK + "]", minimumHole: o + "[" + minK + "]"}),
		"http3", lit(string(validation.ProtocolHTTP3)), "v13", lit(validation.TLSVersionHTTP3),
		"http3msg", w.line(maxPath, field.Invalid(placeholderPath, valueHole, validation.DetailHTTP3NeedsTLS13), map[string]string{valueHole: o + "[" + maxK + "]"}))
}

// allowedRoutes is validateAllowedRoutes of ar at path.
func (w writer) allowedRoutes(ar, path string) string {
	kinds := `(has(` + ar + `.kinds) ? ` + ar + `.kinds : [])`
	kind := fill(`[{kinds}[j]].map(k, (has(k.group) && k.group != {gw} ? [{group}] : []) + (k.kind != {httproute} ? (k.kind == "" ? [{req}] : [{ns}]) : []))[0]`,
		"kinds", kinds, "gw", lit(gwv1.GroupName), "httproute", lit(string(validation.HTTPRouteKind)),
		"group", notSupported(w, "k.group", path+` + ".kinds[" + string(j) + "].group"`, []string{gwv1.GroupName}),
		"req", w.line(path+` + ".kinds[" + string(j) + "].kind"`, field.Required(placeholderPath, ""), nil),
		"ns", notSupported(w, "k.kind", path+` + ".kinds[" + string(j) + "].kind"`, []gwv1.Kind{validation.HTTPRouteKind}))
	nsPath := path + ` + ".namespaces"`
	from := `(has(ns.from) ? ns.from : ` + lit(string(gwv1.NamespacesFromSame)) + `)`
	namespaces := fill(`[{ar}.namespaces].map(ns, {from} == {selectorfrom} ? (has(ns.selector) ? {selector} : {samesel} ? [] : [{req}]) : ({from} == {all} || {from} == {same}) || {samefrom} ? [] : [{ns}])[0]`,
		"ar", ar, "from", from, "selectorfrom", lit(string(gwv1.NamespacesFromSelector)),
		"all", lit(string(gwv1.NamespacesFromAll)), "same", lit(string(gwv1.NamespacesFromSame)),
		"samesel", same("allowedRoutes.namespaces.from", "allowedRoutes.namespaces.selector"), "samefrom", same("allowedRoutes.namespaces.from"),
		"selector", w.selector("ns.selector", nsPath+` + ".selector"`),
		"req", w.line(nsPath+` + ".selector"`, field.Required(placeholderPath, validation.DetailSelectorRequired), nil),
		"ns", notSupported(w, from, nsPath+` + ".from"`, validation.SupportedFrom))
	// kinds is an atomic list: ratcheted whole
	return `(` + same("allowedRoutes.kinds") + ` ? [] : ` + joined(indexed(kinds, "j", kind, MaxRouteKinds)) + `)` +
		` + (has(` + ar + `.namespaces) ? ` + namespaces + ` : [])`
}

// selector is validation's validateLabelSelector of s at path: a list over
// its bound gets Too many, checked by size before any walk, and its items
// are not judged, so that the walk is bounded by the bounds.
func (w writer) selector(s, path string) string {
	sel := "allowedRoutes.namespaces.selector" // s, as read from l and sl
	labelsPath := path + ` + ".matchLabels"`
	labels := s + `.matchLabels`
	exprs := `(has(` + s + `.matchExpressions) ? ` + s + `.matchExpressions : [])`
	ePath := path + ` + ".matchExpressions[" + string(j) + "]"`
	vals := `(has(e.values) ? e.values : [])`
	operators := func(ops ...metav1.LabelSelectorOperator) string { return list(ops) }
	// apimachinery's requirement rule (ValidateLabelSelectorRequirement)
	// gives these, its values aside
	required := w.selectorDetail(metav1.LabelSelectorRequirement{Key: "a", Operator: metav1.LabelSelectorOpIn}, "values", field.ErrorTypeRequired)
	forbidden := w.selectorDetail(metav1.LabelSelectorRequirement{Key: "a", Operator: metav1.LabelSelectorOpExists, Values: []string{"a"}}, "values", field.ErrorTypeForbidden)
	badOperator := w.selectorDetail(metav1.LabelSelectorRequirement{Key: "a", Operator: "-"}, "operator", field.ErrorTypeInvalid)
	expr := fill(`[{exprs}[j]].map(e, size({vals}) > {max} ? [{manyvals}] : (e.operator in {inout} ? (size({vals}) == 0 ? [{req}] : []) : e.operator in {exists} ? (size({vals}) > 0 ? [{forb}] : []) : [{badop}]) + `+
		`{key} + `+joined(indexed(vals, "m", w.labelValue(vals+"[m]", ePath+` + ".values[" + string(m) + "]"`), validation.MaxSelectorItems))+`)[0]`,
		"exprs", exprs, "vals", vals, "max", strconv.Itoa(validation.MaxSelectorItems),
		"manyvals", w.tooMany(ePath+` + ".values"`, "size("+vals+")", validation.MaxSelectorItems),
		"inout", operators(metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn),
		"exists", operators(metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist),
		"req", w.line(ePath+` + ".values"`, field.Required(placeholderPath, required), nil),
		"forb", w.line(ePath+` + ".values"`, field.Forbidden(placeholderPath, forbidden), nil),
		"badop", w.line(ePath+` + ".operator"`, field.Invalid(placeholderPath, valueHole, badOperator), map[string]string{valueHole: "e.operator"}),
		"key", w.labelKey("e.key", ePath+` + ".key"`))
	// matchLabels is a map (each label ratcheted by its value, the count
	// by the map), matchExpressions an atomic list (ratcheted whole)
	return fill(`((has({labels}) ? (size({labels}) > {max} ? ({samelabels} ? [] : [{manylabels}]) : {walklabels}) : []) + `+
		`({sameexprs} ? [] : size({exprs}) > {max} ? [{manyexprs}] : {walkexprs}))`,
		"samelabels", same(sel+".matchLabels"), "sameexprs", same(sel+".matchExpressions"),
		"labels", labels, "exprs", exprs, "max", strconv.Itoa(validation.MaxSelectorItems),
		"manylabels", w.tooMany(labelsPath, "size("+labels+")", validation.MaxSelectorItems),
		"walklabels", joined(labels+`.map(k, `+same(sel+".matchLabels[k]")+` ? [] : `+w.labelKey("k", labelsPath)+` + `+w.labelValue(labels+"[k]", labelsPath)+`)`),
		"manyexprs", w.tooMany(path+` + ".matchExpressions"`, "size("+exprs+")", validation.MaxSelectorItems),
		"walkexprs", joined(indexed(exprs, "j", expr, validation.MaxSelectorItems)))
}

// tooMany is the entry field.TooMany gives at path when the CEL int size
// is over limit.
func (w writer) tooMany(path, size string, limit int) string {
	return w.line(path, field.TooMany(placeholderPath, int(intValueHole), limit), map[string]string{strconv.FormatInt(intValueHole, 10): size})
}

// MaxRouteKinds is how many route kinds are walked by index: the CRD's
// maxItems.
const MaxRouteKinds = 8

// indexed maps the items of the CEL list x to body, with its index as the
// variable v, through an index list of n: every list walked so is bounded
// to n, by the CRD or by a Too many checked before (1.29's CEL has no
// range, and a walk by indexOf is quadratic).
func indexed(x, v, body string, n int) string {
	return fill(`(size({x}) == 0 ? [] : {idx}.filter({v}, {v} < size({x})).map({v}, {body}))`,
		"idx", indexList(n), "x", x, "v", v, "body", body)
}

// gatewayKey is the CEL of the key of the Gateway a parentRef ref of the
// ListenerSet obj names, "" when it names none: "namespace/name" as
// validation's ParentKey makes it (an unset or empty namespace is the
// set's own; a group or kind other than Gateway's, or no name, names none).
func gatewayKey(ref, obj string) string {
	return fill(`[{r}].map(r, (!has(r.group) || r.group == {group}) && (!has(r.kind) || r.kind == {kind}) && has(r.name) && r.name != "" ? `+
		`(has(r.namespace) && r.namespace != "" ? r.namespace : (has({o}.metadata.namespace) ? {o}.metadata.namespace : "")) + "/" + r.name : "")[0]`,
		"r", ref, "o", obj, "group", lit(gwv1.GroupName), "kind", lit(string(defaults.GatewayKind)))
}
