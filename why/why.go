package why

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/gateway-api/pkg/features"

	"github.com/airlock/listenerset-webhook/listing"
	"github.com/airlock/listenerset-webhook/offline/judge"
	"github.com/airlock/listenerset-webhook/reported"
	"github.com/airlock/listenerset-webhook/validation"
)

// Options say how to judge, as the other commands' flags do.
type Options struct {
	// Scope decides whose the set is (validation.Scope.Decide).
	Scope validation.Scope
	// Tenancy gives each listener its owner and claims.
	Tenancy validation.Tenancy
	// AddedNames are names the list-valued TLS options accept besides the
	// built-in ones: a set is Invalid as the webhook with them judges it.
	AddedNames validation.AddedNames
}

// Explanation is the why command's result: the -o json document. Every key
// is always present: absent objects are null, empty lists [].
type Explanation struct {
	ListenerSet Object `json:"listenerSet"`
	Whose       Whose  `json:"whose"`
	// Admission is whether the Gateway admits the set; null when the
	// Gateway is not known or the set is not Airlock's.
	Admission *Admission `json:"admission"`
	// Reported is the set's own conditions as the controller wrote them.
	Reported []Condition `json:"reported"`
	// Listeners are the set's listeners, in its order.
	Listeners []Listener `json:"listeners"`
	// UnattachedRoutes are the HTTPRoutes with a parentRef naming the set
	// that attaches to none of its listeners, one per such parentRef.
	UnattachedRoutes []RouteRef `json:"unattachedRoutes"`
	// Unread names what could not be read; the decisions that needed it
	// say unknown.
	Unread []Unread `json:"unread"`
	// Problems are what is wrong, one line each; the exit code is 1 when
	// there are any.
	Problems []string `json:"problems"`
}

// Object names a namespaced object.
type Object struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

func (o Object) String() string { return o.Namespace + "/" + o.Name }

// Found is what a read told of an object: "found", "not found" or
// "unknown" (it could not be read).
type Found string

// Values of Found.
const (
	FoundYes     Found = "found"
	FoundNo      Found = "not found"
	FoundUnknown Found = "unknown"
)

// Whose is the first decision: whose implementation programs the set.
type Whose struct {
	// Gateway is the parentRef's Gateway; null when the parentRef names
	// none.
	Gateway      *Object `json:"gateway"`
	GatewayFound Found   `json:"gatewayFound"`
	// GatewayClass is the Gateway's spec.gatewayClassName, "" when the
	// Gateway is not known.
	GatewayClass   string `json:"gatewayClass"`
	ClassFound     Found  `json:"classFound"`
	ControllerName string `json:"controllerName"`
	// Outcome is validation.Scope's: airlock, other, unknown-judged,
	// unknown-admitted or unscoped. Judged says Airlock's rules apply.
	Outcome validation.Outcome `json:"outcome"`
	Judged  bool               `json:"judged"`
	// Note says what was unknown when the parent or its class was.
	Note string `json:"note"`
	// ClassAccepted is the class's Accepted condition; null when the class
	// has none or is not known.
	ClassAccepted *Condition `json:"classAccepted"`
	// ListenerSetSupport is "listed" or "not listed" (the class's
	// status.supportedFeatures and Gateway API's feature ListenerSet),
	// "not reported" when it lists no feature, "unknown" without a class.
	ListenerSetSupport string `json:"listenerSetSupport"`
}

// Condition is a status condition as its controller wrote it.
type Condition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	Reason             string `json:"reason"`
	Message            string `json:"message"`
	ObservedGeneration int64  `json:"observedGeneration"`
}

// Admission is the second decision: whether the Gateway's allowedListeners
// admits the set's namespace.
type Admission struct {
	// From is allowedListeners.namespaces.from (None when unset).
	From string `json:"from"`
	// Selector is the selector, for Selector; "" otherwise.
	Selector string `json:"selector"`
	// NamespaceLabels are the set's Namespace's labels, for Selector; null
	// when not read.
	NamespaceLabels map[string]string `json:"namespaceLabels"`
	// Admitted is "yes", "no" or "unknown".
	Admitted string `json:"admitted"`
	// Reason is the setting that refuses the set, or what is unknown.
	Reason string `json:"reason"`
}

// Ref names a listener: its object and name.
type Ref struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Listener  string `json:"listener"`
}

func (r Ref) String() string {
	return r.Kind + "/" + r.Namespace + "/" + r.Name + " listener " + r.Listener
}

// Claim is another owner's listener whose hostname overlaps this one's.
type Claim struct {
	Listener Ref    `json:"listener"`
	Hostname string `json:"hostname"`
	Owner    string `json:"owner"`
}

// Listener is one listener of the set: the prediction, and the report
// beside it.
type Listener struct {
	Name     string  `json:"name"`
	Port     int32   `json:"port"`
	Protocol string  `json:"protocol"`
	Hostname *string `json:"hostname"`
	// Precedence is its place in the Gateway's merged list, of Of
	// listeners; 0 when the list is not known.
	Precedence int `json:"precedence"`
	Of         int `json:"of"`
	// State and Reason are the merged list's (listing's); "" when the set
	// is not Airlock's to judge.
	State  string `json:"state"`
	Reason string `json:"reason"`
	// Winner is the listener a Conflicted one loses to.
	Winner *Ref `json:"winner"`
	// Messages are the errors behind the state.
	Messages []string `json:"messages"`
	// Overlaps is the listener it shares OverlappingTLSConfig with.
	Overlaps *Ref `json:"overlaps"`
	// Owner is "namespace/NAME" or "tenant/NAME"; "" when unknown.
	Owner        string `json:"owner"`
	HeldBy       *Claim `json:"heldBy"`
	OverlappedBy *Claim `json:"overlappedBy"`
	// Reported is what the set's status says of the listener, and
	// Difference where it parts from the prediction (null: they agree, or
	// there is no prediction).
	Reported   reported.Listener    `json:"reported"`
	Difference *reported.Difference `json:"difference"`
	// AttachedRoutes are the HTTPRoutes predicted to attach (null: routes
	// not read).
	AttachedRoutes *int     `json:"attachedRoutes"`
	Routes         []string `json:"routes"`
	// Certificates are its certificateRefs to Secrets.
	Certificates []Certificate `json:"certificates"`
}

// Certificate is one certificateRef and what was found of it.
type Certificate struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Secret is found, not found or unknown (Reason says why).
	Secret Found  `json:"secret"`
	Type   string `json:"type"`
	Reason string `json:"reason"`
	// CrossNamespace: the Secret is in another namespace than the set, and
	// a ReferenceGrant there must permit the reference.
	CrossNamespace bool `json:"crossNamespace"`
	// Permitted is "yes", "no", "unknown" (the grants could not be read)
	// or "" (same namespace); ReferenceGrant names the grant that does.
	Permitted      string `json:"permitted"`
	ReferenceGrant string `json:"referenceGrant"`
}

// RouteRef is an HTTPRoute's parentRef naming the set that attaches to
// none of its listeners.
type RouteRef struct {
	Namespace   string  `json:"namespace"`
	Name        string  `json:"name"`
	SectionName *string `json:"sectionName"`
	Port        *int32  `json:"port"`
	// Reason is the route's parent status reason (NoMatchingParent,
	// NotAllowedByListeners, NoMatchingListenerHostname), "" when unknown;
	// Detail says which listener refuses it and why.
	Reason string `json:"reason"`
	Detail string `json:"detail"`
}

// TLSSecretType is the type a certificate's Secret must have.
const TLSSecretType = corev1.SecretTypeTLS

// Explain is the chain of decisions for s's ListenerSet.
func Explain(s *Snapshot, opts Options) *Explanation {
	ls := s.Set
	e := &Explanation{ListenerSet: Object{ls.Namespace, ls.Name}, Reported: conditions(ls.Status.Conditions),
		Listeners: []Listener{}, UnattachedRoutes: []RouteRef{}, Unread: slices.Clone(s.Unread), Problems: []string{}}
	if e.Unread == nil {
		e.Unread = []Unread{}
	}
	e.Whose = whose(s, opts.Scope)
	for i := range ls.Spec.Listeners {
		l := &ls.Spec.Listeners[i]
		row := Listener{Name: string(l.Name), Port: int32(l.Port), Protocol: string(l.Protocol), Messages: []string{}, Routes: []string{},
			Certificates: []Certificate{}, Reported: reported.OfListenerSet(ls, l.Name)}
		if l.Hostname != nil {
			h := string(*l.Hostname)
			row.Hostname = &h
		}
		e.Listeners = append(e.Listeners, row)
	}
	if !e.Whose.Judged {
		return e // not Airlock's: its status is shown, nothing judged
	}
	e.classProblems(s.Class)
	switch {
	case s.Gateway != nil:
		e.Admission = admission(s)
		e.merged(s, opts)
	case s.GatewayKnown && e.Whose.Gateway != nil:
		e.problem("parent Gateway %s not found: no controller programs the set's listeners", e.Whose.Gateway)
		e.unknownState("parent Gateway not found")
	case e.Whose.Gateway == nil:
		e.problem("spec.parentRef names no Gateway: the set belongs to none")
		e.unknownState("spec.parentRef names no Gateway")
	default:
		e.unknownState("parent Gateway could not be read")
	}
	e.certificates(s)
	e.routes(s)
	for i := range e.Listeners {
		l := &e.Listeners[i]
		switch validation.ListenerState(l.State) {
		case validation.ListenerAccepted, validation.ListenerUnknown:
		default:
			e.problem("listener %s is predicted %s%s", l.Name, l.State, paren(l.Reason))
		}
		if d := l.Difference; d != nil {
			e.problem("listener %s: %s", l.Name, d.Detail)
		}
	}
	return e
}

func (e *Explanation) problem(format string, args ...any) {
	e.Problems = append(e.Problems, fmt.Sprintf(format, args...))
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// unknownState marks every listener Unknown for reason: no merged list.
func (e *Explanation) unknownState(reason string) {
	for i := range e.Listeners {
		e.Listeners[i].State, e.Listeners[i].Reason = string(validation.ListenerUnknown), reason
	}
}

func conditions(cs []metav1.Condition) []Condition {
	out := make([]Condition, 0, len(cs))
	for _, c := range cs {
		out = append(out, conditionOf(c))
	}
	return out
}

func conditionOf(c metav1.Condition) Condition {
	return Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message, ObservedGeneration: c.ObservedGeneration}
}

// whose asks validation.Scope whose the set is, from the Gateway and class
// read, and reads the class's status.
func whose(s *Snapshot, scope validation.Scope) Whose {
	w := Whose{GatewayFound: FoundUnknown, ClassFound: FoundUnknown, ListenerSetSupport: "unknown"}
	if key, ok := validation.ParentKey(s.Set); ok {
		ns, name, _ := strings.Cut(key, "/")
		w.Gateway = &Object{ns, name}
	}
	switch {
	case s.Gateway != nil:
		w.GatewayFound = FoundYes
		w.GatewayClass = string(s.Gateway.Spec.GatewayClassName)
	case s.GatewayKnown:
		w.GatewayFound = FoundNo
	}
	switch {
	case s.Class != nil:
		w.ClassFound = FoundYes
		w.ControllerName = string(s.Class.Spec.ControllerName)
		if c := meta.FindStatusCondition(s.Class.Status.Conditions, string(gwv1.GatewayClassConditionStatusAccepted)); c != nil {
			cond := conditionOf(*c)
			w.ClassAccepted = &cond
		}
		w.ListenerSetSupport = "not reported"
		if len(s.Class.Status.SupportedFeatures) > 0 {
			w.ListenerSetSupport = "not listed"
			if slices.ContainsFunc(s.Class.Status.SupportedFeatures, func(f gwv1.SupportedFeature) bool {
				return string(f.Name) == string(features.SupportListenerSet)
			}) {
				w.ListenerSetSupport = "listed"
			}
		}
	case s.ClassKnown:
		w.ClassFound = FoundNo
	}
	d := scope.Decide(s.Set, s.Objects)
	w.Outcome, w.Judged = d.Outcome, d.Judge
	if d.Note != nil {
		w.Note = d.Note.Message
	}
	return w
}

// classProblems: a class no controller has accepted, or whose controller
// says it does not support ListenerSets, leaves the set without status;
// validation.ClassWarnings decides, as it does for the webhook's warnings.
func (e *Explanation) classProblems(class *gwv1.GatewayClass) {
	w := &e.Whose
	if w.ClassFound == FoundNo {
		e.problem("GatewayClass %q of Gateway %s not found: no controller programs the Gateway", w.GatewayClass, w.Gateway)
		return
	}
	for _, x := range validation.ClassWarnings(class) {
		e.problem("%s", x.Message)
	}
}

// admission is whether the Gateway admits the set: the merged list's own
// decision for the set alone (validation.MergedListeners), with the
// setting and labels it read.
func admission(s *Snapshot) *Admission {
	gw := s.Gateway
	a := &Admission{From: string(gwv1.NamespacesFromNone), Admitted: "yes"}
	if al := gw.Spec.AllowedListeners; al != nil && al.Namespaces != nil {
		if al.Namespaces.From != nil {
			a.From = string(*al.Namespaces.From)
		}
		if a.From == string(gwv1.NamespacesFromSelector) && al.Namespaces.Selector != nil {
			if sel, err := metav1.LabelSelectorAsSelector(al.Namespaces.Selector); err == nil {
				a.Selector = sel.String()
			} else {
				a.Selector = metav1.FormatLabelSelector(al.Namespaces.Selector)
			}
		}
	}
	if a.From == string(gwv1.NamespacesFromSelector) {
		if labels, known := s.Objects.NamespaceLabels(s.Set.Namespace); known {
			a.NamespaceLabels = labels
			if a.NamespaceLabels == nil {
				a.NamespaceLabels = map[string]string{}
			}
		}
	}
	alone := &gwv1.ListenerSet{ObjectMeta: s.Set.ObjectMeta, Spec: gwv1.ListenerSetSpec{ParentRef: s.Set.Spec.ParentRef,
		Listeners: []gwv1.ListenerEntry{{Name: "probe", Port: 1, Protocol: gwv1.HTTPProtocolType}}}}
	gwOnly := gw.DeepCopy()
	gwOnly.Spec.Listeners = nil
	rows := validation.MergedListeners(gwOnly, []*gwv1.ListenerSet{alone}, validation.MergeOptions{Cluster: s.Objects})
	switch r := rows[len(rows)-1]; r.State {
	case validation.ListenerNotAllowed:
		a.Admitted, a.Reason = "no", r.Reason
	case validation.ListenerUnknown:
		a.Admitted, a.Reason = "unknown", r.Reason
	}
	return a
}

// merged fills each listener's row of the Gateway's merged list from
// listing.Build, the listeners command's rows, and compares it with the
// reported status.
func (e *Explanation) merged(s *Snapshot, opts Options) {
	o := s.Objects
	in := &listing.Input{Tenancy: opts.Tenancy, Objects: o}
	for _, ls := range o.Sets {
		errs, _ := validation.Validate(ls, nil, validation.Options{AddedNames: opts.AddedNames})
		in.Errors = append(in.Errors, judge.FieldErrors(errs))
	}
	l, _ := listing.Build(in, validation.GatewayKey(s.Gateway.Namespace, s.Gateway.Name))
	if len(l.Gateways) != 1 {
		e.unknownState("the merged list could not be built")
		return
	}
	rows := l.Gateways[0].Listeners
	k := 0
	for _, r := range rows {
		if r.Source.Kind != validation.SourceListenerSet || r.Source.Namespace != s.Set.Namespace || r.Source.Name != s.Set.Name {
			continue
		}
		if k >= len(e.Listeners) {
			break
		}
		out := &e.Listeners[k]
		k++
		out.Precedence, out.Of = r.Precedence, len(rows)
		out.State, out.Reason = r.State, r.Reason
		out.Winner = refOf(r.Winner)
		out.Messages = append(out.Messages, r.Messages...)
		for _, c := range r.Conditions {
			if c.Type == validation.ConditionOverlappingTLSConfig {
				out.Overlaps = refOf(&c.With)
			}
		}
		if r.Owner != nil {
			out.Owner = r.Owner.String()
		}
		out.HeldBy, out.OverlappedBy = claimOf(r.HeldBy), claimOf(r.OverlappedBy)
		out.AttachedRoutes = r.AttachedRoutes
		if r.Routes != nil {
			out.Routes = r.Routes
		}
		if s.SetsPartial {
			// A set of a namespace not read may come first: the place
			// is not known, and it may win where this one is Accepted.
			out.Precedence, out.Of = 0, 0
			if out.State == string(validation.ListenerAccepted) {
				out.State, out.Reason = string(validation.ListenerUnknown), "the Gateway's ListenerSets of other namespaces could not be read"
			}
		}
		if s.RoutesPartial {
			out.AttachedRoutes = nil
		}
		out.Difference = reported.Compare(reported.Prediction{State: validation.ListenerState(out.State), Reason: out.Reason,
			AttachedRoutes: out.AttachedRoutes}, out.Reported)
	}
}

func refOf(r *listing.ListenerRef) *Ref {
	if r == nil {
		return nil
	}
	return &Ref{Kind: r.Source.Kind, Namespace: r.Source.Namespace, Name: r.Source.Name, Listener: r.Name}
}

func claimOf(c *listing.Claim) *Claim {
	if c == nil {
		return nil
	}
	return &Claim{Listener: *refOf(&c.Listener), Hostname: c.Hostname, Owner: c.Owner.String()}
}

// certificates says, for each certificateRef, whether its Secret exists
// with the TLS type and, across namespaces, which ReferenceGrant permits it
// (validation.PermittingGrant, the RefNotPermitted rule's decision).
func (e *Explanation) certificates(s *Snapshot) {
	for _, ref := range certificateRefs(s.Set) {
		l := &e.Listeners[ref.Listener]
		c := Certificate{Namespace: ref.Namespace, Name: ref.Name, Secret: FoundUnknown}
		switch sec := s.Secrets[ref.Namespace+"/"+ref.Name]; {
		case !sec.Known:
			c.Reason = sec.Reason
		case !sec.Exists:
			c.Secret = FoundNo
			e.problem("listener %s: Secret %s/%s not found: the listener has no certificate", l.Name, ref.Namespace, ref.Name)
		default:
			c.Secret, c.Type = FoundYes, string(sec.Type)
			if sec.Type != TLSSecretType {
				e.problem("listener %s: Secret %s/%s has type %s, not %s", l.Name, ref.Namespace, ref.Name, c.Type, TLSSecretType)
			}
		}
		if ref.Namespace != s.Set.Namespace {
			c.CrossNamespace = true
			grants, known := s.Grants[ref.Namespace]
			switch g := validation.PermittingGrant(grants, s.Set.Namespace, gwv1.ObjectName(ref.Name)); {
			case !known:
				c.Permitted = "unknown"
			case g == nil:
				c.Permitted = "no"
				e.problem("listener %s: no ReferenceGrant in namespace %s permits ListenerSets of %s to reference Secret %s (RefNotPermitted)",
					l.Name, ref.Namespace, s.Set.Namespace, ref.Name)
			default:
				c.Permitted, c.ReferenceGrant = "yes", g.Name
			}
		}
		l.Certificates = append(l.Certificates, c)
	}
}

// routes finds the HTTPRoutes that name the set and attach to none of its
// listeners, by validation.Attacher.
func (e *Explanation) routes(s *Snapshot) {
	rs, known := s.Objects.RoutesOf(s.Set.Namespace, s.Set.Name)
	if !known {
		return
	}
	rs = slices.Clone(rs)
	sort.SliceStable(rs, func(i, j int) bool {
		return rs[i].Namespace+"/"+rs[i].Name < rs[j].Namespace+"/"+rs[j].Name
	})
	a := validation.NewAttacher(s.Set, s.Objects.NamespaceLabels)
	for _, r := range rs {
		for i := range r.Spec.ParentRefs {
			ref := &r.Spec.ParentRefs[i]
			if ns, name, ok := validation.NamesListenerSet(r.Namespace, ref); !ok || ns != s.Set.Namespace || name != s.Set.Name {
				continue
			}
			att := a.Attach(r, ref)
			if att.Attached() {
				continue
			}
			rr := RouteRef{Namespace: r.Namespace, Name: r.Name, Reason: string(att.Reason), Detail: att.Detail}
			if ref.SectionName != nil {
				sn := string(*ref.SectionName)
				rr.SectionName = &sn
			}
			if ref.Port != nil {
				p := int32(*ref.Port)
				rr.Port = &p
			}
			if !att.Known {
				rr.Detail = "unknown: a Namespace's labels could not be read"
			} else {
				e.problem("HTTPRoute %s/%s names the set but attaches to none of its listeners: %s (%s)", r.Namespace, r.Name, rr.Reason, rr.Detail)
			}
			e.UnattachedRoutes = append(e.UnattachedRoutes, rr)
		}
	}
}
