package all_test

import (
	"bytes"
	"testing"

	"github.com/platc/platc/emit/all"
	"github.com/platc/platc/emit/internal/emittest"
)

// Every registered emitter runs on the example platform, names are
// unique, and no two emitters write the same file.
func TestEmitters(t *testing.T) {
	p := emittest.Example(t, "../..")
	seen := map[string]bool{}
	for _, e := range all.Emitters() {
		if seen[e.Name()] {
			t.Errorf("emitter name %q registered twice", e.Name())
		}
		seen[e.Name()] = true
	}
	files := emittest.Emit(t, p, all.Emitters()...)
	for _, want := range []string{"argocd/root.yaml", "argocd/values.yaml", "events/events.yaml", "ansible/site.yml", "workflows/deploy.yaml"} {
		if _, ok := files[want]; !ok {
			t.Errorf("%s not emitted", want)
		}
	}
}

// Two builds of the example give the same files, byte for byte (INV-3).
func TestDeterministic(t *testing.T) {
	a := emittest.Emit(t, emittest.Example(t, "../.."), all.Emitters()...)
	b := emittest.Emit(t, emittest.Example(t, "../.."), all.Emitters()...)
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for path, data := range a {
		if !bytes.Equal(data, b[path]) {
			t.Errorf("%s differs between two builds", path)
		}
	}
}
