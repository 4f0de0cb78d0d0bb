package listing

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/offline/read"
	"github.com/airlock/listenerset-webhook/reported"
)

// Format is an output format of the listeners command.
type Format string

// Output formats.
const (
	// Table is the default: a kubectl-like table.
	Table Format = ""
	// Wide adds WINNER and MESSAGE (the errors, then each condition's
	// message, then the difference from the reported status), as
	// kubectl's -o wide adds columns.
	Wide Format = "wide"
	// JSON prints the Listing document.
	JSON Format = "json"
)

// none is what kubectl prints for an empty cell.
const none = "<none>"

// Write renders l in format f.
func Write(w io.Writer, l *Listing, f Format) error {
	if f == JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(l)
	}
	if len(l.Gateways) == 0 {
		return nil
	}
	// kubectl's own tab writer settings (cli-runtime printers.GetNewTabWriter).
	tw := tabwriter.NewWriter(w, 6, 4, 3, ' ', 0)
	header := []string{"GATEWAY", "PRECEDENCE", "SOURCE", "OWNER", "LISTENER", "PORT", "PROTOCOL", "HOSTNAME", "STATE", "REASON", "CONDITIONS"}
	// CLAIM, the other owner a listener's hostname overlaps, only where
	// there is one.
	claims := slices.ContainsFunc(l.Gateways, func(g Gateway) bool {
		return slices.ContainsFunc(g.Listeners, func(r Listener) bool { return r.HeldBy != nil || r.OverlappedBy != nil || len(r.RouteClaims) > 0 })
	})
	if claims {
		header = append(header, "CLAIM")
	}
	// ROUTES, each listener's attachedRoutes, only where routes were read.
	routes := slices.ContainsFunc(l.Gateways, func(g Gateway) bool {
		return slices.ContainsFunc(g.Listeners, func(r Listener) bool { return r.AttachedRoutes != nil })
	})
	if routes {
		header = append(header, "ROUTES")
	}
	// REPORTED and DIFFERENCE, what the stored status says and where it
	// parts from the prediction, only where status was read (a cluster):
	// named after their JSON keys, as kubectl's columns are.
	status := slices.ContainsFunc(l.Gateways, func(g Gateway) bool {
		return slices.ContainsFunc(g.Listeners, func(r Listener) bool { return r.Reported != nil })
	})
	if status {
		header = append(header, "REPORTED", "DIFFERENCE")
	}
	if f == Wide {
		header = append(header, "WINNER", "MESSAGE")
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, g := range l.Gateways {
		name := read.Name(g.Namespace, g.Name)
		for _, r := range g.Listeners {
			conditions := make([]string, 0, len(r.Conditions))
			messages := r.Messages
			for _, c := range r.Conditions {
				conditions = append(conditions, c.Type+"/"+c.Reason)
				messages = append(messages[:len(messages):len(messages)], c.Type+": "+c.Message)
			}
			owner := none
			switch {
			case r.Owner != nil:
				owner = findings.Escape(r.Owner.String())
			case r.Source.Kind == validation.SourceGateway:
				owner = platform
			}
			cells := []string{findings.Escape(name), strconv.Itoa(r.Precedence), findings.Escape(r.Source.String()), owner, findings.Escape(r.Name),
				strconv.Itoa(int(r.Port)), findings.Escape(r.Protocol), orNone(r.Hostname), r.State, cell(r.Reason), cell(strings.Join(conditions, ","))}
			if claims {
				cells = append(cells, claimCell(r))
			}
			if routes {
				n := none
				if r.AttachedRoutes != nil {
					n = strconv.Itoa(*r.AttachedRoutes)
				}
				cells = append(cells, n)
			}
			if status {
				cells = append(cells, reportedCell(r.Reported), none)
				if d := r.Difference; d != nil {
					cells[len(cells)-1] = string(d.Kind)
					// The controller's own message says why, where it says anything.
					msg := string(d.Kind) + ": " + d.Detail
					if r.Reported != nil && r.Reported.Message != "" {
						msg += ": " + r.Reported.Message
					}
					messages = append(messages[:len(messages):len(messages)], msg)
				}
			}
			if f == Wide {
				winner := none
				if r.Winner != nil {
					winner = findings.Escape(r.Winner.String())
				}
				cells = append(cells, winner, cell(strings.Join(messages, "; ")))
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
	}
	return tw.Flush()
}

// platform is the OWNER of a Gateway's own listener.
const platform = "platform"

// claimCell says which other owner's listener overlaps r's hostname, and
// who keeps the name: "held by tenant/acme (ListenerSet/team-a/a listener
// https, *.a.example.com)" when the other came first, "holds against ..."
// when r did.
func claimCell(r Listener) string {
	var parts []string
	if c := r.HeldBy; c != nil {
		parts = append(parts, fmt.Sprintf("held by %s (%s, %s)", c.Owner.String(), c.Listener, c.Hostname))
	}
	if c := r.OverlappedBy; c != nil {
		parts = append(parts, fmt.Sprintf("holds against %s (%s, %s)", c.Owner.String(), c.Listener, c.Hostname))
	}
	parts = append(parts, r.RouteClaims...)
	return cell(strings.Join(parts, "; "))
}

// reportedCell is a reported status as "State/Reason" (the reason left
// out where it only repeats the state), as CONDITIONS writes
// "Type/Reason"; <none> when nothing was reported.
func reportedCell(r *reported.Listener) string {
	switch {
	case r == nil || r.State == reported.None:
		return none
	case r.Reason == "" || r.Reason == string(r.State):
		return cell(string(r.State))
	}
	return cell(string(r.State) + "/" + r.Reason)
}

func orNone(s *string) string {
	if s == nil {
		return none
	}
	return cell(*s)
}

// cell keeps a value on its row, and the terminal's state as it was: empty
// becomes <none>, and what a terminal would interpret (a tab, a line break,
// an ESC sequence) is shown escaped (findings.Escape, as the validate
// command's text output shows it).
func cell(s string) string {
	if s == "" {
		return none
	}
	return findings.Escape(s)
}
