package oracle

// The scripted API server at the ListerWatcher boundary and the run of a real
// client-go SharedIndexInformer, inside a testing/synctest bubble (virtual time).
// Semantics: docs/scenario-format.md.

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	goruntime "runtime"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// Profile is set at build time (-ldflags -X informer-inspector/oracle.Profile=v1.36).
var Profile = "dev"

var errStopped = errors.New("oracle: run ended")

// prepareBubble fixes client-go globals made at init, outside the bubble, that
// would break virtual time (see the compat_*.go files).
func prepareBubble() {
	fixNeverExit()
	fixErrorBackoff()
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

type call struct {
	verb  string
	query url.Values
	reply chan answer
}

// answer: the step that answers a call (nil: the run is over, the call never returns).
type answer struct {
	step *Step
}

// server holds the step plumbing between the HTTP side (tap, serveConn) and the step
// loop (runner.serve).
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

// do logs a reflector-level call (its first HTTP request) and waits for the step loop.
func (s *server) do(verb string, q url.Values) answer {
	select {
	case <-s.stopped:
		return answer{}
	default:
	}
	s.log.RequestQuery(verb, q)
	c := call{verb: verb, query: q, reply: make(chan answer, 1)}
	select {
	case s.calls <- c:
	case <-s.stopped:
		return answer{}
	}
	select {
	case a := <-c.reply:
		if a.step != nil {
			s.kicked()
		}
		return a
	case <-s.stopped:
		return answer{}
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
	t := &tap{srv: r.srv, next: r.newTransport()}
	inf, err := newInformer(t, sc.gvr(), ms(sc.Informer.ResyncPeriodMs), indexersOf(sc.Informer.Indexers), r.tweakOptions(t.beginCall))
	if err != nil {
		return Result{Err: err}
	}
	r.inf = inf
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
	t.next.(interface{ CloseIdleConnections() }).CloseIdleConnections()
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
			r.log.Divergence(st.On, c.verb, c.query.Get("resourceVersion"))
			return Result{Diverged: true}
		}
		r.idx++
		c.reply <- answer{step: st}
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
