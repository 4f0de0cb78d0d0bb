package position

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// Pos is a place in a file: line and column from 1, columns counted in
// characters (Unicode code points). The zero Pos means unknown.
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Node is one value of a document: a mapping (Fields), a sequence (Items) or
// a scalar (neither).
type Node struct {
	// Pos is where the value starts.
	Pos Pos
	// Fields are a mapping's entries, in document order.
	Fields []Field
	// Items are a sequence's elements.
	Items []*Node
	// alias: the node is an alias, its content its anchor's.
	alias bool
}

// Field is one entry of a mapping.
type Field struct {
	// Key is the key as a string; KeyPos is where it stands.
	Key    string
	KeyPos Pos
	Value  *Node
}

// FromYAML converts a parsed YAML document (a DocumentNode, or any node in
// it) whose first line is line firstLine of its file. Aliases are followed to
// their anchors; merge keys are not expanded (a path into a merged mapping
// resolves to the mapping that merges it).
func FromYAML(n *yaml.Node, firstLine int) *Node {
	return fromYAML(n, firstLine-1, 0)
}

// maxAliasDepth stops alias chains from recursing forever (an alias to an
// anchor that contains it).
const maxAliasDepth = 16

func fromYAML(n *yaml.Node, lineOffset, aliases int) *Node {
	if n == nil {
		return nil
	}
	pos := Pos{Line: n.Line + lineOffset, Column: n.Column}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return &Node{Pos: pos}
		}
		return fromYAML(n.Content[0], lineOffset, aliases)
	case yaml.AliasNode:
		if aliases >= maxAliasDepth || n.Alias == nil {
			return &Node{Pos: pos}
		}
		target := fromYAML(n.Alias, lineOffset, aliases+1)
		// The alias's own place, the anchor's content.
		return &Node{Pos: pos, Fields: target.Fields, Items: target.Items, alias: true}
	case yaml.MappingNode:
		out := &Node{Pos: pos, Fields: make([]Field, 0, len(n.Content)/2)}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			out.Fields = append(out.Fields, Field{
				Key:    k.Value,
				KeyPos: Pos{Line: k.Line + lineOffset, Column: k.Column},
				Value:  fromYAML(n.Content[i+1], lineOffset, aliases),
			})
		}
		return out
	case yaml.SequenceNode:
		out := &Node{Pos: pos, Items: make([]*Node, 0, len(n.Content))}
		for _, c := range n.Content {
			out.Items = append(out.Items, fromYAML(c, lineOffset, aliases))
		}
		return out
	default:
		return &Node{Pos: pos}
	}
}

// ParseYAML parses one YAML document (data, without "---" separators) that
// starts on line firstLine of its file.
func ParseYAML(data []byte, firstLine int) (*Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 { // empty document
		return &Node{Pos: Pos{Line: firstLine, Column: 1}}, nil
	}
	return FromYAML(&doc, firstLine), nil
}

// Find returns the place of the deepest node of path (a field.Path string)
// that exists in n, and whether the whole path was found. A mapping entry's
// place is its key's; a sequence element's is the element's.
func (n *Node) Find(path string) (Pos, bool) {
	if n == nil {
		return Pos{}, false
	}
	cur, at := n, n.Pos
	for _, seg := range Split(path) {
		next, pos, ok := cur.step(seg)
		if !ok {
			return at, false
		}
		cur, at = next, pos
	}
	return at, true
}

// Child returns the node that one path segment names, e.g. the item of a
// List; nil when there is none.
func (n *Node) Child(seg Segment) *Node {
	next, _, ok := n.step(seg)
	if !ok {
		return nil
	}
	return next
}

func (n *Node) step(seg Segment) (*Node, Pos, bool) {
	if n == nil {
		return nil, Pos{}, false
	}
	if seg.Index >= 0 && n.Items != nil {
		if seg.Index < len(n.Items) && n.Items[seg.Index] != nil {
			return n.Items[seg.Index], n.Items[seg.Index].Pos, true
		}
		return nil, Pos{}, false
	}
	// The last of duplicate keys wins, as when YAML or JSON is decoded.
	for i := len(n.Fields) - 1; i >= 0; i-- {
		if f := n.Fields[i]; f.Key == seg.Key {
			if f.Value == nil {
				return &Node{Pos: f.KeyPos}, f.KeyPos, true
			}
			return f.Value, f.KeyPos, true
		}
	}
	return nil, Pos{}, false
}

// Segment is one step of a path: a field name or map key (Key), or a list
// index (Index >= 0; Key then holds its digits, for a map with numeric keys).
type Segment struct {
	Key   string
	Index int
}

// Split splits a field.Path string: "spec.listeners[2].tls.options[a.b/c]"
// is spec, listeners, 2, tls, options, a.b/c. A bracket holds a key up to the
// "]" that ends the path or is followed by "." or "[", so keys may contain
// dots and slashes.
func Split(path string) []Segment {
	var segs []Segment
	add := func(s string, bracket bool) {
		idx := -1
		if bracket {
			if i, err := strconv.Atoi(s); err == nil && i >= 0 {
				idx = i
			}
		}
		segs = append(segs, Segment{Key: s, Index: idx})
	}
	for i := 0; i < len(path); {
		switch path[i] {
		case '.':
			i++
		case '[':
			end := closing(path, i+1)
			add(path[i+1:end], true)
			i = end + 1
		default:
			end := i
			for end < len(path) && path[end] != '.' && path[end] != '[' {
				end++
			}
			add(path[i:end], false)
			i = end
		}
	}
	return segs
}

// closing finds the "]" that ends the bracket opened before from.
func closing(path string, from int) int {
	for j := from; j < len(path); j++ {
		if path[j] == ']' && (j+1 == len(path) || path[j+1] == '.' || path[j+1] == '[') {
			return j
		}
	}
	return len(path)
}

// Lines converts byte offsets of one file to places.
type Lines struct {
	data   []byte
	starts []int // byte offset of each line's start
	// marks are places within long lines, in file order: a column is
	// counted from the last mark before it on its line rather than from the
	// line's start, so that At costs at most markEvery bytes of counting. A
	// JSON file is often one line (json.Marshal writes one): counting from
	// the line's start made a token scan of it quadratic (a 2.9 MB line took
	// minutes).
	marks []mark
}

// mark is a rune's start at byte off, the column-th character of its line
// (from 0).
type mark struct{ off, column int }

// markEvery is the distance between marks, in bytes.
const markEvery = 512

// NewLines indexes data's line starts and long lines' marks.
func NewLines(data []byte) *Lines {
	l := &Lines{data: data, starts: []int{0}}
	column, next := 0, markEvery
	for i := 0; i < len(data); {
		if i >= next {
			l.marks = append(l.marks, mark{off: i, column: column})
			next = i + markEvery
		}
		b := data[i]
		switch {
		case b == '\n':
			i++
			l.starts = append(l.starts, i)
			column, next = 0, i+markEvery
			continue
		case b < utf8.RuneSelf:
			i++
		default:
			_, size := utf8.DecodeRune(data[i:])
			i += size
		}
		column++
	}
	return l
}

// At is the place of byte offset off.
func (l *Lines) At(off int) Pos {
	off = max(0, min(off, len(l.data)))
	lo, hi := 0, len(l.starts)-1
	for lo < hi { // last line start <= off
		mid := (lo + hi + 1) / 2
		if l.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	from, column := l.starts[lo], 0
	// The last mark at or before off, if it is on this line.
	if m, ok := slices.BinarySearchFunc(l.marks, off, func(m mark, off int) int { return cmp.Compare(m.off, off) }); ok {
		from, column = l.marks[m].off, l.marks[m].column
	} else if m > 0 && l.marks[m-1].off >= from {
		from, column = l.marks[m-1].off, l.marks[m-1].column
	}
	return Pos{Line: lo + 1, Column: column + utf8.RuneCount(l.data[from:off]) + 1}
}

// ParseJSON scans the JSON value that starts at byte offset start of the
// file data (a file may hold a stream of values) and returns its tree, with
// places in the file. It expects a value that encoding/json has accepted; on
// anything else it returns what it has read so far, or nil.
func ParseJSON(data []byte, start int, lines *Lines) *Node {
	if lines == nil {
		lines = NewLines(data)
	}
	s := &scanner{data: data, i: start, lines: lines}
	return s.value(0)
}

type scanner struct {
	data  []byte
	i     int
	lines *Lines
}

// maxDepth bounds recursion on hostile input; encoding/json stops at 10000.
const maxDepth = 10000

func (s *scanner) skipSpace() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) value(depth int) *Node {
	s.skipSpace()
	if s.i >= len(s.data) || depth > maxDepth {
		return nil
	}
	n := &Node{Pos: s.lines.At(s.i)}
	switch s.data[s.i] {
	case '{':
		s.i++
		n.Fields = []Field{}
		for {
			s.skipSpace()
			if s.i >= len(s.data) {
				return n
			}
			if s.data[s.i] == '}' {
				s.i++
				return n
			}
			if s.data[s.i] == ',' {
				s.i++
				continue
			}
			keyPos := s.lines.At(s.i)
			key, ok := s.str(true)
			if !ok {
				return n
			}
			s.skipSpace()
			if s.i >= len(s.data) || s.data[s.i] != ':' {
				return n
			}
			s.i++
			n.Fields = append(n.Fields, Field{Key: key, KeyPos: keyPos, Value: s.value(depth + 1)})
		}
	case '[':
		s.i++
		n.Items = []*Node{}
		for {
			s.skipSpace()
			if s.i >= len(s.data) {
				return n
			}
			switch s.data[s.i] {
			case ']':
				s.i++
				return n
			case ',':
				s.i++
				continue
			}
			item := s.value(depth + 1)
			if item == nil {
				return n
			}
			n.Items = append(n.Items, item)
		}
	case '"':
		s.str(false)
		return n
	default: // number, true, false, null
		for s.i < len(s.data) && !bytes.ContainsRune([]byte(" \t\r\n,]}"), rune(s.data[s.i])) {
			s.i++
		}
		return n
	}
}

// str reads a JSON string at s.i and returns its value; a value (not a
// key) is only skipped (decode false).
func (s *scanner) str(decode bool) (string, bool) {
	if s.i >= len(s.data) || s.data[s.i] != '"' {
		return "", false
	}
	start, escaped := s.i, false
	for s.i++; s.i < len(s.data); s.i++ {
		switch s.data[s.i] {
		case '\\':
			s.i++
			escaped = true
		case '"':
			s.i++
			switch {
			case !decode:
				return "", true
			case !escaped && utf8.Valid(s.data[start+1:s.i-1]):
				return string(s.data[start+1 : s.i-1]), true
			}
			// Escapes, or bytes that are not UTF-8 (which the decoder
			// replaces): as encoding/json reads them.
			var v string
			if json.Unmarshal(s.data[start:s.i], &v) != nil {
				return "", false
			}
			return v, true
		}
	}
	return "", false
}

// KeyOnLine finds the mapping key named key on the given line anywhere in
// n: for findings known only by line and key, such as a duplicate YAML key.
func (n *Node) KeyOnLine(line int, key string) (Pos, bool) {
	if n == nil {
		return Pos{}, false
	}
	for _, f := range n.Fields {
		if f.KeyPos.Line == line && f.Key == key {
			return f.KeyPos, true
		}
		if p, ok := f.Value.KeyOnLine(line, key); ok {
			return p, true
		}
	}
	for _, item := range n.Items {
		if p, ok := item.KeyOnLine(line, key); ok {
			return p, true
		}
	}
	return Pos{}, false
}

// DuplicateKeys are the entries of n's mappings, at any depth, whose key an
// earlier entry of the same mapping has: what a strict decode complains
// about, in document order. An alias is its anchor's content, searched
// where the anchor stands.
func (n *Node) DuplicateKeys() []Field {
	var out []Field
	var walk func(*Node)
	walk = func(n *Node) {
		if n == nil || n.alias {
			return
		}
		keys := make(map[string]bool, len(n.Fields))
		for _, f := range n.Fields {
			if keys[f.Key] {
				out = append(out, f)
			}
			keys[f.Key] = true
			walk(f.Value)
		}
		for _, item := range n.Items {
			walk(item)
		}
	}
	walk(n)
	return out
}

// Document is one document of a file whose node tree is built on first use:
// most objects have no finding to place, and parsing a document for
// positions costs about as much as converting it to JSON. Its Line is known
// without the tree. A Document is not safe for concurrent use.
type Document struct {
	line int
	tree *Node
	// parse builds the tree; nil once it has run (or when there is none).
	parse func() *Node
}

// YAMLDocument is the YAML document data (without "---" separators) that
// starts on line firstLine of its file. Its Line is that of its first node,
// read from the first line that is neither blank nor a comment when that
// line starts the way a node on it does (a key, a quoted key, a sequence
// entry, a flow collection); otherwise the tree is built now, and a
// document that does not parse as a tree has firstLine.
func YAMLDocument(data []byte, firstLine int) *Document {
	d := &Document{line: firstLine, parse: func() *Node {
		tree, err := ParseYAML(data, firstLine)
		if err != nil {
			return nil
		}
		return tree
	}}
	if line, ok := firstNodeLine(data, firstLine); ok {
		d.line = line
		return d
	}
	if tree := d.Tree(); tree != nil {
		d.line = tree.Pos.Line
	}
	return d
}

// firstNodeLine is the line of the first line of data that is neither blank
// nor a comment, when its first character starts a node on that very line
// (what the YAML parser gives as the document's line; an anchor, a tag or a
// directive may not, and a tab may not parse).
func firstNodeLine(data []byte, firstLine int) (int, bool) {
	for line := firstLine; len(data) > 0; line++ {
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		t := bytes.TrimLeft(l, " ")
		switch {
		case len(bytes.TrimRight(t, " \r")) == 0 || t[0] == '#':
			continue
		case t[0] == '"' || t[0] == '\'' || t[0] == '-' || t[0] == '{' || t[0] == '[' || t[0] == '_' ||
			'a' <= t[0] && t[0] <= 'z' || 'A' <= t[0] && t[0] <= 'Z' || '0' <= t[0] && t[0] <= '9':
			return line, true
		default:
			return 0, false
		}
	}
	return 0, false
}

// JSONValue is the JSON value at byte offset start of the file data (see
// ParseJSON), with the file's lines.
func JSONValue(data []byte, start int, lines *Lines) *Document {
	return &Document{line: lines.At(start).Line, parse: func() *Node { return ParseJSON(data, start, lines) }}
}

// Parsed is a document whose tree is at hand (a List's item).
func Parsed(tree *Node) *Document {
	d := &Document{tree: tree}
	if tree != nil {
		d.line = tree.Pos.Line
	}
	return d
}

// Line is the line of the file the document's value starts on.
func (d *Document) Line() int { return d.line }

// Tree is the document's node tree, built on the first call; nil when the
// document does not parse as one.
func (d *Document) Tree() *Node {
	if d == nil {
		return nil
	}
	if d.parse != nil {
		d.tree, d.parse = d.parse(), nil
	}
	return d.tree
}
