package step

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
)

// ResourceNode is one node of an Application's resource tree: a resource
// the Application manages, or one they own, as it is live in the cluster,
// with its health when Argo CD assesses its kind. Argo CD 3 keeps resource
// health in this tree (its cache), not in the Application's status.
type ResourceNode struct {
	Group     string `json:"group"`
	Version   string `json:"version"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Health    *struct {
		Status  string `json:"status"`
		Message string `json:"message"`
	} `json:"health,omitempty"`
}

func (n ResourceNode) health() string {
	if n.Health == nil {
		return ""
	}
	return n.Health.Status
}

func (n ResourceNode) id() string {
	if n.Namespace == "" {
		return n.Name
	}
	return n.Namespace + "/" + n.Name
}

// ResourceTree reads an Application's resource tree (argocd app
// resources; RBAC action get on the application, nothing more).
func (c *Client) ResourceTree(ctx context.Context, name string) ([]ResourceNode, error) {
	var tree struct {
		Nodes []ResourceNode `json:"nodes"`
	}
	err := c.call(ctx, http.MethodGet, appPath(name)+"/resource-tree", nil, nil, &tree)
	return tree.Nodes, err
}

// ResourceInput is one wait-resource task's inputs (the template's
// environment): which resource of which Application, and what ready means
// for it, as the compiler decided (ir.ResourceWait).
type ResourceInput struct {
	// App is the Argo CD Application that manages the resource.
	App             string
	Group, Kind     string
	Name, Namespace string
	// Exists: the kind has no health; the resource is ready once it is
	// live. Otherwise it must be Healthy.
	Exists  bool
	Timeout time.Duration
	// Poll is the time between two reads of the tree.
	Poll time.Duration
}

var (
	kindPattern  = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`)
	labelPattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
)

// ResourceInputFromEnv reads ResourceInput from the variables the
// template sets: APP, GROUP, KIND, NAME, NAMESPACE, WAIT (healthy or
// exists) and TIMEOUT (seconds).
func ResourceInputFromEnv(getenv func(string) string) (ResourceInput, error) {
	in := ResourceInput{App: getenv("APP"), Group: getenv("GROUP"), Kind: getenv("KIND"),
		Name: getenv("NAME"), Namespace: getenv("NAMESPACE"), Poll: 5 * time.Second}
	// Every value is checked against what Kubernetes allows, so none can
	// name another path or carry anything but a name.
	for _, v := range []struct {
		name, value string
		ok          bool
	}{
		{"APP", in.App, len(in.App) <= 253 && objectName.MatchString(in.App)},
		{"GROUP", in.Group, in.Group == "" || len(in.Group) <= 253 && objectName.MatchString(in.Group)},
		{"KIND", in.Kind, kindPattern.MatchString(in.Kind)},
		{"NAME", in.Name, len(in.Name) <= 253 && objectName.MatchString(in.Name)},
		{"NAMESPACE", in.Namespace, in.Namespace == "" || len(in.Namespace) <= 63 && labelPattern.MatchString(in.Namespace)},
	} {
		if !v.ok {
			return in, fmt.Errorf("%s=%q is not a valid value", v.name, v.value)
		}
	}
	switch w := getenv("WAIT"); w {
	case "healthy":
	case "exists":
		in.Exists = true
	default:
		return in, fmt.Errorf("WAIT=%q: want healthy or exists", w)
	}
	var err error
	if in.Timeout, err = seconds(getenv, "TIMEOUT"); err != nil {
		return in, err
	}
	return in, nil
}

func (in ResourceInput) kindKey() string {
	if in.Group == "" {
		return in.Kind
	}
	return in.Group + "/" + in.Kind
}

func (in ResourceInput) what() string {
	id := in.Name
	if in.Namespace != "" {
		id = in.Namespace + "/" + in.Name
	}
	return fmt.Sprintf("%s %s of Application %s", in.kindKey(), id, in.App)
}

// WaitResource waits until one resource of an Application is live and,
// unless in.Exists, Healthy (RFC 5.1 resource node). It reads the
// Application's resource tree every in.Poll until then, for at most
// in.Timeout. Degraded health, two resources that match, or the timeout
// end it with ExitNotRetried (a retry would find the same state); a
// failed call with ExitRetry. It changes nothing.
func WaitResource(ctx context.Context, c *Client, in ResourceInput, out io.Writer) int {
	say := func(format string, args ...any) { fmt.Fprintf(out, in.what()+": "+format+"\n", args...) }
	ctx, cancel := context.WithTimeout(ctx, in.Timeout)
	defer cancel()
	var last []ResourceNode
	for {
		nodes, err := c.ResourceTree(ctx, in.App)
		switch {
		case ctx.Err() != nil:
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				say("%s after %s; not retried: %s", notReady(in), in.Timeout, describe(in, last))
				return ExitNotRetried
			}
			return ExitRetry
		case err != nil:
			say("cannot read the resource tree: %v", err)
			return ExitRetry
		}
		last = nodes
		var match []ResourceNode
		for _, n := range nodes {
			if n.Group == in.Group && n.Kind == in.Kind && n.Name == in.Name && (in.Namespace == "" || n.Namespace == in.Namespace) {
				match = append(match, n)
			}
		}
		switch {
		case len(match) > 1:
			ids := make([]string, len(match))
			for k, n := range match {
				ids[k] = n.id()
			}
			slices.Sort(ids)
			say("%d resources match (%s); not retried: set namespace in the resource block to pick one", len(match), strings.Join(ids, ", "))
			return ExitNotRetried
		case len(match) == 1:
			h := match[0].health()
			switch {
			case in.Exists && h != "Missing":
				say("exists")
				return ExitOK
			case h == "Healthy":
				say("Healthy")
				return ExitOK
			case h == "Degraded" && !in.Exists:
				msg := ""
				if m := match[0].Health.Message; m != "" {
					msg = " (" + m + ")"
				}
				say("Degraded%s; not retried: a retry would find the same state", msg)
				return ExitNotRetried
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(in.Poll):
		}
	}
}

func notReady(in ResourceInput) string {
	if in.Exists {
		return "still does not exist"
	}
	return "still not Healthy"
}

// describe says what the tree held of the resource's kind, so a misspelt
// name or namespace shows beside the right one.
func describe(in ResourceInput, nodes []ResourceNode) string {
	var same []string
	for _, n := range nodes {
		if n.Group != in.Group || n.Kind != in.Kind {
			continue
		}
		s := n.id()
		if h := n.health(); h != "" {
			s += " (" + h + ")"
		}
		same = append(same, s)
	}
	if len(same) == 0 {
		return fmt.Sprintf("the Application has no live %s at all", in.kindKey())
	}
	slices.Sort(same)
	return fmt.Sprintf("the Application's live %s resources: %s", in.kindKey(), strings.Join(same, ", "))
}
