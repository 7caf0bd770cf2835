package result

import (
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// hostileHistogram is a valid, empty V2 histogram whose header asks for 5
// significant digits over 1..2^62: a few dozen bytes that would make a
// naive decoder allocate a counts array of tens of MiB.
func hostileHistogram(tb testing.TB) string {
	tb.Helper()
	b, err := hdrhistogram.New(1, 1<<62, 5).Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// BenchmarkDecodeHistogram shows what decoding costs in memory (B/op):
// perfgate's own histogram shape, and a hostile header. The hostile one
// must cost no more than the payload allows (it is refused).
//
//	go test -run '^$' -bench DecodeHistogram -benchmem ./result
func BenchmarkDecodeHistogram(b *testing.B) {
	own := NewHistogram()
	for i := int64(1); i < 100000; i += 7 {
		_ = own.RecordValue(i)
	}
	ownEnc, err := EncodeHistogram(own)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, enc string }{
		{"own-shape", ownEnc},
		{"hostile-header", hostileHistogram(b)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				DecodeHistogram(bc.enc)
			}
			b.ReportMetric(float64(len(bc.enc)), "input-bytes")
		})
	}
}
