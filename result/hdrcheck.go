package result

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// HdrHistogram's V2 encoding: an 8-byte header (cookie, length of the
// compressed contents), then zlib-compressed contents that start with a
// 40-byte header (cookie, payload length, normalizing offset, significant
// digits, lowest and highest trackable values, conversion ratio) followed
// by the counts, ZigZag LEB128, at most 9 bytes each.
const (
	hdrOuterHeader = 8
	hdrInnerHeader = 40
	hdrCookieBase  = 0x1c849304 // V2CompressedEncodingCookieBase
	hdrMaxVarint   = 9
)

// maxHistogramCounts is the largest counts array a decoded histogram may
// have: that of perfgate's own shape (1 µs to 1 h at 3 digits, about
// 24,000 counts, 190 KiB). Every histogram perfgate writes has that shape.
var maxHistogramCounts = countsLen(HistMinUs, HistMaxUs, HistSigFigs)

// checkHistogram reads the headers of a V2 compressed histogram and
// refuses it, before anything is allocated for it, when its shape needs
// a counts array larger than perfgate's own, or when its compressed
// contents would inflate to more than the payload its header declares
// (a zip bomb). hdrhistogram-go's Decode allocates whatever the header
// asks for: a 56-byte header can ask for 46 MiB.
func checkHistogram(s string) error {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("decoding histogram: %w", err)
	}
	if len(raw) < hdrOuterHeader {
		return fmt.Errorf("decoding histogram: %d bytes, shorter than its header", len(raw))
	}
	if cookie := int32(binary.BigEndian.Uint32(raw)) &^ 0xf0; cookie != hdrCookieBase {
		return fmt.Errorf("decoding histogram: not HdrHistogram's V2 compressed encoding (cookie %#x)", cookie)
	}
	n := int32(binary.BigEndian.Uint32(raw[4:]))
	if n < 0 || int(n) > len(raw)-hdrOuterHeader {
		return fmt.Errorf("decoding histogram: its header announces %d compressed bytes, %d are there", n, len(raw)-hdrOuterHeader)
	}
	z, err := zlib.NewReader(bytes.NewReader(raw[hdrOuterHeader : hdrOuterHeader+int(n)]))
	if err != nil {
		return fmt.Errorf("decoding histogram: %w", err)
	}
	defer z.Close()
	var head [hdrInnerHeader]byte
	if _, err := io.ReadFull(z, head[:]); err != nil {
		return fmt.Errorf("decoding histogram: reading its header: %w", err)
	}
	payload := int64(int32(binary.BigEndian.Uint32(head[4:])))
	digits := int32(binary.BigEndian.Uint32(head[12:]))
	low := int64(binary.BigEndian.Uint64(head[16:]))
	high := int64(binary.BigEndian.Uint64(head[24:]))
	if digits < 1 || digits > 5 || low < 1 || high < 2*low {
		return fmt.Errorf("decoding histogram: bad shape (%d digits, %d to %d)", digits, low, high)
	}
	if c := countsLen(low, high, int(digits)); c > maxHistogramCounts {
		return fmt.Errorf("decoding histogram: its shape (%d digits, %d to %d) needs %d counts, more than perfgate's %d: refused",
			digits, low, high, c, maxHistogramCounts)
	}
	if payload < 0 || payload > int64(maxHistogramCounts)*hdrMaxVarint {
		return fmt.Errorf("decoding histogram: payload of %d bytes is out of bounds", payload)
	}
	// The decoder inflates everything; it must be no more than announced.
	got, err := io.Copy(io.Discard, io.LimitReader(z, payload+1))
	if err != nil {
		return fmt.Errorf("decoding histogram: %w", err)
	}
	if got != payload {
		return fmt.Errorf("decoding histogram: payload is not the %d bytes its header announces", payload)
	}
	return nil
}

// countsLen is the length of the counts array hdrhistogram.New(low, high,
// digits) allocates, computed as New does, without allocating it.
func countsLen(low, high int64, digits int) int {
	largest := 2 * math.Pow10(digits)
	subMag := int32(math.Ceil(math.Log2(largest)))
	halfMag := max(subMag, 1) - 1
	unitMag := max(int32(math.Floor(math.Log2(float64(low)))), 0)
	subCount := int64(1) << (halfMag + 1)
	if unitMag >= 62 {
		return math.MaxInt32
	}
	smallest := subCount << unitMag
	buckets := 1
	for smallest < high {
		if smallest > math.MaxInt64/2 {
			buckets++
			break
		}
		smallest <<= 1
		buckets++
	}
	return (buckets + 1) * int(subCount/2)
}
