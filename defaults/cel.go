package defaults

import (
	"strings"
)

// Expression is Needed in CEL, over the admission request's object: true
// exactly when some field of Defaults is unset. It is written from the
// Defaults' paths (an object on the way that is absent needs defaults; an
// optional one, name?, or a list, is looked into only when present), laid
// out one line per list and per object of a list's item, so that a reader
// sees the schema's shape.
var Expression = expression(Defaults)

// node is a place of the object the Defaults' paths reach.
type node struct {
	name string
	// list is the CEL variable of a list's items; optional marks name?.
	list     string
	optional bool
	fields   []string // defaulted fields, in the Defaults' order
	children []*node
	order    []any // fields (string) and children (*node) as first named
}

func expression(ds []Default) string {
	root := &node{}
	for _, d := range ds {
		segs := strings.Split(d.Path, ".")
		n := root
		for _, seg := range segs[:len(segs)-1] {
			n = n.child(seg)
		}
		field := segs[len(segs)-1]
		n.fields = append(n.fields, field)
		n.order = append(n.order, field)
	}
	return join(root.terms("object", "", false, false), "")
}

// child is n's place seg ("name", "name?", "name[v]"), added when new.
func (n *node) child(seg string) *node {
	c := &node{name: seg}
	if i := strings.IndexByte(seg, '['); i > 0 {
		c.name, c.list = seg[:i], strings.TrimSuffix(seg[i+1:], "]")
	} else if name, ok := strings.CutSuffix(seg, "?"); ok {
		c.name, c.optional = name, true
	}
	for _, o := range n.children {
		if o.name == c.name {
			return o
		}
	}
	n.children = append(n.children, c)
	n.order = append(n.order, c)
	return c
}

// term is one operand of the disjunction; brk starts it on a new line.
type term struct {
	text string
	brk  bool
}

// join writes terms with " || ", a term with brk on a new line at indent.
func join(ts []term, indent string) string {
	var b strings.Builder
	for i, t := range ts {
		switch {
		case i == 0:
		case t.brk:
			b.WriteString(" ||\n" + indent)
		default:
			b.WriteString(" || ")
		}
		b.WriteString(t.text)
	}
	return b.String()
}

// multiline tells whether n's terms need lines of their own: it holds a
// list or an optional object.
func (n *node) multiline() bool {
	for _, c := range n.children {
		if c.list != "" || c.optional || c.multiline() {
			return true
		}
	}
	return false
}

// terms are the operands saying that something under n, at CEL expression
// e, is unset; indent is the current line's. item says n is a list's item
// (each object in it starts a line), inline that the terms share one line.
func (n *node) terms(e, indent string, item, inline bool) []term {
	var ts []term
	for _, o := range n.order {
		switch o := o.(type) {
		case string:
			// an object's fields, when more than one, start a line
			brk := !inline && len(n.fields) > 1 && o == n.fields[0]
			ts = append(ts, term{"!has(" + e + "." + o + ")", brk})
		case *node:
			ce := e + "." + o.name
			switch {
			case o.list != "":
				body := o.terms(o.list, indent+"  ", true, !o.multiline())
				text := "(has(" + ce + ") && " + ce + ".exists(" + o.list + ", " + join(body, "") + "))"
				if o.multiline() {
					text = "(has(" + ce + ") && " + ce + ".exists(" + o.list + ",\n" + indent + "  " + join(body, indent+"  ") + "))"
				}
				ts = append(ts, term{text, true})
			case o.optional:
				body := o.terms(ce, indent+"  ", false, inline)
				ts = append(ts, term{"(has(" + ce + ") && (" + join(body, indent+"  ") + "))", item})
			default:
				ts = append(ts, term{"!has(" + ce + ")", item})
				ts = append(ts, o.terms(ce, indent, false, inline)...)
			}
		}
	}
	return ts
}
