//go:build !k115

package oracle

// API of client-go v0.26+ (profiles v1.32, v1.34, v1.36).

import (
	"fmt"
	"time"

	"github.com/go-logr/logr"
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

// configureKlog silences client-go's logging unless verbosity > 0 is asked for.
func configureKlog(verbosity int) {
	if verbosity <= 0 {
		klog.SetLogger(logr.Discard())
		return
	}
	setKlogFlags(verbosity)
}
