package oracle

// The notification log v2 (contracts §2 extended by docs/notification-log-v2.md):
// NDJSON with a fixed key order, every line stamped with its virtual time.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"net/url"
	"sort"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
	start    time.Time
	lines    []logLine
	handlers map[string]int
	synced   bool
	// onNotify runs after every notify line (the runner's synced poller: a FIFO pop, also
	// one without anything from the server such as a resync, can make HasSynced true).
	onNotify func()
}

type logLine struct {
	t         float64 // virtual ms, as written
	rank, sub int
	b         []byte
}

func NewLog() *Log { return &Log{handlers: map[string]int{}} }

// Start sets the instant that "t" counts from (the start of the run, inside the bubble).
func (l *Log) Start() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.start = time.Now()
}

// virtualMs is d in milliseconds rounded to the microsecond (docs/notification-log-v2.md).
func virtualMs(d time.Duration) float64 {
	return math.Round(float64(d)/1e3) / 1e3
}

const (
	rankRequest = iota
	rankNotify
	rankSynced
	rankDivergence
	rankIndex
	rankStore
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

// line records one line; "t" (virtual ms since Start) goes right after "kind".
func (l *Log) line(rank, sub int, fields ...field) { l.lineAt(time.Now(), rank, sub, fields...) }

func (l *Log) lineAt(now time.Time, rank, sub int, fields ...field) {
	l.mu.Lock()
	defer l.mu.Unlock()
	stamped := make(object, 0, len(fields)+1)
	t := virtualMs(now.Sub(l.start))
	stamped = append(stamped, fields[0], field{"t", t})
	stamped = append(stamped, fields[1:]...)
	b, err := stamped.MarshalJSON()
	if err != nil {
		panic(err)
	}
	b = append(b, '\n')
	l.lines = append(l.lines, logLine{t: t, rank: rank, sub: sub, b: b})
}

// Flush writes the collected lines in canonical order.
func (l *Log) Flush(w io.Writer) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	sort.SliceStable(l.lines, func(i, j int) bool {
		a, b := l.lines[i], l.lines[j]
		if a.t != b.t {
			return a.t < b.t
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

// RequestQuery logs one List/Watch call of the reflector from the query of the HTTP request
// the REST client sent (field rules in docs/scenario-format.md).
func (l *Log) RequestQuery(verb string, q url.Values) {
	fs := []field{{"kind", "request"}, {"verb", verb}, {"rv", q.Get("resourceVersion")}}
	if n, err := strconv.ParseInt(q.Get("limit"), 10, 64); err == nil && n > 0 {
		fs = append(fs, field{"limit", n})
	}
	if v := q.Get("continue"); v != "" {
		fs = append(fs, field{"continue", v})
	}
	if q.Get("sendInitialEvents") == "true" {
		fs = append(fs, field{"sendInitialEvents", true})
	}
	if v := q.Get("resourceVersionMatch"); v != "" {
		fs = append(fs, field{"resourceVersionMatch", v})
	}
	if q.Get("allowWatchBookmarks") == "true" {
		fs = append(fs, field{"allowWatchBookmarks", true})
	}
	if n, err := strconv.ParseInt(q.Get("timeoutSeconds"), 10, 64); err == nil && verb == "watch" {
		fs = append(fs, field{"timeoutSeconds", n})
	}
	if v := q.Get("labelSelector"); v != "" {
		fs = append(fs, field{"labelSelector", v})
	}
	if v := q.Get("fieldSelector"); v != "" {
		fs = append(fs, field{"fieldSelector", v})
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
	digest      string
	oldDigest   *string
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
	if n.oldDigest != nil {
		fs = append(fs, field{"oldDigest", *n.oldDigest})
	}
	fs = append(fs, field{"digest", n.digest})
	l.mu.Lock()
	sub := l.handlers[n.handler]
	hook := l.onNotify
	l.mu.Unlock()
	l.line(rankNotify, sub, fs...)
	if hook != nil {
		hook()
	}
}

// Restarted: the next Synced call logs again (a restart action's fresh informer).
func (l *Log) Restarted() {
	l.mu.Lock()
	l.synced = false
	l.mu.Unlock()
}

// Synced logs {"kind":"synced"} the first time it is called (since Start or Restarted).
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

// End logs the end of the run at the instant the informer was found idle and stopped
// (what its goroutines do while they exit is not part of the run).
func (l *Log) End(stoppedAt time.Time) { l.lineAt(stoppedAt, rankEnd, 0, field{"kind", "end"}) }

// Index logs the informer's indexes after the run (scenarios with indexers only):
// index name → indexed value → keys, stamped like End.
func (l *Log) Index(stoppedAt time.Time, indexes map[string]map[string][]string) {
	l.lineAt(stoppedAt, rankIndex, 0, field{"kind", "index"}, field{"indexes", indexes})
}

// Store logs the informer's final store: key → digest of the object (keys sorted),
// stamped like End.
func (l *Log) Store(stoppedAt time.Time, objects map[string]string) {
	l.lineAt(stoppedAt, rankStore, 0, field{"kind", "store"}, field{"objects", objects})
}

// Digest is the stable digest of an object as a handler receives it
// (docs/notification-log-v2.md): the first 16 hex digits of the SHA-256 of its
// canonical JSON (keys sorted bytewise, numbers as float64, no HTML escaping,
// no insignificant space). "" for nil.
func Digest(obj interface{}) string {
	var v interface{}
	switch o := obj.(type) {
	case nil:
		return ""
	case *unstructured.Unstructured:
		if o == nil {
			return ""
		}
		v = o.Object
	case map[string]interface{}:
		v = o
	default:
		b, err := json.Marshal(o)
		if err != nil {
			return "unencodable"
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return "unencodable"
		}
	}
	b, err := CanonicalJSON(v)
	if err != nil {
		return "unencodable"
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:16]
}

// CanonicalJSON encodes v with sorted keys (encoding/json sorts map keys bytewise),
// every number as a float64 and without HTML escaping.
func CanonicalJSON(v interface{}) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(floatNumbers(v)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func floatNumbers(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(x))
		for k, e := range x {
			out[k] = floatNumbers(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = floatNumbers(e)
		}
		return out
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return f
	case int64:
		return float64(x)
	case int:
		return float64(x)
	case int32:
		return float64(x)
	default:
		return v
	}
}
