package all_test

import (
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
	for _, want := range []string{"argocd/root.yaml", "argocd/values.yaml", "events/events.yaml", "ansible/site.yml"} {
		if _, ok := files[want]; !ok {
			t.Errorf("%s not emitted", want)
		}
	}
}
