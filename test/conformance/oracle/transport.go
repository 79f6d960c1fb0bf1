package oracle

// The scripted API server below client-go's REST client: every HTTP request the
// REST client sends goes through tap.RoundTrip (the scenario's step logic) and then
// through a real net/http Transport whose connections are in-memory pipes to a small
// HTTP/1.1 server goroutine (serveConn). Everything above the connection — the REST
// client's retries and Retry-After waits, status decoding, error wrapping, chunked and
// gzip bodies, the watch stream decoder — is client-go's and net/http's own code.
// Semantics: docs/scenario-format.md ("One step per reflector-level call").

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

var (
	serverAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 6443}
	clientAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 51234}
)

// The host the REST client is configured with; the dialer never resolves it.
const scenarioHost = "http://scenario.invalid"

type planKey struct{}

// tap sits between the REST client and the real http.Transport. The first HTTP
// request after the informer's ListerWatcher starts a call (beginCall, from the
// informer's tweakListOptions) is that call's request: it is logged and answered by the
// next step. Later requests before the next call are the REST client's own retries of
// the same call: the same step answers them again (the server is in the same state).
type tap struct {
	srv  *server
	next http.RoundTripper

	mu      sync.Mutex
	newCall bool
	cur     *Step
	verb    string
}

func (t *tap) beginCall() {
	t.mu.Lock()
	t.newCall = true
	t.mu.Unlock()
}

func (t *tap) RoundTrip(req *http.Request) (*http.Response, error) {
	q := req.URL.Query()
	verb := "list"
	if q.Get("watch") == "true" || q.Get("watch") == "1" {
		verb = "watch"
	}
	t.mu.Lock()
	first := t.newCall || t.cur == nil || t.verb != verb
	t.newCall = false
	cur := t.cur
	t.mu.Unlock()
	if first {
		a := t.srv.do(verb, q)
		if a.step == nil {
			return nil, errStopped
		}
		cur = a.step
		t.mu.Lock()
		t.cur, t.verb = cur, verb
		t.mu.Unlock()
	} else {
		select {
		case <-t.srv.stopped:
			return nil, errStopped
		default:
		}
	}
	return t.next.RoundTrip(req.WithContext(context.WithValue(req.Context(), planKey{}, cur)))
}

// newTransport: the real net/http Transport over in-memory connections. Keep-alive is
// off, so every request dials (a refusal can answer any request) and no request is
// retried by net/http itself on a reused connection.
func (r *runner) newTransport() *http.Transport {
	return &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			st, _ := ctx.Value(planKey{}).(*Step)
			if st == nil {
				return nil, fmt.Errorf("oracle: dial without a step")
			}
			if st.kind == "network" && st.Network == "connection-refused" {
				return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: serverAddr,
					Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
			}
			c, s := net.Pipe()
			cc := &clientConn{Conn: c}
			go r.serveConn(s, cc, st)
			return cc, nil
		},
	}
}

// clientConn is the client's end of the pipe. When the server breaks the connection
// with an error (reset, timeout) the client's next read or write returns that error,
// as a kernel socket would, instead of the pipe's io.EOF.
type clientConn struct {
	net.Conn
	mu  sync.Mutex
	err error
}

func (c *clientConn) fail(err error) {
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
}

func (c *clientConn) broken(err error) error {
	if err == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	return err
}

func (c *clientConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	return n, c.broken(err)
}

func (c *clientConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	return n, c.broken(err)
}

func (c *clientConn) LocalAddr() net.Addr  { return clientAddr }
func (c *clientConn) RemoteAddr() net.Addr { return serverAddr }

// The errors a TCP socket's read returns when the peer resets the connection, or when
// the connection times out (Timeout() is true).
func socketError(network string) error {
	errno := syscall.ECONNRESET
	if network == "timeout" {
		errno = syscall.ETIMEDOUT
	}
	return &net.OpError{Op: "read", Net: "tcp", Source: clientAddr, Addr: serverAddr,
		Err: os.NewSyscallError("read", errno)}
}

// conn is the server's end of one connection.
type conn struct {
	r    *runner
	s    net.Conn
	cc   *clientConn
	w    *bufio.Writer
	body io.Writer // the response body writer (chunked, maybe gzip)
	gz   *gzip.Writer
	cw   *chunkWriter
	sent int64 // body bytes written (before compression)
	cut  int64 // break the connection after this many body bytes (-1: never)
}

func (r *runner) serveConn(s net.Conn, cc *clientConn, st *Step) {
	c := &conn{r: r, s: s, cc: cc, w: bufio.NewWriter(s), cut: -1}
	defer s.Close()
	// Read the whole request (the client's write blocks until it is read).
	if _, err := http.ReadRequest(bufio.NewReader(s)); err != nil {
		return
	}
	if st.CutAtByte != nil {
		c.cut = *st.CutAtByte
	}
	switch st.kind {
	case "network":
		// durationMs: how long the connection stays open before it fails (each attempt).
		if st.DurationMs != nil && !r.srv.sleepOrStop(ms(*st.DurationMs)) {
			return
		}
		c.breakWith(st.Network)
	case "listError", "watchError":
		c.whole(int(st.Error.Code), r.statusHeaders(st.Error), mustJSON(statusFor(st.Error)), st.Gzip)
	case "list":
		c.whole(http.StatusOK, nil, mustJSON(r.listObject(st)), st.Gzip)
	case "stream":
		r.stream(c, st)
	}
}

// statusHeaders: the apiserver sends Retry-After when the Status carries retryAfterSeconds
// (apiserver responsewriters.ErrorNegotiated).
func (r *runner) statusHeaders(e *ErrorSpec) http.Header {
	h := http.Header{}
	if e.RetryAfterSeconds > 0 {
		h.Set("Retry-After", strconv.Itoa(int(e.RetryAfterSeconds)))
	}
	return h
}

func (c *conn) breakWith(network string) {
	c.w.Flush()
	c.cc.fail(socketError(network))
	c.s.Close()
}

func (c *conn) header(code int, h http.Header, chunked, gz bool, length int) {
	text := http.StatusText(code)
	if text == "" {
		text = "status code " + strconv.Itoa(code)
	}
	fmt.Fprintf(c.w, "HTTP/1.1 %d %s\r\n", code, text)
	fmt.Fprintf(c.w, "Content-Type: application/json\r\n")
	for k, vs := range h {
		for _, v := range vs {
			fmt.Fprintf(c.w, "%s: %s\r\n", k, v)
		}
	}
	if gz {
		fmt.Fprintf(c.w, "Content-Encoding: gzip\r\n")
	}
	if chunked {
		fmt.Fprintf(c.w, "Transfer-Encoding: chunked\r\n")
	} else {
		fmt.Fprintf(c.w, "Content-Length: %d\r\n", length)
	}
	fmt.Fprintf(c.w, "Connection: close\r\n\r\n")
}

// whole writes a complete response with a Content-Length body (cut when the step says).
func (c *conn) whole(code int, h http.Header, body []byte, gz bool) {
	if gz {
		var b bytesBuffer
		z := gzip.NewWriter(&b)
		z.Write(body)
		z.Close()
		body = b.b
	}
	c.header(code, h, false, gz, len(body))
	if c.cut >= 0 && c.cut < int64(len(body)) {
		c.w.Write(body[:c.cut])
		c.w.Flush()
		c.s.Close() // the client reads io.ErrUnexpectedEOF for the rest of the body
		return
	}
	c.w.Write(body)
	c.w.Flush()
}

type bytesBuffer struct{ b []byte }

func (b *bytesBuffer) Write(p []byte) (int, error) { b.b = append(b.b, p...); return len(p), nil }

// chunkWriter writes HTTP/1.1 chunks and flushes each one to the client.
type chunkWriter struct{ c *conn }

func (w *chunkWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	fmt.Fprintf(w.c.w, "%x\r\n", len(p))
	w.c.w.Write(p)
	w.c.w.WriteString("\r\n")
	return len(p), w.c.w.Flush()
}

// startStream sends the 200 header of a watch; the body is chunked (and gzip when asked).
func (c *conn) startStream(gz bool) error {
	c.header(http.StatusOK, nil, true, gz, 0)
	c.cw = &chunkWriter{c: c}
	c.body = c.cw
	if gz {
		c.gz = gzip.NewWriter(c.cw)
		c.body = c.gz
	}
	return c.w.Flush()
}

// send writes body bytes; when the step's cut point falls inside them, only the bytes
// before it are sent and the connection is closed (false: the stream is over).
func (c *conn) send(p []byte) bool {
	if c.cut >= 0 && c.sent+int64(len(p)) > c.cut {
		part := p[:c.cut-c.sent]
		c.sent = c.cut
		if len(part) > 0 {
			c.body.Write(part)
			if c.gz != nil {
				c.gz.Flush()
			}
		}
		c.s.Close()
		return false
	}
	c.sent += int64(len(p))
	if _, err := c.body.Write(p); err != nil {
		return false
	}
	if c.gz != nil {
		if err := c.gz.Flush(); err != nil {
			return false
		}
	}
	return true
}

// finish ends the body cleanly (gzip trailer, last chunk).
func (c *conn) finish() {
	if c.gz != nil {
		c.gz.Close()
	}
	c.w.WriteString("0\r\n\r\n")
	c.w.Flush()
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// sleepOrStop waits d of virtual time; false when the run stopped first.
func (s *server) sleepOrStop(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.stopped:
		return false
	}
}

// newClient is the dynamic client every informer of the run uses, its REST client's
// transport t.
func newClient(t *tap) (dynamic.Interface, error) {
	client, err := dynamic.NewForConfig(&rest.Config{Host: scenarioHost, Transport: t})
	if err != nil {
		return nil, fmt.Errorf("dynamic client: %v", err)
	}
	return client, nil
}

// newInformer builds the informer exactly as client-go's dynamic informer factory does
// (dynamicinformer.NewFilteredDynamicInformer: the dynamic client's List/Watch in a
// cache.ListWatch). tweak runs at the start of every List/Watch call of the reflector (the
// factory's tweakListOptions hook, which also sets the selectors).
func newInformer(client dynamic.Interface, gvr schema.GroupVersionResource, resync time.Duration, indexers cache.Indexers, tweak func(*metav1.ListOptions)) cache.SharedIndexInformer {
	return dynamicinformer.NewFilteredDynamicInformer(client, gvr, metav1.NamespaceAll, resync, indexers, tweak).Informer()
}
