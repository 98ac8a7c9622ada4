// Package snapshot is the cluster state snapshot of RFC 6.1: what Phase 0
// read, written beside the report for a later run (SNAPSHOT_BASELINE) or
// an operator (platc snapshot diff) to compare with. It records names,
// versions and statuses only: no object's data, no Secret, no label or
// annotation value but the ownership it derives from them.
//
// Every list is sorted, so two snapshots of an unchanged cluster differ
// only in taken_at; and every list is bounded (the Max constants), so a
// snapshot of a very large cluster stays below MaxFileSize.
package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/platc/platc/internal/safefile"
)

// Format names this version of the snapshot's shape
// (docs/schemas/snapshot.schema.json).
const Format = "platc.snapshot/v1"

// Bounds: the lists are capped as they are read, and Fit then halves the
// largest list until the encoded snapshot is at most MaxFileSize (names
// of the longest lengths Kubernetes allows could pass it at the caps),
// which is also the most a baseline may be. What a bound leaves out is
// said in Truncated.
const (
	MaxNodes        = 5000
	MaxNamespaces   = 10000
	MaxCRDs         = 2000
	MaxApplications = 10000
	MaxTaints       = 16
	MaxVersions     = 16
	MaxFileSize     = 16 << 20
)

// CRD owners.
const (
	OwnerApp       = "app"       // a platform app deploys it (Argo CD tracks it, or it carries the app's instance label)
	OwnerBootstrap = "bootstrap" // a release of the generated bootstrap installed it
	OwnerNone      = "none"      // neither: it was there before the platform, or something else made it
)

// Workload statuses.
const (
	Ready    = "ready"
	NotReady = "not-ready"
	Missing  = "missing"
	Unread   = "unread"
)

// Snapshot is one cluster's state as Phase 0 read it.
type Snapshot struct {
	Format      string    `json:"format"`
	TakenAt     time.Time `json:"taken_at"`
	Action      string    `json:"action"`
	Platform    string    `json:"platform"`
	Environment string    `json:"environment"`
	// Server is the API server's URL, to tell snapshots of two clusters
	// apart.
	Server            string        `json:"server"`
	KubernetesVersion string        `json:"kubernetes_version"`
	Nodes             []Node        `json:"nodes"`
	Namespaces        []string      `json:"namespaces"`
	CRDs              []CRD         `json:"crds"`
	Components        []Workload    `json:"components"`
	Applications      []Application `json:"applications"`
	// Truncated says which lists a bound cut, and how much it left out.
	Truncated []string `json:"truncated,omitempty"`
	// Unread says which parts could not be read, and why.
	Unread []string `json:"unread,omitempty"`
}

// Node is one node: whether it is Ready, what it offers to pods, and its
// taints.
type Node struct {
	Name        string            `json:"name"`
	Ready       bool              `json:"ready"`
	Allocatable map[string]string `json:"allocatable"`
	Taints      []Taint           `json:"taints,omitempty"`
}

// Taint is a node taint.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// CRD is one CustomResourceDefinition and who owns it.
type CRD struct {
	Name     string   `json:"name"`
	Group    string   `json:"group"`
	Versions []string `json:"versions"`
	Owner    string   `json:"owner"`
	// OwnedBy is the app or the bootstrap release that owns it.
	OwnedBy string `json:"owned_by,omitempty"`
}

// Workload is a critical component's Deployment or StatefulSet.
type Workload struct {
	Component string `json:"component"`
	Namespace string `json:"namespace"`
	Kind      string `json:"kind,omitempty"`
	Name      string `json:"name,omitempty"`
	// Version is the first container's image tag.
	Version  string `json:"version,omitempty"`
	Replicas int32  `json:"replicas"`
	Ready    int32  `json:"ready_replicas"`
	Status   string `json:"status"`
	Message  string `json:"message,omitempty"`
}

// Application is one platform app's Argo CD Application.
type Application struct {
	Name   string `json:"name"`
	App    string `json:"app"`
	Sync   string `json:"sync,omitempty"`
	Health string `json:"health,omitempty"`
	// Revision is the revision Argo CD last compared with; for several
	// sources, theirs joined with commas, in the sources' order.
	Revision string `json:"revision,omitempty"`
}

// PreExisting returns the CRDs neither a platform app nor the bootstrap
// owns.
func (s *Snapshot) PreExisting() []string {
	var out []string
	for _, c := range s.CRDs {
		if c.Owner == OwnerNone {
			out = append(out, c.Name)
		}
	}
	return out
}

// Sort puts every list in its fixed order.
func (s *Snapshot) Sort() {
	slices.SortFunc(s.Nodes, func(a, b Node) int { return strings.Compare(a.Name, b.Name) })
	slices.Sort(s.Namespaces)
	slices.SortFunc(s.CRDs, func(a, b CRD) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(s.Components, func(a, b Workload) int {
		return strings.Compare(a.Namespace+"/"+a.Component, b.Namespace+"/"+b.Component)
	})
	slices.SortFunc(s.Applications, func(a, b Application) int { return strings.Compare(a.Name, b.Name) })
}

// Fit cuts s until its encoding is at most MaxFileSize: each time, the
// list with the most bytes keeps its first half (in its sorted order,
// so the cut is the same every time), and Truncated says so.
func (s *Snapshot) Fit() ([]byte, error) {
	for {
		var buf bytes.Buffer
		if err := s.Encode(&buf); err != nil {
			return nil, err
		}
		if buf.Len() <= MaxFileSize {
			return buf.Bytes(), nil
		}
		size := func(v any) int { b, _ := json.Marshal(v); return len(b) }
		lists := []struct {
			name string
			n    int
			cut  func()
		}{
			{"nodes", size(s.Nodes), func() { s.Nodes = s.Nodes[:len(s.Nodes)/2] }},
			{"namespaces", size(s.Namespaces), func() { s.Namespaces = s.Namespaces[:len(s.Namespaces)/2] }},
			{"CRDs", size(s.CRDs), func() { s.CRDs = s.CRDs[:len(s.CRDs)/2] }},
			{"Applications", size(s.Applications), func() { s.Applications = s.Applications[:len(s.Applications)/2] }},
		}
		big := 0
		for i := range lists {
			if lists[i].n > lists[big].n {
				big = i
			}
		}
		if lists[big].n <= 2 {
			return nil, fmt.Errorf("the snapshot is larger than %d MiB with every list empty", MaxFileSize>>20)
		}
		lists[big].cut()
		s.Truncated = append(s.Truncated, fmt.Sprintf("%s: halved to keep the snapshot within %d MiB", lists[big].name, MaxFileSize>>20))
	}
}

// Encode writes s as indented JSON, ending in a line feed.
func (s *Snapshot) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// Read reads a snapshot file, bounded (MaxFileSize) and only a regular
// file, and checks it is one: the format, and no field it does not know.
func Read(path string) (*Snapshot, error) {
	b, err := safefile.Read(path, MaxFileSize)
	if err != nil {
		return nil, safefile.Unwrap(err)
	}
	return Decode(b)
}

// Decode parses a snapshot. Its errors say where the JSON went wrong.
func Decode(b []byte) (*Snapshot, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s Snapshot
	if err := dec.Decode(&s); err != nil {
		return nil, jsonError(b, err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value: a snapshot file holds one object")
	}
	if s.Format != Format {
		if s.Format == "" {
			return nil, fmt.Errorf("no \"format\": not a platc snapshot (want %q)", Format)
		}
		return nil, fmt.Errorf("format %q is not %q, the only one this platc reads", s.Format, Format)
	}
	return &s, nil
}

// jsonError adds the line and column to a syntax or type error.
func jsonError(b []byte, err error) error {
	var off int64
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	// Offset is just past the value or byte at fault: point at its last
	// byte.
	off--
	if off < 0 || off > int64(len(b)) {
		if errors.Is(err, io.EOF) {
			return errors.New("empty: not a platc snapshot")
		}
		return err
	}
	line, col := 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("line %d, column %d: %v", line, col, err)
}
