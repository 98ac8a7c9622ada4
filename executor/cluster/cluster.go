package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// Resources the executor reads or writes.
var (
	Workflows                = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "workflows"}
	WorkflowTemplates        = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "workflowtemplates"}
	CronWorkflows            = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "cronworkflows"}
	ClusterWorkflowTemplates = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "clusterworkflowtemplates"}
	Applications             = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}
	AppProjects              = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "appprojects"}
	VolumeSnapshots          = schema.GroupVersionResource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshots"}
	Sensors                  = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "sensors"}
	CRDs                     = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// DefaultCallTimeout bounds one API request.
const DefaultCallTimeout = 15 * time.Second

// Client reaches one cluster.
type Client struct {
	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
	// Metadata reads objects' metadata only (PartialObjectMetadata):
	// teardown's scan for leftovers lists every kind, Secrets included,
	// and needs none of their data.
	Metadata metadata.Interface
	// Host is the API server URL, for messages.
	Host string
	// CallTimeout bounds each request; Call applies it.
	CallTimeout time.Duration
}

// New builds a Client from rc. callTimeout bounds every request (the
// HTTP client's own timeout, and the context Call hands out); zero means
// DefaultCallTimeout.
func New(rc *rest.Config, userAgent string, callTimeout time.Duration) (*Client, error) {
	if callTimeout <= 0 {
		callTimeout = DefaultCallTimeout
	}
	rc = rest.CopyConfig(rc)
	rc.Timeout = callTimeout
	rc.UserAgent = userAgent
	// The executor makes a few dozen calls a minute; the default client
	// throttle (5 QPS) would only slow a large validate down.
	rc.QPS, rc.Burst = 50, 100
	kc, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	dc, err := dynamic.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes dynamic client: %w", err)
	}
	mc, err := metadata.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("kubernetes metadata client: %w", err)
	}
	return &Client{Kube: kc, Dynamic: dc, Metadata: mc, Host: rc.Host, CallTimeout: callTimeout}, nil
}

// Call returns a context bounded by the call timeout.
func (c *Client) Call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.CallTimeout)
}

// Explain turns an API error into a sentence an operator can act on. It
// distinguishes an API server that cannot be reached from one that
// rejects the credentials or the request.
func (c *Client) Explain(err error) string {
	host := c.Host
	if u, perr := url.Parse(c.Host); perr == nil && u.Host != "" {
		host = u.Host
	}
	switch {
	case err == nil:
		return ""
	case apierrors.IsUnauthorized(err):
		return fmt.Sprintf("the Kubernetes API at %s rejected the credentials (401 Unauthorized); the kubeconfig's token or client certificate is wrong or expired", host)
	case apierrors.IsForbidden(err):
		return fmt.Sprintf("the Kubernetes API at %s refused the request: %s", host, apiMessage(err))
	case IsUnreachable(err):
		return fmt.Sprintf("cannot reach the Kubernetes API at %s: %s", host, netCause(err))
	}
	return fmt.Sprintf("the Kubernetes API at %s: %s", host, apiMessage(err))
}

// IsUnreachable reports whether err means no answer came from the API
// server: refused, timed out, unresolvable, or a TLS failure.
func IsUnreachable(err error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	var ue *url.Error
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		// A Status from the server, even a timeout one, means it answered.
		return false
	}
	return errors.As(err, &ne) || errors.As(err, &ue) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(err.Error(), "connection refused")
}

func netCause(err error) string {
	s := err.Error()
	switch {
	case errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(s, "connection refused"):
		return "connection refused (is the server address right, and is the API server running?)"
	case errors.Is(err, context.DeadlineExceeded) || strings.Contains(s, "Client.Timeout") || strings.Contains(s, "i/o timeout") || strings.Contains(s, "deadline exceeded"):
		return "no answer within the time limit (a firewall, a wrong address, or an overloaded API server)"
	case strings.Contains(s, "no such host"):
		return "the host name does not resolve"
	case strings.Contains(s, "x509") || strings.Contains(s, "tls:") || strings.Contains(s, "certificate"):
		return "TLS failed: " + lastPart(s) + " (check the kubeconfig's certificate-authority-data)"
	}
	return lastPart(s)
}

func apiMessage(err error) string {
	var se apierrors.APIStatus
	if errors.As(err, &se) && se.Status().Message != "" {
		return se.Status().Message
	}
	return err.Error()
}

// lastPart drops Go's "Get \"https://…\": " prefixes, which repeat the URL.
func lastPart(s string) string {
	if i := strings.LastIndex(s, "\": "); i >= 0 {
		return s[i+3:]
	}
	return s
}
