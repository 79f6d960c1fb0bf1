// The observe e2e controller on client-go kubernetes-1.15 (the line before PR #81634): the same
// two informers (ConfigMaps and Secrets) from a SharedInformerFactory, handlers logging every
// notification as NDJSON in the shape of contracts §2 with an "informer" field. 1.15 has no
// isInInitialList, so adds carry no initialList field. Secret contents are never logged.
//
//	controller --namespace NS --log OUT.ndjson       (KUBECONFIG names the cluster)
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
		if d.Obj != nil {
			if m, err := meta.Accessor(d.Obj); err == nil {
				rv = m.GetResourceVersion()
			}
		}
		return d.Key, rv, true
	}
	key, _ = cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if m, err := meta.Accessor(obj); err == nil {
		rv = m.GetResourceVersion()
	}
	return key, rv, false
}

func handlers(l *logger, informer string) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			key, rv, _ := keyRV(obj)
			l.line(map[string]interface{}{"kind": "notify", "informer": informer, "handler": "main", "op": "add", "key": key, "rv": rv})
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
	cfg.UserAgent = "observe-e2e-controller-115"
	// JSON, the 1.15 clientset's default: its Watch decodes with the configured content type.
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		os.Exit(2)
	}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(*namespace))
	cms := factory.Core().V1().ConfigMaps().Informer()
	secrets := factory.Core().V1().Secrets().Informer()
	cms.AddEventHandler(handlers(l, "configmaps"))
	secrets.AddEventHandler(handlers(l, "secrets"))
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
}
