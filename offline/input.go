package offline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/defaults"
	"github.com/airlock/listenerset-webhook/offline/position"
	"github.com/airlock/listenerset-webhook/validation"
)

// run is one Validate call. Text output is written as entries come, so that
// each warning line stands just before its result.
type run struct {
	opts   Options
	report Report
	// inputs are the files and streams found, in order, read but not yet
	// converted (read converts them).
	inputs []input
	// pending are the ListenerSets read so far. They are validated once all
	// input is read, so that every one of them is judged against all the
	// related objects (objects) of the input, wherever those stand.
	pending []pending
	objects validation.Objects
}

// pending is a ListenerSet read, not yet validated.
type pending struct {
	res Result
	// raw is the object's JSON, which the verdict decodes as kube-apiserver.
	raw []byte
}

// input is one file or stream, or an error met while looking for them
// (err, and not opened).
type input struct {
	name string
	data []byte
	// opened: name was opened (read or not), so it is one of the report's
	// files.
	opened bool
	err    *InputError
	// docs are its documents, converted (nil until read has run).
	docs []document
}

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

func (v *run) path(p string) {
	if p == StdinPath {
		v.stream(StdinName, v.opts.Stdin)
		return
	}
	info, err := os.Stat(p)
	if err != nil {
		v.unreadable(InputError{File: p, Message: err.Error()})
		return
	}
	if !info.IsDir() {
		v.file(p)
		return
	}
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			v.unreadable(InputError{File: path, Message: err.Error()})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if path != p && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
			v.file(path)
		}
		return nil
	})
	if err != nil {
		v.unreadable(InputError{File: p, Message: err.Error()})
	}
}

// unreadable is a path that cannot be opened or walked, reported in its
// place among the inputs.
func (v *run) unreadable(e InputError) { v.inputs = append(v.inputs, input{err: &e}) }

func (v *run) file(path string) {
	f, err := os.Open(path)
	if err != nil {
		v.unreadable(InputError{File: path, Message: err.Error()})
		return
	}
	defer f.Close()
	v.stream(path, f)
}

// stream reads one input whole; read converts it.
func (v *run) stream(name string, r io.Reader) {
	if r == nil {
		r = strings.NewReader("")
	}
	data, err := io.ReadAll(r)
	in := input{name: name, data: data, opened: true}
	if err != nil {
		in.err = &InputError{File: name, Message: err.Error()}
	}
	v.inputs = append(v.inputs, in)
}

// read converts every document of the inputs found, on every core (the
// YAML to JSON conversion is most of reading), then takes them in input
// order.
func (v *run) read() {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range v.inputs {
		in := &v.inputs[i]
		if in.err != nil {
			continue
		}
		in.docs = split(in.name, in.data)
		for j := range in.docs {
			g.Go(func() error {
				in.docs[j].convert()
				return nil
			})
		}
	}
	_ = g.Wait() // the workers return no error
	for i := range v.inputs {
		in := &v.inputs[i]
		if in.opened {
			v.report.files = append(v.report.files, in.name)
		}
		if in.err != nil {
			v.inputError(*in.err)
			continue
		}
		for _, d := range in.docs {
			if d.err != nil {
				v.inputError(*d.err)
				break
			}
			v.document(d)
		}
	}
	v.inputs = nil
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
// The warnings carry the line; locate finds the key's column on it.
func duplicateKeyWarnings(err error, start int) []Warning {
	var warnings []Warning
	for _, m := range duplicateKey.FindAllStringSubmatch(err.Error(), -1) {
		n, _ := strconv.Atoi(m[1])
		warnings = append(warnings, Warning{Kind: KindDuplicateField, Line: n + start - 1,
			Message: fileLines("line "+m[1], start) + ": duplicate field " + m[2]})
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

// document handles one converted document. Its warnings (duplicate YAML
// keys) belong to the ListenerSet in it, if it is one; for a List they
// cannot be told apart by item and are dropped with the list. A List item
// gets its item's subtree of the list's positions.
func (v *run) document(d document) {
	loc, raw, h := d.loc, d.raw, d.head
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return // an empty document: only comments, or "---" twice
	}
	if raw[0] != '{' {
		v.skip(Skipped{Location: loc, Reason: reasonNotObject})
		return
	}
	if d.headErr != nil {
		v.inputError(InputError{File: loc.File, Document: loc.Document, Message: d.headErr.Error()})
		return
	}
	if loc.Item == 0 && isList(h) {
		items := d.pos.Tree().Child(position.Segment{Key: "items", Index: -1})
		for i, item := range h.Items {
			tree := items.Child(position.Segment{Key: fmt.Sprint(i), Index: i})
			it := document{loc: Location{File: loc.File, Document: loc.Document, Item: i + 1, Line: loc.Line},
				raw: bytes.TrimSpace(item), pos: position.Parsed(tree)}
			if tree != nil {
				it.loc.Line = tree.Pos.Line
			}
			if len(it.raw) > 0 && it.raw[0] == '{' {
				it.head, it.headErr = readHead(it.raw)
			}
			v.document(it)
		}
		return
	}
	skipped := Skipped{Location: loc, APIVersion: h.APIVersion, Kind: h.Kind,
		Namespace: h.Metadata.Namespace, Name: h.Metadata.Name}
	switch {
	case h.APIVersion == "" || h.Kind == "":
		skipped.Reason = reasonNotObject
	case h.Kind != "ListenerSet":
		skipped.Reason = reasonNotListenerSet
	case h.APIVersion != listenerSetAPIVersion:
		skipped.Reason = reasonOtherVersion
	default:
		v.pending = append(v.pending, pending{raw: raw, res: Result{Location: loc,
			Namespace: h.Metadata.Namespace, Name: h.Metadata.Name, pos: d.pos,
			Errors: []FieldError{}, Warnings: append([]Warning{}, d.warnings...)}})
		return
	}
	if v.collect(h, raw) {
		skipped.Reason += reasonContext
	}
	v.skip(skipped)
}

// collect keeps the objects the cluster-aware rules look at: Gateways,
// ReferenceGrants, Namespaces and Secrets (metadata only; their data is never
// kept). It reports whether the object is one of them.
func (v *run) collect(h head, raw []byte) bool {
	o := &v.objects
	switch {
	case h.APIVersion == listenerSetAPIVersion && h.Kind == "Gateway":
		gw := &gwv1.Gateway{}
		if json.Unmarshal(raw, gw) != nil {
			return false
		}
		o.Gateways = append(o.Gateways, gw)
	case (h.APIVersion == listenerSetAPIVersion || h.APIVersion == gwv1.GroupName+"/v1beta1") && h.Kind == "ReferenceGrant":
		// v1beta1 and v1 ReferenceGrants have the same fields.
		g := &gwv1.ReferenceGrant{}
		if json.Unmarshal(raw, g) != nil {
			return false
		}
		o.Grants = append(o.Grants, g)
	case h.APIVersion == "v1" && (h.Kind == "Namespace" || h.Kind == "Secret"):
		m := &metav1.PartialObjectMetadata{}
		if json.Unmarshal(raw, m) != nil {
			return false
		}
		if h.Kind == "Namespace" {
			o.Namespaces = append(o.Namespaces, m)
		} else {
			o.Secrets = append(o.Secrets, m)
		}
	default:
		return false
	}
	return true
}

// isList: kubectl's v1 List (what `kubectl get -o yaml` prints) and the
// typed ListenerSetList.
func isList(h head) bool {
	return (h.APIVersion == "v1" && h.Kind == "List") ||
		(h.APIVersion == listenerSetAPIVersion && h.Kind == "ListenerSetList")
}

// Input is what Read found: the ListenerSets that decode, in input order,
// and the related objects (Gateways, ReferenceGrants, Namespaces, Secrets).
type Input struct {
	// Sets are the decoded and defaulted v1 ListenerSets.
	Sets []*gwv1.ListenerSet
	// Objects holds the related objects; Objects.Sets is left empty.
	Objects validation.Objects
	// InputErrors are the files or documents that could not be read.
	InputErrors []InputError
}

// Read reads paths as Validate does (files, directories, "-" for stdin,
// lists expanded) without judging anything: for commands that need the
// objects, not a verdict.
func Read(paths []string, stdin io.Reader) *Input {
	v := &run{opts: Options{Format: JSON, Stdin: stdin}}
	for _, p := range paths {
		v.path(p)
	}
	v.read()
	in := &Input{Objects: v.objects, InputErrors: v.report.InputErrors}
	for _, p := range v.pending {
		// Decoded and defaulted as the webhook does; one the Go type cannot
		// hold is left out (Validate reports it).
		ls := &gwv1.ListenerSet{}
		if _, err := sigsjson.UnmarshalStrict(p.raw, ls); err != nil {
			continue
		}
		defaults.ListenerSet(ls)
		in.Sets = append(in.Sets, ls)
	}
	return in
}
