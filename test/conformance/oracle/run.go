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
	"sync"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
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
	sc     *Scenario
	log    *Log
	srv    *server
	tap    *tap
	client dynamic.Interface
	busy   busyHandlers
	idx    int
	limit  time.Duration
	ext    *extensions // actions.go

	infMu   sync.Mutex
	inf     cache.SharedIndexInformer // the current informer (cur.inf)
	cur     *instance
	all     []*instance     // every informer of the run, the current one last
	pollers []chan struct{} // one synced poller per informer
	// exited is closed when the current informer's Run returns although nobody stopped it.
	exited   chan struct{}
	exitOnce sync.Once
}

// instance is one informer of the run: the first, or the fresh one of a restart action.
type instance struct {
	inf  cache.SharedIndexInformer
	stop chan struct{}
	done chan struct{}
}

// current is the informer actions and the end of run act on.
func (r *runner) current() cache.SharedIndexInformer {
	r.infMu.Lock()
	defer r.infMu.Unlock()
	return r.inf
}

// startInformer builds a fresh informer from the run's client (as the dynamic informer
// factory would), sets the scenario's transform, adds the scenario's handlers and runs it.
func (r *runner) startInformer() error {
	inf := newInformer(r.client, r.sc.gvr(), ms(r.sc.Informer.ResyncPeriodMs), indexersOf(r.sc.Informer.Indexers), r.tweakOptions(r.tap.beginCall))
	if t := r.sc.Informer.Transform; t != "" {
		if err := setTransform(inf, transformFunc(t)); err != nil {
			return err
		}
	}
	in := &instance{inf: inf, stop: make(chan struct{}), done: make(chan struct{})}
	r.infMu.Lock()
	r.inf, r.cur = inf, in
	r.all = append(r.all, in)
	r.infMu.Unlock()
	for i := range r.sc.Informer.Handlers {
		if err := r.addHandler(&r.sc.Informer.Handlers[i]); err != nil {
			return err
		}
	}
	go func() {
		defer close(in.done)
		inf.Run(in.stop)
		select {
		case <-in.stop:
		default:
			r.exitOnce.Do(func() { close(r.exited) })
		}
	}()
	return nil
}

// restart (a restart action): stop the current informer, wait until its Run has returned,
// and start a fresh one. client-go cannot run a stopped SharedIndexInformer again (Run logs
// "run more than once is not allowed", AddEventHandler after stop fails), so a new informer
// takes its place. Waiting for Run makes the order of the two informers' jitter draws (the
// stopped reflector's last Backoff(), the fresh one's first timeoutSeconds) the program's,
// not the goroutine scheduler's.
func (r *runner) restart(runStop <-chan struct{}) error {
	r.infMu.Lock()
	old := r.cur
	r.infMu.Unlock()
	close(old.stop)
	<-old.done
	r.ext.reset(r.sc)
	r.log.Restarted()
	if err := r.startInformer(); err != nil {
		return err
	}
	r.pollSynced(r.current(), runStop)
	return nil
}

// pollSynced logs synced for inf: after each kick, once everything at that instant has
// settled (a 1 ns timer fires only when every goroutine of the bubble is blocked), look at
// HasSynced. The line gets the instant of the kick: "t" is rounded to the microsecond.
func (r *runner) pollSynced(inf cache.SharedIndexInformer, runStop <-chan struct{}) {
	done := make(chan struct{})
	r.infMu.Lock()
	r.pollers = append(r.pollers, done)
	r.infMu.Unlock()
	go func() {
		defer close(done)
		for {
			select {
			case <-r.srv.kick:
			case <-runStop:
				return
			}
			time.Sleep(time.Nanosecond)
			if r.current() != inf {
				return
			}
			if inf.HasSynced() {
				r.log.Synced()
				return
			}
		}
	}()
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
	r.tap = &tap{srv: r.srv, next: r.newTransport()}
	client, err := newClient(r.tap)
	if err != nil {
		return Result{Err: err}
	}
	r.client = client
	r.exited = make(chan struct{})
	r.initExtensions()
	if err := r.startInformer(); err != nil {
		return Result{Err: err}
	}
	runStop := make(chan struct{})
	actionsDone := make(chan struct{})
	go func() {
		defer close(actionsDone)
		r.runActions(log.start, runStop)
	}()
	r.pollSynced(r.current(), runStop)

	res := r.serve()

	// End of run: wait until the informer is idle, stop it, wait for its tasks (and for
	// those of the informers a restart action stopped).
	r.waitIdle()
	if r.current().HasSynced() {
		log.Synced()
	}
	stoppedAt := time.Now()
	close(r.srv.stopped)
	close(runStop)
	<-actionsDone
	r.infMu.Lock()
	cur, all, pollers := r.cur, r.all, r.pollers
	r.infMu.Unlock()
	close(cur.stop)
	for _, in := range all {
		<-in.done
	}
	for _, p := range pollers {
		<-p
	}
	r.tap.next.(interface{ CloseIdleConnections() }).CloseIdleConnections()
	synctest.Wait()
	if ix := r.indexDump(); ix != nil {
		log.Index(stoppedAt, ix)
	}
	final := map[string]string{}
	for _, obj := range r.current().GetStore().List() {
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

func (r *runner) serve() Result {
	for {
		var c call
		t := time.NewTimer(r.limit)
		select {
		case c = <-r.srv.calls:
			t.Stop()
		case <-r.exited:
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
	reg, err := addHandler(r.current(), &logHandler{name: h.Name, log: r.log, delay: delay, busy: &r.busy}, resync)
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
