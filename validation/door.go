package validation

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

func BuiltinNames(key gwv1.AnnotationKey) []string                { return object.BuiltinNames(key) }
func Covers(w, h string) bool                                     { return object.Covers(w, h) }
func ExampleOptions() map[gwv1.AnnotationKey]gwv1.AnnotationValue { return object.ExampleOptions() }
func ListOptionNames() string                                     { return object.ListOptionNames() }
func OverlapMessage(hostname *gwv1.Hostname, other string, otherHostname *gwv1.Hostname, port gwv1.PortNumber) string {
	return object.OverlapMessage(hostname, other, otherHostname, port)
}
func ParentOf(ls *gwv1.ListenerSet) (namespace, name string, ok bool) { return object.ParentOf(ls) }
func ParseAddedNames(settings []string) (object.AddedNames, error) {
	return object.ParseAddedNames(settings)
}
func Rules() []object.Rule                    { return object.Rules() }
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

func ClaimKey(namespace, name, h string) string             { return incluster.ClaimKey(namespace, name, h) }
func ClassWarnings(gc *gwv1.GatewayClass) findings.Warnings { return incluster.ClassWarnings(gc) }
func ComparePrecedence(a, b *gwv1.ListenerSet) int          { return incluster.ComparePrecedence(a, b) }
func EndpointKey(namespace, name string, port gwv1.PortNumber, protocol gwv1.ProtocolType, hostname *gwv1.Hostname) string {
	return incluster.EndpointKey(namespace, name, port, protocol, hostname)
}
func GatewayKey(namespace, name string) string     { return incluster.GatewayKey(namespace, name) }
func ListenerSetKey(namespace, name string) string { return incluster.ListenerSetKey(namespace, name) }
func MergedListeners(gw *gwv1.Gateway, sets []*gwv1.ListenerSet, opts incluster.MergeOptions) []incluster.MergedListener {
	return incluster.MergedListeners(gw, sets, opts)
}
func NamesListenerSet(routeNamespace string, ref *gwv1.ParentReference) (namespace, name string, ok bool) {
	return incluster.NamesListenerSet(routeNamespace, ref)
}
func ParentKey(ls *gwv1.ListenerSet) (key string, ok bool) { return incluster.ParentKey(ls) }
func PermittingGrant(grants []*gwv1.ReferenceGrant, fromNamespace string, name gwv1.ObjectName) *gwv1.ReferenceGrant {
	return incluster.PermittingGrant(grants, fromNamespace, name)
}
func PortKey(namespace, name string, port gwv1.PortNumber, protocol gwv1.ProtocolType) string {
	return incluster.PortKey(namespace, name, port, protocol)
}
func RivalKeys(ls *gwv1.ListenerSet) []string       { return incluster.RivalKeys(ls) }
func RouteClaimKeys(route *gwv1.HTTPRoute) []string { return incluster.RouteClaimKeys(route) }
func RouteKeys(route *gwv1.HTTPRoute) []string      { return incluster.RouteKeys(route) }
func TrimmedManagedFields(ls *gwv1.ListenerSet) []metav1.ManagedFieldsEntry {
	return incluster.TrimmedManagedFields(ls)
}
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

func JudgeParents(route *gwv1.HTTPRoute, c views.RouteParents, scope incluster.Scope, classes views.Classes) *findings.WarningReport {
	return routes.JudgeParents(route, c, scope, classes)
}
func NewAttacher(ls *gwv1.ListenerSet, nsLabels views.NamespaceLabelsFunc) *routes.Attacher {
	return routes.NewAttacher(ls, nsLabels)
}
func StoredClaimsHeld(route *gwv1.HTTPRoute, o routes.ClaimOptions) []routes.HeldClaim {
	return routes.StoredClaimsHeld(route, o)
}

// Of the ratcheting verdict (internal/verdict).
const (
	KindRatcheted = verdict.KindRatcheted
)

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
