// Package step is what a generated workflow step runs in place of a shell
// script: `platc step sync-and-wait` converges one Argo CD Application
// through the Argo CD API server's REST API, with the automation
// account's token, and switches on its automated sync once it has
// converged when the platform asks for it.
//
// It talks to argocd-server over HTTP/1.1 (the REST gateway: argocd-server
// hands HTTP/2 on its port only to gRPC) with one keep-alive connection
// for its calls, plus one for a watch while it is open; it does not
// import Argo CD's client, whose dependency tree is larger than platc.
package step

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/http/httpproxy"
)

// Config is how a step reaches argocd-server: the variables the workflow
// templates set (emit/argo argocdEnv), the same the argocd CLI reads.
type Config struct {
	// Server is host:port (ARGOCD_SERVER).
	Server string
	// Token is the automation account's bearer token (ARGOCD_AUTH_TOKEN).
	Token string
	// PlainText speaks HTTP without TLS (--plaintext in ARGOCD_OPTS);
	// Insecure skips verifying the server's certificate (--insecure).
	PlainText, Insecure bool
	// Proxy, when set, picks a proxy per request; ConfigFromEnv sets it
	// from HTTPS_PROXY, HTTP_PROXY and ALL_PROXY (the variable the
	// argocd CLI dials through), minding NO_PROXY.
	Proxy func(*url.URL) (*url.URL, error)
}

// ConfigFromEnv reads Config from the environment. --grpc-web in
// ARGOCD_OPTS is accepted and means nothing here: the REST API is plain
// HTTP either way.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{Server: getenv("ARGOCD_SERVER"), Token: getenv("ARGOCD_AUTH_TOKEN")}
	if c.Server == "" {
		return c, errors.New("ARGOCD_SERVER is not set: the step template sets it from platform.argocd.server")
	}
	if c.Token == "" {
		return c, errors.New("ARGOCD_AUTH_TOKEN is empty: the step template fills it from platform.argocd.token_secret; check that the Secret holds the automation account's token")
	}
	for _, o := range strings.Fields(getenv("ARGOCD_OPTS")) {
		switch o {
		case "--plaintext":
			c.PlainText = true
		case "--insecure":
			c.Insecure = true
		case "--grpc-web":
		default:
			return c, fmt.Errorf("ARGOCD_OPTS: %q is not an option platc's steps know (--plaintext, --insecure, --grpc-web)", o)
		}
	}
	all := getenv("ALL_PROXY")
	pc := httpproxy.Config{
		HTTPProxy:  first(getenv("HTTP_PROXY"), all),
		HTTPSProxy: first(getenv("HTTPS_PROXY"), all),
		NoProxy:    getenv("NO_PROXY"),
	}
	if pc.HTTPProxy != "" || pc.HTTPSProxy != "" {
		c.Proxy = pc.ProxyFunc()
	}
	return c, nil
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// Client calls one argocd-server.
type Client struct {
	base  string
	token string
	http  *http.Client
}

// callTimeout bounds every call but a watch, as the scripts bounded every
// argocd call without a --timeout of its own.
const callTimeout = 300 * time.Second

// NewClient makes the one HTTP client of a step.
func NewClient(c Config) *Client {
	scheme := "https"
	if c.PlainText {
		scheme = "http"
	}
	t := &http.Transport{
		// argocd-server's port routes HTTP/2 only to gRPC, so the REST
		// gateway must be spoken to in HTTP/1.1, also over TLS.
		TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{},
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: c.Insecure, MinVersion: tls.VersionTLS12}, //nolint:gosec // platform.argocd.insecure asks for it
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     90 * time.Second,
	}
	if c.Proxy != nil {
		t.Proxy = func(r *http.Request) (*url.URL, error) { return c.Proxy(r.URL) }
	}
	return &Client{base: scheme + "://" + c.Server, token: c.Token, http: &http.Client{
		Transport: t,
		// A redirect is an answer, never followed: the step acts on the
		// one Application it was given, with its token sent nowhere else.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// APIError is an answer of argocd-server other than 2xx.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("HTTP %d", e.Status)
	}
	return fmt.Sprintf("%s (HTTP %d)", e.Message, e.Status)
}

func (c *Client) do(ctx context.Context, method, path string, query url.Values, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		var e struct {
			Message string `json:"message"`
			Error   string `json:"error"`
		}
		msg := strings.TrimSpace(string(b))
		if json.Unmarshal(b, &e) == nil {
			msg = first(e.Message, e.Error)
		}
		return nil, &APIError{Status: resp.StatusCode, Message: msg}
	}
	return resp, nil
}

// call does one bounded request and decodes its JSON answer into out.
func (c *Client) call(ctx context.Context, method, path string, query url.Values, body, out any) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := c.do(ctx, method, path, query, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	// Drain, so the connection goes back to the pool.
	_, _ = io.Copy(io.Discard, resp.Body)
	return nil
}

func appPath(name string) string { return "/api/v1/applications/" + url.PathEscape(name) }

// Get reads an Application. With refresh, argocd-server first asks the
// application controller to compare it again and answers once it has
// (argocd app get --refresh), so what is read is not stale.
func (c *Client) Get(ctx context.Context, name string, refresh bool) (*Application, error) {
	var q url.Values
	if refresh {
		q = url.Values{"refresh": {"normal"}}
	}
	var a Application
	return &a, c.call(ctx, http.MethodGet, appPath(name), q, nil, &a)
}

// Sync starts a sync operation of the Application at its target revision
// (argocd app sync without flags) and returns the Application as stored
// with the operation set.
func (c *Client) Sync(ctx context.Context, name string) (*Application, error) {
	var a Application
	return &a, c.call(ctx, http.MethodPost, appPath(name)+"/sync", nil, map[string]any{"name": name}, &a)
}

// Patch applies a JSON merge patch to the Application (RBAC action
// update).
func (c *Client) Patch(ctx context.Context, name string, patch any) (*Application, error) {
	p, err := json.Marshal(patch)
	if err != nil {
		return nil, err
	}
	var a Application
	return &a, c.call(ctx, http.MethodPatch, appPath(name), nil,
		map[string]any{"name": name, "patch": string(p), "patchType": "merge"}, &a)
}

// errWatchEnded is a watch stream that ended before its condition held:
// the caller watches again from the last version seen.
var errWatchEnded = errors.New("the watch ended")

// Watch streams the changes of one Application from resourceVersion on
// (argocd-server skips older versions and first sends the Application as
// it has it) and calls fn with each, until fn says done, fn fails, ctx
// ends or the stream does (errWatchEnded). It returns the last
// Application seen.
func (c *Client) Watch(ctx context.Context, name, resourceVersion string, fn func(*Application) (bool, error)) (*Application, error) {
	q := url.Values{"name": {name}}
	if resourceVersion != "" {
		q.Set("resourceVersion", resourceVersion)
	}
	resp, err := c.do(ctx, http.MethodGet, "/api/v1/stream/applications", q, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	var last *Application
	for {
		var ev struct {
			Result *struct {
				Type        string       `json:"type"`
				Application *Application `json:"application"`
			} `json:"result"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := dec.Decode(&ev); err != nil {
			if ctx.Err() != nil {
				return last, ctx.Err()
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return last, errWatchEnded
			}
			return last, fmt.Errorf("watching %s: %w", name, err)
		}
		if ev.Error != nil {
			return last, fmt.Errorf("watching %s: %s", name, ev.Error.Message)
		}
		if ev.Result == nil || ev.Result.Application == nil {
			continue
		}
		if ev.Result.Type == "DELETED" {
			return last, fmt.Errorf("the Application %s was deleted while the step waited for it", name)
		}
		last = ev.Result.Application
		done, err := fn(last)
		if err != nil || done {
			return last, err
		}
	}
}
