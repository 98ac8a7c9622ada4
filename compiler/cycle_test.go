package compiler

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A knot with no dependency common to all its cycles says so, and its
// subject is the first hop of its shortest cycle.
func TestCycleWithoutSharedEdge(t *testing.T) {
	diags := compileErrors(t, `
app "a" {
  depends_on = [app.b, app.c]
}
app "b" {
  depends_on = [app.a]
}
app "c" {
  depends_on = [app.a]
}
`)
	if len(diags) != 1 {
		t.Fatalf("want one diagnostic, got: %s", diags.Error())
	}
	d := diags[0].Detail
	for _, want := range []string{
		"These 3 apps depend on each other",
		"The shortest cycles among them have 2 dependencies:",
		"  app.a depends on app.b  platform.hcl:7:17",
		"  app.a depends on app.c  platform.hcl:7:24",
		"No one dependency is on every cycle",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("detail lacks %q:\n%s", want, d)
		}
	}
	if got := diags[0].Subject.Start; got.Line != 7 || got.Column != 17 {
		t.Errorf("subject at %d:%d, want 7:17", got.Line, got.Column)
	}
}

// A stack's depends_on is one declaration however many apps it reaches:
// cutting it breaks every cycle through the stack, and the report names
// it as written.
func TestCycleSharedStackDeclaration(t *testing.T) {
	diags := compileErrors(t, `
app "cert-manager" {
  depends_on = [app.one, app.two]
}
stack "orders" {
  depends_on = [app.cert-manager]
  app "one" {}
  app "two" {}
}
`)
	if len(diags) != 1 {
		t.Fatalf("want one diagnostic, got: %s", diags.Error())
	}
	d := diags[0].Detail
	for _, want := range []string{
		"(stack.orders depends on app.cert-manager)",
		"goes through this dependency, so removing it breaks them all:\n  stack.orders depends on app.cert-manager  platform.hcl:10:17",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("detail lacks %q:\n%s", want, d)
		}
	}
	if got := diags[0].Subject.Start; got.Line != 10 {
		t.Errorf("subject on line %d, want 10 (the stack's depends_on)", got.Line)
	}
}

// An edge two references make is not cut by removing one of them.
func TestCycleEdgeDeclaredTwice(t *testing.T) {
	diags := compileErrors(t, `
app "cert-manager" {
  depends_on = [app.one, app.two]
}
stack "orders" {
  depends_on = [app.cert-manager]
  app "one" {
    depends_on = [app.cert-manager]
  }
  app "two" {}
}
`)
	d := diags[0].Detail
	if strings.Contains(d, "stack.orders depends on app.cert-manager  ") {
		t.Errorf("the stack's declaration is not shared: app.one names the same dependency itself:\n%s", d)
	}
}

// A knot of thousands of apps is reported quickly: the searches for
// short cycles and shared declarations are bounded.
func TestHugeCycleIsQuick(t *testing.T) {
	var b strings.Builder
	const n = 5000
	for i := range n {
		// A ring with chords: every app depends on the next and on the
		// one after it, so there are many cycles and no shared edge.
		fmt.Fprintf(&b, "app \"a%d\" {\n  depends_on = [app.a%d, app.a%d]\n}\n", i, (i+1)%n, (i+2)%n)
	}
	start := time.Now()
	diags := compileErrors(t, b.String())
	if len(diags) != 1 || diags[0].Summary != "Dependency cycle" {
		t.Fatalf("want one cycle, got %d diagnostics", len(diags))
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("compiling took %v", d)
	}
}
