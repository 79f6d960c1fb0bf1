package oracle

// The notification log (contracts §2): NDJSON with a fixed key order.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type field struct {
	k string
	v any
}

// object is a JSON object with ordered keys.
type object []field

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.k)
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Log collects NDJSON lines; safe for concurrent use. Lines are written by
// Flush in a canonical order: by virtual time; within one instant requests
// first, then each handler's notifications (handlers in the order they were
// added), then synced, divergence, end. The order within each of those groups
// is the order of the calls. (The run itself is concurrent: handlers run in
// their own goroutines, so the raw interleaving is not deterministic; the
// comparison ignores it anyway.)
type Log struct {
	mu       sync.Mutex
	lines    []logLine
	handlers map[string]int
	synced   bool
}

type logLine struct {
	t         time.Time
	rank, sub int
	b         []byte
}

func NewLog() *Log { return &Log{handlers: map[string]int{}} }

const (
	rankRequest = iota
	rankNotify
	rankSynced
	rankDivergence
	rankEnd
)

// Handler registers a handler name (its notifications sort in this order).
func (l *Log) Handler(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.handlers[name]; !ok {
		l.handlers[name] = len(l.handlers)
	}
}

func (l *Log) line(rank, sub int, fields ...field) {
	b, err := object(fields).MarshalJSON()
	if err != nil {
		panic(err)
	}
	b = append(b, '\n')
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, logLine{t: now, rank: rank, sub: sub, b: b})
}

// Flush writes the collected lines in canonical order.
func (l *Log) Flush(w io.Writer) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	sort.SliceStable(l.lines, func(i, j int) bool {
		a, b := l.lines[i], l.lines[j]
		if !a.t.Equal(b.t) {
			return a.t.Before(b.t)
		}
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		return a.sub < b.sub
	})
	bw := bufio.NewWriter(w)
	for _, ln := range l.lines {
		bw.Write(ln.b)
	}
	l.lines = nil
	return bw.Flush()
}

// Request logs one List/Watch call of the reflector (field rules in
// docs/scenario-format.md).
func (l *Log) Request(verb string, o metav1.ListOptions) {
	fs := []field{{"kind", "request"}, {"verb", verb}, {"rv", o.ResourceVersion}}
	if o.Limit > 0 {
		fs = append(fs, field{"limit", o.Limit})
	}
	if o.Continue != "" {
		fs = append(fs, field{"continue", o.Continue})
	}
	if sendInitialEvents(o) {
		fs = append(fs, field{"sendInitialEvents", true})
	}
	if m := rvMatch(o); m != "" {
		fs = append(fs, field{"resourceVersionMatch", m})
	}
	if o.AllowWatchBookmarks {
		fs = append(fs, field{"allowWatchBookmarks", true})
	}
	if verb == "watch" && o.TimeoutSeconds != nil {
		fs = append(fs, field{"timeoutSeconds", *o.TimeoutSeconds})
	}
	l.line(rankRequest, 0, fs...)
}

type notify struct {
	handler     string
	op          string
	key         string
	rv          string
	oldRv       *string
	initialList *bool
	tombstone   bool
}

func (l *Log) Notify(n notify) {
	fs := []field{{"kind", "notify"}, {"handler", n.handler}, {"op", n.op}, {"key", n.key}}
	if n.oldRv != nil {
		fs = append(fs, field{"oldRv", *n.oldRv})
	}
	fs = append(fs, field{"rv", n.rv})
	if n.initialList != nil {
		fs = append(fs, field{"initialList", *n.initialList})
	}
	if n.tombstone {
		fs = append(fs, field{"tombstone", true})
	}
	l.mu.Lock()
	sub := l.handlers[n.handler]
	l.mu.Unlock()
	l.line(rankNotify, sub, fs...)
}

// Synced logs {"kind":"synced"} the first time it is called.
func (l *Log) Synced() {
	l.mu.Lock()
	first := !l.synced
	l.synced = true
	l.mu.Unlock()
	if first {
		l.line(rankSynced, 0, field{"kind", "synced"})
	}
}

func (l *Log) Divergence(expected, verb, rv string) {
	l.line(rankDivergence, 0, field{"kind", "divergence"}, field{"expected", expected},
		field{"got", object{{"verb", verb}, {"rv", rv}}})
}

func (l *Log) End() { l.line(rankEnd, 0, field{"kind", "end"}) }
