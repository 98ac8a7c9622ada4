package executor

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/logging"
)

// TestExecPluginTokenRedacted (issue 21): a kubeconfig's exec credential
// plugin (EKS, GKE) makes its token only when the first request goes
// out, so loading the kubeconfig cannot register it. An API server that
// echoes the token in its error put it in clear in the log and the
// report. The client connect builds registers every credential it sends.
func TestExecPluginTokenRedacted(t *testing.T) {
	const token = "k8s-aws-v1.exec-plugin-made-this-token"
	plugin := filepath.Join(t.TempDir(), "plugin")
	cred := fmt.Sprintf(`{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":%q}}`, token)
	if err := os.WriteFile(plugin, []byte("#!/bin/sh\necho '"+cred+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var sent string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		sent = req.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, `{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"Forbidden","code":403,"message":"nodes is forbidden: token %s cannot list nodes"}`,
			strings.TrimPrefix(sent, "Bearer "))
	}))
	defer srv.Close()

	var logs bytes.Buffer
	log := logging.New(&logs, logging.Options{Format: logging.Text, Action: "validate"})
	rc := &rest.Config{Host: srv.URL, ExecProvider: &clientcmdapi.ExecConfig{
		Command: plugin, APIVersion: "client.authentication.k8s.io/v1", InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
	}}
	r := &run{cfg: &config.Config{Kube: rc}, env: Env{Now: time.Now}, log: log}
	if err := r.connect(); err != nil {
		t.Fatal(err)
	}
	_, err := r.client.Kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if sent != "Bearer "+token {
		t.Fatalf("the plugin's token was not sent (Authorization %q, error %v)", sent, err)
	}
	r.log.Errorf("preflight", "cluster", "%s", r.client.Explain(err))
	if got := r.log.Scrub(err.Error()); strings.Contains(got, token) || !strings.Contains(got, "[redacted]") {
		t.Errorf("Scrub leaves the plugin's token: %q", got)
	}
	if got := logs.String(); strings.Contains(got, token) || !strings.Contains(got, "token [redacted] cannot list nodes") {
		t.Errorf("log line: %q", got)
	}
}
