package gitops_test

import (
	"strings"
	"testing"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/emit/events"
	"github.com/platc/platc/emit/internal/emittest"
)

// TestGolden pins the GitOps handoff of small platforms: the Applications,
// the root app and its projects, the Argo Events objects, and the Ansible
// inventory with its variables. The role task files are static and are
// checked by ansible-lint and the structure tests in emit/ansible instead.
func TestGolden(t *testing.T) {
	emittest.Golden(t, func(t *testing.T, p *ir.Program) map[string][]byte {
		return emittest.Emit(t, p, argocd.Apps{}, events.Emitter{}, ansible.Emitter{})
	}, func(path string) bool {
		return !strings.HasPrefix(path, "ansible/") ||
			strings.HasPrefix(path, "ansible/inventories/")
	})
}
