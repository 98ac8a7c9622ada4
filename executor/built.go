package executor

import (
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/emit/argo"
)

// built holds what the emitters build from a run's program that the
// executor reads in several places (drift, resume, the workflow tree,
// leftovers, the bootstrap's releases). Each is built at most once per
// run: argo.Build is the Argo emitter's whole work for the platform,
// which grows with its apps, and a deploy ran it up to three times. The
// run is sequential (one goroutine reads these), so no lock.
type built struct {
	p *ir.Program

	objectsDone bool
	objects     *argo.Objects
	objectsErr  error

	releasesDone bool
	releases     []ansible.Release
	releasesErr  error
}

// Objects is argo.Build(p), built on first use.
func (b *built) Objects() (*argo.Objects, error) {
	if !b.objectsDone {
		b.objects, b.objectsErr = argo.Build(b.p)
		b.objectsDone = true
	}
	return b.objects, b.objectsErr
}

// Releases is ansible.Releases(p), built on first use.
func (b *built) Releases() ([]ansible.Release, error) {
	if !b.releasesDone {
		b.releases, b.releasesErr = ansible.Releases(b.p)
		b.releasesDone = true
	}
	return b.releases, b.releasesErr
}
