package read

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	// syntaxErr: the YAML does not convert (err is made of it, keeping
	// yaml, for the first document of an input that has one).
	syntaxErr error
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
	for i, d := range SplitYAML(data) {
		docs = append(docs, document{loc: Location{File: name, Document: i + 1, Line: d.Line}, yaml: d.Data})
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
// silently resolve to the last value, become warnings. The position tree is
// built only when a finding needs it (position.YAMLDocument).
func (d *document) convert() {
	if d.err != nil {
		return
	}
	if d.yaml != nil {
		raw, strictErr := yaml.YAMLToJSONStrict(d.yaml)
		if strictErr != nil {
			lenient, err := yaml.YAMLToJSON(d.yaml)
			if err != nil {
				d.syntaxErr = err // phrased by syntaxError, for the first one of the input only
				return
			}
			raw = lenient
		}
		d.raw, d.pos = raw, position.YAMLDocument(d.yaml, d.loc.Line)
		if strictErr != nil {
			d.warnings = d.duplicateKeys(strictErr)
		}
		d.yaml = nil
	}
	d.loc.Line = d.pos.Line()
	d.raw = bytes.TrimSpace(d.raw)
	if len(d.raw) > 0 && d.raw[0] == '{' {
		d.head, d.headErr = readHead(d.raw)
	}
}

// syntaxError is the input error of a document that does not convert. The
// conversion is repeated with the document where it stands in its file
// (after as many empty lines as precede it), so that the parser's message
// counts the file's lines. Only the first of an input is phrased, since it
// ends the input: each costs the lines before it.
func (d *document) syntaxError(err error) *InputError {
	placed := make([]byte, d.loc.Line-1+len(d.yaml))
	for i := range d.loc.Line - 1 {
		placed[i] = '\n'
	}
	copy(placed[d.loc.Line-1:], d.yaml)
	if _, perr := yaml.YAMLToJSON(placed); perr != nil {
		err = perr
	}
	msg := err.Error()
	return &InputError{File: d.loc.File, Document: d.loc.Document, Message: msg, Line: statedLine(msg)}
}

// statedLine is the line a YAML parser's message names ("yaml: line 6:
// did not find expected node content"), 0 when it names none: go.yaml.in's
// parsers keep the place of a syntax error in no field. TestStatedLine fails
// when their wording changes.
func statedLine(msg string) int {
	_, rest, ok := strings.Cut(msg, "line ")
	if !ok {
		return 0
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	n, _ := strconv.Atoi(rest[:end])
	return n
}

// duplicateKeys are the warnings of a document that converts only
// leniently: each key given twice in one mapping of its node tree, at the
// later key, phrased like the JSON decoder's (and kubectl's) "duplicate
// field" warnings. Where the tree shows none (the converter also takes keys
// that differ in spelling for one, such as 1 and 01, or a merge key for a
// key of its own), the converter's complaint, whose lines count from the
// document's first line.
func (d *document) duplicateKeys(strictErr error) []Warning {
	var warnings []Warning
	for _, f := range d.pos.Tree().DuplicateKeys() {
		warnings = append(warnings, Warning{Kind: KindDuplicateField, Line: f.KeyPos.Line, Column: f.KeyPos.Column,
			Message: fmt.Sprintf("line %d: duplicate field %q", f.KeyPos.Line, f.Key)})
	}
	if len(warnings) == 0 {
		line := d.loc.Line
		if d.pos.Tree() == nil {
			line = max(d.pos.Line(), 1)
		}
		warnings = append(warnings, Warning{Kind: KindStrictDecoding, Line: line, Column: 1,
			Message: fmt.Sprintf("%v (lines of the document, which starts at line %d)", strictErr, d.loc.Line)})
	}
	return warnings
}

// YAMLDocument is one YAML document of a stream and the line of the file
// it starts on.
type YAMLDocument struct {
	Data []byte
	Line int
}

// SplitYAML splits a YAML stream at separator lines ("---", optionally
// followed by spaces or a comment) as kubectl does. Nothing between two
// separators is no document; a document of only comments is one (and
// decodes to null). The documents are slices of data. Every command reads
// YAML through it (the CRD files of --crd too).
func SplitYAML(data []byte) []YAMLDocument {
	var docs []YAMLDocument
	start, line, from := 1, 0, 0
	for off := 0; off < len(data); {
		end := len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		line++
		if isSeparator(data[off:end]) {
			if off > from {
				docs = append(docs, YAMLDocument{Data: data[from:off:off], Line: start})
			}
			from, start = end, line+1
		}
		off = end
	}
	if len(data) > from {
		docs = append(docs, YAMLDocument{Data: data[from:], Line: start})
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
