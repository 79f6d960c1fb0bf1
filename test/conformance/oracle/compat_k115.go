//go:build k115

package oracle

// API of client-go kubernetes-1.15 (profile v1.15): OnAdd without isInInitialList,
// AddEventHandlerWithResyncPeriod without a result, no watch-list fields in
// ListOptions, klog v1, no client-go feature gates, ErrorHandlers as func(error).

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog"
)

func addHandler(inf cache.SharedIndexInformer, h *logHandler, resync time.Duration) (interface{}, error) {
	inf.AddEventHandlerWithResyncPeriod(h, resync)
	return nil, nil
}

// client-go 1.15 has no SetTransform and no RemoveEventHandler (scenario validation refuses
// them for this profile); its AddIndexers fails once the informer has started.
const (
	hasSetTransform       = false
	hasRemoveEventHandler = false
)

func setTransform(inf cache.SharedIndexInformer, fn func(interface{}) (interface{}, error)) error {
	return fmt.Errorf("client-go 1.15 has no SetTransform")
}

func removeHandler(inf cache.SharedIndexInformer, reg interface{}) error {
	return fmt.Errorf("client-go 1.15 has no RemoveEventHandler")
}

func (h *logHandler) OnAdd(obj interface{}) { h.add(obj, nil) }

func configureKlog(verbosity int) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	if verbosity <= 0 {
		_ = fs.Set("logtostderr", "false")
		_ = fs.Set("alsologtostderr", "false")
		_ = fs.Set("stderrthreshold", "FATAL")
		klog.SetOutput(io.Discard)
		return
	}
	_ = fs.Set("logtostderr", "true")
	_ = fs.Set("v", strconv.Itoa(verbosity))
}

func printGates(names []string) {
	for _, g := range names {
		fmt.Fprintf(os.Stderr, "oracle: gate %s ignored (client-go 1.15 has no feature gates)\n", g)
	}
}

// apimachinery 1.15 builds its 1 ms error-log rate limiter at init with the wall clock;
// inside the bubble (clock at 2000-01-01) the first HandleError would sleep ~26 years.
// Same fix as compat_errbackoff.go.
func fixErrorBackoff() {
	b := &errorBackoff{last: time.Now().Add(-time.Hour), min: time.Millisecond}
	if len(utilruntime.ErrorHandlers) == 2 {
		utilruntime.ErrorHandlers[1] = func(error) { b.onError() }
	}
}

type errorBackoff struct {
	mu   sync.Mutex
	last time.Time
	min  time.Duration
}

func (r *errorBackoff) onError() {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := time.Since(r.last)
	r.last = time.Now()
	time.Sleep(r.min - d)
}
