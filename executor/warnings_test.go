package executor

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/executor/logging"
)

// A warning the API server sends with a response reaches the run's log,
// in the phase the run is in and redacted, through client-go's own
// warning handling.
func TestAPIWarningsLogged(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Add("Warning", `299 - "v1beta1 Widget is deprecated; token s3cr3t-token-value"`)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"NamespaceList","apiVersion":"v1","metadata":{},"items":[]}`))
	}))
	defer srv.Close()
	var b bytes.Buffer
	log := logging.New(&b, logging.Options{Action: "deploy", Now: func() time.Time { return time.Unix(0, 0) }})
	log.Redact("s3cr3t-token-value")
	r := &run{log: log, phase: "preflight"}
	rc := &rest.Config{Host: srv.URL, WarningHandler: apiWarnings{r}}
	c, err := cluster.New(rc, "platc-test", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Kube.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `WARN [deploy/preflight/api-server] API server warning: v1beta1 Widget is deprecated; token [redacted]`
	if !strings.Contains(b.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, b.String())
	}
}
