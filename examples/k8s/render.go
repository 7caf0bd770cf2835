package k8s

import (
	"bytes"
	"encoding/json"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Render writes objects as one YAML stream, documents separated by ---,
// keys in the order of the types' JSON encoding (what kubectl shows), with
// the fields an empty object carries (a null creationTimestamp, an empty
// status) left out.
func Render(header string, objects ...any) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(header)
	for i, obj := range objects {
		b, err := json.Marshal(obj)
		if err != nil {
			return nil, fmt.Errorf("encoding object %d: %w", i+1, err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("object %d: %w", i+1, err)
		}
		tidy(doc.Content[0], 0)
		if i > 0 {
			buf.WriteString("---\n")
		}
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(doc.Content[0]); err != nil {
			return nil, fmt.Errorf("object %d: %w", i+1, err)
		}
		if err := enc.Close(); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// tidy drops null values and a top-level empty status, and clears the
// JSON flow and quoting styles so the encoder writes block YAML, quoting
// only what needs it.
func tidy(n *yaml.Node, depth int) {
	n.Style = 0
	if n.Kind == yaml.MappingNode {
		var kept []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if v.Tag == "!!null" {
				continue
			}
			if depth == 0 && k.Value == "status" && v.Kind == yaml.MappingNode && len(v.Content) == 0 {
				continue
			}
			kept = append(kept, k, v)
		}
		n.Content = kept
	}
	for _, c := range n.Content {
		tidy(c, depth+1)
	}
}
