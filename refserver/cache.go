package refserver

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"sync"
)

// cacheKey identifies a request exactly: a SHA-256 of the model name, the
// batch size and the bits of every input value.
type cacheKey [sha256.Size]byte

func keyOf(model string, batch int, x []float32) cacheKey {
	h := sha256.New()
	h.Write([]byte(model))
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(batch))
	h.Write(b[:])
	buf := make([]byte, 0, 4096)
	for _, v := range x {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
		if len(buf) == cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	var k cacheKey
	h.Sum(k[:0])
	return k
}

// responseCache is an exact-match cache of model outputs, bounded by entry
// count, evicting the oldest entry first (FIFO: cheap, and fair for the
// repeated-payload traffic it serves).
type responseCache struct {
	mu    sync.Mutex
	max   int
	m     map[cacheKey][]float32
	order []cacheKey // insertion order, a ring of max entries
	next  int
}

func newResponseCache(max int) *responseCache {
	return &responseCache{max: max, m: make(map[cacheKey][]float32, max)}
}

// get returns a copy of the outputs stored under k.
func (c *responseCache) get(k cacheKey) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	y, ok := c.m[k]
	if !ok {
		return nil, false
	}
	return append([]float32(nil), y...), true
}

// put stores a copy of y under k, evicting the oldest entry when full.
func (c *responseCache) put(k cacheKey, y []float32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok {
		return
	}
	if len(c.order) < c.max {
		c.order = append(c.order, k)
	} else {
		delete(c.m, c.order[c.next])
		c.order[c.next] = k
		c.next = (c.next + 1) % c.max
	}
	c.m[k] = append([]float32(nil), y...)
}
