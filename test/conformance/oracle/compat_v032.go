//go:build v032

package oracle

// apimachinery v0.32 creates its error-log rate limiter afresh on every HandleError
// (lastErrorTime = now), so every HandleError sleeps 1 ms: real behaviour, works in the
// bubble as is.
func fixErrorBackoff() {}
