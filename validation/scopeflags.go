package validation

import (
	"errors"
	"fmt"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ScopeFlags are a Scope as every command that judges takes it on its
// command line: --scope, --controller-names and --unknown-parent, with the
// same defaults and checks in the webhook server (flag) and the kubectl
// plugin (pflag). Each of ModeFlag, NamesFlag and UnknownFlag is one flag's
// value (flag.Value and pflag.Value); Scope is what they set.
//
// The zero ScopeFlags is not the default: use NewScopeFlags.
type ScopeFlags struct {
	all     bool
	names   []gwv1.GatewayController
	given   bool // --controller-names was given: its first value replaces the default
	unknown UnknownParent
}

// NewScopeFlags is the default: "class", Airlock's controller name, an
// unknown parent judged.
func NewScopeFlags() *ScopeFlags {
	return &ScopeFlags{names: []gwv1.GatewayController{AirlockControllerName}, unknown: UnknownJudge}
}

// Scope is the Scope the flags set: off with --scope=all.
func (f *ScopeFlags) Scope() Scope {
	if f.all {
		return Scope{Unknown: f.unknown}
	}
	return Scope{ControllerNames: append([]gwv1.GatewayController(nil), f.names...), Unknown: f.unknown}
}

// Values of --scope.
const (
	ScopeClass = "class"
	ScopeAll   = "all"
)

// ScopeModes are --scope's values, the default first.
var ScopeModes = []string{ScopeClass, ScopeAll}

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

// ModeFlag is the value of --scope.
func (f *ScopeFlags) ModeFlag() *ScopeModeFlag { return &ScopeModeFlag{f} }

// NamesFlag is the value of --controller-names.
func (f *ScopeFlags) NamesFlag() *ControllerNamesFlag { return &ControllerNamesFlag{f} }

// UnknownFlag is the value of --unknown-parent.
func (f *ScopeFlags) UnknownFlag() *UnknownParentFlag { return &UnknownParentFlag{f} }

// ScopeModeFlag is --scope: "class" or "all".
type ScopeModeFlag struct{ f *ScopeFlags }

// String implements flag.Value.
func (m *ScopeModeFlag) String() string {
	if m != nil && m.f != nil && m.f.all {
		return ScopeAll
	}
	return ScopeClass
}

// Set implements flag.Value.
func (m *ScopeModeFlag) Set(v string) error {
	switch v {
	case ScopeClass, ScopeAll:
		m.f.all = v == ScopeAll
		return nil
	}
	return fmt.Errorf("must be %q or %q", ScopeClass, ScopeAll)
}

// Type implements pflag.Value.
func (*ScopeModeFlag) Type() string { return "string" }

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

// UnknownParentFlag is --unknown-parent: one of UnknownParents.
type UnknownParentFlag struct{ f *ScopeFlags }

// String implements flag.Value.
func (u *UnknownParentFlag) String() string {
	if u == nil || u.f == nil || u.f.unknown == "" {
		return string(UnknownJudge)
	}
	return string(u.f.unknown)
}

// Set implements flag.Value.
func (u *UnknownParentFlag) Set(s string) error {
	if err := UnknownParent(s).Check(); err != nil || s == "" {
		return fmt.Errorf("must be %q or %q", UnknownJudge, UnknownAdmit)
	}
	u.f.unknown = UnknownParent(s)
	return nil
}

// Type implements pflag.Value.
func (*UnknownParentFlag) Type() string { return "string" }
