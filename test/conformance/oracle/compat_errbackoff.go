//go:build !v032 && !k115

package oracle

// apimachinery v0.34+ builds its 1 ms error-log rate limiter (utilruntime.ErrorHandlers[1])
// at package init, with lastErrorTime = the real wall clock. Inside the synctest bubble
// the clock starts at 2000-01-01, so the first HandleError would sleep for ~26 virtual
// years ("time moving backwards" is not guarded). Replace it with the same limiter
// created inside the bubble, whose last error lies long ago (as in a real process, where
// the first error comes long after init).

import (
	"context"
	"sync"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

func fixErrorBackoff() {
	b := &errorBackoff{last: time.Now().Add(-time.Hour), min: time.Millisecond}
	if len(utilruntime.ErrorHandlers) == 2 {
		utilruntime.ErrorHandlers[1] = func(_ context.Context, _ error, _ string, _ ...interface{}) { b.onError() }
	}
}

type errorBackoff struct {
	mu   sync.Mutex
	last time.Time
	min  time.Duration
}

func (r *errorBackoff) onError() {
	now := time.Now()
	r.mu.Lock()
	d := now.Sub(r.last)
	r.last = time.Now()
	r.mu.Unlock()
	time.Sleep(r.min - d)
}
