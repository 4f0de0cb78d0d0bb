package policy

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	k8svalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/airlock/listenerset-webhook/validation"
)

// The declared hostnames (incluster's validateDeclaredHostnames): where
// the ListenerSet's Namespace declares, in an annotation, the hostnames its
// ListenerSets may claim, every listener's hostname must be covered. The
// policy reads the declaration from namespaceObject, the Namespace
// kube-apiserver hands to admission (null for a cluster-scoped request, so
// never for a ListenerSet; handled all the same), with the annotation's key
// in the variable AllowedHostnamesVariable (Options.AllowedHostnamesAnnotation).
// A ListenerSet in a Namespace with a declaration never takes the fast path
// (fastPathExpression).
//
// Cost: the declaration holds at most rules.MaxAllowedHostnames entries (a
// longer one is one error, told by the size of its split); each entry is
// told valid or not by one match (an entry of more than a hostname's length
// by its length alone), and the message says what is wrong with the first
// MaxDetailedEntries bad ones only. Each listener's hostname is compared
// with every entry of a valid declaration: the exact entries by one
// membership test, each wildcard by one suffix test. kube-apiserver
// evaluates the validation and its message apart, each with its own
// variables, so all of it is paid twice.

// AllowedHostnamesVariable names the policy's variable that holds the key of
// the Namespace annotation the declarations are read from
// (Options.AllowedHostnamesAnnotation).
const AllowedHostnamesVariable = "allowedHostnamesAnnotation"

// MaxDetailedEntries is how many bad entries of a malformed declaration
// the message details; the others are counted ("; and N more"). Finding
// the bad entries costs one match each, telling what is wrong with one up
// to a match against the address pattern, charged by its length.
const MaxDetailedEntries = 8

// declaredVariables adds the rule's variables, in order (by add, and by
// local the cheap helpers bound where they are read): the declaration,
// its problems and its errors at metadata.namespace (checksName as the
// checks write them, errorsName as the details do), and what a valid one
// allows, per listener (undeclared).
func declaredVariables(add, local func(name, expr string), checks, details writer, checksName, errorsName string) {
	key := "variables." + AllowedHostnamesVariable
	add(AllowedHostnamesVariable, lit(validation.DefaultAllowedHostnamesAnnotation))
	// the ListenerSet's namespace, as the Go rule names it
	local("setNamespace", `has(object.metadata.namespace) ? object.metadata.namespace : ""`)
	add("declared", `namespaceObject != null && has(namespaceObject.metadata.annotations) && `+key+` in namespaceObject.metadata.annotations`)
	add("declaration", `variables.declared ? namespaceObject.metadata.annotations[`+key+`] : ""`)
	add("declaredEntries", `variables.declared && variables.declaration.trim() != "" ? variables.declaration.split(",") : []`)
	maxLen := strconv.Itoa(k8svalidation.DNS1123SubdomainMaxLength)
	// the indexes of the entries that are neither "*" nor a hostname
	// (validateHostname: within the length, the pattern, not an IPv4
	// address, the only address the pattern lets through, no longer than
	// its longest; the pattern has no ":"), of a declaration within the
	// limit: each one problem
	add("badEntries", fill(`size(variables.declaredEntries) > {max} ? [] : {idx}.filter(j, j < size(variables.declaredEntries) && `+
		`[variables.declaredEntries[j]].all(e, !(e == {all} || size(e) <= {maxlen} && e.matches({entry}) && !(size(e) <= {maxipv4} && e.matches({ipv4})))))`,
		"max", strconv.Itoa(validation.MaxAllowedHostnames), "idx", indexList(validation.MaxAllowedHostnames),
		"all", lit(validation.AllHostnames), "maxlen", maxLen, "maxipv4", strconv.Itoa(len("255.255.255.255")),
		"entry", lit(`^(`+regexp.QuoteMeta(validation.WildcardPrefix)+`)?`+dns1123SubdomainRegex+`$`), "ipv4", lit(`^`+reIPv4+`$`)))
	local("declarationValid", fill(`variables.declared && size(variables.declaredEntries) > 0 && size(variables.declaredEntries) <= {max} && size(variables.badEntries) == 0`,
		"max", strconv.Itoa(validation.MaxAllowedHostnames)))
	// a problem of the whole declaration, as validation's
	// DeclarationProblem.String words it
	entryNumber := strconv.FormatInt(intValueHole, 10)
	tooMany := render(fmt.Sprintf(validation.DetailDeclarationTooMany, intValueHole, validation.MaxAllowedHostnames),
		map[string]string{entryNumber: "size(variables.declaredEntries)"})
	add("declarationWhole", fill(`!variables.declared ? [] : variables.declaration.trim() == "" ? [{empty}] : size(variables.declaredEntries) > {max} ? [{many}] : []`,
		"empty", lit(validation.DetailDeclarationEmpty), "max", strconv.Itoa(validation.MaxAllowedHostnames), "many", tooMany))

	// each problem an error at metadata.namespace: the checks write one
	// per problem, the details the first MaxDetailedEntries bad entries'
	// (the message counts the others), each as DeclarationProblem.String
	// words it
	reasonHole := hole("reason")
	problem := func(reason string) string {
		return render(fmt.Sprintf(validation.DetailDeclarationEntry, intValueHole, valueHole, reasonHole),
			map[string]string{entryNumber: "j + 1", valueHole: "e", reasonHole: reason})
	}
	entry := fill(`[variables.declaredEntries[j]].map(e, e == "" ? {empty} : e.trim() != e ? {blanks} : `+
		`size(bytes(e)) > {maxlen} ? {long} : [{hostname}].map(d, size(d) == 0 ? "" : {first})[0])[0]`,
		"empty", problem(lit(validation.DetailEntryEmpty)), "blanks", problem(lit(validation.DetailEntryBlanks)),
		"maxlen", maxLen, "long", problem(lit(k8svalidation.MaxLenError(k8svalidation.DNS1123SubdomainMaxLength))),
		"hostname", details.hostnameDetails("e"), "first", problem("d[0]"))
	keyHole, problemHole := hole("key"), hole("problem")
	nsError := func(w writer) string {
		return w.line(lit(field.NewPath("metadata", "namespace").String()),
			field.Invalid(placeholderPath, valueHole, fmt.Sprintf(validation.DetailDeclarationProblem, keyHole, valueHole, problemHole)),
			map[string]string{valueHole: "variables.setNamespace", keyHole: key, problemHole: "p"})
	}
	add(checksName, `(variables.declarationWhole + variables.badEntries.map(j, "")).map(p, `+nsError(checks)+`)`)
	add(errorsName, `(variables.declarationWhole + `+indexList(MaxDetailedEntries)+`.filter(k, k < size(variables.badEntries)).map(k, `+
		`[variables.badEntries[k]].map(j, `+entry+`)[0])).map(p, `+nsError(details)+`)`)

	// what a valid declaration allows: everything ("*"), the exact
	// entries (wildcards too: a wildcard covers itself), and the names
	// under each wildcard, which end with its suffix (".example.com" of
	// "*.example.com")
	local("declaredAll", `variables.declarationValid && `+lit(validation.AllHostnames)+` in variables.declaredEntries`)
	local("declaredNames", `variables.declarationValid ? variables.declaredEntries.filter(e, e != `+lit(validation.AllHostnames)+`) : []`)
	local("declaredSuffixes", fill(`variables.declarationValid ? variables.declaredEntries.filter(e, e.startsWith({w})).map(e, e.substring({n})) : []`,
		"w", lit(validation.WildcardPrefix), "n", strconv.Itoa(len(validation.WildcardPrefix)-1)))
	// per listener, whether the declaration leaves its hostname out (AllowedHostnames.Allows);
	// [] when it covers every hostname or there is none
	add("undeclared", `!variables.declarationValid || variables.declaredAll ? [] : variables.idx.map(i, [variables.listeners[i]].all(l, `+
		`!has(l.hostname) || !(l.hostname in variables.declaredNames || variables.declaredSuffixes.exists(s, l.hostname.endsWith(s)))))`)
	// the declaration as a denial quotes it (only a valid one is quoted:
	// ASCII, so a character is a byte)
	cutHole := hole("cut")
	add("quotedDeclaration", fill(`size(variables.declaration) <= {max} ? strings.quote(variables.declaration) : `+
		`[variables.declaration.substring(0, {max})].map(c, c.lastIndexOf(",") > 0 ? c.substring(0, c.lastIndexOf(",")) : c).map(cut, {quoted})[0]`,
		"max", strconv.Itoa(validation.MaxQuotedDeclaration),
		"quoted", render(fmt.Sprintf(validation.DetailDeclarationCut, cutHole, intValueHole),
			map[string]string{cutHole: "cut", entryNumber: "size(variables.declaration) - size(cut)"})))
}

// declaredRule: the listener's hostname outside its Namespace's
// declaration (validateDeclaredHostnames), ratcheted by the hostname.
func (w writer) declaredRule() string {
	hostHole, keyHole, quotedHole := hole("hostname"), hole("key"), hole("quoted")
	holes := map[string]string{hostHole: "l.hostname", valueHole: "variables.setNamespace", keyHole: "variables." + AllowedHostnamesVariable, quotedHole: "variables.quotedDeclaration"}
	return fill(`size(variables.undeclared) > 0 && variables.undeclared[i] && !{samehost} ? [has(l.hostname) ? {forbidden} : {required}] : []`,
		"samehost", same("hostname"),
		"forbidden", w.line(`p + ".hostname"`, field.Forbidden(placeholderPath, fmt.Sprintf(validation.DetailHostnameNotDeclared, hostHole, valueHole, keyHole, quotedHole)), holes),
		"required", w.line(`p + ".hostname"`, field.Required(placeholderPath, fmt.Sprintf(validation.DetailNoHostnameDeclared, valueHole, validation.AllHostnames, keyHole, quotedHole)), holes))
}

// declarationsPolicy is the declarations' policy of d, the declared
// hostnames' checks and details (build), and fast, the fast path. It judges
// what the rules' match condition skipped: the usual valid set, in a
// Namespace that declares its hostnames; the rules judge everything else,
// the declaration included, so that exactly one of the two denies a
// request and its message holds every error. The fast path is evaluated
// only in a Namespace with a declaration.
//
// kube-apiserver builds a policy's variables for each evaluation, the
// validation's and the message's apart, every variable it declares,
// read or not (about 0.17 µs each, in process): in a Namespace without a
// declaration, that is, for nearly every request, this policy reads one
// annotation and nothing else. So it declares two variables only, the
// annotation's key (which the chart sets) and the fast path
// (FastPathVariable); the others of d are bound where they are read, in the
// validation and in the message (letBound), each in the order d declares
// them and evaluated once, as a variable is: when the Namespace declares
// anything, those of the checks, and, only when the checks find something,
// those of the details.
func declarationsPolicy(d celPolicy, fast string) (celPolicy, error) {
	vars := append(slices.Clone(d.variables), variable{FastPathVariable, fast})
	at := func(name string) int { return slices.IndexFunc(vars, func(v variable) bool { return v.name == name }) }
	key, declared := at(AllowedHostnamesVariable), at("declared")
	details, found := strings.CutPrefix(d.message, whenChecksFind)
	if key < 0 || declared < 0 || !found {
		return celPolicy{}, fmt.Errorf("the declarations' CEL lacks the variable %s or declared, or builds its details when the checks find nothing", AllowedHostnamesVariable)
	}
	checks, bound := letBound(vars, map[string]bool{AllowedHostnamesVariable: true, FastPathVariable: true}, `variables.checks`)
	detailed, _ := letBound(vars, bound, details)
	// the declaration's test written out: a binding costs more than the
	// test, which the checks bind again
	skip := `!(` + vars[declared].expression + `) || !variables.` + FastPathVariable
	return celPolicy{
		variables:  []variable{vars[key], vars[len(vars)-1]},
		validation: skip + ` || ` + checks(d.validation),
		message:    skip + ` ? "" : ` + checks(whenChecksFind+detailed(details)),
	}, nil
}
