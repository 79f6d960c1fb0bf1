//go:build v034 || v032 || k115

package oracle

// client-go before v0.35 hands the reflector's resync loop a package-level channel
// (`neverExitWatch`, made at init, outside any synctest bubble) when resync is off.
// A select on a channel from outside the bubble is not "durably blocking", so the
// bubble never goes idle and virtual time never advances. Replace it, before the
// informer starts, with an equivalent channel made inside the bubble (never sent on,
// never closed: same behaviour).

import (
	"time"
	_ "unsafe" // go:linkname
)

//go:linkname neverExitWatch k8s.io/client-go/tools/cache.neverExitWatch
var neverExitWatch <-chan time.Time

func fixNeverExit() {
	neverExitWatch = make(chan time.Time)
}
