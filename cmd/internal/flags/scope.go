package flags

import (
	"errors"
	"strings"

	"github.com/airlock/listenerset-webhook/validation"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ScopeFlags are a validation.Scope as every command that judges takes it
// on its command line: --scope, --controller-names and --unknown-parent,
// with the same defaults and checks in the webhook server (flag) and the
// kubectl plugin (pflag). Each of ModeFlag, NamesFlag and UnknownFlag is one
// flag's value (flag.Value and pflag.Value); Scope is what they set.
//
// The zero ScopeFlags is not the default: use NewScopeFlags.
type ScopeFlags struct {
	mode    ScopeMode
	names   []gwv1.GatewayController
	given   bool // --controller-names was given: its first value replaces the default
	unknown validation.UnknownParent
}

// NewScopeFlags is the default: "class", Airlock's controller name, an
// unknown parent judged.
func NewScopeFlags() *ScopeFlags {
	return &ScopeFlags{names: []gwv1.GatewayController{validation.AirlockControllerName}, unknown: validation.UnknownJudge}
}

// Scope is the Scope the flags set: off with --scope=all.
func (f *ScopeFlags) Scope() validation.Scope {
	if f.mode == ScopeAll {
		return validation.Scope{Unknown: f.unknown}
	}
	return validation.Scope{ControllerNames: append([]gwv1.GatewayController(nil), f.names...), Unknown: f.unknown}
}

// ScopeMode is --scope's value.
type ScopeMode string

// Values of --scope.
const (
	ScopeClass ScopeMode = "class"
	ScopeAll   ScopeMode = "all"
)

// ScopeModes are --scope's values, the default first.
var ScopeModes = []ScopeMode{ScopeClass, ScopeAll}

// Choices implements Choice.
func (ScopeMode) Choices() []ScopeMode { return ScopeModes }

// Usage texts. Each command adds where its Gateways and GatewayClasses come
// from (ScopeUsage's reads) and how it shows a default.
const (
	ControllerNamesUsage = "with --scope=class: the GatewayClass controllerNames that are Airlock Microgateway's, " +
		"comma-separated; repeatable (Airlock's chart sets its own with operator.gatewayAPI.controllerName)"
	UnknownParentUsage = `with --scope=class: what a ListenerSet gets when its parent Gateway or that Gateway's ` +
		`GatewayClass is not known (not created yet, not read): "judge" (Airlock's rules apply, and a warning says why ` +
		`when they find something) or "admit" (admitted untouched, with a warning)`
)

// ScopeUsage is --scope's help; reads says where the Gateways and
// GatewayClasses come from with "class".
func ScopeUsage(reads string) string {
	return `whose ListenerSets are judged: "class" (those whose parent Gateway's GatewayClass names one of ` +
		`--controller-names; every other one is admitted untouched; ` + reads + `) or "all" (every ListenerSet, ` +
		`as when the cluster runs one Gateway implementation)`
}

// ModeFlag is the value of --scope: "class" or "all".
func (f *ScopeFlags) ModeFlag() *Enum[ScopeMode] { return NewEnum(&f.mode, "string") }

// NamesFlag is the value of --controller-names.
func (f *ScopeFlags) NamesFlag() *ControllerNamesFlag { return &ControllerNamesFlag{f} }

// UnknownFlag is the value of --unknown-parent: one of
// validation.UnknownParents.
func (f *ScopeFlags) UnknownFlag() *Enum[validation.UnknownParent] {
	return NewEnum(&f.unknown, "string")
}

// ControllerNamesFlag is --controller-names: repeatable, comma-separated;
// the first value given replaces the default.
type ControllerNamesFlag struct{ f *ScopeFlags }

// String implements flag.Value.
func (c *ControllerNamesFlag) String() string {
	if c == nil || c.f == nil {
		return ""
	}
	names := make([]string, len(c.f.names))
	for i, n := range c.f.names {
		names[i] = string(n)
	}
	return strings.Join(names, ",")
}

// Set implements flag.Value: each value adds its non-empty items.
func (c *ControllerNamesFlag) Set(v string) error {
	if !c.f.given {
		c.f.names, c.f.given = nil, true
	}
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			c.f.names = append(c.f.names, gwv1.GatewayController(item))
		}
	}
	if len(c.f.names) == 0 {
		return errors.New(`names no controller: to judge every ListenerSet, use --scope=all`)
	}
	return nil
}

// Type implements pflag.Value.
func (*ControllerNamesFlag) Type() string { return "strings" }

// Usage texts of the tenancy flags, the same in every command.
const (
	TenantLabelUsage = "the Namespace label whose value names the owner of a namespace's ListenerSets (e.g. Capsule's " +
		"capsule.clastix.io/tenant), so that a team's namespaces are one owner; empty: each namespace is its own owner"
	AllowedHostnamesAnnotationUsage = "the Namespace annotation that declares, comma-separated, the hostnames the " +
		"namespace's ListenerSets may claim (exact names, wildcards, \"*\" for all and listeners without one)"
	FirstClaimUsage = `a listener claiming a hostname that overlaps one another owner's listener holds on the same ` +
		`Gateway (any port): "warn", "off" or "deny"; the older ListenerSet keeps the name`
)

// FirstClaim is the value of --first-claim: one of validation.ClaimModes.
func FirstClaim(t *validation.Tenancy) *Enum[validation.ClaimMode] {
	return NewEnum(&t.FirstClaim, "mode")
}

// AddedNamesUsage is the help of every command's --add-names flag.
var AddedNamesUsage = "<option>=<name>[,<name>...]: names a list-valued TLS option (" + validation.ListOptionNames() +
	") accepts besides the built-in ones, for an Airlock Microgateway release newer than this build's lists; repeatable"
