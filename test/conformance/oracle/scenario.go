package oracle

// Scenario file parsing and validation (informer-scenario/v1, contracts §1 and
// docs/scenario-format.md). Nothing here depends on client-go.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// BadInput is an error in the scenario file or the command line (exit code 2).
type BadInput struct{ Msg string }

func (e *BadInput) Error() string { return e.Msg }

func bad(format string, args ...any) error { return &BadInput{Msg: fmt.Sprintf(format, args...)} }

type Resource struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Resource   string `json:"resource"`
	Namespaced *bool  `json:"namespaced"`
}

type HandlerSpec struct {
	Name           string `json:"name"`
	ResyncPeriodMs *int64 `json:"resyncPeriodMs"`
	DelayMs        *int64 `json:"delayMs"` // extension: each call of the handler takes this long
}

type InformerSpec struct {
	ResyncPeriodMs int64         `json:"resyncPeriodMs"`
	Handlers       []HandlerSpec `json:"handlers"`
	// extensions (docs/scenario-format.md): the ListWatch's selectors, a transform and
	// indexers of the catalogue (catalogue.go)
	LabelSelector string            `json:"labelSelector"`
	FieldSelector string            `json:"fieldSelector"`
	Transform     string            `json:"transform"`
	Indexers      map[string]string `json:"indexers"`
}

// Action (extension): something done to the informer at a virtual time, once that
// instant has settled (actions.go).
type Action struct {
	AtMs          *int64            `json:"atMs"`
	AddHandler    *HandlerSpec      `json:"addHandler"`
	RemoveHandler string            `json:"removeHandler"`
	AddIndexers   map[string]string `json:"addIndexers"`
	Stop          bool              `json:"stop"`
	Restart       bool              `json:"restart"`
}

type StatusCause struct {
	Type    string `json:"type"`
	Reason  string `json:"reason"` // the metav1.StatusCause JSON name of Type
	Message string `json:"message"`
	Field   string `json:"field"`
}

type ErrorSpec struct {
	Code              int32         `json:"code"`
	Reason            string        `json:"reason"`
	Message           string        `json:"message"`
	Causes            []StatusCause `json:"causes"`
	RetryAfterSeconds int32         `json:"retryAfterSeconds"`
}

type EventSpec struct {
	Type   string                 `json:"type"`
	Object map[string]interface{} `json:"object"`
	AtMs   *int64                 `json:"atMs"`
}

// ListTypeMeta (extension): the apiVersion and kind a list page itself carries.
type ListTypeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

type Step struct {
	On              string                   `json:"on"`
	Items           []map[string]interface{} `json:"items"`
	ResourceVersion *string                  `json:"resourceVersion"`
	Continue        string                   `json:"continue"`
	ListTypeMeta    *ListTypeMeta            `json:"listTypeMeta"`
	Error           *ErrorSpec               `json:"error"`
	Network         string                   `json:"network"`
	Events          []EventSpec              `json:"events"`
	Close           string                   `json:"close"`
	DurationMs      *int64                   `json:"durationMs"`
	AdvanceMs       *int64                   `json:"advanceMs"`
	AddHandler      *HandlerSpec             `json:"addHandler"`
	Gzip            bool                     `json:"gzip"`      // extension: the response body is gzip-encoded
	CutAtByte       *int64                   `json:"cutAtByte"` // extension: the connection closes after this many body bytes

	// derived
	kind string // "advance", "addHandler", "list", "listError", "network", "watchError", "stream"
}

type Scenario struct {
	Format      string          `json:"format"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Resource    Resource        `json:"resource"`
	Informer    InformerSpec    `json:"informer"`
	Gates       map[string]bool `json:"gates"`
	Profiles    []string        `json:"profiles"`
	Steps       []Step          `json:"steps"`
	Actions     []Action        `json:"actions"`
}

var knownCloses = map[string]bool{"eof": true, "unexpected-eof": true, "reset": true, "timeout": true, "error": true, "decode-error": true}
var knownNetwork = map[string]bool{"connection-refused": true, "connection-reset": true, "timeout": true}
var knownEventTypes = map[string]bool{"ADDED": true, "MODIFIED": true, "DELETED": true, "BOOKMARK": true, "ERROR": true}

// LoadScenario reads and validates a scenario file.
func LoadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, bad("cannot read scenario %s: %v", path, err)
	}
	return ParseScenario(data, path)
}

func ParseScenario(data []byte, path string) (*Scenario, error) {
	var sc Scenario
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&sc); err != nil {
		return nil, bad("%s: invalid scenario JSON: %v", path, err)
	}
	if sc.Format != "informer-scenario/v1" {
		return nil, bad("%s: format must be \"informer-scenario/v1\", got %q", path, sc.Format)
	}
	if sc.Resource.Kind == "" || sc.Resource.APIVersion == "" {
		return nil, bad("%s: resource.apiVersion and resource.kind are required", path)
	}
	if sc.Informer.ResyncPeriodMs < 0 {
		return nil, bad("%s: informer.resyncPeriodMs must be >= 0", path)
	}
	names := map[string]bool{}
	checkHandler := func(where string, h *HandlerSpec) error {
		if h.Name == "" {
			return bad("%s: %s: handler name is required", path, where)
		}
		if names[h.Name] {
			return bad("%s: %s: duplicate handler name %q", path, where, h.Name)
		}
		names[h.Name] = true
		if h.ResyncPeriodMs != nil && *h.ResyncPeriodMs < 0 {
			return bad("%s: %s: resyncPeriodMs must be >= 0", path, where)
		}
		if h.DelayMs != nil && *h.DelayMs < 0 {
			return bad("%s: %s: delayMs must be >= 0", path, where)
		}
		return nil
	}
	for i := range sc.Informer.Handlers {
		if err := checkHandler(fmt.Sprintf("informer.handlers[%d]", i), &sc.Informer.Handlers[i]); err != nil {
			return nil, err
		}
	}
	for i := range sc.Steps {
		st := &sc.Steps[i]
		where := fmt.Sprintf("steps[%d]", i)
		switch {
		case st.AdvanceMs != nil:
			if st.On != "" || st.AddHandler != nil {
				return nil, bad("%s: %s: advanceMs step must not have other fields", path, where)
			}
			if *st.AdvanceMs < 0 {
				return nil, bad("%s: %s: advanceMs must be >= 0", path, where)
			}
			st.kind = "advance"
		case st.AddHandler != nil:
			if st.On != "" {
				return nil, bad("%s: %s: addHandler step must not have \"on\"", path, where)
			}
			if err := checkHandler(where+".addHandler", st.AddHandler); err != nil {
				return nil, err
			}
			st.kind = "addHandler"
		case st.On == "list":
			switch {
			case st.Network != "":
				st.kind = "network"
			case st.Error != nil:
				st.kind = "listError"
			default:
				st.kind = "list"
				if st.Events != nil || st.Close != "" {
					return nil, bad("%s: %s: a list step cannot have events or close", path, where)
				}
				if st.ListTypeMeta != nil && (st.ListTypeMeta.APIVersion == "" || st.ListTypeMeta.Kind == "") {
					return nil, bad("%s: %s: listTypeMeta needs apiVersion and kind", path, where)
				}
			}
		case st.On == "watch":
			switch {
			case st.Network != "":
				st.kind = "network"
			case st.Events != nil || st.Close != "":
				st.kind = "stream"
				if st.Close == "" {
					return nil, bad("%s: %s: a watch stream step needs \"close\"", path, where)
				}
				if !knownCloses[st.Close] {
					return nil, bad("%s: %s: unknown close %q", path, where, st.Close)
				}
				if st.Close == "error" && st.Error == nil {
					return nil, bad("%s: %s: close \"error\" needs \"error\"", path, where)
				}
				for j, ev := range st.Events {
					if !knownEventTypes[ev.Type] {
						return nil, bad("%s: %s.events[%d]: unknown event type %q", path, where, j, ev.Type)
					}
					if ev.Object == nil {
						return nil, bad("%s: %s.events[%d]: object is required", path, where, j)
					}
					if ev.AtMs != nil && *ev.AtMs < 0 {
						return nil, bad("%s: %s.events[%d]: atMs must be >= 0", path, where, j)
					}
				}
			case st.Error != nil:
				st.kind = "watchError"
			default:
				return nil, bad("%s: %s: watch step needs events/close, error or network", path, where)
			}
		case st.On == "":
			return nil, bad("%s: %s: step needs \"on\", \"advanceMs\" or \"addHandler\"", path, where)
		default:
			return nil, bad("%s: %s: unknown \"on\" value %q (list or watch)", path, where, st.On)
		}
		if st.kind != "list" && st.ListTypeMeta != nil {
			return nil, bad("%s: %s: listTypeMeta only applies to a list page", path, where)
		}
		if st.Network != "" && !knownNetwork[st.Network] {
			return nil, bad("%s: %s: unknown network %q", path, where, st.Network)
		}
		if st.DurationMs != nil && *st.DurationMs < 0 {
			return nil, bad("%s: %s: durationMs must be >= 0", path, where)
		}
		if st.Error != nil && st.Error.Code == 0 && st.Close != "decode-error" {
			return nil, bad("%s: %s: error.code is required", path, where)
		}
		for j := range st.Items {
			st.Items[j] = normalizeNumbers(st.Items[j]).(map[string]interface{})
		}
		for j := range st.Events {
			st.Events[j].Object = normalizeNumbers(st.Events[j].Object).(map[string]interface{})
		}
		if st.kind == "list" {
			for j, it := range st.Items {
				if err := checkObject(it); err != nil {
					return nil, bad("%s: %s.items[%d]: %v", path, where, j, err)
				}
			}
		}
		if st.kind == "stream" {
			for j, ev := range st.Events {
				if ev.Type == "ERROR" || ev.Type == "BOOKMARK" {
					continue
				}
				if err := checkObject(ev.Object); err != nil {
					return nil, bad("%s: %s.events[%d].object: %v", path, where, j, err)
				}
			}
		}
	}
	if err := checkExtensions(&sc, path, checkHandler); err != nil {
		return nil, err
	}
	return &sc, nil
}

// checkExtensions validates the transform, indexers and actions (the same rules as
// src/scenario/validate.ts; calls this client-go line lacks are bad input in a scenario meant
// for this profile).
func checkExtensions(sc *Scenario, path string, checkHandler func(string, *HandlerSpec) error) error {
	if sc.Informer.Transform != "" {
		if transformFunc(sc.Informer.Transform) == nil {
			return bad("%s: informer.transform: unknown transform %q", path, sc.Informer.Transform)
		}
		if !hasSetTransform && sc.MeantFor(Profile) {
			return bad("%s: informer.transform: this client-go has no SetTransform", path)
		}
	}
	indexNames := map[string]bool{}
	checkIndexers := func(where string, ix map[string]string) error {
		for name, spec := range ix {
			if indexFunc(spec) == nil {
				return bad("%s: %s.%s: %q is not an index function of the catalogue", path, where, name, spec)
			}
			if indexNames[name] {
				return bad("%s: %s.%s: an index of that name exists already", path, where, name)
			}
			indexNames[name] = true
		}
		return nil
	}
	if err := checkIndexers("informer.indexers", sc.Informer.Indexers); err != nil {
		return err
	}
	handlers := map[string]bool{}
	for _, h := range sc.Informer.Handlers {
		handlers[h.Name] = true
	}
	for _, st := range sc.Steps {
		if st.AddHandler != nil {
			handlers[st.AddHandler.Name] = true
		}
	}
	var last int64
	stops := 0
	for i := range sc.Actions {
		a := &sc.Actions[i]
		where := fmt.Sprintf("actions[%d]", i)
		if a.AtMs == nil || *a.AtMs < 0 {
			return bad("%s: %s: atMs (>= 0) is required", path, where)
		}
		if *a.AtMs < last {
			return bad("%s: %s: actions must be in time order", path, where)
		}
		last = *a.AtMs
		kinds := 0
		if a.AddHandler != nil {
			kinds++
			if err := checkHandler(where+".addHandler", a.AddHandler); err != nil {
				return err
			}
			handlers[a.AddHandler.Name] = true
		}
		if a.RemoveHandler != "" {
			kinds++
			if !hasRemoveEventHandler && sc.MeantFor(Profile) {
				return bad("%s: %s.removeHandler: this client-go has no RemoveEventHandler", path, where)
			}
			if !handlers[a.RemoveHandler] {
				return bad("%s: %s.removeHandler: no handler %q", path, where, a.RemoveHandler)
			}
		}
		if a.AddIndexers != nil {
			kinds++
			if err := checkIndexers(where+".addIndexers", a.AddIndexers); err != nil {
				return err
			}
		}
		if a.Stop {
			kinds++
			stops++
		}
		if a.Restart {
			kinds++
		}
		if kinds != 1 {
			return bad("%s: %s: needs exactly one of addHandler, removeHandler, addIndexers, stop, restart", path, where)
		}
	}
	if stops > 1 {
		return bad("%s: only one stop action per scenario", path)
	}
	return nil
}

func checkObject(o map[string]interface{}) error {
	md, ok := o["metadata"].(map[string]interface{})
	if !ok {
		return fmt.Errorf("metadata is required")
	}
	if n, _ := md["name"].(string); strings.TrimSpace(n) == "" {
		return fmt.Errorf("metadata.name is required")
	}
	return nil
}

// normalizeNumbers turns json.Number into int64 (or float64), as the
// unstructured JSON decoder does.
func normalizeNumbers(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
		return x
	case []interface{}:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
		return x
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// MeantFor says whether the scenario is meant for the profile (top-level
// "profiles"; absent means all).
func (sc *Scenario) MeantFor(profile string) bool {
	if sc.Profiles == nil {
		return true
	}
	for _, p := range sc.Profiles {
		if p == profile {
			return true
		}
	}
	return false
}

// ApplyGates sets KUBE_FEATURE_<Gate> for the scenario's gate overrides. client-go
// reads these variables once, on first use of a gate, so this must run before the
// informer is created. It returns the gate names, sorted.
func ApplyGates(sc *Scenario) []string {
	names := make([]string, 0, len(sc.Gates))
	for g := range sc.Gates {
		names = append(names, g)
	}
	sort.Strings(names)
	for _, g := range names {
		os.Setenv("KUBE_FEATURE_"+g, strconv.FormatBool(sc.Gates[g]))
	}
	return names
}
