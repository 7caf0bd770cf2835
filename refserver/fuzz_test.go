package refserver

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

var fuzzServer = sync.OnceValues(func() (*Server, error) {
	return NewServer(Options{Model: ModelSim, SimFixed: time.Microsecond, SimPerItem: time.Microsecond,
		LLMStep: time.Microsecond, LLMStepPerSeq: time.Microsecond, LLMPrefillPerToken: time.Nanosecond})
})

// FuzzRequestBodies posts arbitrary bodies to each decoding endpoint: the
// server must answer every one with a status (never panic or hang) and
// only accept what it can serve.
func FuzzRequestBodies(f *testing.F) {
	for _, s := range []string{
		`{"inputs":[{"name":"input","datatype":"FP32","shape":[1,2],"data":[1,2]}]}`,
		`{"model":"tiny-llm","prompt":"hi","max_tokens":2}`,
		`{"model":"tiny-llm","messages":[{"role":"user","content":[{"type":"text","text":"a b"}]}],"max_tokens":1,"stream":true}`,
		`{"model":"tiny-llm","prompt":["a","b"],"max_tokens":99999}`,
		`{"model":"sim-llm","prompt":"hi","max_tokens":2,"stream":true}`,
		`{"model":"tiny-llm","prompt":"","max_tokens":2}`,
		`{"model":"tiny-llm","prompt":"hot","max_tokens":2,"temperature":0}`,
		`{`, ``, `null`,
	} {
		f.Add(uint8(0), []byte(s))
		f.Add(uint8(1), []byte(s))
		f.Add(uint8(2), []byte(s))
	}
	paths := []string{"/v2/models/mlp/infer", "/v1/completions", "/v1/chat/completions"}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		srv, err := fuzzServer()
		if err != nil {
			t.Fatal(err)
		}
		if len(body) > 1<<16 {
			return
		}
		path := paths[int(which)%len(paths)]
		rec := httptest.NewRecorder()
		// A valid completion of up to 8192 tokens takes that many steps:
		// bound each call (the handler returns when its context ends).
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		srv.Handler().ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusNotFound:
		default:
			t.Fatalf("POST %s %q: status %d (%s)", path, body, rec.Code, rec.Body)
		}
	})
}
