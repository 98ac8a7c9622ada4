package lang_test

import (
	"testing"

	"github.com/platc/platc/internal/synth"
	"github.com/platc/platc/internal/synth/synthtest"
	"github.com/platc/platc/lang"
)

// BenchmarkParse parses and decodes a synthetic platform held in one file.
func BenchmarkParse(b *testing.B) {
	synthtest.Run(b, func(b *testing.B, n int) {
		src := synth.Sources(synthtest.Options(n))
		b.SetBytes(int64(len(src[0].Bytes)))
		for b.Loop() {
			if _, diags := lang.ParseSources(src); diags.HasErrors() {
				b.Fatal(diags.Error())
			}
		}
	})
}
