package oracle

// The scripted API server at the ListerWatcher boundary and the run of a real
// client-go SharedIndexInformer, inside a testing/synctest bubble (virtual time).
// Semantics: docs/scenario-format.md.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing/synctest"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// Profile is set at build time (-ldflags -X informer-inspector/oracle.Profile=v1.36).
var Profile = "dev"

var errStopped = errors.New("oracle: run ended")

const defaultStreamDurationMs = 1500

// prepareBubble fixes client-go globals made at init, outside the bubble, that
// would break virtual time (see the compat_*.go files).
func prepareBubble() {
	fixNeverExit()
	fixErrorBackoff()
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

type call struct {
	verb  string
	opts  metav1.ListOptions
	reply chan answer
}

type answer struct {
	obj   runtime.Object
	w     watch.Interface
	err   error
	delay time.Duration
}

// server is the scripted ListerWatcher. It deliberately does not implement
// IsWatchListSemanticsUnSupported, so the reflector uses watch-list when the
// WatchListClient gate is on (like a real clientset).
type server struct {
	log     *Log
	calls   chan call
	stopped chan struct{}
	// kick is signalled whenever the server hands the informer something (an answer, a
	// watch event, a stream's end): the only moments HasSynced can turn true.
	kick chan struct{}
}

func (s *server) kicked() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func (s *server) List(o metav1.ListOptions) (runtime.Object, error) {
	a := s.do("list", o)
	if a.err != nil {
		return nil, a.err
	}
	return a.obj, nil
}

func (s *server) Watch(o metav1.ListOptions) (watch.Interface, error) {
	a := s.do("watch", o)
	if a.err != nil {
		return nil, a.err
	}
	return a.w, nil
}

func (s *server) do(verb string, o metav1.ListOptions) answer {
	select {
	case <-s.stopped:
		return answer{err: errStopped}
	default:
	}
	s.log.Request(verb, o)
	c := call{verb: verb, opts: o, reply: make(chan answer, 1)}
	select {
	case s.calls <- c:
	case <-s.stopped:
		return answer{err: errStopped}
	}
	select {
	case a := <-c.reply:
		if a.delay > 0 {
			t := time.NewTimer(a.delay)
			defer t.Stop()
			select {
			case <-t.C:
			case <-s.stopped:
				return answer{err: errStopped}
			}
		}
		s.kicked()
		return a
	case <-s.stopped:
		return answer{err: errStopped}
	}
}

// Result of one run.
type Result struct {
	Diverged bool
	Err      error // internal problem (not bad input)
}

type runner struct {
	sc    *Scenario
	log   *Log
	srv   *server
	inf   cache.SharedIndexInformer
	busy  busyHandlers
	idx   int
	limit time.Duration
	ext   *extensions // actions.go
}

// waitIdle returns once every goroutine of the informer is blocked and no handler call is in
// progress: queues drained, every handler has returned (docs/scenario-format.md, "idle").
// Virtual time moves on while a slow handler sleeps.
func (r *runner) waitIdle() {
	for {
		synctest.Wait()
		ch := r.busy.idleCh()
		if ch == nil {
			return
		}
		<-ch
	}
}

// Run replays the scenario. It must be called inside a synctest bubble.
func Run(sc *Scenario, log *Log) Result {
	r := &runner{sc: sc, log: log}
	log.Start()
	r.srv = &server{log: log, calls: make(chan call), stopped: make(chan struct{}), kick: make(chan struct{}, 1)}
	log.onNotify = r.srv.kicked
	var maxDur int64
	for _, st := range sc.Steps {
		if st.DurationMs != nil && *st.DurationMs > maxDur {
			maxDur = *st.DurationMs
		}
		for _, ev := range st.Events {
			if ev.AtMs != nil && *ev.AtMs > maxDur {
				maxDur = *ev.AtMs
			}
		}
	}
	r.limit = time.Hour + ms(maxDur)

	prepareBubble()
	r.inf = cache.NewSharedIndexInformer(r.listerWatcher(), &unstructured.Unstructured{}, ms(sc.Informer.ResyncPeriodMs), indexersOf(sc.Informer.Indexers))
	if err := r.initExtensions(); err != nil {
		return Result{Err: err}
	}
	for i := range sc.Informer.Handlers {
		if err := r.addHandler(&sc.Informer.Handlers[i]); err != nil {
			return Result{Err: err}
		}
	}
	stop := make(chan struct{})
	runDone := make(chan struct{})
	go func() {
		defer close(runDone)
		r.inf.Run(stop)
	}()
	actionsDone := make(chan struct{})
	go func() {
		defer close(actionsDone)
		r.runActions(log.start, stop)
	}()
	// synced: after each kick, once everything at that instant has settled (a 1 ns timer
	// fires only when every goroutine of the bubble is blocked), look at HasSynced. The line
	// gets the instant of the kick: "t" is rounded to the microsecond.
	pollDone := make(chan struct{})
	go func() {
		defer close(pollDone)
		for {
			select {
			case <-r.srv.kick:
			case <-stop:
				return
			}
			time.Sleep(time.Nanosecond)
			if r.inf.HasSynced() {
				log.Synced()
				return
			}
		}
	}()

	res := r.serve(runDone)

	// End of run: wait until the informer is idle, stop it, wait for its tasks.
	r.waitIdle()
	if r.inf.HasSynced() {
		log.Synced()
	}
	stoppedAt := time.Now()
	close(r.srv.stopped)
	close(stop)
	<-runDone
	<-pollDone
	<-actionsDone
	synctest.Wait()
	if ix := r.indexDump(); ix != nil {
		log.Index(stoppedAt, ix)
	}
	final := map[string]string{}
	for _, obj := range r.inf.GetStore().List() {
		key, err := cache.MetaNamespaceKeyFunc(obj)
		if err != nil {
			key = "?" + err.Error()
		}
		final[key] = Digest(obj)
	}
	log.Store(stoppedAt, final)
	log.End(stoppedAt)
	return res
}

func (r *runner) serve(runDone <-chan struct{}) Result {
	for {
		var c call
		t := time.NewTimer(r.limit)
		select {
		case c = <-r.srv.calls:
			t.Stop()
		case <-runDone:
			t.Stop()
			return Result{Err: errors.New("informer stopped by itself")}
		case <-r.ext.stopNow:
			t.Stop()
			return Result{} // a stop action: the run ends now
		case <-t.C:
			if os.Getenv("ORACLE_VERBOSITY") != "" {
				buf := make([]byte, 1<<20)
				os.Stderr.Write(buf[:goruntime.Stack(buf, true)])
			}
			return Result{Err: fmt.Errorf("no request from the informer for %v of virtual time (step %d)", r.limit, r.idx)}
		}
		for r.idx < len(r.sc.Steps) {
			st := &r.sc.Steps[r.idx]
			if st.kind == "advance" {
				if !r.sleep(ms(*st.AdvanceMs)) {
					return Result{}
				}
			} else if st.kind == "addHandler" {
				r.waitIdle()
				if err := r.addHandler(st.AddHandler); err != nil {
					return Result{Err: err}
				}
			} else {
				break
			}
			r.idx++
		}
		if r.idx >= len(r.sc.Steps) {
			return Result{} // the pending call never returns (until stop)
		}
		st := &r.sc.Steps[r.idx]
		if st.On != c.verb {
			r.log.Divergence(st.On, c.verb, c.opts.ResourceVersion)
			return Result{Diverged: true}
		}
		r.idx++
		c.reply <- r.answer(st, c)
	}
}

func (r *runner) addHandler(h *HandlerSpec) error {
	resync := ms(r.sc.Informer.ResyncPeriodMs)
	if h.ResyncPeriodMs != nil {
		resync = ms(*h.ResyncPeriodMs)
	}
	var delay time.Duration
	if h.DelayMs != nil {
		delay = ms(*h.DelayMs)
	}
	r.log.Handler(h.Name)
	reg, err := addHandler(r.inf, &logHandler{name: h.Name, log: r.log, delay: delay, busy: &r.busy}, resync)
	r.ext.remember(h.Name, reg)
	return err
}

// ---- answers ----

func (r *runner) object(o map[string]interface{}) *unstructured.Unstructured {
	obj := runtime.DeepCopyJSON(o)
	if _, ok := obj["apiVersion"]; !ok {
		obj["apiVersion"] = r.sc.Resource.APIVersion
	}
	if _, ok := obj["kind"]; !ok {
		obj["kind"] = r.sc.Resource.Kind
	}
	return &unstructured.Unstructured{Object: obj}
}

func (r *runner) answer(st *Step, c call) answer {
	switch st.kind {
	case "list":
		l := &unstructured.UnstructuredList{Object: map[string]interface{}{
			"apiVersion": r.sc.Resource.APIVersion,
			"kind":       r.sc.Resource.Kind + "List",
		}}
		if st.ListTypeMeta != nil {
			l.SetAPIVersion(st.ListTypeMeta.APIVersion)
			l.SetKind(st.ListTypeMeta.Kind)
		}
		if st.ResourceVersion != nil {
			l.SetResourceVersion(*st.ResourceVersion)
		}
		if st.Continue != "" {
			l.SetContinue(st.Continue)
		}
		l.Items = []unstructured.Unstructured{}
		for _, it := range st.Items {
			l.Items = append(l.Items, *r.object(it))
		}
		return answer{obj: l}
	case "listError", "watchError":
		return answer{err: &apierrors.StatusError{ErrStatus: *statusFor(st.Error)}}
	case "network":
		u := r.requestURL(c)
		switch st.Network {
		case "connection-refused":
			return answer{err: &url.Error{Op: "Get", URL: u, Err: &net.OpError{
				Op: "dial", Net: "tcp", Addr: serverAddr,
				Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}}
		default: // connection-reset, timeout
			if c.verb == "watch" {
				if empty, d := watchTransportFailure(st.Network); empty {
					if st.DurationMs != nil {
						d = *st.DurationMs
					}
					return answer{w: closedWatcher(), delay: ms(d)}
				}
			}
			if st.Network == "timeout" {
				return answer{err: &url.Error{Op: "Get", URL: u, Err: context.DeadlineExceeded}}
			}
			return answer{err: &url.Error{Op: "Get", URL: u, Err: &net.OpError{
				Op: "read", Net: "tcp", Source: clientAddr, Addr: serverAddr,
				Err: os.NewSyscallError("read", syscall.ECONNRESET)}}}
		}
	case "stream":
		return answer{w: r.newStream(st)}
	}
	panic("unreachable step kind " + st.kind)
}

var (
	serverAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 6443}
	clientAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 51234}
)

func (r *runner) requestURL(c call) string {
	res := r.sc.Resource
	path := "/api/" + res.APIVersion
	if strings.Contains(res.APIVersion, "/") {
		path = "/apis/" + res.APIVersion
	}
	path += "/" + res.Resource
	q := url.Values{}
	if c.opts.AllowWatchBookmarks {
		q.Set("allowWatchBookmarks", "true")
	}
	if c.opts.Continue != "" {
		q.Set("continue", c.opts.Continue)
	}
	if c.opts.Limit > 0 {
		q.Set("limit", strconv.FormatInt(c.opts.Limit, 10))
	}
	q.Set("resourceVersion", c.opts.ResourceVersion)
	if m := rvMatch(c.opts); m != "" {
		q.Set("resourceVersionMatch", m)
	}
	if sendInitialEvents(c.opts) {
		q.Set("sendInitialEvents", "true")
	}
	if c.opts.TimeoutSeconds != nil {
		q.Set("timeoutSeconds", strconv.FormatInt(*c.opts.TimeoutSeconds, 10))
	}
	if c.verb == "watch" {
		q.Set("watch", "true")
	}
	return "https://127.0.0.1:6443" + path + "?" + q.Encode()
}

func statusFor(e *ErrorSpec) *metav1.Status {
	st := &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Code:     e.Code,
		Reason:   metav1.StatusReason(e.Reason),
		Message:  e.Message,
	}
	if len(e.Causes) > 0 || e.RetryAfterSeconds > 0 {
		st.Details = &metav1.StatusDetails{RetryAfterSeconds: e.RetryAfterSeconds}
		for _, c := range e.Causes {
			t := c.Type
			if t == "" {
				t = c.Reason
			}
			st.Details.Causes = append(st.Details.Causes, metav1.StatusCause{Type: metav1.CauseType(t), Message: c.Message, Field: c.Field})
		}
	}
	return st
}

// decodeErrorStatus is what StreamWatcher sends on an undecodable frame.
func decodeErrorStatus(msg string) runtime.Object {
	return apierrors.NewClientErrorReporter(500, "GET", "ClientWatchDecoding").
		AsObject(fmt.Errorf("unable to decode an event from the watch stream: %s", msg))
}

type timedEvent struct {
	at time.Duration
	ev watch.Event
}

// scriptedWatcher delivers events, then ends as the step's close says.
type scriptedWatcher struct {
	result chan watch.Event
	stop   chan struct{}
	once   sync.Once
}

func (w *scriptedWatcher) Stop()                          { w.once.Do(func() { close(w.stop) }) }
func (w *scriptedWatcher) ResultChan() <-chan watch.Event { return w.result }

func closedWatcher() watch.Interface {
	w := &scriptedWatcher{result: make(chan watch.Event), stop: make(chan struct{})}
	close(w.result)
	return w
}

func (r *runner) newStream(st *Step) watch.Interface {
	var evs []timedEvent
	var last time.Duration
	for _, e := range st.Events {
		var at time.Duration
		if e.AtMs != nil {
			at = ms(*e.AtMs)
		}
		if at < last {
			at = last // events are delivered in order
		}
		last = at
		var obj runtime.Object
		if e.Type == "ERROR" && isStatusJSON(e.Object) {
			obj = statusFromJSON(e.Object)
		} else {
			obj = r.object(e.Object)
		}
		evs = append(evs, timedEvent{at: at, ev: watch.Event{Type: watch.EventType(e.Type), Object: obj}})
	}
	dur := ms(defaultStreamDurationMs)
	if st.DurationMs != nil {
		dur = ms(*st.DurationMs)
	}
	if dur < last {
		dur = last
	}
	switch st.Close {
	case "error":
		evs = append(evs, timedEvent{at: dur, ev: watch.Event{Type: watch.Error, Object: statusFor(st.Error)}})
	case "decode-error":
		msg := "invalid character 'x' looking for beginning of value"
		if st.Error != nil && st.Error.Message != "" {
			msg = st.Error.Message
		}
		evs = append(evs, timedEvent{at: dur, ev: watch.Event{Type: watch.Error, Object: decodeErrorStatus(msg)}})
	}
	w := &scriptedWatcher{result: make(chan watch.Event), stop: make(chan struct{})}
	open := time.Now()
	sleepUntil := func(d time.Duration) bool {
		wait := time.Until(open.Add(d))
		if wait <= 0 {
			return true
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
			return true
		case <-w.stop:
			return false
		}
	}
	go func() {
		defer close(w.result)
		for _, e := range evs {
			if !sleepUntil(e.at) {
				return
			}
			select {
			case w.result <- e.ev:
				r.srv.kicked()
			case <-w.stop:
				return
			}
		}
		sleepUntil(dur)
		r.srv.kicked() // the stream ends (deferred close)
	}()
	return w
}

// isStatusJSON: an ERROR event's object is a Status when its kind is "Status", or
// when it has no kind and no metadata.name. Otherwise it is delivered as an object of
// the scenario's resource (spec §1.10 row 20, "unexpected object").
func isStatusJSON(o map[string]interface{}) bool {
	if k, ok := o["kind"]; ok {
		return k == "Status"
	}
	if md, ok := o["metadata"].(map[string]interface{}); ok {
		if n, _ := md["name"].(string); n != "" {
			return false
		}
	}
	return true
}

func statusFromJSON(o map[string]interface{}) runtime.Object {
	b, _ := json.Marshal(o)
	st := &metav1.Status{}
	if err := json.Unmarshal(b, st); err != nil {
		return &unstructured.Unstructured{Object: runtime.DeepCopyJSON(o)}
	}
	if st.Kind == "" {
		st.Kind = "Status"
		st.APIVersion = "v1"
	}
	return st
}
