package executor

import (
	"net/http"
	"strings"

	"k8s.io/client-go/rest"

	"github.com/platc/platc/executor/logging"
)

// tapCredentials makes every credential the client sends a secret the
// log redacts. A kubeconfig's token is known when it is loaded, but an
// exec credential plugin (EKS, GKE) or an auth provider makes its token
// only when the first request goes out, and an API error that echoed it
// was logged and reported in clear (issue 21). Wrappers set with Wrap sit
// inside the ones client-go adds for those plugins and for bearer token
// files, so the request seen here carries the final Authorization header.
func tapCredentials(rc *rest.Config, log *logging.Logger) {
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return credentialTap{rt, log} })
}

type credentialTap struct {
	next http.RoundTripper
	log  *logging.Logger
}

func (t credentialTap) RoundTrip(req *http.Request) (*http.Response, error) {
	if h := req.Header.Get("Authorization"); h != "" {
		// The whole header value, and the token or basic-auth blob after
		// the scheme: an error may quote either.
		t.log.Redact(h)
		if _, cred, ok := strings.Cut(h, " "); ok {
			t.log.Redact(strings.TrimSpace(cred))
		}
	}
	return t.next.RoundTrip(req)
}
