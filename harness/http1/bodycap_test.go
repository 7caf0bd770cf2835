package http1

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// A body beyond MaxKeptBody is read to its end (the connection is reused)
// but only its first MaxKeptBody bytes are kept.
func TestBodyKeptUpToCap(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), (MaxKeptBody+5<<20)/16)
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunked), func(t *testing.T) {
			srv, _ := newCountingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !chunked {
					w.Header().Set("Content-Length", fmt.Sprint(len(big)))
				}
				for b := big; len(b) > 0; b = b[min(len(b), 1<<20):] {
					w.Write(b[:min(len(b), 1<<20)])
					if chunked {
						w.(http.Flusher).Flush()
					}
				}
			}))
			cl := newClient(t, Options{URL: srv.URL, MaxConns: 1})
			status, got, err := cl.DoAppend(context.Background(), nil, nil)
			if err != nil || status != 200 {
				t.Fatalf("DoAppend = %d, %v", status, err)
			}
			if len(got) != MaxKeptBody || !bytes.Equal(got, big[:MaxKeptBody]) {
				t.Errorf("DoAppend kept %d bytes, want the first %d of %d", len(got), MaxKeptBody, len(big))
			}
			if status, got, err := cl.DoAppend(context.Background(), nil, got[:0]); err != nil || status != 200 || len(got) != MaxKeptBody {
				t.Fatalf("second DoAppend = %d, %d bytes, %v", status, len(got), err)
			}
			if cl.Dials() != 1 {
				t.Errorf("Dials() = %d, want 1: the connection carries on after a capped body", cl.Dials())
			}
		})
	}
	t.Run("until close", func(t *testing.T) {
		r := bufio.NewReader(strings.NewReader("HTTP/1.1 200 OK\r\n\r\n" + string(big)))
		resp, got, err := readResponse(r, false, true, nil)
		if err != nil || resp.status != 200 || len(got) != MaxKeptBody {
			t.Errorf("readResponse = %d, %d bytes, %v; want 200 and %d bytes", resp.status, len(got), err, MaxKeptBody)
		}
	})
}
