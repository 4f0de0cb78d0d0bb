package validation

// The door: what callers outside validation read of the rooms behind it,
// re-exported by alias (a type, constant or variable here is the room's
// own, not a copy) and functions that call the room's. Only what some
// caller uses is here; the rest of a room stays behind the door.

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/routes"
	"github.com/airlock/listenerset-webhook/validation/internal/verdict"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// Of the object's rules and their data (internal/object).
type (
	AddedNames        = object.AddedNames
	AirlockOption     = object.AirlockOption
	Example           = object.Example
	ListenerRef       = object.ListenerRef
	ListenerSource    = object.ListenerSource
	ListenerValueRule = object.ListenerValueRule
	Merge             = object.Merge
	Rule              = object.Rule
)

const (
	CodeDuplicateListenerName     = object.CodeDuplicateListenerName
	CodeHostname                  = object.CodeHostname
	CodeProtocol                  = object.CodeProtocol
	CodeRouteKind                 = object.CodeRouteKind
	CodeUnsupportedOptionItem     = object.CodeUnsupportedOptionItem
	ConditionOverlappingTLSConfig = object.ConditionOverlappingTLSConfig
	DetailAfterWildcard           = object.DetailAfterWildcard
	DetailEmptyHostname           = object.DetailEmptyHostname
	DetailEmptyItem               = object.DetailEmptyItem
	DetailEmptyNameList           = object.DetailEmptyNameList
	DetailHTTP3NeedsTLS13         = object.DetailHTTP3NeedsTLS13
	DetailHostnameConflict        = object.DetailHostnameConflict
	DetailHostnameIP              = object.DetailHostnameIP
	DetailHostnamePort            = object.DetailHostnamePort
	DetailNoCertificateRef        = object.DetailNoCertificateRef
	DetailNoListeners             = object.DetailNoListeners
	DetailPaddedItem              = object.DetailPaddedItem
	DetailProtocolConflict        = object.DetailProtocolConflict
	DetailSelectorRequired        = object.DetailSelectorRequired
	DetailTLSForbidden            = object.DetailTLSForbidden
	DetailTLSRequired             = object.DetailTLSRequired
	DetailUnprefixedOption        = object.DetailUnprefixedOption
	DetailVersionBelowMinimum     = object.DetailVersionBelowMinimum
	HTTPRouteKind                 = object.HTTPRouteKind
	ListenerSetKind               = object.ListenerSetKind
	MaxAddedNameLen               = object.MaxAddedNameLen
	MaxAddedNames                 = object.MaxAddedNames
	MaxListeners                  = object.MaxListeners
	MaxOptionValueLen             = object.MaxOptionValueLen
	MaxOptions                    = object.MaxOptions
	MaxSelectorItems              = object.MaxSelectorItems
	OptionALPNProtocols           = object.OptionALPNProtocols
	OptionCiphers                 = object.OptionCiphers
	OptionECDHCurves              = object.OptionECDHCurves
	OptionMaximumVersion          = object.OptionMaximumVersion
	OptionMinimumVersion          = object.OptionMinimumVersion
	OptionPrefix                  = object.OptionPrefix
	OptionSignatureAlgorithms     = object.OptionSignatureAlgorithms
	ProtocolHTTP                  = object.ProtocolHTTP
	ProtocolHTTP3                 = object.ProtocolHTTP3
	ProtocolHTTPS                 = object.ProtocolHTTPS
	ReasonHostnameConflict        = object.ReasonHostnameConflict
	ReasonOverlappingHostnames    = object.ReasonOverlappingHostnames
	ReasonProtocolConflict        = object.ReasonProtocolConflict
	SourceGateway                 = object.SourceGateway
	SourceListenerSet             = object.SourceListenerSet
	TLSVersionHTTP3               = object.TLSVersionHTTP3
	WarnForeignOption             = object.WarnForeignOption
	WildcardPrefix                = object.WildcardPrefix
)

var (
	ALPNProtocols       = object.ALPNProtocols
	AirlockOptions      = object.AirlockOptions
	Ciphers             = object.Ciphers
	ECDHCurves          = object.ECDHCurves
	ListOptions         = object.ListOptions
	ListenerStrings     = object.ListenerStrings
	SignatureAlgorithms = object.SignatureAlgorithms
	SupportedFrom       = object.SupportedFrom
	SupportedOptions    = object.SupportedOptions
	SupportedProtocols  = object.SupportedProtocols
	TLSVersions         = object.TLSVersions
)

// BuiltinNames: object.BuiltinNames, which are the names the list-valued
// option key accepts in this build, in the order a message lists them (nil
// for another key).
func BuiltinNames(key gwv1.AnnotationKey) []string { return object.BuiltinNames(key) }

// Covers: object.Covers, which tells whether hostname w ("" for none) matches
// every name h matches and w is not h: w is absent, or a wildcard above h.
func Covers(w, h string) bool { return object.Covers(w, h) }

// ExampleOptions: object.ExampleOptions, which sets every Airlock TLS option
// to its example: valid together, on an HTTPS or an http3 listener.
func ExampleOptions() map[gwv1.AnnotationKey]gwv1.AnnotationValue { return object.ExampleOptions() }

// ListOptionNames: object.ListOptionNames, which are the list-valued options
// as a setting names them (without their prefix), comma-separated.
func ListOptionNames() string { return object.ListOptionNames() }

// OverlapMessage: object.OverlapMessage, which is the warnings' text for a
// listener with hostname on port whose hostname overlaps otherHostname of the
// listener other names ("namespace/name listener name"): the condition's
// message in the listeners command.
func OverlapMessage(hostname *gwv1.Hostname, other string, otherHostname *gwv1.Hostname, port gwv1.PortNumber) string {
	return object.OverlapMessage(hostname, other, otherHostname, port)
}

// ParentOf: object.ParentOf, which names the Gateway ls's parentRef points
// to, ok=false when it names none (another group or kind, or no name: an
// error of the object's own rules).
func ParentOf(ls *gwv1.ListenerSet) (namespace, name string, ok bool) { return object.ParentOf(ls) }

// ParseAddedNames: object.ParseAddedNames, which reads settings of the form
// "<option>=<name>[,<name>...]", where option is a list-valued option's key
// with or without its "microgateway.airlock.com/" prefix
// (ecdhCurves=X25519Kyber768Draft00).
func ParseAddedNames(settings []string) (AddedNames, error) {
	return object.ParseAddedNames(settings)
}

// Rules: object.Rules, which are every object rule's definition, in
// docs/rules.md's order: the tables beside the rules' Go functions, and a
// rule per row of the option table.
func Rules() []Rule { return object.Rules() }

// ServedProtocol: object.ServedProtocol, which tells whether Airlock
// Microgateway serves protocol p on a listener: one of SupportedProtocols.
func ServedProtocol(p gwv1.ProtocolType) bool { return object.ServedProtocol(p) }

// Of the merged list and the cluster-aware rules (internal/incluster).
type (
	Claim          = incluster.Claim
	ClaimMode      = incluster.ClaimMode
	Decision       = incluster.Decision
	ListenerState  = incluster.ListenerState
	MergeOptions   = incluster.MergeOptions
	MergedListener = incluster.MergedListener
	Objects        = incluster.Objects
	Outcome        = incluster.Outcome
	Owner          = incluster.Owner
	Scope          = incluster.Scope
	Tenancy        = incluster.Tenancy
	UnknownParent  = incluster.UnknownParent
)

const (
	AirlockControllerName             = incluster.AirlockControllerName
	AllHostnames                      = incluster.AllHostnames
	ClaimDeny                         = incluster.ClaimDeny
	ClaimOff                          = incluster.ClaimOff
	ClaimWarn                         = incluster.ClaimWarn
	CodeDeclarationMalformed          = incluster.CodeDeclarationMalformed
	CodeHostnameClaimed               = incluster.CodeHostnameClaimed
	CodeHostnameNotDeclared           = incluster.CodeHostnameNotDeclared
	CodeScopeUnknown                  = incluster.CodeScopeUnknown
	DefaultAllowedHostnamesAnnotation = incluster.DefaultAllowedHostnamesAnnotation
	DetailDeclarationCut              = incluster.DetailDeclarationCut
	DetailDeclarationEmpty            = incluster.DetailDeclarationEmpty
	DetailDeclarationEntry            = incluster.DetailDeclarationEntry
	DetailDeclarationProblem          = incluster.DetailDeclarationProblem
	DetailDeclarationTooMany          = incluster.DetailDeclarationTooMany
	DetailEntryBlanks                 = incluster.DetailEntryBlanks
	DetailEntryEmpty                  = incluster.DetailEntryEmpty
	DetailHostnameClaimed             = incluster.DetailHostnameClaimed
	DetailHostnameHeld                = incluster.DetailHostnameHeld
	DetailHostnameNotDeclared         = incluster.DetailHostnameNotDeclared
	DetailNoHostnameDeclared          = incluster.DetailNoHostnameDeclared
	KindClusterFinding                = incluster.KindClusterFinding
	ListenerAccepted                  = incluster.ListenerAccepted
	ListenerConflicted                = incluster.ListenerConflicted
	ListenerInvalid                   = incluster.ListenerInvalid
	ListenerNotAllowed                = incluster.ListenerNotAllowed
	ListenerUnknown                   = incluster.ListenerUnknown
	ListenerUnsupportedProtocol       = incluster.ListenerUnsupportedProtocol
	MaxAllowedHostnames               = incluster.MaxAllowedHostnames
	MaxQuotedDeclaration              = incluster.MaxQuotedDeclaration
	OutcomeAirlock                    = incluster.OutcomeAirlock
	OutcomeOther                      = incluster.OutcomeOther
	OutcomeUnknownAdmitted            = incluster.OutcomeUnknownAdmitted
	OutcomeUnknownJudged              = incluster.OutcomeUnknownJudged
	ScopeAdmitted                     = incluster.ScopeAdmitted
	UnknownAdmit                      = incluster.UnknownAdmit
	UnknownJudge                      = incluster.UnknownJudge
)

var (
	ClaimModes     = incluster.ClaimModes
	Outcomes       = incluster.Outcomes
	UnknownParents = incluster.UnknownParents
)

// ClaimKey: incluster.ClaimKey, which is the key of Gateway namespace/name's
// ListenerSets with a listener claiming hostname h (RivalKeys), UnderKey that
// of those with a listener claiming a hostname under wildcard w: the first-
// claim rule finds a hostname's overlaps, above, equal and below, by its
// covering hostnames (coveringHostnames), in as many reads as it has labels.
func ClaimKey(namespace, name, h string) string { return incluster.ClaimKey(namespace, name, h) }

// ClassWarnings: incluster.ClassWarnings, which are WarnClass' warnings on
// gc, for a command that explains one set rather than judging it (why): one
// decision, whoever tells it.
func ClassWarnings(gc *gwv1.GatewayClass) findings.Warnings { return incluster.ClassWarnings(gc) }

// ComparePrecedence: incluster.ComparePrecedence, which orders ListenerSets
// as Gateway API merges them: by creation time, oldest first, then
// "namespace/name".
func ComparePrecedence(a, b *gwv1.ListenerSet) int { return incluster.ComparePrecedence(a, b) }

// EndpointKey: incluster.EndpointKey, which is the key of Gateway
// namespace/name's ListenerSets with a listener on port with protocol and
// hostname (nil: none) (RivalKeys).
func EndpointKey(namespace, name string, port gwv1.PortNumber, protocol gwv1.ProtocolType, hostname *gwv1.Hostname) string {
	return incluster.EndpointKey(namespace, name, port, protocol, hostname)
}

// GatewayKey: incluster.GatewayKey, which is the ParentKey of the
// ListenerSets of Gateway namespace/name: what an index by ParentKey is asked
// for.
func GatewayKey(namespace, name string) string { return incluster.GatewayKey(namespace, name) }

// ListenerSetKey: incluster.ListenerSetKey, which is the key RouteKeys files
// the routes naming ListenerSet namespace/name under.
func ListenerSetKey(namespace, name string) string { return incluster.ListenerSetKey(namespace, name) }

// MergedListeners: incluster.MergedListeners, which is Gateway gw's merged
// listener list as Gateway API says an implementation must build it, each
// listener with its state: gw's own listeners, then the listeners of sets
// (gw's ListenerSets, those whose ParentKey is gw's GatewayKey;
func MergedListeners(gw *gwv1.Gateway, sets []*gwv1.ListenerSet, opts MergeOptions) []MergedListener {
	return incluster.MergedListeners(gw, sets, opts)
}

// NamesListenerSet: incluster.NamesListenerSet, which tells whether ref, a
// parentRef of an HTTPRoute in namespace routeNamespace, names a ListenerSet,
// and which.
func NamesListenerSet(routeNamespace string, ref *gwv1.ParentReference) (namespace, name string, ok bool) {
	return incluster.NamesListenerSet(routeNamespace, ref)
}

// ParentKey: incluster.ParentKey, which is the key of the Gateway ls's
// parentRef names, as Cluster.ListenerSetsOf answers by (GatewayKey of that
// Gateway);
func ParentKey(ls *gwv1.ListenerSet) (key string, ok bool) { return incluster.ParentKey(ls) }

// PermittingGrant: incluster.PermittingGrant, which is the first of grants (a
// Secret's namespace's) that lets ListenerSets of fromNamespace reference the
// Secret name, nil when none does: the RefNotPermitted rule's decision, for a
// caller that names the grant (the why command).
func PermittingGrant(grants []*gwv1.ReferenceGrant, fromNamespace string, name gwv1.ObjectName) *gwv1.ReferenceGrant {
	return incluster.PermittingGrant(grants, fromNamespace, name)
}

// PortKey: incluster.PortKey, which is the key of Gateway namespace/name's
// ListenerSets with a listener on port with protocol (RivalKeys).
func PortKey(namespace, name string, port gwv1.PortNumber, protocol gwv1.ProtocolType) string {
	return incluster.PortKey(namespace, name, port, protocol)
}

// RivalKeys: incluster.RivalKeys, which are the keys an index of ListenerSets
// files ls under, for Cluster.ListenerSetsAt: for each of its listeners the
// PortKey of its port and protocol, the EndpointKey of its port, protocol and
// hostname and, for a listener that claims a hostname, its claimKeys
// (ClaimKey, UnderKey), under the Gateway its parentRef names (ParentKey);
func RivalKeys(ls *gwv1.ListenerSet) []string { return incluster.RivalKeys(ls) }

// RouteClaimKeys: incluster.RouteClaimKeys, which are the keys an index of
// HTTPRoutes files route under, for Routes.RoutesAt: the claimKeys of each of
// its hostnames, under no Gateway (a route names ListenerSets, and which
// Gateway each is on can change without the route: the claim rules read the
// parents anew).
func RouteClaimKeys(route *gwv1.HTTPRoute) []string { return incluster.RouteClaimKeys(route) }

// RouteKeys: incluster.RouteKeys, which are the ListenerSetKeys of the
// ListenerSets route's parentRefs name, each once: what an index of routes
// files a route under, so that a view answers Routes.RoutesOf by it.
func RouteKeys(route *gwv1.HTTPRoute) []string { return incluster.RouteKeys(route) }

// TrimmedManagedFields: incluster.TrimmedManagedFields, which are the
// managedFields entries ArrivalOf and StoredBefore read, at most two: a cache
// keeps them instead of the object's (which can be most of its size), and
// ArrivalOf and StoredBefore give the same answers from them.
func TrimmedManagedFields(ls *gwv1.ListenerSet) []metav1.ManagedFieldsEntry {
	return incluster.TrimmedManagedFields(ls)
}

// TrimmedRouteManagedFields: incluster.TrimmedRouteManagedFields, which is
// TrimmedManagedFields of an HTTPRoute, for RouteArrivalOf.
func TrimmedRouteManagedFields(route *gwv1.HTTPRoute) []metav1.ManagedFieldsEntry {
	return incluster.TrimmedRouteManagedFields(route)
}

// Of routes: attachment and claims (internal/routes).
type (
	Attacher     = routes.Attacher
	ClaimOptions = routes.ClaimOptions
	HeldClaim    = routes.HeldClaim
)

const (
	CodeRouteHostnameClaimed            = routes.CodeRouteHostnameClaimed
	CodeRouteHostnameNotDeclared        = routes.CodeRouteHostnameNotDeclared
	CodeRouteNoMatchingParent           = routes.CodeRouteNoMatchingParent
	DetailGivenToRoute                  = routes.DetailGivenToRoute
	DetailHeldByRoute                   = routes.DetailHeldByRoute
	KindRouteNoMatchingListenerHostname = routes.KindRouteNoMatchingListenerHostname
	KindRouteNoMatchingParent           = routes.KindRouteNoMatchingParent
	KindRouteNotAllowedByListeners      = routes.KindRouteNotAllowedByListeners
)

// JudgeParents: routes.JudgeParents, which gives a warning for each parentRef
// of route that names a ListenerSet scope judges (reading classes) and
// attaches to none of its listeners, at spec.parentRefs[i].
func JudgeParents(route *gwv1.HTTPRoute, c views.RouteParents, scope Scope, classes Classes) *findings.WarningReport {
	return routes.JudgeParents(route, c, scope, classes)
}

// NewAttacher: routes.NewAttacher, which is the Attacher of ls, judged as
// defaults.ListenerSet defaults it;
func NewAttacher(ls *gwv1.ListenerSet, nsLabels views.NamespaceLabelsFunc) *Attacher {
	return routes.NewAttacher(ls, nsLabels)
}

// StoredClaimsHeld: routes.StoredClaimsHeld, which are route's claims, judged
// as stored (AsStored), that another owner's listener or route holds first;
func StoredClaimsHeld(route *gwv1.HTTPRoute, o ClaimOptions) []HeldClaim {
	return routes.StoredClaimsHeld(route, o)
}

// Of the ratcheting verdict (internal/verdict).
const (
	KindRatcheted = verdict.KindRatcheted
)

// NewRatchet: verdict.NewRatchet, which pairs the k-th listener named n of
// newLS with the k-th listener named n of oldLS: names are unique in a valid
// set, and counting keeps a copy of a stored listener from passing as
// unchanged twice.
func NewRatchet(newLS, oldLS *gwv1.ListenerSet) verdict.Ratchet {
	return verdict.NewRatchet(newLS, oldLS)
}

// Of the read views the rules are handed (internal/views).
type (
	Classes = views.Classes
	Cluster = views.Cluster
	Routes  = views.Routes
)

// ListenerValueRules are the rules on one listener value (see
// object.ListenerValueRule), read when called: a test may add one
// (validationtest.AddListenerValueRule).
func ListenerValueRules() []ListenerValueRule { return object.ListenerValueRules }

// Of the rules over a set's listeners (internal/object, setrules.go).
type (
	ListenerSetRule = object.ListenerSetRule
)

// CodePort is the code of an invalid port.
const CodePort = object.CodePort

// SetRuleFields: object.SetRuleFields, the fields a set rule's error may
// be at, by their path below the listener.
var SetRuleFields = object.SetRuleFields

// SetRules are the rules over a set's listeners (see
// object.ListenerSetRule), read when called: a test may add one
// (validationtest.AddSetRule).
func SetRules() []ListenerSetRule { return object.SetRules }

// Copies: object.Copies, which are n copies of l for a rule's example, each
// its own listener: the k-th named "<name>-<k>" and, when l has a
// hostname, at "<name>-<k>.<hostname>" (below a wildcard's "*."), so that
// no two conflict.
func Copies(l gwv1.ListenerEntry, n int) []gwv1.ListenerEntry { return object.Copies(l, n) }
