package oracle

// Scenario extensions around the informer (docs/scenario-format.md): the ListWatch's
// selectors, the catalogue's transform and indexers, timed actions and the final index dump.

import (
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// tweakOptions is the informer factory's tweakListOptions: every List and Watch call of the
// reflector starts a call on the scripted server and carries the informer's selectors.
func (r *runner) tweakOptions(beginCall func()) func(*metav1.ListOptions) {
	return func(o *metav1.ListOptions) {
		beginCall()
		if r.sc.Informer.LabelSelector != "" || r.sc.Informer.FieldSelector != "" {
			o.LabelSelector, o.FieldSelector = r.sc.Informer.LabelSelector, r.sc.Informer.FieldSelector
		}
	}
}

func indexersOf(specs map[string]string) cache.Indexers {
	ix := cache.Indexers{}
	for name, spec := range specs {
		ix[name] = indexFunc(spec)
	}
	return ix
}

// extensions holds the run's state for the extensions.
type extensions struct {
	mu            sync.Mutex
	registrations map[string]interface{} // handler name → its registration (nil on 1.15)
	indexNames    map[string]bool        // indexes in the final index line
	stopNow       chan struct{}          // closed by a stop action
}

func (r *runner) initExtensions() {
	r.ext = &extensions{stopNow: make(chan struct{})}
	r.ext.reset(r.sc)
}

// reset: no registration yet, the scenario's own indexes (a new informer's state).
func (e *extensions) reset(sc *Scenario) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.registrations = map[string]interface{}{}
	e.indexNames = map[string]bool{}
	for name := range sc.Informer.Indexers {
		e.indexNames[name] = true
	}
}

// sleep waits d of virtual time; false when a stop action came first.
func (r *runner) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.ext.stopNow:
		return false
	}
}

// remember keeps a handler's registration for a later removeHandler action.
func (e *extensions) remember(name string, reg interface{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.registrations[name] = reg
}

// runActions performs the timed actions, each once its instant has settled: it sleeps
// until atMs + 1 ns, a timer that fires only when every goroutine of the bubble is blocked.
// A call client-go refuses (AddIndexers after start on 1.15) changes nothing.
func (r *runner) runActions(start time.Time, done <-chan struct{}) {
	for i := range r.sc.Actions {
		a := &r.sc.Actions[i]
		wait := time.Until(start.Add(ms(*a.AtMs) + time.Nanosecond))
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-done:
				t.Stop()
				return
			}
		}
		select {
		case <-done:
			return
		default:
		}
		switch {
		case a.AddHandler != nil:
			_ = r.addHandler(a.AddHandler)
		case a.RemoveHandler != "":
			r.ext.mu.Lock()
			reg := r.ext.registrations[a.RemoveHandler]
			r.ext.mu.Unlock()
			_ = removeHandler(r.current(), reg)
		case a.AddIndexers != nil:
			if err := r.current().AddIndexers(indexersOf(a.AddIndexers)); err == nil {
				r.ext.mu.Lock()
				for name := range a.AddIndexers {
					r.ext.indexNames[name] = true
				}
				r.ext.mu.Unlock()
			}
		case a.Stop:
			close(r.ext.stopNow)
			return
		case a.Restart:
			// Only the transform can fail, and it did not for the first informer.
			_ = r.restart(done)
		}
	}
}

// indexDump: index name → value → keys (sorted) of the indexes the scenario declared and
// that exist; nil when the scenario has no indexers.
func (r *runner) indexDump() map[string]map[string][]string {
	r.ext.mu.Lock()
	defer r.ext.mu.Unlock()
	if len(r.ext.indexNames) == 0 {
		return nil
	}
	idx := r.current().GetIndexer()
	out := map[string]map[string][]string{}
	for name := range r.ext.indexNames {
		values := map[string][]string{}
		for _, v := range idx.ListIndexFuncValues(name) {
			keys, _ := idx.IndexKeys(name, v)
			keys = append([]string{}, keys...)
			sort.Strings(keys)
			values[v] = keys
		}
		out[name] = values
	}
	return out
}
