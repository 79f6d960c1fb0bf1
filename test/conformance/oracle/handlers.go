package oracle

// The scenario's event handlers: each logs its calls (contracts §2) and, with delayMs
// (docs/scenario-format.md, extension), takes that long per call.

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"
)

// busyHandlers counts handler calls in progress. A handler sleeping out its delayMs is
// durably blocked for synctest, so synctest.Wait alone would call the informer idle while a
// slow handler still has notifications to work through.
type busyHandlers struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0
}

func (b *busyHandlers) begin() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n == 0 {
		b.idle = make(chan struct{})
	}
	b.n++
}

func (b *busyHandlers) end() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n--
	if b.n == 0 {
		close(b.idle)
	}
}

// idleCh is nil when no handler call is in progress.
func (b *busyHandlers) idleCh() chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n == 0 {
		return nil
	}
	return b.idle
}

// logHandler logs each call when it starts, then (delayMs) sleeps in the listener's
// goroutine like a slow handler would: virtual time under synctest.
type logHandler struct {
	name  string
	log   *Log
	delay time.Duration
	busy  *busyHandlers
}

func (h *logHandler) slow() {
	if h.delay <= 0 {
		return
	}
	h.busy.begin()
	defer h.busy.end()
	time.Sleep(h.delay)
}

// objKeyRV: the key, resourceVersion and digest of what a handler got; for a
// tombstone the key is the tombstone's, rv and digest are those of the object inside.
func objKeyRV(obj interface{}) (key, rv string, tombstone bool, digest string) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		if d.Obj != nil {
			if m, err := meta.Accessor(d.Obj); err == nil {
				rv = m.GetResourceVersion()
			}
		}
		return d.Key, rv, true, Digest(d.Obj)
	}
	key, _ = cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if m, err := meta.Accessor(obj); err == nil {
		rv = m.GetResourceVersion()
	}
	return key, rv, false, Digest(obj)
}

func (h *logHandler) add(obj interface{}, initial *bool) {
	key, rv, _, dg := objKeyRV(obj)
	h.log.Notify(notify{handler: h.name, op: "add", key: key, rv: rv, initialList: initial, digest: dg})
	h.slow()
}

func (h *logHandler) OnUpdate(oldObj, newObj interface{}) {
	_, oldRv, _, oldDg := objKeyRV(oldObj)
	key, rv, _, dg := objKeyRV(newObj)
	h.log.Notify(notify{handler: h.name, op: "update", key: key, rv: rv, oldRv: &oldRv, digest: dg, oldDigest: &oldDg})
	h.slow()
}

func (h *logHandler) OnDelete(obj interface{}) {
	key, rv, ts, dg := objKeyRV(obj)
	h.log.Notify(notify{handler: h.name, op: "delete", key: key, rv: rv, tombstone: ts, digest: dg})
	h.slow()
}
