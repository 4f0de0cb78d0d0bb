package why

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/reported"
)

// Format is an output format of the why command.
type Format string

// Output formats.
const (
	// Text is the default: for people, as kubectl describe reads.
	Text Format = ""
	// JSON is the Explanation document.
	JSON Format = "json"
)

// Write renders e in format f.
func Write(w io.Writer, e *Explanation, f Format) error {
	if f == JSON {
		return WriteJSON(w, e)
	}
	return WriteText(w, e)
}

// WriteJSON writes e as one indented JSON document.
func WriteJSON(w io.Writer, e *Explanation) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(e)
}

// none is what kubectl prints for an empty value.
const none = "<none>"

// esc is user or controller text as a terminal shows it safely; "" is
// <none>.
func esc(s string) string {
	if s == "" {
		return none
	}
	return findings.Escape(s)
}

// section writes a heading and its "Key: value" lines aligned, as kubectl
// describe does.
type section struct {
	w  io.Writer
	tw *tabwriter.Writer
}

func newSection(w io.Writer, heading string) *section {
	fmt.Fprintln(w, heading)
	return &section{w: w, tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
}

func (s *section) line(key, value string) { fmt.Fprintf(s.tw, "  %s:\t%s\n", key, value) }

func (s *section) end() {
	_ = s.tw.Flush()
	fmt.Fprintln(s.w)
}

// WriteText writes e for people: one section per decision, then what could
// not be read and what is wrong.
func WriteText(w io.Writer, e *Explanation) error {
	fmt.Fprintf(w, "ListenerSet %s\n\n", esc(e.ListenerSet.String()))
	writeWhose(w, e)
	if e.Admission != nil {
		writeAdmission(w, e)
	} else if !e.Whose.Judged {
		s := newSection(w, "Reported by its controller")
		s.line("Conditions", conditionsText(e.Reported))
		s.end()
	}
	for i := range e.Listeners {
		writeListener(w, e, &e.Listeners[i])
	}
	if len(e.UnattachedRoutes) > 0 {
		fmt.Fprintln(w, "HTTPRoutes that name the set and attach to none of its listeners")
		for _, r := range e.UnattachedRoutes {
			var sel []string
			if r.SectionName != nil {
				sel = append(sel, "sectionName "+esc(*r.SectionName))
			}
			if r.Port != nil {
				sel = append(sel, "port "+strconv.Itoa(int(*r.Port)))
			}
			where := ""
			if len(sel) > 0 {
				where = " (" + strings.Join(sel, ", ") + ")"
			}
			reason := esc(r.Reason)
			if r.Reason == "" {
				reason = "unknown"
			}
			fmt.Fprintf(w, "  %s%s: %s: %s\n", esc(r.Namespace+"/"+r.Name), where, reason, esc(r.Detail))
		}
		fmt.Fprintln(w)
	}
	if len(e.Unread) > 0 {
		fmt.Fprintln(w, "Not read (the decisions that need it say unknown)")
		for _, u := range e.Unread {
			fmt.Fprintf(w, "  %s\n", esc(u.String()))
		}
		fmt.Fprintln(w)
	}
	switch {
	case !e.Whose.Judged:
		fmt.Fprintln(w, "Not Airlock Microgateway's to judge: nothing is predicted.")
	case len(e.Problems) == 0 && len(e.Unread) > 0:
		fmt.Fprintln(w, "Nothing wrong in what could be read; what could not be read is above.")
	case len(e.Problems) == 0:
		fmt.Fprintln(w, "Nothing wrong.")
	default:
		fmt.Fprintln(w, "Wrong")
		for _, p := range e.Problems {
			fmt.Fprintf(w, "  - %s\n", esc(p))
		}
	}
	return nil
}

func writeWhose(w io.Writer, e *Explanation) {
	wh := &e.Whose
	s := newSection(w, "Whose it is")
	switch {
	case wh.Gateway == nil:
		s.line("Gateway", "<none> (spec.parentRef names no Gateway)")
	default:
		s.line("Gateway", esc(wh.Gateway.String())+found(wh.GatewayFound))
	}
	if wh.GatewayClass != "" {
		s.line("GatewayClass", esc(wh.GatewayClass)+found(wh.ClassFound))
	}
	if wh.ClassFound == FoundYes {
		s.line("Controller", esc(wh.ControllerName))
	}
	s.line("Scope", scopeText(wh))
	if wh.ClassFound == FoundYes {
		accepted := "no Accepted condition (no controller has taken the class)"
		if c := wh.ClassAccepted; c != nil {
			accepted = conditionText(*c)
		}
		s.line("Class accepted", accepted)
		support := map[string]string{
			"listed":       "listed in status.supportedFeatures",
			"not listed":   "NOT listed in status.supportedFeatures",
			"not reported": "status.supportedFeatures lists nothing",
		}[wh.ListenerSetSupport]
		s.line("ListenerSet support", support)
	}
	s.end()
}

func found(f Found) string {
	if f == FoundYes {
		return ""
	}
	return " (" + string(f) + ")"
}

func scopeText(wh *Whose) string {
	var t string
	switch wh.Outcome {
	case validation.OutcomeAirlock:
		t = "Airlock Microgateway's: its class names an Airlock controller"
	case validation.OutcomeOther:
		t = "another implementation's: its class names another controller, so it is not Airlock Microgateway's to judge"
	case validation.OutcomeUnknownJudged:
		t = "unknown, judged as Airlock Microgateway's (--unknown-parent=judge)"
	case validation.OutcomeUnknownAdmitted:
		t = "unknown, not judged (--unknown-parent=admit)"
	default:
		t = "every ListenerSet is judged (--scope=all)"
	}
	if wh.Note != "" {
		t += "; " + esc(wh.Note)
	}
	return t
}

func conditionText(c Condition) string {
	t := esc(c.Type) + "=" + esc(c.Status)
	if c.Reason != "" {
		t += " (" + esc(c.Reason) + ")"
	}
	if c.Message != "" {
		t += ": " + esc(c.Message)
	}
	return t
}

func conditionsText(cs []Condition) string {
	if len(cs) == 0 {
		return "nothing reported"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = conditionText(c)
	}
	return strings.Join(parts, "; ")
}

func writeAdmission(w io.Writer, e *Explanation) {
	a := e.Admission
	s := newSection(w, "Admitted by Gateway "+esc(e.Whose.Gateway.String()))
	s.line("allowedListeners", "namespaces.from: "+esc(a.From))
	if a.From == "Selector" {
		s.line("Selector", esc(a.Selector))
		labels := "unknown (Namespace " + esc(e.ListenerSet.Namespace) + " not read)"
		if a.NamespaceLabels != nil {
			labels = labelsText(a.NamespaceLabels)
		}
		s.line("Namespace labels", labels)
	}
	admitted := a.Admitted
	if a.Reason != "" {
		admitted += " (" + esc(a.Reason) + ")"
	}
	s.line("Admitted", admitted)
	s.line("Reported", conditionsText(e.Reported))
	s.end()
}

func labelsText(m map[string]string) string {
	if len(m) == 0 {
		return none
	}
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, esc(k)+"="+findings.Escape(m[k]))
	}
	return strings.Join(parts, ", ")
}

func writeListener(w io.Writer, e *Explanation, l *Listener) {
	host := none
	if l.Hostname != nil {
		host = esc(*l.Hostname)
	}
	s := newSection(w, fmt.Sprintf("Listener %s (%s %d, hostname %s)", esc(l.Name), esc(l.Protocol), l.Port, host))
	if e.Whose.Judged {
		switch {
		case l.Precedence > 0:
			s.line("Precedence", fmt.Sprintf("%d of %d in the Gateway's merged list", l.Precedence, l.Of))
		case e.Whose.GatewayFound == FoundYes:
			s.line("Precedence", "unknown: the Gateway's ListenerSets could not all be read")
		}
		predicted := esc(l.State)
		if l.Reason != "" {
			predicted += " (" + esc(l.Reason) + ")"
		}
		s.line("Predicted", predicted)
		if l.Winner != nil {
			s.line("Loses to", esc(l.Winner.String()))
		}
		for _, m := range l.Messages {
			s.line("Because", esc(m))
		}
		if l.Overlaps != nil {
			s.line("Overlaps", "OverlappingTLSConfig (OverlappingHostnames) with "+esc(l.Overlaps.String()))
		}
		if l.Owner != "" {
			s.line("Owner", esc(l.Owner))
		}
		if c := l.HeldBy; c != nil {
			s.line("Claim", fmt.Sprintf("held by %s (%s, %s): the first claim keeps the name", esc(c.Owner), esc(c.Listener.String()), esc(c.Hostname)))
		}
		if c := l.OverlappedBy; c != nil {
			s.line("Claim", fmt.Sprintf("holds against %s (%s, %s)", esc(c.Owner), esc(c.Listener.String()), esc(c.Hostname)))
		}
	}
	s.line("Reported", reportedText(l.Reported))
	if e.Whose.Judged {
		s.line("Compared", comparedText(l))
		if l.AttachedRoutes != nil {
			routes := none
			if len(l.Routes) > 0 {
				routes = esc(strings.Join(l.Routes, ", "))
			}
			s.line("Routes", fmt.Sprintf("%d attached: %s", *l.AttachedRoutes, routes))
		}
		for _, c := range l.Certificates {
			s.line("Certificate", certificateText(c))
		}
	}
	s.end()
}

func reportedText(r reported.Listener) string {
	if r.State == reported.None {
		return "nothing reported"
	}
	t := esc(string(r.State))
	if r.Reason != "" {
		t += " (" + esc(r.Reason) + ")"
	}
	if r.AttachedRoutes != nil {
		t += fmt.Sprintf(", attachedRoutes %d", *r.AttachedRoutes)
	}
	if len(r.Conditions) > 0 {
		t += ", " + esc(strings.Join(r.Conditions, ", "))
	}
	if r.Stale {
		t += fmt.Sprintf(", for generation %d of %d", r.ObservedGeneration, r.Generation)
	}
	return t
}

func comparedText(l *Listener) string {
	switch d := l.Difference; {
	case d != nil && d.Kind == reported.NotReported:
		return "NOT REPORTED: " + esc(d.Detail)
	case d != nil:
		return "DIFFERS: " + esc(d.Detail)
	case l.State == "" || l.State == "Unknown":
		return "nothing to compare: the prediction is unknown"
	}
	return "agrees"
}

func certificateText(c Certificate) string {
	t := esc(c.Namespace+"/"+c.Name) + ": Secret "
	switch c.Secret {
	case FoundYes:
		t += "exists, type " + esc(c.Type)
		if c.Type != string(TLSSecretType) {
			t += " (NOT " + string(TLSSecretType) + ")"
		}
	case FoundNo:
		t += "NOT FOUND"
	default:
		t += "unknown (" + esc(c.Reason) + ")"
	}
	if c.CrossNamespace {
		switch c.Permitted {
		case "yes":
			t += "; another namespace, permitted by ReferenceGrant " + esc(c.Namespace+"/"+c.ReferenceGrant)
		case "no":
			t += "; another namespace, and NO ReferenceGrant there permits it (RefNotPermitted)"
		default:
			t += "; another namespace, ReferenceGrants unknown (could not be read)"
		}
	}
	return t
}
