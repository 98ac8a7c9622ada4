package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/synth"
	"github.com/platc/platc/internal/synth/synthtest"
)

// BenchmarkBuild is platc build end to end, as a user runs it: read and
// parse the platform file, compile every environment, run every emitter
// and write the output into a new directory.
func BenchmarkBuild(b *testing.B) {
	synthtest.Run(b, func(b *testing.B, n int) {
		dir := b.TempDir()
		src := filepath.Join(dir, "platform.hcl")
		if err := os.WriteFile(src, synth.Generate(synthtest.Options(n)), 0o644); err != nil {
			b.Fatal(err)
		}
		i := 0
		for b.Loop() {
			i++
			out := filepath.Join(dir, fmt.Sprint("out", i))
			if code := run([]string{"platc", "build", "-o", out, src}, io.Discard, os.Stderr); code != exitcode.OK {
				b.Fatalf("build: exit %d", code)
			}
		}
	})
}
