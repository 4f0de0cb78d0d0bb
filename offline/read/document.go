package read

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/offline/position"
)

// document is one document of an input, converted to JSON, or the error
// that ends the input.
type document struct {
	loc Location
	// yaml is the document's YAML, until convert has made raw of it.
	yaml []byte
	raw  json.RawMessage
	// warnings are duplicate YAML keys.
	warnings []Warning
	// pos places the document's fields.
	pos *position.Document
	// head is raw's kind and name; headErr why raw has none.
	head    head
	headErr error
	// err: the document does not parse; the rest of the input is not read.
	err *InputError
}

// split cuts one input into its documents: a stream of JSON objects, or
// anything else YAML documents at "---" lines, as kubectl reads them. Only
// the JSON values are parsed here (json.Decoder finds their ends); YAML
// documents are converted by convert.
func split(name string, data []byte) []document {
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		if docs, ok := jsonStream(name, data); ok {
			return docs
		}
	}
	var docs []document
	for i, d := range splitYAML(data) {
		docs = append(docs, document{loc: Location{File: name, Document: i + 1, Line: d.line}, yaml: d.data})
	}
	return docs
}

// jsonStream reads concatenated JSON objects. Keeping each object's raw bytes
// lets the strict decode see duplicate fields. It returns false when the
// very first object does not parse: the input may be YAML that starts with a
// flow mapping.
//
// Positions come from a token scan of each object (position.JSONValue), with
// the lines of the file.
func jsonStream(name string, data []byte) ([]document, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	lines := position.NewLines(data)
	var docs []document
	for doc := 1; ; doc++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return docs, true
		}
		if err != nil {
			if doc == 1 {
				return nil, false
			}
			ie := InputError{File: name, Document: doc, Message: err.Error()}
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) {
				p := lines.At(int(syntax.Offset))
				ie.Line, ie.Column = p.Line, p.Column
			}
			return append(docs, document{err: &ie}), true
		}
		// RawMessage holds the value's bytes exactly, so it ends where the
		// decoder stands.
		pos := position.JSONValue(data, int(dec.InputOffset())-len(raw), lines)
		docs = append(docs, document{loc: Location{File: name, Document: doc}, raw: raw, pos: pos})
	}
}

// convert makes d's JSON from its YAML (a JSON value has it already) and
// reads its head. Duplicate keys, which YAML to JSON conversion would
// silently resolve to the last value, become warnings; line numbers in
// messages are counted from the top of the file. The position tree is built
// only when a finding needs it (position.YAMLDocument).
func (d *document) convert() {
	if d.err != nil {
		return
	}
	if d.yaml != nil {
		raw, err := yaml.YAMLToJSONStrict(d.yaml)
		if err != nil {
			lenient, lerr := yaml.YAMLToJSON(d.yaml)
			if lerr != nil {
				msg := fileLines(lerr.Error(), d.loc.Line)
				ie := InputError{File: d.loc.File, Document: d.loc.Document, Message: msg}
				if m := lineRef.FindStringSubmatch(msg); m != nil {
					ie.Line, _ = strconv.Atoi(m[1])
				}
				d.err = &ie
				return
			}
			raw, d.warnings = lenient, duplicateKeyWarnings(err, d.loc.Line)
		}
		d.raw, d.pos = raw, position.YAMLDocument(d.yaml, d.loc.Line)
		d.yaml = nil
	}
	d.loc.Line = d.pos.Line()
	d.raw = bytes.TrimSpace(d.raw)
	if len(d.raw) > 0 && d.raw[0] == '{' {
		d.head, d.headErr = readHead(d.raw)
	}
	d.locateWarnings()
}

// locateWarnings gives each duplicate-key warning the column of its key on
// its line (the line alone when the document has no tree, or the key is not
// found there).
func (d *document) locateWarnings() {
	for i := range d.warnings {
		w := &d.warnings[i]
		tree := d.pos.Tree()
		switch p, ok := tree.KeyOnLine(w.Line, w.key); {
		case tree == nil:
			w.Line, w.Column = max(d.loc.Line, 1), 1
		case ok:
			w.Line, w.Column = p.Line, p.Column
		default:
			w.Column = 1
		}
		w.key = ""
	}
}

// yamlDoc is one YAML document and the line of the file it starts on.
type yamlDoc struct {
	data []byte
	line int
}

// splitYAML splits at separator lines ("---", optionally followed by spaces
// or a comment) as kubectl does. Nothing between two separators is no
// document; a document of only comments is one (and decodes to null). The
// documents are slices of data.
func splitYAML(data []byte) []yamlDoc {
	var docs []yamlDoc
	start, line, from := 1, 0, 0
	for off := 0; off < len(data); {
		end := len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		line++
		if isSeparator(data[off:end]) {
			if off > from {
				docs = append(docs, yamlDoc{data: data[from:off:off], line: start})
			}
			from, start = end, line+1
		}
		off = end
	}
	if len(data) > from {
		docs = append(docs, yamlDoc{data: data[from:], line: start})
	}
	return docs
}

func isSeparator(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	if !ok {
		return false
	}
	rest = bytes.TrimSpace(rest)
	return len(rest) == 0 || rest[0] == '#'
}

var (
	lineRef      = regexp.MustCompile(`\bline (\d+)`)
	duplicateKey = regexp.MustCompile(`line (\d+): key (".*") already set in map`)
)

// fileLines turns the document-relative "line N" of YAML errors into lines of
// the file, for the document that starts on line start.
func fileLines(msg string, start int) string {
	return lineRef.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(m, "line "))
		if err != nil {
			return m
		}
		return fmt.Sprintf("line %d", n+start-1)
	})
}

// duplicateKeyWarnings phrases strict YAML errors like the JSON decoder's
// (and kubectl's) "duplicate field" warnings, with the line in the file.
// The warnings carry the line; locateWarnings finds the key's column on it.
func duplicateKeyWarnings(err error, start int) []Warning {
	var warnings []Warning
	for _, m := range duplicateKey.FindAllStringSubmatch(err.Error(), -1) {
		n, _ := strconv.Atoi(m[1])
		warnings = append(warnings, Warning{Kind: KindDuplicateField, Line: n + start - 1,
			Message: fileLines("line "+m[1], start) + ": duplicate field " + m[2], key: m[2][1 : len(m[2])-1]})
	}
	if len(warnings) == 0 {
		warnings = append(warnings, Warning{Kind: KindStrictDecoding, Line: start, Message: fileLines(err.Error(), start)})
	}
	return warnings
}

// head is what is needed to tell an object's kind and name.
type head struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
}

// readHead reads raw's kind and name. Wrong types further down (a numeric
// name, say) leave the rest filled in; the ListenerSet decode reports them
// properly.
func readHead(raw []byte) (head, error) {
	var h head
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(raw, &h); err != nil && !errors.As(err, &typeErr) {
		return h, err
	}
	return h, nil
}

var listenerSetAPIVersion = gwv1.GroupVersion.String()

// isList: kubectl's v1 List (what `kubectl get -o yaml` prints) and the
// typed ListenerSetList.
func isList(h head) bool {
	return (h.APIVersion == "v1" && h.Kind == "List") ||
		(h.APIVersion == listenerSetAPIVersion && h.Kind == "ListenerSetList")
}

// objects appends the converted document's objects to out. Its warnings
// (duplicate YAML keys) belong to the object in it; for a List they cannot
// be told apart by item and are dropped with the list. A List item gets its
// item's subtree of the list's positions.
func (d *document) objects(out []Entry) []Entry {
	loc, raw, h := d.loc, d.raw, d.head
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return out // an empty document: only comments, or "---" twice
	case raw[0] != '{':
		return append(out, Entry{Object: &Object{Location: loc, Raw: raw, Pos: d.pos}})
	case d.headErr != nil:
		return append(out, Entry{Error: &InputError{File: loc.File, Document: loc.Document, Message: d.headErr.Error()}})
	case loc.Item == 0 && isList(h):
		return d.items(out)
	}
	return append(out, Entry{Object: &Object{Location: loc, Raw: raw, Pos: d.pos, Warnings: d.warnings,
		Head: Head{APIVersion: h.APIVersion, Kind: h.Kind, Namespace: h.Metadata.Namespace, Name: h.Metadata.Name}}})
}

// items appends a List's items.
func (d *document) items(out []Entry) []Entry {
	items := d.pos.Tree().Child(position.Segment{Key: "items", Index: -1})
	for i, item := range d.head.Items {
		tree := items.Child(position.Segment{Key: fmt.Sprint(i), Index: i})
		it := document{loc: Location{File: d.loc.File, Document: d.loc.Document, Item: i + 1, Line: d.loc.Line},
			raw: bytes.TrimSpace(item), pos: position.Parsed(tree)}
		if tree != nil {
			it.loc.Line = tree.Pos.Line
		}
		if len(it.raw) > 0 && it.raw[0] == '{' {
			it.head, it.headErr = readHead(it.raw)
		}
		out = it.objects(out)
	}
	return out
}
