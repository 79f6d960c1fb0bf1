package oracle

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
)

const contractExample = `{
  "format": "informer-scenario/v1",
  "name": "contract-example",
  "resource": { "apiVersion": "v1", "kind": "ConfigMap", "resource": "configmaps", "namespaced": true },
  "informer": { "resyncPeriodMs": 0, "handlers": [ { "name": "main" } ] },
  "gates": { "WatchListClient": false },
  "steps": [
    { "on": "list", "resourceVersion": "10", "items": [ { "metadata": { "namespace": "default", "name": "a", "resourceVersion": "5" } } ] },
    { "on": "watch", "events": [ { "type": "MODIFIED", "object": { "metadata": { "namespace": "default", "name": "a", "resourceVersion": "11" } } } ],
      "close": "error", "error": { "code": 410, "reason": "Expired", "message": "too old resource version: 11 (20)" } },
    { "on": "list", "resourceVersion": "25", "items": [] }
  ]
}`

var timeoutRE = regexp.MustCompile(`,"timeoutSeconds":\d+`)

func TestParseScenarioRejectsBadInput(t *testing.T) {
	cases := map[string]string{
		"format":                `{"format":"x"}`,
		"resource":              `{"format":"informer-scenario/v1","steps":[]}`,
		"unknown on":            `{"format":"informer-scenario/v1","resource":{"apiVersion":"v1","kind":"Pod"},"steps":[{"on":"get"}]}`,
		"close":                 `{"format":"informer-scenario/v1","resource":{"apiVersion":"v1","kind":"Pod"},"steps":[{"on":"watch","events":[],"close":"boom"}]}`,
		"network":               `{"format":"informer-scenario/v1","resource":{"apiVersion":"v1","kind":"Pod"},"steps":[{"on":"list","network":"dns"}]}`,
		"no name":               `{"format":"informer-scenario/v1","resource":{"apiVersion":"v1","kind":"Pod"},"steps":[{"on":"list","items":[{"metadata":{}}]}]}`,
		"dup handler":           `{"format":"informer-scenario/v1","resource":{"apiVersion":"v1","kind":"Pod"},"informer":{"handlers":[{"name":"a"},{"name":"a"}]},"steps":[]}`,
		"delayMs":               `{"format":"informer-scenario/v1","resource":{"apiVersion":"v1","kind":"Pod"},"informer":{"handlers":[{"name":"a","delayMs":-1}]},"steps":[]}`,
		"listTypeMeta on watch": `{"format":"informer-scenario/v1","resource":{"apiVersion":"v1","kind":"Pod"},"steps":[{"on":"watch","events":[],"close":"eof","listTypeMeta":{"apiVersion":"meta.k8s.io/v1","kind":"Table"}}]}`,
		"listTypeMeta no kind":  `{"format":"informer-scenario/v1","resource":{"apiVersion":"v1","kind":"Pod"},"steps":[{"on":"list","items":[],"resourceVersion":"1","listTypeMeta":{"apiVersion":"v1"}}]}`,
	}
	for name, js := range cases {
		_, err := ParseScenario([]byte(js), name)
		var b *BadInput
		if !errors.As(err, &b) {
			t.Errorf("%s: want BadInput, got %v", name, err)
		}
	}
}

// The contract example on the profile under test (every profile lists at "0" with
// limit 500 and watches at the list's RV first; only the relist RV differs by line).
func TestContractExampleRequests(t *testing.T) {
	sc, err := ParseScenario([]byte(contractExample), "example")
	if err != nil {
		t.Fatal(err)
	}
	ApplyGates(sc)
	log := NewLog()
	var res Result
	synctest.Test(t, func(t *testing.T) { res = Run(sc, log) })
	if res.Err != nil || res.Diverged {
		t.Fatalf("result %+v", res)
	}
	var out bytes.Buffer
	log.Flush(&out)
	text := tRE.ReplaceAllString(out.String(), "")
	text = regexp.MustCompile(`\{"kind":"store","objects":[^\n]*\n`).ReplaceAllString(text, "")
	var reqs []string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		if strings.Contains(l, `"kind":"request"`) {
			reqs = append(reqs, timeoutRE.ReplaceAllString(l, ""))
		}
	}
	want0 := `{"kind":"request","verb":"list","rv":"0","limit":500}`
	want1 := `{"kind":"request","verb":"watch","rv":"10"`
	if len(reqs) < 3 || reqs[0] != want0 || !strings.HasPrefix(reqs[1], want1) || !strings.Contains(reqs[2], `"verb":"list"`) {
		t.Fatalf("requests:\n%s", strings.Join(reqs, "\n"))
	}
	if !strings.Contains(text, `{"kind":"notify","handler":"main","op":"delete","key":"default/a","rv":"11"`) ||
		!strings.HasSuffix(text, "{\"kind\":\"end\"}\n") {
		t.Fatalf("log:\n%s", out.String())
	}
}

// tRE drops the v2 time stamp so the request lines read like v1.
var tRE = regexp.MustCompile(`,"t":[0-9.e+-]+`)

// The digest canonicalisation must give the bytes test/unit/scenario/objectDigest.test.ts pins.
func TestDigestCanonicalJSON(t *testing.T) {
	var v interface{}
	dec := json.NewDecoder(strings.NewReader(digestFixture))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	b, err := CanonicalJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != digestCanonical {
		t.Fatalf("canonical JSON\n got %s\nwant %s", b, digestCanonical)
	}
	if d := Digest(v); d != digestWant {
		t.Fatalf("digest %s, want %s", d, digestWant)
	}
}

const digestFixture = `{"metadata":{"name":"a<b>&c","namespace":"default","labels":{"z":"1","a":"2","é":"3","B":"4"}},"data":{"n":1.50,"big":1e21,"small":0.000001,"tiny":1e-7,"neg":-0,"i":12345678901,"line":"x\u2028y\u0001\t\"q\""},"list":[3,"b",null,true,{"y":1,"x":[]}]}`

const digestCanonical = `{"data":{"big":1e+21,"i":12345678901,"line":"x\u2028y\u0001\t\"q\"","n":1.5,"neg":-0,"small":0.000001,"tiny":1e-7},"list":[3,"b",null,true,{"x":[],"y":1}],"metadata":{"labels":{"B":"4","a":"2","z":"1","é":"3"},"name":"a<b>&c","namespace":"default"}}`

const digestWant = "96b483c072a0ba1d"
