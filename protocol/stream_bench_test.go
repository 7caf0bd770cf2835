package protocol

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/harness"
)

// BenchmarkReadStream measures the generator's own cost of one streamed
// token: reading its SSE event, decoding its chunk and timestamping it
// (b.N tokens, in streams of 100). The transport's cost is not in it; the
// bench/stream benchmark measures the whole process.
func BenchmarkReadStream(b *testing.B) {
	const tokens = 100
	var sb strings.Builder
	for range tokens {
		sb.WriteString(`data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" tok"}}]}` + "\n\n")
	}
	sb.WriteString(`data: {"id":"x","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":100,"total_tokens":101}}` + "\n\n")
	sb.WriteString("data: [DONE]\n\n")
	stream := []byte(sb.String())
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(stream) / tokens))
	for i := 0; i < b.N; i += tokens {
		var s harness.Sample
		readStream(ctx, ctx, bytes.NewReader(stream), &s)
		if s.Class != "" || s.Stream.OutputTokens != tokens {
			b.Fatalf("sample %+v", s)
		}
	}
}
