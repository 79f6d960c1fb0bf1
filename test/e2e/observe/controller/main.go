// A small controller for the observe e2e test: two informers (ConfigMaps and Secrets in one
// namespace) from a SharedInformerFactory of the real clientset, whose handlers log every
// notification as one NDJSON line in the shape of contracts §2, plus an "informer" field
// naming the informer. Secret contents are never logged (keys and resourceVersions only).
//
//	controller --namespace NS --log OUT.ndjson       (KUBECONFIG names the cluster)
//
// It runs until SIGINT/SIGTERM.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

type logger struct {
	mu sync.Mutex
	f  *os.File
}

func (l *logger) line(v map[string]interface{}) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.f.Write(append(b, '\n'))
	_ = l.f.Sync()
}

func keyRV(obj interface{}) (key, rv string, tombstone bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		if m, err := meta.Accessor(d.Obj); err == nil && d.Obj != nil {
			rv = m.GetResourceVersion()
		}
		return d.Key, rv, true
	}
	key, _ = cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if m, err := meta.Accessor(obj); err == nil {
		rv = m.GetResourceVersion()
	}
	return key, rv, false
}

func handlers(l *logger, informer string) cache.ResourceEventHandlerDetailedFuncs {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj interface{}, initial bool) {
			key, rv, _ := keyRV(obj)
			l.line(map[string]interface{}{"kind": "notify", "informer": informer, "handler": "main", "op": "add", "key": key, "rv": rv, "initialList": initial})
		},
		UpdateFunc: func(oldObj, newObj interface{}) {
			_, oldRv, _ := keyRV(oldObj)
			key, rv, _ := keyRV(newObj)
			l.line(map[string]interface{}{"kind": "notify", "informer": informer, "handler": "main", "op": "update", "key": key, "rv": rv, "oldRv": oldRv})
		},
		DeleteFunc: func(obj interface{}) {
			key, rv, ts := keyRV(obj)
			m := map[string]interface{}{"kind": "notify", "informer": informer, "handler": "main", "op": "delete", "key": key, "rv": rv}
			if ts {
				m["tombstone"] = true
			}
			l.line(m)
		},
	}
}

func main() {
	namespace := flag.String("namespace", "default", "namespace to watch")
	logPath := flag.String("log", "", "notification log (NDJSON)")
	protobuf := flag.Bool("protobuf", true, "prefer protobuf, as kubernetes.NewForConfig does by default")
	protobufOnly := flag.Bool("protobuf-only", false, "accept only protobuf (no JSON fallback)")
	flag.Parse()
	if *logPath == "" {
		fmt.Fprintln(os.Stderr, "controller: --log is required")
		os.Exit(2)
	}
	f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		os.Exit(2)
	}
	l := &logger{f: f}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(clientcmd.NewDefaultClientConfigLoadingRules(), &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller: kubeconfig:", err)
		os.Exit(2)
	}
	cfg.UserAgent = "observe-e2e-controller"
	if *protobuf || *protobufOnly {
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
	}
	if *protobufOnly {
		cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf"
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		os.Exit(2)
	}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(*namespace))
	cms := factory.Core().V1().ConfigMaps().Informer()
	secrets := factory.Core().V1().Secrets().Informer()
	if _, err := cms.AddEventHandler(handlers(l, "configmaps")); err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		os.Exit(2)
	}
	if _, err := secrets.AddEventHandler(handlers(l, "secrets")); err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		os.Exit(2)
	}
	stop := make(chan struct{})
	factory.Start(stop)
	go func() {
		if cache.WaitForCacheSync(stop, cms.HasSynced, secrets.HasSynced) {
			l.line(map[string]interface{}{"kind": "synced"})
		}
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	close(stop)
	factory.Shutdown()
}
