//go:build !k115

package oracle

// API of client-go v0.26+ (profiles v1.32, v1.34, v1.36).

import (
	"fmt"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

func addHandler(inf cache.SharedIndexInformer, h *logHandler, resync time.Duration) (interface{}, error) {
	return inf.AddEventHandlerWithResyncPeriod(h, resync)
}

// The informer API of v0.26+: SetTransform, RemoveEventHandler, AddIndexers after start.
const (
	hasSetTransform       = true
	hasRemoveEventHandler = true
)

func setTransform(inf cache.SharedIndexInformer, fn func(interface{}) (interface{}, error)) error {
	return inf.SetTransform(fn)
}

func removeHandler(inf cache.SharedIndexInformer, reg interface{}) error {
	r, ok := reg.(cache.ResourceEventHandlerRegistration)
	if !ok {
		return fmt.Errorf("no registration")
	}
	return inf.RemoveEventHandler(r)
}

func (h *logHandler) OnAdd(obj interface{}, isInInitialList bool) { h.add(obj, &isInInitialList) }

func sendInitialEvents(o metav1.ListOptions) bool {
	return o.SendInitialEvents != nil && *o.SendInitialEvents
}

func rvMatch(o metav1.ListOptions) string { return string(o.ResourceVersionMatch) }

// configureKlog silences client-go's logging unless verbosity > 0 is asked for.
func configureKlog(verbosity int) {
	if verbosity <= 0 {
		klog.SetLogger(logr.Discard())
		return
	}
	setKlogFlags(verbosity)
}

// watchTransportFailure: how the REST client (v0.33+, same in v0.32 for these cases)
// ends a watch request that fails below HTTP with a probable-EOF or timeout error:
// it retries ~10 × 1 s, then hands the reflector an empty, already-closed watcher and
// no error (spec §1.9/§1.10 row 8).
func watchTransportFailure(network string) (emptyWatcher bool, defaultDelayMs int64) {
	return true, 10000
}
