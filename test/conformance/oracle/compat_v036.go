//go:build !v034 && !v032 && !k115

package oracle

// client-go v0.36 uses a nil channel when resync is off; nothing to fix.
func fixNeverExit() {}
