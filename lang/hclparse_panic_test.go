package lang

import (
	"fmt"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/internal/parallel"
)

// A panic in HCL's parser on one file of many comes back to the caller of
// ParseSources as a *parallel.Panic, where platc's recover makes it an
// internal error. Raised on a pool goroutine, as it was before lang used
// internal/parallel, it ended the process (this test binary included)
// with a goroutine dump that no recover could stop.
func TestParserPanicReachesCaller(t *testing.T) {
	real := parsePiece
	t.Cleanup(func() { parsePiece = real })
	parsePiece = func(src []byte, name string, start hcl.Pos) (*hcl.File, hcl.Diagnostics) {
		if name == "hostile.hcl" {
			panic("parser bug")
		}
		return real(src, name, start)
	}
	var srcs []SourceFile
	for i := range 16 {
		name := fmt.Sprintf("app%d.hcl", i)
		if i == 11 {
			name = "hostile.hcl"
		}
		srcs = append(srcs, SourceFile{Name: name, Bytes: fmt.Appendf(nil, "app \"a%d\" {\n  namespace = \"a\"\n}\n", i)})
	}
	defer func() {
		p, ok := recover().(*parallel.Panic)
		if !ok || p.String() != "parser bug" || len(p.Stack) == 0 {
			t.Fatalf("recovered %v, want the parser's panic with its stack", p)
		}
	}()
	ParseSources(srcs)
	t.Fatal("ParseSources returned; the parser's panic was lost")
}
