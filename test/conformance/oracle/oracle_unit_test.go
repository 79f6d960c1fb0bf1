package oracle

import (
	"bytes"
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
	var reqs []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.Contains(l, `"kind":"request"`) {
			reqs = append(reqs, timeoutRE.ReplaceAllString(l, ""))
		}
	}
	want0 := `{"kind":"request","verb":"list","rv":"0","limit":500}`
	want1 := `{"kind":"request","verb":"watch","rv":"10"`
	if len(reqs) < 3 || reqs[0] != want0 || !strings.HasPrefix(reqs[1], want1) || !strings.Contains(reqs[2], `"verb":"list"`) {
		t.Fatalf("requests:\n%s", strings.Join(reqs, "\n"))
	}
	if !strings.Contains(out.String(), `{"kind":"notify","handler":"main","op":"delete","key":"default/a","rv":"11"`) ||
		!strings.HasSuffix(out.String(), "{\"kind\":\"end\"}\n") {
		t.Fatalf("log:\n%s", out.String())
	}
}
