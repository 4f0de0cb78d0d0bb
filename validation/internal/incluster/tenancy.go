package incluster

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/verdict"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// Delegation with owners: a Gateway's allowedListeners lets a namespace add
// listeners to a Gateway it does not own, and nothing in the CRD stops it
// from claiming a hostname another team serves; a controller reports only
// afterwards, and by precedence a squatter who came first keeps the name.
// The webhook sees both sets before the second is stored. Three rules,
// about the listeners of ListenerSets only (a Gateway's own listeners are
// the platform's):
//   - declared names (validateDeclaredHostnames): a Namespace's annotation
//     lists the hostnames its ListenerSets may claim; an error, whatever
//     the mode;
//   - the first claim across owners (validateFirstClaims): on one Gateway,
//     no listener may claim a hostname overlapping one that a listener of
//     another owner holds, on any port; off, a warning or an error
//     (ClaimMode);
//   - route capture (warnRouteCapture): a listener without a hostname that
//     admits other namespaces' routes lets them claim any hostname on it.
// docs/tenancy.md explains them to users.

// DefaultAllowedHostnamesAnnotation is the Namespace annotation that
// declares the hostnames the namespace's ListenerSets may claim.
const DefaultAllowedHostnamesAnnotation = "listenerset-webhook.airlock.com/allowed-hostnames"

// MaxAllowedHostnames is the most entries a declaration may have; a longer
// one is refused whole, naming the limit. It bounds what every engine
// reads per listener (the policy's CEL compares each listener's hostname
// with each entry).
const MaxAllowedHostnames = 128

// AllHostnames is the entry that allows every hostname, and listeners
// without one.
const AllHostnames = "*"

// ClaimMode says what the first-claim rule does with a listener claiming a
// hostname another owner holds.
type ClaimMode string

// Values of ClaimMode; the zero value is ClaimWarn.
const (
	ClaimOff  ClaimMode = "off"
	ClaimWarn ClaimMode = "warn"
	ClaimDeny ClaimMode = "deny"
)

// ClaimModes are ClaimMode's values, the default first.
var ClaimModes = []ClaimMode{ClaimWarn, ClaimOff, ClaimDeny}

// Choices are ClaimModes (a command's flag takes one of them).
func (ClaimMode) Choices() []ClaimMode { return ClaimModes }

// Tenancy says who owns a ListenerSet's listeners and how their claims are
// judged. The zero Tenancy is the default: namespaces are the owners, the
// declarations are read from DefaultAllowedHostnamesAnnotation, and a claim
// on another owner's hostname is a warning.
type Tenancy struct {
	// TenantLabel, when set, is the Namespace label whose value names the
	// owner (e.g. Capsule's capsule.clastix.io/tenant), so that a team's
	// namespaces are one owner; a namespace without it owns its sets
	// alone.
	TenantLabel string
	// AllowedHostnamesAnnotation is the Namespace annotation of the
	// declarations; DefaultAllowedHostnamesAnnotation when empty.
	AllowedHostnamesAnnotation string
	// FirstClaim is the first-claim rule's mode; ClaimWarn when empty.
	FirstClaim ClaimMode
}

// Annotation is the key the declarations are read from.
func (t Tenancy) Annotation() string {
	if t.AllowedHostnamesAnnotation == "" {
		return DefaultAllowedHostnamesAnnotation
	}
	return t.AllowedHostnamesAnnotation
}

// Mode is the first-claim rule's mode.
func (t Tenancy) Mode() ClaimMode {
	if t.FirstClaim == "" {
		return ClaimWarn
	}
	return t.FirstClaim
}

// OwnerOf is the owner of namespace's ListenerSets; known=false when a
// tenant label is configured and the namespace's labels are unknown.
func (t Tenancy) OwnerOf(namespace string, labels views.NamespaceLabelsFunc) (Owner, bool) {
	if t.TenantLabel == "" {
		return Owner{Name: namespace}, true
	}
	nsLabels, known := labels(namespace)
	if !known {
		return Owner{}, false
	}
	if v := nsLabels[t.TenantLabel]; v != "" {
		return Owner{Tenant: true, Name: v}, true
	}
	return Owner{Name: namespace}, true
}

// owners remembers each namespace's owner for one verdict.
type owners struct {
	t      Tenancy
	labels views.NamespaceLabelsFunc
	of     map[string]ownerOf
}

type ownerOf struct {
	owner Owner
	known bool
}

func newOwners(t Tenancy, labels views.NamespaceLabelsFunc) *owners {
	return &owners{t: t, labels: labels, of: map[string]ownerOf{}}
}

func (o *owners) owner(namespace string) (Owner, bool) {
	r, ok := o.of[namespace]
	if !ok {
		r.owner, r.known = o.t.OwnerOf(namespace, o.labels)
		o.of[namespace] = r
	}
	return r.owner, r.known
}

// AllowedHostnames is a declaration: the hostnames a namespace's
// ListenerSets may claim.
type AllowedHostnames struct {
	// All is set by the entry "*": every hostname, and none.
	All bool
	// names are the exact names and wildcards declared.
	names map[string]bool
}

// Allows tells whether the declaration covers a listener's hostname (nil:
// none): "*" covers everything; otherwise an exact name is covered by the
// same name or a wildcard above it, a wildcard by the same wildcard or one
// above it, and no hostname by nothing else. Linear in h's labels.
func (a AllowedHostnames) Allows(h *gwv1.Hostname) bool {
	if a.All {
		return true
	}
	if h == nil {
		return false
	}
	if a.names[string(*h)] {
		return true
	}
	for _, w := range object.CoveringHostnames(string(*h)) {
		if w != "" && a.names[w] {
			return true
		}
	}
	return false
}

// DeclarationProblem is what is wrong with one entry of a declaration, or
// with the whole (Entry 0).
type DeclarationProblem struct {
	// Entry is the entry's position, from 1; 0 for the declaration as a
	// whole (empty, or too many entries).
	Entry int
	// Value is the entry as written.
	Value  string
	Reason string
}

// Details of malformed declarations.
const (
	DetailDeclarationEmpty    = "declares nothing; remove the annotation to allow every hostname, or list them, comma-separated"
	DetailDeclarationTooMany  = "has %d entries, more than the limit of %d"
	DetailEntryEmpty          = "empty entry"
	DetailEntryBlanks         = "blanks around the entry; separate entries with commas only"
	DetailDeclarationProblem  = "annotation %s of Namespace %q: %s"
	DetailDeclarationEntry    = "entry %d %q: %s"
	DetailHostnameNotDeclared = "hostname %q is not among the hostnames Namespace %q declares (%s: %s)"
	DetailNoHostnameDeclared  = "Namespace %q does not declare %q (%s: %s): a listener without a hostname claims every name"
	// DetailHostnameClaimed: the listener's hostname, the hostname it
	// overlaps, the holder's owner, the holder's listener and its port.
	DetailHostnameClaimed = "hostname %q overlaps %q, which %s holds (%s, port %d): the first claim keeps it"
	// DetailHostnameHeld: the same, for the very hostname: the hostname,
	// the holder's owner, its listener and port.
	DetailHostnameHeld = "hostname %q is held by %s (%s, port %d): the first claim keeps it"
	// DetailHostnameContested: as DetailHostnameClaimed, when the stored
	// objects cannot tell which of the two sets came to the Gateway first
	// (ArrivedBefore); each of them is told of the other.
	DetailHostnameContested = "hostname %q overlaps %q, which %s holds (%s, port %d): which of the two came to this Gateway first, and keeps it, the stored objects cannot tell"
)

// ParseAllowedHostnames reads a declaration: entries separated by commas,
// each an exact name or a wildcard as a listener's hostname may be
// (validateHostname: lowercase, no IP address, "*" only as the first label,
// no trailing dot), or "*". Every entry is judged; a declaration with a
// problem allows nothing (the rule denies, closed, not open).
func ParseAllowedHostnames(value string) (AllowedHostnames, []DeclarationProblem) {
	if strings.TrimSpace(value) == "" {
		return AllowedHostnames{}, []DeclarationProblem{{Value: value, Reason: DetailDeclarationEmpty}}
	}
	if n := strings.Count(value, ",") + 1; n > MaxAllowedHostnames {
		return AllowedHostnames{}, []DeclarationProblem{{Reason: fmt.Sprintf(DetailDeclarationTooMany, n, MaxAllowedHostnames)}}
	}
	a := AllowedHostnames{names: map[string]bool{}}
	var problems []DeclarationProblem
	entry := 0
	for e := range strings.SplitSeq(value, ",") {
		entry++
		switch {
		case e == "":
			problems = append(problems, DeclarationProblem{Entry: entry, Value: e, Reason: DetailEntryEmpty})
		case strings.TrimSpace(e) != e:
			problems = append(problems, DeclarationProblem{Entry: entry, Value: e, Reason: DetailEntryBlanks})
		case e == AllHostnames:
			a.All = true
		case len(e) > validation.DNS1123SubdomainMaxLength:
			// too long to be a hostname, whatever else it is: judged by
			// its length alone, so that judging it costs no engine more
			// than a hostname does
			problems = append(problems, DeclarationProblem{Entry: entry, Value: e, Reason: validation.MaxLenError(validation.DNS1123SubdomainMaxLength)})
		default:
			if errs := object.ValidateHostname(gwv1.Hostname(e), field.NewPath("entry")); len(errs) > 0 {
				problems = append(problems, DeclarationProblem{Entry: entry, Value: e, Reason: errs[0].Detail})
				continue
			}
			a.names[e] = true
		}
	}
	if len(problems) > 0 {
		return AllowedHostnames{}, problems
	}
	return a, nil
}

// String is the problem as the error's detail words it after the
// annotation and Namespace.
func (p DeclarationProblem) String() string {
	if p.Entry == 0 {
		return p.Reason
	}
	return fmt.Sprintf(DetailDeclarationEntry, p.Entry, findings.CutValue(p.Value), p.Reason)
}

// MaxQuotedDeclaration is how much of a declaration a denial quotes: a
// longer one is cut at its last comma before, and DetailDeclarationCut
// says how many bytes are left out.
const MaxQuotedDeclaration = 200

// DetailDeclarationCut quotes a declaration cut to MaxQuotedDeclaration.
const DetailDeclarationCut = "%q and %d more bytes"

// quoteDeclaration is the declaration as a denial quotes it, cut to a
// readable length.
func quoteDeclaration(value string) string {
	if len(value) > MaxQuotedDeclaration {
		cut := value[:MaxQuotedDeclaration]
		if i := strings.LastIndexByte(cut, ','); i > 0 {
			cut = cut[:i]
		}
		return fmt.Sprintf(DetailDeclarationCut, cut, len(value)-len(cut))
	}
	return fmt.Sprintf("%q", value)
}

// validateDeclaredHostnames: where ls's Namespace declares the hostnames
// its ListenerSets may claim, every listener's hostname must be covered
// (AllowedHostnames.Allows); an error whatever the mode, ratcheted by the
// listener's hostname. A malformed declaration denies the set, each
// problem at metadata.namespace, never ratcheted: the set cannot be
// judged against it. Skipped when the Namespace's annotations are unknown.
func validateDeclaredHostnames(ls *gwv1.ListenerSet, c views.Cluster, t Tenancy, v *verdict.Verdict) {
	annotations, known := c.NamespaceAnnotations(ls.Namespace)
	if !known {
		return
	}
	key := t.Annotation()
	value, declared := annotations[key]
	if !declared {
		return
	}
	allowed, problems := ParseAllowedHostnames(value)
	if len(problems) > 0 {
		nsPath := field.NewPath("metadata", "namespace")
		for _, p := range problems {
			v.Errs.Add(CodeDeclarationMalformed.Err(field.Invalid(nsPath, ls.Namespace, fmt.Sprintf(DetailDeclarationProblem, key, ls.Namespace, p))))
		}
		return
	}
	listenersPath := field.NewPath("spec", "listeners")
	// the first MaxListeners, as every listener rule judges them
	for i := range min(len(ls.Spec.Listeners), object.MaxListeners) {
		l := &ls.Spec.Listeners[i]
		if allowed.Allows(l.Hostname) {
			continue
		}
		p := listenersPath.Index(i).Child("hostname")
		var err *field.Error
		if l.Hostname == nil {
			err = field.Required(p, fmt.Sprintf(DetailNoHostnameDeclared, ls.Namespace, AllHostnames, key, quoteDeclaration(value)))
		} else {
			err = field.Forbidden(p, fmt.Sprintf(DetailHostnameNotDeclared, *l.Hostname, ls.Namespace, key, quoteDeclaration(value)))
		}
		v.Check(i, field.ErrorList{CodeHostnameNotDeclared.Err(err)}, object.HostnameValue)
	}
}

// claims tells whether a listener claims a hostname: it has one, and a
// protocol Airlock serves (a listener of another protocol holds nothing).
func claims(l *gwv1.ListenerEntry) bool {
	return l.Hostname != nil && object.ServedProtocol(l.Protocol)
}

// claimsOverlap tells whether two claimed hostnames overlap: equal, or one
// a wildcard above the other (overlap.go's covers).
func claimsOverlap(a, b string) bool { return a == b || object.Covers(a, b) || object.Covers(b, a) }

// validateFirstClaims: on Gateway gwNamespace/gwName, a listener of ls
// must not claim a hostname overlapping one that a listener of another
// owner's ListenerSet holds, on any port. Of two such listeners the one
// that came to the Gateway first keeps the name (arrival.go): a set
// Arriving (a create, a move, a set stored before its Gateway existed)
// claims every hostname anew and is judged against every holder, whatever
// its age; a Staying set's hostname the stored object held, and every
// hostname of a set judged AsStored, against the sets that came before it
// (ArrivedBefore), or, when the stored objects cannot tell who came first,
// against the other as a pair (DetailHostnameContested). A new hostname of
// a Staying set is judged against every holder, since they hold it now.
//
// The claims are judged by the Gateway's key, so also while the Gateway is
// missing (admission nil: every set parked on the key is a rival, as once
// it exists) or does not admit ls (its claims wait for it); only sets
// admission admits hold anything on an existing Gateway. An error under
// ClaimDeny (ratcheted when a Staying ls held the hostname before), a
// warning under
// ClaimWarn. The rivals are read by claimKeys, so a request costs what
// overlaps its hostnames, not what its Gateway has.
func validateFirstClaims(ls *gwv1.ListenerSet, gwNamespace, gwName string, admission *GatewayAdmission, c views.Cluster, t Tenancy, how Claiming, v *verdict.Verdict) {
	mode := t.Mode()
	if mode == ClaimOff {
		return
	}
	who := newOwners(t, c.NamespaceLabels)
	own, known := who.owner(ls.Namespace)
	if !known {
		return
	}
	stored := v.Ratchet.Old
	var arrived Arrival
	switch how {
	case Staying:
		arrived = ArrivalOf(stored)
	case AsStored:
		arrived = ArrivalOf(ls)
	}
	listenersPath := field.NewPath("spec", "listeners")
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		if !claims(l) {
			continue
		}
		h := string(*l.Hostname)
		held := how == AsStored ||
			how == Staying && stored != nil && hasListener(stored, func(e *gwv1.ListenerEntry) bool { return claims(e) && *e.Hostname == *l.Hostname })
		// first: the holder that surely came before ls; contested: one
		// that may have (held only); each the first by precedence
		var first, contested *gwv1.ListenerSet
		var firstAt, contestedAt int
		look := func(key string) {
			sets, _ := c.ListenerSetsAt(key)
			for _, o := range sets {
				if (o.Namespace == ls.Namespace && o.Name == ls.Name) || (first != nil && ComparePrecedence(o, first) >= 0) {
					continue
				}
				if admission != nil && !admitsSet(admission, o) {
					continue
				}
				if owner, known := who.owner(o.Namespace); !known || owner == own {
					continue
				}
				sure := true
				if held {
					before, known := arrivedBefore(o, ls, ArrivalOf(o), arrived)
					if known && !before {
						continue // after ls: ls keeps the name
					}
					if sure = known; !sure && contested != nil && ComparePrecedence(o, contested) >= 0 {
						continue
					}
				}
				for j := range o.Spec.Listeners {
					if e := &o.Spec.Listeners[j]; claims(e) && claimsOverlap(h, string(*e.Hostname)) {
						if sure {
							first, firstAt = o, j
						} else {
							contested, contestedAt = o, j
						}
						break
					}
				}
			}
		}
		overlapKeys(gwNamespace, gwName, h, look)
		format := DetailHostnameClaimed
		if first == nil {
			if contested == nil {
				continue
			}
			first, firstAt, format = contested, contestedAt, DetailHostnameContested
		}
		e := &first.Spec.Listeners[firstAt]
		holder, _ := who.owner(first.Namespace)
		by := object.ListenerName(object.ListenerRef{Source: object.ListenerSource{Kind: object.SourceListenerSet, Namespace: first.Namespace, Name: first.Name}, Listener: e.Name})
		detail := fmt.Sprintf(format, h, *e.Hostname, holder, by, e.Port)
		if format == DetailHostnameClaimed && string(*e.Hostname) == h {
			detail = fmt.Sprintf(DetailHostnameHeld, h, holder, by, e.Port)
		}
		err := CodeHostnameClaimed.Err(field.Forbidden(listenersPath.Index(i).Child("hostname"), detail))
		if mode == ClaimDeny {
			v.Judge(held && how == Staying, err)
		} else {
			v.Warnings.Add(findings.Warning{Path: err.Field, Kind: KindClusterFinding, Code: CodeHostnameClaimed, Message: err.Detail})
		}
	}
}

// Check refuses a Tenancy whose keys no label or annotation can have, or
// whose mode is unknown; each problem names its flag.
func (t Tenancy) Check() error {
	if t.TenantLabel != "" {
		if msgs := validation.IsQualifiedName(t.TenantLabel); len(msgs) > 0 {
			return fmt.Errorf("--tenant-label %q: %s", t.TenantLabel, strings.Join(msgs, "; "))
		}
	}
	if msgs := validation.IsQualifiedName(t.Annotation()); len(msgs) > 0 {
		return fmt.Errorf("--allowed-hostnames-annotation %q: %s", t.Annotation(), strings.Join(msgs, "; "))
	}
	if t.FirstClaim != "" && !slices.Contains(ClaimModes, t.FirstClaim) {
		return fmt.Errorf("--first-claim %q: %s", t.FirstClaim, findings.MustBe(ClaimModes))
	}
	return nil
}

// markClaims sets the Owner, HeldBy and OverlappedBy of rows, Gateway
// gwNamespace/gwName's merged list in precedence order, taking them in
// order, the order their sets came to the Gateway (arrivalOrder): of two
// overlapping rows of different owners the one taken first holds. Only listeners that
// take their place (Accepted or Conflicted) of ListenerSets claim anything.
// Each claimed hostname is filed under its claimKeys and looked up by
// overlapKeys, as the index and the first-claim rule do, each key keeping
// the first two rows of different owners there: a row finds the first
// earlier row of another owner overlapping it in as many lookups as its
// hostname has labels, linear in the rows.
func markClaims(gwNamespace, gwName string, rows []MergedListener, order []int, who *owners) {
	type firstTwo struct{ first, other int } // row indexes; other: the first of another owner than first's, -1
	filed := map[string]firstTwo{}
	owner := func(i int) Owner { return *rows[i].Owner }
	file := func(key string, i int) {
		f, ok := filed[key]
		switch {
		case !ok:
			filed[key] = firstTwo{i, -1}
		case f.other < 0 && owner(f.first) != owner(i):
			f.other = i
			filed[key] = f
		}
	}
	rank := make([]int, len(rows))
	for k, i := range order {
		rank[i] = k
	}
	for _, i := range order {
		r := &rows[i]
		if r.Source.Kind != object.SourceListenerSet {
			continue
		}
		if o, known := who.owner(r.Source.Namespace); known {
			r.Owner = &o
		}
		if r.Owner == nil || r.Hostname == nil || (r.State != ListenerAccepted && r.State != ListenerConflicted) {
			continue
		}
		h := string(*r.Hostname)
		held := -1
		look := func(key string) {
			f, ok := filed[key]
			if !ok {
				return
			}
			j := f.first
			if owner(j) == *r.Owner {
				j = f.other
			}
			if j >= 0 && (held < 0 || rank[j] < rank[held]) {
				held = j
			}
		}
		overlapKeys(gwNamespace, gwName, h, look)
		if held >= 0 {
			r.HeldBy = claimOf(&rows[held])
			if rows[held].OverlappedBy == nil {
				rows[held].OverlappedBy = claimOf(r)
			}
		}
		claimKeys(gwNamespace, gwName, h, func(key string) { file(key, i) })
	}
}

func claimOf(r *MergedListener) *Claim {
	return &Claim{ListenerRef: r.ListenerRef, Hostname: *r.Hostname, Owner: *r.Owner}
}
