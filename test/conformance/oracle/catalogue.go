package oracle

// The fixed catalogue of transforms and index functions a scenario can name
// (docs/scenario-format.md, "Transforms and indexers"); src/scenario/catalogue.ts has the
// same entries and must produce the same objects.

import (
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const transformCountAnnotation = "inspector.dev/transforms"

var plainInt = regexp.MustCompile(`^[+-]?[0-9]+$`)

// transformFunc returns the named transform (a client-go TransformFunc), nil when unknown.
// It returns a changed copy; tombstones and other types pass unchanged (client-go never
// hands a tombstone to the transformer, see the FIFOs' queueActionLocked/addToItems_locked).
func transformFunc(name string) func(interface{}) (interface{}, error) {
	var edit func(md map[string]interface{})
	switch name {
	case "strip-managed-fields":
		edit = func(md map[string]interface{}) { delete(md, "managedFields") }
	case "drop-annotations":
		edit = func(md map[string]interface{}) { delete(md, "annotations") }
	case "count-transforms":
		edit = func(md map[string]interface{}) {
			ann, _ := md["annotations"].(map[string]interface{})
			next := map[string]interface{}{}
			for k, v := range ann {
				next[k] = v
			}
			n := 0
			if s, ok := next[transformCountAnnotation].(string); ok && plainInt.MatchString(s) {
				n, _ = strconv.Atoi(s)
			}
			next[transformCountAnnotation] = strconv.Itoa(n + 1)
			md["annotations"] = next
		}
	default:
		return nil
	}
	return func(obj interface{}) (interface{}, error) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return obj, nil
		}
		out := u.DeepCopy()
		md, _ := out.Object["metadata"].(map[string]interface{})
		if md == nil {
			md = map[string]interface{}{}
			out.Object["metadata"] = md
		}
		edit(md)
		return out, nil
	}
}

// indexFunc returns the named index function (a client-go IndexFunc), nil when unknown:
// "namespace" or "label:<key>" (the label's value; nothing when absent).
func indexFunc(spec string) func(obj interface{}) ([]string, error) {
	if spec == "namespace" {
		return func(obj interface{}) ([]string, error) {
			u, ok := obj.(*unstructured.Unstructured)
			if !ok {
				return []string{""}, nil
			}
			return []string{u.GetNamespace()}, nil
		}
	}
	if key, ok := strings.CutPrefix(spec, "label:"); ok && key != "" {
		return func(obj interface{}) ([]string, error) {
			u, ok := obj.(*unstructured.Unstructured)
			if !ok {
				return nil, nil
			}
			md, _ := u.Object["metadata"].(map[string]interface{})
			labels, _ := md["labels"].(map[string]interface{})
			if v, ok := labels[key].(string); ok {
				return []string{v}, nil
			}
			return nil, nil
		}
	}
	return nil
}
