package compiler_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/internal/synth/synthtest"
	"github.com/platc/platc/lang"
)

// BenchmarkCompile compiles a parsed synthetic platform in every
// environment (it has one), as lint and build do.
func BenchmarkCompile(b *testing.B) {
	synthtest.Run(b, func(b *testing.B, n int) {
		m := synthtest.Module(b, synthtest.Options(n))
		for b.Loop() {
			if _, diags := compiler.CompileAll(m, compiler.Options{}); diags.HasErrors() {
				b.Fatal(diags.Error())
			}
		}
	})
}

// unknownRefs is a platform of n apps: n-1 and one more app that depends
// on n names none of which exists, all but the last one edit away from a
// real app. n apps, not n+1: compiler.MaxApps is the most platc compiles,
// and one more adds a "Too many apps" diagnostic.
func unknownRefs(n int) []byte {
	var b strings.Builder
	b.WriteString("platform \"acme\" {\n  git { repo_url = \"https://git.example.com/p.git\" }\n}\n")
	for i := range n - 1 {
		fmt.Fprintf(&b, "app \"app-%05d\" {}\n", i)
	}
	b.WriteString("app \"root\" {\n  depends_on = [")
	for i := range n {
		fmt.Fprintf(&b, "app.app-%05dx, ", i)
	}
	b.WriteString("]\n}\n")
	return []byte(b.String())
}

// BenchmarkUnknownReferences compiles a platform with 20,000 references
// to apps that do not exist. Suggesting a name for each by trying every
// app took minutes (issue 13); suggestions are now made for the first
// hundred.
func BenchmarkUnknownReferences(b *testing.B) {
	m, diags := lang.ParseSources([]lang.SourceFile{{Name: "p.hcl", Bytes: unknownRefs(20_000)}})
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	for b.Loop() {
		if _, diags := compiler.Compile(m, compiler.Options{}); len(diags) != 20_000 {
			b.Fatalf("%d diagnostics, want 20,000", len(diags))
		}
	}
}
