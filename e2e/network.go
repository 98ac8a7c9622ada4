package e2e

import (
	"bufio"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// network is the simulated part of the cluster network, and of the
// internet the platform names. There is no cluster DNS, kube-proxy or
// internet here, so two proxies stand in for them:
//
//   - a SOCKS5 proxy, which the argocd CLI in the step processes uses
//     (ALL_PROXY; the CLI dials its gRPC connection through
//     golang.org/x/net/proxy, which reads that variable), and
//   - an HTTP proxy with CONNECT, which Argo CD's repo-server uses for
//     Helm repositories (Go's HTTP client) and Git (git through curl)
//     (HTTPS_PROXY).
//
// Both route by the address the client asked for: a Service address
// (argocd-server.argocd.svc:443) is tunnelled to the loopback process
// that plays it; a site (the hosts of the platform's chart and Git
// repositories) is answered by the environment's own HTTP handler over
// TLS with a certificate from the environment's CA. Anything else is
// refused, as the machine has no internet. The clients keep their
// generated addresses and URLs: nothing platc emitted is rewritten.
type network struct {
	ca *ca

	mu       sync.RWMutex
	services map[string]string       // "host:port" → loopback address
	sites    map[string]http.Handler // host → handler

	socks, httpProxy net.Listener
	wg               sync.WaitGroup
	// refused counts connections to addresses nobody plays, for the
	// failure messages of the environment.
	refusedMu sync.Mutex
	refused   map[string]int
}

func newNetwork(ca *ca) (*network, error) {
	n := &network{ca: ca, services: map[string]string{}, sites: map[string]http.Handler{}, refused: map[string]int{}}
	var err error
	if n.socks, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, err
	}
	if n.httpProxy, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		n.socks.Close()
		return nil, err
	}
	n.serve(n.socks, n.handleSOCKS)
	n.serve(n.httpProxy, n.handleHTTPProxy)
	return n, nil
}

// SOCKSURL is what ALL_PROXY is set to for the step processes.
func (n *network) SOCKSURL() string { return "socks5://" + n.socks.Addr().String() }

// ProxyURL is what HTTPS_PROXY is set to for the repo-server.
func (n *network) ProxyURL() string { return "http://" + n.httpProxy.Addr().String() }

// service makes addr ("host:port", as clients write it) reach target.
func (n *network) service(addr, target string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.services[strings.ToLower(addr)] = target
}

// site makes host (any port) answer with h, over TLS for port 443 and
// CONNECT, in clear for plain http:// requests.
func (n *network) site(host string, h http.Handler) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sites[strings.ToLower(host)] = h
}

func (n *network) close() {
	n.socks.Close()
	n.httpProxy.Close()
	n.wg.Wait()
}

func (n *network) serve(l net.Listener, handle func(net.Conn)) {
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go handle(c)
		}
	}()
}

// route says what serves addr: a loopback address to tunnel to, or a
// handler to answer with.
func (n *network) route(addr string) (target string, h http.Handler, ok bool) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", nil, false
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	if t, ok := n.services[strings.ToLower(addr)]; ok {
		return t, nil, true
	}
	if h, ok := n.sites[strings.ToLower(host)]; ok {
		return "", h, true
	}
	return "", nil, false
}

func (n *network) refuse(addr string) {
	n.refusedMu.Lock()
	n.refused[addr]++
	n.refusedMu.Unlock()
}

// Refused lists the addresses clients asked for and nobody plays.
func (n *network) Refused() map[string]int {
	n.refusedMu.Lock()
	defer n.refusedMu.Unlock()
	out := make(map[string]int, len(n.refused))
	for k, v := range n.refused {
		out[k] = v
	}
	return out
}

// connect serves an established client connection to addr.
func (n *network) connect(c net.Conn, addr, target string, h http.Handler) {
	if target != "" {
		up, err := net.DialTimeout("tcp", target, 10*time.Second)
		if err != nil {
			c.Close()
			return
		}
		pipe(c, up)
		return
	}
	// A site: terminate TLS as the host, then answer HTTP/1.1.
	tc := tls.Server(c, &tls.Config{
		NextProtos: []string{"http/1.1"},
		GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
			name := hello.ServerName
			if name == "" {
				name, _, _ = net.SplitHostPort(addr)
			}
			return n.ca.leaf(name)
		},
	})
	serveConn(tc, h)
}

// serveConn answers HTTP requests on one connection with h.
func serveConn(c net.Conn, h http.Handler) {
	l := &oneConn{c: c, done: make(chan struct{})}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second,
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateClosed || s == http.StateHijacked {
				l.close()
			}
		}}
	_ = srv.Serve(l)
}

// oneConn is a listener that yields one connection, then blocks until it
// is closed.
type oneConn struct {
	c    net.Conn
	once sync.Once
	used bool
	done chan struct{}
}

func (l *oneConn) Accept() (net.Conn, error) {
	if !l.used {
		l.used = true
		return l.c, nil
	}
	<-l.done
	return nil, net.ErrClosed
}
func (l *oneConn) close()         { l.once.Do(func() { close(l.done) }) }
func (l *oneConn) Close() error   { l.close(); return nil }
func (l *oneConn) Addr() net.Addr { return l.c.LocalAddr() }

func pipe(a, b net.Conn) {
	var wg sync.WaitGroup
	wg.Add(2)
	cp := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		} else {
			dst.Close()
		}
	}
	go cp(a, b)
	go cp(b, a)
	wg.Wait()
	a.Close()
	b.Close()
}

// handleSOCKS speaks the CONNECT part of SOCKS5 (RFC 1928), without
// authentication: all the argocd CLI needs.
func (n *network) handleSOCKS(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReader(c)
	addr, err := readSOCKS(r, c)
	if err != nil {
		c.Close()
		return
	}
	target, h, ok := n.route(addr)
	if !ok {
		n.refuse(addr)
		// 0x02: connection not allowed by ruleset.
		_, _ = c.Write([]byte{5, 2, 0, 1, 0, 0, 0, 0, 0, 0})
		c.Close()
		return
	}
	if _, err := c.Write([]byte{5, 0, 0, 1, 0, 0, 0, 0, 0, 0}); err != nil {
		c.Close()
		return
	}
	_ = c.SetDeadline(time.Time{})
	n.connect(&bufConn{Conn: c, r: r}, addr, target, h)
}

// readSOCKS reads a SOCKS5 greeting and CONNECT request and returns the
// address asked for.
func readSOCKS(r *bufio.Reader, w io.Writer) (string, error) {
	hdr := make([]byte, 2)
	if _, err := io.ReadFull(r, hdr); err != nil || hdr[0] != 5 {
		return "", errors.New("not SOCKS5")
	}
	if _, err := io.ReadFull(r, make([]byte, hdr[1])); err != nil {
		return "", err
	}
	if _, err := w.Write([]byte{5, 0}); err != nil { // no authentication
		return "", err
	}
	req := make([]byte, 4)
	if _, err := io.ReadFull(r, req); err != nil || req[0] != 5 || req[1] != 1 {
		return "", errors.New("not a SOCKS5 CONNECT")
	}
	var host string
	switch req[3] {
	case 1:
		b := make([]byte, 4)
		if _, err := io.ReadFull(r, b); err != nil {
			return "", err
		}
		host = net.IP(b).String()
	case 3:
		l, err := r.ReadByte()
		if err != nil {
			return "", err
		}
		b := make([]byte, l)
		if _, err := io.ReadFull(r, b); err != nil {
			return "", err
		}
		host = string(b)
	case 4:
		b := make([]byte, 16)
		if _, err := io.ReadFull(r, b); err != nil {
			return "", err
		}
		host = net.IP(b).String()
	default:
		return "", fmt.Errorf("SOCKS5 address type %d", req[3])
	}
	pb := make([]byte, 2)
	if _, err := io.ReadFull(r, pb); err != nil {
		return "", err
	}
	return net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(pb)))), nil
}

// handleHTTPProxy serves CONNECT tunnels and plain http:// requests.
func (n *network) handleHTTPProxy(c net.Conn) {
	r := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	req, err := http.ReadRequest(r)
	if err != nil {
		c.Close()
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	if req.Method == http.MethodConnect {
		addr := req.Host
		target, h, ok := n.route(addr)
		if !ok {
			n.refuse(addr)
			_, _ = io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
			c.Close()
			return
		}
		if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
			c.Close()
			return
		}
		n.connect(&bufConn{Conn: c, r: r}, addr, target, h)
		return
	}
	// A plain http:// request in absolute form: answer it here when the
	// host is a site, in clear.
	host := req.URL.Hostname()
	port := req.URL.Port()
	if port == "" {
		port = "80"
	}
	_, h, ok := n.route(net.JoinHostPort(host, port))
	if !ok || h == nil {
		n.refuse(net.JoinHostPort(host, port))
		_, _ = io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		c.Close()
		return
	}
	// Hand the connection, with the request already read, to a server.
	serveConn(&replayConn{bufConn: bufConn{Conn: c, r: r}, first: req}, h)
}

// bufConn is a connection whose first bytes were read through r.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// replayConn replays an already parsed request before the rest of the
// connection, so an http.Server can read it again.
type replayConn struct {
	bufConn
	first *http.Request
	buf   []byte
	done  bool
}

func (c *replayConn) Read(p []byte) (int, error) {
	if !c.done {
		c.done = true
		// Re-serialise the request in origin form.
		c.first.RequestURI = ""
		var b strings.Builder
		_ = c.first.Write(&b)
		c.buf = []byte(b.String())
	}
	if len(c.buf) > 0 {
		k := copy(p, c.buf)
		c.buf = c.buf[k:]
		return k, nil
	}
	return c.bufConn.Read(p)
}
