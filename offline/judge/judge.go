package judge

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/crdcheck"
	"github.com/airlock/listenerset-webhook/offline/position"
	"github.com/airlock/listenerset-webhook/offline/read"
)

// Options say how strictly to judge.
type Options struct {
	// Strict makes listener conflicts and certificate references that no
	// ReferenceGrant permits errors instead of warnings, as the webhook's
	// --strict does.
	Strict bool
	// CRDs are the files or directories holding the ListenerSet CRD to
	// apply (a cluster's own); the embedded standard CRD when empty.
	CRDs []string
	// UnknownFields says what fields the CRD does not know make of an
	// object; UnknownFieldsError when empty.
	UnknownFields UnknownFields
	// AddedNames are names the list-valued TLS options accept besides the
	// built-in ones, as the webhook's --add-names.
	AddedNames validation.AddedNames
	// Scope says which ListenerSets are Airlock's, by the Gateways and
	// GatewayClasses of the input (over Cluster's): one of another
	// implementation's Gateway gets kube-apiserver's own checks (the CRD,
	// object metadata) but neither the webhook's patch nor its rules, as
	// the webhook with the same --scope admits it. The zero Scope judges
	// every set.
	Scope validation.Scope
	// Tenancy: owners, hostname declarations (the Namespaces of the input,
	// or the cluster's) and the first claim, as the webhook's flags.
	Tenancy validation.Tenancy
	// Reported, for Stored (the audit), compares each judged set's stored
	// status with the merged listener list's prediction
	// (reported.Predict, reported.Compare): each listener where they
	// differ, or of which nothing was reported, is a warning,
	// CodeStatusDiffers or CodeStatusNotReported. Manifests carry no
	// status worth comparing, so Run ignores it.
	Reported bool
	// Cluster, when set, is a live cluster's objects (offline/live.Read),
	// the context of the input instead of the input's alone: the input's
	// Gateways, GatewayClasses, ListenerSets, ReferenceGrants and
	// Namespaces replace the
	// cluster's of the same namespace and name, and the cluster's other
	// ListenerSets are rivals. An input ListenerSet that replaces a stored
	// one is an update and has the stored one's creationTimestamp, as
	// kube-apiserver keeps it, whatever its manifest says. Secrets are the
	// cluster's only (unknown when it has none listed), since the input
	// cannot hold all of them.
	Cluster *validation.Objects
	// Namespace is the namespace of the input's namespaced objects that
	// have none (ListenerSets, Gateways, HTTPRoutes, ReferenceGrants,
	// Secrets), as kubectl sends them to its -n or its context's
	// namespace; crdcheck.DefaultNamespace when empty.
	Namespace string
	// Now is kube-apiserver's clock: a ListenerSet of the input judged as
	// a create has creationTimestamp Now (to the second, as stored), not
	// its manifest's, which kube-apiserver overwrites on create. time.Now
	// when nil; tests set it.
	Now func() time.Time
	// KeepCreationTimestamps: the input is stored objects, not creates
	// (the listeners command's -f, which lists what kubectl get printed):
	// each set keeps its manifest's creationTimestamp.
	KeepCreationTimestamps bool
	// ReplacementsAsStored judges an input set that replaces a stored one
	// on the same Gateway as the audit judges the stored one (nothing
	// ratcheted, its claims in the order the sets came: validation's
	// AsStored), not as the update of it, so that its findings compare
	// with the stored one's (validate --against); one the input moves to
	// another Gateway is a create there, as the webhook judges it.
	ReplacementsAsStored bool
}

// namespace is the namespace of an input object without one.
func (o *Options) namespace() string {
	if o.Namespace == "" {
		return crdcheck.DefaultNamespace
	}
	return o.Namespace
}

// created is the creationTimestamp kube-apiserver gives a create now.
func (o *Options) created() metav1.Time {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	return metav1.NewTime(now().Truncate(time.Second))
}

// Result is the verdict on one ListenerSet, or the route findings of one
// HTTPRoute (Kind).
type Result struct {
	read.Location
	// Kind is KindHTTPRoute for an HTTPRoute's route findings (Routes);
	// omitted for a ListenerSet.
	Kind string `json:"kind,omitempty"`
	// Namespace is metadata.namespace (omitted when unset).
	Namespace string `json:"namespace,omitempty"`
	// Name is metadata.name.
	Name string `json:"name"`
	// Valid is true when Errors is empty: kube-apiserver, the CRD and the
	// webhook would admit the object.
	Valid bool `json:"valid"`
	// Errors are kube-apiserver's own (unknown fields, the CRD's, object
	// metadata's) that the webhook's do not cover, then the webhook's.
	Errors []FieldError `json:"errors"`
	// Warnings are the admission warnings, plus duplicate fields (and
	// unknown ones under UnknownFieldsWarn).
	Warnings []read.Warning `json:"warnings"`
	// Scope is the scope's outcome for a set it left unjudged (another
	// implementation's, or one of an unknown parent under UnknownAdmit):
	// only kube-apiserver's own checks applied. Omitted for a set judged.
	Scope validation.Outcome `json:"scope,omitempty"`
	// Fixed are the live set's findings this one no longer has, when
	// compared with a live cluster (Compare); omitted otherwise or when
	// none.
	Fixed *Findings `json:"fixed,omitempty"`

	// pos locates the fields of the object's document.
	pos *position.Document
}

// KindName is the result's kind: ListenerSet, or Kind.
func (r *Result) KindName() string {
	if r.Kind == "" {
		return "ListenerSet"
	}
	return r.Kind
}

// FieldError is one field.Error.
type FieldError struct {
	// Field is the path, e.g. spec.listeners[1].name; empty when the
	// document could not be decoded.
	Field string `json:"field"`
	// Code is the finding's diagnostic code (docs/codes.md), e.g. LS104.
	Code string `json:"code"`
	// Type is the field.ErrorType, e.g. FieldValueDuplicate
	// (FieldValueTypeInvalid for a document that could not be decoded).
	Type string `json:"type"`
	// Baseline is how the error stands against the live cluster's
	// (Compare); empty when not compared.
	Baseline Baseline `json:"baseline,omitempty"`
	// Value is the offending value, where the message shows one.
	Value any `json:"value,omitempty"`
	// Detail is the rule's explanation, if any.
	Detail string `json:"detail,omitempty"`
	// Message is the whole error as kubectl prints it.
	Message string `json:"message"`
	// Line and Column are where Field stands in the file, or its nearest
	// existing parent when the field is missing (from 1).
	Line   int `json:"line"`
	Column int `json:"column"` // see Line
}

// Skipped is an object that is not a gateway.networking.k8s.io/v1 ListenerSet.
type Skipped struct {
	read.Location
	// APIVersion, Kind, Namespace and Name identify the object, as far as
	// it has them.
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`      // see APIVersion
	Namespace  string `json:"namespace,omitempty"` // see APIVersion
	Name       string `json:"name,omitempty"`      // see APIVersion
	// Reason says why it was not validated, e.g. "not a ListenerSet".
	Reason string `json:"reason"`
}

// Note is a skipped object or an input error (one of the two), as met.
type Note struct {
	Skipped    *Skipped
	InputError *read.InputError
}

// Verdict is what Run found.
type Verdict struct {
	// Files are the inputs read, in order.
	Files []string
	// Notes are the skipped objects and the input errors, in input order
	// (a CRD that cannot be loaded last).
	Notes []Note
	// Results has one entry per ListenerSet, in input order.
	Results []Result
	// Sets are the objects the webhook judged, by index of Results (nil
	// where the object does not decode into the Go type).
	Sets []*gwv1.ListenerSet
	// Objects is the cluster view built from the input (over
	// Options.Cluster when set); its Sets are the ListenerSets found
	// valid, in precedence order (after the cluster's).
	Objects validation.Objects
	// Compared is set when the findings are marked against a live
	// cluster's (Compare).
	Compared bool

	// routes are the input's HTTPRoutes, in the order of Objects.Routes
	// (its input ones, after the cluster's); inputRoutes how many.
	routes      []*read.Object
	inputRoutes int
	// namespace is that of the input's objects without one
	// (Options.Namespace).
	namespace string
}

// Reasons for skipping.
const (
	reasonNotObject      = "not a Kubernetes object (no apiVersion and kind)"
	reasonNotListenerSet = "not a ListenerSet"
	reasonOtherVersion   = "only " + gwv1.GroupName + "/v1 ListenerSets are validated"
	reasonContext        = "; used for the cluster-aware checks"
	reasonScope          = "; used for the scope (whose ListenerSets are Airlock's)"
)

var listenerSetAPIVersion = gwv1.GroupVersion.String()

// Run judges every ListenerSet of in against the other objects of in.
func Run(in *read.Input, opts Options) *Verdict {
	v := &Verdict{Files: in.Files, namespace: opts.namespace()}
	var sets []*read.Object
	for _, e := range in.Entries {
		switch {
		case e.Error != nil:
			e.Error.Code = string(CodeInputError)
			v.Notes = append(v.Notes, Note{InputError: e.Error})
		case isListenerSet(e.Object.Head):
			sets = append(sets, e.Object)
		case isHTTPRoute(e.Object.Head) && collect(&v.Objects, e.Object.Head, e.Object.Raw, v.namespace):
			// Judged as a route (Routes), not skipped.
			v.routes = append(v.routes, e.Object)
		default:
			v.Notes = append(v.Notes, Note{Skipped: v.skip(e.Object)})
		}
	}
	if opts.Cluster != nil {
		v.Objects = overlay(opts.Cluster, &v.Objects)
	}
	v.judgeSets(sets, opts)
	v.judgeRoutes(opts)
	return v
}

func isListenerSet(h read.Head) bool {
	return h.Kind == "ListenerSet" && h.APIVersion == listenerSetAPIVersion
}

func isHTTPRoute(h read.Head) bool {
	return h.Kind == KindHTTPRoute && h.APIVersion == listenerSetAPIVersion
}

// skip says why o is not judged, keeping it for the cluster view where the
// cluster-aware rules look at its kind.
func (v *Verdict) skip(o *read.Object) *Skipped {
	h := o.Head
	s := &Skipped{Location: o.Location, APIVersion: h.APIVersion, Kind: h.Kind, Namespace: h.Namespace, Name: h.Name}
	switch {
	case o.Raw[0] != '{' || h.APIVersion == "" || h.Kind == "":
		s.Reason = reasonNotObject
	case h.Kind != "ListenerSet":
		s.Reason = reasonNotListenerSet
	default:
		s.Reason = reasonOtherVersion
	}
	if collect(&v.Objects, h, o.Raw, v.namespace) {
		if h.Kind == "GatewayClass" {
			s.Reason += reasonScope
		} else {
			s.Reason += reasonContext
		}
	}
	return s
}

// collect keeps the objects the cluster-aware rules and the scope look at:
// Gateways, GatewayClasses, ReferenceGrants, Namespaces and Secrets
// (metadata only; their data is never kept), a namespaced one without a
// namespace in ns. It reports whether the object is one of them.
func collect(o *validation.Objects, h read.Head, raw []byte, ns string) bool {
	in := func(m *metav1.ObjectMeta) {
		if m.Namespace == "" {
			m.Namespace = ns
		}
	}
	switch {
	case h.APIVersion == listenerSetAPIVersion && h.Kind == "Gateway":
		gw := &gwv1.Gateway{}
		if json.Unmarshal(raw, gw) != nil {
			return false
		}
		in(&gw.ObjectMeta)
		o.Gateways = append(o.Gateways, gw)
	case h.APIVersion == listenerSetAPIVersion && h.Kind == KindHTTPRoute:
		r := &gwv1.HTTPRoute{}
		if json.Unmarshal(raw, r) != nil {
			return false
		}
		in(&r.ObjectMeta)
		o.Routes = append(o.Routes, r)
	case h.APIVersion == listenerSetAPIVersion && h.Kind == "GatewayClass":
		gc := &gwv1.GatewayClass{}
		if json.Unmarshal(raw, gc) != nil {
			return false
		}
		o.Classes = append(o.Classes, gc)
	case (h.APIVersion == listenerSetAPIVersion || h.APIVersion == gwv1.GroupName+"/v1beta1") && h.Kind == "ReferenceGrant":
		// v1beta1 and v1 ReferenceGrants have the same fields.
		g := &gwv1.ReferenceGrant{}
		if json.Unmarshal(raw, g) != nil {
			return false
		}
		in(&g.ObjectMeta)
		o.Grants = append(o.Grants, g)
	case h.APIVersion == "v1" && (h.Kind == "Namespace" || h.Kind == "Secret"):
		m := &metav1.PartialObjectMetadata{}
		if json.Unmarshal(raw, m) != nil {
			return false
		}
		if h.Kind == "Namespace" {
			o.Namespaces = append(o.Namespaces, m)
		} else {
			in(&m.ObjectMeta)
			o.Secrets = append(o.Secrets, m)
		}
	default:
		return false
	}
	return true
}

// crdError is the input error of a CRD that cannot be loaded.
func crdError(opts Options, err error) *read.InputError {
	return &read.InputError{File: strings.Join(opts.CRDs, ","), Message: "--crd: " + err.Error(), Code: string(CodeInputError)}
}
