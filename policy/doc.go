// Package policy generates the admissionregistration.k8s.io/v1
// ValidatingAdmissionPolicy (and its binding) that enforces, inside
// kube-apiserver and without a webhook call, every object-only rule of
// validation.Validate: the rules that read nothing but the ListenerSet (and,
// on update, the stored one). The cluster-aware rules (validation's
// cluster.go) are not part of it: a policy cannot read the other objects the
// way the webhook's cluster view does.
//
// It owns the CEL: the name lists, details, kinds and limits come from
// validation and defaults, each of Airlock's TLS options from a row of
// validation.AirlockOptions (cel.go's option rule and fast.go's match
// condition loop over the rows), the messages from the same apimachinery
// validators the Go rules call, asked when the policy is built, so one
// change in Go changes both engines. What those validators test and do not
// export (their regular expressions, the port range, a label key's name
// length) is stated once, in upstream.go, and TestUpstreamRegexes and
// TestUpstreamLimits fail when apimachinery changes it; a validator that no
// longer gives the messages the CEL is written for makes Generate fail.
//
// The policy computes every violation in variables and fails once, reason Invalid, with a
// message of "<field path>: <detail>" entries as the webhook's causes read
// (kube-apiserver reports only the first failing validation, and refuses
// multi-line messages, so the entries are joined with "; "). The CEL uses
// only what a 1.30 kube-apiserver accepts in a new policy (compatibility
// version 1.29).
//
// Three parts, all generated from the same rule builders (cel.go; the
// checks and the details are the builders run by two writers, one that
// writes each entry as its path only):
//   - a match condition (fast.go) that admits the usual valid set in one
//     cheap pass and skips the rest: kube-apiserver evaluates a policy's
//     validation and its messageExpression in full even when the object
//     passes. It runs on what kube-apiserver hands to validating admission,
//     an object the CRD has defaulted and admitted, and leaves to the CRD
//     what the CRD enforces as validation does;
//   - checks that run every rule on every listener but write each violation
//     as its path only: the verdict and the number of entries;
//   - details, the same rules with their messages, for the parentRef, the
//     count and the first MaxDetailedListeners failing listeners: the
//     message.
//
// That keeps every worst object the CRD admits within kube-apiserver's CEL
// budget (TestWorstObjectCost): every list the policy walks is bounded, by
// the CRD or by one of validation's Too many rules checked by size before
// the walk (a route selector's lists, validation.MaxSelectorItems). The policy shows what it shows by validation's rule
// (report.go) where CEL allows: values cut to validation.MaxValueRunes
// (cutCEL). Where the policy's entries differ from the webhook's causes, by
// design:
//   - a listener's certificateRefs past the MaxCertificateRefs-th are
//     covered by the list's "Too many" entry only;
//   - a list-valued option with more items than it has names plus
//     ListSlack gets one entry for the rest;
//   - a list-valued option with more than validation.MaxShownItems bad
//     items of a kind gets one entry per item where the webhook gives one
//     naming the first three and their number (written in CEL, that grouping
//     doubled the time kube-apiserver takes to compile the policy, and 1.29's
//     CEL cannot count a long list's distinct items within budget);
//   - the webhook's report holds its first validation.MaxErrors errors and
//     validation.MaxErrorBytes, then one entry counting the rest; the
//     message holds the entries of the first MaxDetailedListeners failing
//     listeners, up to 5 KiB, and counts the rest ("; and N more");
//   - a count error of more than MaxIndex listeners ratchets when the list
//     equals the stored one in order, where validation pairs the listeners
//     by name in any order (the CRD never admits such a list);
//   - strings.quote leaves unprintable characters unescaped where Go's %q
//     escapes them, and a line break in a path is escaped.
//
// Defaults: the checks and details read every field the CRD (or the
// mutating webhook) defaults with its default when absent, so they judge a
// create the same whether defaulting ran or not; the match condition reads
// the CRD's defaults as present, which they always are in kube-apiserver.
//
// Ratcheting on update follows validation's, error by error: each entry is
// dropped when the values it involves are as stored (the value at its path,
// listeners paired by name into variables.pair, options and matchLabels by
// key, the atomic lists whole; several values for the rules between
// values, as validation's ratchet names them), the CEL condition written
// next to the entry it guards (same), evaluated only on update. It compares
// the values as kube-apiserver hands them to admission, both defaulted by
// the CRD's schema (the new object when decoded, the stored one when read);
// validation compares them after defaults.ListenerSet, which sets what the
// CRD defaults, so the two agree; both tell an absent field from an empty
// one, as Kubernetes' own ratcheting does. Fields the CRD requires are read as their zero
// value when absent, as the Go types decode them.
//
// Scope (scope.go): a policy cannot read a ListenerSet's parent Gateway or
// its GatewayClass, so with Options.Gateways it judges only the ListenerSets
// of the Gateways listed, through a match condition before the fast path;
// the rules are unchanged, and without Gateways nothing of it is generated.
//
// policytest evaluates the policy in process with k8s.io/apiserver's own
// validator; test/policy holds its verdict and paths equal to
// validation.Validate against a real kube-apiserver.
package policy

// The chart's copy of the policy with the scope's defaults (make generate):
//
//go:generate sh -c "go run ../cmd/kubectl-listenerset policy --gateways infra/airlock > ../charts/listenerset-webhook/files/policy.yaml.tmp && mv ../charts/listenerset-webhook/files/policy.yaml.tmp ../charts/listenerset-webhook/files/policy.yaml"
