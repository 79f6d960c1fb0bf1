//go:build !k115

package oracle

// API of client-go v0.26+ (profiles v1.32, v1.34, v1.36).

import (
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

func addHandler(inf cache.SharedIndexInformer, h *logHandler, resync time.Duration) error {
	_, err := inf.AddEventHandlerWithResyncPeriod(h, resync)
	return err
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
