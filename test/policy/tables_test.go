package policy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// tableCall is one call of validation.Validate made by validation's own
// tests: a table row's object (and, for an update row, the stored one).
type tableCall struct {
	New *gwv1.ListenerSet `json:"new"`
	Old *gwv1.ListenerSet `json:"old,omitempty"`
}

// recordTableCalls runs validation's tests with validation.Validate wrapped
// so that it records every object-only call (no Cluster, not Strict): the
// objects of every table row, as the tests build them, without a copy of
// the tables. The wrapper is added for that one build through go's
// -overlay; the tree is not changed.
func recordTableCalls(t *testing.T, ctx context.Context, root string) []tableCall {
	dir := t.TempDir()
	src := filepath.Join(root, "validation", "validate.go")
	wrapped, err := wrapValidate(src)
	if err != nil {
		t.Fatal(err)
	}
	wrappedPath := filepath.Join(dir, "validate.go")
	overlayPath := filepath.Join(dir, "overlay.json")
	record := filepath.Join(dir, "calls.jsonl")
	overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {src: wrappedPath}})
	if err := os.WriteFile(wrappedPath, wrapped, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(overlayPath, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-overlay", overlayPath, "./validation/")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "POLICY_RECORD_VALIDATE="+record)
	if out, err := cmd.CombinedOutput(); err != nil {
		// a failing validation test is its own finding; its rows still count
		t.Logf("validation's tests with the recorder: %v\n%s", err, out)
	}
	f, err := os.Open(record)
	if err != nil {
		t.Fatalf("no calls recorded: %v", err)
	}
	defer f.Close()
	seen := map[string]bool{}
	var calls []tableCall
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if seen[sc.Text()] {
			continue
		}
		seen[sc.Text()] = true
		var c tableCall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return calls
}

// wrapValidate returns validate.go with Validate renamed and a Validate that
// records its object-only calls in front of it.
func wrapValidate(path string) ([]byte, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		return nil, err
	}
	var fn *ast.FuncDecl
	for _, d := range file.Decls {
		if f, ok := d.(*ast.FuncDecl); ok && f.Recv == nil && f.Name.Name == "Validate" {
			fn = f
		}
	}
	if fn == nil || len(fn.Type.Params.List) != 2 || len(fn.Type.Params.List[0].Names) != 2 {
		return nil, fmt.Errorf("%s: Validate(new, old *gwv1.ListenerSet, opts Options) not found as expected", path)
	}
	sig := string(src[fset.Position(fn.Type.Params.Pos()).Offset:fset.Position(fn.Type.End()).Offset])
	name := fset.Position(fn.Name.Pos()).Offset
	var out bytes.Buffer
	out.Write(src[:name])
	out.WriteString("validateUnrecorded")
	out.Write(src[name+len("Validate"):])
	newName, oldName := fn.Type.Params.List[0].Names[0].Name, fn.Type.Params.List[0].Names[1].Name
	optsName := fn.Type.Params.List[1].Names[0].Name
	fmt.Fprintf(&out, `
func Validate%s {
	if %[2]s.Cluster == nil && !%[2]s.Strict {
		recordValidateCall(%[3]s, %[4]s)
	}
	return validateUnrecorded(%[3]s, %[4]s, %[2]s)
}

var recordValidateMu recordMutex

func recordValidateCall(n, o *gwv1.ListenerSet) {
	path := recordGetenv("POLICY_RECORD_VALIDATE")
	if path == "" {
		return
	}
	line, err := recordJSON(map[string]*gwv1.ListenerSet{"new": n, "old": o})
	if err != nil {
		return
	}
	recordValidateMu.Lock()
	defer recordValidateMu.Unlock()
	f, err := recordOpen(path, recordFlags, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	f.Write(append(line, '\n'))
}
`, strings.TrimPrefix(sig, "func"), optsName, newName, oldName)
	text := out.String()
	// the recorder's imports, aliased so they cannot clash
	text = strings.Replace(text, "package validation\n", `package validation

import (
	recordjson "encoding/json"
	recordos "os"
	recordsync "sync"
)
`, 1) + `
type recordMutex = recordsync.Mutex

var (
	recordGetenv = recordos.Getenv
	recordJSON   = recordjson.Marshal
	recordOpen   = recordos.OpenFile
	recordFlags  = recordos.O_APPEND | recordos.O_CREATE | recordos.O_WRONLY
)
`
	return []byte(text), nil
}
