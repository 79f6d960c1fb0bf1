package oracle

// The bodies the scripted server writes: list pages, Status objects and watch streams
// (JSON event frames at their virtual times, ended as the step's close says).
// Semantics: docs/scenario-format.md.

import (
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const defaultStreamDurationMs = 1500

// gvr: the resource the informer lists and watches.
func (sc *Scenario) gvr() schema.GroupVersionResource {
	gv, _ := schema.ParseGroupVersion(sc.Resource.APIVersion)
	res := sc.Resource.Resource
	if res == "" {
		res = strings.ToLower(sc.Resource.Kind) + "s"
	}
	return gv.WithResource(res)
}

// object: a scenario object with the resource's apiVersion and kind when it has none.
func (r *runner) object(o map[string]interface{}) map[string]interface{} {
	obj := runtime.DeepCopyJSON(o)
	if _, ok := obj["apiVersion"]; !ok {
		obj["apiVersion"] = r.sc.Resource.APIVersion
	}
	if _, ok := obj["kind"]; !ok {
		obj["kind"] = r.sc.Resource.Kind
	}
	return obj
}

func (r *runner) listObject(st *Step) map[string]interface{} {
	apiVersion, kind := r.sc.Resource.APIVersion, r.sc.Resource.Kind+"List"
	if st.ListTypeMeta != nil {
		apiVersion, kind = st.ListTypeMeta.APIVersion, st.ListTypeMeta.Kind
	}
	md := map[string]interface{}{}
	if st.ResourceVersion != nil {
		md["resourceVersion"] = *st.ResourceVersion
	}
	if st.Continue != "" {
		md["continue"] = st.Continue
	}
	items := []interface{}{}
	for _, it := range st.Items {
		items = append(items, r.object(it))
	}
	return map[string]interface{}{"apiVersion": apiVersion, "kind": kind, "metadata": md, "items": items}
}

// eventObject: an ERROR event's object is a Status when isStatusJSON says so (kind and
// apiVersion filled in as the apiserver sends them); any other object is one of the
// scenario's resource (the reflector's "unexpected object", spec §1.10 row 20).
func (r *runner) eventObject(e EventSpec) map[string]interface{} {
	if e.Type == "ERROR" && isStatusJSON(e.Object) {
		obj := runtime.DeepCopyJSON(e.Object)
		if _, ok := obj["kind"]; !ok {
			obj["kind"] = "Status"
		}
		if _, ok := obj["apiVersion"]; !ok {
			obj["apiVersion"] = "v1"
		}
		return obj
	}
	return r.object(e.Object)
}

func frame(typ string, obj any) []byte {
	return append(mustJSON(map[string]any{"type": typ, "object": obj}), '\n')
}

// stream serves a watch: the 200 header at once, each event at its offset from then, and
// the end at durationMs (never before the last event).
func (r *runner) stream(c *conn, st *Step) {
	type timed struct {
		at    time.Duration
		frame []byte
	}
	var evs []timed
	var last time.Duration
	for _, e := range st.Events {
		var at time.Duration
		if e.AtMs != nil {
			at = ms(*e.AtMs)
		}
		if at < last {
			at = last // events are delivered in order
		}
		last = at
		evs = append(evs, timed{at, frame(e.Type, r.eventObject(e))})
	}
	dur := ms(defaultStreamDurationMs)
	if st.DurationMs != nil {
		dur = ms(*st.DurationMs)
	}
	if dur < last {
		dur = last
	}
	if c.startStream(st.Gzip) != nil {
		return
	}
	open := time.Now()
	until := func(d time.Duration) bool { return r.srv.sleepOrStop(time.Until(open.Add(d))) }
	// Events due at the same instant go out in one write: the client decodes them as one burst.
	for i := 0; i < len(evs); {
		if !until(evs[i].at) {
			return
		}
		var burst []byte
		j := i
		for ; j < len(evs) && evs[j].at == evs[i].at; j++ {
			burst = append(burst, evs[j].frame...)
		}
		i = j
		if !c.send(burst) {
			r.srv.kicked()
			return
		}
		r.srv.kicked()
	}
	if !until(dur) {
		return
	}
	defer r.srv.kicked() // the stream ends
	switch st.Close {
	case "error":
		if c.send(frame("ERROR", statusFor(st.Error))) {
			c.finish()
		}
	case "decode-error":
		// Bytes the JSON frame reader cannot decode ("invalid character 'x' looking for
		// beginning of value"): client-go's StreamWatcher turns them into an ERROR event.
		if c.send([]byte("x")) {
			c.finish()
		}
	case "unexpected-eof":
		c.s.Close() // no last chunk: the chunked body ends early (io.ErrUnexpectedEOF)
	case "reset", "timeout":
		network := "connection-reset"
		if st.Close == "timeout" {
			network = "timeout"
		}
		c.breakWith(network)
	default: // eof
		c.finish()
	}
}

// isStatusJSON: an ERROR event's object is a Status when its kind is "Status", or
// when it has no kind and no metadata.name.
func isStatusJSON(o map[string]interface{}) bool {
	if k, ok := o["kind"]; ok {
		return k == "Status"
	}
	if md, ok := o["metadata"].(map[string]interface{}); ok {
		if n, _ := md["name"].(string); n != "" {
			return false
		}
	}
	return true
}
