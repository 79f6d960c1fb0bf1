//go:build !k115

package oracle

import (
	"fmt"
	"os"

	clientfeatures "k8s.io/client-go/features"
)

func printGates(names []string) {
	for _, g := range append(names, "WatchListClient", "InOrderInformers", "InOrderInformersBatchProcess", "AtomicFIFO", "UnlockWhileProcessingFIFO") {
		fmt.Fprintf(os.Stderr, "oracle: gate %s=%s\n", g, gateState(g))
	}
}

func gateState(g string) (s string) {
	defer func() {
		if recover() != nil {
			s = "unknown to this client-go"
		}
	}()
	return fmt.Sprint(clientfeatures.FeatureGates().Enabled(clientfeatures.Feature(g)))
}
