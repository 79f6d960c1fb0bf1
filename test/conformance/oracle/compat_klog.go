//go:build !k115

package oracle

import (
	"flag"
	"strconv"

	"k8s.io/klog/v2"
)

func setKlogFlags(verbosity int) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "true")
	_ = fs.Set("v", strconv.Itoa(verbosity))
}
