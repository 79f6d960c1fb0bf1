// Command peers is client-go's side of the peer benchmark (bench/peers).
//
//	peers gen DIR N EVENTS   writes the workload, the same Pods as JSON and as protobuf:
//	                         list.json, watch.json (one event per line), list.pb, watch.pb
//	                         (length-prefixed frames, as the apiserver streams them)
//	peers client MODE URL EVENTS   MODE: typed-proto | typed-json | dynamic. Runs a shared informer
//	                         with two handlers against the fake apiserver at URL, and prints one JSON line:
//	                         sync wall time, watch CPU and wall time, peak RSS.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

func main() {
	if len(os.Args) < 2 {
		fail("usage: peers gen DIR N EVENTS | peers client MODE URL EVENTS")
	}
	switch os.Args[1] {
	case "gen":
		if len(os.Args) != 5 {
			fail("usage: peers gen DIR N EVENTS")
		}
		gen(os.Args[2], atoi(os.Args[3]), atoi(os.Args[4]))
	case "client":
		if len(os.Args) != 5 {
			fail("usage: peers client MODE URL EVENTS")
		}
		client(os.Args[2], os.Args[3], atoi(os.Args[4]))
	default:
		fail("unknown command " + os.Args[1])
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "peers: "+msg)
	os.Exit(2)
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		fail("not a positive number: " + s)
	}
	return n
}

var base = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// pod i at resourceVersion rv; tick moves the Ready condition's lastProbeTime/lastTransitionTime.
func pod(i, rv, tick int) *corev1.Pod {
	ns := []string{"default", "team-a", "team-b", "team-c"}[i%4]
	name := fmt.Sprintf("web-%d-7d9f8c6b5-%05d", i%50, i)
	app := fmt.Sprintf("app-%d", i%50)
	t := metav1.NewTime(base.Add(time.Duration(tick) * time.Second))
	start := metav1.NewTime(base)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ns, UID: types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i)),
			ResourceVersion: strconv.Itoa(rv), Generation: 1, CreationTimestamp: start,
			Labels: map[string]string{"app": app, "tier": "web", "pod-template-hash": "7d9f8c6b5"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: fmt.Sprintf("web-%d-7d9f8c6b5", i%50),
				UID: types.UID(fmt.Sprintf("11111111-0000-4000-8000-%012d", i%50)), Controller: ptr(true), BlockOwnerDeletion: ptr(true),
			}},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "server", Image: "registry.example.com/team/" + app + ":v1.2.3",
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: "TCP"}},
				Env:   []corev1.EnvVar{{Name: "MODE", Value: "production"}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
				},
				VolumeMounts:             []corev1.VolumeMount{{Name: "kube-api-access", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
				TerminationMessagePath:   "/dev/termination-log",
				TerminationMessagePolicy: "File",
				ImagePullPolicy:          "IfNotPresent",
			}},
			Volumes:            []corev1.Volume{{Name: "kube-api-access", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{DefaultMode: ptr(int32(420)), Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr(int64(3607))}}}}}}},
			RestartPolicy:      "Always",
			DNSPolicy:          "ClusterFirst",
			ServiceAccountName: "default",
			NodeName:           fmt.Sprintf("node-%d", i%20),
			SchedulerName:      "default-scheduler",
		},
		Status: corev1.PodStatus{
			Phase: "Running",
			Conditions: []corev1.PodCondition{
				{Type: "Ready", Status: "True", LastProbeTime: t, LastTransitionTime: t},
				{Type: "ContainersReady", Status: "True", LastTransitionTime: start},
				{Type: "PodScheduled", Status: "True", LastTransitionTime: start},
			},
			HostIP: fmt.Sprintf("10.0.0.%d", i%20), PodIP: fmt.Sprintf("10.%d.%d.%d", 1+i/65536, (i/256)%256, i%256),
			StartTime: &start, QOSClass: "Burstable",
			ContainerStatuses: []corev1.ContainerStatus{{
				Name: "server", Ready: true, Image: "registry.example.com/team/" + app + ":v1.2.3",
				ImageID:     "registry.example.com/team/" + app + "@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
				ContainerID: "containerd://" + fmt.Sprintf("%064d", i), Started: ptr(true),
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: start}},
			}},
		},
	}
}

func ptr[T any](v T) *T { return &v }

func gen(dir string, n, events int) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err.Error())
	}
	jsonInfo, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	pbInfo, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	jsonEnc := scheme.Codecs.EncoderForVersion(jsonInfo.Serializer, corev1.SchemeGroupVersion)
	pbEnc := scheme.Codecs.EncoderForVersion(pbInfo.Serializer, corev1.SchemeGroupVersion)

	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(n)}}
	for i := 0; i < n; i++ {
		list.Items = append(list.Items, *pod(i, i+1, 0))
	}
	write(dir, "list.json", encode(jsonEnc, list))
	write(dir, "list.pb", encode(pbEnc, list))

	var wj, wp bytes.Buffer
	for k := 0; k < events; k++ {
		p := pod(k%n, n+1+k, 1+k)
		p.Kind, p.APIVersion = "", ""
		raw := bytes.TrimRight(encode(jsonEnc, p), "\n")
		line, err := json.Marshal(metav1.WatchEvent{Type: "MODIFIED", Object: runtime.RawExtension{Raw: raw}})
		if err != nil {
			fail(err.Error())
		}
		wj.Write(line)
		wj.WriteByte('\n')
		ev := &metav1.WatchEvent{Type: "MODIFIED", Object: runtime.RawExtension{Raw: encode(pbEnc, p)}}
		frame := encode(pbInfo.StreamSerializer.Serializer, ev)
		var size [4]byte
		binary.BigEndian.PutUint32(size[:], uint32(len(frame)))
		wp.Write(size[:])
		wp.Write(frame)
	}
	write(dir, "watch.json", wj.Bytes())
	write(dir, "watch.pb", wp.Bytes())
	one := bytes.TrimRight(encode(jsonEnc, pod(0, 1, 0)), "\n")
	fmt.Printf("{\"podJsonBytes\":%d,\"listJsonBytes\":%d,\"listPbBytes\":%d,\"watchJsonBytes\":%d,\"watchPbBytes\":%d}\n",
		len(one), size(dir, "list.json"), size(dir, "list.pb"), wj.Len(), wp.Len())
}

func encode(e runtime.Encoder, o runtime.Object) []byte {
	var b bytes.Buffer
	if err := e.Encode(o, &b); err != nil {
		fail(err.Error())
	}
	return b.Bytes()
}

func write(dir, name string, b []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		fail(err.Error())
	}
}

func size(dir, name string) int64 {
	st, err := os.Stat(filepath.Join(dir, name))
	if err != nil {
		fail(err.Error())
	}
	return st.Size()
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// maxRSSKiB is this process's peak RSS: VmHWM of /proc/self/status (getrusage's Maxrss of a
// spawned child starts at its parent's RSS at the spawn, as Linux carries it over exec), or
// Maxrss where /proc is not there.
func maxRSSKiB() int64 {
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range bytes.Split(status, []byte("\n")) {
			if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
				if kib, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64); err == nil {
					return kib
				}
			}
		}
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Maxrss
}

func client(mode, url string, events int) {
	cfg := &rest.Config{Host: url, QPS: 1000, Burst: 1000}
	var inf cache.SharedIndexInformer
	switch mode {
	case "typed-proto", "typed-json":
		if mode == "typed-proto" {
			cfg.ContentType = runtime.ContentTypeProtobuf
			cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
		} else {
			cfg.ContentType = runtime.ContentTypeJSON
			cfg.AcceptContentTypes = runtime.ContentTypeJSON
		}
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			fail(err.Error())
		}
		inf = informers.NewSharedInformerFactory(cs, 0).Core().V1().Pods().Informer()
	case "dynamic":
		dc, err := dynamic.NewForConfig(cfg)
		if err != nil {
			fail(err.Error())
		}
		gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
		inf = dynamicinformer.NewDynamicSharedInformerFactory(dc, 0).ForResource(gvr).Informer()
	default:
		fail("unknown client mode " + mode)
	}
	var counts [2]atomic.Int64
	done := make(chan struct{})
	var remaining atomic.Int32
	remaining.Store(2)
	for h := 0; h < 2; h++ {
		h := h
		_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, _ interface{}) {
			if counts[h].Add(1) == int64(events) && remaining.Add(-1) == 0 {
				close(done)
			}
		}})
		if err != nil {
			fail(err.Error())
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()
	t0 := time.Now()
	go inf.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		fail("did not sync")
	}
	syncMs := float64(time.Since(t0).Microseconds()) / 1000
	cpu0, w0 := cpuSeconds(), time.Now()
	resp, err := http.Get(url + "/bench/go")
	if err != nil {
		fail(err.Error())
	}
	resp.Body.Close()
	select {
	case <-done:
	case <-ctx.Done():
		fail(fmt.Sprintf("watch events not all handled: %d, %d of %d", counts[0].Load(), counts[1].Load(), events))
	}
	cpu, wall := cpuSeconds()-cpu0, time.Since(w0).Seconds()
	fmt.Printf("{\"syncMs\":%.1f,\"watchCpuS\":%.4f,\"watchWallS\":%.4f,\"peakRssKiB\":%d,\"objects\":%d}\n",
		syncMs, cpu, wall, maxRSSKiB(), len(inf.GetStore().ListKeys()))
}
