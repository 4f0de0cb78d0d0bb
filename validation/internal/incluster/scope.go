package incluster

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/internal/views"
)

// AirlockControllerName is the controllerName of the GatewayClasses Airlock
// Microgateway's operator manages unless its chart sets another
// (operator.gatewayAPI.controllerName, a path under microgateway.airlock.com).
const AirlockControllerName gwv1.GatewayController = "microgateway.airlock.com/gatewayclass-controller"

// Scope says which ListenerSets are Airlock's to judge. A ListenerSet is
// programmed by the controller its parent Gateway's GatewayClass names in
// spec.controllerName; one of another implementation's Gateway is not
// Airlock's, and no rule of this package applies to it.
//
// The zero Scope is off: every ListenerSet is judged, as when a cluster
// runs one implementation (and as every engine that cannot read the
// Gateway does).
type Scope struct {
	// ControllerNames are Airlock's controller names; empty turns the
	// scope off.
	ControllerNames []gwv1.GatewayController
	// Unknown is what a ListenerSet gets when its parent Gateway or that
	// Gateway's GatewayClass is not known (not created yet, not in the
	// input, a cache not synced): UnknownJudge (the default, "") or
	// UnknownAdmit.
	Unknown UnknownParent
}

// UnknownParent is what Scope does with a ListenerSet whose parent's class
// cannot be told.
type UnknownParent string

const (
	// UnknownJudge judges it with Airlock's rules, and says why: a
	// ListenerSet applied before its Gateway is judged as Airlock's, and a
	// retry once the Gateway exists (a GitOps tool's next sync) is judged
	// by the Gateway's class.
	UnknownJudge UnknownParent = "judge"
	// UnknownAdmit admits it untouched, and says so.
	UnknownAdmit UnknownParent = "admit"
)

// UnknownParents are the accepted values of UnknownParent, the default first.
var UnknownParents = []UnknownParent{UnknownJudge, UnknownAdmit}

// Choices are UnknownParents (a command's flag takes one of them).
func (UnknownParent) Choices() []UnknownParent { return UnknownParents }

// Check refuses a value other than UnknownParents ("" is UnknownJudge).
func (u UnknownParent) Check() error {
	if u == "" || slices.Contains(UnknownParents, u) {
		return nil
	}
	return fmt.Errorf("unknown-parent %q: %s", string(u), findings.MustBe(UnknownParents))
}

// On tells whether the scope judges by class at all.
func (s Scope) On() bool { return len(s.ControllerNames) > 0 }

// What the note of an unknown parent says followed from it.
const (
	ScopeJudged   = "so Airlock Microgateway's rules apply"
	ScopeAdmitted = "admitted without Airlock Microgateway's rules"
)

// Outcome is what the scope decision made of a ListenerSet, as the
// webhook's metric labels count it.
type Outcome string

const (
	// OutcomeAirlock: the parent's class names an Airlock controller; judged.
	OutcomeAirlock Outcome = "airlock"
	// OutcomeOther: the parent's class names another controller; admitted
	// untouched.
	OutcomeOther Outcome = "other"
	// OutcomeUnknownJudged: the parent or its class is unknown; judged
	// (UnknownJudge).
	OutcomeUnknownJudged Outcome = "unknown-judged"
	// OutcomeUnknownAdmitted: the parent or its class is unknown; admitted
	// untouched (UnknownAdmit).
	OutcomeUnknownAdmitted Outcome = "unknown-admitted"
	// OutcomeUnscoped: the scope is off; judged.
	OutcomeUnscoped Outcome = "unscoped"
)

// Outcomes lists every Outcome, for a metric's labels.
var Outcomes = []Outcome{OutcomeAirlock, OutcomeOther, OutcomeUnknownJudged, OutcomeUnknownAdmitted, OutcomeUnscoped}

// Decision is the scope's answer for one ListenerSet.
type Decision struct {
	// Judge says whether Airlock's rules apply.
	Judge   bool
	Outcome Outcome
	// Note, for an unknown parent, is the warning that says what was
	// unknown and what followed from it; nil otherwise. Judge gives it
	// first when Airlock's rules find anything (when they find nothing, an
	// unknown parent changed nothing), and always when the set is admitted
	// unjudged.
	Note *findings.Warning
	// Class is the parent Gateway's GatewayClass as the decision read it;
	// nil when it read none (the class or its Gateway is unknown, or the
	// scope is off and there is no view to read it from). Judge warns
	// from it when a controller will not program the set (class.go).
	Class *gwv1.GatewayClass
}

// Decide is the one decision of whose ListenerSet ls is: every engine that
// can read Gateways asks it before any rule. It reads at most one Gateway
// and one GatewayClass, by name. On update the current parent decides:
// ls is the new object, its parentRef as sent, the Gateway and class as
// they are now.
func (s Scope) Decide(ls *gwv1.ListenerSet, c views.Classes) Decision {
	if !s.On() {
		// Every set is judged; the class, when the view has it, is still
		// read for what its status says (warnClass).
		return Decision{Judge: true, Outcome: OutcomeUnscoped, Class: knownClass(ls, c)}
	}
	unknown := func(path *field.Path, what string) Decision {
		if s.Unknown == UnknownAdmit {
			return Decision{Outcome: OutcomeUnknownAdmitted, Note: s.note(path, what, ScopeAdmitted)}
		}
		return Decision{Judge: true, Outcome: OutcomeUnknownJudged, Note: s.note(path, what, ScopeJudged)}
	}
	parentPath := field.NewPath("spec", "parentRef")
	ns, name, ok := object.ParentOf(ls)
	if !ok {
		return unknown(parentPath, "the parentRef names no Gateway")
	}
	if c == nil {
		return unknown(parentPath, fmt.Sprintf("Gateway %s/%s is unknown", ns, name))
	}
	gw, known := c.Gateway(ns, name)
	switch {
	case !known:
		return unknown(parentPath, fmt.Sprintf("Gateway %s/%s is unknown (no Gateways read)", ns, name))
	case gw == nil:
		return unknown(parentPath, fmt.Sprintf("Gateway %s/%s is unknown (not found)", ns, name))
	}
	className := string(gw.Spec.GatewayClassName)
	gc, known := c.GatewayClass(className)
	switch {
	case !known:
		return unknown(parentPath, fmt.Sprintf("GatewayClass %q of Gateway %s/%s is unknown (no GatewayClasses read)", className, ns, name))
	case gc == nil:
		return unknown(parentPath, fmt.Sprintf("GatewayClass %q of Gateway %s/%s is unknown (not found)", className, ns, name))
	case slices.Contains(s.ControllerNames, gc.Spec.ControllerName):
		return Decision{Judge: true, Outcome: OutcomeAirlock, Class: gc}
	}
	return Decision{Outcome: OutcomeOther, Class: gc}
}

// knownClass is the GatewayClass of ls's parent Gateway as c has it; nil
// when the parentRef names no Gateway, c is nil, or c does not have the
// Gateway or its class.
func knownClass(ls *gwv1.ListenerSet, c views.Classes) *gwv1.GatewayClass {
	ns, name, ok := object.ParentOf(ls)
	if !ok || c == nil {
		return nil
	}
	gw, _ := c.Gateway(ns, name)
	if gw == nil {
		return nil
	}
	gc, _ := c.GatewayClass(string(gw.Spec.GatewayClassName))
	return gc
}

// note is the warning of an unknown parent: what is unknown, what followed,
// and how to change that.
func (s Scope) note(path *field.Path, what, then string) *findings.Warning {
	names := make([]string, len(s.ControllerNames))
	for i, n := range s.ControllerNames {
		names[i] = string(n)
	}
	return &findings.Warning{Path: path.String(), Kind: KindScopeUnknown, Code: clusterKindCode(KindScopeUnknown),
		Message: fmt.Sprintf(warnScopeUnknown, what, then, strings.Join(names, ", "))}
}
