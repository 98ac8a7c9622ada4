package write_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/all"
	"github.com/platc/platc/emit/write"
	"github.com/platc/platc/internal/synth/synthtest"
)

// BenchmarkWrite writes every emitter's files for a synthetic platform
// into a new directory, as a first build does.
func BenchmarkWrite(b *testing.B) {
	synthtest.Run(b, func(b *testing.B, n int) {
		p := synthtest.Program(b, synthtest.Options(n))
		var files []emit.File
		for _, e := range all.Emitters() {
			fs, err := e.Emit(p)
			if err != nil {
				b.Fatal(err)
			}
			files = append(files, fs...)
		}
		emit.Sort(files)
		dir := b.TempDir()
		i := 0
		for b.Loop() {
			i++
			if _, err := write.Write(filepath.Join(dir, fmt.Sprint(i)), files); err != nil {
				b.Fatal(err)
			}
		}
	})
}
